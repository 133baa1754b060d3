// How fast the JSON of a score file can be read at all, one core: the floor under
// `structtest score` end to end (bench/score_e2e.sh), per subtask of the dev
// conformance corpus, with the lines already in memory:
//   floor/<subtask>/dom     simdjson's DOM parser over each line (the CPU's best kernel,
//                           chosen at run time), each top-level string taken as a
//                           view: the parse RecordReader starts with;
//   floor/<subtask>/reader  RecordReader::NextRecord itself, from a file in the page
//                           cache: reading, parsing and filling the record's fields.
// Counters: records/s and bytes/s. Issue 10 asks `score` for 10x the Python reference
// end to end, read, score and write; on math that is about 880k records/s, which
// these set against the parse alone. Needs ../shared (or STRUCTTEST_SHARED); without it every
// benchmark is skipped with a message.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include "bench/corpus.h"
#include "core/jsonl.h"
#include "core/record_io.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

// The subtask's corpus as one file (in a temporary folder) and as its lines, each
// with simdjson's padding readable after it.
struct Corpus {
  std::string path;
  std::string text;  // the lines, then padding
  std::vector<std::string_view> lines;
};

const Corpus& Load(const std::string& subtask) {
  static std::map<std::string, Corpus> cache;
  auto it = cache.find(subtask);
  if (it != cache.end()) return it->second;
  Corpus& c = cache[subtask];
  const fs::path dev = fs::path(bench::SharedDir()) / "conformance" / "dev";
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& model : fs::directory_iterator(dev, ec)) {
    const fs::path f = model.path() / (subtask + ".jsonl");
    if (fs::is_regular_file(f, ec)) files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    c.text += all.str();
  }
  if (c.text.empty()) return c;
  c.path = (fs::temp_directory_path() / ("structtest_json_floor_" + subtask + ".jsonl")).string();
  std::ofstream(c.path, std::ios::binary) << c.text;
  const size_t size = c.text.size();
  c.text.append(simdjson::SIMDJSON_PADDING, ' ');
  for (size_t begin = 0, nl; begin < size; begin = nl + 1) {
    nl = c.text.find('\n', begin);
    if (nl == std::string::npos || nl > size) nl = size;
    if (nl > begin) c.lines.emplace_back(c.text.data() + begin, nl - begin);
  }
  return c;
}

void Count(benchmark::State& state, const Corpus& c) {
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(c.lines.size()) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<int64_t>(c.text.size()) * state.iterations());
}

void BM_Dom(benchmark::State& state, const std::string& subtask) {
  const Corpus& c = Load(subtask);
  if (c.lines.empty()) return state.SkipWithError("no corpus (../shared or STRUCTTEST_SHARED)");
  simdjson::dom::parser parser;
  for (auto _ : state) {
    size_t sum = 0;
    for (std::string_view line : c.lines) {
      simdjson::dom::element root;
      if (parser.parse(line.data(), line.size(), false).get(root)) {
        return state.SkipWithError("a line simdjson refuses");
      }
      simdjson::dom::object obj;
      if (root.get_object().get(obj)) continue;
      for (const auto field : obj) {
        std::string_view s;
        if (!field.value.get_string().get(s)) sum += s.size();
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  Count(state, c);
}

void BM_Reader(benchmark::State& state, const std::string& subtask) {
  const Corpus& c = Load(subtask);
  if (c.lines.empty()) return state.SkipWithError("no corpus (../shared or STRUCTTEST_SHARED)");
  for (auto _ : state) {
    auto reader = RecordReader::Open(c.path);
    if (!reader.ok()) return state.SkipWithError(reader.status().message().c_str());
    ScoredRecord record;
    std::string problem;
    size_t n = 0;
    while ((*reader)->NextRecord(&record, &problem) != RecordReader::Result::kEnd) ++n;
    benchmark::DoNotOptimize(n);
  }
  Count(state, c);
}

const char* const kSubtasks[] = {"length", "bullet_points", "html_hard", "math_easy",
                                 "math_hard"};

}  // namespace
}  // namespace structtest

int main(int argc, char** argv) {
  using namespace structtest;
  if (!std::filesystem::is_directory(std::filesystem::path(bench::SharedDir()) / "conformance")) {
    std::fprintf(stderr, "json_floor_bench: %s/conformance not found: skipped\n",
                 bench::SharedDir().c_str());
  }
  for (const char* s : kSubtasks) {
    const std::string subtask = s;
    benchmark::RegisterBenchmark(("floor/" + subtask + "/dom").c_str(), BM_Dom, subtask)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("floor/" + subtask + "/reader").c_str(), BM_Reader, subtask)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const char* s : kSubtasks) {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::temp_directory_path() /
                                (std::string("structtest_json_floor_") + s + ".jsonl"),
                            ec);
  }
  return 0;
}
