#include "bench/corpus.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/jsonl.h"

namespace structtest::bench {

namespace fs = std::filesystem;

std::string SharedDir() {
  if (const char* env = std::getenv("STRUCTTEST_SHARED"); env && *env) return env;
  return STRUCTTEST_SHARED_DIR;
}

std::vector<ScoredRecord> LoadCorpus(const std::string& subtask, const std::string& only_model) {
  std::vector<ScoredRecord> out;
  const fs::path dev = fs::path(SharedDir()) / "conformance" / "dev";
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& model : fs::directory_iterator(dev, ec)) {
    if (!only_model.empty() && model.path().filename() != only_model) continue;
    const fs::path f = model.path() / (subtask + ".jsonl");
    if (fs::is_regular_file(f, ec)) files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    auto reader = JsonlReader::Open(f.string());
    if (!reader.ok()) continue;
    nlohmann::json j;
    std::string problem;
    while ((*reader)->Next(&j, &problem) == JsonlReader::Result::kRecord) {
      if (auto r = RecordFromJson(j); r.ok()) out.push_back(std::move(r).value());
    }
  }
  return out;
}

}  // namespace structtest::bench
