// Scoring throughput of the paper HTML checker on the recorded conformance responses
// (already in memory; reading and JSON parsing are not timed). Needs ../shared.
//   structtest_html_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "structtest/sample.h"
#include "tasks/html/family.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

std::vector<ScoredRecord> Load(std::string_view subtask) {
  std::vector<ScoredRecord> out;
  const fs::path dev = fs::path(STRUCTTEST_SHARED_DIR) / "conformance" / "dev";
  std::error_code ec;
  for (const auto& model : fs::directory_iterator(dev, ec)) {
    std::ifstream in(model.path() / (std::string(subtask) + ".jsonl"));
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;
      auto r = RecordFromJson(j);
      if (r.ok()) out.push_back(std::move(r).value());
    }
  }
  return out;
}

void BM_Html(benchmark::State& state, const char* subtask, int index) {
  const std::vector<ScoredRecord> records = Load(subtask);
  if (records.empty()) {
    state.SkipWithError("no conformance records (../shared absent?)");
    return;
  }
  const CheckFn check = HtmlFamily().subtasks[index].check_paper;
  // range(0): how many records to cycle through (0: all). A few stay in cache; all
  // of them (about 10 MB with their JSON) mostly do not.
  const size_t n = state.range(0) > 0 ? std::min<size_t>(state.range(0), records.size())
                                      : records.size();
  size_t i = 0, passes = 0, bytes = 0;
  for (auto _ : state) {
    const ScoredRecord& r = records[i];
    auto v = check(r.sample, r.response.text, CheckEnv{});
    passes += v.ok() && v->pass;
    bytes += r.response.text.size();
    benchmark::DoNotOptimize(v);
    if (++i == n) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["pass_rate"] = static_cast<double>(passes) / state.iterations();
}

BENCHMARK_CAPTURE(BM_Html, html_easy, "html_easy", 0)->Arg(1)->Arg(64)->Arg(0);
BENCHMARK_CAPTURE(BM_Html, html_hard, "html_hard", 1)->Arg(1)->Arg(64)->Arg(0);

}  // namespace
}  // namespace structtest

BENCHMARK_MAIN();
