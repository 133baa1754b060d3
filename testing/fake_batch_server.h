// FakeBatchServer: a loopback server speaking the three providers' batch APIs as their
// documentation and SDKs describe them (OpenAI: files upload with purpose "batch",
// batches create / get / list / cancel, file content; Anthropic: message batches create
// / get / list / cancel / results; Gemini: the Files API's resumable upload and
// download, batchGenerateContent with an input file or inline requests, batches get /
// list / cancel), and their online endpoints too, answering every prompt the same way
// in both, so that a batch run and an online run of the same samples compare. Its
// faults: batches that stay in progress for some polls, a batch that expires with half
// its requests done, requests that fail inside a batch (once each, as a server error or
// as the request's own fault, in each provider's words), results out of order (Gemini's
// too), Gemini responses without their keys, Gemini output under `response` or
// `metadata.output`, and a create answered 500 after the batch was accepted.
// FakeRunBatch writes what vLLM's run-batch writes for an input file, error lines included.
#ifndef STRUCTTEST_TESTING_FAKE_BATCH_SERVER_H_
#define STRUCTTEST_TESTING_FAKE_BATCH_SERVER_H_

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testing/fake_server.h"

namespace structtest::testing {

struct FakeBatchFaults {
  // Each batch answers "in progress" to this many polls before it ends.
  int polls_until_done = 0;
  // The first batch created expires: its first half is answered, the rest expired.
  bool expire_first = false;
  // Every n-th request the server sees in a batch (0: none) fails there with a server
  // error, the first time its custom id comes only.
  int fail_every = 0;
  // Every request whose prompt's std::hash is a multiple of n (0: none) fails with a
  // server error each time it is submitted: a request the provider never manages.
  int fail_prompt_every = 0;
  // Anthropic: every n-th result (0: none) comes a second time, as a failure (a result
  // the provider repeats, which names a request already answered).
  int repeat_failed_every = 0;
  // Those failures are the request's own fault instead, as each provider says it:
  // OpenAI HTTP 400 with an error body, Anthropic invalid_request_error, Gemini
  // google.rpc INVALID_ARGUMENT (3).
  bool fail_invalid = false;
  // The google.rpc.Code of a Gemini server-side failure (13: INTERNAL).
  int gemini_error_code = 13;
  // OpenAI's failed lines, when not HTTP errors with a body: vLLM's shapes with the
  // failure's status (vllm/entrypoints/openai/run_batch.py at
  // 0056ae7b2144abbc7b4916a43491c154567e0b76: response {status_code, request_id, body:
  // null}), `error` an exception's string or an ErrorResponse {"error": {"message",
  // "type", "param", "code"}} (vllm/entrypoints/openai/protocol.py at
  // 0052bed36509c7a5a2d8e48265334e40cf2f5a0e).
  enum class OpenAiErrorLine { kHttpBody, kVllmString, kVllmErrorResponse };
  OpenAiErrorLine openai_error_line = OpenAiErrorLine::kHttpBody;
  // Results come in reverse order of the requests, for every provider (Gemini's were
  // seen out of order: googleapis/python-genai#1909).
  bool reverse = false;
  // Gemini: every n-th response of a batch (0: none) comes without its key, inline or
  // in the responses file (googleapis/python-genai#2008).
  int drop_key_every = 0;
  // Gemini: where an ended batch's output is in its operation. The REST operation has
  // it in `response`; google-genai reads `metadata.output` (_BatchJob_from_mldev in
  // google/genai/batches.py at 66807187f2123c6676175ac991f4e34eb09200d1).
  enum class GeminiOutputAt { kBoth, kResponse, kMetadata };
  GeminiOutputAt gemini_output_at = GeminiOutputAt::kBoth;
  // The first n creates take the batch and answer 500.
  int create_500_after_accept = 0;
};

// The answer to a prompt (the last user message).
using FakeAnswerFn = std::function<std::string(const std::string& prompt)>;

class FakeBatchServer {
 public:
  FakeBatchServer(FakeAnswerFn answer, FakeBatchFaults faults = {});
  FakeBatchServer(const FakeBatchServer&) = delete;
  FakeBatchServer& operator=(const FakeBatchServer&) = delete;

  Status Start() { return server_.Start(); }
  void Stop() { server_.Stop(); }
  std::string base_url() const { return server_.base_url(); }

  // Called when a create is accepted, before it is answered (with no lock held): a
  // test may block in it, e.g. until it has killed the client.
  void OnCreate(std::function<void()> hook);

  // Batches accepted, over the providers.
  int batches_created() const;
  int cancels() const;
  int online_requests() const;
  // Prompt -> how many times an answer to it was sent (in a batch's results or online).
  std::map<std::string, int> answers_sent() const;
  // Prompt -> how many accepted batches held it.
  std::map<std::string, int> prompts_submitted() const;
  // The Accept headers of the results downloads (OpenAI's file content, Anthropic's
  // results), in order.
  std::vector<std::string> results_accept_headers() const;
  // Gemini batches created from an input file, and from inline requests.
  int gemini_file_batches() const;
  int gemini_inline_batches() const;

 private:
  struct Item {
    std::string custom_id;
    nlohmann::json body;  // the request's
  };
  struct Batch {
    std::string provider;  // "openai", "anthropic", "gemini"
    std::string id;
    std::string key;  // openai's metadata.structtest_key, gemini's display name
    std::vector<Item> items;
    int64_t created_s = 0;
    int polls = 0;
    bool expire = false;
    bool cancelled = false;
    bool ended = false;
    // Once ended: each request's result, in the provider's own shape.
    std::vector<nlohmann::json> results;
    int64_t succeeded = 0, failed = 0;
    std::string output_file, error_file;  // openai; gemini's responses file
    bool from_file = false;               // gemini: an input file, not inline requests
  };

  FakeHttpReply Handle(const FakeHttpRequest& req);
  FakeHttpReply Online(const FakeHttpRequest& req);
  // REQUIRES: mu_ held.
  FakeHttpReply Create(const std::string& provider, const std::string& key,
                       std::vector<Item> items, std::string model);
  void Advance(Batch& b);  // a poll: maybe ends the batch
  void End(Batch& b);
  nlohmann::json View(const Batch& b) const;
  static std::string PromptOf(const std::string& provider, const nlohmann::json& body);

  FakeAnswerFn answer_;
  FakeBatchFaults faults_;
  std::function<void()> on_create_;
  mutable std::mutex mu_;
  std::vector<Batch> batches_;                 // GUARDED_BY(mu_)
  std::map<std::string, std::string> files_;   // GUARDED_BY(mu_): file id -> bytes
  std::vector<std::string> accept_headers_;    // GUARDED_BY(mu_)
  int gemini_file_batches_ = 0;                // GUARDED_BY(mu_)
  int gemini_inline_batches_ = 0;              // GUARDED_BY(mu_)
  std::map<std::string, int> seen_ids_;        // GUARDED_BY(mu_): custom id -> batches
  std::map<std::string, int> answers_;         // GUARDED_BY(mu_)
  std::map<std::string, int> submitted_;       // GUARDED_BY(mu_)
  int64_t requests_seen_ = 0;                  // GUARDED_BY(mu_)
  int creates_ = 0;                            // GUARDED_BY(mu_)
  int cancels_ = 0;                            // GUARDED_BY(mu_)
  int online_ = 0;                             // GUARDED_BY(mu_)
  int next_id_ = 1;                            // GUARDED_BY(mu_)
  FakeHttpServer server_;  // last: its threads stop before the rest goes
};

// What vLLM's run-batch writes for `input` (an OpenAI batch input file): a line a
// request, in input order (its OrderedStreamingWriter), {"id": "vllm-...", "custom_id",
// "response": {"status_code", "request_id", "body"}, "error"}, as run_request() and
// make_error_request_output() make them (vllm/entrypoints/openai/run_batch.py at
// 0056ae7b2144abbc7b4916a43491c154567e0b76).
struct FakeRunBatchOptions {
  // The served model name: a request for another gets the ErrorResponse of a model not
  // found (404, NotFoundError). "": every model is served.
  std::string served_model;
  // Every n-th request (0: none) raises in the engine: `error` is the exception's words
  // ("CUDA out of memory ..."), status_code 400, no body.
  int exception_every = 0;
  // Every n-th request (0: none) is too long for the model: an ErrorResponse 400
  // (BadRequestError, "This model's maximum context length is 4096 tokens ...").
  int too_long_every = 0;
};
std::string FakeRunBatch(const std::string& input, const FakeAnswerFn& answer,
                         const FakeRunBatchOptions& options = {});

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_FAKE_BATCH_SERVER_H_
