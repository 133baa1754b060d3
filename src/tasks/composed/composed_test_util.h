// Helpers the composed suite's tests share (composed_test.cc, composed_html_test.cc):
// golden cases read from testdata/<domain>_golden.jsonl and run against a rule library,
// a composed suite generated at K, and the noisy responder's accuracy by K against
// (1 - p)^K.
#ifndef STRUCTTEST_TASKS_COMPOSED_COMPOSED_TEST_UTIL_H_
#define STRUCTTEST_TASKS_COMPOSED_COMPOSED_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/stats.h"
#include "structtest/generate.h"
#include "tasks/composed/composed.h"
#include "tasks/responders.h"
#include "tasks/scorer.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest::composed_test {

// The scoring environment of the composed tests: the built-in Punkt model (composed
// summarization's point-sentences counts sentences).
inline const CheckEnv& ComposedEnv() {
  static const SentenceSplitter* splitter = testing::BuiltinSentenceSplitter().release();
  static const CheckEnv env{splitter, nullptr};
  return env;
}

inline const RuleCheck* FindCheck(const Verdict& v, std::string_view name) {
  for (const RuleCheck& c : v.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

inline std::vector<nlohmann::json> GoldenCases(std::string_view domain) {
  std::ifstream in(testing::SourceDir() +
                   fmt::format("/src/tasks/composed/testdata/{}_golden.jsonl", domain));
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

// Runs every golden case of `domain` (a sample made by `sample_of` from the case, scored
// under the case's rule set; its check has the expected result), and asserts that every
// rule of `library` has a passing and a failing case.
template <typename Rule>
void RunGoldenCases(std::string_view domain, std::span<const Rule> library,
                    const std::function<Sample(const nlohmann::json&)>& sample_of) {
  const std::vector<nlohmann::json> cases = GoldenCases(domain);
  ASSERT_GE(cases.size(), 30u);
  std::set<std::string> passing, failing;
  for (const nlohmann::json& c : cases) {
    const std::string name = c["name"];
    const RuleSet rules = c["rule_set"] == "strict" ? RuleSet::kStrict : RuleSet::kPaper;
    const auto v = ScoreResponse(sample_of(c), c["response"].get<std::string>(), rules, ComposedEnv());
    ASSERT_TRUE(v.ok()) << name << ": " << v.status().message();
    const RuleCheck* check = FindCheck(*v, c["check"].get<std::string>());
    ASSERT_NE(check, nullptr) << name << ": no check " << c["check"];
    EXPECT_EQ(RuleResultName(check->result), c["result"].get<std::string>()) << name << ": " << check->detail;
    (c["result"] == "pass" ? passing : failing).insert(c["check"].get<std::string>());
  }
  for (const Rule& r : library) {
    EXPECT_TRUE(passing.count(std::string(r.id))) << domain << " " << r.id << ": no passing golden case";
    EXPECT_TRUE(failing.count(std::string(r.id))) << domain << " " << r.id << ": no failing golden case";
  }
}

// The summarization and math domains (html's and code's tests ask for their own; code's
// functions are prepared in the python sandbox).
inline GenerateOptions Composed(int k, uint64_t seed = 5, size_t limit = 60) {
  GenerateOptions o;
  o.suite = "composed";
  o.tasks = {"summarization", "math"};
  o.seed = seed;
  o.rules_per_sample = k;
  o.limit = limit;
  return o;
}

inline std::vector<Sample> GenerateOrDie(const GenerateOptions& o) {
  auto samples = GenerateSuite(o);
  EXPECT_TRUE(samples.ok()) << samples.status().message();
  return samples.ok() ? *samples : std::vector<Sample>{};
}

// Breaking one rule of `s` fails that rule's check and no other; breaking two fails
// those two, under each of `rule_sets`. Adds the cases tried to *cases and, for each rule
// broken alone, one to (*broken_alone)[id] when given.
inline void ExpectChecksIndependent(const Sample& s, std::initializer_list<RuleSet> rule_sets,
                                    size_t* cases, std::map<std::string, int>* broken_alone = nullptr) {
  std::vector<std::string> ids;
  for (const auto& r : s.params["rules"]) ids.push_back(r["id"]);
  for (size_t a = 0; a < ids.size(); ++a) {
    for (size_t b = a; b < ids.size(); ++b) {
      const std::vector<std::string> broken =
          a == b ? std::vector<std::string>{ids[a]} : std::vector<std::string>{ids[a], ids[b]};
      const auto answer = ComposedAnswerBreaking(s, broken);
      ASSERT_TRUE(answer.ok()) << answer.status().message();
      for (RuleSet rules : rule_sets) {
        const auto v = ScoreResponse(s, *answer, rules, ComposedEnv());
        ASSERT_TRUE(v.ok()) << v.status().message();
        for (const RuleCheck& c : v->checks) {
          const bool should_fail = std::find(broken.begin(), broken.end(), c.name) != broken.end();
          EXPECT_EQ(c.result == RuleCheck::Result::kFail, should_fail)
              << s.id << " " << RuleSetName(rules) << ": broke "
              << fmt::format("{}", fmt::join(broken, "+")) << ", " << c.name << " "
              << RuleResultName(c.result) << ": " << c.detail << "\n" << *answer;
        }
      }
      if (a == b && broken_alone != nullptr) ++(*broken_alone)[ids[a]];
      ++*cases;
    }
  }
}

// The oracle passes `s` (K rules) under both rule sets, every rule a check of the
// verdict in the sample's order and then `domain_check`; null, echo, skeleton and
// loophole fail strict; the loophole, which keeps every format rule, passes paper.
inline void ExpectOracleFullCheatersNone(const Sample& s, size_t k, std::string_view domain_check) {
  const auto oracle = BuiltinRespond("oracle", s);
  ASSERT_TRUE(oracle.ok()) << oracle.status().message();
  for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
    const auto v = ScoreResponse(s, *oracle, rules, ComposedEnv());
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_TRUE(v->pass) << s.id << " " << RuleSetName(rules) << ": " << v->reason << "\n" << *oracle;
    ASSERT_EQ(v->checks.size(), k + (rules == RuleSet::kStrict ? 2 : 1));
    for (size_t i = 0; i < k; ++i) EXPECT_EQ(v->checks[i].name, s.params["rules"][i]["id"].get<std::string>());
    EXPECT_EQ(v->checks[k].name, domain_check);
  }
  for (std::string_view cheat : {"null", "echo", "skeleton", "loophole"}) {
    const auto answer = BuiltinRespond(cheat, s);
    ASSERT_TRUE(answer.ok()) << cheat << ": " << answer.status().message();
    const auto v = ScoreResponse(s, *answer, RuleSet::kStrict, ComposedEnv());
    ASSERT_TRUE(v.ok());
    EXPECT_FALSE(v->pass) << s.id << " " << cheat << " passed strict:\n" << *answer;
  }
  const auto loophole = BuiltinRespond("loophole", s);
  ASSERT_TRUE(loophole.ok());
  const auto paper = ScoreResponse(s, *loophole, RuleSet::kPaper, ComposedEnv());
  ASSERT_TRUE(paper.ok());
  EXPECT_TRUE(paper->pass) << s.id << ": " << paper->reason << "\n" << *loophole;
}

// builtin/noisy-P breaks each rule with probability p: at K rules a sample passes with
// probability (1 - p)^K, which the report's interval of the measured pass rate
// (continuity-corrected Wilson) must hold at every K. Eight intervals at 95% would miss
// one of eight true values a third of the time; each is asserted at 1 - 0.05/8
// (Bonferroni, z = 2.73), and the 95% one is printed. `by_k`: the samples at each K,
// `samples` of `domain` each.
inline void ExpectNoisyFollowsOneMinusPToTheK(const std::map<int, std::vector<Sample>>& by_k,
                                              std::string_view domain, double p, size_t samples) {
  constexpr double kZBonferroni = 2.734;  // two-sided 0.05 / 8
  std::printf("noisy-%.1f %-13s K  passed/n   accuracy  95%% CI            (1-p)^K\n", p,
              std::string(domain).c_str());
  const std::string responder = fmt::format("noisy-{}", p);
  for (const auto& [k, all] : by_k) {
    size_t passed = 0, n = 0;
    for (const Sample& s : all) {
      if (s.domain != domain) continue;
      const auto answer = BuiltinRespond(responder, s);
      ASSERT_TRUE(answer.ok()) << answer.status().message();
      const auto v = ScoreResponse(s, *answer, RuleSet::kStrict, ComposedEnv());
      ASSERT_TRUE(v.ok());
      passed += v->pass;
      ++n;
    }
    ASSERT_EQ(n, samples);
    const double expected = std::pow(1 - p, k);
    const double dn = static_cast<double>(n);
    const Interval ci = ContinuityCorrectedWilson(static_cast<double>(passed), dn);
    const Interval wide = ContinuityCorrectedWilson(static_cast<double>(passed), dn, kZBonferroni);
    std::printf("                        %d  %4zu/%zu  %.3f     [%.3f, %.3f]    %.3f\n", k, passed, n,
                static_cast<double>(passed) / dn, ci.low, ci.high, expected);
    EXPECT_LE(wide.low, expected) << domain << " K=" << k;
    EXPECT_GE(wide.high, expected) << domain << " K=" << k;
  }
}

}  // namespace structtest::composed_test

#endif  // STRUCTTEST_TASKS_COMPOSED_COMPOSED_TEST_UTIL_H_
