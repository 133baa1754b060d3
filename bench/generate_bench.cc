// Test-set generation throughput: samples/s per subtask of the default suite at paper
// size (built-in sources), and the whole suite end to end. Code subtasks also run their
// built-in programs in the sandbox when the suite is planned; that cost is measured
// apart (suite/plan) from producing the samples (generate/<subtask>).
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "tasks/suite.h"

namespace structtest {
namespace {

std::unique_ptr<Suite> PlanDefault(uint64_t seed) {
  GenerateOptions options;
  options.seed = seed;
  auto suite = Suite::Plan(options, nullptr);
  return suite.ok() ? std::move(suite).value() : nullptr;
}

// Planning: documents and word problems built, code programs run in the sandbox.
void BM_PlanDefaultSuite(benchmark::State& state) {
  uint64_t seed = 1;
  for (auto _ : state) {
    auto suite = PlanDefault(seed++);
    if (!suite) {
      state.SkipWithError("planning the default suite failed");
      return;
    }
    benchmark::DoNotOptimize(suite.get());
  }
}
BENCHMARK(BM_PlanDefaultSuite)->Unit(benchmark::kMillisecond)->Iterations(3);

const Suite* Planned() {
  static const std::unique_ptr<Suite> suite = PlanDefault(7);
  return suite.get();
}

void BM_Generate(benchmark::State& state, size_t k) {
  const Suite* suite = Planned();
  if (suite == nullptr || k >= suite->subtasks().size()) {
    state.SkipWithError("no such subtask in the default suite");
    return;
  }
  const PlannedSubtask& p = suite->subtasks()[k];
  size_t i = 0;
  for (auto _ : state) {
    auto sample = suite->Generate(p, i);
    if (!sample.ok()) {
      state.SkipWithError(sample.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(sample->id);
    if (++i == p.count) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace
}  // namespace structtest

int main(int argc, char** argv) {
  const structtest::Suite* suite = structtest::Planned();
  for (size_t k = 0; suite != nullptr && k < suite->subtasks().size(); ++k) {
    benchmark::RegisterBenchmark(
        ("generate/" + std::string(suite->subtasks()[k].ref.spec->name)).c_str(),
        [k](benchmark::State& st) { structtest::BM_Generate(st, k); })
        ->MinTime(0.3);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
