// The worker pool itself: start-up and interpreter choice, the analysis cache, jobs,
// failures of the pool (missing python3 or script, a worker killed from outside), and
// the sandbox's limits seen from a job. Hostile programs scored through the checkers are
// in src/tasks/code/checkers_test.cc.
#include "sandbox/python_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <chrono>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "testing/process_scan.h"

namespace structtest {
namespace {

PythonOptions TestOptions(int workers = 1) {
  PythonOptions o;
  o.worker_script = STRUCTTEST_WORKER_SCRIPT;
  o.max_workers = workers;
  return o;
}

void ExpectNoStrays(const PythonPool& pool) {
  const auto strays = testing::JobProcesses(pool.IdleWorkerPids());
  EXPECT_TRUE(strays.empty()) << "processes left behind:\n" << testing::Describe(strays);
}

TEST(PythonPoolTest, StartsOnFirstUseAndDescribesItself) {
  PythonPool pool(TestOptions());
  EXPECT_TRUE(pool.IdleWorkerPids().empty());  // nothing started yet
  auto info = pool.Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_FALSE(info->version.empty());
  std::printf("python pool: %s\n", info->Describe().c_str());
  EXPECT_EQ(pool.IdleWorkerPids().size(), 1u);
}

TEST(PythonPoolTest, AnalysisIsCachedPerDistinctSource) {
  PythonPool pool(TestOptions());
  const std::string source =
      "def f(a):\n    x = y = a\n    b, c = 1, 2\n    z += 1\n    w: int = 3\n"
      "    for i in range(3):\n        q = i\n    return x";
  auto a = pool.Analyze(source);
  ASSERT_TRUE(a.ok()) << a.status().message();
  const SourceAnalysis& s = **a;
  EXPECT_TRUE(s.parses);
  EXPECT_EQ(s.names, (std::vector<std::string>{"q", "x", "y"}));
  ASSERT_EQ(s.lines.size(), 8u);
  EXPECT_FALSE(s.lines[0].has_equals);
  EXPECT_TRUE(s.lines[1].parses);
  EXPECT_EQ(s.lines[1].names, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(s.lines[2].parses);  // tuple target: parses, binds no plain name
  EXPECT_TRUE(s.lines[2].names.empty());
  EXPECT_TRUE(s.lines[3].names.empty());  // augmented
  EXPECT_TRUE(s.lines[4].names.empty());  // annotated
  EXPECT_FALSE(s.lines[5].has_equals);
  EXPECT_TRUE(s.lines[6].parses);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool.Analyze(source).ok());
  EXPECT_EQ(pool.analysis_requests(), 1);
  ASSERT_TRUE(pool.Analyze(source + " ").ok());
  EXPECT_EQ(pool.analysis_requests(), 2);

  auto bad = pool.Analyze("def f(:\n  pass");
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE((*bad)->parses);
  EXPECT_NE((*bad)->error.find("SyntaxError"), std::string::npos) << (*bad)->error;
}

TEST(PythonPoolTest, UncachedAnalysisIsTheSameAndAskedEachTime) {
  PythonPool pool(TestOptions());
  const std::string source = "def f(a):\n    x = a\n    return x";
  auto cached = pool.Analyze(source);
  ASSERT_TRUE(cached.ok()) << cached.status().message();
  for (int i = 0; i < 2; ++i) {
    auto once = pool.AnalyzeUncached(source);
    ASSERT_TRUE(once.ok()) << once.status().message();
    EXPECT_EQ(once->names, (*cached)->names);
    ASSERT_EQ(once->lines.size(), (*cached)->lines.size());
    EXPECT_EQ(once->lines[1].names, (*cached)->lines[1].names);
  }
  EXPECT_EQ(pool.analysis_requests(), 3);
}

TEST(PythonPoolTest, LineThatDoesNotParseAloneIsMarked) {
  PythonPool pool(TestOptions());
  auto a = pool.Analyze("if x == 1:\n    y = 2");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ((*a)->lines.size(), 2u);
  EXPECT_TRUE((*a)->lines[0].has_equals);
  EXPECT_FALSE((*a)->lines[0].parses);
  EXPECT_TRUE((*a)->lines[1].parses);
}

TEST(PythonPoolTest, SimulateJobUsesPythonEquality) {
  PythonPool pool(TestOptions());
  auto r = pool.RunJob({{"op", "simulate"}, {"answer", "(1, 2.0, True)"}, {"expected", "[1, 2, 1]"}}, 10);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["pass"], true) << r->dump();
  r = pool.RunJob({{"op", "simulate"}, {"answer", "[(1, 2)]"}, {"expected", "[[1, 2]]"}}, 10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["pass"], false) << r->dump();  // the tuple allowance compares with [0]
  r = pool.RunJob({{"op", "simulate"}, {"answer", "[(1, 2)]"}, {"expected", "[[[1, 2]]]"}}, 10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["pass"], true) << r->dump();
  ExpectNoStrays(pool);
}

// The pool starts the worker script as a module (so that Python reads its bytecode),
// yet a program sees what `python3 script` gives it: sys.argv[0] the script, sys.path[0]
// its folder, and a program run as __main__ has the builtins module as __builtins__.
// The build made the bytecode that start reads.
TEST(PythonPoolTest, ProgramsSeeTheWorkerAsAScript) {
  PythonPool pool(TestOptions());
  const std::filesystem::path script = STRUCTTEST_WORKER_SCRIPT;
  auto r = pool.RunJob({{"op", "simulate"},
                        {"answer", "(__import__('sys').argv[0], __import__('sys').path[0])"},
                        {"expected", "0"}},
                       10);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string want =
      fmt::format("['{}', '{}']", script.string(), script.parent_path().string());
  EXPECT_EQ(r->value("answer", ""), want) << r->dump();
  auto run = pool.RunJob({{"op", "stdin"},
                          {"source", "assert type(__builtins__).__name__ == 'module'"},
                          {"inputs", std::vector<std::string>{""}}},
                         10);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ((*run)["results"][0]["ok"], true) << run->dump();
  bool bytecode = false;
  for (const auto& e : std::filesystem::directory_iterator(script.parent_path() / "__pycache__")) {
    bytecode |= e.path().filename().string().rfind("structtest_worker.", 0) == 0;
  }
  EXPECT_TRUE(bytecode) << "no bytecode of " << script << " in its __pycache__";
}

// The strict jobs only parse model text: an answer that would do something when run
// is rejected for what it is (not a literal, not the program), never run.
TEST(PythonPoolTest, StrictJobsParseAnswersNeverRunThem) {
  PythonPool pool(TestOptions());
  const std::string effect = "open('ran.txt', 'w').write('x')";
  auto r = pool.RunJob({{"op", "strict_simulate"},
                        {"answer", effect + " and 1"},
                        {"expected", "1"}},
                       10);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["rule"], "answer-literal") << r->dump();
  r = pool.RunJob({{"op", "strict_calls"},
                   {"source", "def f(x):\n    return x"},
                   {"fn_name", "f"},
                   {"gen_n", 2},
                   {"timeout", 4},
                   {"answer", "[1]\n[" + effect + "]"}},
                  20);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["rule"], "input-literal") << r->dump();
  // A program answer is compared by its tree: the print is never executed.
  r = pool.RunJob({{"op", "strict_add_print"},
                   {"source", "x = 1"},
                   {"answer", "x = 1\nprint(\"x: \", str(x))\n" + effect}},
                  10);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["rule"], "program-unchanged") << r->dump();
  // A literal answer equal to the expected value passes, types compared.
  r = pool.RunJob({{"op", "strict_simulate"}, {"answer", "(1, 2.0)"}, {"expected", "(1, 2.0)"}},
                  10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["pass"], true) << r->dump();
  r = pool.RunJob({{"op", "strict_simulate"},
                   {"answer", "[1, 2]"},
                   {"expected", "(1, 2)"},
                   {"source", "def f():\n    return (1, 2)"},
                   {"fn_name", "f"},
                   {"inputs", ""}},
                  10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["rule"], "value-matches") << r->dump();
  ExpectNoStrays(pool);
}

// The jobs the worker answers itself when their texts are small (simulate and strict
// simulate on literals, the strict rules that only parse: worker.py's run_inline) give
// what the same job gives in a child ("child": true), on ordinary, odd and hostile
// texts, and on texts too long to be answered inline.
TEST(PythonPoolTest, JobsAnsweredInlineGiveWhatAChildGives) {
  PythonPool pool(TestOptions());
  // The worker's result without the request's id; `child` adds "child": true.
  const auto run = [&pool](nlohmann::json request, bool child) {
    if (child) request["child"] = true;
    auto r = pool.RunJob(std::move(request), 10);
    if (r.ok()) r->erase("id");
    return r;
  };
  const std::string deep_list = std::string(150, '[') + "1" + std::string(150, ']');
  const std::string deep_sum = "1" + [] {
    std::string s;
    for (int i = 0; i < 3000; ++i) s += "+1";
    return s;
  }();
  const std::string long_list = "[" + [] {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "1, ";
    return s;
  }() + "]";
  const std::vector<std::pair<std::string, std::string>> simulate = {
      {"[1, 2, (3, 4)]", "[1, 2, [3, 4]]"},   {"(1, 2)", "[1, 2]"},
      {"[(1, 2)]", "[[1, 2]]"},               {"1", "1.0"},
      {"'a'", "\"a\""},                       {"{1: 2}", "{1: 2, }"},
      {"set()", "set()"},                     {"1+2j", "(1+2j)"},
      {"-0.0", "0"},                          {"[1]", "[1"},
      {"2", "1 + 1"},                         {"[1, 2]", "list(range(1, 3))"},
      {"1", "__import__('os').getuid() and 1"}, {"1", std::string("1\0", 2)},
      {"1", "\u00ff\u00fe"},                  {"1", deep_list},
      {deep_list, deep_list},                 {"2", deep_sum},
      {long_list, long_list},                 {"[]", "[][0]"},
      {"None", ""},                           {"nan", "float('nan')"},
      {"1", "The answer is 1."},              {"1", "x = 1"},
      {"1", "print(1)"},                      {"1", "1 +"},
      {"1", "\t  1"},                         {"1", "def f(): pass"},
      {"1", " \t 1 +"},                       {"1", "\n  1 +"},
      {"1", std::string(300, '(') + "1" + std::string(300, ')')},
  };
  const std::string source = "def f(a, b):\n    c = a + b\n    return c\n";
  const std::string renamed = "def f(a, b):\n    total = a + b\n    return total\n";
  std::vector<nlohmann::json> parsing = {  // jobs that parse (simulate's come later)
      {{"op", "strict_add_print"}, {"source", source},
       {"answer", "def f(a, b):\n    c = a + b\n    print(\"c: \", str(c))\n    return c\n"}},
      {{"op", "strict_add_print"}, {"source", source}, {"answer", source}},
      {{"op", "strict_add_print"}, {"source", source}, {"answer", "def f(:"}},
      {{"op", "strict_add_print"}, {"source", source}, {"answer", deep_sum}},
      {{"op", "strict_add_print"}, {"source", source}, {"answer", std::string("x\0", 2)}},
      {{"op", "strict_rename"}, {"source", source}, {"expected", renamed},
       {"answer", renamed}},
      {{"op", "strict_rename"}, {"source", source}, {"expected", renamed},
       {"answer", source}},
      {{"op", "strict_rename"}, {"source", source}, {"expected", renamed},
       {"answer", "x = " + long_list}},
  };
  // Strict test inputs: answered inline when they fail before the function would run.
  const std::string fn = "def f(a, b=0):\n    return a + b\n";
  for (const std::string& answer :
       {std::string("[1]\n[2]\n[3]"), std::string("[1]\n[2]"), std::string("[1]\nx\n[3]"),
        std::string("[1]\n[1]\n[3]"), std::string("(1, 2)\n[1, 2]\n[3]"),
        std::string("[1, 2, 3]\n[2]\n[3]"), std::string("[]\n[2]\n[3]"),
        std::string("[1]\n# note\n[2]\n\n[3]"), std::string("[1]\n[2]\n[\"a\"]"),
        std::string("[1]\n[2]\n" + deep_list), std::string("[1]\n[2]\n" + long_list),
        std::string("[1]\n[2]\n" + deep_sum), std::string("[1]\n[2\0]\n[3]", 13),
        std::string("[1]\n[2]\n[__import__('os').getpid()]")}) {
    parsing.push_back({{"op", "strict_calls"}, {"source", fn}, {"fn_name", "f"},
                      {"gen_n", 3}, {"answer", answer}});
  }
  // Paper test inputs: answered inline when literal (or no expression) lines do not
  // give the count asked for.
  for (const std::string& answer :
       {std::string("[1]\n[2]"), std::string("[1]\n[2]\n[3]"), std::string("[1]\nx\n[3]"),
        std::string("(1, 2)\nInput: 3\n\t[4]\n  5"), std::string("set()\n-0.0\n{1: 2}\n1 +"),
        std::string(5000, '9') + "\n[1]", std::string("[1]\n") + deep_list,
        std::string("[1]\n") + long_list, std::string("[1]\n") + deep_sum,
        std::string("[1]\n[2\0]", 8), std::string("[1]\n[__import__('os').getpid()]"),
        std::string("The inputs are:\n```\n[1]\n```"), std::string("[1]\n\t 1 +"),
        std::string("[1]\nundefined_name")}) {
    parsing.push_back({{"op", "calls"}, {"source", fn}, {"fn_name", "f"}, {"gen_n", 3},
                      {"answer", answer}});
  }
  parsing.push_back({{"op", "strict_calls"}, {"source", "def f(a):\n    return a +\n"},
                    {"fn_name", "f"}, {"gen_n", 1}, {"answer", "[1]"}});
  parsing.push_back({{"op", "strict_calls"},
                    {"source", "class Solution:\n    def f(self, a):\n        return a\n"},
                    {"fn_name", "f"}, {"gen_n", 2}, {"answer", "[1]\n[2, 3]"}});
  std::vector<nlohmann::json> requests = parsing;
  for (const auto& [expected, answer] : simulate) {
    for (const char* op : {"simulate", "strict_simulate"}) {
      requests.push_back({{"op", op}, {"expected", expected}, {"answer", answer}});
    }
  }
  // With the task's function, strict simulate runs it (in a child, inline or not).
  requests.push_back({{"op", "strict_simulate"}, {"expected", "(1, 2)"}, {"answer", "[1, 2]"},
                      {"source", "def f():\n    return (1, 2)"}, {"fn_name", "f"},
                      {"inputs", ""}});
  int passed = 0;
  std::vector<std::string> child_results;
  for (const nlohmann::json& request : requests) {
    auto inline_result = run(request, false);
    auto child_result = run(request, true);
    const std::string what = request.dump().substr(0, 200);
    ASSERT_TRUE(inline_result.ok()) << what << ": " << inline_result.status().message();
    ASSERT_TRUE(child_result.ok()) << what << ": " << child_result.status().message();
    EXPECT_EQ(inline_result->dump(), child_result->dump()) << what;
    passed += (*child_result).value("pass", false);
    child_results.push_back(child_result->dump());
  }
  // At the parser's recursion limit, the two give the same verdict: the inline call is
  // made as deep in the worker's stack as the child's. The sum's length crosses the
  // limit within the sweep (checked), so that an answer a few frames deeper fails.
  int parsed = 0, too_deep = 0;
  for (int n = 2950; n <= 2995; ++n) {
    nlohmann::json request = {{"op", "strict_add_print"}, {"source", source},
                              {"answer", "x = 1" + [n] {
                                 std::string s;
                                 for (int i = 0; i < n; ++i) s += "+1";
                                 return s;
                               }()}};
    auto inline_result = run(request, false);
    auto child_result = run(request, true);
    ASSERT_TRUE(inline_result.ok() && child_result.ok()) << n;
    EXPECT_EQ(inline_result->dump(), child_result->dump()) << "a sum of " << n << " terms";
    (child_result->value("detail", "").find("RecursionError") != std::string::npos ? too_deep
                                                                                    : parsed)++;
  }
  EXPECT_GT(parsed, 0) << "the sweep no longer crosses the recursion limit: move it";
  EXPECT_GT(too_deep, 0) << "the sweep no longer crosses the recursion limit: move it";
  // A budget that runs out anywhere (in the job, in its own except, while the timer is
  // being stopped) sends the job to a child: the result is the child's, never an error.
  for (int k = 0; k < 200; ++k) {
    const size_t i = static_cast<size_t>(k) % parsing.size();
    nlohmann::json request = requests[i];
    const std::string what = request.dump().substr(0, 200);
    request["inline_seconds"] = 1e-5 * (k % 50);
    auto budget_result = run(request, false);
    ASSERT_TRUE(budget_result.ok()) << what << ": " << budget_result.status().message();
    EXPECT_EQ(budget_result->dump(), child_results[i]) << what;
  }
  // The cases are not all alike: some pass, most fail.
  EXPECT_GE(passed, 10);
  EXPECT_LE(passed, static_cast<int>(requests.size()) - 20);
  ExpectNoStrays(pool);
}

// A stdin job runs its inputs one after another in one process while each run succeeds
// and leaves the process as it found it. Each program below is run both ways: sharing
// processes and with a process per input ("alone"); the results must be the same, and
// the number of processes shows that sharing happened where it could and stopped where
// a run left something behind.
TEST(PythonPoolTest, StdinRunsSharingAProcessGiveWhatAProcessPerInputGives) {
  PythonPool pool(TestOptions());
  struct Case {
    std::string name, source;
    std::vector<std::string> inputs;
    int processes;       // when sharing
    int ok;              // inputs that run without error (the results stop after a failure)
  };
  const std::vector<std::string> numbers = {"1", "2", "3", "4", "5"};
  const std::vector<Case> cases = {
      {"plain", "n = int(input())\nprint(sum(range(n)))", numbers, 1, 5},
      {"fails at 3", "n = int(input())\nprint(n)", {"1", "2", "x", "4", "5"}, 2, 2},
      // A module attribute is not looked at: input 2 fails in the shared process, is run
      // alone and passes; so does input 4.
      {"module state", "import math\nif hasattr(math, 'seen'):\n    raise RuntimeError('seen')\n"
       "math.seen = 1", numbers, 5, 5},
      {"builtins", "import builtins\nif hasattr(builtins, 'seen'):\n    raise RuntimeError('x')\n"
       "builtins.seen = 1", numbers, 5, 5},
      {"thread", "import threading, time\nthreading.Thread(target=time.sleep, args=(0.2,)).start()",
       numbers, 5, 5},
      {"time limit at 2", "n = int(input())\nwhile n == 2:\n    pass", numbers, 2, 1},
      {"os._exit at 3", "import os\nif input() == '3':\n    os._exit(0)", numbers, 2, 2},
      {"killed at 2", "import os, signal\nif input() == '2':\n    os.kill(os.getpid(), signal.SIGKILL)",
       numbers, 2, 1},
      {"exit status at 4", "import sys\nif input() == '4':\n    sys.exit(3)", numbers, 2, 3},
      {"fork, waited for", "import os\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)", numbers,
       1, 5},
      {"fork, left", "import os, time\nif os.fork() == 0:\n    time.sleep(0.1)", numbers, 5, 5},
      {"recursion limit", "import sys\nn = int(input())\nif n == 1:\n    sys.setrecursionlimit(80)\n"
       "def f(k):\n    return 0 if k == 0 else 1 + f(k - 1)\nif n > 1:\n    print(f(300))",
       numbers, 1, 5},
      {"stdin read by line", "import sys\nn = int(sys.stdin.buffer.readline())\n"
       "vals = sys.stdin.readline().split()\nassert len(vals) == n, vals",
       {"1\n7\n", "2\n7 8\n", "3\n7 8 9\n", "0\n\n", "1\n5\n"}, 1, 5},
      {"stdin read whole", "data = open(0).read().split()\nassert int(data[0]) == len(data) - 1",
       {"1 7", "2 7 8", "3 7 8 9", "0", "1 5"}, 1, 5},
      {"stdin read raw", "import os\ndata = os.read(0, 100).split()\n"
       "assert int(data[0]) == len(data) - 1", {"1 7", "2 7 8", "3 7 8 9", "0", "1 5"}, 1, 5},
      {"chdir", "import os\nos.chdir('/')", numbers, 5, 5},
      {"environment", "import os\nos.environ['SEEN'] = input()", numbers, 5, 5},
      {"signal handler", "import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)", numbers,
       5, 5},
      // The inputs share the job's directory either way.
      {"file left", "import os\nif os.path.exists('note'):\n    raise RuntimeError('note')\n"
       "open('note', 'w').write('x')", numbers, 2, 1},
      {"output too large at 2", "if input() == '2':\n    print('x' * (9 << 20))", numbers, 2, 1},
      {"exit() closes stdin", "input()\nexit()", numbers, 1, 5},
      {"fds closed", "import os\ninput()\nprint(1)\nos.close(0)\nos.close(2)", numbers, 1, 5},
      {"settings put back", "import gc, sys\nassert gc.isenabled()\n"
       "assert sys.get_int_max_str_digits() == 4300\ngc.disable()\n"
       "sys.set_int_max_str_digits(0)\nprint(int('9' * 5000) % 7)", numbers, 1, 5},
  };
  for (const Case& c : cases) {
    nlohmann::json request = {{"op", "stdin"}, {"source", c.source}, {"inputs", c.inputs},
                              {"timeout", 1}};
    auto shared = pool.RunJob(request, 30);
    request["alone"] = true;
    auto alone = pool.RunJob(request, 30);
    ASSERT_TRUE(shared.ok()) << c.name << ": " << shared.status().message();
    ASSERT_TRUE(alone.ok()) << c.name << ": " << alone.status().message();
    EXPECT_EQ(shared->value("processes", -1), c.processes) << c.name << ": " << shared->dump();
    EXPECT_EQ(alone->value("processes", -1), static_cast<int>(alone->at("results").size()))
        << c.name;
    for (auto* r : {&*shared, &*alone}) {
      r->erase("id");
      r->erase("processes");
    }
    EXPECT_EQ(shared->dump(), alone->dump()) << c.name;
    const auto& results = shared->at("results");
    int ok = 0;
    for (const auto& r : results) ok += r.value("ok", false);
    EXPECT_EQ(ok, c.ok) << c.name << ": " << shared->dump();
    EXPECT_EQ(static_cast<int>(results.size()), std::min(c.ok + 1, 5)) << c.name;
  }
  // An input the job cannot even write down (over the job's file size limit) is the
  // sandbox's problem, named as such, either way; not a failing input.
  for (bool alone : {false, true}) {
    auto r = pool.RunJob({{"op", "stdin"}, {"source", "input()"},
                          {"inputs", {"1", "2", std::string(9 << 20, 'x')}}, {"alone", alone}},
                         30);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_NE(r->value("sandbox_error", "").find("File too large"), std::string::npos)
        << r->dump().substr(0, 300);
  }
  ExpectNoStrays(pool);
}

// The worker does not hold numpy (it would make every fork dearer): the reference's
// preamble imports it in a job only when the task's code names np or numpy, with the
// same line numbers either way.
TEST(PythonPoolTest, NumpyIsImportedForCodeThatNamesIt) {
  PythonPool pool(TestOptions());
  auto info = pool.Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  if (info->numpy.empty()) GTEST_SKIP() << "no numpy here: " << info->numpy_error;
  const auto calls = [&pool](const std::string& source) {
    auto r = pool.RunJob({{"op", "calls"}, {"source", source}, {"fn_name", "f"},
                          {"answer", "[[1, 2]]\n[[3]]"}, {"gen_n", 2}},
                         20);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : nlohmann::json();
  };
  const nlohmann::json uses = calls("def f(x):\n    return int(np.array(x).sum())\n");
  EXPECT_EQ(uses.value("results", nlohmann::json()).dump(), R"([{"ok":true},{"ok":true}])")
      << uses.dump();
  const nlohmann::json bad = calls("def f(x):\n    return x +\n");
  const nlohmann::json bad_naming_np = calls("def f(x):\n    return x +\n# np\n");
  EXPECT_NE(bad.value("load_error", ""), "") << bad.dump();
  EXPECT_EQ(bad.value("load_error", ""), bad_naming_np.value("load_error", ""));
  auto held = pool.RunJob({{"op", "returned"},
                           {"source", "import sys\ndef f():\n    return 'numpy' in sys.modules\n"},
                           {"fn_name", "f"}, {"inputs", ""}, {"expected", "False"}},
                          20);
  ASSERT_TRUE(held.ok()) << held.status().message();
  EXPECT_EQ(held->value("exact", nlohmann::json()).dump(), "\"False\"") << held->dump();
}

// Whether numpy imports is tried only when Info() asks (jobs that do not need it do not
// pay for the try), and a numpy that is missing or does not import is named as such.
TEST(PythonPoolTest, NumpyIsTriedWhenAskedAndAMissingOrBrokenOneIsNamed) {
  namespace fs = std::filesystem;
  // Not under /tmp: the worker sees a private tmpfs there, which would hide the fake numpy.
  const fs::path base = fs::current_path().string().starts_with("/tmp") ? fs::path("/run")
                                                                        : fs::current_path();
  const fs::path dir = base / fmt::format("structtest-numpy-{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "fake" / "numpy");
  std::ofstream(dir / "fake" / "numpy" / "__init__.py")
      << "raise ImportError('this numpy is broken')\n";
  const auto wrapper = [&](const std::string& name, const std::string& line) {
    const fs::path path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n" << line << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  };
  // -S: no site-packages, so no numpy; PYTHONPATH: a numpy that raises when imported.
  const std::string missing = wrapper("missing.sh", "exec /usr/bin/python3 -S \"$@\"");
  const std::string broken =
      wrapper("broken.sh", fmt::format("export PYTHONPATH={}; exec /usr/bin/python3 \"$@\"",
                                       (dir / "fake").string()));
  for (const auto& [python, installed, error] :
       {std::tuple{missing, false, "No module named 'numpy'"},
        std::tuple{broken, true, "this numpy is broken"}}) {
    SCOPED_TRACE(python);
    PythonOptions o = TestOptions();
    o.python = python;
    PythonPool pool(o);
    // A job that needs no numpy runs as ever.
    auto r = pool.RunJob({{"op", "simulate"}, {"answer", "[1, 2]"}, {"expected", "[1, 2]"}}, 10);
    ASSERT_TRUE(r.ok()) << r.status().message();
    auto info = pool.Info();
    ASSERT_TRUE(info.ok()) << info.status().message();
    EXPECT_EQ(info->numpy_installed, installed);
    EXPECT_EQ(info->numpy, "");
    EXPECT_NE(info->numpy_error.find(error), std::string::npos) << info->numpy_error;
    EXPECT_NE(info->Describe().find("no numpy"), std::string::npos) << info->Describe();
  }
  PythonPool pool(TestOptions(2));
  std::vector<std::thread> askers;
  std::vector<std::string> versions(4);
  for (size_t i = 0; i < versions.size(); ++i) {
    askers.emplace_back([&, i] {
      auto info = pool.Info();
      versions[i] = info.ok() ? info->numpy + "|" + info->numpy_error : info.status().message();
    });
  }
  for (std::thread& t : askers) t.join();
  for (const std::string& v : versions) EXPECT_EQ(v, versions[0]);
  std::printf("numpy: %s\n", versions[0].c_str());
  fs::remove_all(dir);
}

TEST(PythonPoolTest, MemoComputesOncePerKey) {
  PythonPool pool(TestOptions());
  int calls = 0;
  auto compute = [&]() -> StatusOr<std::string> {
    ++calls;
    return std::string("value");
  };
  auto a = pool.Memo("k", compute);
  auto b = pool.Memo("k", compute);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(**a, "value");
  EXPECT_EQ(calls, 1);
  auto err = pool.Memo("e", []() -> StatusOr<std::string> { return Status::Internal("no"); });
  EXPECT_FALSE(err.ok());
}

// Scoring threads asking for the same source (several answers to one task) at the
// same time: one of them asks a worker, the others wait for its answer.
TEST(PythonPoolTest, ConcurrentRequestsForOneSourceAreComputedOnce) {
  PythonPool pool(TestOptions(4));
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  std::vector<const SourceAnalysis*> seen(8);
  std::vector<const std::string*> memo(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto a = pool.Analyze("x = 1\ny = x\n");
      if (a.ok()) seen[i] = *a;
      auto m = pool.Memo("k", [&]() -> StatusOr<std::string> {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::string("value");
      });
      if (m.ok()) memo[i] = *m;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(pool.analysis_requests(), 1);
  EXPECT_EQ(calls.load(), 1);
  for (int i = 0; i < 8; ++i) {
    ASSERT_NE(seen[i], nullptr);
    EXPECT_EQ(seen[i], seen[0]);
    EXPECT_EQ(memo[i], memo[0]);
  }
  EXPECT_EQ(seen[0]->names, (std::vector<std::string>{"x", "y"}));
}

TEST(PythonPoolTest, MissingInterpreterIsAClearError) {
  PythonOptions o = TestOptions();
  o.python = "/nonexistent/python3";
  PythonPool pool(o);
  auto a = pool.Analyze("x = 1");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(a.status().message().find("python3"), std::string::npos) << a.status().message();
  EXPECT_NE(a.status().message().find("/nonexistent/python3"), std::string::npos);
  // The failure is remembered: no new attempt per sample.
  auto b = pool.RunJob({{"op", "simulate"}, {"answer", "1"}, {"expected", "1"}}, 10);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), a.status().message());
}

TEST(PythonPoolTest, MissingScriptIsAClearError) {
  PythonOptions o = TestOptions();
  o.worker_script = "/nonexistent/structtest_worker.py";
  PythonPool pool(o);
  auto a = pool.Analyze("x = 1");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("/nonexistent/structtest_worker.py"), std::string::npos)
      << a.status().message();
}

// The worker imports the code family's strict rules from its own folder: a worker
// script copied without them does not start, and the error names the missing file and
// the folder, rather than strict jobs failing (or passing) later.
TEST(PythonPoolTest, WorkerWithoutItsStrictRulesBesideItIsAClearError) {
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "structtest-lone-worker-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir_template.data()), nullptr) << std::strerror(errno);
  const std::filesystem::path dir = dir_template;
  const std::filesystem::path script = dir / "structtest_worker.py";
  std::filesystem::copy_file(STRUCTTEST_WORKER_SCRIPT, script);
  PythonOptions o = TestOptions();
  o.worker_script = script.string();
  PythonPool pool(o);
  auto a = pool.Analyze("x = 1");
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(a.status().message().find("structtest_code_strict.py not found in " + dir.string()),
            std::string::npos)
      << a.status().message();
}

TEST(PythonPoolTest, InterpreterThatIsNotPythonIsAClearError) {
  PythonOptions o = TestOptions();
  o.python = "/bin/false";
  PythonPool pool(o);
  auto a = pool.Analyze("x = 1");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("/bin/false"), std::string::npos) << a.status().message();
}

TEST(PythonPoolTest, WorkerKilledFromOutsideIsReplaced) {
  PythonPool pool(TestOptions());
  ASSERT_TRUE(pool.Analyze("a = 1").ok());
  const auto pids = pool.IdleWorkerPids();
  ASSERT_EQ(pids.size(), 1u);
  ASSERT_EQ(kill(pids[0], SIGKILL), 0);
  // Waits on the process's state, not on time: dead once a zombie (the pool reaps it) or
  // gone.
  const auto dead = [pid = pids[0]] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const size_t paren = line.rfind(')');
    return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!dead()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "SIGKILL did not end the worker";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto r = pool.RunJob({{"op", "simulate"}, {"answer", "2"}, {"expected", "2"}}, 10);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["pass"], true);
  ASSERT_EQ(pool.IdleWorkerPids().size(), 1u);
  EXPECT_NE(pool.IdleWorkerPids()[0], pids[0]);
}

TEST(PythonPoolTest, TwoThreadsShareTwoWorkers) {
  PythonPool pool(TestOptions(2));
  std::vector<std::thread> threads;
  std::atomic<int> passed{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        auto r = pool.RunJob({{"op", "simulate"},
                              {"answer", std::to_string(t * 100 + i)},
                              {"expected", std::to_string(t * 100 + i)}},
                             10);
        if (r.ok() && (*r)["pass"] == true) ++passed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(passed, 20);
  EXPECT_LE(pool.IdleWorkerPids().size(), 2u);
  ExpectNoStrays(pool);
}

// What a job sees of its sandbox.
// A job whose result is larger than the worker accepts says so, instead of "no result".
TEST(PythonPoolTest, AResultOverTheCapIsNamed) {
  PythonPool pool(TestOptions());
  auto r = pool.RunJob({{"op", "subst"}, {"source", std::string(3 << 20, 'x')},
                        {"mapping", std::vector<std::string>{}}},
                       20);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->contains("code"));
  EXPECT_EQ((*r)["sandbox_error"],
            "the job's result is larger than its limit of 1048576 bytes") << r->dump();
  EXPECT_EQ((*r)["result_limit"], 1048576);
}

TEST(PythonPoolTest, JobSandboxLimits) {
  PythonPool pool(TestOptions());
  auto info = pool.Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  // A server of ours on the host's loopback, which a job must not reach.
  const int server = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(server, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);

  // Each escape probe is evaluated by a job; it must end with the error the sandbox
  // causes (`error` is a part of eval_error), or, with `answer` set, give that value.
  // A weakened sandbox changes what the probe observes, and the test fails.
  struct Probe {
    std::string expression;
    bool only_with_network_namespace;
    std::vector<std::string> errors;  // eval_error contains one of them
  };
  const std::vector<Probe> probes = {
      // No interface is up in the job's network namespace.
      {fmt::format("__import__('socket').create_connection(('127.0.0.1', {}), 2)", port), true,
       {"OSError: [Errno 101] Network is unreachable"}},
      // The job runs as a user without rights: root's files are closed to it.
      {"open('/etc/shadow').read()", false, {"PermissionError: [Errno 13] Permission denied"}},
      // Outside its directory the file system is read-only (or closed to its user).
      {"open('/structtest_sandbox_probe', 'w')", false,
       {"OSError: [Errno 30] Read-only file system", "PermissionError: [Errno 13]"}},
      // 4 GiB is within this machine's memory but above the job's address-space limit
      // (what the worker maps plus 2 GiB).
      {"len(bytearray(4 * 2**30))", false, {"MemoryError"}},
      // Process 1 (the worker, in its own PID namespace, or init) cannot be signalled.
      {"__import__('os').kill(1, 9)", false,
       {"PermissionError: [Errno 1] Operation not permitted"}},
  };
  int checked = 0;
  for (const Probe& p : probes) {
    if (p.only_with_network_namespace && info->network.find("none") != 0) {
      std::printf("  skipped (no network namespace on this machine: %s): %s\n",
                  info->network.c_str(), p.expression.c_str());
      continue;
    }
    auto r = pool.RunJob({{"op", "simulate"}, {"answer", p.expression}, {"expected", "0"}}, 10);
    ASSERT_TRUE(r.ok()) << p.expression << ": " << r.status().message();
    std::printf("  %s -> %s\n", p.expression.c_str(), r->dump().c_str());
    const std::string error = r->value("eval_error", "");
    EXPECT_TRUE(std::any_of(p.errors.begin(), p.errors.end(),
                            [&](const std::string& e) { return error.find(e) != std::string::npos; }))
        << p.expression << " was not stopped by the sandbox: " << r->dump();
    ++checked;
  }
  EXPECT_GE(checked, 4);
  // Nothing got through: no connection reached the server, no file was made, and the
  // worker that process 1 would have been still answers.
  ASSERT_EQ(fcntl(server, F_SETFL, O_NONBLOCK), 0);
  EXPECT_LT(accept(server, nullptr, nullptr), 0);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK) << std::strerror(errno);
  EXPECT_FALSE(std::filesystem::exists("/structtest_sandbox_probe"));
  // The job's working directory is one of its own under the sandbox's /tmp (the same
  // path for every job of a worker with a /tmp of its own), and HOME and TMPDIR.
  auto cwd = pool.RunJob(
      {{"op", "simulate"}, {"answer", "__import__('os').getcwd()"}, {"expected", "0"}}, 10);
  ASSERT_TRUE(cwd.ok()) << cwd.status().message();
  const std::string dir = cwd->value("answer", "");
  EXPECT_EQ(dir.rfind(info->mount_namespace ? "'/tmp/job'" : "'/tmp/job-", 0), 0u) << dir;
  // A job finds the environment and directory a fresh job finds, whatever the job
  // before it changed or left there.
  const std::string environment =
      "sorted(__import__('os').environ.items()) == [('HOME', d), ('LANG', 'C.UTF-8'), "
      "('MKL_NUM_THREADS', '1'), ('OMP_NUM_THREADS', '1'), ('OPENBLAS_NUM_THREADS', '1'), "
      "('PATH', '/usr/bin:/bin'), ('TMPDIR', d)] and __import__('os').listdir(d) == "
      "['output.txt']";
  for (int k = 0; k < 2; ++k) {
    auto fresh = pool.RunJob({{"op", "simulate"},
                              {"answer", "(lambda d: " + environment + ")(__import__('os').getcwd())"},
                              {"expected", "True"}},
                             10);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    EXPECT_EQ((*fresh)["pass"], true) << fresh->dump();
    auto leave = pool.RunJob({{"op", "simulate"},
                              {"answer", "(__import__('os').environ.__setitem__('LEFT', '1'), "
                                         "open('left', 'w').write('x'))"},
                              {"expected", "0"}},
                             10);
    ASSERT_TRUE(leave.ok()) << leave.status().message();
    EXPECT_EQ(leave->value("answer", ""), "[None, 1]") << leave->dump();
  }
  auto alive = pool.RunJob({{"op", "simulate"}, {"answer", "6 * 7"}, {"expected", "42"}}, 10);
  ASSERT_TRUE(alive.ok()) << alive.status().message();
  EXPECT_EQ((*alive)["pass"], true) << alive->dump();
  close(server);
  ExpectNoStrays(pool);
}

}  // namespace
}  // namespace structtest
