#include "testing/test_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

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

std::string HtmlPageData(const std::string& page) {
  const std::string open = "<script type=\"application/octet-stream\" id=\"report-data\">";
  const size_t at = page.find(open);
  if (at == std::string::npos) throw std::runtime_error("the page has no report-data script");
  const size_t start = at + open.size();
  const size_t end = page.find("</script>", start);
  std::string gz;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = start; i < end && page[i] != '='; ++i) {
    const char c = page[i];
    const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* d = c != '\0' ? std::strchr(digits, c) : nullptr;
    if (d == nullptr) throw std::runtime_error("report-data: not base64");
    acc = (acc << 6) | static_cast<uint32_t>(d - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      gz += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::runtime_error("inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(gz.data());
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 14];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("report-data: does not inflate");
  return out;
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
