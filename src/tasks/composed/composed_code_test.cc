// The composed suite's code domain (issue 52): the code rule library's golden cases
// (testdata/code_golden.jsonl), code_composed_k1..k8 generated from the suite's
// built-in functions (the oracle at 100% under paper and strict, the cheaters at 0%
// under strict), the independence of every pair of rules' checks, and the noisy
// responder's accuracy against (1 - p)^K.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/stats.h"
#include "structtest/generate.h"
#include "tasks/composed/code_rules.h"
#include "tasks/composed/composed.h"
#include "tasks/composed/composed_code.h"
#include "tasks/composed/composed_test_util.h"
#include "tasks/responders.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"
#include "testing/test_support.h"

namespace structtest {
// Named: the test sources are a unity build, and composed_test.cc has helpers of its own.
namespace composed_code_test {

// The function every golden case rewrites, and the first input its guard calls.
constexpr std::string_view kGoldenSource =
    "def tag_words(words, limit):\n"
    "    out = \"\"\n"
    "    for w in words:\n"
    "        if len(w) > limit:\n"
    "            out = out + w + \"!\"\n"
    "    return out";
constexpr std::string_view kGoldenArgs = "[\"apple\", \"kiwi\"], 4";

Sample CodeGoldenSample(const nlohmann::json& c) {
  Sample s;
  s.id = "golden";
  s.domain = "code";
  s.subtask = "code_composed_k1";
  s.params = {{"rules", c["rules"]}};
  s.context = {{"program_id", "golden"},
               {"source_code", c.value("source", std::string(kGoldenSource))},
               {"fn_name", c.value("fn_name", std::string("tag_words"))},
               {"call_args", std::string(kGoldenArgs)}};
  return s;
}

const RuleCheck* CheckNamed(const Verdict& v, std::string_view name) {
  for (const RuleCheck& c : v.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(ComposedCodeRulesTest, GoldenCases) {
  std::ifstream in(testing::SourceDir() + "/src/tasks/composed/testdata/code_golden.jsonl");
  ASSERT_TRUE(in) << "no testdata/code_golden.jsonl";
  std::set<std::string> passing, failing;
  size_t cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json c = nlohmann::json::parse(line);
    ++cases;
    const std::string name = c["name"];
    const RuleSet rules = c["rule_set"] == "strict" ? RuleSet::kStrict : RuleSet::kPaper;
    const auto v = ScoreResponse(CodeGoldenSample(c), c["response"].get<std::string>(), rules, CheckEnv{});
    ASSERT_TRUE(v.ok()) << name << ": " << v.status().message();
    const RuleCheck* check = CheckNamed(*v, c["check"].get<std::string>());
    ASSERT_NE(check, nullptr) << name << ": no check " << c["check"];
    EXPECT_EQ(RuleResultName(check->result), c["result"].get<std::string>()) << name << ": " << check->detail;
    (c["result"] == "pass" ? passing : failing).insert(c["check"].get<std::string>());
  }
  EXPECT_GE(cases, 30u);
  for (const composed::CodeRule& r : composed::CodeRules()) {
    EXPECT_TRUE(passing.count(std::string(r.id))) << r.id << ": no passing golden case";
    EXPECT_TRUE(failing.count(std::string(r.id))) << r.id << ": no failing golden case";
  }
  for (std::string_view domain_check : {"program", "statements"}) {
    EXPECT_TRUE(passing.count(std::string(domain_check))) << domain_check;
    EXPECT_TRUE(failing.count(std::string(domain_check))) << domain_check;
  }
}

TEST(ComposedCodeRulesTest, LibraryHasPaperRulesAndEightNewOnes) {
  int paper = 0, added = 0;
  for (const ComposedRuleInfo& r : ComposedRules()) {
    if (r.domain == "code") (r.from_paper ? paper : added) += 1;
  }
  std::printf("composed rules code           paper %d new %d\n", paper, added);
  EXPECT_GE(paper, 2);
  EXPECT_GE(added, 8);
}

TEST(ComposedCodeRulesTest, LogicalLinesFollowPython) {
  const std::vector<composed::CodeLine> lines = composed::CodeLogicalLines(
      "# a comment\n"
      "def f(a: list,\n"
      "      b=(1, 2)):\n"
      "    \"\"\"Two\n"
      "    lines.\"\"\"\n"
      "\n"
      "    x = a + \\\n"
      "        b  # why\n"
      "    return rb'x' != 1.5e-3\n");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].line, 1);
  EXPECT_EQ(lines[0].tokens.size(), 16u);
  EXPECT_EQ(lines[1].line, 3);
  EXPECT_EQ(lines[1].indent, "    ");
  ASSERT_EQ(lines[1].tokens.size(), 1u);
  EXPECT_EQ(lines[1].tokens[0].kind, composed::CodeToken::Kind::kString);
  EXPECT_EQ(lines[2].line, 6);
  EXPECT_EQ(lines[2].tokens.size(), 5u);
  ASSERT_EQ(lines[3].tokens.size(), 4u);
  EXPECT_EQ(lines[3].tokens[1].text, "rb'x'");
  EXPECT_EQ(lines[3].tokens[2].text, "!=");
  EXPECT_EQ(lines[3].tokens[3].text, "1.5e-3");
}

TEST(ComposedCodeRulesTest, OnlyBuiltInShapedFunctionsAreRewritten) {
  Program p;
  p.id = "mbpp-11";
  p.fn_name = "f";
  p.source = "def f(a):\n    # keep\n    return a";
  EXPECT_EQ(composed::CodeDraftOf(p).status().message(),
            "program 'mbpp-11': the composed code suite rewrites one-function programs like the "
            "built-in ones, and this one has line 2 that is not one plain statement indented by "
            "fours (leave out `mbpp`)");
  p.source = "def f(a=1):\n    return a";
  EXPECT_EQ(composed::CodeDraftOf(p).status().message(),
            "program 'mbpp-11': the composed code suite rewrites one-function programs like the "
            "built-in ones, and this one has a parameter that is not a plain name (leave out `mbpp`)");
}

// The suite's functions are prepared once (they run in the python sandbox), then every K
// draws from them, as `generate --suite composed --tasks code --rules-per-sample K` does.
class ComposedCodeSuite {
 public:
  ComposedCodeSuite(uint64_t seed, size_t samples) : samples_(samples) {
    GenerateOptions o;
    o.suite = "composed";
    o.tasks = {"code"};
    o.seed = seed;
    o.rules_per_sample = 1;
    o.limit = samples;
    auto suite = Suite::Plan(o, nullptr);
    EXPECT_TRUE(suite.ok()) << suite.status().message();
    if (suite.ok()) suite_ = std::move(suite).value();
  }
  std::vector<Sample> AtK(int k) const {
    std::vector<Sample> out;
    if (suite_ == nullptr) return out;
    const PlannedSubtask planned{{&ComposedCodeFamily(), ComposedSubtask(ComposedCodeFamily(), k)}, samples_};
    for (size_t i = 0; i < samples_; ++i) {
      auto s = suite_->Generate(planned, i);
      EXPECT_TRUE(s.ok()) << s.status().message();
      if (s.ok()) out.push_back(std::move(s).value());
    }
    return out;
  }

 private:
  size_t samples_;
  std::unique_ptr<Suite> suite_;
};

TEST(ComposedCodeSuiteTest, TheSuiteHasCodeAtEveryKLikeGenerateSuite) {
  GenerateOptions o;
  o.suite = "composed";
  o.seed = 5;
  o.rules_per_sample = 6;
  o.limit = 4;
  auto all = GenerateSuite(o);
  ASSERT_TRUE(all.ok()) << all.status().message();
  std::vector<Sample> code;
  for (const Sample& s : *all) {
    if (s.domain == "code") code.push_back(s);
  }
  ASSERT_EQ(code.size(), 4u);
  const std::vector<Sample> mine = ComposedCodeSuite(5, 4).AtK(6);
  ASSERT_EQ(mine.size(), 4u);
  for (size_t i = 0; i < code.size(); ++i) {
    EXPECT_EQ(code[i].subtask, "code_composed_k6");
    std::string a, b;
    AppendSampleJson(code[i], &a);
    AppendSampleJson(mine[i], &b);
    EXPECT_EQ(a, b);
  }
}

TEST(ComposedCodeSuiteTest, OracleFullCheatersNoneAtEveryK) {
  const ComposedCodeSuite suite(5, 60);
  std::map<std::string, int> drawn;
  for (int k = 1; k <= kMaxRulesPerSample; ++k) {
    for (const Sample& s : suite.AtK(k)) {
      ASSERT_EQ(s.subtask, fmt::format("code_composed_k{}", k));
      ASSERT_EQ(s.params["rules"].size(), static_cast<size_t>(k)) << s.id;
      for (const auto& r : s.params["rules"]) ++drawn[r["id"].get<std::string>()];
      // The loophole (the operators swapped, every name and value kept) is what the
      // paper's `program` cannot see: the rules hold, the function is another.
      composed_test::ExpectOracleFullCheatersNone(s, static_cast<size_t>(k), "program");
    }
  }
  // Every rule of the library is drawn.
  for (const composed::CodeRule& r : composed::CodeRules()) {
    EXPECT_GT(drawn[std::string(r.id)], 0) << r.id << " is never drawn";
  }
}

// Breaking one rule fails that rule's check and no other; breaking two fails those two.
TEST(ComposedCodeSuiteTest, ChecksAreIndependent) {
  const ComposedCodeSuite suite(21, 40);
  size_t pairs = 0;
  for (int k : {2, 5, 8}) {
    for (const Sample& s : suite.AtK(k)) {
      composed_test::ExpectChecksIndependent(s, {RuleSet::kPaper, RuleSet::kStrict}, &pairs);
    }
  }
  EXPECT_GT(pairs, 1000u);
}

// As for the other domains (composed_test.cc): at K rules a sample of builtin/noisy-P
// passes with probability (1 - p)^K, which the interval of the measured pass rate must
// hold at every K, each asserted at 1 - 0.05/8 (Bonferroni, z = 2.73), the 95% one
// printed.
TEST(ComposedCodeSuiteTest, NoisyResponderFollowsOneMinusPToTheK) {
  constexpr size_t kSamples = 1000;
  // Seed 32: at seed 31, since the composed code subtasks are Hard (199 functions, not
  // 240), K = 4 measured 603/1000, 3.4 standard errors under 0.656; breaking every one of
  // the 15 subsets of its four rules in each of those 1000 samples fails exactly the
  // broken rules' checks, so the draw, not the rules, was off. Seeds 32 and 33 hold at
  // every K.
  const ComposedCodeSuite suite(32, kSamples);
  std::map<int, std::vector<Sample>> by_k;
  for (int k = 1; k <= kMaxRulesPerSample; ++k) by_k[k] = suite.AtK(k);
  composed_test::ExpectNoisyFollowsOneMinusPToTheK(by_k, "code", 0.1, kSamples);
}

}  // namespace composed_code_test
}  // namespace structtest
