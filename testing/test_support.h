// Shared test support: where the shared material is, temp dirs, reading test files.
#ifndef STRUCTTEST_TESTING_TEST_SUPPORT_H_
#define STRUCTTEST_TESTING_TEST_SUPPORT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "core/rng.h"

namespace structtest {
class SentenceSplitter;
}  // namespace structtest

namespace structtest::testing {

// The ../shared folder beside the checkout (or $STRUCTTEST_SHARED), or "" when absent.
std::string SharedDir();
// SharedDir()/nltk_data, or "" when absent.
std::string SharedNltkData();
// The Punkt splitter with the built-in English model (SentenceSplitter::LoadBuiltin);
// never null: a model that does not load aborts the test binary with the reason.
std::unique_ptr<SentenceSplitter> BuiltinSentenceSplitter();

// The manifest's published figure for each conformance file ("model/subtask.jsonl"):
// the per-task rate where the paper reports one (simulate_execute), else the share of
// passing records. REQUIRES: SharedDir() is not empty.
std::map<std::string, double> ManifestFigures();

// The source tree root.
std::string SourceDir();
// A fresh empty directory, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A process started by SpawnBinary: its pid and the files its output goes to.
struct Child {
  pid_t pid = -1;
  std::string out_path, err_path;
};
struct Finished {
  int exit_code;  // 128 + the signal when one killed it
  std::string out, err;
};
// Starts `binary` with `args` (no shell): stdin /dev/null, stdout and stderr to
// DIR/TAG.out and DIR/TAG.err; `dir` is its HOME and STRUCTTEST_CACHE is left out of its
// environment, so that a default response cache lands there, never in the user's.
Child SpawnBinary(const std::string& binary, const TempDir& dir,
                  const std::vector<std::string>& args, const std::string& tag);
// Waits for `c` to end.
Finished Wait(const Child& c);

std::string ReadFileOrDie(const std::string& path);
void WriteFileOrDie(const std::string& path, const std::string& contents);

// The JSON text an HTML report page carries (its report-data script: gzip, which the
// page compresses with ISA-L, in base64), inflated with zlib; throws when the page has
// none or it does not inflate.
std::string HtmlPageData(const std::string& page);

// `text` with 1-4 random edits (a byte replaced, inserted or removed, or the rest cut
// off), drawn from bytes that matter to a JSON reader: structure, digits, escapes,
// control and multi-byte UTF-8 bytes, invalid ones too. Newlines become spaces, so a
// mutated line stays one line.
std::string MutateJson(Rng& rng, std::string text);

}  // namespace structtest::testing

// Skips the current test with a visible message when ../shared is absent.
#define SKIP_WITHOUT_SHARED()                                                   \
  do {                                                                          \
    if (::structtest::testing::SharedDir().empty())                             \
      GTEST_SKIP() << "../shared is absent: this test needs the shared corpus"; \
  } while (0)

#endif  // STRUCTTEST_TESTING_TEST_SUPPORT_H_
