// Batch inference through the providers' batch APIs, at half the online price: how a
// request becomes an entry of a batch (the same body the online client sends, every
// request control included), how entries are split within a provider's limits, and
// the calls that submit a batch, look one up by the name it was given, poll it, fetch
// its results and cancel it:
//   openai:    POST {base}/files (purpose "batch", a JSONL file), POST {base}/batches,
//              GET {base}/batches/ID, GET {base}/files/ID/content, POST .../cancel
//   anthropic: POST {base}/v1/messages/batches, GET .../ID, GET its results_url (JSONL),
//              POST .../ID/cancel
//   gemini:    POST {base}/v1beta/models/NAME:batchGenerateContent (inline requests),
//              GET {base}/v1beta/batches/ID (the responses come inline), POST ...:cancel
// The calls go through an HttpTransport (backends/http/ has libcurl's), so that all of
// this is tested against a loopback server. The runner's side (what to submit, when to
// poll, where results go) is runner/batch_runner.h.
#ifndef STRUCTTEST_BACKENDS_BATCH_API_H_
#define STRUCTTEST_BACKENDS_BATCH_API_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/model_client.h"
#include "backends/request_controls.h"
#include "structtest/status.h"

namespace structtest {

// One blocking HTTP exchange.
struct HttpExchange {
  std::string method = "GET";  // GET or POST
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; may carry the key: never log them
  std::string body;
};
struct HttpAnswer {
  int status = 0;
  std::string body;
};

// The seam between the batch APIs and the network. Thread-safety: one thread.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Errors: no complete HTTP answer came (a connect failure, timeout, reset, a body
  // cut short): kUnavailable, with a message that holds no key.
  virtual StatusOr<HttpAnswer> Send(const HttpExchange& exchange) = 0;
};

// How much one batch may hold. 0: no limit of that kind.
struct BatchLimits {
  int64_t max_requests = 0;
  int64_t max_bytes = 0;  // of the batch's input: the file, or the create call's body
};
// OpenAI: 50,000 requests and 200 MB an input file; Anthropic: 100,000 requests and
// 256 MB a create call; Gemini: 20 MB a create call of inline requests.
BatchLimits BatchLimitsOf(Provider provider);

// The custom id of the request for sample `index`'s `repeat` (run --repeats) whose body
// is `body`: "s{index}-{16 hex digits of body's FNV-1a}" for repeat 0 (the id a run
// without repeats gives), "s{index}r{repeat}-{...}" for the others, whose bodies are
// the same. It names the sample, the repeat and the exact request, so that an answer
// is taken only for the request the run asks (a run whose settings changed asks another
// one). Fits every provider's custom id rules (at most 64 characters of [A-Za-z0-9_-]).
std::string BatchCustomId(int64_t index, std::string_view body, int64_t repeat = 0);
// The sample index and repeat a custom id names, or nullopt when it is not one of
// BatchCustomId's.
struct CustomIdParts {
  int64_t index = 0;
  int64_t repeat = 0;
};
std::optional<CustomIdParts> ParseCustomId(std::string_view custom_id);
// ParseCustomId's index alone.
std::optional<int64_t> CustomIdIndex(std::string_view custom_id);

// One request as an entry of a provider's batch input, and its custom id.
//   openai:    a line of the input file: {"custom_id", "method": "POST",
//              "url": "/v1/chat/completions", "body"}
//   anthropic: {"custom_id", "params": body}
//   gemini:    {"request": body, "metadata": {"key": custom_id}}
struct BatchEntry {
  std::string custom_id;
  std::string json;
};
// Errors: BuildHttpRequest's (a request the provider cannot express).
StatusOr<BatchEntry> MakeBatchEntry(Provider provider, int64_t index, const ModelRequest& request,
                                    int64_t repeat = 0);

// Splits entries of `sizes` bytes, in order, into batches within `limits`: returns the
// number of entries of each batch. An entry larger than a batch may be alone in one.
std::vector<size_t> SplitIntoBatches(const std::vector<size_t>& sizes, const BatchLimits& limits);

// Where a batch is.
enum class BatchPhase {
  kRunning,  // validating, queued, in progress, finalizing, cancelling
  kEnded,    // done (completed, expired or cancelled): its results are there to fetch
  kFailed,   // ended without results (refused as a whole): every request is asked again
};

struct BatchStatus {
  std::string id;
  std::string state;  // the provider's word: "in_progress", "ended", "BATCH_STATE_RUNNING"...
  BatchPhase phase = BatchPhase::kRunning;
  int64_t total = 0;
  int64_t done = 0;    // answered
  int64_t failed = 0;  // failed, expired or cancelled
  std::string detail;  // why it failed, for a person
  // Where its results are: openai's files, anthropic's results_url, gemini's whole
  // operation (its responses come inline).
  std::string output_file, error_file, results_url;
  std::string operation;
};

// What a batch said of one of its requests.
struct BatchItemResult {
  std::string custom_id;
  ModelResult result;  // an answer, or the request's error (retryable when expired)
};

// A line of an OpenAI batch output or error file, which vLLM's run-batch writes too:
// {"id", "custom_id", "response": {"status_code", "body"}, "error"}. Errors: a line that
// is not such an object (the message says what is missing).
StatusOr<BatchItemResult> ParseOpenAiBatchLine(std::string_view line);
// A line of an Anthropic batch's results: {"custom_id", "result": {"type", ...}}.
StatusOr<BatchItemResult> ParseAnthropicBatchLine(std::string_view line);
// The responses of a Gemini batch operation (its inline responses), each mapped to the
// custom id in its metadata or, without one, to `custom_ids` in input order.
StatusOr<std::vector<BatchItemResult>> ParseGeminiBatchOutput(
    std::string_view operation, const std::vector<std::string>& custom_ids);

// One provider's batch API. Thread-safety: one thread.
class BatchApi {
 public:
  // `base_url` empty: DefaultBaseUrl(provider). `headers` are sent with every call
  // (--header). `transport` must outlive the BatchApi.
  BatchApi(Provider provider, std::string base_url, std::string api_key,
           std::vector<HttpHeader> headers, HttpTransport* transport);

  Provider provider() const { return provider_; }

  // Submits `entries` (MakeBatchEntry's json) for `model` as one batch named `key`
  // (openai: metadata structtest_key; gemini: its display name). Returns the
  // provider's id for it. Errors: kUnavailable when the outcome is not known (no
  // answer, 408, 429, 5xx: the provider may have accepted it; FindByKey tells), any
  // other code when the provider refused it.
  StatusOr<std::string> Submit(std::string_view key, std::string_view model,
                               const std::vector<std::string>& entries);
  // The id of the batch named `key` (of `requests` requests, created at or after
  // `since_ms`, ms since the epoch) when the provider has one. Anthropic's batches
  // carry no name: there, the one batch of `requests` requests created since then
  // whose id is not in `known`, when exactly one is.
  StatusOr<std::optional<std::string>> FindByKey(std::string_view key, int64_t requests,
                                                 int64_t since_ms,
                                                 const std::vector<std::string>& known);
  StatusOr<BatchStatus> Get(std::string_view id);
  // The results of an ended batch. `custom_ids`: its entries' ids in input order.
  StatusOr<std::vector<BatchItemResult>> Results(const BatchStatus& status,
                                                 const std::vector<std::string>& custom_ids);
  Status Cancel(std::string_view id);

 private:
  // Sends a call and returns the body of a 2xx answer. Errors: kUnavailable as Submit
  // says; other statuses kInvalidArgument with the provider's message.
  StatusOr<std::string> Call(std::string_view what, std::string method, std::string url,
                             std::string body, std::vector<std::string> extra_headers = {});
  std::vector<std::string> Headers() const;
  std::string Url(std::string_view path) const;

  Provider provider_;
  std::string base_url_;
  std::string api_key_;
  std::vector<HttpHeader> headers_;
  HttpTransport* transport_;
};

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_BATCH_API_H_
