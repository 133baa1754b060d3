#include "sources/program_generator.h"

#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "python/python_pool.h"

namespace structtest {
namespace {

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1; }

class ProgramGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto info = pool_.Info();
    if (!info.ok()) GTEST_SKIP() << "no usable python3: " << info.status().message();
  }
  PythonPool pool_;
};

TEST(ProgramCandidateTest, SameSeedSameProgramsNewSeedNewOnes) {
  int differ = 0;
  for (size_t i = 0; i < 40; ++i) {
    const Program a = FunctionProgramCandidate(5, i), b = FunctionProgramCandidate(5, i);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.inputs, b.inputs);
    differ += a.source != FunctionProgramCandidate(6, i).source;
    const Program s = StdinProgramCandidate(5, i);
    EXPECT_EQ(s.source, StdinProgramCandidate(5, i).source);
    EXPECT_EQ(s.inputs, StdinProgramCandidate(5, i).inputs);
    differ += s.source != StdinProgramCandidate(6, i).source;
  }
  EXPECT_GT(differ, 70);
}

TEST(ProgramCandidateTest, SizesAndShapes) {
  std::set<std::string> names;
  for (size_t i = 0; i < 200; ++i) {
    const Program f = FunctionProgramCandidate(1, i);
    EXPECT_GE(Lines(f.source), 3) << f.source;
    EXPECT_LE(Lines(f.source), 30) << f.source;
    EXPECT_TRUE(f.call_based());
    EXPECT_EQ(f.source.rfind("def " + f.fn_name + "(", 0), 0u) << f.source;
    EXPECT_EQ(f.inputs.size(), kProgramInputs);
    names.insert(f.fn_name);
    const Program s = StdinProgramCandidate(1, i);
    EXPECT_GE(Lines(s.source), 50) << s.id;
    EXPECT_LE(Lines(s.source), 200) << s.id;
    EXPECT_FALSE(s.call_based());
    EXPECT_NE(s.source.find("sys.stdin"), std::string::npos);
    EXPECT_EQ(s.inputs.size(), kProgramInputs);
  }
  EXPECT_GE(names.size(), 20u) << "function templates should give variety";
}

TEST_F(ProgramGeneratorTest, EveryFunctionTemplateRunsAndTerminates) {
  std::vector<Program> programs;
  for (size_t t = 0; t < FunctionTemplateCount(); ++t) {
    for (size_t i = 0; i < 5; ++i) programs.push_back(FunctionProgramFromTemplate(3, i, t));
  }
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &programs, &failures).ok());
  for (const auto& [i, why] : failures) ADD_FAILURE() << programs[i].source << "\n" << why;
  for (const Program& p : programs) EXPECT_EQ(p.outputs.size(), p.inputs.size());
}

TEST_F(ProgramGeneratorTest, BuiltProgramsHaveVerifiedOutputs) {
  size_t runs = 0;
  auto functions = BuildFunctionPrograms(9, 30, &pool_, &runs);
  ASSERT_TRUE(functions.ok()) << functions.status().message();
  ASSERT_EQ(functions->size(), 30u);
  EXPECT_GT(runs, 0u);
  // A hand-checked one: the outputs are what Python returns.
  std::vector<Program> check = {*functions->begin()};
  check[0].outputs.clear();
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &check, &failures).ok());
  EXPECT_EQ(check[0].outputs, functions->front().outputs);

  auto programs = BuildStdinPrograms(9, 10, &pool_, &runs);
  ASSERT_TRUE(programs.ok()) << programs.status().message();
  ASSERT_EQ(programs->size(), 10u);
  for (const Program& p : *programs) {
    ASSERT_EQ(p.outputs.size(), p.inputs.size());
    for (const std::string& out : p.outputs) {
      EXPECT_NE(out.find("checksum: "), std::string::npos) << out;
    }
  }
}

TEST_F(ProgramGeneratorTest, FailingCandidatesAreReported) {
  Program loops;
  loops.id = "loops";
  loops.fn_name = "f";
  loops.source = "def f(n):\n    while True:\n        n = n + 1";
  loops.inputs = {"1"};
  Program raises = loops;
  raises.source = "def f(n):\n    return 1 // (n - 1)";
  Program fine = loops;
  fine.source = "def f(n):\n    m = n * 2\n    return (m, [n])";
  std::vector<Program> programs = {loops, raises, fine};
  programs[2].inputs = {"4"};
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &programs, &failures).ok());
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].first, 0u);
  EXPECT_NE(failures[0].second.find("time limit"), std::string::npos) << failures[0].second;
  EXPECT_NE(failures[1].second.find("ZeroDivisionError"), std::string::npos);
  EXPECT_EQ(programs[2].outputs, std::vector<std::string>{"(8, [4])"});

  Program stdin_prog;
  stdin_prog.id = "s";
  stdin_prog.source = "import sys\na = sys.stdin.read().split()\nprint(len(a))";
  stdin_prog.inputs = {"x y z\n", ""};
  Program exits = stdin_prog;
  exits.source = "import sys\nsys.exit(3)";
  std::vector<Program> stdin_programs = {stdin_prog, exits};
  failures.clear();
  ASSERT_TRUE(RunPrograms(&pool_, &stdin_programs, &failures).ok());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].first, 1u);
  EXPECT_EQ(stdin_programs[0].outputs, (std::vector<std::string>{"3\n", "0\n"}));
}

}  // namespace
}  // namespace structtest
