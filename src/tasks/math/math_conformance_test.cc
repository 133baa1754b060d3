// The paper math checker against every recorded math_easy / math_hard verdict of
// ../shared/conformance/dev: result, format and accuracy must all agree. Bar: 100%
// per file. Skipped, with a message, when ../shared is absent.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "structtest/sample.h"
#include "tasks/math/family.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

TEST(MathConformanceTest, AgreesWithEveryRecordedVerdict) {
  SKIP_WITHOUT_SHARED();
  const fs::path dev =
      fs::path(::structtest::testing::SharedDir()) / "conformance" / "dev";
  int files = 0;
  for (const auto& model : fs::directory_iterator(dev)) {
    if (!model.is_directory()) continue;
    for (const auto& spec : MathFamily().subtasks) {
      const fs::path path = model.path() / (std::string(spec.name) + ".jsonl");
      std::ifstream in(path);
      if (!in) continue;
      ++files;
      int records = 0, agree = 0;
      std::string line;
      while (std::getline(in, line)) {
        const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        ASSERT_FALSE(j.is_discarded()) << path;
        auto rec = RecordFromJson(j);
        ASSERT_TRUE(rec.ok()) << rec.status().message();
        ++records;
        const auto v = spec.check_paper(rec->sample, rec->response.text, CheckEnv{});
        ASSERT_TRUE(v.ok()) << path << " id " << rec->sample.id << ": "
                            << v.status().message();
        const nlohmann::json& ref = j["reference"];
        const bool want = ref["result"].get<int>() == 1;
        const bool want_format = ref["format"].get<bool>();
        const bool want_accuracy = ref["accuracy"].get<bool>();
        if (v->pass == want && v->format == want_format && v->accuracy == want_accuracy) {
          ++agree;
        } else {
          ADD_FAILURE() << path << " id " << rec->sample.id << ": ours " << v->pass << "/"
                        << v->format.value_or(false) << "/" << v->accuracy.value_or(false)
                        << " (" << v->reason << "), reference " << ref.dump();
        }
      }
      std::printf("%s\n", fmt::format("math conformance: {}/{}: {}/{} = {:.2f}%",
                                      model.path().filename().string(), spec.name, agree,
                                      records, records ? 100.0 * agree / records : 0.0)
                              .c_str());
      EXPECT_GT(records, 0) << path;
    }
  }
  EXPECT_GT(files, 0) << "no math files under " << dev;
}

}  // namespace
}  // namespace structtest
