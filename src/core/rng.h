// The project's own seeded random number generator. Generators must produce the same
// bytes for the same seed on every machine and standard library, so nothing here uses
// <random>'s distributions (their output is implementation-defined).
#ifndef STRUCTTEST_CORE_RNG_H_
#define STRUCTTEST_CORE_RNG_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace structtest {

// xoshiro256** seeded through SplitMix64. Not thread-safe; copy it per thread.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  // A generator for a named sub-stream: the same (seed, name) always gives the same
  // stream, and different names give independent ones, so adding a subtask does not
  // shift the samples of the others.
  Rng Fork(std::string_view name) const;

  uint64_t Next();
  // Uniform integer in [lo, hi]. REQUIRES: lo <= hi.
  int64_t UniformInt(int64_t lo, int64_t hi);
  // Uniform double in [0, 1).
  double UniformDouble();
  bool Bernoulli(double p) { return UniformDouble() < p; }

  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(UniformInt(0, static_cast<int64_t>(items.size()) - 1))];
  }
  template <typename T>
  void Shuffle(std::vector<T>* items) {
    for (size_t i = items->size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(UniformInt(0, static_cast<int64_t>(i) - 1));
      std::swap((*items)[i - 1], (*items)[j]);
    }
  }

 private:
  uint64_t s_[4];
};

}  // namespace structtest

#endif  // STRUCTTEST_CORE_RNG_H_
