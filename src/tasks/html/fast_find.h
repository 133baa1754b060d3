// Substring and byte search for the HTML checker, where the haystack is dense with
// '<' and '>' and std::string_view::find (memchr on the first byte, then compare)
// stops at every tag. With SSE2 (every x86-64) 16 positions are tested at once on the
// needle's first byte and on its rarest byte; elsewhere a plain search.
#ifndef STRUCTTEST_TASKS_HTML_FAST_FIND_H_
#define STRUCTTEST_TASKS_HTML_FAST_FIND_H_

#include <cstddef>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace structtest::html_internal {

// How common a byte is in model-written HTML and English (lower is rarer).
inline int ByteCommonness(unsigned char c) {
  switch (c) {
    case '<':
    case '>':
    case '/':
    case ' ':
    case '\n':
    case 'e':
    case 't':
    case 'a':
    case 'o':
    case 'i':
    case 'n':
    case 's':
    case 'r':
    case 'h':
    case 'd':
    case 'p':
      return 3;
    case 'l':
    case 'c':
    case 'u':
    case 'f':
    case 'w':
    case 'g':
    case 'y':
    case 'b':
    case 'v':
    case '1':
    case '2':
      return 2;
    default:
      return 1;
  }
}

// s.find(needle, from) for a non-empty needle.
inline size_t FindSubstring(std::string_view s, std::string_view needle,
                            size_t from = 0) {
  const size_t m = needle.size();
  if (from > s.size() || s.size() - from < m) return std::string_view::npos;
#if defined(__SSE2__)
  if (m >= 2) {
    size_t k = 1;  // the rarest byte after the first
    for (size_t j = 2; j < m; ++j) {
      if (ByteCommonness(needle[j]) < ByteCommonness(needle[k])) k = j;
    }
    const __m128i first = _mm_set1_epi8(needle[0]);
    const __m128i rare = _mm_set1_epi8(needle[k]);
    const char* d = s.data();
    const size_t last_start = s.size() - m;  // candidate starts are [from, last_start]
    size_t i = from;
    while (i + 16 + k <= s.size() && i <= last_start) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i + k));
      unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, rare))));
      while (mask != 0) {
        const size_t p = i + static_cast<size_t>(__builtin_ctz(mask));
        if (p > last_start) return std::string_view::npos;
        if (std::memcmp(d + p, needle.data(), m) == 0) return p;
        mask &= mask - 1;
      }
      i += 16;
    }
    return s.find(needle, i);
  }
#endif
  return s.find(needle, from);
}

// s.find(c, from), scanning a few bytes inline before calling memchr: in HTML the
// next '<' or '>' is usually close.
inline size_t FindByte(std::string_view s, char c, size_t from) {
  const size_t n = s.size();
  const size_t stop = from + 16 < n ? from + 16 : n;
  for (size_t i = from; i < stop; ++i) {
    if (s[i] == c) return i;
  }
  if (stop == n) return std::string_view::npos;
  const void* hit = std::memchr(s.data() + stop, c, n - stop);
  return hit == nullptr ? std::string_view::npos
                        : static_cast<size_t>(static_cast<const char*>(hit) - s.data());
}

}  // namespace structtest::html_internal

#endif  // STRUCTTEST_TASKS_HTML_FAST_FIND_H_
