// The batch APIs over libcurl against the fake batch server: a batch submitted, polled
// while it runs, cancelled, and its requests back as retryable errors (asked again), for
// each provider; a lost create found by its name.
#include <gtest/gtest.h>

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
    auto results = api.Results(*ended, ids);
    ASSERT_TRUE(results.ok()) << results.status().message();
    ASSERT_EQ(results->size(), 3u);
    for (const BatchItemResult& r : *results) {
      EXPECT_EQ(r.result.error, ErrorKind::kRetryable) << r.custom_id;
      EXPECT_NE(std::find(ids.begin(), ids.end(), r.custom_id), ids.end());
    }
    // A batch the provider does not have is an error, not a crash.
    EXPECT_FALSE(api.Get(p == Provider::kGemini ? "batches/none" : "none").ok());
  }
  EXPECT_EQ(server.cancels(), 3);
  EXPECT_TRUE(server.answers_sent().empty());
}

}  // namespace
}  // namespace structtest
