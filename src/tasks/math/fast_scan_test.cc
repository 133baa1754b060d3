// The SSE2 scans against plain loops, on random texts made of the bytes they look for.
#include "tasks/math/fast_scan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/pytext.h"

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

// Words counted one code point at a time, as Python's str.isalnum reads them.
size_t CountWordsSlowly(std::string_view s, size_t cap) {
  size_t n = 0;
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const char32_t c = DecodeUtf8(s, i, &len);
    const bool alnum = c != kInvalidCodePoint && IsPyAlnum(c);
    if (alnum && !in_word) ++n;
    in_word = alnum;
    i += len;
  }
  return n < cap ? n : cap;
}

TEST(FastScanTest, CountWordsMatchesCodePointLoop) {
  std::mt19937 rng(4);
  // every ASCII class boundary around digits and letters, letters of other scripts,
  // punctuation beyond ASCII, bytes that are not UTF-8, and longer runs
  const std::vector<std::string> pieces = {
      "/", "0", "9", ":", "@", "A", "Z", "[", "`", "a", "z", "{", " ", "\n", "-", "_",
      std::string(1, '\0'), "\xc3\xa9", "\xe4\xb8\xad", "\xe2\x80\x94", "\xff", "\x80",
      "word", "12,5 "};
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1);
  for (int t = 0; t < 20000; ++t) {
    std::string s;
    for (size_t k = rng() % 40; k > 0; --k) s += pieces[pick(rng)];
    for (size_t cap : {size_t{1}, size_t{2}, size_t{5}, SIZE_MAX}) {
      ASSERT_EQ(CountWords(s, cap), CountWordsSlowly(s, cap)) << s << " cap " << cap;
    }
  }
  // every byte value, in every position of an eight-byte block, inside a word and not
  for (char background : {'x', ' '}) {
    for (int b = 0; b < 256; ++b) {
      for (size_t at = 0; at < 16; ++at) {
        std::string s(17, background);
        s[at] = static_cast<char>(b);
        ASSERT_EQ(CountWords(s), CountWordsSlowly(s, SIZE_MAX)) << "byte " << b << " at " << at;
      }
    }
  }
}

}  // namespace
}  // namespace structtest::math_internal
