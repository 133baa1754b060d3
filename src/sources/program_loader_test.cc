#include "sources/program_loader.h"

#include <string>

#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

class ProgramLoaderTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& contents) {
    const std::string path = dir_.path() + "/data.json";
    WriteFileOrDie(path, contents);
    return path;
  }
  template <typename Loader>
  std::string Error(Loader load, const std::string& contents) {
    const auto r = load(Write(contents));
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    std::string m = r.status().message();
    if (m.rfind(dir_.path(), 0) == 0) m.replace(0, dir_.path().size(), "DIR");
    return m;
  }
  TempDir dir_;
};

TEST_F(ProgramLoaderTest, ReadsMbppRecords) {
  auto r = LoadMbpp(Write(R"J([{"task_id": 11, "code": "def f(s):\n    t = s\n    return t",
    "var_mapping": ["t:u"],
    "input_output": {"fn_name": "f", "inputs": ["\"a\"", "\"b\""], "outputs": ["\"a\"", "\"b\""]}}])J"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const Program& p = (*r)[0];
  EXPECT_EQ(p.id, "mbpp-11");
  EXPECT_EQ(p.task_id, "11");
  EXPECT_EQ(p.fn_name, "f");
  EXPECT_EQ(p.inputs, (std::vector<std::string>{"\"a\"", "\"b\""}));
  EXPECT_EQ(p.outputs[1], "\"b\"");
  EXPECT_EQ(p.var_mapping, std::vector<std::string>{"t:u"});
  EXPECT_TRUE(p.call_based());
}

TEST_F(ProgramLoaderTest, MbppErrorsNameFileRecordAndField) {
  EXPECT_EQ(Error(LoadMbpp, "{}"), "DIR/data.json: expected a JSON list of records, found object");
  EXPECT_EQ(Error(LoadMbpp, "[1"), "DIR/data.json: not valid JSON");
  EXPECT_EQ(Error(LoadMbpp, R"J([{"task_id": 1}])J"), "DIR/data.json: record 0: field 'code' missing");
  EXPECT_EQ(Error(LoadMbpp, R"J([{"task_id": 1, "code": "x = 1", "input_output": {"fn_name": "f",
      "inputs": ["1"], "outputs": [2]}}])J"),
            "DIR/data.json: record 0: field 'input_output.outputs[0]' is not a string (found number)");
  EXPECT_EQ(Error(LoadMbpp, R"J([{"task_id": 1, "code": "x = 1", "input_output": {"fn_name": "f",
      "inputs": ["1", "2"], "outputs": ["2"]}}])J"),
            "DIR/data.json: record 0: field 'outputs' has 1 entries for 2 inputs");
  EXPECT_EQ(Error(LoadMbpp, R"J([{"task_id": 1, "code": "x = 1", "var_mapping": ["x"],
      "input_output": {"fn_name": "f", "inputs": ["1"], "outputs": ["2"]}}])J"),
            "DIR/data.json: record 0: field 'var_mapping[0]' 'x' is not of the form old:new");
}

TEST_F(ProgramLoaderTest, ReadsAppsRecords) {
  auto r = LoadApps(Write(R"J([{"source_code": "print(input())", "inputs": ["hi\n"],
      "outputs": ["hi\n"]}, {"id": "x7", "solution": "print(2)", "inputs": [""], "outputs": ["2"]}])J"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].id, "apps-0");
  EXPECT_EQ((*r)[1].id, "apps-x7");
  EXPECT_EQ((*r)[1].source, "print(2)");
  EXPECT_FALSE((*r)[0].call_based());
  EXPECT_EQ(Error(LoadApps, R"J([{"source_code": "print(1)", "outputs": []}])J"),
            "DIR/data.json: record 0: field 'inputs' missing");
  EXPECT_EQ(Error(LoadApps, R"J([{"inputs": []}])J"),
            "DIR/data.json: record 0: field 'source_code' missing (or 'solution')");
  EXPECT_EQ(Error(LoadApps, R"J([{"source_code": "print(1)", "inputs": [], "outputs": []}])J"),
            "DIR/data.json: record 0: field 'inputs' is empty");
  EXPECT_EQ(Error(LoadApps, "[]"), "DIR/data.json: no records");
}

TEST(ProgramLoaderSharedTest, LoadsThePapersMbppData) {
  SKIP_WITHOUT_SHARED();
  auto r = LoadMbpp(::structtest::testing::SharedDir() + "/conformance/data/mbpp_structtest.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 240u);
  size_t pairs = 0;
  for (const Program& p : *r) pairs += p.inputs.size();
  EXPECT_EQ(pairs, 725u);  // the paper's simulate_execute samples
  EXPECT_EQ(r->front().task_id, "11");
  EXPECT_EQ(r->front().fn_name, "remove_Occ");
}

}  // namespace
}  // namespace structtest
