#include "testing/test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "text/punkt.h"

extern char** environ;

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

Child SpawnBinary(const std::string& binary, const TempDir& dir,
                  const std::vector<std::string>& args, const std::string& tag) {
  Child c;
  c.out_path = dir.path() + "/" + tag + ".out";
  c.err_path = dir.path() + "/" + tag + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_s = {binary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = {"HOME=" + dir.path()};
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view var(*e);
    if (!var.starts_with("HOME=") && !var.starts_with("STRUCTTEST_CACHE=")) env_s.emplace_back(var);
  }
  std::vector<char*> env;
  for (std::string& e : env_s) env.push_back(e.data());
  env.push_back(nullptr);
  EXPECT_EQ(posix_spawn(&c.pid, binary.c_str(), &actions, nullptr, argv.data(), env.data()), 0)
      << binary;
  posix_spawn_file_actions_destroy(&actions);
  return c;
}

Finished Wait(const Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
          ReadFileOrDie(c.out_path), ReadFileOrDie(c.err_path)};
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
