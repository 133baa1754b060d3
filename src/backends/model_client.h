// ModelClient: how structtest asks a model for answers. It has the shape of ninja's
// CommandRunner: the caller asks whether another request may start, starts requests,
// and waits for any of them to finish. One implementation drives libcurl's multi
// interface in a single event loop (backends/http/curl_client.h); retries, rate limits
// and fault injection are wrappers around any ModelClient (backends/retry_client.h);
// FakeModelClient (testing/fake_client.h) is the test seam. A failed request is data:
// it comes back as a ModelResult with an error kind, never as answer text.
#ifndef STRUCTTEST_BACKENDS_MODEL_CLIENT_H_
#define STRUCTTEST_BACKENDS_MODEL_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/request_controls.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// One request to a model. `id` is chosen by the caller and comes back in the result;
// it must be unique among the requests in flight on one client.
struct ModelRequest {
  uint64_t id = 0;
  std::string model;  // the provider's model name, without the "openai/" prefix
  std::vector<Message> messages;
  int max_tokens = 0;                 // 0: provider default (Anthropic needs one: 4096)
  std::optional<double> temperature;  // unset: provider default
  // Everything else the request asks for (top_p, stop, ...; request_controls.h).
  RequestControls controls;
  // Which of the client's endpoints (replicas of one model) serves it: an index into
  // the transport's base URLs (HttpClientOptions::base_urls). Chosen by
  // EndpointPoolClient; 0 with one endpoint.
  size_t endpoint = 0;
};

enum class ErrorKind {
  kNone = 0,
  // Worth another try: HTTP 408, 429, 5xx; connect failure, timeout, reset, truncated;
  // a 2xx whose body is not a well-formed reply of the provider's API.
  kRetryable,
  // Trying again will not help: other 4xx, a bad request.
  kFatal,
};
std::string_view ErrorKindName(ErrorKind kind);  // "none", "retryable", "fatal"

enum class FinishReason {
  kUnknown = 0,  // the provider did not say (or the request failed)
  kStop,         // the model ended its answer
  kLength,       // cut off by the token limit: the answer may be incomplete
  kOther,        // content filter, safety block, tool call, ...
};
std::string_view FinishReasonName(FinishReason reason);  // "unknown", "stop", ...

struct TokenUsage {
  int64_t input = 0;
  int64_t output = 0;     // includes reasoning tokens where the provider counts them
  int64_t reasoning = 0;  // 0 when the provider does not report it
};

struct ModelResult {
  uint64_t id = 0;
  // The final answer (scored) and the separated reasoning (never scored). Both empty
  // when error != kNone.
  Response response;
  FinishReason finish = FinishReason::kUnknown;
  std::string finish_raw;  // the provider's own word: "stop", "max_tokens", "MAX_TOKENS"
  // The model the reply says answered ("model"; Gemini's "modelVersion"): often a dated
  // version of the name asked for. "" when the reply names none.
  std::string served_model;
  TokenUsage usage;
  std::chrono::milliseconds latency{0};  // of the last attempt
  int http_status = 0;                   // 0 when no HTTP response arrived
  ErrorKind error = ErrorKind::kNone;
  // For a person: "openai: HTTP 429: rate limited". Never contains an API key.
  std::string error_message;
  // The server's Retry-After, when it sent one.
  std::optional<std::chrono::milliseconds> retry_after;
  int attempts = 1;  // set by the retry wrapper
  size_t endpoint = 0;   // the request's endpoint index, echoed back by the transport
  bool timed_out = false;  // a transport timeout (connect, idle or total): kRetryable

  bool ok() const { return error == ErrorKind::kNone; }
  bool truncated() const { return finish == FinishReason::kLength; }
};

// Thread-safety: a ModelClient is used from one thread.
class ModelClient {
 public:
  virtual ~ModelClient() = default;

  // Whether Start() may be called now (fewer requests in flight than the client's
  // parallelism).
  virtual bool CanStartMore() const = 0;

  // Starts `request`. An error here means the request was not started (an id already
  // in flight, a request the provider cannot express); everything that goes wrong
  // later comes back from WaitForAny as an error result.
  // REQUIRES: CanStartMore().
  virtual Status Start(ModelRequest request) = 0;

  // Blocks until at least one started request has finished or `timeout` has passed,
  // then appends every finished result to `*done` and returns how many it appended.
  // Each started request comes back exactly once. Returns 0 at once when nothing is
  // in flight.
  virtual size_t WaitForAny(std::vector<ModelResult>* done,
                            std::chrono::milliseconds timeout) = 0;

  // Requests started and not yet returned by WaitForAny.
  virtual size_t InFlight() const = 0;
};

// "openai/gpt-4o" -> {kOpenAi, "gpt-4o"}. The name is everything after the first
// '/', so "openai/meta-llama/Llama-3-8B" keeps its slash.
enum class Provider { kOpenAi, kAnthropic, kGemini };
struct ModelSpec {
  Provider provider = Provider::kOpenAi;
  std::string name;
};
StatusOr<ModelSpec> ParseModelSpec(std::string_view spec);
std::string_view ProviderName(Provider provider);  // "openai", "anthropic", "gemini"
// The environment variable holding the provider's key: OPENAI_API_KEY, ...
std::string_view ApiKeyEnvVar(Provider provider);
// The endpoint used when no --base-url is given.
std::string_view DefaultBaseUrl(Provider provider);

// Returns `text` with every run of 8 or more characters that also occurs in `secret`
// (and `secret` itself, however short) replaced by "[redacted]", so that error bodies
// echoing a key, or part of one, never reach a log. No-op when `secret` is empty.
std::string RedactSecret(std::string_view text, std::string_view secret);

// Where a client reads the time: the steady clock, or in tests a clock that moves only
// when a wait asks it to (ManualClientClock, testing/fake_client.h), so that scripted latencies
// and cool-downs are exact however loaded the machine is.
class ClientClock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~ClientClock() = default;
  virtual time_point Now() const = 0;
  virtual void SleepUntil(time_point t) = 0;
};
// The steady clock; lives for the whole program.
ClientClock* SteadyClientClock();

// For wrappers that hold requests back until a time of their own (a backoff, a rate, a
// cool-down): waits for results of `inner` until `wake` (a time of `clock`), appending
// them to `*done`, or sleeps until `wake` when `inner` has nothing in flight. Returns
// how many it appended.
size_t WaitInnerUntil(ModelClient& inner, std::chrono::steady_clock::time_point wake,
                      std::vector<ModelResult>* done, ClientClock* clock = SteadyClientClock());

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_MODEL_CLIENT_H_
