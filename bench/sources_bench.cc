// Throughput of the test-set sources: built-in documents and math problems generated
// per second, the whole default suite's source data at paper size (1200 documents,
// shared by the 7 summarization subtasks or drawn separately for each, and 1319
// problems for each of the 2 math splits), and the loaders on generated files and on
// the real GSM8K test split (../shared, skipped when absent).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/corpus.h"
#include "sources/document_generator.h"
#include "sources/document_loader.h"
#include "sources/gsm8k_loader.h"
#include "sources/math_generator.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

void BM_GenerateDocument(benchmark::State& state) {
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    Document d = GenerateDocument(42, i++);
    bytes += d.text.size();
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_GenerateDocument);

void BM_GenerateMathProblem(benchmark::State& state) {
  size_t i = 0;
  for (auto _ : state) {
    MathProblem p = GenerateMathProblem(42, i++);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
}
BENCHMARK(BM_GenerateMathProblem);

// Arg 1: one set of 1200 documents shared by the 7 summarization subtasks;
// arg 7: a separate set per subtask (8400 documents).
void BM_PaperSizeSources(benchmark::State& state) {
  const size_t doc_sets = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    for (size_t s = 0; s < doc_sets; ++s) {
      std::vector<Document> docs = GenerateDocuments(42 + s, 1200);
      benchmark::DoNotOptimize(docs);
    }
    for (uint64_t split = 0; split < 2; ++split) {
      std::vector<MathProblem> problems = GenerateMathProblems(42 + split, 1319);
      benchmark::DoNotOptimize(problems);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(doc_sets * 1200 + 2 * 1319));
}
BENCHMARK(BM_PaperSizeSources)->Arg(1)->Arg(7)->Unit(benchmark::kMillisecond);

// 1200 generated documents written as JSONL or CSV once, then loaded.
std::string WriteCorpus(bool csv) {
  const std::string path =
      (fs::temp_directory_path() / (csv ? "structtest_bench_docs.csv" : "structtest_bench_docs.jsonl"))
          .string();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return "";
  if (csv) std::fputs("id,title,text\n", f);
  for (const Document& d : GenerateDocuments(7, 1200)) {
    std::string line;
    if (csv) {
      std::string text;
      for (char c : d.text) text += c == '"' ? std::string("\"\"") : std::string(1, c);
      line = d.id + ",\"" + d.title + "\",\"" + text + "\"\n";
    } else {
      line = nlohmann::json{{"id", d.id}, {"title", d.title}, {"text", d.text}}.dump() + "\n";
    }
    std::fputs(line.c_str(), f);
  }
  std::fclose(f);
  return path;
}

void BM_LoadDocuments(benchmark::State& state) {
  const bool csv = state.range(0) == 1;
  const std::string path = WriteCorpus(csv);
  size_t docs = 0;
  for (auto _ : state) {
    auto loaded = LoadDocuments(path);
    if (!loaded.ok()) {
      state.SkipWithError(loaded.status().message().c_str());
      break;
    }
    docs += loaded->documents.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(docs));
  state.SetLabel(csv ? "csv" : "jsonl");
  std::remove(path.c_str());
}
BENCHMARK(BM_LoadDocuments)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

std::string Gsm8kPath() { return bench::SharedDir() + "/conformance/data/gsm8k_test.jsonl"; }

void BM_LoadGsm8k(benchmark::State& state) {
  const std::string path = Gsm8kPath();
  if (!fs::exists(path)) {
    state.SkipWithError("../shared is absent: no gsm8k_test.jsonl");
    return;
  }
  size_t n = 0;
  for (auto _ : state) {
    auto problems = LoadGsm8k(path);
    if (!problems.ok()) {
      state.SkipWithError(problems.status().message().c_str());
      break;
    }
    n += problems->size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_LoadGsm8k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace structtest

BENCHMARK_MAIN();
