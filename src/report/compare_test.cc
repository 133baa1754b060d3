// compare's pairing on stores written here: tasks as units, a sample left out making
// its task incomplete in both runs, questions asked twice as one cluster; and with
// repeats, two models' runs whose figures are counted by hand from their verdicts.
#include "report/compare.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/run_store.h"
#include "tasks/registry.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

struct Planned {
  Sample sample;
  // nullopt: the request errored; otherwise the verdict.
  std::optional<bool> pass;
};

Sample SimulateExecute(int task, int k) {
  Sample s;
  s.id = std::to_string(task) + "_" + std::to_string(k);
  s.domain = "code";
  s.subtask = "simulate_execute";
  s.context = {{"task_id", task}};
  return s;
}

Sample Math(int question, int k) {
  Sample s;
  s.id = "m" + std::to_string(question) + "_" + std::to_string(k);
  s.domain = "math";
  s.subtask = "math_easy";
  s.context = {{"gsm8k_index", question}};
  return s;
}

void Write(const std::string& dir, const std::vector<Planned>& rows) {
  auto store = RunStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)->Begin().ok());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE((*store)->AddSample(static_cast<int64_t>(i), rows[i].sample).ok());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    StoredResponse r;
    r.ok = rows[i].pass.has_value();
    r.text = "answer";
    r.error = r.ok ? "" : "HTTP 500";
    ASSERT_TRUE((*store)->PutResponse(static_cast<int64_t>(i), r).ok());
    if (!r.ok) continue;
    StoredVerdict v;
    v.pass = *rows[i].pass;
    v.reason = v.pass ? "ok" : "wrong";
    v.rules_version = rows[i].sample.domain == "code" ? "paper-1" : "paper-2";
    ASSERT_TRUE((*store)->PutVerdict(static_cast<int64_t>(i), "paper", v).ok());
  }
  ASSERT_TRUE((*store)->Commit().ok());
}

const SubtaskComparison& Find(const Comparison& c, const std::string& subtask) {
  for (const SubtaskComparison& s : c.subtasks) {
    if (s.subtask == subtask) return s;
  }
  ADD_FAILURE() << "no " << subtask;
  return c.subtasks.front();
}

TEST(CompareTest, TasksAreTheUnitsAndALeftOutSampleLeavesItsTaskOut) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  // Task 1: solved in A, failed in B. Task 2: failed in A, solved in B. Task 3:
  // solved in both but one input errored in B: left out. Task 4: failed in both.
  Write(a, {{SimulateExecute(1, 0), true}, {SimulateExecute(1, 1), true},
            {SimulateExecute(2, 0), false}, {SimulateExecute(2, 1), true},
            {SimulateExecute(3, 0), true}, {SimulateExecute(3, 1), true},
            {SimulateExecute(4, 0), false},
            {Math(7, 0), true}, {Math(7, 1), true}, {Math(8, 0), false}, {Math(8, 1), true}});
  Write(b, {{SimulateExecute(1, 0), true}, {SimulateExecute(1, 1), false},
            {SimulateExecute(2, 0), true}, {SimulateExecute(2, 1), true},
            {SimulateExecute(3, 0), true}, {SimulateExecute(3, 1), std::nullopt},
            {SimulateExecute(4, 0), false},
            {Math(7, 0), false}, {Math(7, 1), false}, {Math(8, 0), false}, {Math(8, 1), true}});
  CompareOptions options;
  options.flips = true;
  auto result = CompareRuns({a, b}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Comparison& c = (*result)[0];
  EXPECT_EQ(c.shared, 11);
  EXPECT_EQ(c.paired, 10);
  EXPECT_EQ(c.errored_a, 0);
  EXPECT_EQ(c.errored_b, 1);

  const SubtaskComparison& se = Find(c, "simulate_execute");
  EXPECT_TRUE(se.per_task);
  EXPECT_EQ(se.samples, 6);  // the errored input is not a pair
  EXPECT_EQ(se.units, 3);    // tasks 1, 2 and 4
  EXPECT_DOUBLE_EQ(se.accuracy_a, 100.0 / 3);
  EXPECT_DOUBLE_EQ(se.accuracy_b, 100.0 / 3);
  EXPECT_EQ(se.pass_to_fail, 1);  // task 1
  EXPECT_EQ(se.fail_to_pass, 1);  // task 2
  EXPECT_EQ(se.sample_pass_to_fail, 1);
  EXPECT_EQ(se.sample_fail_to_pass, 1);
  EXPECT_DOUBLE_EQ(se.p, 1.0);

  const SubtaskComparison& math = Find(c, "math_easy");
  EXPECT_FALSE(math.per_task);
  EXPECT_EQ(math.units, 4);
  EXPECT_EQ(math.pass_to_fail, 2);
  EXPECT_EQ(math.fail_to_pass, 0);
  EXPECT_DOUBLE_EQ(math.accuracy_a - math.accuracy_b, 50.0);
  // Question 7 (both samples flip together) is one cluster: a replicate holds it twice,
  // once or not at all, so B - A moves in steps of whole questions.
  ASSERT_TRUE(math.difference_ci.has_value());
  EXPECT_LE(math.difference_ci->low, -50.0);
  EXPECT_GE(math.difference_ci->high, -50.0);

  ASSERT_EQ(c.flips.size(), 4u);
  EXPECT_EQ(c.flips[0].id, "1_1");
  EXPECT_TRUE(c.flips[0].passed_in_a);
  EXPECT_EQ(c.flips[0].reason_a, "ok");
  EXPECT_EQ(c.flips[0].reason_b, "wrong");
  EXPECT_EQ(c.flips[1].id, "2_0");
  EXPECT_FALSE(c.flips[1].passed_in_a);
  // Holm over the two subtasks.
  EXPECT_DOUBLE_EQ(math.p_holm, std::min(1.0, 2 * math.p));
  EXPECT_EQ(c.rules_versions.at("code"), "paper-1");
}

// The runs share one code subtask of four Easy ones and math's one Easy subtask: code
// Easy is marked as partial in every output, math Easy is not.
TEST(CompareTest, PartialAggregatesAreMarkedInEveryOutput) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  Write(a, {{SimulateExecute(1, 0), true}, {SimulateExecute(2, 0), false},
            {Math(7, 0), true}, {Math(8, 0), false}});
  Write(b, {{SimulateExecute(1, 0), false}, {SimulateExecute(2, 0), false},
            {Math(7, 0), true}, {Math(8, 0), true}});
  auto result = CompareRuns({a, b}, CompareOptions());
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Comparison& c = (*result)[0];
  const SubtaskCount code = c.aggregates_a.easy_subtasks.at("code");
  EXPECT_EQ(code.scored, 1);
  EXPECT_FALSE(code.complete());
  EXPECT_TRUE(c.aggregates_a.easy_subtasks.at("math").complete());
  const std::string mark = fmt::format("(from 1 of {} subtasks)", code.of);

  const std::string text = RenderCompareText(*result, RuleSet::kPaper, false);
  const size_t code_row = text.find("\ncode Easy ");
  ASSERT_NE(code_row, std::string::npos) << text;
  EXPECT_EQ(text.substr(text.find('\n', code_row + 1) - mark.size(), mark.size()), mark) << text;
  const size_t math_row = text.find("\nmath Easy ");
  ASSERT_NE(math_row, std::string::npos) << text;
  const std::string math_line =
      text.substr(math_row + 1, text.find('\n', math_row + 1) - math_row - 1);
  EXPECT_EQ(math_line.find("subtasks"), std::string::npos) << math_line;
  EXPECT_NE(text.find("\npartial: a row marked"), std::string::npos) << text;

  const std::string md = RenderCompareMarkdown(*result, RuleSet::kPaper, false);
  EXPECT_NE(md.find("| code Easy " + mark + " |"), std::string::npos) << md;
  EXPECT_NE(md.find("| math Easy | "), std::string::npos) << md;
  EXPECT_NE(md.find("\nPartial: a row marked"), std::string::npos) << md;

  const nlohmann::json j = RenderCompareJson(*result, RuleSet::kPaper, false)["comparisons"][0];
  EXPECT_EQ(j["domains"]["code"]["easy"]["subtasks"],
            (nlohmann::json{{"scored", 1}, {"of", code.of}, {"complete", false}}));
  EXPECT_EQ(j["domains"]["math"]["easy"]["subtasks"]["complete"], true);
  EXPECT_EQ(j["domains"]["html"]["easy"]["subtasks"]["scored"], 0);
}

// Runs of every subtask show no mark and no note.
TEST(CompareTest, CompleteRunsCarryNoPartialMark) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  std::vector<Planned> rows_a, rows_b;
  int id = 0;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& spec : f->subtasks) {
      for (int i = 0; i < 2; ++i, ++id) {
        Sample s;
        s.id = std::to_string(id);
        s.domain = f->domain;
        s.subtask = spec.name;
        s.context = {{"task_id", id}};
        rows_a.push_back({s, id % 2 == 0});
        rows_b.push_back({s, id % 3 == 0});
      }
    }
  }
  Write(a, rows_a);
  Write(b, rows_b);
  auto result = CompareRuns({a, b}, CompareOptions());
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (const std::string& out : {RenderCompareText(*result, RuleSet::kPaper, false),
                                 RenderCompareMarkdown(*result, RuleSet::kPaper, false)}) {
    EXPECT_EQ(out.find(" subtasks)"), std::string::npos) << out;
    EXPECT_EQ(out.find("artial"), std::string::npos) << out;
  }
  const nlohmann::json j = RenderCompareJson(*result, RuleSet::kPaper, false)["comparisons"][0];
  EXPECT_EQ(j["all"]["subtasks"]["complete"], true);
  EXPECT_EQ(j["all"]["subtasks"]["scored"], id / 2);
}

TEST(CompareTest, RunsWithoutAScoredPairAreRefused) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  Write(a, {{Math(1, 0), true}, {Math(2, 0), true}});
  Write(b, {{Math(1, 0), std::nullopt}, {Math(2, 0), std::nullopt}});
  auto result = CompareRuns({a, b}, CompareOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            a + " and " + b + " share 2 samples, but none is scored in both (0 errored in " + a +
                ", 2 in " + b + ", 0 not asked or not scored)");
}

// A run of `repeats` repeats: each sample's verdict per repeat (nullopt: an error).
struct RepeatedPlan {
  Sample sample;
  std::vector<std::optional<bool>> verdicts;
};

void WriteRepeated(const std::string& dir, const std::string& model, int64_t repeats,
                   const std::vector<RepeatedPlan>& rows) {
  auto store = RunStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status().message();
  RunManifest manifest;
  manifest.model = model;
  manifest.repeats = repeats;
  ASSERT_TRUE((*store)->SetManifest(manifest).ok());
  ASSERT_TRUE((*store)->Begin().ok());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE((*store)->AddSample(static_cast<int64_t>(i), rows[i].sample).ok());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].verdicts.size(), static_cast<size_t>(repeats));
    for (int64_t rep = 0; rep < repeats; ++rep) {
      const std::optional<bool> pass = rows[i].verdicts[static_cast<size_t>(rep)];
      StoredResponse r;
      r.ok = pass.has_value();
      r.text = "answer";
      r.error = r.ok ? "" : "HTTP 500";
      ASSERT_TRUE((*store)->PutResponse(static_cast<int64_t>(i), r, rep).ok());
      if (!r.ok) continue;
      StoredVerdict v;
      v.pass = *pass;
      v.reason = v.pass ? "ok" : "wrong";
      v.rules_version = rows[i].sample.domain == "code" ? "paper-1" : "paper-2";
      ASSERT_TRUE((*store)->PutVerdict(static_cast<int64_t>(i), "paper", v, rep).ok());
    }
  }
  ASSERT_TRUE((*store)->Commit().ok());
}

// Two models' runs of 3 repeats, compared: every figure counted here by hand from the
// verdicts written. A math sample's repeats are its units and it flips when one run
// passes more of them; a simulate_execute task's repeat is solved when every input of
// it passes in that repeat, the task's repeats one cluster, and a task flips when one
// run solves more of its repeats; a sample with an errored repeat is left out and
// counted as errored in its run.
TEST(CompareTest, RunsOfTwoModelsWithRepeatsGetTheFiguresOfTheirVerdicts) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  const std::optional<bool> T = true, F = false, E = std::nullopt;
  // Tasks 1, 3 and 4: A solves all 3 repeats, B 2. Tasks 2 and 5: A solves 1, B all 3.
  const std::vector<RepeatedPlan> plan_a = {
      {SimulateExecute(1, 0), {T, T, T}}, {SimulateExecute(1, 1), {T, T, T}},
      {SimulateExecute(2, 0), {F, F, T}}, {SimulateExecute(2, 1), {T, T, T}},
      {SimulateExecute(3, 0), {T, T, T}}, {SimulateExecute(3, 1), {T, T, T}},
      {SimulateExecute(4, 0), {T, T, T}}, {SimulateExecute(4, 1), {T, T, T}},
      {SimulateExecute(5, 0), {F, T, F}}, {SimulateExecute(5, 1), {T, T, T}},
      {Math(1, 0), {T, T, T}},  // question 1 asked twice: one cluster
      {Math(1, 1), {F, F, T}},
      {Math(2, 0), {T, F, T}},
      {Math(3, 0), {T, E, T}},  // errored in A: left out
      {Math(4, 0), {F, F, F}},
  };
  const std::vector<RepeatedPlan> plan_b = {
      {SimulateExecute(1, 0), {T, T, T}}, {SimulateExecute(1, 1), {T, T, F}},
      {SimulateExecute(2, 0), {T, T, T}}, {SimulateExecute(2, 1), {T, T, T}},
      {SimulateExecute(3, 0), {F, T, T}}, {SimulateExecute(3, 1), {T, T, T}},
      {SimulateExecute(4, 0), {T, T, T}}, {SimulateExecute(4, 1), {T, F, T}},
      {SimulateExecute(5, 0), {T, T, T}}, {SimulateExecute(5, 1), {T, T, T}},
      {Math(1, 0), {F, T, F}},
      {Math(1, 1), {T, T, T}},
      {Math(2, 0), {T, F, T}},
      {Math(3, 0), {T, T, T}},
      {Math(4, 0), {F, T, F}},
  };
  WriteRepeated(a, "model-a", 3, plan_a);
  WriteRepeated(b, "model-b", 3, plan_b);
  CompareOptions options;
  options.flips = true;
  auto result = CompareRuns({a, b}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Comparison& c = result->at(0);
  EXPECT_EQ(c.a.model, "model-a");
  EXPECT_EQ(c.b.model, "model-b");
  EXPECT_EQ(c.repeats, 3);
  EXPECT_EQ(c.shared, 15);
  EXPECT_EQ(c.paired, 14);
  EXPECT_EQ(c.errored_a, 1);
  EXPECT_EQ(c.errored_b, 0);
  EXPECT_EQ(c.unscored, 0);

  // Tasks: 5 tasks x 3 repeats; A solves 3 + 1 + 3 + 3 + 1, B 2 + 3 + 2 + 2 + 3.
  const SubtaskComparison& tasks = Find(c, "simulate_execute");
  EXPECT_TRUE(tasks.per_task);
  EXPECT_EQ(tasks.samples, 10);
  EXPECT_EQ(tasks.units, 15);
  EXPECT_DOUBLE_EQ(tasks.accuracy_a, 100.0 * 11 / 15);
  EXPECT_DOUBLE_EQ(tasks.accuracy_b, 100.0 * 12 / 15);
  EXPECT_EQ(tasks.pass_to_fail, 3);  // tasks 1, 3 and 4
  EXPECT_EQ(tasks.fail_to_pass, 2);  // tasks 2 and 5
  EXPECT_EQ(tasks.sample_pass_to_fail, 3);
  EXPECT_EQ(tasks.sample_fail_to_pass, 2);
  EXPECT_DOUBLE_EQ(tasks.p, McNemarExactP(3, 2));
  EXPECT_NEAR(tasks.p, 1.0, 1e-12);  // 2 (1 + 5 + 10) / 32, at most 1

  // Math: samples m1_0 (3 vs 1), m1_1 (1 vs 3), m2_0 (2 vs 2), m4_0 (0 vs 1).
  const SubtaskComparison& math = Find(c, "math_easy");
  EXPECT_FALSE(math.per_task);
  EXPECT_EQ(math.samples, 4);
  EXPECT_EQ(math.units, 12);
  EXPECT_DOUBLE_EQ(math.accuracy_a, 100.0 * 6 / 12);
  EXPECT_DOUBLE_EQ(math.accuracy_b, 100.0 * 7 / 12);
  EXPECT_EQ(math.pass_to_fail, 1);
  EXPECT_EQ(math.fail_to_pass, 2);
  EXPECT_NEAR(math.p, 1.0, 1e-12);  // 2 (1 + 3) / 8, at most 1

  std::map<std::string, bool> flips;  // id -> passed more in A
  for (const Flip& f : c.flips) flips[f.id] = f.passed_in_a;
  const std::map<std::string, bool> want = {{"1_1", true},  {"2_0", false}, {"3_0", true},
                                            {"4_1", true},  {"5_0", false}, {"m1_0", true},
                                            {"m1_1", false}, {"m4_0", false}};
  EXPECT_EQ(flips, want);
}

}  // namespace
}  // namespace structtest
