#include "core/file_util.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::TempDir;

TEST(WriteFileAtomicallyTest, ReplacesTheFileWhole) {
  TempDir dir;
  const std::string path = dir.path() + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first, longer contents\n").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("second\0x", 8)).ok());
  EXPECT_EQ(ReadFileOrDie(path), std::string("second\0x", 8));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

// The error names the file asked for, not the temporary one, and says why.
TEST(WriteFileAtomicallyTest, AFailureNamesTheFileAskedFor) {
  TempDir dir;
  const std::string path = dir.path() + "/no-such-folder/out.json";
  const Status s = WriteFileAtomically(path, "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), path + ": cannot write: No such file or directory");
  // A folder in the file's place: the rename fails, and nothing is left behind.
  const std::string taken = dir.path() + "/taken";
  std::filesystem::create_directories(taken + "/inside");
  const Status r = WriteFileAtomically(taken, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message().rfind(taken + ": cannot write: ", 0), 0u) << r.message();
  EXPECT_EQ(r.message().find(".tmp"), std::string::npos) << r.message();
  EXPECT_FALSE(std::filesystem::exists(taken + ".tmp"));
}

}  // namespace
}  // namespace structtest
