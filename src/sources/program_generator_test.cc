#include "sources/program_generator.h"

#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "sandbox/python_pool.h"

namespace structtest {
namespace {

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1; }

class ProgramGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto info = pool_.Info();
    if (!info.ok()) GTEST_SKIP() << "no usable python3: " << info.status().message();
  }

  // The first `count` built-in candidates kept, in order.
  std::vector<Program> Build(uint64_t seed, size_t count, bool functions,
                             size_t* runs = nullptr) {
    std::vector<Program> kept;
    ProgramSink keep = [&](Program p) {
      kept.push_back(std::move(p));
      return Status::Ok();
    };
    const Status s = functions ? BuildFunctionPrograms(seed, count, &pool_, keep, runs)
                               : BuildStdinPrograms(seed, count, &pool_, keep, runs);
    EXPECT_TRUE(s.ok()) << s.message();
    return kept;
  }

  PythonPool pool_;
};

// A hand-written stdin program, and a function named f.
Program StdinProgram(std::string id, std::string source, std::vector<std::string> inputs) {
  Program p;
  p.id = std::move(id);
  p.source = std::move(source);
  p.inputs = std::move(inputs);
  return p;
}

Program Function(std::string id, std::string source, std::vector<std::string> inputs) {
  Program p = StdinProgram(std::move(id), std::move(source), std::move(inputs));
  p.fn_name = "f";
  return p;
}

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
  const std::vector<Program> functions = Build(9, 30, true, &runs);
  ASSERT_EQ(functions.size(), 30u);
  EXPECT_GT(runs, 0u);
  // A hand-checked one: the outputs are what Python returns.
  std::vector<Program> check = {functions.front()};
  check[0].outputs.clear();
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &check, &failures).ok());
  EXPECT_EQ(check[0].outputs, functions.front().outputs);

  const std::vector<Program> programs = Build(9, 10, false, &runs);
  ASSERT_EQ(programs.size(), 10u);
  for (const Program& p : programs) {
    ASSERT_EQ(p.outputs.size(), p.inputs.size());
    for (const std::string& out : p.outputs) {
      EXPECT_NE(out.find("checksum: "), std::string::npos) << out;
    }
  }
}

// A call's output is marked exact when its repr is the returned value itself: a float,
// a tuple of a bool and a string; not a frozenset (its repr is a call, not a literal)
// nor a value whose repr loses its type (a float subclass).
TEST_F(ProgramGeneratorTest, OutputsThatAreTheReturnedValueAreMarkedExact) {
  Program p;
  p.id = "p";
  p.fn_name = "f";
  p.source =
      "class F(float):\n    pass\n"
      "def f(n):\n"
      "    if n == 0:\n        return 2.0\n"
      "    if n == 1:\n        return (True, 'a')\n"
      "    if n == 2:\n        return frozenset({1})\n"
      "    return F(1.5)\n";
  p.inputs = {"0", "1", "2", "3"};
  std::vector<Program> programs = {p};
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &programs, &failures).ok());
  for (const auto& [i, why] : failures) ADD_FAILURE() << why;
  EXPECT_EQ(programs[0].outputs,
            (std::vector<std::string>{"2.0", "(True, 'a')", "frozenset({1})", "1.5"}));
  EXPECT_EQ(programs[0].exact_outputs, "1100");
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
  EXPECT_EQ(failures[0].second, "input 1: time limit (more than 1 s)");
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

// However the programs are grouped into jobs, the outputs and failures are the same.
TEST_F(ProgramGeneratorTest, ThreeJobsGiveWhatOneJobGives) {
  for (const bool functions : {true, false}) {
    std::vector<Program> programs;
    for (size_t i = 0; i < 12; ++i) {
      programs.push_back(functions ? FunctionProgramCandidate(21, i) : StdinProgramCandidate(21, i));
    }
    // One that fails, in the middle job.
    programs[5] = functions ? Function("bad", "def f(n):\n    return 1 // 0", {"1"})
                            : StdinProgram("bad", "raise ValueError('no')", {"1\n"});
    std::vector<Program> one = programs, three = programs;
    std::vector<std::pair<size_t, std::string>> one_failures, three_failures;
    const int64_t jobs = pool_.jobs_run();
    ASSERT_TRUE(RunPrograms(&pool_, &one, &one_failures, nullptr, 12).ok());
    EXPECT_EQ(pool_.jobs_run() - jobs, 1);
    ASSERT_TRUE(RunPrograms(&pool_, &three, &three_failures, nullptr, 4).ok());
    EXPECT_EQ(pool_.jobs_run() - jobs, 4);
    EXPECT_EQ(one_failures, three_failures);
    ASSERT_EQ(one_failures.size(), 1u);
    EXPECT_EQ(one_failures[0].first, 5u);
    for (size_t i = 0; i < programs.size(); ++i) {
      EXPECT_EQ(one[i].outputs, three[i].outputs) << i;
      EXPECT_EQ(one[i].outputs.empty(), i == 5) << i;
    }
  }
}

// The builders keep the first `count` candidates that run cleanly, as one job over
// enough candidates would: running them 64 at a time changes nothing.
TEST_F(ProgramGeneratorTest, BuildersKeepWhatOneJobWouldKeep) {
  const size_t count = 70;  // two jobs of candidates
  const int64_t jobs = pool_.jobs_run();
  const std::vector<Program> built = Build(5, count, true);
  const int64_t build_jobs = pool_.jobs_run() - jobs;
  EXPECT_GE(build_jobs, 2);
  std::vector<Program> candidates;
  for (size_t i = 0; i < count + 8; ++i) candidates.push_back(FunctionProgramCandidate(5, i));
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &candidates, &failures, nullptr, candidates.size()).ok());
  EXPECT_EQ(pool_.jobs_run() - jobs, build_jobs + 1);
  std::vector<Program> clean;
  for (Program& p : candidates) {
    if (!p.outputs.empty() && clean.size() < count) clean.push_back(std::move(p));
  }
  ASSERT_EQ(built.size(), clean.size());
  for (size_t i = 0; i < built.size(); ++i) {
    EXPECT_EQ(built[i].id, clean[i].id);
    EXPECT_EQ(built[i].outputs, clean[i].outputs) << built[i].id;
  }
}

// An input whose output is too big fails (the candidate is dropped) with the limit it
// hit, and stops early: an endless print loop does not wait for the time limit.
TEST_F(ProgramGeneratorTest, TooMuchOutputFailsTheInputWithTheOutputLimit) {
  std::vector<Program> stdin_programs = {
      StdinProgram("small", "print(input())", {"hello\n", "x\n"}),
      StdinProgram("big", "n = int(input())\nprint('x' * n)", {"10\n", "100000\n"}),
      StdinProgram("endless", "while True:\n    print('spam')", {"\n"}),
  };
  std::vector<std::pair<size_t, std::string>> failures;
  ASSERT_TRUE(RunPrograms(&pool_, &stdin_programs, &failures).ok());
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0], (std::pair<size_t, std::string>{
                             1, "input 2: output limit (printed more than 2048 characters)"}));
  EXPECT_EQ(failures[1], (std::pair<size_t, std::string>{
                             2, "input 1: output limit (printed more than 2048 characters)"}));
  EXPECT_EQ(stdin_programs[0].outputs, (std::vector<std::string>{"hello\n", "x\n"}));

  std::vector<Program> functions = {
      Function("wide", "def f(n):\n    return 'x' * n", {"3", "5000"}),
  };
  failures.clear();
  ASSERT_TRUE(RunPrograms(&pool_, &functions, &failures).ok());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].second,
            "input 2: output limit (a value whose repr has 5002 characters, more than 2048)");
}

// A job that dies without a result names the program, the input and what happened,
// never just "no result".
TEST_F(ProgramGeneratorTest, AJobThatDiesNamesTheProgramAndTheInput) {
  std::vector<Program> stdin_programs = {
      StdinProgram("fine", "print(1)", {"\n"}),
      StdinProgram("quits", "import os\nif input() == '2':\n    os._exit(0)\nprint(2)",
                   {"1\n", "2\n", "3\n"}),
      StdinProgram("never-run", "print(3)", {"\n"}),
  };
  std::vector<std::pair<size_t, std::string>> failures;
  Status s = RunPrograms(&pool_, &stdin_programs, &failures);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "running program 'quits' in the sandbox (input 2 of 3): the job ended without a "
            "result (exit status 0)");

  std::vector<Program> functions = {
      Function("killed", "import os\nos.kill(os.getpid(), 9)\ndef f(n):\n    return n", {"1"}),
  };
  s = RunPrograms(&pool_, &functions, &failures);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "running program 'killed' in the sandbox (loading it): the job ended without a "
            "result (killed by SIGKILL)");
}

}  // namespace
}  // namespace structtest
