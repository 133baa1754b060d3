#include "sources/program_store.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace structtest {
namespace {

Program MakeProgram(size_t i, size_t inputs, size_t tests) {
  Program p;
  p.id = "p-" + std::to_string(i);
  p.task_id = i % 2 ? std::to_string(100 + i) : p.id;
  p.source = "def f(x):\n    y = x\n    return y  # " + std::string(i * 37, 'x');
  p.fn_name = i % 3 ? "f" : "";
  for (size_t k = 0; k < inputs; ++k) {
    p.inputs.push_back(std::to_string(k) + std::string("\0\n\xc3\xa9", 4));
    p.outputs.push_back(std::to_string(k * k));
    if (i % 2) p.exact_outputs.push_back(k % 3 ? '1' : '0');
  }
  p.test_inputs = tests;
  p.var_mapping = {"y:y_new", "x:x_val"};
  p.printed_source = p.source + "\nprint(y)";
  p.renamed_source = i % 4 ? p.source + " renamed" : "";
  return p;
}

void ExpectSameProgram(const Program& a, const Program& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.task_id, b.task_id);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.fn_name, b.fn_name);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.exact_outputs, b.exact_outputs);
  EXPECT_EQ(a.test_inputs, b.test_inputs);
  EXPECT_EQ(a.var_mapping, b.var_mapping);
  EXPECT_EQ(a.printed_source, b.printed_source);
  EXPECT_EQ(a.renamed_source, b.renamed_source);
}

class ProgramStoreTest : public ::testing::Test {
 protected:
  // The store's file goes to a directory of the test's own, to see that nothing stays.
  void SetUp() override {
    const char* old = std::getenv("TMPDIR");
    old_tmpdir_ = old == nullptr ? "" : old;
    setenv("TMPDIR", dir_.path().c_str(), 1);
  }
  void TearDown() override {
    if (old_tmpdir_.empty()) {
      unsetenv("TMPDIR");
    } else {
      setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    }
  }
  bool DirIsEmpty() const { return std::filesystem::is_empty(dir_.path()); }

  ::structtest::testing::TempDir dir_;
  std::string old_tmpdir_;
};

TEST_F(ProgramStoreTest, GivesBackEveryFieldOfEveryProgramInAnyOrder) {
  auto store = ProgramStore::Create();
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_TRUE(DirIsEmpty()) << "the temporary file is unlinked at once";
  EXPECT_TRUE((*store)->empty());
  std::vector<Program> programs;
  for (size_t i = 0; i < 40; ++i) programs.push_back(MakeProgram(i, i % 5, i % 3));
  programs.push_back(Program());  // every field empty
  for (const Program& p : programs) ASSERT_TRUE((*store)->Append(p).ok());
  ASSERT_EQ((*store)->size(), programs.size());
  for (size_t i = programs.size(); i-- > 0;) {
    auto p = (*store)->Get(i);
    ASSERT_TRUE(p.ok()) << p.status().message();
    ExpectSameProgram(*p, programs[i]);
  }
  auto again = (*store)->Get(7);
  ASSERT_TRUE(again.ok());
  ExpectSameProgram(*again, programs[7]);
}

TEST_F(ProgramStoreTest, TestPairsFollowEachProgramsTestCount) {
  auto store = ProgramStore::Create();
  ASSERT_TRUE(store.ok()) << store.status().message();
  // test_count: 3 of 4, none (0 inputs), all 2 (test_inputs 0), 1 of 6.
  for (const auto& [inputs, tests] : std::vector<std::pair<size_t, size_t>>{
           {4, 3}, {0, 2}, {2, 0}, {6, 1}}) {
    ASSERT_TRUE((*store)->Append(MakeProgram(0, inputs, tests)).ok());
  }
  ASSERT_EQ((*store)->test_pairs(), 6u);
  const std::vector<std::pair<size_t, size_t>> want = {{0, 0}, {0, 1}, {0, 2},
                                                       {2, 0}, {2, 1}, {3, 0}};
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ((*store)->TestPair(k), want[k]) << k;
}

TEST_F(ProgramStoreTest, AMissingTemporaryDirectoryIsAnError) {
  setenv("TMPDIR", (dir_.path() + "/missing").c_str(), 1);
  auto store = ProgramStore::Create();
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(dir_.path() + "/missing: cannot make a temporary "
                                                        "file for the code programs"),
            std::string::npos)
      << store.status().message();
}

}  // namespace
}  // namespace structtest
