// What the tests that run the structtest binary against a fake model share: starting
// the binary, a small generated suite with its reference answers, and the verdicts a
// run exports. Header-only, for test files compiled with STRUCTTEST_BINARY (the binary
// under test, as the test executable is).
#ifndef STRUCTTEST_TESTING_CLI_RUNS_H_
#define STRUCTTEST_TESTING_CLI_RUNS_H_

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/test_support.h"

namespace structtest::testing {

// The binary under test, started as SpawnBinary starts it.
inline Child Spawn(const TempDir& dir, const std::vector<std::string>& args,
                   const std::string& tag) {
  return SpawnBinary(STRUCTTEST_BINARY, dir, args, tag);
}

inline Finished Exec(const TempDir& dir, const std::vector<std::string>& args,
                     const std::string& tag) {
  return Wait(Spawn(dir, args, tag));
}

// A small generated suite (html and math: no Punkt model or python3 needed) and, per
// prompt, the sample's id and reference answer.
struct GeneratedSuite {
  std::string path;
  std::map<std::string, std::pair<std::string, std::string>> by_prompt;  // -> id, answer
};

// `generate --tasks html,math --size SIZE --seed 5` into DIR/samples.jsonl.
inline GeneratedSuite MakeSuite(const TempDir& dir, const std::string& size = "0.03") {
  GeneratedSuite s;
  s.path = dir.path() + "/samples.jsonl";
  const Finished g = Exec(dir, {"generate", "--tasks", "html,math", "--size", size, "--seed",
                               "5", "--out", s.path},
                         "generate");
  EXPECT_EQ(g.exit_code, 0) << g.err;
  std::istringstream lines(ReadFileOrDie(s.path));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    s.by_prompt[j["messages"].back()["content"]] = {j["id"], j["target"]["answer"]};
  }
  return s;
}

// id -> pass of every scored record of `structtest export RUN`.
inline std::map<std::string, bool> ExportedVerdicts(const TempDir& dir, const std::string& run) {
  const std::string path = dir.path() + "/export.jsonl";
  const Finished e = Exec(dir, {"export", run, "--output", path}, "export");
  EXPECT_EQ(e.exit_code, 0) << e.err;
  std::map<std::string, bool> out;
  std::istringstream lines(ReadFileOrDie(path));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("verdict") && j["verdict"].is_object()) out[j["id"]] = j["verdict"]["pass"];
  }
  return out;
}

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_CLI_RUNS_H_
