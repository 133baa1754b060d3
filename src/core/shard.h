// Shards: the I-th of N disjoint parts of a suite, chosen by the FNV-1a hash of each
// sample id, so that every machine computes the same split from the id alone, without
// talking to the others, and the N parts together are the whole suite.
#ifndef STRUCTTEST_CORE_SHARD_H_
#define STRUCTTEST_CORE_SHARD_H_

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/hash.h"
#include "structtest/status.h"

namespace structtest {

struct Shard {
  int index = 1;  // from 1
  int count = 1;

  // Whether the sample `id` belongs to this shard.
  bool Contains(std::string_view id) const {
    return static_cast<int>(Fnv1a(id) % static_cast<uint64_t>(count)) == index - 1;
  }
  std::string ToString() const { return fmt::format("{}/{}", index, count); }
};

// At most this many shards: far more machines than a suite has samples per subtask.
inline constexpr int kMaxShards = 100000;

// "I/N", 1 <= I <= N <= kMaxShards. Errors name the value and what was expected.
inline StatusOr<Shard> ParseShard(std::string_view text) {
  const auto fail = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("--shard {}: {}", text, why));
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return fail("expected I/N, e.g. 1/4");
  const auto number = [](std::string_view s, int* out) {
    if (s.empty() || s.size() > 9) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && end == s.data() + s.size();
  };
  Shard shard;
  if (!number(text.substr(0, slash), &shard.index) || !number(text.substr(slash + 1), &shard.count)) {
    return fail("expected I/N with whole numbers, e.g. 1/4");
  }
  if (shard.count < 1 || shard.count > kMaxShards) {
    return fail(fmt::format("N must be 1 to {}", kMaxShards));
  }
  if (shard.index < 1 || shard.index > shard.count) {
    return fail(fmt::format("I must be 1 to {} (shards count from 1)", shard.count));
  }
  return shard;
}

}  // namespace structtest

#endif  // STRUCTTEST_CORE_SHARD_H_
