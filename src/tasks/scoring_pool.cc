#include "structtest/scoring_pool.h"

#include <algorithm>
#include <deque>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/mutex.h"

namespace structtest {

// What a batch's owner waits on: how many of its records are finished.
struct ScoringPool::Batch::State {
  State(size_t n, ScoreFn fn) : size(n), score(std::move(fn)) {}

  // Counts `k` more records scored or dropped, and wakes the waiters once all are.
  void Finish(size_t k) EXCLUDES(mu) {
    MutexLock lock(&mu);
    finished += k;
    if (finished == size) done.SignalAll();
  }

  const size_t size;
  const ScoreFn score;
  Mutex mu;
  size_t finished GUARDED_BY(mu) = 0;
  CondVar done;  // finished reached size
};

size_t ScoringPool::Batch::size() const { return state_->size; }

size_t ScoringPool::Batch::finished() const {
  MutexLock lock(&state_->mu);
  return state_->finished;
}

struct ScoringPool::State {
  // A batch with records no thread has taken: the next is `next`.
  struct Pending {
    std::shared_ptr<Batch::State> batch;
    size_t next = 0;
  };

  explicit State(ScoringPoolOptions o) : options(o) {}

  // Takes the next record of the first pending batch, or of `only` when given: false
  // when there is none.
  bool Take(const Batch::State* only, std::shared_ptr<Batch::State>* batch, size_t* index)
      REQUIRES(mu) {
    auto it = queue.begin();
    if (only != nullptr) {
      it = std::find_if(queue.begin(), queue.end(),
                        [&](const Pending& p) { return p.batch.get() == only; });
    }
    if (it == queue.end()) return false;
    *batch = it->batch;
    *index = it->next++;
    if (it->next == it->batch->size) queue.erase(it);
    return true;
  }

  // Scores record `index` of `batch` on this thread and counts it finished.
  void Score(Batch::State& batch, size_t index) EXCLUDES(mu) {
    batch.score(index);
    batch.Finish(1);
    MutexLock lock(&mu);
    --in_flight;
    if (options.max_in_flight > 0) room.SignalAll();
  }

  // Drops what no thread has taken of the pending batch at `it`.
  std::deque<Pending>::iterator Drop(std::deque<Pending>::iterator it) REQUIRES(mu) {
    const size_t dropped = it->batch->size - it->next;
    it->batch->Finish(dropped);
    in_flight -= dropped;
    if (options.max_in_flight > 0) room.SignalAll();
    return queue.erase(it);
  }

  void WorkerLoop() EXCLUDES(mu) {
    for (;;) {
      std::shared_ptr<Batch::State> batch;
      size_t index = 0;
      {
        MutexLock lock(&mu);
        while (!stop && queue.empty()) work.Wait(&mu);
        if (stop) return;
        Take(nullptr, &batch, &index);
      }
      Score(*batch, index);
    }
  }

  const ScoringPoolOptions options;
  Mutex mu;
  CondVar work;  // queue grew, or stop
  CondVar room;  // in_flight fell
  std::deque<Pending> queue GUARDED_BY(mu);
  size_t in_flight GUARDED_BY(mu) = 0;  // submitted, not yet scored or dropped
  bool stop GUARDED_BY(mu) = false;
  std::vector<std::thread> threads;
};

ScoringPool::ScoringPool(ScoringPoolOptions options)
    : state_(std::make_unique<State>(options)) {
  for (int i = 0; i < options.threads; ++i) {
    state_->threads.emplace_back([s = state_.get()] { s->WorkerLoop(); });
  }
}

ScoringPool::~ScoringPool() {
  {
    MutexLock lock(&state_->mu);
    state_->stop = true;
    for (auto it = state_->queue.begin(); it != state_->queue.end();) it = state_->Drop(it);
  }
  state_->work.SignalAll();
  for (std::thread& t : state_->threads) t.join();
}

StatusOr<ScoringPool::Batch> ScoringPool::Submit(size_t n, ScoreFn score,
                                                 Clock::time_point deadline) {
  State& s = *state_;
  const size_t most = s.options.max_in_flight;
  if (most > 0 && n > most) {
    return Status::InvalidArgument(fmt::format("{} records: at most {} in flight", n, most));
  }
  auto batch = std::make_shared<Batch::State>(n, std::move(score));
  if (n == 0) return Batch(std::move(batch));
  {
    MutexLock lock(&s.mu);
    while (most > 0 && s.in_flight + n > most) {
      if (deadline == Clock::time_point::max()) {
        s.room.Wait(&s.mu);
      } else if (!s.room.WaitUntil(&s.mu, deadline) && s.in_flight + n > most) {
        return Status::Unavailable(
            fmt::format("{} records in flight, no room for {} more", s.in_flight, n));
      }
    }
    s.in_flight += n;
    s.queue.push_back(State::Pending{batch, 0});
  }
  if (n == 1) {
    s.work.Signal();
  } else {
    s.work.SignalAll();
  }
  return Batch(std::move(batch));
}

void ScoringPool::Help(const Batch& batch) {
  State& s = *state_;
  for (;;) {
    std::shared_ptr<Batch::State> taken;
    size_t index = 0;
    {
      MutexLock lock(&s.mu);
      if (!s.Take(batch.state_.get(), &taken, &index)) return;
    }
    s.Score(*taken, index);
  }
}

bool ScoringPool::Wait(const Batch& batch, Clock::time_point deadline, bool help) {
  if (help) Help(batch);
  Batch::State& b = *batch.state_;
  MutexLock lock(&b.mu);
  while (b.finished < b.size) {
    if (deadline == Clock::time_point::max()) {
      b.done.Wait(&b.mu);
    } else if (!b.done.WaitUntil(&b.mu, deadline)) {
      return b.finished == b.size;
    }
  }
  return true;
}

void ScoringPool::Cancel(const Batch& batch) {
  MutexLock lock(&state_->mu);
  auto& queue = state_->queue;
  auto it = std::find_if(queue.begin(), queue.end(), [&](const State::Pending& p) {
    return p.batch == batch.state_;
  });
  if (it != queue.end()) state_->Drop(it);
}

int ScoringPool::threads() const { return static_cast<int>(state_->threads.size()); }

size_t ScoringPool::in_flight() const {
  MutexLock lock(&state_->mu);
  return state_->in_flight;
}

}  // namespace structtest
