// The composed suite's HTML domain (issue 52): the HTML rule library's golden cases
// (testdata/html_golden.jsonl), html_composed_k1..k8 with the oracle at 100% under paper
// and strict and the cheaters at 0% under strict, the independence of every pair of its
// rules' checks, and the noisy responder's accuracy against (1 - p)^K.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tasks/composed/composed.h"
#include "tasks/composed/composed_test_util.h"
#include "tasks/composed/html_rules.h"
#include "tasks/responders.h"
#include "tasks/scorer.h"

namespace structtest {
namespace {

using composed_test::Composed;
using composed_test::GenerateOrDie;

// The facts every golden case's sample lists, unless the case gives its own.
const std::vector<std::string> kGoldenFacts = {
    "The bridge over the river was finished in 1907 after six years of work.",
    "Its central span is longer than any other in the region.",
    "The town council repaired the eastern tower in 1952.",
};

Sample HtmlGoldenSample(const nlohmann::json& c) {
  Sample s;
  s.id = "golden";
  s.domain = "html";
  s.subtask = "html_composed_k1";
  s.params = {{"rules", c["rules"]}};
  s.context = {{"facts", c.contains("facts") ? c["facts"] : nlohmann::json(kGoldenFacts)}};
  return s;
}

GenerateOptions ComposedHtml(int k, uint64_t seed = 5, size_t limit = 60) {
  GenerateOptions o = Composed(k, seed, limit);
  o.tasks = {"html"};
  return o;
}

TEST(ComposedHtmlRulesTest, GoldenCases) {
  composed_test::RunGoldenCases("html", composed::HtmlRules(), &HtmlGoldenSample);
}

TEST(ComposedHtmlRulesTest, LibraryHasPaperRulesAndEightNewOnes) {
  int paper = 0, added = 0;
  for (const ComposedRuleInfo& r : ComposedRules()) {
    if (r.domain == "html") (r.from_paper ? paper : added) += 1;
  }
  std::printf("composed rules html paper %d new %d\n", paper, added);
  EXPECT_GE(paper, 2);
  EXPECT_GE(added, 8);
}

TEST(ComposedHtmlSuiteTest, OracleFullCheatersNoneAtEveryK) {
  for (int k = 1; k <= kMaxRulesPerSample; ++k) {
    const std::vector<Sample> samples = GenerateOrDie(ComposedHtml(k));
    ASSERT_EQ(samples.size(), 60u);
    for (const Sample& s : samples) {
      ASSERT_EQ(s.subtask, fmt::format("html_composed_k{}", k));
      ASSERT_EQ(s.params["rules"].size(), static_cast<size_t>(k)) << s.id;
      // The loophole (every paragraph the first fact) keeps every format rule: only
      // strict's content check sees it.
      composed_test::ExpectOracleFullCheatersNone(s, static_cast<size_t>(k), "well-formed");
    }
  }
}

// Breaking one rule fails that rule's check and no other; breaking two fails those two.
TEST(ComposedHtmlSuiteTest, ChecksAreIndependent) {
  size_t pairs = 0;
  std::map<std::string, int> broken_alone;
  for (int k : {2, 5, 8}) {
    for (const Sample& s : GenerateOrDie(ComposedHtml(k, 21, 60))) {
      composed_test::ExpectChecksIndependent(s, {RuleSet::kPaper, RuleSet::kStrict}, &pairs, &broken_alone);
    }
  }
  EXPECT_GT(pairs, 1000u);
  for (const composed::HtmlRule& r : composed::HtmlRules()) {
    EXPECT_GT(broken_alone[std::string(r.id)], 0) << r.id << " was never broken";
  }
}

TEST(ComposedHtmlSuiteTest, NoisyResponderFollowsOneMinusPToTheK) {
  constexpr size_t kSamples = 1000;
  std::map<int, std::vector<Sample>> by_k;
  for (int k = 1; k <= kMaxRulesPerSample; ++k) {
    GenerateOptions o = ComposedHtml(k, 31, kSamples);
    o.size = 4;  // 1200 samples a subtask (the paper's HTML subtasks have 300), 1000 kept
    by_k[k] = GenerateOrDie(o);
  }
  composed_test::ExpectNoisyFollowsOneMinusPToTheK(by_k, "html", 0.1, kSamples);
}

// What the domain's own checks hold an answer to, whatever the rules.
TEST(ComposedHtmlRulesTest, DomainChecksNameTheProblem) {
  Sample s = HtmlGoldenSample({{"rules", nlohmann::json::array()}});
  const std::string good =
      "<html>\n<head><title>Bridge</title></head>\n<body>\n<div>\n<h2>The bridge</h2>\n"
      "<p>The bridge over the river was finished in 1907 after six years of work.</p>\n</div>\n"
      "</body>\n</html>";
  auto reason = [&](std::string_view response, RuleSet rules) {
    const auto v = ScoreResponse(s, response, rules, CheckEnv{});
    EXPECT_TRUE(v.ok());
    return v.ok() ? v->reason : std::string();
  };
  EXPECT_EQ(reason(good, RuleSet::kStrict), "all 2 checks hold");
  EXPECT_EQ(reason("```html\n" + good + "\n```", RuleSet::kStrict), "all 2 checks hold");
  EXPECT_EQ(reason("<think><html></think>" + good, RuleSet::kStrict), "all 2 checks hold");
  EXPECT_EQ(reason("no page here", RuleSet::kPaper), "well-formed: no <html> element");
  EXPECT_EQ(reason("<html><body><div><p>x</div></body></html>", RuleSet::kPaper),
            "well-formed: </div> while <p> is still open");
  EXPECT_EQ(reason(good + "\n<p>more</p>", RuleSet::kStrict), "well-formed: <p> after </html>");
  EXPECT_EQ(reason(good + "\n<p>more</p>", RuleSet::kPaper), "all 1 checks hold");
  std::string hidden = good;
  hidden.replace(hidden.find("<div>"), 5, "<div Filler text>");
  EXPECT_EQ(reason(hidden, RuleSet::kStrict),
            "well-formed: 'Filler' inside the start tag <div> is not an attribute");
  std::string comment = good;
  comment.replace(comment.find("<div>"), 5, "<!-- note -- >\n<div>");
  EXPECT_EQ(reason(comment, RuleSet::kStrict).substr(0, 42), "well-formed: the comment '<!-- note -- >' ");
  std::string stray = good;
  stray.replace(stray.find("<h2>"), 0, "Loose words ");
  EXPECT_EQ(reason(stray, RuleSet::kStrict), "content: the text 'Loose words' lies directly inside <div>");
  std::string filler = good;
  filler.replace(filler.find("The bridge over"), 71, "Lorem ipsum dolor sit amet consectetur elit");
  EXPECT_EQ(reason(filler, RuleSet::kStrict),
            "content: <p> 1 states none of the listed facts: 0 of its 7 words are theirs");
}

}  // namespace
}  // namespace structtest
