// Scoring throughput per subtask on the dev conformance corpus, one core: samples/s of
// ScoreResponse (registry lookup, params, checker, verdict) with the records already
// in memory (JSON parsing not counted), and the ratio to the Python reference measured
// on this machine. Two variants per subtask:
//   score/<subtask>/all    cycles over every record of the corpus (6k records do not
//                          fit in cache: each record's params and text come from RAM);
//   score/<subtask>/hot64  cycles over 64 records spread over the corpus, which stay in
//                          cache: what
//                          `structtest score` sees: it scores a record right after
//                          parsing it.
// A hot64 run below 30x the reference is named on stderr and the program exits 1.
// Needs ../shared (or STRUCTTEST_SHARED); without it every benchmark is skipped with a
// message.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/corpus.h"
#include "structtest/sample.h"
#include "tasks/scorer.h"
#include "text/punkt.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

// The Python reference on this machine, one core (issue #2).
const std::map<std::string, double> kReferenceRate = {
    {"length", 8.9e3},          {"bullet_points", 28e3},
    {"numbered_points", 19.7e3}, {"questions", 24.6e3},
    {"bullet_points_length", 9.7e3}, {"numbered_points_length", 10e3},
    {"indented_bullet_points", 19e3}, {"html_easy", 1.9e3},
    {"html_hard", 1.9e3},       {"math_easy", 275e3},
    {"math_hard", 69e3}};
constexpr double kTargetFactor = 30;

const SentenceSplitter* Splitter() {
  static const std::unique_ptr<SentenceSplitter> splitter = [] {
    auto s = SentenceSplitter::LoadBuiltin();
    return s.ok() ? std::move(s).value() : nullptr;
  }();
  return splitter.get();
}

// Loaded once per subtask, not once per benchmark run.
const std::vector<ScoredRecord>& Records(const std::string& subtask) {
  static std::map<std::string, std::vector<ScoredRecord>> cache;
  auto it = cache.find(subtask);
  if (it == cache.end()) it = cache.emplace(subtask, bench::LoadCorpus(subtask)).first;
  return it->second;
}

void BM_Score(benchmark::State& state, const std::string& subtask, size_t limit,
              RuleSet rules) {
  const std::vector<ScoredRecord>& all = Records(subtask);
  // `limit` records spread evenly over the corpus (every model, every length).
  std::vector<ScoredRecord> records;
  const size_t n = limit == 0 ? all.size() : std::min(limit, all.size());
  for (size_t k = 0; k < n; ++k) records.push_back(all[k * all.size() / std::max<size_t>(n, 1)]);
  if (records.empty()) {
    state.SkipWithError("no records: ../shared/conformance is absent");
    return;
  }
  CheckEnv env;
  env.sentences = Splitter();
  if (env.sentences == nullptr) {
    state.SkipWithError("the built-in Punkt model does not load");
    return;
  }
  if (rules == RuleSet::kStrict) {
    // strict runs no Python here: a subtask that needs it is skipped, not timed failing
    auto v = ScoreResponse(records[0].sample, records[0].response.text, rules, env);
    if (!v.ok()) {
      state.SkipWithError(std::string(v.status().message()).c_str());
      return;
    }
  }
  size_t i = 0;
  int64_t passed = 0;
  for (auto _ : state) {
    const ScoredRecord& r = records[i];
    auto v = ScoreResponse(r.sample, r.response.text, rules, env);
    passed += v.ok() && v->pass;
    if (++i == records.size()) i = 0;
  }
  benchmark::DoNotOptimize(passed);
  state.SetItemsProcessed(state.iterations());
  state.counters["records"] = static_cast<double>(records.size());
  if (rules != RuleSet::kPaper) return;  // the reference scores the paper's rules
  state.counters["x_reference"] = benchmark::Counter(
      static_cast<double>(state.iterations()) / kReferenceRate.at(subtask),
      benchmark::Counter::kIsRate);
}

// Console output plus a verdict on the target: a run below kTargetFactor x the
// reference is named and makes the program exit 1.
class TargetReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto it = run.counters.find("x_reference");
      if (it == run.counters.end()) continue;
      if (it->second.value < kTargetFactor &&
          run.benchmark_name().find("/hot64") != std::string::npos) {
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
  for (const auto& [subtask, rate] : structtest::kReferenceRate) {
    for (const auto& [variant, limit] : {std::pair<std::string, size_t>{"all", 0}, {"hot64", 64}}) {
      benchmark::RegisterBenchmark(
          ("score/" + subtask + "/" + variant).c_str(),
          [s = subtask, n = limit](benchmark::State& st) {
            structtest::BM_Score(st, s, n, structtest::RuleSet::kPaper);
          })
          ->MinTime(0.5);
    }
    // Strict over the whole corpus: for comparing rules versions (no target).
    benchmark::RegisterBenchmark(("score_strict/" + subtask + "/all").c_str(),
                                 [s = subtask](benchmark::State& st) {
                                   structtest::BM_Score(st, s, 0, structtest::RuleSet::kStrict);
                                 })
        ->MinTime(0.5);
  }
  benchmark::Initialize(&argc, argv);
  structtest::TargetReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return reporter.missed ? 1 : 0;
}
