// An ordered scoring stage: records go in one at a time and come back scored in the
// same order. Records of a family that calls the sandboxed python pool (the code
// subtasks: each check is a round trip to a python3 worker that takes milliseconds)
// are scored on the threads of a ScoringPool (structtest/scoring_pool.h), so that a
// pool of N python workers is kept busy while the caller reads, writes or stores; every
// other record is scored inline on the calling thread, which costs less than handing it
// over. Used by `structtest score` and by the runner.
#ifndef STRUCTTEST_TASKS_SCORE_STAGE_H_
#define STRUCTTEST_TASKS_SCORE_STAGE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "structtest/checker.h"
#include "structtest/sample.h"
#include "structtest/scoring_pool.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

// One record to score and, once delivered, its verdict.
struct ScoreItem {
  ScoredRecord record;  // the sample and the response text scored
  // What the checker may use. The pool and the splitter it points to must outlive the
  // stage, and both are called from several threads (PythonPool and SentenceSplitter
  // are thread-safe).
  CheckEnv env;
  int64_t tag = 0;  // the caller's own: a line number, a sample index
  StatusOr<Verdict> verdict = Status::Internal("not scored yet");
};

// `--score-jobs N` as `score` and `run` take it: InvalidArgument unless 1 <= N <= 1024.
Status CheckScoreJobs(int jobs);
// A number of scoring threads as the public API takes it: 0 is DefaultScoreJobs(),
// anything else must pass CheckScoreJobs.
StatusOr<int> ResolveScoreJobs(int jobs);

class ScoreStage {
 public:
  // Called with each record, scored, in the order the records were added, always on
  // the thread calling Add, Poll or Finish. An error stops the stage (below).
  using DeliverFn = std::function<Status(ScoreItem& item)>;
  // How a record is scored: ScoreResponse unless a test gives another. Called from
  // several threads at once for the records Offloads.
  using ScoreFn = std::function<StatusOr<Verdict>(const ScoreItem& item, RuleSet rules)>;

  // `jobs` <= 1: no thread is started and every record is scored inline, as a plain
  // loop over ScoreResponse would. Otherwise `jobs` threads (started on the first
  // record that needs python) score the records that need python, and at most
  // `max_queued` records (default: enough to keep every thread busy) wait to be
  // delivered.
  ScoreStage(RuleSet rules, int jobs, DeliverFn deliver, size_t max_queued = 0,
             ScoreFn score = nullptr);
  // Waits for the records being scored on threads; those not delivered are dropped.
  ~ScoreStage();
  ScoreStage(const ScoreStage&) = delete;
  ScoreStage& operator=(const ScoreStage&) = delete;

  // Whether Add would score `sample` on a thread.
  bool Offloads(const Sample& sample);

  // Scores `*item` inline or on a thread, then delivers the records at the head that
  // are done. An inline record with nothing ahead of it is delivered at once and
  // never moved (the hot path); otherwise `*item` is moved from. Waits for the oldest
  // record while max_queued are waiting. Returns the first error of the deliver
  // function; once there was one, Add, Poll and Finish return it and deliver nothing.
  Status Add(ScoreItem* item);
  // Delivers the records at the head that are done, without waiting.
  Status Poll();
  // Waits for every record added and delivers it.
  Status Finish();

  // Records added and not yet delivered. Called from the thread that adds them.
  size_t queued() const;

 private:
  struct Slot {
    ScoreItem item;
    // Set for a record scored on the pool: `item` belongs to the pool's threads until
    // the batch is done. Unset: scored inline, ready.
    std::optional<ScoringPool::Batch> batch;
  };
  Status DeliverReady(bool wait_for_one);
  void Score(ScoreItem* item) const;

  const RuleSet rules_;
  const int jobs_;
  const size_t max_queued_;
  DeliverFn deliver_;
  ScoreFn score_;  // null: ScoreResponse
  Status failed_;
  // The last domain Offloads looked up, and its answer.
  std::string last_domain_;
  bool last_offloads_ = false;
  bool known_domain_ = false;

  // Only the calling thread adds and removes slots; a pool thread scoring one writes to
  // its item through a pointer, which std::deque keeps valid under push_back and
  // pop_front.
  std::deque<Slot> slots_;
  // Made on the first record that needs python; declared after slots_ so that it goes
  // first, waiting for the records its threads are scoring.
  std::unique_ptr<ScoringPool> pool_;
};

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_SCORE_STAGE_H_
