// The endpoint pool on a manual clock (ManualClientClock): the fake's latencies and the
// cool-downs are exact, and no test depends on how fast the machine runs it.
#include "backends/endpoint_pool_client.h"

#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "testing/fake_client.h"
#include "testing/fake_client_test_util.h"
#include "backends/retry_client.h"

namespace structtest {
namespace {

using std::chrono::milliseconds;

FakeReply OkReply(const ModelRequest& r, milliseconds latency) {
  FakeReply reply;
  reply.result.response.text = "a" + std::to_string(r.id);
  reply.result.finish = FinishReason::kStop;
  reply.latency = latency;
  return reply;
}

FakeReply Unavailable(milliseconds latency) {
  FakeReply reply;
  reply.result.error = ErrorKind::kRetryable;
  reply.result.http_status = 503;
  reply.result.error_message = "openai: HTTP 503: down";
  reply.latency = latency;
  return reply;
}

TEST(EndpointPoolClientTest, StartsGoToTheEndpointWithFewestInFlight) {
  auto fake = std::make_unique<FakeModelClient>(
      6, [](const ModelRequest& r, int) { return OkReply(r, milliseconds(1000)); });
  FakeModelClient* inner = fake.get();
  EndpointPoolPolicy policy;
  policy.per_endpoint = 2;
  EndpointPoolClient pool(std::move(fake), 3, policy);
  for (uint64_t id = 0; id < 6; ++id) {
    ASSERT_TRUE(pool.CanStartMore());
    ASSERT_TRUE(pool.Start(Req(id)).ok());
  }
  EXPECT_FALSE(pool.CanStartMore()) << "two per endpoint, three endpoints";
  ASSERT_EQ(inner->started().size(), 6u);
  // Ties go to the lowest index, so the starts go round the endpoints.
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(inner->started()[i].endpoint, i % 3) << i;
}

TEST(EndpointPoolClientTest, TheFasterEndpointTakesMoreAndStatsArePerEndpoint) {
  ManualClientClock clock;
  auto fake = std::make_unique<FakeModelClient>(
      4,
      [](const ModelRequest& r, int) {
        return OkReply(r, r.endpoint == 0 ? milliseconds(5) : milliseconds(60));
      },
      &clock);
  EndpointPoolPolicy policy;
  policy.per_endpoint = 2;
  policy.clock = &clock;
  EndpointPoolClient pool(std::move(fake), 2, policy);
  const std::vector<ModelResult> results = Drain(&pool, 60);
  std::set<uint64_t> ids;
  int64_t on[2] = {0, 0};
  for (const ModelResult& r : results) {
    EXPECT_TRUE(r.ok());
    ids.insert(r.id);
    ++on[r.endpoint];
  }
  EXPECT_EQ(ids.size(), 60u);
  // Two at a time on each: 12 answers of endpoint 0 to 1 of endpoint 1 while both work.
  EXPECT_GT(on[0], 8 * on[1]) << on[0] << " vs " << on[1];
  const EndpointStats s0 = pool.Stats(0), s1 = pool.Stats(1);
  EXPECT_EQ(s0.requests, on[0]);
  EXPECT_EQ(s1.requests, on[1]);
  EXPECT_EQ(s0.errors + s1.errors, 0);
  // The fake reports its scripted latency.
  EXPECT_EQ(s0.p50, milliseconds(5));
  EXPECT_EQ(s0.p95, milliseconds(5));
  EXPECT_EQ(s1.p50, milliseconds(60));
  EXPECT_EQ(s1.p95, milliseconds(60));
}

TEST(EndpointPoolClientTest, PercentilesAreNearestRank) {
  ManualClientClock clock;
  std::atomic<int> n{0};
  auto fake = std::make_unique<FakeModelClient>(
      1,
      [&n](const ModelRequest& r, int) {
        return OkReply(r, milliseconds(++n));  // 1, 2, ..., 20 ms
      },
      &clock);
  EndpointPoolPolicy policy;
  policy.per_endpoint = 1;
  policy.clock = &clock;
  EndpointPoolClient pool(std::move(fake), 1, policy);
  Drain(&pool, 20);
  const EndpointStats s = pool.Stats(0);
  EXPECT_EQ(s.requests, 20);
  EXPECT_EQ(s.p50, milliseconds(10));  // ceil(0.5 * 20) = 10th
  EXPECT_EQ(s.p95, milliseconds(19));  // ceil(0.95 * 20) = 19th
}

TEST(EndpointPoolClientTest, AFailingEndpointCoolsDownLongerEachTimeThenRecovers) {
  ManualClientClock clock;
  std::atomic<bool> broken{true};
  auto fake = std::make_unique<FakeModelClient>(2, [&broken](const ModelRequest& r, int) {
    if (r.endpoint == 1 && broken) return Unavailable(milliseconds(1));
    return OkReply(r, milliseconds(2));
  }, &clock);
  FakeModelClient* inner = fake.get();
  EndpointPoolPolicy policy;
  policy.clock = &clock;
  policy.per_endpoint = 1;
  policy.failures_to_cool = 3;
  policy.initial_cooldown = milliseconds(40);
  policy.max_cooldown = milliseconds(160);
  EndpointPoolClient pool(std::move(fake), 2, policy);
  std::vector<milliseconds> cooldowns;  // each new cool-down's length, in order
  int64_t seen = 0;
  uint64_t id = 0;
  std::vector<ModelResult> done;
  const ClientClock::time_point t0 = clock.Now();
  while (clock.Now() - t0 < milliseconds(700)) {
    while (pool.CanStartMore()) ASSERT_TRUE(pool.Start(Req(id++)).ok());
    pool.WaitForAny(&done, milliseconds(50));
    const EndpointStats s = pool.Stats(1);
    if (s.cooldowns > seen) {
      seen = s.cooldowns;
      cooldowns.push_back(s.last_cooldown);
    }
  }
  // Three failures in a row, then every failed probe (1 ms each): 40, 80, 160, 160, ...
  // ms, six of them in 700 ms.
  ASSERT_EQ(cooldowns.size(), 6u);
  EXPECT_EQ(cooldowns[0], milliseconds(40));
  EXPECT_EQ(cooldowns[1], milliseconds(80));
  EXPECT_EQ(cooldowns[2], milliseconds(160));
  EXPECT_EQ(cooldowns[3], milliseconds(160));
  EXPECT_EQ(cooldowns[4], milliseconds(160));
  EXPECT_EQ(cooldowns[5], milliseconds(160));
  // Three requests before the first cool-down, then one probe after each.
  const EndpointStats s1 = pool.Stats(1);
  EXPECT_EQ(s1.errors, s1.requests);
  EXPECT_LE(s1.requests, 3 + s1.cooldowns);
  EXPECT_GT(pool.Stats(0).requests, 5 * s1.requests) << "the healthy one took the work";

  // Mended: the next probe succeeds and the endpoint takes its share again.
  broken = false;
  while (pool.InFlight() > 0) pool.WaitForAny(&done, milliseconds(50));
  while (pool.CoolingDown(1)) clock.SleepUntil(clock.Now() + milliseconds(5));
  const size_t before = inner->started().size();
  Drain(&pool, 40);
  int64_t on1 = 0;
  for (size_t i = before; i < inner->started().size(); ++i) on1 += inner->started()[i].endpoint == 1;
  EXPECT_GE(on1, 10) << "back in the rotation";
  EXPECT_FALSE(pool.CoolingDown(1));
  EXPECT_EQ(pool.Stats(1).errors, s1.errors) << "no new error";
}

TEST(EndpointPoolClientTest, WhenEveryEndpointCoolsDownRequestsWaitAndThenGoOut) {
  ManualClientClock clock;
  std::atomic<int> starts[2] = {0, 0};  // each endpoint fails its first three
  auto fake = std::make_unique<FakeModelClient>(4, [&](const ModelRequest& r, int) {
    if (starts[r.endpoint]++ < 3) return Unavailable(milliseconds(1));
    return OkReply(r, milliseconds(1));
  }, &clock);
  EndpointPoolPolicy policy;
  policy.clock = &clock;
  policy.per_endpoint = 1  /* one at a time: the failures come in order */;
  policy.failures_to_cool = 3;
  policy.initial_cooldown = milliseconds(150);
  auto pool_owned = std::make_unique<EndpointPoolClient>(std::move(fake), 2, policy);
  EndpointPoolClient* pool = pool_owned.get();
  RetryPolicy retry;
  retry.max_attempts = 10;
  retry.initial_backoff = milliseconds(2);
  retry.max_backoff = milliseconds(4);
  RetryingModelClient client(std::move(pool_owned), retry);
  const ClientClock::time_point t0 = clock.Now();
  const std::vector<ModelResult> results = Drain(&client, 12);
  const auto elapsed = clock.Now() - t0;
  ASSERT_EQ(results.size(), 12u);
  for (const ModelResult& r : results) EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(pool->Stats(0).cooldowns, 1);
  EXPECT_EQ(pool->Stats(1).cooldowns, 1);
  // Nothing was answered while both cooled down.
  EXPECT_GE(elapsed, milliseconds(150));
}

TEST(EndpointPoolClientTest, AQueuedRequestWaitsForTheEndOfTheCoolDown) {
  ManualClientClock clock;
  std::atomic<bool> broken{true};
  auto fake = std::make_unique<FakeModelClient>(1, [&](const ModelRequest& r, int) {
    if (broken) return Unavailable(milliseconds(0));
    return OkReply(r, milliseconds(0));
  }, &clock);
  EndpointPoolPolicy policy;
  policy.clock = &clock;
  policy.per_endpoint = 1;
  policy.failures_to_cool = 1;
  policy.initial_cooldown = milliseconds(100);
  EndpointPoolClient pool(std::move(fake), 1, policy);
  std::vector<ModelResult> done = Drain(&pool, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_FALSE(done[0].ok());
  ASSERT_TRUE(pool.CoolingDown(0));
  broken = false;
  // All cooling: the pool still takes the request and holds it.
  ASSERT_TRUE(pool.CanStartMore());
  const ClientClock::time_point t0 = clock.Now();
  ASSERT_TRUE(pool.Start(Req(7)).ok());
  EXPECT_EQ(pool.InFlight(), 1u);
  done.clear();
  while (done.empty()) pool.WaitForAny(&done, milliseconds(20));
  EXPECT_EQ(clock.Now() - t0, milliseconds(100)) << "the whole cool-down, and no more";
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, 7u);
  EXPECT_TRUE(done[0].ok());
  EXPECT_FALSE(pool.CoolingDown(0));
}

}  // namespace
}  // namespace structtest
