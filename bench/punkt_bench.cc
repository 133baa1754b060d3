// Throughput of the Punkt sentence splitter on real model outputs: Count() over the
// responses of the dev corpus (../shared/conformance/dev/*/<subtask>.jsonl), the way
// the summarization checkers call it. Reports samples/s and bytes/s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/corpus.h"
#include "text/punkt.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> LoadResponses(const std::string& subtask) {
  std::vector<std::string> out;
  for (ScoredRecord& r : bench::LoadCorpus(subtask)) out.push_back(std::move(r.response.text));
  return out;
}

const SentenceSplitter* Splitter() {
  static const std::unique_ptr<SentenceSplitter> splitter = [] {
    auto loaded = SentenceSplitter::LoadBuiltin();
    return loaded.ok() ? std::move(loaded).value() : nullptr;
  }();
  return splitter.get();
}

void BM_PunktCount(benchmark::State& state, const std::string& subtask) {
  const SentenceSplitter* splitter = Splitter();
  const std::vector<std::string> texts = LoadResponses(subtask);
  if (splitter == nullptr || texts.empty()) {
    state.SkipWithError(("needs ../shared (conformance/dev/*/" + subtask +
                         ".jsonl); set STRUCTTEST_SHARED")
                            .c_str());
    return;
  }
  size_t bytes = 0;
  for (const std::string& t : texts) bytes += t.size();
  size_t sentences = 0;
  for (auto _ : state) {
    for (const std::string& t : texts) sentences += splitter->Count(t);
    benchmark::DoNotOptimize(sentences);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * texts.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * texts.size()), benchmark::Counter::kIsRate);
}

void BM_PunktSplit(benchmark::State& state) {
  const SentenceSplitter* splitter = Splitter();
  const std::vector<std::string> texts = LoadResponses("length");
  if (splitter == nullptr || texts.empty()) {
    state.SkipWithError("needs ../shared (conformance/dev); set STRUCTTEST_SHARED");
    return;
  }
  for (auto _ : state) {
    for (const std::string& t : texts) benchmark::DoNotOptimize(splitter->Split(t));
  }
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * texts.size()), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_PunktCount, length, std::string("length"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PunktCount, bullet_points_length, std::string("bullet_points_length"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PunktCount, numbered_points_length, std::string("numbered_points_length"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PunktSplit)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace structtest

BENCHMARK_MAIN();
