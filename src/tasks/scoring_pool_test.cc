// The scoring pool: every record of a batch is scored once, on the pool's threads or the
// caller's; a bounded pool makes a caller wait for room (or refuses past its deadline);
// a cancelled batch stops where it is; a pool of no threads scores on the caller's.
#include "structtest/scoring_pool.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace structtest {
namespace {

using namespace std::chrono_literals;

TEST(ScoringPoolTest, ScoresEveryRecordOnceWhereverItRuns) {
  for (const int threads : {0, 1, 3}) {
    SCOPED_TRACE(threads);
    ScoringPool pool({.threads = threads});
    std::vector<std::atomic<int>> scored(500);
    auto batch = pool.Submit(scored.size(), [&](size_t i) { ++scored[i]; });
    ASSERT_TRUE(batch.ok()) << batch.status().message();
    EXPECT_TRUE(pool.Wait(*batch));
    EXPECT_TRUE(batch->done());
    EXPECT_EQ(batch->finished(), scored.size());
    for (size_t i = 0; i < scored.size(); ++i) ASSERT_EQ(scored[i].load(), 1) << i;
    EXPECT_EQ(pool.in_flight(), 0u);
  }
}

TEST(ScoringPoolTest, WithoutThreadsTheCallerScoresAndWithoutHelpNobodyDoes) {
  ScoringPool pool({.threads = 0});
  const auto caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  auto batch = pool.Submit(8, [&](size_t) {
    if (std::this_thread::get_id() != caller) ++elsewhere;
  });
  ASSERT_TRUE(batch.ok());
  EXPECT_FALSE(pool.Wait(*batch, ScoringPool::Clock::now() + 10ms, /*help=*/false));
  EXPECT_EQ(batch->finished(), 0u);
  EXPECT_TRUE(pool.Wait(*batch));
  EXPECT_EQ(elsewhere.load(), 0);
}

TEST(ScoringPoolTest, ABoundedPoolMakesCallersWaitForRoomAndRefusesPastTheDeadline) {
  ScoringPool pool({.threads = 1, .max_in_flight = 4});
  EXPECT_EQ(pool.Submit(5, [](size_t) {}).status().code(), StatusCode::kInvalidArgument);

  std::atomic<bool> release{false};
  auto slow = pool.Submit(4, [&](size_t) {
    while (!release) std::this_thread::sleep_for(1ms);
  });
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(pool.in_flight(), 4u);
  auto refused = pool.Submit(1, [](size_t) {}, ScoringPool::Clock::now() + 20ms);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(refused.status().message(), "4 records in flight, no room for 1 more");

  std::thread later([&] {
    std::this_thread::sleep_for(20ms);
    release = true;
  });
  auto waited = pool.Submit(2, [](size_t) {}, ScoringPool::Clock::now() + 30s);
  later.join();
  ASSERT_TRUE(waited.ok()) << waited.status().message();
  EXPECT_TRUE(pool.Wait(*waited));
  EXPECT_TRUE(pool.Wait(*slow));
  EXPECT_EQ(pool.in_flight(), 0u);
}

TEST(ScoringPoolTest, ACancelledBatchDropsWhatNoThreadTook) {
  ScoringPool pool({.threads = 1, .max_in_flight = 100});
  std::atomic<bool> started{false}, release{false};
  std::atomic<int> scored{0};
  auto batch = pool.Submit(50, [&](size_t) {
    started = true;
    while (!release) std::this_thread::sleep_for(1ms);
    ++scored;
  });
  ASSERT_TRUE(batch.ok());
  while (!started) std::this_thread::sleep_for(1ms);
  pool.Cancel(*batch);
  EXPECT_EQ(pool.in_flight(), 1u);  // the one being scored
  release = true;
  EXPECT_TRUE(pool.Wait(*batch));
  EXPECT_EQ(scored.load(), 1);
  EXPECT_EQ(batch->finished(), 50u);
  EXPECT_EQ(pool.in_flight(), 0u);
}

TEST(ScoringPoolTest, TheEndOfThePoolDropsWhatNoThreadStarted) {
  std::atomic<bool> started{false}, release{false};
  std::atomic<int> scored{0};
  std::thread releaser;
  {
    ScoringPool pool({.threads = 1});
    auto batch = pool.Submit(1000, [&](size_t) {
      started = true;
      while (!release) std::this_thread::sleep_for(1ms);
      ++scored;
    });
    ASSERT_TRUE(batch.ok());
    while (!started) std::this_thread::sleep_for(1ms);
    releaser = std::thread([&] {
      std::this_thread::sleep_for(20ms);
      release = true;
    });
  }  // waits for the record being scored, drops the 999 others
  releaser.join();
  EXPECT_EQ(scored.load(), 1);
}

}  // namespace
}  // namespace structtest
