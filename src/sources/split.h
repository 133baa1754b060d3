// Which stream of the built-in sources a suite draws from: the eval split (every suite
// structtest generates for evaluation) or the train split (`generate --split train`),
// whose documents, word problems and programs are disjoint from every eval item by
// construction: each train item comes from its own random stream ("train/" forks) and
// names its people, places and functions from word lists no eval item draws from, so
// every train item holds a word no eval item can hold (sources/vocabulary.h). The eval
// stream is what it always was, byte for byte.
#ifndef STRUCTTEST_SOURCES_SPLIT_H_
#define STRUCTTEST_SOURCES_SPLIT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/rng.h"
#include "structtest/status.h"

namespace structtest {

enum class SourceSplit : uint8_t { kEval, kTrain };

StatusOr<SourceSplit> ParseSourceSplit(std::string_view name);

// The root of a source's random streams: the seed's for eval, its "train" fork for train.
inline Rng SourceRng(uint64_t seed, SourceSplit split) {
  return split == SourceSplit::kEval ? Rng(seed) : Rng(seed).Fork("train");
}

// A source item's id: "doc-0007" for eval, "train-doc-0007" for train.
std::string SourceItemId(std::string_view prefix, size_t index, SourceSplit split);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_SPLIT_H_
