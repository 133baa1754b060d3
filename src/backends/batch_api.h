// Batch inference through the providers' batch APIs, at half the online price: how a
// request becomes an entry of a batch (the same body the online client sends, every
// request control included), how entries are split within a provider's limits, and
// the calls that submit a batch, look one up by the name it was given, poll it, fetch
// its results and cancel it:
//   openai:    POST {base}/files (purpose "batch", a JSONL file), POST {base}/batches,
//              GET {base}/batches/ID, GET {base}/files/ID/content, POST .../cancel
//   anthropic: POST {base}/v1/messages/batches, GET .../ID, GET its results_url (JSONL),
//              POST .../ID/cancel
//   gemini:    the requests as a JSONL file through the Files API's resumable upload
//              (POST {base}/upload/v1beta/files, then its x-goog-upload-url), POST
//              {base}/v1beta/models/NAME:batchGenerateContent naming the file, GET
//              {base}/v1beta/batches/ID, GET {base}/download/v1beta/FILE:download?alt=media
//              (its responses file), POST ...:cancel
// A result is taken only for the request it names (OpenAI's and Anthropic's custom_id,
// Gemini's key): never by its position, which no provider keeps (Anthropic's SDK says
// results are "not guaranteed to be in the same order as requests"; Gemini's batches
// were seen to return inline responses out of order and without their keys,
// googleapis/python-genai#1909 and #2008).
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
  std::vector<std::string> headers;  // "Name: value", of the final response
  std::string body;
};
// The value of `answer`'s header `name` (any case), or "" when it has none.
std::string HeaderValue(const HttpAnswer& answer, std::string_view name);

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
// 256 MB a create call; Gemini: 2 GB an input file.
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
//   gemini:    a line of the input file: {"key": custom_id, "request": body}
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
  // operation (naming its responses file, or holding an older batch's inline responses).
  std::string output_file, error_file, results_url;
  std::string operation;
};

// What a batch said of one of its requests.
struct BatchItemResult {
  std::string custom_id;
  ModelResult result;  // an answer, or the request's error (retryable when expired)
};

// What a batch said of its requests. A response that names no request (a Gemini
// response without its key) is counted, never guessed at: its request is asked again.
struct BatchResults {
  std::vector<BatchItemResult> items;
  int64_t unkeyed = 0;
};

// A line of an OpenAI batch output or error file, which vLLM's run-batch writes too:
// {"id", "custom_id", "response": {"status_code", "body"}, "error"}. Every error shape
// keeps its words: OpenAI's {"code", "message"} (an expired or cancelled request:
// retryable) and its HTTP errors in the response body; vLLM's error as a string (an
// exception, with status_code 400) or as an ErrorResponse ({"error": {"message",
// "type", "code"}}, or the older flat {"object": "error", "message", "type", "code"}),
// whose response has the status but no body. An error with an HTTP status is retryable
// as online (408, 429, 5xx). Messages start with `source` ("openai batch", or
// "offline batch" for a local engine's file). Errors: a line that is not such an
// object (the message says what is missing).
StatusOr<BatchItemResult> ParseOpenAiBatchLine(std::string_view line,
                                               std::string_view source = "openai batch");
// A line of an Anthropic batch's results: {"custom_id", "result": {"type", ...}}.
StatusOr<BatchItemResult> ParseAnthropicBatchLine(std::string_view line);
// The inline responses of a Gemini batch operation, found under the operation's
// `response` or its `metadata.output` (where the SDK reads them), each mapped by the key
// in its metadata; one without a key is counted in `unkeyed`. No responses: none.
// Errors: the operation is not JSON, a response is neither an answer nor an error.
StatusOr<BatchResults> ParseGeminiBatchOutput(std::string_view operation);
// The name of a Gemini batch operation's responses file ("files/..."), under
// `response.responsesFile` or `metadata.output.responsesFile`; "" when it has none.
std::string GeminiResponsesFile(std::string_view operation);
// A Gemini responses file: JSONL of {"key", "response"} or {"key", "error"}. Errors: a
// line that is neither (names the line).
StatusOr<BatchResults> ParseGeminiResponsesFile(std::string_view text);
// A Gemini request's `error`, a google.rpc.Status {"code", "message"} (`code` 0 when it
// had none) whose code is a google.rpc.Code (googleapis/google/rpc/code.proto, the
// `JobError` of google-genai's types.py), as a result: INVALID_ARGUMENT,
// FAILED_PRECONDITION, OUT_OF_RANGE, PERMISSION_DENIED, UNAUTHENTICATED, NOT_FOUND,
// ALREADY_EXISTS and UNIMPLEMENTED are the request's own fault (kFatal, not asked
// again); RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL, ABORTED,
// UNKNOWN, CANCELLED and DATA_LOSS (and a code this build does not know) are kRetryable.
// http_status is the code's HTTP mapping. A code of 100 to 599 is taken as an HTTP status.
ModelResult GeminiItemError(int64_t code, std::string_view message);

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
  // The results of an ended batch, each naming its request.
  StatusOr<BatchResults> Results(const BatchStatus& status);
  Status Cancel(std::string_view id);

 private:
  // Sends a call and returns the body of a 2xx answer. Errors: kUnavailable as Submit
  // says; other statuses kInvalidArgument with the provider's message.
  StatusOr<std::string> Call(std::string_view what, std::string method, std::string url,
                             std::string body, std::vector<std::string> extra_headers = {});
  // Call's, with the whole answer.
  StatusOr<HttpAnswer> CallForAnswer(std::string_view what, std::string method, std::string url,
                                     std::string body, std::vector<std::string> extra_headers);
  // Gemini: uploads `jsonl` through the Files API; returns its name ("files/...").
  StatusOr<std::string> UploadGeminiFile(std::string_view key, std::string jsonl);
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
