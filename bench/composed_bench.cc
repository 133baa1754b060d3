// The composed suite's cost per sample against the default suite's (issue 52: at most
// 2x): one sample generated, its reference answer taken (the oracle) and scored under
// strict, per iteration. default/<subtask> are the default suite's math and HTML
// subtasks (built-in sources, paper size); composed/k<K> the composed math subtask with
// K rules. Summarization and code are left out: their scoring needs the sentence model
// and the python sandbox, which the composed suite does not use, so they would only
// make the default suite look slower.
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "tasks/composed/composed.h"
#include "tasks/responders.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"

namespace structtest {
namespace {

std::unique_ptr<Suite> Plan(const GenerateOptions& options) {
  auto suite = Suite::Plan(options, nullptr);
  return suite.ok() ? std::move(suite).value() : nullptr;
}

void BM_GenerateAndScore(benchmark::State& state, const Suite* suite, size_t k) {
  if (suite == nullptr || k >= suite->subtasks().size()) {
    state.SkipWithError("no such subtask");
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
    auto answer = BuiltinRespond("oracle", *sample);
    auto verdict = ScoreResponse(*sample, answer.value(), RuleSet::kStrict, CheckEnv{});
    if (!verdict.ok() || !verdict->pass) {
      state.SkipWithError("the oracle did not pass");
      return;
    }
    benchmark::DoNotOptimize(verdict->pass);
    if (++i == p.count) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace
}  // namespace structtest

int main(int argc, char** argv) {
  using structtest::GenerateOptions;
  GenerateOptions defaults;
  defaults.seed = 7;
  defaults.tasks = {"math", "html"};
  static const auto default_suite = structtest::Plan(defaults);
  static std::unique_ptr<structtest::Suite> composed[structtest::kMaxRulesPerSample + 1];
  for (size_t k = 0; default_suite && k < default_suite->subtasks().size(); ++k) {
    benchmark::RegisterBenchmark(
        ("default/" + std::string(default_suite->subtasks()[k].ref.spec->name)).c_str(),
        [k](benchmark::State& st) { structtest::BM_GenerateAndScore(st, default_suite.get(), k); })
        ->MinTime(0.5);
  }
  for (int k = 1; k <= structtest::kMaxRulesPerSample; ++k) {
    GenerateOptions options;
    options.suite = "composed";
    options.seed = 7;
    options.rules_per_sample = k;
    composed[k] = structtest::Plan(options);
    const structtest::Suite* suite = composed[k].get();
    benchmark::RegisterBenchmark(("composed/k" + std::to_string(k)).c_str(),
                                 [suite](benchmark::State& st) {
                                   structtest::BM_GenerateAndScore(st, suite, 0);
                                 })
        ->MinTime(0.5);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
