// AdaptiveConcurrencyClient: `-j auto`. A ModelClient wrapper that holds the requests
// in flight to a limit it finds itself, AIMD-style (like TCP's congestion window): it
// starts low, adds one after every window of `limit` answers whose median latency
// stays within `latency_slack` of the best window seen, and halves the limit on a 429
// or a timeout, at most once per window (a burst of 429s from the requests already
// out halves it once). Put it below the retry wrapper, so it sees the raw 429s:
// Retry -> Adaptive -> (EndpointPool) -> transport.
#ifndef STRUCTTEST_BACKENDS_ADAPTIVE_CLIENT_H_
#define STRUCTTEST_BACKENDS_ADAPTIVE_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "backends/model_client.h"

namespace structtest {

struct AdaptivePolicy {
  size_t initial = 4;
  size_t min = 1;
  size_t max = 256;
  double latency_slack = 1.5;
  // ... or within this much of it: at latencies of a few milliseconds (a server on the
  // same machine) the jitter alone is more than the slack.
  std::chrono::milliseconds latency_floor{5};
};

// Whether `r` tells the client to send less: a 429 or a transport timeout.
bool IsOverloadSignal(const ModelResult& r);

class AdaptiveConcurrencyClient : public ModelClient {
 public:
  // REQUIRES: 1 <= policy.min <= policy.initial <= policy.max.
  AdaptiveConcurrencyClient(std::unique_ptr<ModelClient> inner, AdaptivePolicy policy);

  bool CanStartMore() const override {
    return inner_->InFlight() < limit_ && inner_->CanStartMore();
  }
  Status Start(ModelRequest request) override;
  size_t WaitForAny(std::vector<ModelResult>* done, std::chrono::milliseconds timeout) override;
  size_t InFlight() const override { return inner_->InFlight(); }

  size_t limit() const { return limit_; }
  size_t lowest_limit() const { return lowest_; }
  size_t highest_limit() const { return highest_; }
  int64_t decreases() const { return decreases_; }
  // The limit averaged over the time since construction (each value weighted by how
  // long it held).
  double TimeWeightedLimit() const;

 private:
  using Clock = std::chrono::steady_clock;
  void SetLimit(size_t limit, Clock::time_point now);
  void Observe(const ModelResult& r, uint64_t seq, Clock::time_point now);

  std::unique_ptr<ModelClient> inner_;
  AdaptivePolicy policy_;
  size_t limit_;
  size_t lowest_;
  size_t highest_;
  int64_t decreases_ = 0;
  uint64_t next_seq_ = 0;           // start order of the requests
  uint64_t decreased_at_seq_ = 0;   // requests started before the last halving cannot halve again
  std::map<uint64_t, uint64_t> seq_of_;  // request id -> its start seq
  std::vector<int64_t> window_ms_;   // latencies of the answers since the last change
  int64_t best_p50_ms_ = -1;
  Clock::time_point since_ = Clock::now();    // when limit_ took its value
  Clock::time_point created_ = since_;
  double limit_seconds_ = 0;  // sum of limit * seconds of the values before limit_
};

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_ADAPTIVE_CLIENT_H_
