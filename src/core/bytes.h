// Equality of short byte strings without a call to memcmp. The hot paths compare keys,
// subtask names and domains of a few bytes to a few dozen, where the call and memcmp's
// dispatch cost more than the compare itself.
#ifndef STRUCTTEST_CORE_BYTES_H_
#define STRUCTTEST_CORE_BYTES_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace structtest {

inline bool SameBytes(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  // Two loads of each, overlapping when n is not a multiple: memcpy of a constant
  // size compiles to a plain (unaligned) load.
  const auto same = [&](auto word) {
    decltype(word) x0, y0, x1, y1;
    constexpr size_t w = sizeof word;
    std::memcpy(&x0, p, w);
    std::memcpy(&y0, q, w);
    std::memcpy(&x1, p + n - w, w);
    std::memcpy(&y1, q + n - w, w);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  };
  if (n >= 8) return n <= 16 ? same(uint64_t{}) : std::memcmp(p, q, n) == 0;
  if (n >= 4) return same(uint32_t{});
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

// *s = v, in the capacity *s has when it is enough: clear() and append() skip the
// checks for overlap and the general replace that assign() goes through.
inline void AssignBytes(std::string* s, std::string_view v) {
  s->clear();
  s->append(v.data(), v.size());
}

}  // namespace structtest

#endif  // STRUCTTEST_CORE_BYTES_H_
