// What the run store costs per sample, in a run directory under /tmp: the bulk load of
// a new run's samples (a summarization-sized sample: a 2.7 KB prompt, a 480-byte
// target, its JSON line given as `structtest run --samples` gives it), storing an
// answer and its verdict in batches of 256 (what `run`'s store thread does for each
// response), and the pass over the rows that the tally and the report page make.
// Items per second are samples, answers or rows. Run it under valgrind's callgrind for
// instruction counts, which do not vary with the machine's load.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/record_io.h"
#include "store/run_store.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

constexpr int kSamples = 4096;
constexpr int kBatch = 256;

Sample SummarizationSample(int i) {
  Sample s;
  s.id = "length-" + std::to_string(i);
  s.domain = "summarization";
  s.subtask = "length";
  s.params = {{"n_sentences", 1 + i % 9}};
  s.context = {{"document_id", "doc-" + std::to_string(i % 1200)},
               {"start_tag", "<summary>"},
               {"end_tag", "</summary>"}};
  s.messages = {{"user", "Summarize this document. " + std::string(2700, 'x')}};
  s.target = {{"answer", std::string(480, 'y')}};
  return s;
}

// A fresh run directory, removed when the benchmark is done with it.
class TempRun {
 public:
  TempRun() {
    char name[] = "/tmp/store_bench.XXXXXX";
    if (mkdtemp(name) == nullptr) std::abort();
    dir_ = name;
  }
  ~TempRun() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

void Check(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "store_bench: %s\n", s.message().c_str());
    std::abort();
  }
}

std::unique_ptr<RunStore> OpenOrDie(const std::string& dir) {
  auto store = RunStore::Open(dir);
  Check(store.status());
  return std::move(store).value();
}

void AddSamples(RunStore& store) {
  std::string line;
  Check(store.BeginBulk());
  for (int i = 0; i < kSamples; ++i) {
    const Sample s = SummarizationSample(i);
    line.clear();
    AppendSampleJson(s, &line);
    Check(store.AddSample(i, s, line));
  }
  Check(store.Commit());
}

// Each iteration on a new run directory: `setup(store)` before the clock starts, then
// `timed(store)`; closing the store (and its directory) is not timed.
template <typename Setup, typename Timed>
void OnNewRuns(benchmark::State& state, Setup setup, Timed timed) {
  for (auto _ : state) {
    state.PauseTiming();
    {
      TempRun run;
      auto store = OpenOrDie(run.dir());
      setup(*store);
      state.ResumeTiming();
      timed(*store);
      state.PauseTiming();
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kSamples);
}

void BM_BulkLoadSamples(benchmark::State& state) {
  OnNewRuns(state, [](RunStore&) {}, AddSamples);
}
BENCHMARK(BM_BulkLoadSamples)->Unit(benchmark::kMillisecond);

void BM_StoreAnswersAndVerdicts(benchmark::State& state) {
  StoredResponse r;
  r.ok = true;
  r.text = "<summary>" + std::string(400, 'a') + "</summary>";
  r.finish = r.finish_raw = "stop";
  r.input_tokens = 700;
  r.output_tokens = 100;
  StoredVerdict v;
  v.pass = true;
  v.reason = "expected 4 sentences, found 4";
  v.rules_version = "paper-2";
  OnNewRuns(state, AddSamples, [&](RunStore& store) {
    for (int i = 0; i < kSamples; i += kBatch) {
      Check(store.Begin());
      for (int j = i; j < i + kBatch && j < kSamples; ++j) {
        Check(store.PutResponse(j, r));
        Check(store.PutVerdict(j, "paper", v));
      }
      Check(store.Commit());
    }
  });
}
BENCHMARK(BM_StoreAnswersAndVerdicts)->Unit(benchmark::kMillisecond);

// Arg 0: the rows with the prompt left out (the tally's and the page's), read from the
// sample heads; arg 1: whole rows.
void BM_ForEachRow(benchmark::State& state) {
  TempRun run;
  {
    auto store = OpenOrDie(run.dir());
    AddSamples(*store);
  }
  auto reader = RunStore::OpenReadOnly(run.dir());
  Check(reader.status());
  const auto read = state.range(0) == 0 ? RunStore::RowRead::kNoPrompt : RunStore::RowRead::kWhole;
  int64_t rows = 0;
  for (auto _ : state) {
    Check((*reader)->ForEach("paper", [&](const RunRow& row) {
      benchmark::DoNotOptimize(row.sample.id);
      ++rows;
      return Status::Ok();
    }, read));
  }
  state.SetItemsProcessed(rows);
}
BENCHMARK(BM_ForEachRow)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace structtest

BENCHMARK_MAIN();
