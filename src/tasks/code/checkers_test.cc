// The code checkers through the worker pool: each subtask's rules on small cases,
// errors that are not verdicts (no pool, no python3, a malformed sample), and hostile
// programs and answers as real inputs: each ends in a failing verdict with a reason,
// the next sample scores normally, and no process is left behind.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sandbox/python_pool.h"
#include "tasks/code/code_test_util.h"
#include "tasks/code/family.h"
#include "tasks/code/strict.h"
#include "testing/process_scan.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

Sample MakeSample(std::string_view subtask, nlohmann::json context) {
  Sample s;
  s.id = "t";
  s.domain = "code";
  s.subtask = subtask;
  context["start_tag"] = "<ans>";
  context["end_tag"] = "</ans>";
  s.context = std::move(context);
  return s;
}

// The paper checker of the sample's subtask, its params parsed as scoring parses them.
StatusOr<Verdict> CheckPaper(const Sample& sample, std::string_view response,
                             const CheckEnv& env) {
  return CodeFamily().Check(Spec(sample.subtask), RuleSet::kPaper, sample, response, env);
}

class CodeCheckersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PythonOptions o;
    o.worker_script = STRUCTTEST_WORKER_SCRIPT;
    pool_ = new PythonPool(o);
  }
  static void TearDownTestSuite() {
    delete pool_;
    pool_ = nullptr;
  }

  Verdict Check(const Sample& sample, std::string_view response) {
    CheckEnv env;
    env.python = pool_;
    auto v = CheckPaper(sample, response, env);
    EXPECT_TRUE(v.ok()) << v.status().message();
    if (!v.ok()) {
      Verdict failed;
      failed.reason = "error: " + v.status().message();
      return failed;
    }
    EXPECT_FALSE(v->reason.empty());
    return *v;
  }

  void ExpectNoStrays() {
    const auto strays = testing::JobProcesses(pool_->IdleWorkerPids());
    EXPECT_TRUE(strays.empty()) << "processes left behind:\n" << testing::Describe(strays);
  }

  static PythonPool* pool_;
};

PythonPool* CodeCheckersTest::pool_ = nullptr;

const char kSource[] =
    "def remove_Occ(s,ch): \n"
    "    for i in range(len(s)): \n"
    "        if (s[i] == ch): \n"
    "            s = s[0 : i] + s[i + 1:] \n"
    "            break\n"
    "    return s ";

TEST_F(CodeCheckersTest, AddPrintStatements) {
  const Sample s = MakeSample("add_print_statements", {{"source_code", kSource}});
  const std::string good =
      "<ans>\ndef remove_Occ(s,ch): \n    for i in range(len(s)): \n        if (s[i] == ch): \n"
      "            s = s[0 : i] + s[i + 1:] \n            print(\"s: \", str(s))\n"
      "            break\n    return s \n</ans>";
  Verdict v = Check(s, good);
  EXPECT_TRUE(v.pass) << v.reason;
  EXPECT_EQ(v.reason, "every assignment line of the source is in the answer, followed by a "
                      "print of its variables (1 line checked)");
  v = Check(s, "<ans>```python\n" + good.substr(5, good.size() - 11) + "\n```</ans>");
  EXPECT_TRUE(v.pass) << v.reason;
  std::string single = good;
  single.replace(single.find("print(\"s: \", str(s))"), 20, "print('s: ', str(s))");
  EXPECT_TRUE(Check(s, single).pass);

  v = Check(s, "<ans>\ndef remove_Occ(s,ch): \n    return s\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the answer has 2 non-empty lines, fewer than the 6 of the source code");
  std::string no_print = good;
  no_print.replace(no_print.find("print(\"s: \", str(s))"), 20, "x = 1");
  v = Check(s, no_print);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the line after 's = s[0 : i] + s[i + 1:]' is 'x = 1', not a print( of s");
  std::string wrong_print = good;
  wrong_print.replace(wrong_print.find("print(\"s: \", str(s))"), 20, "print(\"s=\", s)");
  v = Check(s, wrong_print);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the print after 's = s[0 : i] + s[i + 1:]' does not contain \"s: \", str(s)");
  std::string changed = good;
  changed.replace(changed.find("s[0 : i]"), 8, "s[:i]");
  v = Check(s, changed);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the source line 's = s[0 : i] + s[i + 1:]' is missing from the answer (or "
                      "was changed)");
}

TEST_F(CodeCheckersTest, ReplaceVariables) {
  const Sample s = MakeSample("replace_variables",
                              {{"source_code", kSource}, {"var_mapping", {"s:text", "i:k"}}});
  const std::string good =
      "<ans>def remove_Occ(text,ch):\n  for k in range(len(text)):\n    if (text[k] == ch):\n"
      "      text = text[0 : k] + text[k + 1:]\n      break\n  return text</ans>";
  Verdict v = Check(s, good);
  EXPECT_TRUE(v.pass) << v.reason;
  EXPECT_EQ(v.reason, "the answer is the source with the 2 renamings applied (whitespace ignored)");
  std::string bad = good;
  bad.replace(bad.find("text[k + 1:]"), 12, "text[i + 1:]");
  v = Check(s, bad);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason,
            "the answer is not the source with the renamings s->text, i->k applied (whitespace "
            "ignored): from character 63 of the code without whitespace, expected "
            "'text=text[0:k]+text[k+1:]breakreturntext', found "
            "'text=text[0:k]+text[i+1:]breakreturntext'");

  // A mapping whose old side is not a plain name goes through Python's re, as in the
  // reference (here it matches nothing: "." and "(" are regex syntax).
  const Sample re_sample = MakeSample(
      "replace_variables",
      {{"source_code", "def f(word):\n  return word.split('_')"},
       {"var_mapping", {"word:w", "w.split('_'):parts"}}});
  v = Check(re_sample, "<ans>def f(w):\n  return w.split('_')</ans>");
  EXPECT_TRUE(v.pass) << v.reason;

  CheckEnv env;
  env.python = pool_;
  auto err = CheckPaper(
      MakeSample("replace_variables", {{"source_code", "x"}, {"var_mapping", {"a:b:c"}}}), "x",
      env);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().message(),
            "context.var_mapping[0]: 'a:b:c' is not of the form old:new (one colon)");
}

TEST_F(CodeCheckersTest, TestCaseInputsGenFunctionStyle) {
  const Sample s = MakeSample("test_case_inputs_gen", {{"source_code", kSource},
                                                       {"fn_name", "remove_Occ"},
                                                       {"gen_n", 5},
                                                       {"call_based", true}});
  Verdict v = Check(s, "<ans>\n[\"hello\", \"l\"]\n(\"ab\", \"a\")\n\"x\", \"y\"\n"
                       "[\"\", \"\"]\n[\"q\", \"q\"]\n</ans>");
  EXPECT_TRUE(v.pass) << v.reason;
  EXPECT_EQ(v.reason, "the program runs without an error on all 5 inputs");
  v = Check(s, "<ans>\n```python\n[\"a\", \"b\"]\n[\"a\", \"b\"]\n```\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason,
            "expected 5 test inputs (one Python expression per line), found only 4 non-empty "
            "lines");
  v = Check(s, "<ans>\nHere they are:\n[\"a\", \"b\"]\n[\"a\", \"b\"]\n[\"a\", \"b\"]\n"
               "[\"a\", \"b\"]\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "expected 5 test input lines, found 4 that evaluate as Python (1 dropped, "
                      "e.g. line 1 'Here they are:': SyntaxError: invalid syntax (<string>, line 1))");
  v = Check(s, "<ans>\n[\"a\", \"b\"]\n[\"a\", \"b\"]\n[\"a\"]\n[\"a\", \"b\"]\n[\"a\", \"b\"]\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "input 3 (line 3 '[\"a\"]'): the program failed: TypeError: remove_Occ() "
                      "missing 1 required positional argument: 'ch'");
  // The reference harness's dict quirk: a dict first argument becomes the only one.
  const Sample d = MakeSample("test_case_inputs_gen",
                              {{"source_code", "def f(a, b):\n    return len(a) + b"},
                               {"fn_name", "f"}, {"gen_n", 2}, {"call_based", true}});
  v = Check(d, "<ans>\n{'a': 1}, 2\n{'b': 2}, 3\n</ans>");
  EXPECT_TRUE(v.pass) << v.reason;  // string keys: int() fails, arguments kept
  v = Check(d, "<ans>\n{'a': 1}, 2\n{}, 3\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "input 2 (line 2 '{}, 3'): the program failed: TypeError: f() missing 1 "
                      "required positional argument: 'b'");
}

const char kProgram[] =
    "import sys\n"
    "def main():\n"
    "    n = int(sys.stdin.readline())\n"
    "    values = list(map(int, sys.stdin.readline().split()))\n"
    "    assert len(values) == n\n"
    "    print(sum(values))\n"
    "main()\n";

TEST_F(CodeCheckersTest, TestCaseInputsGenStdinStyle) {
  const Sample s = MakeSample("test_case_inputs_gen_v2", {{"source_code", kProgram},
                                                          {"gen_n", 3},
                                                          {"call_based", false}});
  Verdict v = Check(s, "<ans>\n2\n1 2\n<SPLIT>1\n5\n<SPLIT>3\n1 1 1\n</ans>");
  EXPECT_TRUE(v.pass) << v.reason;
  // Inputs are kept raw: a newline after <SPLIT> is the first line the program reads.
  v = Check(s, "<ans>\n2\n1 2\n<SPLIT>\n1\n5\n<SPLIT>3\n1 1 1\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "input 2 ('1\\n5'): the program failed: ValueError: invalid literal for "
                      "int() with base 10: '\\n'");
  v = Check(s, "<ans>\n2\n1 2\n<SPLIT>\n1\n5\n<SPLIT> <SPLIT>\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "expected 3 non-empty stdin inputs separated by <SPLIT>, found 2");
  v = Check(s, "<ans>\n2\n1 2\n<SPLIT>1\n5 6\n<SPLIT>3\n1 1 1\n</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "input 2 ('1\\n5 6'): the program failed: AssertionError");
}

TEST_F(CodeCheckersTest, SimulateExecute) {
  const Sample s = MakeSample("simulate_execute", {{"fn_name", "f"},
                                                   {"inputs", "1"},
                                                   {"expected_output", "(1, 2.0)"},
                                                   {"call_based", true}});
  Verdict v = Check(s, "thinking...\n<ans>\n[1, 2]\n</ans>");
  EXPECT_TRUE(v.pass) << v.reason;
  EXPECT_EQ(v.reason, "the answer equals the expected output [1, 2.0]");
  v = Check(s, "<ans>[1, 3]</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the answer evaluates to [1, 3], expected [1, 2.0]");
  v = Check(s, "<ans>one, two</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the answer 'one, two' does not evaluate as Python: NameError: name 'one' "
                      "is not defined");
  v = Check(s, "<ans></ans>");
  EXPECT_EQ(v.reason, "the answer is empty");

  const Sample t = MakeSample("simulate_execute_v2", {{"inputs", "2\n1 2"},
                                                      {"expected_output", "3\nok\n"},
                                                      {"call_based", false}});
  EXPECT_TRUE(Check(t, "<ans>\n3\nok\n</ans>").pass);
  v = Check(t, "<ans>3\nko</ans>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "the answer differs from the expected output at line 2: expected 'ok', "
                      "found 'ko'");
}

// Strict simulate_execute compares with the returned value's exact types: taken from
// the sample when the generator marked its expected output as the value itself
// (expected_is_returned), else from running the task's function; an expected output of
// neither kind (a test assertion's literal) compares numbers by value.
TEST_F(CodeCheckersTest, StrictSimulateTakesTheReturnedValueFromTheSampleOrTheFunction) {
  const auto strict = [&](const Sample& s, std::string_view answer) {
    CheckEnv env;
    env.python = pool_;
    auto v = code_internal::CheckSimulateExecuteStrict(s, SampleParams(), answer, env);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() && v->pass;
  };
  const Sample marked = MakeSample("simulate_execute", {{"fn_name", "f"},
                                                        {"expected_output", "240"},
                                                        {"expected_is_returned", true},
                                                        {"call_based", true}});
  EXPECT_TRUE(strict(marked, "<ans>240</ans>"));
  EXPECT_FALSE(strict(marked, "<ans>240.0</ans>"));
  Sample unmarked = marked;
  unmarked.context.erase("expected_is_returned");
  EXPECT_TRUE(strict(unmarked, "<ans>240.0</ans>"));  // by value
  unmarked.context["expected_is_returned"] = "yes";    // not a bool: not a mark
  EXPECT_TRUE(strict(unmarked, "<ans>240.0</ans>"));
  Sample with_function = MakeSample("simulate_execute", {{"fn_name", "f"},
                                                         {"source_code", "def f(x):\n    return x * 2.0"},
                                                         {"inputs", "120"},
                                                         {"expected_output", "240"},
                                                         {"call_based", true}});
  EXPECT_TRUE(strict(with_function, "<ans>240.0</ans>"));
  EXPECT_FALSE(strict(with_function, "<ans>240</ans>"));
}

TEST_F(CodeCheckersTest, ErrorsAreNotVerdicts) {
  CheckEnv no_pool;
  const Sample s = MakeSample("simulate_execute", {{"expected_output", "1"}, {"fn_name", "f"}});
  auto v = CheckPaper(s, "<ans>1</ans>", no_pool);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);

  PythonOptions o;
  o.worker_script = STRUCTTEST_WORKER_SCRIPT;
  o.python = "/nonexistent/python3";
  PythonPool missing(o);
  CheckEnv env;
  env.python = &missing;
  for (const SubtaskSpec& spec : CodeFamily().subtasks) {
    // replace_variables needs no python3 for plain-name renamings.
    if (spec.name.ends_with("_v2") || spec.name == "simulate_execute" ||
        spec.name == "replace_variables") {
      continue;
    }
    const Sample m = MakeSample(spec.name, {{"source_code", "x = 1"}, {"var_mapping", {"x:y"}},
                                            {"fn_name", "f"}, {"call_based", true}});
    auto r = CheckPaper(m, "<ans>\nx = 1\nprint(\"x: \", str(x))\n1\n2\n3\n4\n5\n</ans>", env);
    ASSERT_FALSE(r.ok()) << spec.name;
    EXPECT_NE(r.status().message().find("python3"), std::string::npos) << r.status().message();
  }
  auto r = CheckPaper(s, "<ans>1</ans>", env);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);

  env.python = pool_;
  r = CheckPaper(MakeSample("simulate_execute", {{"expected_output", "[1,"}, {"fn_name", "f"}}),
                 "<ans>1</ans>", env);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  r = CheckPaper(MakeSample("add_print_statements", {}), "x", env);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "context.source_code: missing");
}

// ---- hostile inputs --------------------------------------------------------------------

struct Hostile {
  std::string name;
  std::string subtask;  // test_case_inputs_gen: `code` is the function; simulate: the answer
  std::string code;
  std::string expected_reason_part;
};

std::vector<Hostile> HostileCases(const std::string& secret_path, const std::string& outside_dir,
                                  int port) {
  auto fn = [](std::string body) { return "def f(x):\n" + body; };
  return {
      {"infinite loop", "test_case_inputs_gen", fn("    while True:\n        pass\n"),
       "did not finish within 4 s"},
      {"fork bomb", "test_case_inputs_gen",
       fn("    import os\n    while True:\n        os.fork()\n"), "BlockingIOError"},
      // Its processes wait between forks once at the limit (spinning would only burn
      // both cores for the 4 s before the kill, which this test shares with others).
      {"fork bomb that ignores errors", "test_case_inputs_gen",
       fn("    import os, time\n    while True:\n        try:\n            os.fork()\n"
          "        except BaseException:\n            time.sleep(0.05)\n"),
       "did not finish within 4 s"},
      {"allocating 50 GB", "test_case_inputs_gen", fn("    return bytearray(50 * 2**30)\n"),
       "MemoryError"},
      {"writing a file outside its directory", "test_case_inputs_gen",
       fn(fmt::format("    open('{}/escaped.txt', 'w').write('x')\n", outside_dir)),
       "Read-only file system"},
      {"writing to /tmp", "test_case_inputs_gen",
       fn("    open('/tmp/structtest-escaped.txt', 'w').write('x')\n"), "Permission denied"},
      {"opening a socket", "test_case_inputs_gen",
       fn(fmt::format("    import socket\n    socket.create_connection(('127.0.0.1', {}), 2)\n",
                      port)),
       "Network is unreachable"},
      {"printing 1 GB", "test_case_inputs_gen",
       fn("    line = 'x' * (1 << 20)\n    for _ in range(1024):\n        print(line)\n"),
       "File too large"},
      {"killing its parent", "test_case_inputs_gen",
       fn("    import os\n    os.kill(os.getppid(), 9)\n"), "Operation not permitted"},
      {"killing everything it can", "test_case_inputs_gen",
       fn("    import os\n    os.kill(-1, 9)\n"), "the program failed"},
      {"reading a root-only file", "test_case_inputs_gen",
       fn(fmt::format("    return open('{}').read()\n", secret_path)), "Permission denied"},
      {"reading /etc/shadow", "test_case_inputs_gen", fn("    return open('/etc/shadow').read()\n"),
       "Permission denied"},
      {"background process", "test_case_inputs_gen",
       fn("    import os\n    if os.fork() == 0:\n        os.setsid()\n"
          "        import time\n        time.sleep(1000)\n    raise ValueError('left a child')\n"),
       "left a child"},
      {"an answer that never ends", "simulate_execute", "__import__('time').sleep(1000)",
       "did not finish within the time limit of 10"},
      {"50 GB in an answer", "simulate_execute", "[0] * (50 * 2**30)", "MemoryError"},
      {"reading /etc/shadow in an answer", "simulate_execute", "open('/etc/shadow').read()",
       "Permission denied"},
      {"os.system in an answer", "simulate_execute",
       "__import__('os').system('touch /structtest-escaped')", "evaluates to"},
  };
}

TEST_F(CodeCheckersTest, HostileProgramsFailWithAReasonAndLeaveNothingBehind) {
  // A root-only secret and a world-writable folder outside the job's directory, and a
  // server on the host's loopback.
  // Not under /tmp: jobs see a private tmpfs there, which would hide the files.
  const fs::path base = fs::current_path().string().starts_with("/tmp") ? fs::path("/run")
                                                                        : fs::current_path();
  const fs::path dir = base / fmt::format("structtest_hostile_{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "open");
  chmod((dir / "open").c_str(), 0777);
  const fs::path secret = dir / "secret.txt";
  std::ofstream(secret) << "secret";
  chmod(secret.c_str(), 0600);
  const int server = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(server, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len);

  auto info = pool_->Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  const Sample benign = MakeSample("test_case_inputs_gen",
                                   {{"source_code", "def f(x):\n    return x + 1"},
                                    {"fn_name", "f"}, {"gen_n", 1}, {"call_based", true}});
  for (const Hostile& h : HostileCases(secret.string(), (dir / "open").string(),
                                       ntohs(addr.sin_port))) {
    SCOPED_TRACE(h.name);
    if (h.name == "opening a socket" && info->network.find("none") != 0) continue;
    Sample s;
    if (h.subtask == "simulate_execute") {
      s = MakeSample(h.subtask, {{"fn_name", "f"}, {"expected_output", "0"}, {"call_based", true}});
    } else {
      s = MakeSample(h.subtask, {{"source_code", h.code}, {"fn_name", "f"}, {"gen_n", 1},
                                 {"call_based", true}});
    }
    const auto start = std::chrono::steady_clock::now();
    const Verdict v = Check(s, h.subtask == "simulate_execute" ? "<ans>" + h.code + "</ans>"
                                                               : "<ans>1</ans>");
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("hostile %-38s %5.1f s  %s\n", h.name.c_str(), secs, v.reason.c_str());
    EXPECT_FALSE(v.pass);
    EXPECT_NE(v.reason.find(h.expected_reason_part), std::string::npos) << v.reason;
    ExpectNoStrays();
    // The pool carries on.
    const Verdict next = Check(benign, "<ans>41</ans>");
    EXPECT_TRUE(next.pass) << next.reason;
  }
  close(server);
  EXPECT_FALSE(fs::exists(dir / "open" / "escaped.txt"));
  EXPECT_FALSE(fs::exists("/tmp/structtest-escaped.txt"));
  EXPECT_FALSE(fs::exists("/structtest-escaped"));
  fs::remove_all(dir);
  ExpectNoStrays();
}

// The responses of tests/hostile_test.cc, over every code subtask with a valid context
// (the one suggested for its SampleFor): each fails with a reason, none is an error.
TEST_F(CodeCheckersTest, HostileResponsesFailWithAReason) {
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "<div><summary><html><think>";
  std::string markers;
  for (int i = 0; i < 1000000; ++i) markers += "1. ";
  std::string big(10 << 20, 'a');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = '.';
  for (size_t i = 50; i < big.size(); i += 1013) big[i] = '\n';
  const std::vector<std::pair<std::string, std::string>> responses = {
      {"empty", ""},
      {"whitespace", " \t\n\r\n\xC2\xA0 \n"},
      {"nul bytes", std::string("<ans>\0* a\0\n1.\0 x</ans>\0", 24)},
      {"invalid utf-8", "<ans>\xFF\xFE* \xC0\x80 1\xE2. \xED\xA0\x80 \xF4\x90\x80\x80</ans>"},
      {"100k nested tags", nested},
      {"a million list markers", markers},
      {"10 MB", big},
      {"only periods", std::string(1 << 20, '.')},
      {"only newlines", std::string(1 << 20, '\n')},
      {"garbage", "lorem ipsum ###### \\boxed{ ```json [1, {\"a\": ] } </ans> <ans>"},
  };
  const auto start = std::chrono::steady_clock::now();
  for (const SubtaskSpec& spec : CodeFamily().subtasks) {
    const bool v2 = spec.name.ends_with("_v2");
    nlohmann::json context = {
        {"source_code", v2 ? "a, b = map(int, input().split())\nc = a + b\nprint(c)"
                           : "def f(a, b):\n    c = a + b\n    return c"},
        {"var_mapping", {"a:x", "b:y"}}, {"fn_name", "f"}, {"gen_n", 5},
        {"call_based", !v2}, {"expected_output", "3"}};
    const Sample s = MakeSample(spec.name, context);
    for (const auto& [name, text] : responses) {
      SCOPED_TRACE(std::string(spec.name) + " / " + name);
      const Verdict v = Check(s, text);
      EXPECT_FALSE(v.pass) << v.reason;
    }
  }
  std::printf("hostile responses over the code subtasks: %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ExpectNoStrays();
}

TEST(CodeFamilyTest, SimulateExecuteTaskKey) {
  Sample s;
  s.subtask = "simulate_execute";
  s.id = "11_2";
  EXPECT_EQ(SimulateExecuteTaskKey(s), "11");
  s.context = {{"task_id", 12}};
  EXPECT_EQ(SimulateExecuteTaskKey(s), "12");
  s.subtask = "replace_variables";
  EXPECT_EQ(SimulateExecuteTaskKey(s), "");
}

}  // namespace
}  // namespace structtest
