// FNV-1a, 64 bit: a fixed, portable hash of bytes, for names of random sub-streams,
// fingerprints of data files and test digests. Not for security. It streams: hashing
// a text in pieces, each call taking the previous result, equals hashing it whole.
#ifndef STRUCTTEST_CORE_HASH_H_
#define STRUCTTEST_CORE_HASH_H_

#include <cstdint>
#include <string_view>

namespace structtest {

inline constexpr uint64_t kFnv1aOffset = 0xCBF29CE484222325ULL;

constexpr uint64_t Fnv1a(std::string_view bytes, uint64_t h = kFnv1aOffset) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

// XXH3 (libxxhash): tens of GB/s where FNV-1a takes a byte at a time, for matching
// long texts within one process (the page's paragraphs, samples across runs). Values
// are never stored, so FNV-1a stays where they are (data file fingerprints).
uint64_t FastHash64(std::string_view bytes, uint64_t seed = 0);
struct Hash128 {
  uint64_t low = 0, high = 0;
  bool operator==(const Hash128&) const = default;
};
Hash128 FastHash128(std::string_view bytes);

}  // namespace structtest

#endif  // STRUCTTEST_CORE_HASH_H_
