// Code-domain scoring throughput on the dev conformance corpus (records in memory).
//
//  - add_print_statements, replace_variables: one core, against the Python reference
//    measured on this machine. "warm" is the steady state: every distinct source already
//    analysed (or renamed) once, which is what a run does after its first sample of each
//    task; "cold" scores every record of the corpus with an empty cache and a started
//    worker, so each distinct source costs one round trip to python3. A warm run below
//    30x the reference is reported and makes the program exit 1.
//  - test_case_inputs_gen, simulate_execute: samples/s through the worker pool (every
//    sample is a sandboxed job in a fresh child of a long-lived worker) against one
//    fresh python3 per sample (a new pool, so a new interpreter that imports the
//    preamble's modules, for every sample), on one thread with one worker and on two
//    threads with two workers. Uses the gpt-3.5 records (none of them hits the 4 s
//    per-input limit, which would dominate).
//
// Needs ../shared (pass --shared DIR or set STRUCTTEST_SHARED) and the worker script
// next to this binary (or STRUCTTEST_WORKER).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/corpus.h"
#include "sandbox/python_pool.h"
#include "structtest/sample.h"
#include "tasks/code/family.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

// The Python reference on this machine, one core (the figures).
const std::map<std::string, double> kReferenceRate = {{"add_print_statements", 12.3e3},
                                                      {"replace_variables", 32.1e3}};
constexpr double kTargetFactor = 30;

const SubtaskSpec* Spec(const std::string& subtask) {
  for (const SubtaskSpec& s : CodeFamily().subtasks) {
    if (s.name == subtask) return &s;
  }
  return nullptr;
}

PythonOptions Options(int workers) {
  PythonOptions o;
  o.max_workers = workers;
  return o;
}

bool Score(const SubtaskSpec* spec, const ScoredRecord& r, PythonPool* pool) {
  CheckEnv env;
  env.python = pool;
  auto v = CodeFamily().Check(*spec, RuleSet::kPaper, r.sample, r.response.text, env);
  return v.ok() && v->pass;
}

void BM_Warm(benchmark::State& state, const std::string& subtask) {
  const auto records = bench::LoadCorpus(subtask);
  if (records.empty()) {
    state.SkipWithError("no records: ../shared/conformance is absent");
    return;
  }
  PythonPool pool(Options(1));
  const SubtaskSpec* spec = Spec(subtask);
  for (const auto& r : records) Score(spec, r, &pool);  // warm the caches
  if (!pool.Info().ok()) {
    state.SkipWithError(pool.Info().status().message().c_str());
    return;
  }
  size_t i = 0;
  int64_t passed = 0;
  for (auto _ : state) {
    passed += Score(spec, records[i], &pool);
    if (++i == records.size()) i = 0;
  }
  benchmark::DoNotOptimize(passed);
  state.SetItemsProcessed(state.iterations());
  state.counters["x_reference"] = benchmark::Counter(
      static_cast<double>(state.iterations()) / kReferenceRate.at(subtask),
      benchmark::Counter::kIsRate);
}

void BM_Cold(benchmark::State& state, const std::string& subtask) {
  const auto records = bench::LoadCorpus(subtask);
  if (records.empty()) {
    state.SkipWithError("no records: ../shared/conformance is absent");
    return;
  }
  const SubtaskSpec* spec = Spec(subtask);
  int64_t passed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto pool = std::make_unique<PythonPool>(Options(1));
    if (!pool->Info().ok()) {
      state.SkipWithError(pool->Info().status().message().c_str());
      return;
    }
    state.ResumeTiming();
    for (const auto& r : records) passed += Score(spec, r, pool.get());
    state.PauseTiming();
    pool.reset();
    state.ResumeTiming();
  }
  benchmark::DoNotOptimize(passed);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
  state.counters["x_reference"] = benchmark::Counter(
      static_cast<double>(state.iterations() * records.size()) / kReferenceRate.at(subtask),
      benchmark::Counter::kIsRate);
}

// Shared by the threads of one run.
struct JobFixture {
  std::vector<ScoredRecord> records;
  std::unique_ptr<PythonPool> pool;
  std::atomic<size_t> next{0};
};
std::mutex fixture_mu;
std::map<std::string, std::unique_ptr<JobFixture>> fixtures;

JobFixture* Fixture(const std::string& key, const std::string& subtask, int workers) {
  std::lock_guard<std::mutex> lock(fixture_mu);
  auto& f = fixtures[key];
  if (!f) {
    f = std::make_unique<JobFixture>();
    f->records = bench::LoadCorpus(subtask, "gpt-3.5");
    f->pool = std::make_unique<PythonPool>(Options(workers));
    (void)f->pool->Info();
  }
  return f.get();
}

void BM_Pool(benchmark::State& state, const std::string& subtask) {
  JobFixture* f = Fixture(subtask + "/pool/" + std::to_string(state.threads()), subtask,
                          state.threads());
  if (f->records.empty()) {
    state.SkipWithError("no records: ../shared/conformance is absent");
    return;
  }
  const SubtaskSpec* spec = Spec(subtask);
  int64_t passed = 0;
  for (auto _ : state) {
    const size_t i = f->next++ % f->records.size();
    passed += Score(spec, f->records[i], f->pool.get());
  }
  benchmark::DoNotOptimize(passed);
  state.SetItemsProcessed(state.iterations());
}

void BM_FreshPython(benchmark::State& state, const std::string& subtask) {
  JobFixture* f = Fixture(subtask + "/fresh", subtask, 1);
  if (f->records.empty()) {
    state.SkipWithError("no records: ../shared/conformance is absent");
    return;
  }
  const SubtaskSpec* spec = Spec(subtask);
  int64_t passed = 0;
  for (auto _ : state) {
    const size_t i = f->next++ % f->records.size();
    PythonPool pool(Options(1));  // a new python3 for this sample alone
    passed += Score(spec, f->records[i], &pool);
  }
  benchmark::DoNotOptimize(passed);
  state.SetItemsProcessed(state.iterations());
}

class TargetReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto it = run.counters.find("x_reference");
      if (it == run.counters.end() || run.benchmark_name().find("/warm") == std::string::npos) {
        continue;
      }
      if (it->second.value < kTargetFactor) {
        std::fprintf(stderr, "BELOW TARGET: %s is %.1fx the Python reference (target %.0fx)\n",
                     run.benchmark_name().c_str(), it->second.value, kTargetFactor);
        missed = true;
      }
    }
  }
  bool missed = false;
};

}  // namespace
}  // namespace structtest

int main(int argc, char** argv) {
  using structtest::BM_Cold;
  using structtest::BM_FreshPython;
  using structtest::BM_Pool;
  using structtest::BM_Warm;
  for (const std::string s : {"add_print_statements", "replace_variables"}) {
    benchmark::RegisterBenchmark(("code/" + s + "/warm").c_str(),
                                 [s](benchmark::State& st) { BM_Warm(st, s); })
        ->MinTime(0.5);
    benchmark::RegisterBenchmark(("code/" + s + "/cold").c_str(),
                                 [s](benchmark::State& st) { BM_Cold(st, s); })
        ->Iterations(3)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (const std::string s : {"test_case_inputs_gen", "simulate_execute"}) {
    benchmark::RegisterBenchmark(("code/" + s + "/pool").c_str(),
                                 [s](benchmark::State& st) { BM_Pool(st, s); })
        ->Threads(1)
        ->Threads(2)
        ->Iterations(240)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("code/" + s + "/fresh_python").c_str(),
                                 [s](benchmark::State& st) { BM_FreshPython(st, s); })
        ->Threads(1)
        ->Threads(2)
        ->Iterations(20)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  structtest::TargetReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return reporter.missed ? 1 : 0;
}
