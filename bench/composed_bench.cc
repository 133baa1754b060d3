// The composed suite's cost per sample against the default suite's (issue 52: at most
// 2x): one sample generated, its reference answer taken (the oracle) and scored under
// strict, per iteration. default/<subtask> are the default suite's summarization, HTML
// and math subtasks (built-in sources, paper size; the built-in sentence model);
// composed/<subtask> the composed subtasks at every K, of every domain with a rule library
// (`--benchmark_filter=html` compares default and composed HTML).
// default/add_print_statements and default/replace_variables, the code subtasks that also
// ask for an edited copy of a given function, are the ones composed code compares with:
// their strict checkers read the program with Python's ast in the sandbox (a python pool
// here); composed code's checkers run no Python. Both draw from the built-in functions,
// which the suite prepares before the benchmark starts.
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "sandbox/python_pool.h"
#include "tasks/composed/composed.h"
#include "tasks/responders.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest {
namespace {

std::unique_ptr<Suite> Plan(const GenerateOptions& options) {
  auto suite = Suite::Plan(options, nullptr);
  return suite.ok() ? std::move(suite).value() : nullptr;
}

const SentenceSplitter* Sentences() {
  static const std::unique_ptr<SentenceSplitter> splitter = [] {
    auto loaded = SentenceSplitter::LoadBuiltin();
    return loaded.ok() ? std::move(loaded).value() : nullptr;
  }();
  return splitter.get();
}

void BM_GenerateAndScore(benchmark::State& state, const Suite* suite, size_t k) {
  if (suite == nullptr || k >= suite->subtasks().size()) {
    state.SkipWithError("no such subtask");
    return;
  }
  const PlannedSubtask& p = suite->subtasks()[k];
  static PythonPool python;
  CheckEnv env;
  env.sentences = Sentences();
  env.python = &python;
  size_t i = 0;
  for (auto _ : state) {
    auto sample = suite->Generate(p, i);
    if (!sample.ok()) {
      state.SkipWithError(sample.status().message().c_str());
      return;
    }
    auto answer = BuiltinRespond("oracle", *sample);
    auto verdict = ScoreResponse(*sample, answer.value(), RuleSet::kStrict, env);
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
  defaults.tasks = {"summarization", "html", "math"};
  static const auto default_suite = structtest::Plan(defaults);
  static std::unique_ptr<structtest::Suite> composed[structtest::kMaxRulesPerSample + 1];
  for (size_t k = 0; default_suite && k < default_suite->subtasks().size(); ++k) {
    benchmark::RegisterBenchmark(
        ("default/" + std::string(default_suite->subtasks()[k].ref.spec->name)).c_str(),
        [k](benchmark::State& st) { structtest::BM_GenerateAndScore(st, default_suite.get(), k); })
        ->MinTime(0.5);
  }
  GenerateOptions code_defaults;
  code_defaults.seed = 7;
  code_defaults.tasks = {"add_print_statements", "replace_variables"};
  static const auto default_code = structtest::Plan(code_defaults);
  for (size_t k = 0; default_code && k < default_code->subtasks().size(); ++k) {
    benchmark::RegisterBenchmark(
        ("default/" + std::string(default_code->subtasks()[k].ref.spec->name)).c_str(),
        [k](benchmark::State& st) { structtest::BM_GenerateAndScore(st, default_code.get(), k); })
        ->MinTime(0.5);
  }
  for (int k = 1; k <= structtest::kMaxRulesPerSample; ++k) {
    GenerateOptions options;
    options.suite = "composed";
    options.seed = 7;
    options.rules_per_sample = k;
    composed[k] = structtest::Plan(options);
    const structtest::Suite* suite = composed[k].get();
    for (size_t j = 0; suite != nullptr && j < suite->subtasks().size(); ++j) {
      benchmark::RegisterBenchmark(
          ("composed/" + std::string(suite->subtasks()[j].ref.spec->name)).c_str(),
          [suite, j](benchmark::State& st) { structtest::BM_GenerateAndScore(st, suite, j); })
          ->MinTime(0.5);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
