// FakeBatchServer: a loopback server speaking the three providers' batch APIs as their
// documentation describes them (OpenAI: files upload with purpose "batch", batches
// create / get / list / cancel, file content; Anthropic: message batches create / get /
// list / cancel / results; Gemini: batchGenerateContent with inline requests, batches
// get / list / cancel), and their online endpoints too, answering every prompt the same
// way in both, so that a batch run and an online run of the same samples compare. Its
// faults: batches that stay in progress for some polls, a batch that expires with half
// its requests done, requests that fail inside a batch (once each), results out of
// order, and a create answered 500 after the batch was accepted.
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
  // Results come in reverse order of the requests (Gemini's, whose order the docs
  // promise, keep their keys).
  bool reverse = false;
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
    std::string output_file, error_file;  // openai
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
  std::map<std::string, std::string> files_;   // GUARDED_BY(mu_): openai file id -> bytes
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

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_FAKE_BATCH_SERVER_H_
