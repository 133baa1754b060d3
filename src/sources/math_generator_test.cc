#include "sources/math_generator.h"

#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"

namespace structtest {
namespace {

uint64_t HashProblems(const std::vector<MathProblem>& problems) {
  uint64_t h = kFnv1aOffset;
  for (const MathProblem& p : problems) {
    h = Fnv1a(p.id, h);
    h = Fnv1a(p.question, h);
    h = Fnv1a(p.solution, h);
    h = Fnv1a(p.answer, h);
    for (const std::string& s : p.steps) h = Fnv1a(s, h);
  }
  return h;
}

// An independent evaluator for the "A op B = C" computations the steps state: integer
// arithmetic with the usual precedence, every division exact, no negative value.
class Evaluator {
 public:
  explicit Evaluator(std::string_view expr) : s_(expr) {}
  // False when the expression is malformed, divides inexactly or goes negative.
  bool Evaluate(int64_t* out) {
    *out = Sum();
    Skip();
    return ok_ && pos_ == s_.size();
  }
  std::vector<int64_t> literals;

 private:
  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '$')) ++pos_;
  }
  int64_t Sum() {
    int64_t v = Product();
    for (;;) {
      Skip();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) return v;
      const char op = s_[pos_++];
      const int64_t r = Product();
      v = op == '+' ? v + r : v - r;
      if (v < 0) ok_ = false;
    }
  }
  int64_t Product() {
    int64_t v = Atom();
    for (;;) {
      Skip();
      if (pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/')) return v;
      const char op = s_[pos_++];
      const int64_t r = Atom();
      if (op == '*') {
        v *= r;
      } else if (r == 0 || v % r != 0) {
        ok_ = false;
      } else {
        v /= r;
      }
    }
  }
  int64_t Atom() {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == '(') {
      ++pos_;
      const int64_t v = Sum();
      Skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') ok_ = false;
      ++pos_;
      return v;
    }
    if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_]))) {
      ok_ = false;
      return 0;
    }
    int64_t v = 0;
    while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_]))) {
      v = v * 10 + (s_[pos_++] - '0');
    }
    literals.push_back(v);
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::set<int64_t> NumbersIn(std::string_view text) {
  std::set<int64_t> out;
  for (size_t i = 0; i < text.size();) {
    if (!isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    int64_t v = 0;
    while (i < text.size() && isdigit(static_cast<unsigned char>(text[i]))) {
      v = v * 10 + (text[i++] - '0');
    }
    out.insert(v);
  }
  return out;
}

struct Computation {
  std::string expr;
  int64_t result;
};

// Every "EXPR = RESULT" in a step. EXPR is the longest run of digits, operators,
// parentheses, '$' and spaces before the '='.
std::vector<Computation> Computations(std::string_view step) {
  std::vector<Computation> out;
  for (size_t eq = step.find('='); eq != std::string_view::npos; eq = step.find('=', eq + 1)) {
    size_t b = eq;
    while (b > 0 && std::string_view("0123456789+-*/() $").find(step[b - 1]) !=
                        std::string_view::npos) {
      --b;
    }
    std::string expr(step.substr(b, eq - b));
    while (!expr.empty() && (expr.front() == ' ' || expr.front() == '-')) expr.erase(0, 1);
    size_t r = eq + 1;
    while (r < step.size() && (step[r] == ' ' || step[r] == '$')) ++r;
    int64_t v = 0;
    size_t digits = 0;
    while (r < step.size() && isdigit(static_cast<unsigned char>(step[r]))) {
      v = v * 10 + (step[r++] - '0');
      ++digits;
    }
    if (digits == 0) v = -1;
    out.push_back({expr, v});
  }
  return out;
}

// Checks one problem; returns the number of computations.
size_t CheckProblem(const MathProblem& p) {
  SCOPED_TRACE(p.id + ": " + p.question);
  EXPECT_GE(p.steps.size(), kMinMathSteps);
  EXPECT_LE(p.steps.size(), kMaxMathSteps);
  // The answer: a plain non-negative integer without leading zeros.
  EXPECT_FALSE(p.answer.empty());
  EXPECT_EQ(p.answer.find_first_not_of("0123456789"), std::string::npos) << p.answer;
  EXPECT_TRUE(p.answer == "0" || p.answer[0] != '0');
  std::string solution;
  for (const std::string& s : p.steps) solution += s + "\n";
  EXPECT_EQ(p.solution, solution + "#### " + p.answer);
  EXPECT_EQ(p.question.find('\n'), std::string::npos);
  EXPECT_EQ(p.question.back(), '?');

  const std::set<int64_t> given = NumbersIn(p.question);
  // Constants a reader brings along: twice, three people, a quarter, weekdays, an hour,
  // percent, a kilometer.
  const std::set<int64_t> constants = {2, 3, 4, 5, 60, 100, 1000};
  std::set<int64_t> results;
  int64_t last = -1;
  size_t computations = 0;
  for (const std::string& step : p.steps) {
    SCOPED_TRACE(step);
    EXPECT_EQ(step.find('\n'), std::string::npos);
    EXPECT_TRUE(isupper(static_cast<unsigned char>(step[0])));
    EXPECT_EQ(step.back(), '.');
    for (std::string_view phrase : {"answer", "Result", "result", "###", "\\boxed", "<result>"}) {
      EXPECT_EQ(step.find(phrase), std::string::npos) << phrase;
    }
    for (const Computation& c : Computations(step)) {
      SCOPED_TRACE(c.expr);
      ++computations;
      Evaluator ev(c.expr);
      int64_t value = -1;
      const bool ok = ev.Evaluate(&value);
      EXPECT_TRUE(ok) << "malformed, inexact or negative";
      if (!ok) continue;
      EXPECT_GE(c.result, 0);
      EXPECT_EQ(value, c.result);
      EXPECT_GE(ev.literals.size(), 2u);
      for (int64_t lit : ev.literals) {
        EXPECT_TRUE(given.count(lit) || results.count(lit) || constants.count(lit))
            << lit << " comes from nowhere";
      }
      results.insert(c.result);
      last = c.result;
    }
  }
  EXPECT_EQ(std::to_string(last), p.answer) << "the last computation is not the answer";
  return computations;
}

TEST(MathGeneratorTest, EveryTemplateComputesItsAnswers) {
  ASSERT_GE(MathTemplateCount(), 15u);
  for (size_t t = 0; t < MathTemplateCount(); ++t) {
    SCOPED_TRACE("template " + std::to_string(t));
    std::set<std::string> questions;
    for (size_t i = 0; i < 300; ++i) {
      const MathProblem p = GenerateMathProblemFromTemplate(77, i, t);
      const size_t ops = CheckProblem(p);
      EXPECT_GE(ops, 2u);
      EXPECT_LE(ops, 8u);
      questions.insert(p.question);
    }
    EXPECT_GE(questions.size(), 285u) << "template repeats itself";
  }
}

TEST(MathGeneratorTest, MixedStreamPassesTheSameChecks) {
  std::set<std::string> questions;
  for (const MathProblem& p : GenerateMathProblems(3, 1319)) {
    CheckProblem(p);
    questions.insert(p.question);
  }
  // Independent draws may rarely repeat a question; almost all must differ.
  EXPECT_GE(questions.size(), 1315u);
}

TEST(MathGeneratorTest, SameSeedSameProblemsNewSeedNewProblems) {
  const std::vector<MathProblem> a = GenerateMathProblems(11, 50);
  const std::vector<MathProblem> b = GenerateMathProblems(11, 50);
  EXPECT_EQ(HashProblems(a), HashProblems(b));
  const std::vector<MathProblem> c = GenerateMathProblems(12, 50);
  std::set<std::string> seen;
  for (const MathProblem& p : a) seen.insert(p.question);
  for (const MathProblem& p : c) EXPECT_EQ(seen.count(p.question), 0u) << p.question;
  // Problem i does not depend on how many are generated.
  EXPECT_EQ(GenerateMathProblem(11, 37).question, a[37].question);
  EXPECT_EQ(a[37].id, "math-0037");
}

// Pinned output: see DocumentGeneratorTest.OutputIsPinned.
TEST(MathGeneratorTest, OutputIsPinned) {
  const std::vector<MathProblem> problems = GenerateMathProblems(42, 20);
  EXPECT_EQ(problems[0].question.substr(0, 50), "A school takes 43 fourth graders and 122 fifth gra");
  EXPECT_EQ(problems[0].answer, "1184");
  EXPECT_EQ(HashProblems(problems), 551925433732091758ULL);
}

TEST(FitStepsTest, PadsSplitsAndMerges) {
  // Two sentences in one line are split before anything is added.
  std::vector<std::string> s = FitSteps({"He has 3 + 4 = 7 apples. Then he buys 2 more.",
                                         "So he has 7 + 2 = 9 apples."},
                                        "9");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], "He has 3 + 4 = 7 apples.");
  EXPECT_EQ(s[1], "Then he buys 2 more.");
  // A single step gets an opening and a closing restatement.
  s = FitSteps({"She pays 2 * 9 = 18 dollars."}, "18");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1], "She pays 2 * 9 = 18 dollars.");
  EXPECT_EQ(s[2], "Therefore the value asked for is 18.");
  EXPECT_EQ(FitSteps({}, "5").size(), 3u);
  // "J. Smith" and "1. Add" are not sentence breaks.
  s = FitSteps({"Ask J. Smith for 4.", "1. Add 2 and 2."}, "4");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], "Ask J. Smith for 4.");
  // Too many: the shortest neighbours are joined, order kept.
  std::vector<std::string> many;
  for (int i = 0; i < 13; ++i) many.push_back("Step " + std::string(1, 'a' + i) + ".");
  s = FitSteps(many, "1");
  ASSERT_EQ(s.size(), 10u);
  std::string joined;
  for (const std::string& x : s) joined += x + " ";
  std::string expected;
  for (const std::string& x : many) expected += x + " ";
  EXPECT_EQ(joined, expected);
}

}  // namespace
}  // namespace structtest
