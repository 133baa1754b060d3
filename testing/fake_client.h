// FakeModelClient: a ModelClient that answers from a script, with scripted latencies,
// in process. The test seam for everything built on ModelClient (the retry wrapper,
// the runner), like ninja's FakeCommandRunner.
#ifndef STRUCTTEST_TESTING_FAKE_CLIENT_H_
#define STRUCTTEST_TESTING_FAKE_CLIENT_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "backends/model_client.h"

namespace structtest {

struct FakeReply {
  ModelResult result;  // its id is overwritten with the request's
  std::chrono::milliseconds latency{0};
};

// Called at Start() with the request and how many times a request with this id was
// started before (0 on the first attempt).
using FakeScript = std::function<FakeReply(const ModelRequest& request, int previous_starts)>;

// A clock that stands still until a wait moves it: SleepUntil(t) jumps to t. Time in a
// test that uses it is the scripted latencies and timeouts alone.
class ManualClientClock : public ClientClock {
 public:
  time_point Now() const override { return now_; }
  void SleepUntil(time_point t) override { now_ = std::max(now_, t); }

 private:
  time_point now_{std::chrono::hours(1)};
};

class FakeModelClient : public ModelClient {
 public:
  // REQUIRES: parallelism >= 1. Replies are due their latency after Start() by `clock`.
  FakeModelClient(size_t parallelism, FakeScript script,
                  ClientClock* clock = SteadyClientClock());

  bool CanStartMore() const override;
  Status Start(ModelRequest request) override;
  size_t WaitForAny(std::vector<ModelResult>* done, std::chrono::milliseconds timeout) override;
  size_t InFlight() const override { return in_flight_.size(); }

  // Every request started, in order (retries included).
  const std::vector<ModelRequest>& started() const { return started_; }
  // The most requests that were ever in flight at once.
  size_t max_in_flight_seen() const { return max_in_flight_seen_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    Clock::time_point due;
    uint64_t seq;  // start order, to break ties
    ModelResult result;
  };

  size_t parallelism_;
  FakeScript script_;
  ClientClock* clock_;
  std::map<uint64_t, Pending> in_flight_;  // by request id
  std::map<uint64_t, int> starts_;         // request id -> times started
  std::vector<ModelRequest> started_;
  uint64_t next_seq_ = 0;
  size_t max_in_flight_seen_ = 0;
};

// For tests: request `id` of model "m" with one user message "q<id>"; requests 0..n-1.
ModelRequest FakeRequest(uint64_t id);
std::vector<ModelRequest> FakeRequests(int n);

// For tests: runs `requests` through `client` the way the runner does (start while it
// has room, wait for any) until every one came back, and returns the results in the
// order they came. A Start() error stops it and is returned.
StatusOr<std::vector<ModelResult>> DrainClient(ModelClient* client,
                                               const std::vector<ModelRequest>& requests);

}  // namespace structtest

#endif  // STRUCTTEST_TESTING_FAKE_CLIENT_H_
