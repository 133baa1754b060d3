// The tally's clusters and the intervals the renderers show.
#include "report/tally.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/hash.h"
#include "core/rng.h"
#include "tasks/registry.h"

namespace structtest {
namespace {

Sample Make(std::string domain, std::string subtask, std::string id,
            nlohmann::json context = nlohmann::json::object()) {
  Sample s;
  s.id = std::move(id);
  s.domain = std::move(domain);
  s.subtask = std::move(subtask);
  s.context = std::move(context);
  return s;
}

Verdict PassVerdict(bool pass) {
  Verdict v;
  v.pass = pass;
  return v;
}

const ClusterKind* FindKind(const Stratum& s, int64_t units, int64_t passed) {
  for (const ClusterKind& k : s.kinds) {
    if (k.units == units && k.pass_a == passed) return &k;
  }
  return nullptr;
}

TEST(TallyTest, SourceItemNamesTheQuestionDocumentOrTask) {
  EXPECT_EQ(SourceItem(Make("math", "math_easy", "3", {{"gsm8k_index", 3}})), "gsm8k_index=3");
  EXPECT_EQ(SourceItem(Make("math", "math_hard", "x", {{"problem_id", "math-0007"}})),
            "problem_id=math-0007");
  EXPECT_EQ(SourceItem(Make("summarization", "length", "x", {{"document_id", "doc-1"}})),
            "document_id=doc-1");
  EXPECT_EQ(SourceItem(Make("code", "replace_variables", "x", {{"task_id", 11}})), "task_id=11");
  EXPECT_EQ(SourceItem(Make("html", "html_easy", "x", {{"start_tag", "<html>"}})), "");
}

TEST(TallyTest, SourceItemHashIsTheHashOfSourceItem) {
  const nlohmann::json contexts[] = {
      {{"gsm8k_index", 3}}, {{"gsm8k_index", -12}}, {{"gsm8k_index", 18446744073709551615ULL}},
      {{"gsm8k_index", 2.5}}, {{"gsm8k_index", true}}, {{"gsm8k_index", {{"a", 1}}}},
      {{"gsm8k_index", nullptr}, {"problem_id", "p-1"}}, {{"problem_id", ""}},
      {{"document_id", "d\xc3\xa9"}}, {{"task_id", 0}}, {{"start_tag", "<html>"}},
      nlohmann::json::object(), nlohmann::json::array()};
  for (const nlohmann::json& c : contexts) {
    Sample s = Make("math", "math_easy", "1", nlohmann::json::object());
    s.context = c;
    const std::string item = SourceItem(s);
    EXPECT_EQ(SourceItemHash(s), item.empty() ? std::nullopt : std::optional(Fnv1a(item)))
        << c.dump();
  }
}

// The open-addressing table against std::map, through its growth, key 0 included.
TEST(ItemCountsTest, CountsLikeAMap) {
  Rng rng(5);
  ItemCounts counts;
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> want;
  for (int i = 0; i < 20000; ++i) {
    // Few distinct keys at first (repeats), then many (growth); small ones collide.
    const uint64_t key = i % 3 == 0 ? static_cast<uint64_t>(rng.UniformInt(0, 40)) : rng.Next();
    const bool passed = rng.Bernoulli(0.3);
    ItemCounts::Entry& e = counts[key];
    EXPECT_EQ(e.key, key);
    ++e.scored;
    e.passed += passed;
    ++want[key].first;
    want[key].second += passed;
  }
  EXPECT_EQ(counts.size(), want.size());
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> got;
  counts.ForEach([&](const ItemCounts::Entry& e) {
    EXPECT_TRUE(got.emplace(e.key, std::pair(e.scored, e.passed)).second) << "twice: " << e.key;
  });
  EXPECT_EQ(got, want);
}

TEST(TallyTest, MathSamplesOfOneQuestionAreOneCluster) {
  Tally tally;
  // Question 1 asked three times (all pass), question 2 twice (one passes), and two
  // html samples that stand alone.
  for (int i = 0; i < 3; ++i) {
    tally.Add(Make("math", "math_easy", "a" + std::to_string(i), {{"gsm8k_index", 1}}),
              PassVerdict(true));
  }
  tally.Add(Make("math", "math_easy", "b0", {{"gsm8k_index", 2}}), PassVerdict(true));
  tally.Add(Make("math", "math_easy", "b1", {{"gsm8k_index", 2}}), PassVerdict(false));
  tally.Add(Make("html", "html_easy", "h0"), PassVerdict(true));
  tally.Add(Make("html", "html_easy", "h1"), PassVerdict(false));
  std::vector<Stratum> strata = tally.Strata();
  ASSERT_EQ(strata.size(), 2u);
  const Stratum& html = strata[0].domain == "html" ? strata[0] : strata[1];
  const Stratum& math = strata[0].domain == "math" ? strata[0] : strata[1];
  EXPECT_EQ(math.Units(), 5);
  EXPECT_EQ(math.PassedA(), 4);
  ASSERT_NE(FindKind(math, 3, 3), nullptr);
  ASSERT_NE(FindKind(math, 2, 1), nullptr);
  EXPECT_EQ(html.Units(), 2);
  ASSERT_NE(FindKind(html, 1, 1), nullptr);
  EXPECT_EQ(FindKind(html, 1, 1)->count, 1);
  EXPECT_EQ(math.split, Split::kEasy);
}

TEST(TallyTest, SimulateExecuteIsResampledByTask) {
  Tally tally;
  // Task 11: both inputs pass; task 12: one fails; task 13: one could not be scored.
  const auto sample = [](int task, int k) {
    return Make("code", "simulate_execute", std::to_string(task) + "_" + std::to_string(k),
                {{"task_id", task}});
  };
  tally.Add(sample(11, 0), PassVerdict(true));
  tally.Add(sample(11, 1), PassVerdict(true));
  tally.Add(sample(12, 0), PassVerdict(true));
  tally.Add(sample(12, 1), PassVerdict(false));
  tally.Add(sample(13, 0), PassVerdict(true));
  tally.AddError(sample(13, 1));
  const std::vector<Stratum> strata = tally.Strata();
  ASSERT_EQ(strata.size(), 1u);
  EXPECT_EQ(strata[0].Units(), 2);  // tasks counted: 11 and 12
  EXPECT_EQ(strata[0].PassedA(), 1);
  EXPECT_EQ(strata[0].AccuracyA(), tally.Subtasks()[0]->Accuracy());
  const nlohmann::json j = RenderJsonReport(tally, RuleSet::kPaper);
  const nlohmann::json& ci = j["subtasks"][0]["ci"];
  EXPECT_EQ(ci["n"], 2);
  EXPECT_EQ(ci["k"], 1);
  EXPECT_EQ(ci["estimate"], 50.0);
  EXPECT_EQ(ci["method"], "wilson, continuity-corrected");
}

// A task with an input that could not be scored is left out only while its other inputs
// pass: one that fails fails the task, whichever of the two came first.
TEST(TallyTest, ATaskWithAFailedInputFailsThoughAnotherWasNotScored) {
  const auto sample = [](int task, int k) {
    return Make("code", "simulate_execute", std::to_string(task) + "_" + std::to_string(k),
                {{"task_id", task}});
  };
  Tally tally;
  tally.Add(sample(11, 0), PassVerdict(true));
  tally.Add(sample(11, 1), PassVerdict(true));
  tally.AddError(sample(12, 0));  // not scored, then failed
  tally.Add(sample(12, 1), PassVerdict(false));
  tally.Add(sample(13, 0), PassVerdict(false));  // failed, then not scored
  tally.AddError(sample(13, 1));
  tally.AddError(sample(14, 0));  // not scored, then passed: left out
  tally.Add(sample(14, 1), PassVerdict(true));
  const std::vector<Stratum> strata = tally.Strata();
  ASSERT_EQ(strata.size(), 1u);
  EXPECT_EQ(strata[0].Units(), 3);  // tasks 11, 12 and 13
  EXPECT_EQ(strata[0].PassedA(), 1);
  EXPECT_DOUBLE_EQ(tally.Subtasks()[0]->Accuracy(), 100.0 / 3);
}

// A tally over all four domains, both splits.
Tally Everything() {
  Tally tally;
  int id = 0;
  const auto add = [&](const char* domain, const char* subtask, int n, int pass) {
    for (int i = 0; i < n; ++i) {
      tally.Add(Make(domain, subtask, std::to_string(id++)), PassVerdict(i < pass));
    }
  };
  add("summarization", "bullet_points", 40, 30);
  add("summarization", "indented_bullet_points", 40, 10);
  add("code", "add_print_statements", 30, 20);
  add("code", "add_print_statements_v2", 30, 5);
  add("html", "html_easy", 30, 27);
  add("html", "html_hard", 30, 12);
  add("math", "math_easy", 50, 40);
  add("math", "math_hard", 50, 15);
  return tally;
}

TEST(TallyTest, JsonKeepsItsFieldsAndAddsIntervals) {
  const Tally tally = Everything();
  const nlohmann::json j = RenderJsonReport(tally, RuleSet::kPaper);
  const Aggregates agg = tally.Compute();
  // Today's fields, unchanged.
  EXPECT_EQ(j["all"], *agg.all);
  EXPECT_EQ(j["overall_easy"], *agg.overall_easy);
  EXPECT_EQ(j["domains"]["code"]["easy"], *agg.easy.at("code"));
  EXPECT_EQ(j["subtasks"][0]["accuracy"], 75.0);
  // And the intervals beside them.
  for (const nlohmann::json* ci : {&j["all_ci"], &j["overall_easy_ci"], &j["overall_hard_ci"],
                                   &j["domains"]["code"]["easy_ci"], &j["subtasks"][0]["ci"]}) {
    ASSERT_TRUE(ci->is_object()) << j.dump(1);
    EXPECT_LE((*ci)["low"].get<double>(), (*ci)["estimate"].get<double>());
    EXPECT_GE((*ci)["high"].get<double>(), (*ci)["estimate"].get<double>());
    EXPECT_LT((*ci)["low"].get<double>(), (*ci)["high"].get<double>());
  }
  EXPECT_EQ(j["all_ci"]["estimate"], *agg.all);
  EXPECT_EQ(j["all_ci"]["n"], 300);
  EXPECT_EQ(j["all_ci"]["k"], 159);
  EXPECT_EQ(j["domains"]["code"]["easy_ci"]["n"], 30);
  EXPECT_EQ(j["domains"]["code"]["easy_ci"]["method"],
            "wilson, continuity-corrected, on the effective sample size");
  EXPECT_TRUE(j["intervals"]["aggregates"].is_string());
}

// The headline figures of a tally with unequal subtask sizes and an unequal number of
// subtasks per split, computed by hand: the paper's means of means, not a pooled rate
// (159 + 1 of 303 would be 52.81).
TEST(TallyTest, HeadlineFiguresAreMeansOfSubtaskMeans) {
  Tally tally;
  int id = 0;
  const auto add = [&](const char* domain, const char* subtask, int n, int pass) {
    for (int i = 0; i < n; ++i) {
      tally.Add(Make(domain, subtask, std::to_string(id++)), PassVerdict(i < pass));
    }
  };
  add("summarization", "bullet_points", 40, 30);           // 75
  add("summarization", "length", 3, 1);                    // 33.33
  add("summarization", "indented_bullet_points", 40, 10);  // 25
  add("code", "add_print_statements", 30, 20);             // 66.67
  add("code", "add_print_statements_v2", 30, 5);           // 16.67
  add("html", "html_easy", 30, 27);                        // 90
  add("html", "html_hard", 30, 12);                        // 40
  add("math", "math_easy", 50, 40);                        // 80
  add("math", "math_hard", 50, 15);                        // 30
  const nlohmann::json j = RenderJsonReport(tally, RuleSet::kPaper);
  EXPECT_NEAR(j["domains"]["summarization"]["easy"].get<double>(), 325.0 / 6, 1e-9);
  EXPECT_NEAR(j["domains"]["summarization"]["hard"].get<double>(), 25.0, 1e-9);
  EXPECT_NEAR(j["domains"]["code"]["easy"].get<double>(), 200.0 / 3, 1e-9);
  // (325/6 + 200/3 + 90 + 80) / 4 and (25 + 50/3 + 40 + 30) / 4.
  EXPECT_NEAR(j["overall_easy"].get<double>(), 1745.0 / 24, 1e-9);
  EXPECT_NEAR(j["overall_hard"].get<double>(), 335.0 / 12, 1e-9);
  EXPECT_NEAR(j["all"].get<double>(), 50.3125, 1e-9);
  EXPECT_EQ(j["all_ci"]["n"], 303);
  EXPECT_EQ(j["all_ci"]["k"], 160);
}

// The report does not depend on the order the records came in.
TEST(TallyTest, TheOrderOfTheRecordsChangesNoByte) {
  std::vector<std::pair<Sample, Verdict>> records;
  int id = 0;
  for (const auto& [subtask, domain, n, pass] :
       std::vector<std::tuple<const char*, const char*, int, int>>{
           {"bullet_points", "summarization", 7, 3}, {"html_easy", "html", 5, 5},
           {"math_hard", "math", 9, 2}, {"add_print_statements", "code", 4, 1}}) {
    for (int i = 0; i < n; ++i) {
      records.emplace_back(Make(domain, subtask, std::to_string(id++)), PassVerdict(i < pass));
    }
  }
  Tally forward, backward;
  for (const auto& [s, v] : records) forward.Add(s, v);
  for (auto it = records.rbegin(); it != records.rend(); ++it) backward.Add(it->first, it->second);
  EXPECT_EQ(RenderJsonReport(forward, RuleSet::kPaper).dump(),
            RenderJsonReport(backward, RuleSet::kPaper).dump());
  EXPECT_EQ(RenderTextReport(forward, RuleSet::kPaper),
            RenderTextReport(backward, RuleSet::kPaper));
}

// Rule-level figures: rules passed / rules listed per subtask, the rules that fail most
// (share of the samples listing them) in the text, and per rule in the JSON; a subtask
// whose every rule held is left out of the text; verdicts without rules count nowhere.
TEST(TallyTest, RulesAreTalliedPerSubtaskAndTheFailingOnesShown) {
  using R = RuleCheck::Result;
  const auto verdict = [](bool pass, std::vector<RuleCheck> checks) {
    Verdict v = PassVerdict(pass);
    v.checks = std::move(checks);
    return v;
  };
  Tally tally;
  tally.Add(Make("html", "html_easy", "a"),
            verdict(true, {{"document", R::kPass, ""}, {"children-count", R::kPass, ""}}));
  tally.Add(Make("html", "html_easy", "b"),
            verdict(false, {{"document", R::kPass, ""}, {"children-count", R::kFail, "x"}}));
  tally.Add(Make("html", "html_easy", "c"),
            verdict(false, {{"document", R::kFail, "y"}, {"children-count", R::kNotChecked, ""}}));
  tally.Add(Make("html", "html_easy", "d"),
            PassVerdict(false));  // stored before verdicts had rules
  tally.Add(Make("html", "html_hard", "e"), verdict(true, {{"document", R::kPass, ""}}));
  const SubtaskTally* easy = tally.Subtasks()[0];
  EXPECT_EQ(easy->with_rules, 3);
  ASSERT_EQ(easy->rules.size(), 2u);
  EXPECT_EQ(easy->rules[1].failed, 1);
  EXPECT_EQ(easy->rules[1].not_checked, 1);
  EXPECT_DOUBLE_EQ(*easy->RuleAccuracy(), 100.0 * 3 / 6);
  const std::string text = RenderRulesText(tally);
  EXPECT_NE(text.find("html_easy                     3   50.00  document 33.3%, children-count 33.3%"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("html_hard"), std::string::npos) << text;
  const nlohmann::json j = RenderJsonReport(tally, RuleSet::kStrict);
  EXPECT_DOUBLE_EQ(j["subtasks"][0]["rule_accuracy"].get<double>(), 50.0);
  EXPECT_EQ(j["subtasks"][0]["rules"][1],
            nlohmann::json({{"name", "children-count"}, {"passed", 1}, {"failed", 1},
                            {"not_checked", 1}}));
  EXPECT_EQ(j["subtasks"][1]["rule_accuracy"].get<double>(), 100.0);
  Tally none;
  none.Add(Make("html", "html_easy", "a"), PassVerdict(true));
  EXPECT_EQ(RenderRulesText(none), "");
  EXPECT_FALSE(RenderJsonReport(none, RuleSet::kPaper)["subtasks"][0].contains("rules"));
}

TEST(TallyTest, TextAndMarkdownShowTheIntervals) {
  const Tally tally = Everything();
  const nlohmann::json j = RenderJsonReport(tally, RuleSet::kPaper);
  const auto bounds = [](const nlohmann::json& ci) {
    return fmt::format("[{:6.2f}, {:6.2f}]", ci["low"].get<double>(), ci["high"].get<double>());
  };
  const std::string text = RenderTextReport(tally, RuleSet::kPaper);
  EXPECT_NE(text.find(fmt::format("bullet_points            easy      40   75.00  {}",
                                  bounds(j["subtasks"][0]["ci"]))),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("All           {:6.2f}  {}", j["all"].get<double>(),
                                  bounds(j["all_ci"]))),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("code            66.67  16.67  {}  {}",
                                  bounds(j["domains"]["code"]["easy_ci"]),
                                  bounds(j["domains"]["code"]["hard_ci"]))),
            std::string::npos)
      << text;
  // One code subtask of each split: partial figures, marked.
  const std::string md = RenderMarkdownReport(tally, RuleSet::kPaper);
  EXPECT_NE(md.find(fmt::format("| code | 66.67 (from 1 of {} subtasks) | {:.2f}–{:.2f} |",
                                j["domains"]["code"]["easy_subtasks"]["of"].get<int>(),
                                j["domains"]["code"]["easy_ci"]["low"].get<double>(),
                                j["domains"]["code"]["easy_ci"]["high"].get<double>())),
            std::string::npos)
      << md;
}

// One sample passing: the subtask and the domain figure that is that subtask show the
// same interval, far from certain, and the text does not call it certain either.
TEST(TallyTest, OneSampleAtAHundredPercentIsFarFromCertain) {
  Tally tally;
  tally.Add(Make("html", "html_easy", "1"), PassVerdict(true));
  const std::string text = RenderTextReport(tally, RuleSet::kPaper);
  const Interval one = ContinuityCorrectedWilson(1, 1);
  const std::string ci = fmt::format("[{:6.2f}, {:6.2f}]", 100 * one.low, 100 * one.high);
  EXPECT_LT(100 * one.low, 50);
  EXPECT_NE(text.find("html_easy                easy       1  100.00  " + ci), std::string::npos)
      << text;
  EXPECT_NE(text.find("html           100.00      -  " + ci + "  -\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("[100.00, 100.00]"), std::string::npos) << text;
  EXPECT_EQ(text.find("exact variance"), std::string::npos) << text;
}

// A tally of every subtask of the registry but `skip` (one sample each, alternately
// passing), and the registry's subtask count of each domain split.
struct Registered {
  Tally tally;
  std::map<std::pair<std::string, Split>, int> defined;
};

Registered AllSubtasksBut(const std::vector<std::string>& skip) {
  Registered r;
  int id = 0;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& spec : f->subtasks) {
      ++r.defined[{std::string(f->domain), spec.split}];
      if (std::find(skip.begin(), skip.end(), spec.name) != skip.end()) continue;
      for (int i = 0; i < 3; ++i, ++id) {
        r.tally.Add(Make(std::string(f->domain), std::string(spec.name), std::to_string(id),
                         {{"task_id", id}}),
                    PassVerdict(id % 2 == 0));
      }
    }
  }
  return r;
}

TEST(TallyTest, ACompleteRunCarriesNoPartialMark) {
  const Registered r = AllSubtasksBut({});
  const std::string text = RenderTextReport(r.tally, RuleSet::kPaper);
  const std::string md = RenderMarkdownReport(r.tally, RuleSet::kPaper);
  for (const std::string* out : {&text, &md}) {
    EXPECT_EQ(out->find(" subtasks"), std::string::npos) << *out;
    EXPECT_EQ(out->find("artial"), std::string::npos) << *out;
  }
  // Each aggregate line ends at its interval, as before the marks existed.
  const nlohmann::json j = RenderJsonReport(r.tally, RuleSet::kPaper);
  const auto bounds = [](const nlohmann::json& ci) {
    return fmt::format("[{:6.2f}, {:6.2f}]", ci["low"].get<double>(), ci["high"].get<double>());
  };
  EXPECT_NE(text.find(fmt::format("All           {:6.2f}  {}\n", j["all"].get<double>(),
                                  bounds(j["all_ci"]))),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("  {}  {}\n", bounds(j["domains"]["code"]["easy_ci"]),
                                  bounds(j["domains"]["code"]["hard_ci"]))),
            std::string::npos)
      << text;
  for (const char* key : {"overall_easy_subtasks", "overall_hard_subtasks", "all_subtasks"}) {
    EXPECT_EQ(j[key]["complete"], true) << key;
    EXPECT_EQ(j[key]["scored"], j[key]["of"]) << key;
  }
  int total = 0;
  for (const auto& [key, n] : r.defined) total += n;
  EXPECT_EQ(j["all_subtasks"]["of"], total);
  for (const auto& [key, n] : r.defined) {
    const nlohmann::json& c =
        j["domains"][key.first][key.second == Split::kEasy ? "easy_subtasks" : "hard_subtasks"];
    EXPECT_EQ(c["of"], n) << key.first;
    EXPECT_EQ(c["complete"], true) << key.first;
  }
}

TEST(TallyTest, APartialRunSaysHowManySubtasksEachFigureRestsOn) {
  // Code Hard from simulate_execute_v2 alone, summarization Easy without one subtask.
  const std::vector<std::string> skip = {"add_print_statements_v2", "replace_variables_v2",
                                         "test_case_inputs_gen_v2", "questions"};
  const Registered r = AllSubtasksBut(skip);
  const int code_hard = r.defined.at({"code", Split::kHard});
  const int summarization_easy = r.defined.at({"summarization", Split::kEasy});
  int easy = 0, hard = 0;
  for (const auto& [key, n] : r.defined) (key.second == Split::kEasy ? easy : hard) += n;
  const std::string text = RenderTextReport(r.tally, RuleSet::kPaper);
  EXPECT_NE(text.find(fmt::format("(Hard from 1 of {} subtasks)\n", code_hard)), std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("(Easy from {} of {} subtasks)\n", summarization_easy - 1,
                                  summarization_easy)),
            std::string::npos)
      << text;
  const nlohmann::json j = RenderJsonReport(r.tally, RuleSet::kPaper);
  EXPECT_NE(text.find(fmt::format("All           {:6.2f}", j["all"].get<double>())),
            std::string::npos);
  EXPECT_NE(text.find(fmt::format("(from {} of {} subtasks)\n", easy + hard - 4, easy + hard)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("overall Hard  {:6.2f}", j["overall_hard"].get<double>())),
            std::string::npos);
  EXPECT_NE(text.find(fmt::format("(from {} of {} subtasks)\n", hard - 3, hard)), std::string::npos)
      << text;
  EXPECT_NE(text.find("\npartial: a figure marked"), std::string::npos) << text;
  // Complete figures stay unmarked: html's row ends at its Hard interval.
  const auto bounds = [](const nlohmann::json& ci) {
    return fmt::format("[{:6.2f}, {:6.2f}]", ci["low"].get<double>(), ci["high"].get<double>());
  };
  EXPECT_NE(text.find(fmt::format("  {}\n", bounds(j["domains"]["html"]["hard_ci"]))),
            std::string::npos)
      << text;

  const std::string md = RenderMarkdownReport(r.tally, RuleSet::kPaper);
  EXPECT_NE(md.find(fmt::format("| {:.2f} (from 1 of {} subtasks) |",
                                j["domains"]["code"]["hard"].get<double>(), code_hard)),
            std::string::npos)
      << md;
  EXPECT_NE(md.find(fmt::format("**All: {:.2f}** (from {} of {} subtasks; 95% CI",
                                j["all"].get<double>(), easy + hard - 4, easy + hard)),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("\nPartial: a figure marked"), std::string::npos) << md;

  EXPECT_EQ(j["domains"]["code"]["hard_subtasks"],
            (nlohmann::json{{"scored", 1}, {"of", code_hard}, {"complete", false}}));
  EXPECT_EQ(j["domains"]["code"]["easy_subtasks"]["complete"], true);
  EXPECT_EQ(j["domains"]["summarization"]["easy_subtasks"]["scored"], summarization_easy - 1);
  EXPECT_EQ(j["overall_hard_subtasks"]["complete"], false);
  EXPECT_EQ(j["all_subtasks"]["scored"], easy + hard - 4);
  EXPECT_EQ(j["all_subtasks"]["complete"], false);
}

// A domain with nothing scored is "-", not a partial figure; its count says 0 of n.
TEST(TallyTest, AMissingDomainIsNotMarkedPartial) {
  Tally tally;
  tally.Add(Make("html", "html_easy", "1"), PassVerdict(true));
  tally.Add(Make("html", "html_hard", "2"), PassVerdict(false));
  const std::string text = RenderTextReport(tally, RuleSet::kPaper);
  EXPECT_EQ(text.find("artial"), std::string::npos) << text;
  EXPECT_EQ(text.find(" subtasks)"), std::string::npos) << text;
  const nlohmann::json j = RenderJsonReport(tally, RuleSet::kPaper);
  EXPECT_EQ(j["domains"]["code"]["easy_subtasks"]["scored"], 0);
  EXPECT_EQ(j["domains"]["code"]["easy_subtasks"]["complete"], false);
  EXPECT_EQ(j["domains"]["html"]["easy_subtasks"]["complete"], true);
}

// A run of 3 repeats, by hand. html_easy (no source item): five samples, passing
// PPP, PFP, FFF, FPF, and P?P with the middle repeat an error.
TEST(TallyRepeatsTest, MeanAccuracyConsistencyAndPassAtKOfASmallCase) {
  Tally t;
  t.SetRepeats(3);
  const std::vector<std::string> verdicts = {"PPP", "PFP", "FFF", "FPF", "PEP"};
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const Sample s = Make("html", "html_easy", "s" + std::to_string(i));
    for (int64_t r = 0; r < 3; ++r) {
      const char v = verdicts[i][static_cast<size_t>(r)];
      if (v == 'E') {
        t.AddError(s, r);
      } else {
        t.Add(s, PassVerdict(v == 'P'), r);
      }
    }
  }
  const SubtaskTally& st = *t.Subtasks().at(0);
  EXPECT_EQ(st.scored, 14);
  EXPECT_EQ(st.passed, 8);
  EXPECT_NEAR(st.Accuracy(), 100.0 * 8 / 14, 1e-9);  // the mean over every repeat's verdict
  const RepeatStats r = st.Repeats();
  EXPECT_EQ(r.units, 4);
  EXPECT_EQ(r.incomplete, 1);
  EXPECT_EQ(r.consistent, 2);  // PPP and FFF
  ASSERT_EQ(r.pass_at_k.size(), 3u);
  ASSERT_EQ(r.pass_hat_k.size(), 3u);
  // c = 3, 2, 0, 1 passing repeats of 3.
  // pass@1 = mean c/3 = (1 + 2/3 + 0 + 1/3) / 4.
  EXPECT_NEAR(r.pass_at_k[0], 100.0 * 0.5, 1e-9);
  // pass@2 = mean 1 - C(3 - c, 2) / 3: 1, 1, 0, 1 - 1/3.
  EXPECT_NEAR(r.pass_at_k[1], 100.0 * (1 + 1 + 0 + 2.0 / 3) / 4, 1e-9);
  // pass@3: some of the three passes: 1, 1, 0, 1.
  EXPECT_NEAR(r.pass_at_k[2], 75.0, 1e-9);
  EXPECT_NEAR(r.pass_hat_k[0], 50.0, 1e-9);
  // pass^2 = mean C(c, 2) / 3: 1, 1/3, 0, 0.
  EXPECT_NEAR(r.pass_hat_k[1], 100.0 * (4.0 / 3) / 4, 1e-9);
  EXPECT_NEAR(r.pass_hat_k[2], 25.0, 1e-9);
  // Each sample's repeats are one cluster: the interval's units.
  const Stratum stratum = st.ToStratum();
  EXPECT_TRUE(stratum.repeated);
  EXPECT_EQ(stratum.Units(), 14);
  for (const auto& [units, passed] : std::vector<std::pair<int64_t, int64_t>>{
           {3, 3}, {3, 2}, {3, 0}, {3, 1}, {2, 2}}) {
    const ClusterKind* k = FindKind(stratum, units, passed);
    ASSERT_NE(k, nullptr) << units << " " << passed;
    EXPECT_EQ(k->count, 1);
  }
  // The JSON and text reports carry the figures; a run without repeats none of it.
  const nlohmann::json j = RenderJsonReport(t, RuleSet::kPaper);
  EXPECT_EQ(j["repeats"]["k"], 3);
  EXPECT_EQ(j["subtasks"][0]["repeats"]["samples"], 4);
  EXPECT_NEAR(j["subtasks"][0]["repeats"]["consistency"].get<double>(), 50.0, 1e-9);
  EXPECT_NE(RenderTextReport(t, RuleSet::kPaper).find("repeats: each sample asked 3 times"),
            std::string::npos);
  EXPECT_NE(RenderMarkdownReport(t, RuleSet::kPaper).find("| pass@3 |"), std::string::npos);
  Tally once;
  once.Add(Make("html", "html_easy", "s0"), PassVerdict(true));
  const nlohmann::json j1 = RenderJsonReport(once, RuleSet::kPaper);
  EXPECT_FALSE(j1.contains("repeats"));
  EXPECT_FALSE(j1["subtasks"][0].contains("repeats"));
  EXPECT_FALSE(j1["intervals"].contains("repeats"));
  EXPECT_FALSE(once.Subtasks().at(0)->ToStratum().repeated);
  EXPECT_EQ(RenderTextReport(once, RuleSet::kPaper).find("repeats"), std::string::npos);
}

// simulate_execute counts tasks: with repeats, a task passes a repeat when all its samples
// pass it, its repeats are one cluster, and pass@k is over tasks.
TEST(TallyRepeatsTest, ASubtaskCountingTasksCountsEachTasksRepeats) {
  Tally t;
  t.SetRepeats(2);
  // Task 1: samples a, b; repeat 0 both pass, repeat 1 b fails. Task 2: c; both fail.
  const auto add = [&](const char* id, int task, int64_t repeat, bool pass) {
    t.Add(Make("code", "simulate_execute", id, {{"task_id", task}}), PassVerdict(pass), repeat);
  };
  add("a", 1, 0, true);
  add("b", 1, 0, true);
  add("a", 1, 1, true);
  add("b", 1, 1, false);
  add("c", 2, 0, false);
  add("c", 2, 1, false);
  const SubtaskTally& st = *t.Subtasks().at(0);
  ASSERT_TRUE(st.per_task());
  EXPECT_EQ(st.TasksCounted(), 4);  // task repeats
  EXPECT_EQ(st.TasksSolved(), 1);
  EXPECT_NEAR(st.Accuracy(), 25.0, 1e-9);
  const RepeatStats r = st.Repeats();
  EXPECT_EQ(r.units, 2);
  EXPECT_EQ(r.consistent, 1);  // task 2 fails both
  EXPECT_NEAR(r.pass_at_k[1], 50.0, 1e-9);  // task 1 passes one of its two
  EXPECT_NEAR(r.pass_hat_k[1], 0.0, 1e-9);
  const Stratum stratum = st.ToStratum();
  EXPECT_EQ(stratum.Units(), 4);
  ASSERT_NE(FindKind(stratum, 2, 1), nullptr);
  ASSERT_NE(FindKind(stratum, 2, 0), nullptr);
}

}  // namespace
}  // namespace structtest
