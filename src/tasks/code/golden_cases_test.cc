// The code family's golden cases (testdata/golden*.jsonl, the format tests/golden_test.cc
// reads: {"name", "description", "sample", "response", "pass", "reason"}), scored here
// through the family's own table so that they run before the family is in the registry.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/jsonl.h"
#include "python/python_pool.h"
#include "tasks/code/family.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

TEST(CodeGoldenTest, EveryCaseGetsItsVerdictAndReason) {
  const fs::path dir = fs::path(STRUCTTEST_SOURCE_DIR) / "src" / "tasks" / "code" / "testdata";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("golden") && name.ends_with(".jsonl")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  PythonOptions o;
  o.worker_script = STRUCTTEST_WORKER_SCRIPT;
  PythonPool pool(o);
  CheckEnv env;
  env.python = &pool;
  int cases = 0;
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
      const SubtaskSpec* spec = nullptr;
      for (const SubtaskSpec& s : CodeFamily().subtasks) {
        if (s.name == record->sample.subtask) spec = &s;
      }
      ASSERT_NE(spec, nullptr) << where;
      ASSERT_EQ(record->sample.domain, "code") << where;
      auto v = spec->check_paper(record->sample, record->response.text, env);
      ASSERT_TRUE(v.ok()) << where << ": " << v.status().message();
      ++cases;
      EXPECT_EQ(v->pass, c.at("pass").get<bool>()) << where << ": " << v->reason;
      EXPECT_EQ(v->reason, c.at("reason").get<std::string>()) << where;
    }
  }
  std::printf("code golden: %d cases in %zu files\n", cases, files.size());
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace structtest
