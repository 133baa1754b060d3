// The batch APIs over libcurl against the fake batch server: a batch submitted, polled
// while it runs, cancelled, and its requests back as retryable errors (asked again), for
// each provider (Gemini's through an uploaded input file and its responses file); a
// lost create found by its name; the headers each SDK sends.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "backends/batch_api.h"
#include "backends/http/http_transport.h"
#include "testing/fake_batch_server.h"

namespace structtest {
namespace {

TEST(BatchTransportTest, ACancelledBatchEndsWithItsRequestsToAskAgain) {
  testing::FakeBatchFaults faults;
  faults.polls_until_done = 100;  // runs until cancelled
  testing::FakeBatchServer server([](const std::string& prompt) { return "re: " + prompt; }, faults);
  ASSERT_TRUE(server.Start().ok());
  HttpClientOptions http;
  http.api_key = "key-0123456789";
  auto transport = NewCurlHttpTransport(http);
  ASSERT_TRUE(transport.ok()) << transport.status().message();
  for (Provider p : {Provider::kOpenAi, Provider::kAnthropic, Provider::kGemini}) {
    SCOPED_TRACE(std::string(ProviderName(p)));
    BatchApi api(p, server.base_url() + (p == Provider::kOpenAi ? "/v1" : ""), http.api_key, {},
                 transport->get());
    std::vector<std::string> entries, ids;
    for (int i = 0; i < 3; ++i) {
      ModelRequest r;
      r.model = "m";
      r.messages = {Message{"user", "q" + std::to_string(i)}};
      auto e = MakeBatchEntry(p, i, r);
      ASSERT_TRUE(e.ok());
      entries.push_back(e->json);
      ids.push_back(e->custom_id);
    }
    const std::string key = std::string("key-") + std::string(ProviderName(p));
    auto id = api.Submit(key, "m", entries);
    ASSERT_TRUE(id.ok()) << id.status().message();
    auto found = api.FindByKey(key, 3, 0, {});
    ASSERT_TRUE(found.ok()) << found.status().message();
    EXPECT_EQ(found->value_or(""), *id);
    auto running = api.Get(*id);
    ASSERT_TRUE(running.ok()) << running.status().message();
    EXPECT_EQ(running->phase, BatchPhase::kRunning);
    ASSERT_TRUE(api.Cancel(*id).ok());
    auto ended = api.Get(*id);
    ASSERT_TRUE(ended.ok());
    EXPECT_EQ(ended->phase, BatchPhase::kEnded) << ended->state;
    auto results = api.Results(*ended);
    ASSERT_TRUE(results.ok()) << results.status().message();
    ASSERT_EQ(results->items.size(), 3u);
    EXPECT_EQ(results->unkeyed, 0);
    for (const BatchItemResult& r : results->items) {
      EXPECT_EQ(r.result.error, ErrorKind::kRetryable) << r.custom_id;
      EXPECT_NE(std::find(ids.begin(), ids.end(), r.custom_id), ids.end());
    }
    // A batch the provider does not have is an error, not a crash.
    EXPECT_FALSE(api.Get(p == Provider::kGemini ? "batches/none" : "none").ok());
  }
  EXPECT_EQ(server.cancels(), 3);
  EXPECT_TRUE(server.answers_sent().empty());
  EXPECT_EQ(server.gemini_file_batches(), 1);
  EXPECT_EQ(server.gemini_inline_batches(), 0);
  // Results as the SDKs ask for them, "Accept": "application/binary": OpenAI's error
  // file (openai-python src/openai/resources/files.py, Files.content(), at
  // e43b422412a9e96c9cc5192c61fffbe2d7e04836), Anthropic's results (anthropic-sdk-python
  // src/anthropic/resources/messages/batches.py, Batches.results(), at
  // 009b035305e0724ce108ebd796935f91711fc6e1).
  EXPECT_EQ(server.results_accept_headers(),
            (std::vector<std::string>{"application/binary", "application/binary"}));
}

// Gemini's answers come back by key only, out of order, with some keys missing, and
// from wherever the operation holds its output.
TEST(BatchTransportTest, GeminiAnswersComeBackByKeyFromTheResponsesFile) {
  using Faults = testing::FakeBatchFaults;
  for (const auto at : {Faults::GeminiOutputAt::kBoth, Faults::GeminiOutputAt::kResponse,
                        Faults::GeminiOutputAt::kMetadata}) {
    Faults faults;
    faults.reverse = true;
    faults.drop_key_every = 3;
    faults.gemini_output_at = at;
    testing::FakeBatchServer server([](const std::string& prompt) { return "re: " + prompt; }, faults);
    ASSERT_TRUE(server.Start().ok());
    HttpClientOptions http;
    http.api_key = "key-0123456789";
    auto transport = NewCurlHttpTransport(http);
    ASSERT_TRUE(transport.ok()) << transport.status().message();
    BatchApi api(Provider::kGemini, server.base_url(), http.api_key, {}, transport->get());
    std::vector<std::string> entries, ids;
    for (int i = 0; i < 6; ++i) {
      ModelRequest r;
      r.model = "m";
      r.messages = {Message{"user", "q" + std::to_string(i)}};
      auto e = MakeBatchEntry(Provider::kGemini, i, r);
      ASSERT_TRUE(e.ok());
      entries.push_back(e->json);
      ids.push_back(e->custom_id);
    }
    auto id = api.Submit("key-g", "m", entries);
    ASSERT_TRUE(id.ok()) << id.status().message();
    auto ended = api.Get(*id);
    ASSERT_TRUE(ended.ok()) << ended.status().message();
    ASSERT_EQ(ended->phase, BatchPhase::kEnded) << ended->state;
    auto results = api.Results(*ended);
    ASSERT_TRUE(results.ok()) << results.status().message();
    // Each answer is its own request's.
    const auto expect_own_answers = [&](const BatchResults& got) {
      for (const BatchItemResult& r : got.items) {
        const auto at_id = std::find(ids.begin(), ids.end(), r.custom_id);
        ASSERT_NE(at_id, ids.end());
        EXPECT_EQ(r.result.response.text, "re: q" + std::to_string(at_id - ids.begin()));
      }
    };
    EXPECT_EQ(results->unkeyed, 2);  // the 3rd and the 6th
    ASSERT_EQ(results->items.size(), 4u);
    expect_own_answers(*results);
    EXPECT_EQ(server.gemini_file_batches(), 1);

    // A batch of inline requests, as an earlier version submitted them: the issue's
    // case, responses out of order and some without their keys. Only the keyed ones
    // come back, each to its own request.
    std::string inline_body = R"({"batch":{"display_name":"key-inline","input_config":{"requests":{"requests":[)";
    for (size_t i = 0; i < entries.size(); ++i) {
      const nlohmann::json line = nlohmann::json::parse(entries[i]);
      inline_body += (i > 0 ? "," : "") +
                     nlohmann::json{{"request", line["request"]}, {"metadata", {{"key", line["key"]}}}}.dump();
    }
    inline_body += "]}}}}";
    HttpExchange create;
    create.method = "POST";
    create.url = server.base_url() + "/v1beta/models/m:batchGenerateContent";
    create.headers = {"Content-Type: application/json"};
    create.body = inline_body;
    auto made = (*transport)->Send(create);
    ASSERT_TRUE(made.ok() && made->status == 200) << made->body;
    auto old = api.Get(nlohmann::json::parse(made->body)["name"].get<std::string>());
    ASSERT_TRUE(old.ok()) << old.status().message();
    ASSERT_EQ(old->phase, BatchPhase::kEnded);
    auto inline_results = api.Results(*old);
    ASSERT_TRUE(inline_results.ok()) << inline_results.status().message();
    EXPECT_EQ(inline_results->unkeyed, 2);
    ASSERT_EQ(inline_results->items.size(), 4u);
    expect_own_answers(*inline_results);
    EXPECT_EQ(server.gemini_inline_batches(), 1);
  }
}

}  // namespace
}  // namespace structtest
