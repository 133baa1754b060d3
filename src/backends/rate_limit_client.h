// RateLimitedModelClient: a ModelClient wrapper that starts requests no faster than a
// given rate, for providers that count requests per minute. Started requests wait in a
// queue of the wrapper (they count as in flight) and go to the inner client one every
// 1/rate seconds, in the order they were started, so no burst ever exceeds the rate.
// Put it under the retry wrapper so that retries are paced too:
// RetryingModelClient(RateLimitedModelClient(transport)).
#ifndef STRUCTTEST_BACKENDS_RATE_LIMIT_CLIENT_H_
#define STRUCTTEST_BACKENDS_RATE_LIMIT_CLIENT_H_

#include <chrono>
#include <deque>
#include <memory>

#include "backends/model_client.h"

namespace structtest {

class RateLimitedModelClient : public ModelClient {
 public:
  // REQUIRES: requests_per_second > 0; parallelism >= 1 (requests queued here plus
  // those in the inner client).
  RateLimitedModelClient(std::unique_ptr<ModelClient> inner, double requests_per_second,
                         size_t parallelism);

  bool CanStartMore() const override { return InFlight() < parallelism_; }
  // Queues the request; an id already in flight is refused here. A request the inner
  // client refuses later comes back from WaitForAny as a fatal error result.
  Status Start(ModelRequest request) override;
  // Also sleeps until the next request is due when nothing else can finish first.
  size_t WaitForAny(std::vector<ModelResult>* done, std::chrono::milliseconds timeout) override;
  size_t InFlight() const override { return queue_.size() + inner_->InFlight(); }

 private:
  using Clock = std::chrono::steady_clock;
  // Hands the due queued requests to the inner client.
  void StartDue(std::vector<ModelResult>* done, size_t* appended);

  std::unique_ptr<ModelClient> inner_;
  Clock::duration interval_;
  size_t parallelism_;
  std::deque<ModelRequest> queue_;
  Clock::time_point next_start_{};  // the earliest time the next request may start
};

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_RATE_LIMIT_CLIENT_H_
