#include "testing/test_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "text/punkt.h"

namespace structtest::testing {

namespace fs = std::filesystem;

std::string SharedDir() {
  if (const char* env = std::getenv("STRUCTTEST_SHARED"); env && *env) {
    return fs::is_directory(env) ? std::string(env) : std::string();
  }
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(STRUCTTEST_SHARED_DIR, ec);
  if (ec || !fs::is_directory(p / "conformance")) return "";
  return p.string();
}

std::string SharedNltkData() {
  const std::string shared = SharedDir();
  if (shared.empty()) return "";
  const fs::path p = fs::path(shared) / "nltk_data";
  return fs::is_directory(p) ? p.string() : "";
}

std::unique_ptr<SentenceSplitter> BuiltinSentenceSplitter() {
  auto loaded = SentenceSplitter::LoadBuiltin();
  if (!loaded.ok()) {
    std::fprintf(stderr, "the built-in Punkt model does not load: %s\n",
                 loaded.status().message().c_str());
    std::abort();
  }
  return std::move(loaded).value();
}

std::map<std::string, double> ManifestFigures() {
  std::map<std::string, double> out;
  const nlohmann::json m = nlohmann::json::parse(
      ReadFileOrDie((fs::path(SharedDir()) / "conformance" / "dev" / "manifest.json").string()));
  for (const auto& f : m.at("files")) {
    out[f.at("file").get<std::string>()] = f.contains("task_macro_accuracy_pct")
                                               ? f["task_macro_accuracy_pct"].get<double>()
                                               : f.at("reference_accuracy_pct").get<double>();
  }
  return out;
}

std::string SourceDir() { return STRUCTTEST_SOURCE_DIR; }

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "structtest-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileOrDie(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string MutateJson(Rng& rng, std::string text) {
  constexpr std::string_view kBytes = "{}[]\":,\\0123456789eE.-+ntfu\x01\xC3\xA9\xFF\xED\xA0\x80 ";
  const int edits = static_cast<int>(rng.UniformInt(1, 4));
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const size_t at = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(text.size()) - 1));
    const char c = kBytes[static_cast<size_t>(rng.UniformInt(0, kBytes.size() - 1))];
    switch (rng.UniformInt(0, 3)) {
      case 0: text[at] = c; break;
      case 1: text.insert(at, 1, c); break;
      case 2: text.erase(at, 1); break;
      default: text.resize(at); break;
    }
  }
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

}  // namespace structtest::testing
