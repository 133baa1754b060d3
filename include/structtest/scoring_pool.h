// The one pool of threads that scores records, for every caller that scores more than
// one at a time: the scoring stage of `run` and `score`, Checker::CheckBatch, the Python
// module's score_batch and `structtest serve`. A caller hands over a batch of records
// as a count and a function that scores record i (writing its verdict, or its error,
// where the caller keeps them, so results stay in input order and each record keeps its
// own error); the pool's threads call it for every index. A caller may score records of
// its own batch on its own thread too (Wait, Help), which is how a pool of no threads
// works: everything on the caller's thread. Records waiting in the pool may be bounded
// (back-pressure: Submit waits for room), a batch may be dropped (Cancel), and the
// pool's end drops what no thread has started.
#ifndef STRUCTTEST_SCORING_POOL_H_
#define STRUCTTEST_SCORING_POOL_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "structtest/status.h"

namespace structtest {

struct ScoringPoolOptions {
  // Threads the pool starts and keeps; 0: none, and callers score their batches on
  // their own threads in Wait.
  int threads = 0;
  // Records submitted and not yet scored or dropped, over every batch; Submit waits for
  // room. 0: no bound.
  size_t max_in_flight = 0;
};

// Thread-safety: every method may be called from any number of threads at once.
class ScoringPool {
 public:
  using Clock = std::chrono::steady_clock;
  // Scores record `index` of its batch. Called from the pool's threads (and callers'
  // in Wait and Help), for different indices at once; each index once at most.
  // REQUIRES: it does not throw (a record that cannot be scored is data: the function
  // keeps its error).
  using ScoreFn = std::function<void(size_t index)>;

  class Batch;

  explicit ScoringPool(ScoringPoolOptions options);
  // Records no thread has started are dropped; waits for those being scored. REQUIRES:
  // nobody is waiting in Submit or Wait.
  ~ScoringPool();
  ScoringPool(const ScoringPool&) = delete;
  ScoringPool& operator=(const ScoringPool&) = delete;

  // Queues records 0..n-1, scored by `score`. Errors: InvalidArgument when n alone is more
  // than max_in_flight; Unavailable when `deadline` passed before there was room for n
  // ("K records in flight, no room for N more").
  StatusOr<Batch> Submit(size_t n, ScoreFn score,
                         Clock::time_point deadline = Clock::time_point::max());

  // Scores, on this thread, the records of `batch` that no thread has taken (not when
  // `help` is false), then waits until every record is scored or dropped. False when
  // `deadline` passed first.
  bool Wait(const Batch& batch, Clock::time_point deadline = Clock::time_point::max(),
            bool help = true);
  // Scores, on this thread, the records of `batch` that no thread has taken, and returns
  // without waiting for those being scored elsewhere.
  void Help(const Batch& batch);
  // Drops the records of `batch` that no thread has taken; those being scored finish.
  void Cancel(const Batch& batch);

  int threads() const;
  // Records submitted and not yet scored or dropped, over every batch.
  size_t in_flight() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One Submit's records, as the pool tracks them. Copies refer to the same batch.
class ScoringPool::Batch {
 public:
  size_t size() const;
  // Records scored or dropped so far.
  size_t finished() const;
  bool done() const { return finished() == size(); }

 private:
  friend class ScoringPool;
  struct State;
  explicit Batch(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace structtest

#endif  // STRUCTTEST_SCORING_POOL_H_
