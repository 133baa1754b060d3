// compare's pairing on stores written here: tasks as units, a sample left out making
// its task incomplete in both runs, questions asked twice as one cluster.
#include "report/compare.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "store/run_store.h"
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

}  // namespace
}  // namespace structtest
