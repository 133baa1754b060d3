#include "core/hash.h"

#include <xxhash.h>

namespace structtest {

uint64_t FastHash64(std::string_view bytes, uint64_t seed) {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
}

Hash128 FastHash128(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {h.low64, h.high64};
}

}  // namespace structtest
