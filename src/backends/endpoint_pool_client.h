// EndpointPoolClient: a ModelClient wrapper that spreads requests over several
// endpoints serving one model (replicas), through one inner client that takes an
// endpoint index per request (ModelRequest::endpoint; the curl transport serves every
// endpoint from its one event loop). A request goes to the available endpoint with the
// fewest requests in flight, each endpoint holding at most `per_endpoint` at once. An
// endpoint that fails `failures_to_cool` times in a row (retryable transport errors,
// 5xx, timeouts; a 429 is the server's pacing, not a failure) is set aside for a
// cool-down that doubles each time (1 s, 2 s, 4 s, ... capped), then gets one probe
// request: a success brings it back, a failure sends it back for the next, longer
// cool-down. While every endpoint cools down, started requests wait here (they count
// as in flight) and go out when one comes back; none is failed for it.
// Stack it under the retry wrapper, so a retried request may go to another endpoint:
// Retry -> (Adaptive) -> EndpointPool -> transport.
#ifndef STRUCTTEST_BACKENDS_ENDPOINT_POOL_CLIENT_H_
#define STRUCTTEST_BACKENDS_ENDPOINT_POOL_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/model_client.h"

namespace structtest {

struct EndpointPoolPolicy {
  size_t per_endpoint = 8;  // requests in flight per endpoint
  int failures_to_cool = 3;
  std::chrono::milliseconds initial_cooldown{1'000};
  std::chrono::milliseconds max_cooldown{60'000};
  ClientClock* clock = SteadyClientClock();  // cool-downs are times of this clock
};

struct EndpointStats {
  int64_t requests = 0;  // finished, answers and errors
  int64_t errors = 0;
  int64_t cooldowns = 0;  // times set aside
  std::chrono::milliseconds last_cooldown{0};  // how long the last one lasted
  std::chrono::milliseconds p50{0};  // latency, nearest rank; 0 before any request
  std::chrono::milliseconds p95{0};
};

// Whether `r` counts against its endpoint's health.
bool IsEndpointFailure(const ModelResult& r);

class EndpointPoolClient : public ModelClient {
 public:
  // REQUIRES: endpoints >= 1, policy.per_endpoint >= 1, and `inner` accepts endpoint
  // indices 0..endpoints-1 with room for endpoints * per_endpoint requests.
  EndpointPoolClient(std::unique_ptr<ModelClient> inner, size_t endpoints,
                     EndpointPoolPolicy policy);

  // Room on an available endpoint, or (all cooling down) room in the waiting queue.
  bool CanStartMore() const override;
  // Sends the request to the best endpoint, or queues it while none is available.
  Status Start(ModelRequest request) override;
  size_t WaitForAny(std::vector<ModelResult>* done, std::chrono::milliseconds timeout) override;
  size_t InFlight() const override { return queue_.size() + inner_->InFlight(); }

  size_t endpoints() const { return eps_.size(); }
  EndpointStats Stats(size_t endpoint) const;
  // Whether `endpoint` is set aside now.
  bool CoolingDown(size_t endpoint) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Endpoint {
    size_t in_flight = 0;
    int consecutive_failures = 0;
    int level = 0;  // cool-downs since the last success: the next lasts initial * 2^level
    bool probing = false;  // back from a cool-down: one request until it answers
    Clock::time_point cool_until{};
    int64_t requests = 0;
    int64_t errors = 0;
    int64_t cooldowns = 0;
    std::chrono::milliseconds last_cooldown{0};
    // Latency (ms) -> answers that took it: exact percentiles in memory bounded by the
    // distinct values, not by the run's length.
    std::map<int64_t, int64_t> latency_counts;
  };

  // The available endpoint with room and the fewest in flight, or -1.
  int Pick(Clock::time_point now) const;
  size_t Room(const Endpoint& e, Clock::time_point now) const;
  // Sends queued requests while an endpoint has room; a refused start finishes the
  // request as a fatal error in `done`.
  void Dispatch(std::vector<ModelResult>* done, size_t* appended);
  void Record(const ModelResult& r, Clock::time_point now);

  std::unique_ptr<ModelClient> inner_;
  EndpointPoolPolicy policy_;
  std::vector<Endpoint> eps_;
  std::deque<ModelRequest> queue_;  // started, waiting for an endpoint
};

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_ENDPOINT_POOL_CLIENT_H_
