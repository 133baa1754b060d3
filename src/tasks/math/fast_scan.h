// Byte scans on the hot paths of the math checkers, 16 bytes at a time where SSE2 is
// available (every x86-64), with a plain loop elsewhere. Same answers either way.
#ifndef STRUCTTEST_TASKS_MATH_FAST_SCAN_H_
#define STRUCTTEST_TASKS_MATH_FAST_SCAN_H_

#include <cstddef>
#include <string_view>

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

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_FAST_SCAN_H_
