#include "backends/adaptive_client.h"

#include <set>

#include <gtest/gtest.h>

#include "testing/fake_client.h"
#include "testing/fake_client_test_util.h"
#include "backends/retry_client.h"

namespace structtest {
namespace {

using std::chrono::milliseconds;

FakeReply TooMany() {
  FakeReply reply;
  reply.result.error = ErrorKind::kRetryable;
  reply.result.http_status = 429;
  reply.result.error_message = "openai: HTTP 429: slow down";
  reply.latency = milliseconds(1);
  return reply;
}

FakeReply QuickOk(const ModelRequest& r) {
  FakeReply reply;
  reply.result.response.text = "a" + std::to_string(r.id);
  reply.result.finish = FinishReason::kStop;
  reply.latency = milliseconds(5);
  return reply;
}

TEST(AdaptiveConcurrencyClientTest, ABurstOf429sHalvesTheLimitOnce) {
  int starts = 0;
  auto fake = std::make_unique<FakeModelClient>(64, [&](const ModelRequest& r, int) {
    return starts++ < 16 ? TooMany() : QuickOk(r);
  });
  AdaptivePolicy policy;
  policy.initial = 16;
  AdaptiveConcurrencyClient client(std::move(fake), policy);
  for (uint64_t id = 0; id < 16; ++id) {
    ASSERT_TRUE(client.CanStartMore());
    ASSERT_TRUE(client.Start(Req(id)).ok());
  }
  EXPECT_FALSE(client.CanStartMore());
  std::vector<ModelResult> done;
  while (done.size() < 16) client.WaitForAny(&done, milliseconds(100));
  EXPECT_EQ(client.limit(), 8u);
  EXPECT_EQ(client.decreases(), 1);
  // A 429 of a request started after the halving halves again.
  starts = 0;
  ASSERT_TRUE(client.Start(Req(100)).ok());
  done.clear();
  while (done.empty()) client.WaitForAny(&done, milliseconds(100));
  EXPECT_EQ(client.limit(), 4u);
  EXPECT_EQ(client.decreases(), 2);
}

// Keeps `client` as full as it lets itself be until `answers` results came back.
void KeepBusy(ModelClient* client, size_t answers) {
  std::vector<ModelResult> done;
  uint64_t next = 0;
  while (done.size() < answers) {
    while (client->CanStartMore()) ASSERT_TRUE(client->Start(Req(next++)).ok());
    client->WaitForAny(&done, milliseconds(100));
  }
}

TEST(AdaptiveConcurrencyClientTest, GrowsWhileLatencyHolds) {
  auto fake = std::make_unique<FakeModelClient>(
      1000, [](const ModelRequest& r, int) { return QuickOk(r); });
  AdaptivePolicy policy;
  policy.initial = 4;
  policy.max = 10;
  AdaptiveConcurrencyClient client(std::move(fake), policy);
  KeepBusy(&client, 200);
  EXPECT_EQ(client.limit(), 10u) << "grew to the bound and stayed";
  EXPECT_EQ(client.lowest_limit(), 4u);
  EXPECT_EQ(client.decreases(), 0);
}

// 0 ms for the first requests, then 1 ms: the best window's median is 0, every later
// one's 1, more than 1.5 times 0.
FakeReply ZeroThenOneMs(const ModelRequest& r, int) {
  FakeReply reply = QuickOk(r);
  reply.latency = milliseconds(r.id < 8 ? 0 : 1);
  return reply;
}

TEST(AdaptiveConcurrencyClientTest, MillisecondJitterOfAFastServerDoesNotStopTheGrowth) {
  AdaptivePolicy policy;
  policy.initial = 4;
  policy.max = 12;
  AdaptiveConcurrencyClient client(std::make_unique<FakeModelClient>(1000, ZeroThenOneMs), policy);
  KeepBusy(&client, 400);
  EXPECT_EQ(client.limit(), 12u);

  // Without the floor the same answers hold the limit below the bound.
  policy.latency_floor = milliseconds(0);
  AdaptiveConcurrencyClient held(std::make_unique<FakeModelClient>(1000, ZeroThenOneMs), policy);
  KeepBusy(&held, 400);
  EXPECT_LT(held.limit(), 12u);
}

// The server answers 429 whenever more than K requests are in flight: the limit
// settles near K and, with the retry wrapper above, nothing is lost.
TEST(AdaptiveConcurrencyClientTest, SettlesNearTheServersLimitAndLosesNothing) {
  constexpr size_t kK = 8;
  FakeModelClient* inner = nullptr;
  auto fake = std::make_unique<FakeModelClient>(1000, [&](const ModelRequest& r, int) {
    return inner->InFlight() >= kK ? TooMany() : QuickOk(r);
  });
  inner = fake.get();
  AdaptivePolicy policy;
  policy.initial = 4;
  auto adaptive_owned = std::make_unique<AdaptiveConcurrencyClient>(std::move(fake), policy);
  AdaptiveConcurrencyClient* adaptive = adaptive_owned.get();
  RetryPolicy retry;
  retry.max_attempts = 50;
  retry.initial_backoff = milliseconds(2);
  retry.max_backoff = milliseconds(8);
  RetryingModelClient client(std::move(adaptive_owned), retry);
  constexpr uint64_t kN = 600;
  std::vector<ModelResult> done;
  uint64_t next = 0;
  while (done.size() < kN) {
    while (next < kN && client.CanStartMore()) ASSERT_TRUE(client.Start(Req(next++)).ok());
    client.WaitForAny(&done, milliseconds(100));
  }
  std::set<uint64_t> ids;
  for (const ModelResult& r : done) {
    EXPECT_TRUE(r.ok()) << r.error_message;
    EXPECT_EQ(r.response.text, "a" + std::to_string(r.id));
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), kN);
  EXPECT_GE(adaptive->decreases(), 1) << "it went past K and heard the 429s";
  EXPECT_GE(adaptive->limit(), kK / 2);
  EXPECT_LE(adaptive->limit(), 2 * kK);
  EXPECT_GE(adaptive->TimeWeightedLimit(), kK / 2.0);
  EXPECT_LE(adaptive->TimeWeightedLimit(), 2.0 * kK);
  EXPECT_LE(adaptive->highest_limit(), kK + 2);
}

}  // namespace
}  // namespace structtest
