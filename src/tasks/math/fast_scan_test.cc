// The SSE2 scans against plain loops, on random texts made of the bytes they look for.
#include "tasks/math/fast_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace structtest::math_internal {
namespace {

std::string RandomText(std::mt19937* rng, std::string_view alphabet, size_t max_len) {
  std::uniform_int_distribution<size_t> len(0, max_len);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::string s(len(*rng), ' ');
  for (char& c : s) c = alphabet[pick(*rng)];
  return s;
}

TEST(FastScanTest, FindBlankLineMatchesFind) {
  std::mt19937 rng(1);
  for (int t = 0; t < 20000; ++t) {
    const std::string s = RandomText(&rng, "\n\nab ", 80);
    for (size_t from = 0; from <= s.size(); from += 7) {
      ASSERT_EQ(FindBlankLine(s, from), s.find("\n\n", from)) << s << " from " << from;
    }
  }
}

TEST(FastScanTest, FindJsonStringSpecialMatchesLoop) {
  std::mt19937 rng(2);
  const std::string alphabet =
      std::string("ab\"\\\x1f\x20\x7f\x80\xff", 9) + std::string(1, '\0');
  for (int t = 0; t < 20000; ++t) {
    const std::string s = RandomText(&rng, alphabet, 80);
    size_t want = s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"' || c == '\\' || c < 0x20) {
        want = i;
        break;
      }
    }
    ASSERT_EQ(FindJsonStringSpecial(s, 0), want);
  }
}

TEST(FastScanTest, FindNonPrintableMatchesLoop) {
  std::mt19937 rng(3);
  const std::string alphabet("ab~\x1f\x20\x7f\x80\xc3\n", 9);
  for (int t = 0; t < 20000; ++t) {
    const std::string s = RandomText(&rng, alphabet, 80);
    for (size_t from = 0; from <= s.size(); from += 3) {
      for (size_t limit = from; limit <= s.size(); limit += 11) {
        size_t want = limit;
        for (size_t i = from; i < limit; ++i) {
          const auto c = static_cast<unsigned char>(s[i]);
          if (c < 0x20 || c >= 0x80) {
            want = i;
            break;
          }
        }
        ASSERT_EQ(FindNonPrintable(s, from, limit), want);
      }
    }
  }
}

}  // namespace
}  // namespace structtest::math_internal
