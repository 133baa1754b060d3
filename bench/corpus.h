// What the benchmarks measure on: the recorded responses of the conformance corpus in
// ../shared (or $STRUCTTEST_SHARED), loaded once into memory.
#ifndef STRUCTTEST_BENCH_CORPUS_H_
#define STRUCTTEST_BENCH_CORPUS_H_

#include <string>
#include <vector>

#include "structtest/sample.h"

namespace structtest::bench {

// ../shared beside the checkout, or $STRUCTTEST_SHARED.
std::string SharedDir();

// Every record of `subtask` under conformance/dev, models in name order (only
// `only_model` when given). Empty when ../shared is absent.
std::vector<ScoredRecord> LoadCorpus(const std::string& subtask,
                                     const std::string& only_model = "");

}  // namespace structtest::bench

#endif  // STRUCTTEST_BENCH_CORPUS_H_
