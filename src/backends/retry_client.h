// RetryingModelClient: a ModelClient wrapper (LevelDB EnvWrapper style) that retries
// requests failing with a retryable error (429, 5xx, connect errors, timeouts) after a
// capped exponential backoff with jitter, waiting at least as long as the server's
// Retry-After asks. A request that exhausts its attempts comes back as its last error
// result, never as answer text. Jitter comes from the project's seeded Rng, so a
// schedule can be replayed.
#ifndef STRUCTTEST_BACKENDS_RETRY_CLIENT_H_
#define STRUCTTEST_BACKENDS_RETRY_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "backends/model_client.h"
#include "core/rng.h"

namespace structtest {

struct RetryPolicy {
  int max_attempts = 6;  // first try included; 1 disables retries
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{30'000};
  double multiplier = 2.0;
  // A Retry-After longer than this is cut to it, so a hostile header cannot park a run.
  std::chrono::milliseconds max_retry_after{120'000};
  uint64_t seed = 0;  // for the jitter
};

// The wait before retry number `retry` (1 = the first retry): a uniform draw in
// [d/2, d] with d = min(max_backoff, initial_backoff * multiplier^(retry-1)), raised to
// the Retry-After (capped by max_retry_after) when the server sent one.
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry,
                                       std::optional<std::chrono::milliseconds> retry_after,
                                       Rng* rng);

class RetryingModelClient : public ModelClient {
 public:
  RetryingModelClient(std::unique_ptr<ModelClient> inner, RetryPolicy policy);

  // False also while a retry is due and waiting for a slot: retries go first.
  bool CanStartMore() const override;
  Status Start(ModelRequest request) override;
  // Results carry `attempts`; an exhausted request's error_message ends with
  // "(after N attempts)".
  size_t WaitForAny(std::vector<ModelResult>* done, std::chrono::milliseconds timeout) override;
  // Requests in the inner client plus those waiting for their next attempt.
  size_t InFlight() const override { return entries_.size(); }

  // Retries started so far (for progress reports and tests).
  uint64_t retries() const { return retries_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    ModelRequest request;
    int attempts = 0;  // started so far
  };

  // Starts the waiting requests that are due, while the inner client has room. A
  // start the inner client refuses finishes the request as a fatal error in `done`.
  void StartDue(std::vector<ModelResult>* done, size_t* appended);

  std::unique_ptr<ModelClient> inner_;
  RetryPolicy policy_;
  Rng rng_;
  std::map<uint64_t, Entry> entries_;                   // every request not yet returned
  std::multimap<Clock::time_point, uint64_t> waiting_;  // due time -> id, between attempts
  uint64_t retries_ = 0;
};

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_RETRY_CLIENT_H_
