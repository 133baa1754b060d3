#include "backends/rate_limit_client.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace structtest {

RateLimitedModelClient::RateLimitedModelClient(std::unique_ptr<ModelClient> inner,
                                               double requests_per_second, size_t parallelism)
    : inner_(std::move(inner)),
      interval_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / requests_per_second))),
      parallelism_(parallelism) {
  assert(requests_per_second > 0 && parallelism >= 1);
}

Status RateLimitedModelClient::Start(ModelRequest request) {
  for (const ModelRequest& q : queue_) {
    if (q.id == request.id) {
      return Status::InvalidArgument(fmt::format("request {} is already in flight", request.id));
    }
  }
  queue_.push_back(std::move(request));
  return Status::Ok();
}

void RateLimitedModelClient::StartDue(std::vector<ModelResult>* done, size_t* appended) {
  Clock::time_point now = Clock::now();
  while (!queue_.empty() && now >= next_start_ && inner_->CanStartMore()) {
    ModelRequest request = std::move(queue_.front());
    queue_.pop_front();
    const uint64_t id = request.id;
    // Time not used while idle is not saved up for a burst.
    next_start_ = std::max(next_start_, now) + interval_;
    if (Status s = inner_->Start(std::move(request)); !s.ok()) {
      ModelResult r;
      r.id = id;
      r.error = ErrorKind::kFatal;
      r.error_message = s.message();
      done->push_back(std::move(r));
      ++*appended;
    }
  }
}

size_t RateLimitedModelClient::WaitForAny(std::vector<ModelResult>* done,
                                          std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  size_t appended = 0;
  for (;;) {
    StartDue(done, &appended);
    if (appended > 0 || InFlight() == 0) return appended;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return 0;
    Clock::time_point wake = deadline;
    if (!queue_.empty() && inner_->CanStartMore()) wake = std::min(wake, next_start_);
    appended += WaitInnerUntil(*inner_, wake, done);
  }
}

}  // namespace structtest
