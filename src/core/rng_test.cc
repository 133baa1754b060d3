#include "core/rng.h"

#include <algorithm>
#include <cstdint>

#include <gtest/gtest.h>

namespace structtest {
namespace {

TEST(RngTest, SameSeedSameStream) {
  Rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.Next(), b.Next());
}

TEST(RngTest, KnownValuesArePinned) {
  // Pinned so that a change of algorithm, which would change every generated test
  // set, cannot go unnoticed.
  Rng r(1);
  EXPECT_EQ(r.Next(), 0xb3f2af6d0fc710c5ULL);
  EXPECT_EQ(r.UniformInt(2, 10), 3);
}

TEST(RngTest, UniformIntStaysInRangeAndHitsBothEnds) {
  Rng r(7);
  bool lo = false, hi = false;
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = r.UniformInt(2, 5);
    ASSERT_GE(v, 2);
    ASSERT_LE(v, 5);
    lo |= v == 2;
    hi |= v == 5;
  }
  EXPECT_TRUE(lo && hi);
  EXPECT_EQ(r.UniformInt(3, 3), 3);
}

// The whole int64 range (its width overflows int64): both halves are drawn, and the
// draws are not stuck at one value or one end.
TEST(RngTest, UniformIntOverTheWholeRange) {
  Rng r(7);
  int negative = 0, positive = 0;
  int64_t lowest = INT64_MAX, highest = INT64_MIN;
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = r.UniformInt(INT64_MIN, INT64_MAX);
    negative += v < 0;
    positive += v > 0;
    lowest = std::min(lowest, v);
    highest = std::max(highest, v);
  }
  // About half each: a 1000-draw binomial at p = 1/2 is within 400..600 but once in
  // about 10^10 seeds.
  EXPECT_GT(negative, 400);
  EXPECT_GT(positive, 400);
  EXPECT_LT(lowest, INT64_MIN / 2);
  EXPECT_GT(highest, INT64_MAX / 2);
}

TEST(RngTest, ForksAreIndependentAndStable) {
  Rng base(5);
  Rng x1 = base.Fork("length"), x2 = base.Fork("length"), y = base.Fork("html");
  EXPECT_EQ(x1.Next(), x2.Next());
  EXPECT_NE(Rng(5).Fork("length").Next(), y.Next());
}

TEST(RngTest, DoubleInUnitInterval) {
  Rng r(9);
  for (int i = 0; i < 1000; ++i) {
    const double d = r.UniformDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
  }
}

}  // namespace
}  // namespace structtest
