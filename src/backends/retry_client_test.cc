#include "backends/retry_client.h"

#include <set>

#include <gtest/gtest.h>

#include "testing/fake_client.h"
#include "testing/fake_client_test_util.h"

namespace structtest {
namespace {

using std::chrono::milliseconds;

ModelResult OkResult(const std::string& text) {
  ModelResult r;
  r.response.text = text;
  r.finish = FinishReason::kStop;
  r.http_status = 200;
  return r;
}

ModelResult Err(ErrorKind kind, int status) {
  ModelResult r;
  r.error = kind;
  r.http_status = status;
  r.error_message = "HTTP " + std::to_string(status);
  return r;
}

RetryPolicy FastPolicy() {
  RetryPolicy p;
  p.initial_backoff = milliseconds(1);
  p.max_backoff = milliseconds(4);
  p.max_attempts = 4;
  p.seed = 42;
  return p;
}

TEST(BackoffDelayTest, GrowsCapsJittersAndHonoursRetryAfter) {
  RetryPolicy p;
  p.initial_backoff = milliseconds(100);
  p.max_backoff = milliseconds(1000);
  Rng rng(1);
  for (int i = 0; i < 50; ++i) {
    const milliseconds d1 = BackoffDelay(p, 1, std::nullopt, &rng);
    EXPECT_GE(d1.count(), 50);
    EXPECT_LE(d1.count(), 100);
    const milliseconds d3 = BackoffDelay(p, 3, std::nullopt, &rng);
    EXPECT_GE(d3.count(), 200);
    EXPECT_LE(d3.count(), 400);
    const milliseconds d20 = BackoffDelay(p, 20, std::nullopt, &rng);
    EXPECT_GE(d20.count(), 500);
    EXPECT_LE(d20.count(), 1000);
  }
  EXPECT_EQ(BackoffDelay(p, 1, milliseconds(5000), &rng), milliseconds(5000));
  p.max_retry_after = milliseconds(2000);
  EXPECT_EQ(BackoffDelay(p, 1, milliseconds(999'000), &rng), milliseconds(2000));
  // Same seed, same schedule.
  Rng a(9), b(9);
  for (int i = 1; i < 10; ++i) {
    EXPECT_EQ(BackoffDelay(p, i, std::nullopt, &a), BackoffDelay(p, i, std::nullopt, &b));
  }
}

TEST(FakeModelClientTest, RespectsParallelismAndLatency) {
  auto fake = std::make_unique<FakeModelClient>(
      2, [](const ModelRequest& r, int) {
        return FakeReply{OkResult("a"), milliseconds(r.id % 3)};
      });
  std::vector<ModelRequest> reqs;
  for (uint64_t i = 0; i < 10; ++i) reqs.push_back(Req(i));
  const auto done = Drain(fake.get(), reqs);
  EXPECT_EQ(done.size(), 10u);
  EXPECT_EQ(fake->max_in_flight_seen(), 2u);
  EXPECT_FALSE(fake->Start(Req(99)).ok() && fake->Start(Req(99)).ok());
}

TEST(RetryingModelClientTest, RetriesRetryableErrorsUntilSuccess) {
  auto fake = std::make_unique<FakeModelClient>(4, [](const ModelRequest& r, int prev) {
    if (prev < 2) return FakeReply{Err(ErrorKind::kRetryable, prev == 0 ? 429 : 503), {}};
    return FakeReply{OkResult("answer " + r.messages[0].content), milliseconds(1)};
  });
  FakeModelClient* raw = fake.get();
  RetryingModelClient client(std::move(fake), FastPolicy());
  std::vector<ModelRequest> reqs;
  for (uint64_t i = 0; i < 20; ++i) reqs.push_back(Req(i));
  const auto done = Drain(&client, reqs);
  ASSERT_EQ(done.size(), 20u);
  std::set<uint64_t> ids;
  for (const ModelResult& r : done) {
    EXPECT_TRUE(r.ok()) << r.error_message;
    EXPECT_EQ(r.attempts, 3);
    EXPECT_EQ(r.response.text, "answer q" + std::to_string(r.id));
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(raw->started().size(), 60u);
  EXPECT_EQ(client.retries(), 40u);
  EXPECT_LE(raw->max_in_flight_seen(), 4u);
}

TEST(RetryingModelClientTest, ExhaustedRetriesComeBackAsErrorNotText) {
  auto fake = std::make_unique<FakeModelClient>(
      2, [](const ModelRequest&, int) { return FakeReply{Err(ErrorKind::kRetryable, 500), {}}; });
  FakeModelClient* raw = fake.get();
  RetryingModelClient client(std::move(fake), FastPolicy());
  const auto done = Drain(&client, {Req(1), Req(2)});
  ASSERT_EQ(done.size(), 2u);
  for (const ModelResult& r : done) {
    EXPECT_EQ(r.error, ErrorKind::kRetryable);
    EXPECT_EQ(r.response.text, "");
    EXPECT_EQ(r.attempts, 4);
    EXPECT_NE(r.error_message.find("(after 4 attempts)"), std::string::npos) << r.error_message;
  }
  EXPECT_EQ(raw->started().size(), 8u);
}

TEST(RetryingModelClientTest, FatalErrorsAreNotRetried) {
  auto fake = std::make_unique<FakeModelClient>(
      2, [](const ModelRequest&, int) { return FakeReply{Err(ErrorKind::kFatal, 401), {}}; });
  FakeModelClient* raw = fake.get();
  RetryingModelClient client(std::move(fake), FastPolicy());
  const auto done = Drain(&client, {Req(1)});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].error, ErrorKind::kFatal);
  EXPECT_EQ(done[0].attempts, 1);
  EXPECT_EQ(raw->started().size(), 1u);
}

TEST(RetryingModelClientTest, HonoursRetryAfter) {
  auto fake = std::make_unique<FakeModelClient>(1, [](const ModelRequest&, int prev) {
    if (prev == 0) {
      ModelResult r = Err(ErrorKind::kRetryable, 429);
      r.retry_after = milliseconds(150);
      return FakeReply{r, {}};
    }
    return FakeReply{OkResult("x"), {}};
  });
  RetryingModelClient client(std::move(fake), FastPolicy());
  const auto start = std::chrono::steady_clock::now();
  const auto done = Drain(&client, {Req(1)});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].ok());
  EXPECT_GE(elapsed, milliseconds(150));
}

TEST(RetryingModelClientTest, WaitForAnyTimesOutWhileBackingOff) {
  auto fake = std::make_unique<FakeModelClient>(1, [](const ModelRequest&, int prev) {
    ModelResult r = Err(ErrorKind::kRetryable, 429);
    r.retry_after = milliseconds(10'000);
    return prev == 0 ? FakeReply{r, {}} : FakeReply{OkResult("x"), {}};
  });
  RetryingModelClient client(std::move(fake), FastPolicy());
  ASSERT_TRUE(client.Start(Req(1)).ok());
  std::vector<ModelResult> done;
  EXPECT_EQ(client.WaitForAny(&done, milliseconds(30)), 0u);
  EXPECT_TRUE(done.empty());
  EXPECT_EQ(client.InFlight(), 1u);
  EXPECT_FALSE(client.Start(Req(1)).ok());  // still ours: a duplicate id is refused
}

TEST(RetryingModelClientTest, DuplicateIdIsRefused) {
  auto fake = std::make_unique<FakeModelClient>(
      4, [](const ModelRequest&, int) { return FakeReply{OkResult("x"), milliseconds(50)}; });
  RetryingModelClient client(std::move(fake), FastPolicy());
  ASSERT_TRUE(client.Start(Req(1)).ok());
  EXPECT_FALSE(client.Start(Req(1)).ok());
  std::vector<ModelResult> done;
  while (client.InFlight() > 0) client.WaitForAny(&done, milliseconds(100));
  EXPECT_EQ(done.size(), 1u);
}

}  // namespace
}  // namespace structtest
