#include "backends/rate_limit_client.h"

#include <set>

#include <gtest/gtest.h>

#include "testing/fake_client.h"
#include "testing/fake_client_test_util.h"
#include "backends/retry_client.h"

namespace structtest {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

FakeReply Answer(const ModelRequest& r, int) {
  FakeReply reply;
  reply.result.response.text = "a" + std::to_string(r.id);
  reply.result.finish = FinishReason::kStop;
  return reply;
}

TEST(RateLimitedModelClientTest, StartsNoFasterThanTheRateAndLosesNothing) {
  auto fake = std::make_unique<FakeModelClient>(16, Answer);
  FakeModelClient* inner = fake.get();
  RateLimitedModelClient client(std::move(fake), 200.0, 16);  // one per 5 ms
  const Clock::time_point t0 = Clock::now();
  const std::vector<ModelResult> results = Drain(&client, 20);
  const auto elapsed = Clock::now() - t0;
  // 20 starts 5 ms apart take at least 95 ms.
  EXPECT_GE(elapsed, milliseconds(95));
  std::set<uint64_t> ids;
  for (const ModelResult& r : results) {
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.response.text, "a" + std::to_string(r.id));
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), 20u);
  // In the order they were started.
  ASSERT_EQ(inner->started().size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(inner->started()[i].id, i);
  EXPECT_EQ(client.InFlight(), 0u);
}

TEST(RateLimitedModelClientTest, QueuedRequestsCountAsInFlightAndDuplicatesAreRefused) {
  RateLimitedModelClient client(std::make_unique<FakeModelClient>(4, Answer), 1.0, 2);
  ASSERT_TRUE(client.Start(Req(1)).ok());
  EXPECT_FALSE(client.Start(Req(1)).ok());
  ASSERT_TRUE(client.Start(Req(2)).ok());
  EXPECT_EQ(client.InFlight(), 2u);
  EXPECT_FALSE(client.CanStartMore());
}

TEST(RateLimitedModelClientTest, RetriesUnderTheRetryWrapperArePacedToo) {
  auto fake = std::make_unique<FakeModelClient>(8, [](const ModelRequest& r, int previous) {
    FakeReply reply = Answer(r, previous);
    if (previous == 0) {  // every request fails once
      reply.result = ModelResult();
      reply.result.error = ErrorKind::kRetryable;
      reply.result.http_status = 429;
    }
    return reply;
  });
  FakeModelClient* inner = fake.get();
  RetryPolicy policy;
  policy.initial_backoff = milliseconds(1);
  policy.max_backoff = milliseconds(2);
  RetryingModelClient client(
      std::make_unique<RateLimitedModelClient>(std::move(fake), 400.0, 8), policy);
  const Clock::time_point t0 = Clock::now();
  const std::vector<ModelResult> results = Drain(&client, 10);
  // 20 starts (10 first tries, 10 retries) 2.5 ms apart.
  EXPECT_GE(Clock::now() - t0, milliseconds(47));
  EXPECT_EQ(inner->started().size(), 20u);
  for (const ModelResult& r : results) EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace structtest
