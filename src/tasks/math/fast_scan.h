// Byte scans on the hot paths of the math checkers, 16 bytes at a time where SSE2 is
// available (every x86-64), with a plain loop elsewhere, and a word count that reads
// eight ASCII bytes at a time. Same answers either way.
#ifndef STRUCTTEST_TASKS_MATH_FAST_SCAN_H_
#define STRUCTTEST_TASKS_MATH_FAST_SCAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/pytext.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace structtest::math_internal {

// The first "\n\n" at or after `from`, or npos.
inline size_t FindBlankLine(std::string_view s, size_t from) {
  const char* d = s.data();
  const size_t n = s.size();
  size_t i = from;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
    const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)));
    if (m != 0) {
      if ((m & 1) != 0 && i > from && d[i - 1] == '\n') return i - 1;  // straddles blocks
      const unsigned pairs = m & (m >> 1);
      if (pairs != 0) return i + static_cast<size_t>(__builtin_ctz(pairs));
    }
    i += 16;
  }
  if (i > from) --i;  // a pair may straddle the last block and the tail
#endif
  for (; i + 1 < n; ++i) {
    if (d[i] == '\n' && d[i + 1] == '\n') return i;
  }
  return std::string_view::npos;
}

// The first byte at or after `from` that is '"', '\\' or below 0x20 (what ends a
// plain run inside a JSON string), or s.size().
inline size_t FindJsonStringSpecial(std::string_view s, size_t from) {
  const char* d = s.data();
  const size_t n = s.size();
  size_t i = from;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
        _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));  // v <= 0x1F unsigned
    const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (m != 0) return i + static_cast<size_t>(__builtin_ctz(m));
    i += 16;
  }
#endif
  for (; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(d[i]);
    if (c == '"' || c == '\\' || c < 0x20) return i;
  }
  return n;
}

// The first index in [from, limit) whose byte is not printable ASCII (below 0x20 or
// 0x80 and above), or limit. REQUIRES: limit <= s.size().
inline size_t FindNonPrintable(std::string_view s, size_t from, size_t limit) {
  const char* d = s.data();
  size_t i = from;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20);
  while (i + 16 <= limit) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
    // Signed: bytes 0x80 and above are negative, so one compare finds both kinds.
    const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, space)));
    if (m != 0) return i + static_cast<size_t>(__builtin_ctz(m));
    i += 16;
  }
#endif
  for (; i < limit; ++i) {
    const auto b = static_cast<unsigned char>(d[i]);
    if (b < 0x20 || b >= 0x80) return i;
  }
  return limit;
}

// For eight ASCII bytes packed in x (high bits clear): 0x80 in each byte that is a
// letter or a digit. Each test adds to a byte a bias whose sum stays below 0x100, so
// no carry crosses into the next byte.
inline uint64_t AsciiAlnumBytes(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  // x >= lo: x + (0x80 - lo) has its high bit; x <= hi: x + (0x7f - hi) has not.
  const auto in_range = [&](uint64_t v, uint64_t lo, uint64_t hi) {
    return (v + kOnes * (0x80 - lo)) & ~(v + kOnes * (0x7f - hi)) & kHigh;
  };
  // 'A'-'Z' | 0x20 is 'a'-'z', and nothing else lands there
  return in_range(x | kOnes * 0x20, 'a', 'z') | in_range(x, '0', '9');
}

// The words in `s`, counting no further than `cap`: runs of letters and digits
// (Python's str.isalnum, so any script; invalid UTF-8 is not a letter). Runs of eight ASCII
// bytes are read at once: a word starts at a letter or digit after a byte that is not
// one. The reasoning of every answer is counted, so this is on the hot path.
inline size_t CountWords(std::string_view s, size_t cap = SIZE_MAX) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  size_t n = 0;
  bool in_word = false;
  size_t i = 0;
  while (i < s.size()) {
    if (i + 8 <= s.size()) {
      uint64_t x;
      std::memcpy(&x, s.data() + i, 8);
      if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
      if ((x & kHigh) == 0) {
        // byte k's predecessor is byte k - 1 (little-endian), byte 0's the last byte read
        const uint64_t alnum = AsciiAlnumBytes(x);
        const uint64_t starts = alnum & ~((alnum << 8) | (in_word ? 0x80u : 0u));
        // the 0/1 bytes of starts >> 7 summed into the top byte (std::popcount is a
        // library call on the baseline x86-64 this is built for)
        n += static_cast<size_t>(((starts >> 7) * 0x0101010101010101ull) >> 56);
        in_word = (alnum >> 63) != 0;
        i += 8;
        if (n >= cap) return cap;
        continue;
      }
    }
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = 1;
    bool alnum;
    if (b < 0x80) {
      alnum = (b >= '0' && b <= '9') || ((b | 0x20) >= 'a' && (b | 0x20) <= 'z');
    } else {
      const char32_t c = DecodeUtf8(s, i, &len);
      alnum = c != kInvalidCodePoint && IsPyAlnum(c);
    }
    if (alnum && !in_word && ++n >= cap) return cap;
    in_word = alnum;
    i += len;
  }
  return n;
}

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_FAST_SCAN_H_
