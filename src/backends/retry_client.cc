#include "backends/retry_client.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest {

using std::chrono::milliseconds;

milliseconds BackoffDelay(const RetryPolicy& policy, int retry,
                          std::optional<milliseconds> retry_after, Rng* rng) {
  const double cap = static_cast<double>(policy.max_backoff.count());
  double d = static_cast<double>(policy.initial_backoff.count()) *
             std::pow(policy.multiplier, std::max(0, retry - 1));
  d = std::min(d, cap);
  const int64_t hi = static_cast<int64_t>(d);
  const int64_t lo = hi / 2;
  milliseconds delay(rng->UniformInt(lo, hi));
  if (retry_after) delay = std::max(delay, std::min(*retry_after, policy.max_retry_after));
  return delay;
}

RetryingModelClient::RetryingModelClient(std::unique_ptr<ModelClient> inner, RetryPolicy policy)
    : inner_(std::move(inner)), policy_(policy), rng_(policy.seed) {}

bool RetryingModelClient::CanStartMore() const {
  if (!inner_->CanStartMore()) return false;
  return waiting_.empty() || waiting_.begin()->first > Clock::now();
}

Status RetryingModelClient::Start(ModelRequest request) {
  if (entries_.count(request.id)) {
    return Status::InvalidArgument(fmt::format("request {} is already in flight", request.id));
  }
  const uint64_t id = request.id;
  RETURN_IF_ERROR(inner_->Start(request));
  entries_[id] = Entry{std::move(request), 1};
  return Status::Ok();
}

void RetryingModelClient::StartDue(std::vector<ModelResult>* done, size_t* appended) {
  const Clock::time_point now = Clock::now();
  while (!waiting_.empty() && waiting_.begin()->first <= now && inner_->CanStartMore()) {
    const uint64_t id = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    Entry& e = entries_.at(id);
    const Status st = inner_->Start(e.request);
    if (!st.ok()) {
      ModelResult r;
      r.id = id;
      r.error = ErrorKind::kFatal;
      r.error_message = st.message();
      r.attempts = e.attempts;
      done->push_back(std::move(r));
      ++*appended;
      entries_.erase(id);
      continue;
    }
    ++e.attempts;
    ++retries_;
  }
}

size_t RetryingModelClient::WaitForAny(std::vector<ModelResult>* done, milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  size_t appended = 0;
  std::vector<ModelResult> batch;
  for (;;) {
    StartDue(done, &appended);
    if (appended > 0 || entries_.empty()) return appended;
    Clock::time_point now = Clock::now();
    Clock::time_point wake = deadline;
    // A due retry waits for a slot, which only the inner client can free.
    if (!waiting_.empty() && waiting_.begin()->first > now) {
      wake = std::min(wake, waiting_.begin()->first);
    }
    batch.clear();
    WaitInnerUntil(*inner_, wake, &batch);
    now = Clock::now();
    for (ModelResult& r : batch) {
      auto it = entries_.find(r.id);
      if (it == entries_.end()) continue;  // not ours: the inner client broke its contract
      Entry& e = it->second;
      r.attempts = e.attempts;
      if (r.error == ErrorKind::kRetryable && e.attempts < policy_.max_attempts) {
        waiting_.emplace(now + BackoffDelay(policy_, e.attempts, r.retry_after, &rng_), r.id);
        continue;
      }
      if (!r.ok() && e.attempts > 1) {
        r.error_message += fmt::format(" (after {} attempts)", e.attempts);
      }
      done->push_back(std::move(r));
      ++appended;
      entries_.erase(it);
    }
    if (appended > 0) {
      StartDue(done, &appended);
      return appended;
    }
    if (Clock::now() >= deadline) return 0;
  }
}

}  // namespace structtest
