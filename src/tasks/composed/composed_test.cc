// The composed suite (issue 52): the math rule library's golden cases
// (testdata/math_golden.jsonl), the suite at every K (seeded, sharded, the oracle at
// 100% and the cheaters at 0% under strict, every rule a check of every verdict), the
// independence of the rules' checks, and the noisy responder's accuracy against
// (1 - p)^K.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <span>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/stats.h"
#include "structtest/generate.h"
#include "tasks/composed/composed.h"
#include "tasks/composed/math_rules.h"
#include "tasks/composed/summarization_rules.h"
#include "tasks/responders.h"
#include "tasks/scorer.h"
#include "text/punkt.h"
#include "tasks/composed/composed_test_util.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

using composed_test::Composed;
using composed_test::FindCheck;
using composed_test::GenerateOrDie;
using composed_test::RunGoldenCases;

constexpr std::string_view kGoldenQuestion =
    "Janet has 3 boxes with 4 apples in each box. She eats 2 apples. How many apples are "
    "left?";

// A sample of `domain` holding `c`'s rules: math cases share one problem; a
// summarization case gives its document.
Sample GoldenSample(std::string_view domain, const nlohmann::json& c) {
  Sample s;
  s.id = "golden";
  s.domain = domain;
  s.subtask = fmt::format("{}_composed_k1", domain);
  s.params = {{"rules", c["rules"]}};
  if (domain == "math") {
    s.context = {{"question", std::string(kGoldenQuestion)}, {"gold_answer", "10"}};
  } else {
    s.context = {{"document", c["document"]}};
  }
  return s;
}

// Composed summarization's point-sentences counts sentences with Punkt.
const CheckEnv& Env() { return composed_test::ComposedEnv(); }

TEST(ComposedMathRulesTest, GoldenCases) {
  RunGoldenCases("math", composed::MathRules(),
                 [](const nlohmann::json& c) { return GoldenSample("math", c); });
}

TEST(ComposedSummarizationRulesTest, GoldenCases) {
  RunGoldenCases("summarization", composed::SummarizationRules(),
                 [](const nlohmann::json& c) { return GoldenSample("summarization", c); });
}

// docs/composed.md's "Adding a rule" shows math_rule_step_capitals.cc whole: the code
// of the guide is the code that is built and tested.
TEST(ComposedMathRulesTest, GuideExampleIsTheFile) {
  const std::string guide = testing::ReadFileOrDie(testing::SourceDir() + "/docs/composed.md");
  const std::string file = testing::ReadFileOrDie(
      testing::SourceDir() + "/src/tasks/composed/math_rule_step_capitals.cc");
  const size_t start = guide.find("```cpp\n");
  ASSERT_NE(start, std::string::npos) << "docs/composed.md has no ```cpp block";
  const size_t end = guide.find("\n```\n", start);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(guide.substr(start + 7, end + 1 - (start + 7)), file);
  EXPECT_NE(composed::FindMathRule("step-capitals"), nullptr);
}

TEST(ComposedMathRulesTest, EachLibraryHasPaperRulesAndEightNewOnes) {
  std::map<std::string, std::pair<int, int>> by_domain;  // paper, new
  for (const ComposedRuleInfo& r : ComposedRules()) {
    auto& [paper, added] = by_domain[std::string(r.domain)];
    (r.from_paper ? paper : added) += 1;
  }
  ASSERT_EQ(by_domain.size(), 4u);
  for (const auto& [domain, counts] : by_domain) {
    std::printf("composed rules %-14s paper %d new %d\n", domain.c_str(), counts.first, counts.second);
    EXPECT_GE(counts.first, 2) << domain;
    EXPECT_GE(counts.second, 8) << domain;
  }
}

TEST(ComposedMathRulesTest, NumbersInWordsRoundTrip) {
  for (long long n : {0LL, 7LL, 13LL, 20LL, 42LL, 100LL, 105LL, 999LL, 1000LL, 1205LL, 30000LL,
                      123456LL, 2000001LL}) {
    EXPECT_EQ(composed::NumberFromWords(composed::NumberInWords(n)), n)
        << composed::NumberInWords(n);
  }
  EXPECT_EQ(composed::NumberInWords(125), "one hundred twenty-five");
  EXPECT_EQ(composed::NumberFromWords("ten apples"), -1);
  EXPECT_EQ(composed::RomanNumeral(9), "IX");
}

TEST(ComposedSuiteTest, OracleFullCheatersNoneAtEveryK) {
  for (int k = 1; k <= kMaxRulesPerSample; ++k) {
    const std::vector<Sample> samples = GenerateOrDie(Composed(k));
    ASSERT_EQ(samples.size(), 120u);  // summarization and math (html and code: their own tests)
    for (const Sample& s : samples) {
      ASSERT_EQ(s.subtask, fmt::format("{}_composed_k{}", s.domain, k));
      ASSERT_EQ(s.params["rules"].size(), static_cast<size_t>(k)) << s.id;
      // The loophole (math: filler steps and the right answer; summarization: the first
      // fact again) keeps every rule: the paper-style checks cannot see it.
      composed_test::ExpectOracleFullCheatersNone(s, static_cast<size_t>(k),
                                                  s.domain == "math" ? "answer" : "points");
    }
  }
}

TEST(ComposedSuiteTest, SeededReproducibleAndSharded) {
  const std::vector<Sample> a = GenerateOrDie(Composed(5, 11, 40));
  const std::vector<Sample> b = GenerateOrDie(Composed(5, 11, 40));
  const std::vector<Sample> other = GenerateOrDie(Composed(5, 12, 40));
  ASSERT_EQ(a.size(), b.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    std::string x, y, z;
    AppendSampleJson(a[i], &x);
    AppendSampleJson(b[i], &y);
    AppendSampleJson(other[i], &z);
    EXPECT_EQ(x, y);
    differ += x != z;
  }
  EXPECT_GT(differ, a.size() / 2);
  std::set<std::string> ids;
  size_t total = 0;
  for (int shard = 1; shard <= 3; ++shard) {
    GenerateOptions o = Composed(5, 11, 40);
    ASSERT_TRUE(SetShard(fmt::format("{}/3", shard), &o).ok());
    for (const Sample& s : GenerateOrDie(o)) ids.insert(s.id), ++total;
  }
  EXPECT_EQ(total, a.size());
  EXPECT_EQ(ids.size(), a.size());
}

TEST(ComposedSuiteTest, BadOptionsAreRefusedNamingThem) {
  GenerateOptions o = Composed(9);
  EXPECT_EQ(GenerateSuite(o).status().message(), "`rules_per_sample`: 9 is not in 1..8");
  o = Composed(0);
  o.difficulty = "brutal";
  EXPECT_EQ(GenerateSuite(o).status().message(),
            "`difficulty`: unknown level 'brutal' (expected easy, medium, hard or extreme)");
  o = Composed(3);
  o.difficulty = "hard";
  EXPECT_EQ(GenerateSuite(o).status().message(),
            "`rules_per_sample` and `difficulty`: give one of them, not both");
  o = Composed(3);
  o.suite = "default";
  EXPECT_EQ(GenerateSuite(o).status().message(),
            "`rules_per_sample`: only the composed suite takes it (the suite is 'default')");
  o = Composed(3);
  o.tasks = {"poetry"};
  EXPECT_EQ(GenerateSuite(o).status().message(),
            "`tasks`: 'poetry' is not a domain of the composed suite (it has: summarization, "
            "math, html, code)");
  o = Composed(0);
  o.difficulty = "extreme";
  const std::vector<Sample> samples = GenerateOrDie(o);
  ASSERT_FALSE(samples.empty());
  EXPECT_EQ(samples[0].subtask, "summarization_composed_k8");
}

// Breaking one rule fails that rule's check and no other; breaking two fails those two.
TEST(ComposedSuiteTest, ChecksAreIndependent) {
  size_t cases = 0;
  for (int k : {2, 5, 8}) {
    for (const Sample& s : GenerateOrDie(Composed(k, 21, 40))) {
      composed_test::ExpectChecksIndependent(s, {RuleSet::kStrict}, &cases);
    }
  }
  EXPECT_GT(cases, 1000u);
}

// builtin/noisy-0.1 over 1000 samples a K: accuracy within its interval of (1 - p)^K.
TEST(ComposedSuiteTest, NoisyResponderFollowsOneMinusPToTheK) {
  constexpr size_t kSamples = 1000;
  std::map<int, std::vector<Sample>> by_k;
  for (int k = 1; k <= kMaxRulesPerSample; ++k) by_k[k] = GenerateOrDie(Composed(k, 31, kSamples));
  for (std::string_view domain : {"summarization", "math"}) {
    composed_test::ExpectNoisyFollowsOneMinusPToTheK(by_k, domain, 0.1, kSamples);
  }
}

TEST(ComposedSuiteTest, NoisyResponderIsSeededAndAnswersComposedSamplesOnly) {
  const std::vector<Sample> samples = GenerateOrDie(Composed(4, 3, 10));
  for (const Sample& s : samples) {
    EXPECT_EQ(BuiltinRespond("noisy-0.5", s).value(), BuiltinRespond("noisy-0.5", s).value());
    EXPECT_EQ(BuiltinRespond("noisy-0", s).value(), BuiltinRespond("oracle", s).value());
  }
  EXPECT_TRUE(IsBuiltinResponder("noisy-0.25"));
  EXPECT_FALSE(IsBuiltinResponder("noisy-1.5"));
  EXPECT_FALSE(IsBuiltinResponder("noisy-"));
  GenerateOptions paper;
  paper.tasks = {"math_easy"};
  paper.limit = 1;
  const std::vector<Sample> plain = GenerateOrDie(paper);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(BuiltinRespond("noisy-0.1", plain[0]).status().message(),
            "sample 'math_easy-0': the noisy responder answers composed samples only "
            "(math/math_easy is not one)");
}

// The content parts (steps, points) of a composed sample's reference answer.
std::vector<std::string> PartsOf(const Sample& s) {
  std::vector<std::string> parts;
  const auto r = ComposedAnswerRewriting(s, [&](size_t, const std::string& p) {
    parts.push_back(p);
    return p;
  });
  EXPECT_TRUE(r.ok()) << r.status().message();
  return parts;
}

// Cheats of composed summarization's content with every format rule kept (the reference's
// markers, title, keywords, envelope...): each point's words in another order, the
// facts of another document, every point the first one again with a word left out.
// Strict's `content` fails them; paper-style checks, which read only the format, pass
// most of them.
TEST(ComposedSuiteTest, StrictFailsSummariesThatKeepTheFormatAndLoseTheContent) {
  struct Family {
    std::string_view name;
    std::string (*rewrite)(const std::vector<std::string>& own,
                           const std::vector<std::string>& other, size_t i);
  };
  const Family families[] = {
      {"words-out-of-order",
       [](const std::vector<std::string>& own, const std::vector<std::string>&, size_t i) {
         std::vector<std::string> words;
         std::istringstream in(own[i]);
         for (std::string w; in >> w;) words.push_back(w);
         // A fixed shuffle: the odd-placed words reversed, then the even-placed ones.
         std::vector<std::string> out;
         for (size_t j = words.size(); j-- > 0;) if (j % 2 == 1) out.push_back(words[j]);
         for (size_t j = 0; j < words.size(); j += 2) out.push_back(words[j]);
         return fmt::format("{}", fmt::join(out, " "));
       }},
      {"another-documents-facts",
       [](const std::vector<std::string>&, const std::vector<std::string>& other, size_t i) {
         return other[i % other.size()];
       }},
      {"the-first-point-again",
       [](const std::vector<std::string>& own, const std::vector<std::string>&, size_t i) {
         std::vector<std::string> words;
         std::istringstream in(own[0]);
         for (std::string w; in >> w;) words.push_back(w);
         if (i > 0 && i < words.size()) words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
         return fmt::format("{}", fmt::join(words, " "));
       }},
  };
  for (int k : {3, 8}) {
    std::vector<Sample> samples;
    for (Sample& s : GenerateOrDie(Composed(k, 41, 120))) {
      if (s.domain == "summarization") samples.push_back(std::move(s));
    }
    ASSERT_GE(samples.size(), 100u);
    for (const Family& family : families) {
      int strict_passes = 0, paper_passes = 0;
      for (size_t n = 0; n < samples.size(); ++n) {
        const Sample& s = samples[n];
        const std::vector<std::string> own = PartsOf(s);
        const std::vector<std::string> other = PartsOf(samples[(n + 1) % samples.size()]);
        const auto cheat = ComposedAnswerRewriting(
            s, [&](size_t i, const std::string&) { return family.rewrite(own, other, i); });
        ASSERT_TRUE(cheat.ok()) << cheat.status().message();
        const auto strict = ScoreResponse(s, *cheat, RuleSet::kStrict, Env());
        const auto paper = ScoreResponse(s, *cheat, RuleSet::kPaper, Env());
        ASSERT_TRUE(strict.ok() && paper.ok());
        strict_passes += strict->pass;
        paper_passes += paper->pass;
        const RuleCheck* content = FindCheck(*strict, "content");
        ASSERT_NE(content, nullptr);
        EXPECT_EQ(content->result, RuleCheck::Result::kFail) << family.name << " " << s.id << "\n" << *cheat;
      }
      std::printf("composed summarization k%d %-26s %zu  paper %5.1f%%  strict %5.1f%%\n", k,
                  std::string(family.name).c_str(), samples.size(),
                  100.0 * paper_passes / samples.size(), 100.0 * strict_passes / samples.size());
      EXPECT_EQ(strict_passes, 0) << family.name << " k" << k;
    }
  }
}

}  // namespace
}  // namespace structtest
