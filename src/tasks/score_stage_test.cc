// The ordered scoring stage: records come back in the order they went in, whichever
// finishes first; code records are scored on several threads at once; the others on
// the caller's thread; errors of the pool come back per record.
#include "tasks/score_stage.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "sandbox/python_pool.h"
#include "structtest/checker.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"

namespace structtest {
namespace {

ScoreItem Item(int64_t tag, std::string domain, std::string subtask) {
  ScoreItem item;
  item.record.sample.id = "r" + std::to_string(tag);
  item.record.sample.domain = std::move(domain);
  item.record.sample.subtask = std::move(subtask);
  item.record.response.text = "answer";
  item.tag = tag;
  return item;
}

// A fake checker: code record i sleeps longer the earlier it is, so later records
// finish first; it notes how many ran at once and on which thread each ran.
struct FakeChecker {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> inline_off_caller{0};
  int n = 0;

  ScoreStage::ScoreFn Fn() {
    return [this](const ScoreItem& item, RuleSet) -> StatusOr<Verdict> {
      if (item.record.sample.domain != "code") {
        if (std::this_thread::get_id() != caller) ++inline_off_caller;
        Verdict v;
        v.pass = true;
        v.reason = item.record.sample.id;
        return v;
      }
      const int now = ++running;
      for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2 * (n - item.tag)));
      --running;
      if (item.tag % 5 == 0) return Status::Unavailable("fake pool error " + item.record.sample.id);
      Verdict v;
      v.pass = item.tag % 2 == 0;
      v.reason = item.record.sample.id;
      return v;
    };
  }
};

TEST(ScoreStageTest, DeliversInInputOrderWhenLaterRecordsFinishFirst) {
  for (const int jobs : {1, 4}) {
    SCOPED_TRACE(jobs);
    FakeChecker fake;
    fake.n = 40;
    std::vector<int64_t> order;
    std::vector<std::string> reasons;
    ScoreStage stage(
        RuleSet::kPaper, jobs,
        [&](ScoreItem& item) {
          order.push_back(item.tag);
          reasons.push_back(item.verdict.ok() ? item.verdict->reason
                                              : "error: " + item.verdict.status().message());
          return Status::Ok();
        },
        /*max_queued=*/8, fake.Fn());
    for (int i = 0; i < fake.n; ++i) {
      // Every third record is not code: scored inline, queued behind the code ones.
      ScoreItem item = i % 3 == 1 ? Item(i, "math", "math_easy") : Item(i, "code", "simulate_execute");
      ASSERT_TRUE(stage.Add(&item).ok());
      EXPECT_LE(stage.queued(), 8u);
    }
    ASSERT_TRUE(stage.Finish().ok());
    EXPECT_EQ(stage.queued(), 0u);
    ASSERT_EQ(order.size(), static_cast<size_t>(fake.n));
    for (int i = 0; i < fake.n; ++i) {
      EXPECT_EQ(order[i], i);
      const std::string id = "r" + std::to_string(i);
      const bool code = i % 3 != 1;
      EXPECT_EQ(reasons[i], code && i % 5 == 0 ? "error: fake pool error " + id : id);
    }
    EXPECT_EQ(fake.inline_off_caller.load(), 0);
    if (jobs == 1) {
      EXPECT_EQ(fake.most.load(), 1);
    } else {
      EXPECT_GT(fake.most.load(), 1) << "the code records never overlapped";
      EXPECT_LE(fake.most.load(), jobs);
    }
  }
}

TEST(ScoreStageTest, OnlyCodeRecordsGoToThreads) {
  ScoreStage one(RuleSet::kPaper, 1, [](ScoreItem&) { return Status::Ok(); });
  ScoreStage four(RuleSet::kPaper, 4, [](ScoreItem&) { return Status::Ok(); });
  const ScoreItem code = Item(0, "code", "add_print_statements");
  EXPECT_FALSE(one.Offloads(code.record.sample));
  EXPECT_TRUE(four.Offloads(code.record.sample));
  for (const char* domain : {"summarization", "html", "math", "no_such_domain"}) {
    EXPECT_FALSE(four.Offloads(Item(0, domain, "x").record.sample)) << domain;
  }
}

TEST(ScoreStageTest, ADeliverErrorStopsTheStage) {
  FakeChecker fake;
  fake.n = 10;
  int delivered = 0;
  ScoreStage stage(
      RuleSet::kPaper, 3,
      [&](ScoreItem& item) {
        ++delivered;
        return item.tag == 2 ? Status::Internal("disk full") : Status::Ok();
      },
      0, fake.Fn());
  Status last;
  for (int i = 0; i < fake.n && last.ok(); ++i) {
    ScoreItem item = Item(i, "code", "simulate_execute");
    last = stage.Add(&item);
  }
  if (last.ok()) last = stage.Finish();
  EXPECT_EQ(last.message(), "disk full");
  EXPECT_EQ(delivered, 3);
  ScoreItem more = Item(99, "math", "math_easy");
  EXPECT_EQ(stage.Add(&more).message(), "disk full");
  EXPECT_EQ(stage.Finish().message(), "disk full");
  EXPECT_EQ(delivered, 3);
}

// The real checkers with a python3 that does not exist: every code record comes back
// as its own clear error, on any number of threads, and nothing hangs.
TEST(ScoreStageTest, APoolThatCannotStartIsAnErrorPerRecord) {
  PythonOptions o;
  o.python = "/nonexistent/python3";
  o.worker_script = STRUCTTEST_WORKER_SCRIPT;
  o.max_workers = 3;
  PythonPool pool(o);
  std::vector<std::string> errors;
  ScoreStage stage(RuleSet::kPaper, 3, [&](ScoreItem& item) {
    EXPECT_FALSE(item.verdict.ok());
    errors.push_back(std::to_string(item.tag) + " " + item.verdict.status().message());
    return Status::Ok();
  });
  for (int i = 0; i < 12; ++i) {
    ScoreItem item = Item(i, "code", i % 2 ? "simulate_execute" : "add_print_statements");
    item.record.sample.context = {{"source_code", "def f(a):\n    b = a\n    return b\n"},
                                  {"fn_name", "f"},
                                  {"inputs", "[1]"},
                                  {"expected_output", "1"}};
    item.record.response.text = "```python\nx = 1\n```";
    item.env.python = &pool;
    ASSERT_TRUE(stage.Add(&item).ok());
  }
  ASSERT_TRUE(stage.Finish().ok());
  ASSERT_EQ(errors.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(errors[i].rfind(std::to_string(i) + " ", 0), 0u) << errors[i];
    EXPECT_NE(errors[i].find("/nonexistent/python3"), std::string::npos) << errors[i];
  }
}


// ---- CompleteChecks: a verdict's rules from what its checker recorded and its stages --

constexpr RuleSpec kRules[] = {{"tags", 0}, {"text", 0}, {"count", 1}, {"content", 2}};

std::string Shown(const Verdict& v) {
  std::string out;
  for (const RuleCheck& c : v.checks) {
    out += c.name + "=" + std::string(RuleResultName(c.result)) +
           (c.detail.empty() ? "" : "(" + c.detail + ")") + " ";
  }
  return out;
}

TEST(CompleteChecksTest, APassPassesEveryRule) {
  Verdict v{true, "all good"};
  CompleteChecks(kRules, &v);
  EXPECT_EQ(Shown(v), "tags=pass text=pass count=pass content=pass ");
  EXPECT_EQ(v.score(), 1.0);
  constexpr RuleSpec kOne[] = {{"only", 0}};
  Verdict one{true, "as asked"};
  CompleteChecks(kOne, &one);
  EXPECT_EQ(Shown(one), "only=pass(as asked) ") << "a single rule's detail is the reason";
}

// The rule the reason names fails; the earlier stages passed, the rest of its stage and
// the later stages were not checked.
TEST(CompleteChecksTest, TheNamedRuleFailsEarlierStagesPassLaterOnesAreNotChecked) {
  Verdict v{false, "count: expected 3, found 2"};
  CompleteChecks(kRules, &v);
  EXPECT_EQ(Shown(v), "tags=pass text=pass count=fail(expected 3, found 2) content=not-checked ");
  EXPECT_DOUBLE_EQ(v.score(), 0.5);
  Verdict first{false, "text: a NUL byte"};
  CompleteChecks(kRules, &first);
  EXPECT_EQ(Shown(first), "text=fail(a NUL byte) tags=not-checked count=not-checked "
                          "content=not-checked ")
      << "a rule of the same stage is not known to hold, and is listed after the decided one";
  EXPECT_EQ(first.score(), 0.0);
}

// What the checker recorded stands; math's format and accuracy are rules where listed.
TEST(CompleteChecksTest, RecordedRulesAndMathHalvesAreKept) {
  Verdict v{false, "count: expected 3, found 2"};
  v.checks = {{"content", RuleCheck::Result::kPass, "checked anyway"}};
  CompleteChecks(kRules, &v);
  EXPECT_EQ(Shown(v), "tags=pass text=pass count=fail(expected 3, found 2) "
                      "content=pass(checked anyway) ");
  constexpr RuleSpec kMath[] = {{"format", 0}, {"accuracy", 0}};
  Verdict m{false, "the answer 17 != gold 18"};
  m.format = true;
  m.accuracy = false;
  CompleteChecks(kMath, &m);
  EXPECT_EQ(Shown(m), "format=pass accuracy=fail(the answer 17 != gold 18) ");
}

// A failing reason that names no listed rule still fails on the checks: the rule is
// appended as it is, so that a checker's bug shows instead of a pass on every rule.
TEST(CompleteChecksTest, AFailNamingNoListedRuleIsAppendedAndFails) {
  Verdict v{false, "surprise: something else"};
  CompleteChecks(kRules, &v);
  EXPECT_EQ(Shown(v), "surprise=fail(surprise: something else) tags=not-checked "
                      "text=not-checked count=not-checked content=not-checked ");
  EXPECT_EQ(v.score(), 0.0);
  Verdict bare{false, "no rule named here"};
  CompleteChecks(kRules, &bare);
  ASSERT_EQ(bare.checks.size(), 5u);
  EXPECT_EQ(bare.checks.front().name, "unlisted");
}

// A rule listed before the failing one is never "not-checked": the list is in the order
// the rules were decided, and a recorded later rule comes before the undecided ones.
TEST(CompleteChecksTest, NoUndecidedRuleIsListedBeforeADecidedOne) {
  Verdict v{false, "content: off topic"};
  v.checks = {{"text", RuleCheck::Result::kPass, ""}};
  constexpr RuleSpec kOneScan[] = {{"tags", 0}, {"text", 0}, {"content", 0}, {"count", 1}};
  CompleteChecks(kOneScan, &v);
  EXPECT_EQ(Shown(v), "text=pass content=fail(off topic) tags=not-checked count=not-checked ");
}


// ---- the public Checker (structtest/checker.h) ----------------------------------------

TEST(PublicCheckerTest, ScoresAsTheScorerDoesInBatchesInOrderAndNamesBadSamples) {
  GenerateOptions options;
  options.seed = 11;
  options.limit = 2;
  options.tasks = {"html", "math", "bullet_points"};
  auto suite = Suite::Plan(options, nullptr);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  std::vector<Sample> samples;
  std::vector<std::string> responses;
  for (const PlannedSubtask& planned : (*suite)->subtasks()) {
    for (size_t i = 0; i < planned.count; ++i) {
      auto sample = (*suite)->Generate(planned, i);
      ASSERT_TRUE(sample.ok());
      responses.push_back(i == 0 ? (*sample).target["answer"].get<std::string>() : "no");
      samples.push_back(*std::move(sample));
    }
  }
  ASSERT_EQ(samples.size(), 10u);
  Checker checker;
  for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
    const auto batch = checker.CheckBatch(samples, responses, rules, 3);
    ASSERT_EQ(batch.size(), samples.size());
    for (size_t i = 0; i < samples.size(); ++i) {
      ASSERT_TRUE(batch[i].ok()) << batch[i].status().message();
      const auto one = checker.Check(samples[i], responses[i], rules);
      ASSERT_TRUE(one.ok());
      EXPECT_EQ(batch[i]->pass, responses[i] != "no") << samples[i].id;
      EXPECT_EQ(batch[i]->reason, one->reason);
      EXPECT_EQ(batch[i]->checks.size(), one->checks.size());
      EXPECT_FALSE(batch[i]->checks.empty());
    }
  }
  Sample unknown = samples[0];
  unknown.subtask = "bulet_points";
  const auto bad = checker.Check(unknown, "x", RuleSet::kPaper);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bulet_points"), std::string::npos);

  const std::vector<SubtaskInfo> subtasks = Subtasks();
  ASSERT_EQ(subtasks.size(), 19u);
  EXPECT_EQ(subtasks.back().name, "math_hard");
  EXPECT_EQ(subtasks.back().paper_rules, (std::vector<std::string>{"format", "accuracy"}));
  EXPECT_TRUE(subtasks[8].runs_python) << subtasks[8].name;
  EXPECT_TRUE(subtasks[0].counts_sentences) << subtasks[0].name;
}

}  // namespace
}  // namespace structtest
