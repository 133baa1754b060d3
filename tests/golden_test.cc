// Golden checker cases: every src/tasks/*/testdata/golden*.jsonl line is
// {"name", "description", "sample", "response", "pass", "reason"[, "format",
// "accuracy", "rules"]} and must get exactly that verdict and reason under its rule
// set ("rules": "paper", the default, or "strict").
// Sentence-counting cases use the built-in Punkt model, so every case runs anywhere.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/jsonl.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "testing/test_support.h"
#include "sandbox/python_pool.h"
#include "text/punkt.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> GoldenFiles() {
  std::vector<fs::path> files;
  const fs::path tasks = fs::path(::structtest::testing::SourceDir()) / "src" / "tasks";
  for (const auto& e : fs::recursive_directory_iterator(tasks)) {
    const std::string name = e.path().filename().string();
    if (e.path().parent_path().filename() == "testdata" && name.starts_with("golden") &&
        name.ends_with(".jsonl")) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(GoldenTest, EveryCaseGetsItsVerdictAndReason) {
  const std::unique_ptr<SentenceSplitter> splitter =
      ::structtest::testing::BuiltinSentenceSplitter();
  PythonPool python;
  const auto files = GoldenFiles();
  ASSERT_FALSE(files.empty());
  int cases = 0;
  std::map<std::string, int> per_rules;
  for (const fs::path& file : files) {
    auto reader = JsonlReader::Open(file.string());
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    nlohmann::json c;
    std::string problem;
    for (;;) {
      const auto r = (*reader)->Next(&c, &problem);
      if (r == JsonlReader::Result::kEnd) break;
      ASSERT_EQ(r, JsonlReader::Result::kRecord) << problem;
      const std::string where = file.filename().string() + ":" +
                                std::to_string((*reader)->line_number()) + " " +
                                c.value("name", "?");
      nlohmann::json rec = c.at("sample");
      rec["response"] = c.at("response");
      auto record = RecordFromJson(rec);
      ASSERT_TRUE(record.ok()) << where << ": " << record.status().message();
      auto ref = FindSubtask(record->sample.domain, record->sample.subtask);
      ASSERT_TRUE(ref.ok()) << where << ": " << ref.status().message();
      CheckEnv env;
      env.sentences = splitter.get();
      env.python = &python;
      auto rules = ParseRuleSet(c.value("rules", "paper"));
      ASSERT_TRUE(rules.ok()) << where << ": " << rules.status().message();
      auto v = ScoreResponse(record->sample, record->response.text, *rules, env);
      ASSERT_TRUE(v.ok()) << where << ": " << v.status().message();
      ++cases;
      ++per_rules[std::string(RuleSetName(*rules))];
      EXPECT_EQ(v->pass, c.at("pass").get<bool>()) << where << ": " << v->reason;
      EXPECT_EQ(v->reason, c.at("reason").get<std::string>()) << where;
      if (c.contains("format")) {
        EXPECT_EQ(v->format, c["format"].get<bool>()) << where;
      }
      if (c.contains("accuracy")) {
        EXPECT_EQ(v->accuracy, c["accuracy"].get<bool>()) << where;
      }
    }
  }
  std::printf("golden: %d cases checked in %zu files (paper %d, strict %d)\n", cases,
              files.size(), per_rules["paper"], per_rules["strict"]);
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace structtest
