// End-to-end tests of the structtest binary: real process, real files, checked output
// and exit codes.
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "structtest/checker.h"
#include "structtest/version.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace cli_test {
namespace {

using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

struct CommandResult {
  int exit_code;
  std::string out, err;
};

// Runs the binary in `dir`, with `dir` as HOME and no cache named in the environment, so
// that a default run directory or response cache lands in the test's own folder.
CommandResult Structtest(const TempDir& dir, const std::string& args) {
  const std::string out = dir.path() + "/stdout", err = dir.path() + "/stderr";
  const std::string cmd = "cd '" + dir.path() + "' && env -u STRUCTTEST_CACHE HOME='" +
                          dir.path() + "' '" + STRUCTTEST_BINARY + "' " + args + " >'" + out +
                          "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFileOrDie(out), ReadFileOrDie(err)};
}

const char kBulletPass[] =
    R"({"id": "b1", "domain": "summarization", "subtask": "bullet_points", "params": {"n_points": 2, "symbol": "*"}, "context": {"start_tag": "<summary>", "end_tag": "</summary>"}, "response": "<summary>\n* one\n* two\n</summary>"})";
const char kBulletFail[] =
    R"({"id": "b2", "domain": "summarization", "subtask": "bullet_points", "params": {"n_points": 3, "symbol": "*"}, "context": {}, "response": "* **one**\n* two"})";
const char kCode[] =
    R"({"id": "c1", "domain": "code", "subtask": "add_print_statements", "params": {}, "context": {}, "response": "x"})";
const char kLength[] =
    R"({"id": "l1", "domain": "summarization", "subtask": "length", "params": {"n_sentences": 2}, "context": {}, "response": "<summary>One. Two.</summary>"})";

// `score -o -`: the verdicts are stdout, one JSON object a line, and the table (and
// --explain) go to stderr, so that stdout pipes into a JSON tool.
TEST(CliTest, VerdictsOnStdoutLeaveStdoutJsonl) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, std::string(kBulletPass) + "\n" + kBulletFail + "\n");
  const CommandResult r =
      Structtest(dir, "score --input '" + in + "' --output - --explain --rules strict");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  int verdicts = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "not JSON on stdout: " << line;
    EXPECT_EQ(j.value("rules", ""), "strict") << line;
    ++verdicts;
  }
  EXPECT_EQ(verdicts, 2) << r.out;
  EXPECT_NE(r.err.find("rules: strict"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("FAIL b2 summarization/bullet_points"), std::string::npos) << r.err;
}

TEST(CliTest, ScoresGoodRecordsAndReportsBadOnesByLine) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, std::string(kBulletPass) + "\n{not json\n" + kBulletFail + "\n" + kCode +
                         "\n");
  const CommandResult r = Structtest(dir, "score --input '" + in + "' --output '" + dir.path() +
                                    "/v.jsonl' --explain");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(in + ":2: invalid JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(in + ":4: record 'c1' (code/add_print_statements): "
                              "context.source_code: missing"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("FAIL b2 summarization/bullet_points: expected 3 '*' bullet symbols, "
                       "found 6"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("bullet_points"), std::string::npos);
  EXPECT_NE(r.out.find(" 50.00"), std::string::npos) << r.out;
  const std::string verdicts = ReadFileOrDie(dir.path() + "/v.jsonl");
  EXPECT_NE(verdicts.find(R"({"checks":[{"detail":"2 '*' symbols as asked","name":"symbol-count",)"
                          R"("result":"pass"}],"domain":"summarization","id":"b1","pass":true,)"),
            std::string::npos)
      << verdicts;
  EXPECT_NE(verdicts.find(R"("rules_version":"paper-1","score":0.0,"subtask":"bullet_points"})"),
            std::string::npos)
      << verdicts;
  EXPECT_NE(verdicts.find(R"("id":"b2","pass":false,"reason":"expected 3)"), std::string::npos);
  EXPECT_NE(verdicts.find(R"("error":"context.source_code: missing")"),
            std::string::npos);
}

TEST(CliTest, AllScoredExitsZero) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, std::string(kBulletPass) + "\n" + kBulletFail + "\n");
  const CommandResult r = Structtest(dir, "score -i '" + in + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("rules: paper"), std::string::npos);
}

TEST(CliTest, UnreadableInputAndBadRulesAreFatal) {
  TempDir dir;
  CommandResult r = Structtest(dir, "score --input /nonexistent/in.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "structtest: error: /nonexistent/in.jsonl: No such file or directory\n");
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, kBulletPass);
  r = Structtest(dir, "score --input '" + in + "' --rules loose");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown rule set 'loose'"), std::string::npos) << r.err;
  r = Structtest(dir, "score");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--input is required"), std::string::npos) << r.err;
  r = Structtest(dir, "frobnicate");
  EXPECT_EQ(r.exit_code, 2);
}

// `score -o` naming the input (or a link to it) stops before anything is written: the
// input keeps its records.
TEST(CliTest, ScoreRefusesToWriteOverItsInput) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  const std::string records = std::string(kBulletPass) + "\n" + kBulletFail + "\n";
  WriteFileOrDie(in, records);
  std::filesystem::create_symlink(in, dir.path() + "/link.jsonl");
  for (const std::string& out : {in, dir.path() + "/link.jsonl"}) {
    const CommandResult r = Structtest(dir, "score -i '" + in + "' -o '" + out + "'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "structtest: error: " + out + ": the output is the input file " + in +
                         ": writing it would destroy it before it is read; write "
                         "the output to another file\n");
    EXPECT_EQ(ReadFileOrDie(in), records);
  }
  const CommandResult r = Structtest(dir, "score -i '" + in + "' -o '" + dir.path() + "/v.jsonl'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string verdicts = ReadFileOrDie(dir.path() + "/v.jsonl");
  EXPECT_EQ(std::count(verdicts.begin(), verdicts.end(), '\n'), 2) << verdicts;
  EXPECT_EQ(ReadFileOrDie(in), records);
}

// libcurl is loaded by the first HTTP client only: a command that sends no request
// starts without it (and its 35 libraries), one that does loads it.
TEST(CliTest, OnlyACommandThatSendsRequestsLoadsLibcurl) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, std::string(kBulletPass) + "\n");
  const CommandResult score =
      Structtest(dir, "score -i '" + in + "' -o '" + dir.path() + "/v.jsonl'");
  ASSERT_EQ(score.exit_code, 0) << score.err;
  // The loader's own log of the libraries it opens.
  const auto loaded = [&](const std::string& args) {
    const std::string log = dir.path() + "/ld.log";
    const std::string cmd = "LD_DEBUG=files LD_DEBUG_OUTPUT='" + log + "' '" +
                            std::string(STRUCTTEST_BINARY) + "' " + args +
                            " >/dev/null 2>&1 </dev/null";
    (void)std::system(cmd.c_str());
    std::string all;
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      if (f.path().filename().string().starts_with("ld.log")) {
        all += ReadFileOrDie(f.path().string());
        std::filesystem::remove(f.path());
      }
    }
    return all;
  };
  const std::string score_log = loaded("score -i '" + in + "' -o '" + dir.path() + "/v.jsonl'");
  ASSERT_NE(score_log.find("libc.so"), std::string::npos) << "no loader log";
  EXPECT_EQ(score_log.find("libcurl"), std::string::npos) << score_log;
  // A request to a port nothing listens on: the client is made, and fails.
  const std::string samples = dir.path() + "/samples.jsonl";
  ASSERT_EQ(Structtest(dir, "generate --tasks html_easy --limit 1 --out '" + samples + "'")
                .exit_code,
            0);
  const std::string run_log =
      loaded("run --model openai/m --base-url http://127.0.0.1:9/v1 --samples '" + samples +
             "' --out '" + dir.path() + "/run' --retries 0 --quiet");
  EXPECT_NE(run_log.find("libcurl"), std::string::npos);
}

// A folder named with --nltk-data that lacks the model is an error before anything is
// scored, naming the folder; the built-in model is not used in its place.
TEST(CliTest, ANamedSentenceModelFolderWithoutTheModelIsRefused) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, std::string(kLength) + "\n" + kBulletPass + "\n");
  const CommandResult r = Structtest(dir, "score --input '" + in + "' --output - --nltk-data '" +
                                              dir.path() + "/no-such-dir'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--nltk-data " + dir.path() + "/no-such-dir: "), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

// The length subtask scores with the built-in model, and with NLTK's own copy of it
// when ../shared is there.
TEST(CliTest, LengthScoresWithTheBuiltinModel) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, std::string(kLength) + "\n");
  CommandResult r = Structtest(dir, "score --input '" + in + "' --output -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("id":"l1","pass":true)"), std::string::npos) << r.out;
  if (::structtest::testing::SharedNltkData().empty()) {
    std::printf("LengthScoresWithTheBuiltinModel: ../shared/nltk_data is absent: the shared "
                "model's case is skipped\n");
    return;
  }
  r = Structtest(dir, "score --input '" + in + "' --output - --nltk-data '" +
                          ::structtest::testing::SharedNltkData() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("id":"l1","pass":true)"), std::string::npos) << r.out;
}

TEST(CliTest, GenerateIsDeterministicAndExplainsBadArguments) {
  TempDir dir;
  const std::string a = dir.path() + "/a.jsonl", b = dir.path() + "/b.jsonl";
  CommandResult r = Structtest(
      dir, "generate --seed 5 --size 0.01 --tasks html,bullet_points,math_hard --out '" + a + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bullet_points"), std::string::npos) << r.out;
  r = Structtest(dir, "generate --seed 5 --size 0.01 --tasks html,bullet_points,math_hard "
                      "--out '" + b + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first = ReadFileOrDie(a);
  EXPECT_EQ(first, ReadFileOrDie(b));
  // 12 bullet_points + 3 + 3 html + 13 math_hard samples, one per line.
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 12 + 3 + 3 + 13);
  EXPECT_NE(first.find(R"("messages":[{"content":)"), std::string::npos);
  EXPECT_NE(first.find(R"("target":{"answer":)"), std::string::npos);

  r = Structtest(dir, "generate --tasks bulet_points --out '" + a + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'bulet_points' is neither a subtask nor a domain (did you mean "
                       "'bullet_points'?)"),
            std::string::npos)
      << r.err;
  r = Structtest(dir, "generate --suite paper --tasks summarization,math --out '" + a + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--documents FILE"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--gsm8k FILE"), std::string::npos) << r.err;
  r = Structtest(dir, "generate --size 0 --out '" + a + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--size"), std::string::npos) << r.err;
  // A data file smaller than the paper's counts is used again from its start: said.
  std::string problems;
  for (int i = 2; i < 4; ++i) {
    const nlohmann::json problem = {
        {"question", fmt::format("Ann has {} apples and buys 3 more. How many?", i)},
        {"answer", fmt::format("{} + 3 = <<{}+3={}>>{}\n#### {}", i, i, i + 3, i + 3, i + 3)}};
    problems += problem.dump() + "\n";
  }
  WriteFileOrDie(dir.path() + "/two.jsonl", problems);
  r = Structtest(dir, "generate --suite paper --tasks math_easy --size 0.01 --gsm8k two.jsonl "
                      "--out '" + a + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--gsm8k two.jsonl: 2 problems for up to 13 samples of a subtask: each "
                       "is used by about 7 samples"),
            std::string::npos)
      << r.err;
  // run says it too, when it makes the run's samples
  r = Structtest(dir, "run --model builtin/oracle --suite paper --tasks math_easy --size 0.01 "
                      "--gsm8k two.jsonl --out paper-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("structtest: warning: --gsm8k two.jsonl: 2 problems for up to 13 samples "
                       "of a subtask"),
            std::string::npos)
      << r.err;
}

// A composed subtask's name is wider than the paper's longest: the report's columns widen
// to it, so that every row stays under its header.
TEST(CliTest, TheReportWidensItsSubtaskColumnToTheLongestName) {
  TempDir dir;
  ASSERT_EQ(Structtest(dir, "generate --suite composed --tasks summarization "
                            "--rules-per-sample 8 --limit 2 --out c8.jsonl")
                .exit_code,
            0);
  const CommandResult r = Structtest(dir, "run --model builtin/oracle --samples c8.jsonl -q --out c8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t header = r.out.find("domain         subtask");
  const size_t row = r.out.find("summarization  summarization_composed_k8");
  ASSERT_NE(header, std::string::npos) << r.out;
  ASSERT_NE(row, std::string::npos) << r.out;
  // "domain" 14 wide and a space, the 25 letters of the name and a space, then "split"
  const size_t split = 15 + 25 + 1;
  EXPECT_EQ(r.out.substr(header + split, 5), "split") << r.out;
  EXPECT_EQ(r.out[row + split - 1], ' ') << r.out;
  EXPECT_NE(r.out[row + split], ' ') << r.out;
}

// run --rules-per-sample K (or --difficulty) asks the composed suite at K: the samples
// are those `generate` makes at K, the run's directory and identity hold K (the default
// 3 as before, so older composed runs resume), another K in the same directory is
// refused naming it, and the flags are refused off the composed suite and with --samples.
TEST(CliTest, RunTakesTheComposedDialAndKeepsItInTheRunsIdentity) {
  TempDir dir;
  ASSERT_EQ(Structtest(dir, "generate --suite composed --tasks math --rules-per-sample 6 "
                            "--limit 3 --out k6.jsonl")
                .exit_code,
            0);
  CommandResult r = Structtest(dir, "run --model builtin/oracle --suite composed --tasks math "
                                    "--difficulty hard --limit 3 -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string run = dir.path() + "/runs/builtin-oracle_composed_seed0_k6_math";
  ASSERT_TRUE(std::filesystem::exists(run + "/run.db")) << r.err;
  EXPECT_NE(r.out.find("math_composed_k6"), std::string::npos) << r.out;
  r = Structtest(dir, "export " + run);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> asked, generated;
  std::istringstream exported(r.out);
  for (std::string line; std::getline(exported, line);) {
    asked.insert(nlohmann::json::parse(line)["messages"][0]["content"].get<std::string>());
  }
  std::istringstream made(ReadFileOrDie(dir.path() + "/k6.jsonl"));
  for (std::string line; std::getline(made, line);) {
    generated.insert(nlohmann::json::parse(line)["messages"][0]["content"].get<std::string>());
  }
  EXPECT_EQ(asked, generated);
  // Its identity says 6; the same directory at another K is another run.
  r = Structtest(dir, "run --model builtin/oracle --suite composed --tasks math "
                      "--rules-per-sample 4 --limit 3 -q --out " + run);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("this directory holds another run (rules_per_sample was 6, now 4)"),
            std::string::npos)
      << r.err;
  // The default: no K in the name, and --rules-per-sample 3 is that same run.
  ASSERT_EQ(Structtest(dir, "run --model builtin/oracle --suite composed --tasks math --limit 1 -q")
                .exit_code,
            0);
  r = Structtest(dir, "run --model builtin/oracle --suite composed --tasks math "
                      "--rules-per-sample 3 --limit 1 -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/runs/builtin-oracle_composed_seed0_math/run.db"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/runs/builtin-oracle_composed_seed0_k3_math"));
  for (const auto& [args, error] : std::vector<std::pair<std::string, std::string>>{
           {"--rules-per-sample 4", "--rules-per-sample: only the composed suite takes it"},
           {"--suite composed --rules-per-sample 2 --difficulty easy",
            "--rules-per-sample and --difficulty: give one of them, not both"},
           {"--suite composed --rules-per-sample 9", "--rules-per-sample: 9 is not in 1..8"},
           {"--suite composed --difficulty mad", "--difficulty: unknown level 'mad'"},
           {"--samples k6.jsonl --rules-per-sample 6",
            "--rules-per-sample: the samples come from --samples k6.jsonl"}}) {
    r = Structtest(dir, "run --model builtin/oracle --limit 1 -q " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("structtest: error: " + error), std::string::npos) << args << "\n" << r.err;
  }
}

// generate --split train: the same subtasks, every sample and source item marked train,
// no prompt equal to an eval prompt of the same or another seed; refused with the paper suite, data files of the user's, or an unknown split.
TEST(CliTest, GenerateTrainSplitHasNoEvalPromptAndRefusesWhatCouldOverlap) {
  TempDir dir;
  std::set<std::string> eval_prompts;
  for (int seed : {1, 2}) {
    const std::string out = dir.path() + "/eval.jsonl";
    CommandResult r = Structtest(dir, fmt::format("generate --seed {} --size 0.02 --out '{}'",
                                                  seed, out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(ReadFileOrDie(out));
    for (std::string line; std::getline(lines, line);) {
      eval_prompts.insert(nlohmann::json::parse(line)["messages"][0]["content"]);
    }
  }
  const std::string train = dir.path() + "/train.jsonl";
  CommandResult r = Structtest(dir, "generate --seed 1 --size 0.02 --split train --out '" +
                                        train + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(train split)"), std::string::npos) << r.out;
  std::istringstream lines(ReadFileOrDie(train));
  std::set<std::string> subtasks;
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    const auto j = nlohmann::json::parse(line);
    subtasks.insert(j["subtask"]);
    EXPECT_TRUE(j["id"].get<std::string>().starts_with("train-")) << j["id"];
    EXPECT_FALSE(eval_prompts.contains(j["messages"][0]["content"])) << j["id"];
    for (const char* key : {"document_id", "problem_id", "task_id"}) {
      if (j["context"].contains(key)) {
        EXPECT_TRUE(j["context"][key].get<std::string>().starts_with("train-")) << line;
      }
    }
  }
  EXPECT_EQ(subtasks.size(), 19u);
  EXPECT_GT(n, 100);
  const std::pair<const char*, const char*> refused[] = {
      {"--split test", "--split: unknown split 'test' (expected 'eval' or 'train')"},
      {"--split train --suite paper", "the paper suite has no train split"},
      {"--split train --gsm8k x.jsonl", "--split train takes no --gsm8k FILE"},
      {"--split train --documents d", "--split train takes no --documents FILE"},
  };
  for (const auto& [flags, message] : refused) {
    r = Structtest(dir, std::string("generate ") + flags + " --out '" + train + "'");
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_NE(r.err.find(message), std::string::npos) << flags << ": " << r.err;
  }
}

// The lines of a JSONL file, grouped by subtask, in order.
std::map<std::string, std::vector<std::string>> LinesBySubtask(const std::string& text) {
  std::map<std::string, std::vector<std::string>> out;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    const std::string line = text.substr(start, end - start);
    out[nlohmann::json::parse(line).at("subtask").get<std::string>()].push_back(line);
  }
  return out;
}

TEST(CliTest, GenerateLimitGivesTheFirstSamplesOfEachSubtaskByteForByte) {
  TempDir dir;
  const std::string full = dir.path() + "/full.jsonl", part = dir.path() + "/part.jsonl";
  CommandResult r = Structtest(dir, "generate --seed 4 --size 0.05 --out '" + full + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Structtest(dir, "generate --seed 4 --size 0.05 --limit 5 --out '" + part + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" samples, suite default, seed 4"), std::string::npos) << r.out;
  const auto all = LinesBySubtask(ReadFileOrDie(full));
  const auto limited = LinesBySubtask(ReadFileOrDie(part));
  ASSERT_EQ(all.size(), 19u);
  ASSERT_EQ(limited.size(), all.size());
  for (const auto& [subtask, lines] : all) {
    ASSERT_GT(lines.size(), 5u) << subtask;
    const std::vector<std::string> first(lines.begin(), lines.begin() + 5);
    EXPECT_EQ(limited.at(subtask), first) << subtask;
  }
  // The file is those lines in the suite's order: subtask after subtask.
  std::string expected;
  const std::string text = ReadFileOrDie(full);
  std::map<std::string, int> taken;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    const std::string line = text.substr(start, end - start + 1);
    if (++taken[nlohmann::json::parse(line).at("subtask").get<std::string>()] <= 5) {
      expected += line;
    }
  }
  EXPECT_EQ(ReadFileOrDie(part), expected);

  for (const char* bad : {"0", "abc", "1.5", "''", "-3", "99999999999999999999"}) {
    r = Structtest(dir, std::string("generate --limit ") + bad + " --out '" + part + "'");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("structtest: error: --limit: "), std::string::npos) << bad << ": "
                                                                             << r.err;
  }
  r = Structtest(dir, "generate --limit 0 --out '" + part + "'");
  EXPECT_NE(r.err.find("--limit: '0' is not a positive whole number (of samples per "
                       "subtask)"),
            std::string::npos)
      << r.err;
}

// A run directory records the limit: another --limit (or none) is another run.
TEST(CliTest, RunLimitIsPartOfTheRun) {
  TempDir dir;
  const std::string out = dir.path() + "/run";
  const std::string run = "run --model builtin/oracle --tasks html --out '" + out + "'";
  CommandResult r = Structtest(dir, run + " --limit 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(4 samples)"), std::string::npos) << r.out;
  r = Structtest(dir, run + " --limit 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(4 samples)"), std::string::npos) << r.out;
  // A larger limit is the same suite's longer prefix: the run grows
  // (RunCliTest.ALargerLimitGrowsTheRunAndAsksOnlyTheNewSamples shows what is asked).
  r = Structtest(dir, run + " --limit 3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--limit 3 grows the run (limit was 2): 2 new sample(s)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("(6 samples)"), std::string::npos) << r.out;
  // A smaller one is another run.
  r = Structtest(dir, run + " --limit 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds another run (limit was 3, now 2)"), std::string::npos) << r.err;

  // With --samples, the first N of each subtask in the file.
  const std::string samples = dir.path() + "/s.jsonl";
  r = Structtest(dir, "generate --size 0.05 --tasks html,math --out '" + samples + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Structtest(dir, "run --model builtin/oracle --samples '" + samples + "' --limit 3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(12 samples)"), std::string::npos) << r.out;
  r = Structtest(dir, "run --model builtin/oracle --limit x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("structtest: error: --limit: 'x' is not a positive whole number"),
            std::string::npos)
      << r.err;
}

TEST(CliTest, GeneratedSamplesScoreWithTheirReferenceAnswers) {
  // The generated file, with each target.answer as the response, scores 100%.
  TempDir dir;
  const std::string samples = dir.path() + "/s.jsonl";
  CommandResult r = Structtest(dir, "generate --seed 9 --size 0.02 --tasks html,math,"
                                    "bullet_points,questions --out '" + samples + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string scored;
  for (size_t start = 0, end; (end = ReadFileOrDie(samples).find('\n', start)) != std::string::npos;
       start = end + 1) {
    nlohmann::json j = nlohmann::json::parse(ReadFileOrDie(samples).substr(start, end - start));
    j["response"] = j["target"]["answer"];
    scored += j.dump() + "\n";
  }
  WriteFileOrDie(dir.path() + "/r.jsonl", scored);
  r = Structtest(dir, "score --input '" + dir.path() + "/r.jsonl' --explain");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("html           100.00 100.00"), std::string::npos) << r.out;
}

// Records of every code subtask (generated samples, each with its reference answer, a
// truncated one and an empty one) between summarization records.
std::string CodeRecordsOfEverySubtask(const TempDir& dir) {
  const std::string samples = dir.path() + "/code.jsonl";
  CommandResult r = Structtest(dir, "generate --seed 4 --tasks code --limit 3 --out '" +
                                        samples + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string records;
  std::set<std::string> subtasks;
  std::istringstream lines(ReadFileOrDie(samples));
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    subtasks.insert(j["subtask"].get<std::string>());
    const std::string answer = j["target"]["answer"].get<std::string>();
    for (const std::string& response : {answer, answer.substr(0, answer.size() / 2), std::string()}) {
      j["response"] = response;
      records += j.dump() + "\n" + kBulletPass + "\n";
    }
  }
  EXPECT_EQ(subtasks.size(), 8u) << "not every code subtask was generated";
  return records;
}

// --score-jobs only changes how many code records are scored at once: the verdict
// lines, the table and the errors are the same bytes with one thread as with several.
TEST(CliTest, ScoreJobsGiveTheSameOutputOnEveryCodeSubtask) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, CodeRecordsOfEverySubtask(dir) + "not json\n" + kCode + "\n");
  std::string first_out, first_err;
  for (const char* jobs : {"1", "3", "8"}) {
    SCOPED_TRACE(jobs);
    const std::string out = dir.path() + "/v" + jobs + ".jsonl";
    CommandResult r = Structtest(dir, std::string("score -J ") + jobs + " --explain -i '" + in +
                                          "' -o '" + out + "'");
    EXPECT_EQ(r.exit_code, 1) << r.err;  // the bad line and the paramless code record
    const std::string verdicts = ReadFileOrDie(out);
    if (first_out.empty()) {
      first_out = r.out + verdicts;
      first_err = r.err;
      EXPECT_NE(verdicts.find("\"subtask\":\"simulate_execute_v2\""), std::string::npos);
      EXPECT_NE(r.out.find("FAIL"), std::string::npos);
      continue;
    }
    EXPECT_EQ(r.out + verdicts, first_out);
    EXPECT_EQ(r.err, first_err);
  }
  // Out of range or not a number: refused as the flags are read, by every command that
  // scores (rescore and import before they open the run).
  for (const std::string& command :
       {"score -i '" + in + "'", "rescore '" + dir.path() + "/no-run'",
        "import '" + dir.path() + "/no-run' '" + in + "'",
        std::string("run --model builtin/null --limit 1")}) {
    for (const char* jobs : {"0", "1025", "two", "-3"}) {
      CommandResult r = Structtest(dir, command + " -J " + jobs);
      EXPECT_EQ(r.exit_code, 2) << command << jobs;
      EXPECT_NE(r.err.find(fmt::format("--score-jobs: expected a whole number from 1 to 1024, got "
                                       "'{}'", jobs)),
                std::string::npos)
          << command << ": " << r.err;
    }
  }
}

// A python3 that does not exist: each code record that needs it is an error of its
// own, named by its line, the same on several threads as on one, and the command ends.
TEST(CliTest, ScoreWithoutPythonIsAnErrorPerCodeRecord) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, CodeRecordsOfEverySubtask(dir));
  std::string first_err, first_verdicts;
  for (const char* jobs : {"1", "4"}) {
    SCOPED_TRACE(jobs);
    const std::string out = dir.path() + "/v" + jobs + ".jsonl";
    CommandResult r = Structtest(dir, std::string("score -J ") + jobs +
                                          " --python /nonexistent/python3 -i '" + in + "' -o '" +
                                          out + "'");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    // Issue 50: the path named is missing, said as such (not "point STRUCTTEST_PYTHON at
    // one", which the user just did with --python).
    EXPECT_NE(r.err.find("in.jsonl:3: record 'add_print_statements-0' (code/add_print_statements): "
                         "python /nonexistent/python3: no such file (the code subtasks need a "
                         "python3 interpreter)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("STRUCTTEST_PYTHON"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("record(s) could not be scored"), std::string::npos) << r.err;
    if (first_err.empty()) {
      first_err = r.err;
      first_verdicts = ReadFileOrDie(out);
    } else {
      EXPECT_EQ(r.err, first_err);
      EXPECT_EQ(ReadFileOrDie(out), first_verdicts);
    }
  }
}

// `run` stores the same verdicts whatever --score-jobs, fresh and rescored.
TEST(CliTest, RunScoreJobsStoreTheSameVerdicts) {
  TempDir dir;
  std::string first;
  for (const char* jobs : {"1", "4"}) {
    const std::string out = dir.path() + "/run" + jobs;
    CommandResult r = Structtest(dir, std::string("run --model builtin/loophole --quiet --no-cache "
                                                  "--tasks code,html --size 0.05 -J ") +
                                          jobs + " --out '" + out + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;  // every answer scored
    r = Structtest(dir, "export '" + out + "' --all");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"domain\":\"code\""), std::string::npos);
    if (first.empty()) {
      first = r.out;
    } else {
      EXPECT_EQ(r.out, first);
    }
  }
}

// `export -o` naming the run's own database (or its log) is refused, and the run is
// still whole: exported again, it gives the same lines.
TEST(CliTest, ExportRefusesToWriteOverTheRunItReads) {
  TempDir dir;
  const std::string run = dir.path() + "/run";
  CommandResult r = Structtest(dir, "run --model builtin/oracle --quiet --no-cache --tasks html "
                                    "--size 0.02 --out '" + run + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Structtest(dir, "export '" + run + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string lines = r.out;
  ASSERT_NE(lines.find("\"subtask\":\"html_easy\""), std::string::npos) << lines;
  for (const std::string file : {"run.db", "run.db-wal"}) {
    const std::string path = run + "/" + file;
    if (!std::filesystem::exists(path)) continue;  // no log left after a clean close
    r = Structtest(dir, "export '" + run + "' -o '" + path + "'");
    EXPECT_EQ(r.exit_code, 2) << file;
    EXPECT_NE(r.err.find(path + ": the output is the input file"), std::string::npos) << r.err;
  }
  r = Structtest(dir, "export '" + run + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, lines);
}

TEST(CliTest, RunScoresTheBuiltinResponders) {
  TempDir dir;
  CommandResult r = Structtest(dir, "run --model builtin/oracle --size 0.01 --tasks "
                                    "html,math,bullet_points,questions");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("== builtin/oracle on suite default (seed 0)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("html           100.00 100.00"), std::string::npos) << r.out;
  r = Structtest(dir, "run --model builtin/null --size 0.01 --tasks html,math");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("math             0.00   0.00"), std::string::npos) << r.out;
  unsetenv("OPENAI_API_KEY");
  r = Structtest(dir, "run --model openai/some-model --tasks html");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("OPENAI_API_KEY is not set"), std::string::npos) << r.err;
  r = Structtest(dir, "run --model mystery/some-model");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("mystery"), std::string::npos) << r.err;
  r = Structtest(dir, "run --model builtin/oracle --concurrency 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--concurrency 0: expected 1 to 4096"), std::string::npos) << r.err;
  r = Structtest(dir, "run --model builtin/oracle --max-rps -3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-rps -3: expected a positive rate"), std::string::npos) << r.err;
  r = Structtest(dir, "run --model builtin/orcale");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown built-in responder"), std::string::npos) << r.err;
  // A sentence model folder that lacks the model is refused before anything is made.
  r = Structtest(dir, "run --model builtin/oracle --size 0.01 --tasks length,html --out '" +
                          dir.path() + "/run' --nltk-data '" + dir.path() + "/none'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--nltk-data " + dir.path() + "/none: "), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run")) << r.err;
}

// A model run whose --nltk-data folder lacks the model stops before asking anything or
// storing anything: on a new run and on the same command again.
TEST(CliTest, AModelRunWithAWrongSentenceModelFolderStopsBeforeAskingAnything) {
  TempDir dir;
  const std::string in = dir.path() + "/samples.jsonl";
  WriteFileOrDie(in,
                 R"({"id": "h1", "domain": "html", "subtask": "html_easy", "params": {}, "context": {}, "messages": [{"role": "user", "content": "Write a page."}]})"
                 "\n"
                 R"({"id": "l1", "domain": "summarization", "subtask": "length", "params": {"n_sentences": 2}, "context": {}, "messages": [{"role": "user", "content": "Summarize."}]})"
                 "\n");
  const std::string args = "run --model openai/m --base-url http://127.0.0.1:9/v1 --samples '" +
                           in + "' --out '" + dir.path() + "/run' --nltk-data '" + dir.path() +
                           "/none' --quiet";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const CommandResult r = Structtest(dir, args);
    EXPECT_EQ(r.exit_code, 2) << attempt;
    EXPECT_NE(r.err.find("--nltk-data " + dir.path() + "/none: punkt model: "),
              std::string::npos)
        << attempt << ": " << r.err;
    EXPECT_EQ(r.err.find("libcurl"), std::string::npos) << attempt << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run")) << attempt;
  }
}

// The Punkt model is built in: a run from an empty HOME, with no NLTK_DATA and no
// ../shared in reach, scores every subtask of the registry, the sentence-counting
// ones included.
TEST(CliTest, AMachineWithoutNltkDataScoresEverySubtask) {
  TempDir dir;
  const std::string home = dir.path() + "/home";
  std::filesystem::create_directories(home);
  const std::string cmd = "cd '" + home + "' && env -u NLTK_DATA -u STRUCTTEST_SHARED HOME='" +
                          home + "' '" + STRUCTTEST_BINARY +
                          "' run --model builtin/oracle --limit 2 --no-cache --out run "
                          ">'" + dir.path() + "/out' 2>'" + dir.path() + "/err'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFileOrDie(dir.path() + "/err");
  const std::string err = ReadFileOrDie(dir.path() + "/err");
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  const CommandResult r = Structtest(dir, "report '" + home + "/run' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  std::set<std::string> scored, sentence_counting = {"length", "bullet_points_length",
                                                      "numbered_points_length"};
  for (const auto& s : report.at("subtasks")) {
    EXPECT_GT(s.at("scored").get<int>(), 0) << s.dump();
    EXPECT_EQ(s.at("passed"), s.at("scored")) << s.dump();
    EXPECT_EQ(s.at("errors"), 0) << s.dump();
    scored.insert(s.at("subtask").get<std::string>());
  }
  EXPECT_EQ(scored.size(), 19u) << r.out;
  for (const std::string& name : sentence_counting) EXPECT_TRUE(scored.count(name)) << name;
}

TEST(CliTest, TasksListsTheRegistry) {
  TempDir dir;
  const CommandResult r = Structtest(dir, "tasks");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"length", "bullet_points", "numbered_points", "questions",
                           "bullet_points_length", "numbered_points_length",
                           "indented_bullet_points", "html_easy", "html_hard", "math_easy",
                           "math_hard"}) {
    EXPECT_NE(r.out.find(std::string(" ") + name + " "), std::string::npos) << name;
  }
}

// ---- every flag does what it says, or is refused naming it (issue 27)

// Seeds are whole numbers from 0 to 2^64 - 1: "-3" is not read as 2^64 - 3.
TEST(CliTest, NegativeAndOutOfRangeSeedsAreRefused) {
  TempDir dir;
  for (const char* seed : {"-3", "18446744073709551616", "1e3", "x"}) {
    CommandResult r = Structtest(dir, std::string("generate --seed ") + seed + " --tasks html_easy "
                                      "--limit 1 --out '" + dir.path() + "/s.jsonl'");
    EXPECT_EQ(r.exit_code, 2) << seed;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << seed << ": " << r.err;
    EXPECT_NE(r.err.find("expected a whole number from 0 to 18446744073709551615"),
              std::string::npos)
        << seed << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/s.jsonl")) << seed;
    r = Structtest(dir, std::string("run --model builtin/oracle --seed ") + seed +
                            " --tasks html --limit 1 --out run");
    EXPECT_EQ(r.exit_code, 2) << seed;
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run")) << seed;
  }
  const CommandResult r = Structtest(dir, "generate --seed 18446744073709551615 --tasks html_easy "
                                          "--limit 1 --out -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A refused run creates nothing: every suite option is checked before the run
// directory is made.
TEST(CliTest, ARefusedRunLeavesNoRunDirectory) {
  TempDir dir;
  for (const std::string args :
       {"--size 0", "--size -1", "--size nan", "--size inf", "--tasks htm", "--suite papr",
        "--suite paper --tasks math", "--temperature -2", "--temperature 2.5",
        "--max-j 5", "--cache x.db --no-cache", "--price-in 1", "--prices p.csv",
        "--price-in 1 --price-out 2"}) {
    const CommandResult r =
        Structtest(dir, "run --model builtin/oracle --limit 1 --out run " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    // The message names the flag given.
    const std::string flag = args.substr(0, args.find(' '));
    EXPECT_NE(r.err.find(flag == "--suite" && args.find("math") != std::string::npos ? "--gsm8k"
                                                                                    : flag),
              std::string::npos)
        << args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run")) << args;
  }
  // The same checks hold for a model run, before any request.
  const CommandResult r = Structtest(dir, "run --model openai/m --base-url http://127.0.0.1:9/v1 "
                                          "--size 0 --out run");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--size: 0 is not a scale"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run"));
}

// Issue 50: an empty file printed a table of dashes and exited 1; it is unusable input,
// which docs/running.md gives exit status 2.
TEST(CliTest, ScoringNoRecordsIsUnusableInput) {
  TempDir dir;
  WriteFileOrDie(dir.path() + "/empty.jsonl", "");
  for (const char* file : {"empty.jsonl"}) {
    const CommandResult r = Structtest(dir, std::string("score -i ") + file);
    EXPECT_EQ(r.exit_code, 2) << file;
    EXPECT_EQ(r.err, fmt::format("structtest: error: {}: no records to score\n", file));
    EXPECT_EQ(r.out, "") << "no table of dashes";
  }
}

// Issue 50: an empty --tasks (an unset shell variable) meant the whole suite.
TEST(CliTest, AnEmptyTaskListIsRefused) {
  TempDir dir;
  for (const char* value : {"''", "' , '"}) {
    for (const std::string command : {"run --model builtin/oracle --out run", "generate -o s.jsonl"}) {
      const CommandResult r = Structtest(dir, command + " --tasks " + value);
      EXPECT_EQ(r.exit_code, 2) << command << " " << value;
      EXPECT_NE(r.err.find("--tasks"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("names no subtask or domain"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("leave --tasks out to choose the whole suite"), std::string::npos)
          << r.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/s.jsonl"));
}

// --output writes every format to the file named, not to stdout.
TEST(CliTest, ReportOutputWritesTheFileInEveryFormat) {
  TempDir dir;
  ASSERT_EQ(Structtest(dir, "run --model builtin/oracle --tasks html --limit 2 --out run -q")
                .exit_code,
            0);
  for (const char* format : {"text", "markdown", "json"}) {
    const std::string file = dir.path() + "/report." + format;
    const CommandResult r =
        Structtest(dir, std::string("report run --format ") + format + " --output '" + file + "'");
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_EQ(r.out, "") << format;
    const std::string written = ReadFileOrDie(file);
    EXPECT_NE(written.find("html"), std::string::npos) << format << ": " << written;
    if (std::string(format) == "json") {
      EXPECT_FALSE(nlohmann::json::parse(written, nullptr, false).is_discarded()) << written;
    }
  }
  const CommandResult r =
      Structtest(dir, "report run --format json --output '" + dir.path() + "/no/such/dir/r.json'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir.path() + "/no/such/dir/r.json: cannot write"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(".tmp"), std::string::npos) << r.err;
}

// report and export read the rule set the run was scored with; asking for another is an
// error naming the command that scores it, and that command does.
TEST(CliTest, ReadersDefaultToTheRunsRuleSetAndSuggestAWorkingRescore) {
  TempDir dir;
  ASSERT_EQ(Structtest(dir, "run --model builtin/echo --tasks html,math --limit 2 --rules strict "
                            "--out run -q")
                .exit_code,
            0);
  CommandResult r = Structtest(dir, "export run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("rules":"strict")"), std::string::npos) << r.out;
  r = Structtest(dir, "report run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rules: strict"), std::string::npos) << r.out;
  // The HTML page too: strict by default, refused under paper (a page of dashes).
  r = Structtest(dir, "report run --format html --output strict.html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(::structtest::testing::HtmlPageData(ReadFileOrDie(dir.path() + "/strict.html"))
                .find(R"("rules":"strict")"),
            std::string::npos);
  for (const char* command : {"report run --rules paper", "export run --rules paper",
                              "report run --rules paper --format html --output paper.html"}) {
    r = Structtest(dir, command);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("run: no verdicts under rules paper (it was scored under strict); score "
                         "its answers with 'structtest rescore run --rules paper'"),
              std::string::npos)
        << command << ": " << r.err;
  }
  // The command the message suggests.
  r = Structtest(dir, "rescore run --rules paper");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rules: paper"), std::string::npos) << r.out;
  r = Structtest(dir, "report run --rules paper --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("rules"), "paper");
  for (const auto& s : j.at("subtasks")) EXPECT_EQ(s.at("errors"), 0) << s.dump();
  // Both rule sets stored: paper is the default.
  r = Structtest(dir, "report run");
  EXPECT_NE(r.out.find("rules: paper"), std::string::npos) << r.out;
  r = Structtest(dir, "rescore no-such-run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-run: no run here (no run.db)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/no-such-run"));
}

// One built-in responder is a run like any: it lands in a run directory, and --quiet
// still says where.
TEST(CliTest, ABuiltinRunLandsInARunDirectory) {
  TempDir dir;
  const CommandResult r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 2 -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string run = "runs/builtin-oracle_default_seed0_html";
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/" + run + "/run.db")) << r.err;
  EXPECT_NE(r.err.find("stored in " + run), std::string::npos) << r.err;
  // The same command with a larger limit grows that run (its answers kept); a dry run
  // says so first, counting only the new samples.
  const std::string db = dir.path() + "/" + run + "/run.db";
  const CommandResult dry =
      Structtest(dir, "run --model builtin/oracle --tasks html --limit 3 --dry-run");
  EXPECT_EQ(dry.exit_code, 2) << dry.err;  // built-in responders have no dry run
  const CommandResult grown = Structtest(dir, "run --model builtin/oracle --tasks html --limit 3");
  EXPECT_EQ(grown.exit_code, 0) << grown.err;
  EXPECT_NE(grown.err.find(run + ": --limit 3 grows the run (limit was 2): 2 new sample(s)"),
            std::string::npos)
      << grown.err;
  // A run an older structtest stored under a name with its limit resumes there.
  std::filesystem::rename(dir.path() + "/" + run,
                          dir.path() + "/runs/builtin-oracle_default_seed0_html_limit3");
  const CommandResult older = Structtest(dir, "run --model builtin/oracle --tasks html --limit 3");
  EXPECT_EQ(older.exit_code, 0) << older.err;
  EXPECT_NE(older.err.find("stored in runs/builtin-oracle_default_seed0_html_limit3"),
            std::string::npos)
      << older.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

// --samples with --tasks keeps that part of the file; suite options next to --samples
// are refused, naming the flag.
TEST(CliTest, SamplesFileWithTasksAndSuiteFlags) {
  TempDir dir;
  ASSERT_EQ(Structtest(dir, "generate --tasks html_easy,math_easy --limit 2 --out s.jsonl")
                .exit_code,
            0);
  CommandResult r =
      Structtest(dir, "run --model builtin/oracle --samples s.jsonl --tasks math --out run -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Structtest(dir, "export run");
  EXPECT_EQ(r.out.find("html"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("math_easy"), std::string::npos) << r.out;
  // A resume with another filter is another run.
  r = Structtest(dir, "run --model builtin/oracle --samples s.jsonl --tasks html --out run -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("tasks was"), std::string::npos) << r.err;
  r = Structtest(dir, "run --model builtin/oracle --samples s.jsonl --tasks length --out r2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("none of its 4 samples is of --tasks length"), std::string::npos) << r.err;
  for (const char* flag : {"--seed 3", "--size 2", "--suite default"}) {
    r = Structtest(dir, std::string("run --model builtin/oracle --samples s.jsonl --out r3 ") +
                            flag);
    EXPECT_EQ(r.exit_code, 2) << flag;
    const std::string name = std::string(flag).substr(0, std::string(flag).find(' '));
    EXPECT_NE(r.err.find(name + ": the samples come from --samples s.jsonl"), std::string::npos)
        << flag << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/r3")) << flag;
  }
}

// A URL that is not an http(s) API root is refused at once, with what to give instead.
TEST(CliTest, BadBaseUrlsAreRefusedAtOnce) {
  TempDir dir;
  CommandResult r = Structtest(dir, "run --model openai/m --base-url ftp://host/v1 --out run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--base-url ftp://host/v1: expected an http:// or https:// URL"),
            std::string::npos)
      << r.err;
  r = Structtest(dir, "run --model openai/m --base-url localhost:8000/v1 --out run");
  EXPECT_EQ(r.exit_code, 2);
  r = Structtest(dir, "run --model openai/m --base-url http://127.0.0.1:9/v1/chat/completions "
                      "--out run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give the API root, not the call: http://127.0.0.1:9/v1"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run"));
}

// Unknown subcommands and flags are named, with the nearest known one.
TEST(CliTest, TyposGetTheNearestName) {
  TempDir dir;
  CommandResult r = Structtest(dir, "rnu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'rnu' (did you mean 'run'?)"), std::string::npos)
      << r.err;
  r = Structtest(dir, "bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'bogus'"), std::string::npos) << r.err;
  r = Structtest(dir, "run --modle builtin/oracle");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean '--model'?"), std::string::npos) << r.err;
  r = Structtest(dir, "report");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("report RUN_DIR is required"), std::string::npos) << r.err;
  r = Structtest(dir, "--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find(STRUCTTEST_BINARY), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("structtest"), std::string::npos) << r.out;
  r = Structtest(dir, "run --help");
  for (std::string_view name : {"oracle", "null", "echo", "skeleton", "loophole"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
  // Help is wrapped to the terminal's width ($COLUMNS here), every line of every command.
  for (const char* command : {"", "run", "report", "score", "generate", "compare"}) {
    const std::string out = dir.path() + "/help";
    const std::string cmd = fmt::format("COLUMNS=80 '{}' {} --help >'{}'", STRUCTTEST_BINARY,
                                        command, out);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::istringstream lines(ReadFileOrDie(out));
    int n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
      EXPECT_LE(line.size(), 80u) << command << ": " << line;
    }
    EXPECT_GT(n, 3) << command;
  }
}

// A run whose requests failed ends with the most frequent errors, as the server gave
// them.
TEST(CliTest, AnErroredRunShowsItsMostFrequentErrors) {
  TempDir dir;
  const CommandResult r = Structtest(dir, "run --model openai/m --base-url http://127.0.0.1:9/v1 "
                                          "--tasks html_easy --limit 2 --retries 0 --no-cache "
                                          "--out run -q");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("2 sample(s) errored"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("The most frequent error(s):\n  2 x "), std::string::npos) << r.err;
}

// A run.db that is empty or not a database is named as not a run store by every
// reader, and `run` does not take it over.
TEST(CliTest, AnEmptyOrForeignRunDbIsNotARunStore) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/empty");
  WriteFileOrDie(dir.path() + "/empty/run.db", "");
  std::filesystem::create_directories(dir.path() + "/junk");
  WriteFileOrDie(dir.path() + "/junk/run.db", std::string(4096, 'x'));
  for (const char* run : {"empty", "junk"}) {
    for (const std::string command : {"report", "export", "rescore"}) {
      const CommandResult r = Structtest(dir, command + " " + run);
      EXPECT_EQ(r.exit_code, 2) << command << " " << run;
      EXPECT_NE(r.err.find(std::string(run) + "/run.db: not a structtest run store"),
                std::string::npos)
          << command << " " << run << ": " << r.err;
    }
  }
  const CommandResult r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 1 "
                                          "--out junk");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("junk/run.db: not a structtest run store"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFileOrDie(dir.path() + "/junk/run.db"), std::string(4096, 'x'));
}

// ---- the documentation's promises (docs/running.md), each through the real binary (issue 30)

// A run directory is one run: the same command resumes it, and every setting that
// defines the run, changed, is refused naming it, with the stored run kept.
TEST(CliTest, AResumeWithAnotherSettingIsRefusedNamingIt) {
  TempDir dir;
  const std::string base = "run --model builtin/oracle --tasks html --limit 2 --out run -q";
  ASSERT_EQ(Structtest(dir, base).exit_code, 0);
  const std::string db = ReadFileOrDie(dir.path() + "/run/run.db");
  const std::pair<const char*, const char*> changes[] = {
      {"--seed 1", "seed was 0, now 1"},
      {"--size 0.5", "size was 1.0, now 0.5"},
      {"--tasks math", "tasks was [\"html\"], now [\"math\"]"},
      {"--model builtin/null", "model was \"builtin/oracle\", now \"builtin/null\""},
      // (a request setting, --max-tokens, is refused for the built-in responders: see
      // run_cli_test's resume of a served model)
      {"--limit 1", "limit was 2, now 1"},
      {"--shard 1/2", "shard was null, now \"1/2\""},
  };
  for (const auto& [change, says] : changes) {
    const std::string flag = std::string(change).substr(0, std::string(change).find(' '));
    std::string args = base;
    // The changed flag replaces the base's own, when it has one.
    for (const char* own : {"--model builtin/oracle", "--tasks html", "--limit 2"}) {
      if (std::string(own).rfind(flag + " ", 0) == 0) {
        args.replace(args.find(own), strlen(own), change);
      }
    }
    if (args == base) args += std::string(" ") + change;
    const CommandResult r = Structtest(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("run: this directory holds another run (" + std::string(says) + ")"),
              std::string::npos)
        << args << ": " << r.err;
  }
  EXPECT_EQ(ReadFileOrDie(dir.path() + "/run/run.db"), db);
  EXPECT_EQ(Structtest(dir, base).exit_code, 0);
}

// `run` with no --model: every built-in responder, in memory, and the closing table of
// each under both rule sets; nothing is stored.
TEST(CliTest, RunWithoutAModelEndsWithThePaperAndStrictTable) {
  TempDir dir;
  const CommandResult r = Structtest(dir, "run --tasks html,math --limit 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t table = r.out.find("responder rules");
  ASSERT_NE(table, std::string::npos) << r.out;
  for (const char* name : {"oracle", "null", "echo", "skeleton", "loophole"}) {
    for (const char* rules : {"paper", "strict"}) {
      EXPECT_NE(r.out.find(fmt::format("\n{:<9} {:<6}", name, rules), table), std::string::npos)
          << name << " " << rules << "\n" << r.out;
    }
  }
  // The oracle passes everything (html and math here).
  EXPECT_NE(r.out.find("\noracle    paper       -      -      -      - 100.00 100.00 100.00 "
                       "100.00", table),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/runs"));
}

// `generate --shard I/N`: the shards are disjoint and together the whole suite.
TEST(CliTest, GenerateShardsPartitionTheSuite) {
  TempDir dir;
  ASSERT_EQ(Structtest(dir, "generate --tasks html,math --limit 6 --out all.jsonl").exit_code, 0);
  std::multiset<std::string> whole, parts;
  std::istringstream all(ReadFileOrDie(dir.path() + "/all.jsonl"));
  for (std::string line; std::getline(all, line);) whole.insert(line);
  std::set<std::string> first;
  for (int i = 1; i <= 3; ++i) {
    const std::string out = fmt::format("part{}.jsonl", i);
    ASSERT_EQ(Structtest(dir, fmt::format("generate --tasks html,math --limit 6 --shard {}/3 "
                                          "--out {}", i, out))
                  .exit_code,
              0);
    std::istringstream lines(ReadFileOrDie(dir.path() + "/" + out));
    size_t n = 0;
    for (std::string line; std::getline(lines, line); ++n) parts.insert(line);
    EXPECT_GT(n, 0u) << out;
  }
  EXPECT_EQ(parts, whole);
}

// --rules strict through run, report, export, rescore and compare.
TEST(CliTest, StrictRulesThroughEveryCommand) {
  TempDir dir;
  for (const char* who : {"oracle", "loophole"}) {
    const CommandResult r = Structtest(dir, fmt::format("run --model builtin/{} --tasks html,math "
                                                        "--limit 3 --rules strict --out {} -q",
                                                        who, who));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CommandResult r = Structtest(dir, "report loophole --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("rules"), "strict");
  for (const auto& s : j.at("subtasks")) EXPECT_EQ(s.at("passed"), 0) << s.dump();
  r = Structtest(dir, "export oracle --rules strict");
  EXPECT_NE(r.out.find(R"("rules":"strict")"), std::string::npos) << r.out;
  r = Structtest(dir, "compare oracle loophole --rules strict --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("strict"), std::string::npos) << r.out;
  // Under paper the loophole passes, once its answers are scored under paper.
  ASSERT_EQ(Structtest(dir, "rescore loophole --rules paper").exit_code, 0);
  r = Structtest(dir, "report loophole --rules paper --format json");
  j = nlohmann::json::parse(r.out);
  for (const auto& s : j.at("subtasks")) EXPECT_EQ(s.at("passed"), s.at("scored")) << s.dump();
}

// --max-j bounds -j auto (and is refused without it, see ARefusedRunLeavesNoRunDirectory).
TEST(CliTest, MaxJIsTakenWithAutoConcurrency) {
  TempDir dir;
  CommandResult r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 1 -j auto "
                                    "--max-j 5 --out run -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 1 -j auto --max-j 0 "
                      "--out run2 -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-j 0: expected 1 to 4096"), std::string::npos) << r.err;
}

// Answers that could not be scored make `run` exit 1, and the report counts them.
TEST(CliTest, ARunWithAnswersThatCouldNotBeScoredExitsOne) {
  TempDir dir;
  WriteFileOrDie(dir.path() + "/s.jsonl",
                 R"({"id": "h1", "domain": "html", "subtask": "html_easy", "params": {}, "context": {}, "messages": [{"role": "user", "content": "Write a page."}]})"
                 "\n");
  const CommandResult r = Structtest(dir, "run --model builtin/echo --samples s.jsonl --out run");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("1 answered but not scored"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 answer(s) could not be scored under rules paper. The most frequent "
                       "reason(s):\n  1 x "),
            std::string::npos)
      << r.err;
}

// One version, CMakeLists.txt's project VERSION (semver, in structtest/version.h):
// `--version` opens with it and lists each family's rules versions; CHANGELOG.md's
// first entry is it. The Python module's __version__ is compared in test_structtest.py.
TEST(CliTest, VersionIsTheProjectsWithEachFamilysRulesVersions) {
  TempDir dir;
  const CommandResult r = Structtest(dir, "--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string first;
  std::getline(lines, first);
  EXPECT_EQ(first, std::string("structtest ") + kVersion);
  // Semver: MAJOR.MINOR.PATCH, digits without leading zeros, an optional -pre-release.
  const std::string core = std::string(kVersion).substr(0, std::string(kVersion).find('-'));
  int parts = 0;
  for (size_t start = 0; start <= core.size(); ++parts) {
    const size_t end = std::min(core.find('.', start), core.size());
    const std::string part = core.substr(start, end - start);
    EXPECT_TRUE(!part.empty() && part.find_first_not_of("0123456789") == std::string::npos &&
                (part == "0" || part[0] != '0'))
        << "not semver: " << kVersion;
    start = end + 1;
  }
  EXPECT_EQ(parts, 3) << "not semver: " << kVersion;
  EXPECT_EQ(fmt::format("{}.{}.{}", STRUCTTEST_VERSION_MAJOR, STRUCTTEST_VERSION_MINOR,
                        STRUCTTEST_VERSION_PATCH),
            core);
  std::map<std::string, std::string> families;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string domain;
    if (words >> domain) families[domain] = line;
  }
  for (const SubtaskInfo& t : Subtasks()) {
    ASSERT_TRUE(families.count(t.domain)) << t.domain << " missing from:\n" << r.out;
    const std::string& line = families[t.domain];
    for (const std::string& v : {t.paper_version, t.strict_version}) {
      EXPECT_NE(line.find(v.empty() ? "-" : v), std::string::npos) << t.name << ": " << line;
    }
  }
  // CHANGELOG.md starts at this version: its first "## " heading names it, after an
  // "## Unreleased" section of changes not yet given a version, if there is one.
  std::istringstream changelog(ReadFileOrDie(std::string(STRUCTTEST_SOURCE_DIR) + "/CHANGELOG.md"));
  std::string heading;
  while (std::getline(changelog, heading) &&
         (!heading.starts_with("## ") || heading == "## Unreleased")) {
  }
  EXPECT_TRUE(heading.starts_with(fmt::format("## {} ", kVersion)) ||
              heading == fmt::format("## {}", kVersion))
      << "CHANGELOG.md's first entry is \"" << heading << "\", not version " << kVersion;
}

// Issue 50: a rule listed before the failing one was shown as not checked (strict
// html_easy: "document: not-checked, outside-html: not-checked, one-document: fail").
// A verdict lists its rules in the order they were decided: no rule listed before a
// passed or failed one is "not-checked", and a rule a scan decided is not called
// unchecked.
TEST(CliTest, NoRuleListedBeforeADecidedOneIsNotChecked) {
  TempDir dir;
  const std::string html_sample =
      R"("domain": "html", "subtask": "html_easy", "params": {"config": "nested", "ground_truth": {"body": 1, "div": 1, "head": 1, "html": 1, "p": 2, "title": 2}, "mode": "nested", "no_of_tags": {"body": 1, "div": 1, "footer": 0, "h1": 0, "h2": 0, "head": 1, "html": 1, "p": 2, "title": 2}}, "context": {"end_tag": "</html>", "start_tag": "<html>"})";
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(
      in,
      "{\"id\": \"two-docs\", " + html_sample +
          R"(, "response": "<html><head><title></title><title></title></head><body><div><p></p><p></p></div></body></html><html></html>"})" +
          "\n{\"id\": \"open\", " + html_sample +
          R"(, "response": "<html><head><title></title><title></title></head><body><div><p></p><p></p></div></body>"})" +
          "\n" +
          R"({"id": "nul", "domain": "summarization", "subtask": "length", "params": {"n_sentences": 2}, "context": {"start_tag": "<summary>", "end_tag": "</summary>"}, "response": "<summary>One.\u0000 Two.</summary>"})" +
          "\n");
  const CommandResult r =
      Structtest(dir, "score --input '" + in + "' --output - --rules strict");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> shown;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    std::string list;
    bool undecided_seen = false;
    for (const auto& c : j.at("checks")) {
      const std::string result = c.at("result");
      list += c.at("name").get<std::string>() + "=" + result + " ";
      if (result == "not-checked") undecided_seen = true;
      EXPECT_TRUE(result == "not-checked" || !undecided_seen)
          << j.at("id") << ": a decided rule after an undecided one: " << list;
    }
    shown[j.at("id")] = list;
  }
  ASSERT_EQ(shown.size(), 3u) << r.out;
  EXPECT_EQ(shown["two-docs"].rfind("document=pass one-document=fail outside-html=not-checked ", 0), 0u)
      << shown["two-docs"];
  EXPECT_EQ(shown["open"].rfind("document=pass well-formed=fail ", 0), 0u) << shown["open"];
  EXPECT_EQ(shown["nul"].rfind("valid-text=fail summary-tags=not-checked ", 0), 0u) << shown["nul"];
}

// Issue 50: a run that failed before asking anything left a run directory with a
// run.db behind (a missing --samples file, an --offline file in a missing folder), and
// --out into a folder that was not a run wrote into it silently.
TEST(CliTest, ARunThatAsksNothingLeavesNoRunDirectoryAndOutMustBeARunOrNew) {
  TempDir dir;
  CommandResult r = Structtest(dir, "run --model builtin/oracle --samples nope.jsonl --out run1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nope.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run1"));

  r = Structtest(dir, "run --model openai/gpt-4o-mini --tasks html --limit 2 --offline "
                      "missing/folder/batch.jsonl --out run2");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("batch.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/run2"));

  // An empty folder the run made its own is left empty again.
  std::filesystem::create_directory(dir.path() + "/empty");
  r = Structtest(dir, "run --model builtin/oracle --samples nope.jsonl --out empty");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/empty"));

  std::filesystem::create_directory(dir.path() + "/notes");
  WriteFileOrDie(dir.path() + "/notes/todo.txt", "mine\n");
  r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 2 --out notes");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "structtest: error: notes: exists and is not a run (it holds no run.db): name "
                   "a new or empty folder, or a run directory\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/notes/run.db"));
  EXPECT_EQ(ReadFileOrDie(dir.path() + "/notes/todo.txt"), "mine\n");

  // A new folder, an empty one and an existing run are taken.
  r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 2 --out empty -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/empty/run.db"));
  r = Structtest(dir, "run --model builtin/oracle --tasks html --limit 2 --out empty -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Issue 50: compare and correlate defaulted to paper for runs scored only under strict,
// then told the user to rescore (compare) or left the runs out (correlate). They default
// to the rule set the runs were scored under, as report and export do.
TEST(CliTest, CompareAndCorrelateDefaultToTheRunsRuleSet) {
  TempDir dir;
  for (const char* model : {"oracle", "null", "loophole"}) {
    const CommandResult r = Structtest(
        dir, fmt::format("run --model builtin/{} --tasks html --limit 2 --rules strict --out {} -q",
                         model, model));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CommandResult r = Structtest(dir, "compare oracle null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rules: strict"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("rescore"), std::string::npos) << r.err;
  r = Structtest(dir, "compare oracle null --rules paper");
  EXPECT_EQ(r.exit_code, 2) << "asked for paper, which they were not scored under";

  r = Structtest(dir, "correlate --format json --run o=oracle --run n=null --run l=loophole");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool paired = false;
  for (const auto& p : j.at("pairs")) {
    if (p.at("x") == "run_html_easy" && p.at("y") == "run_html_hard") paired = p.at("n") == 3;
  }
  EXPECT_TRUE(paired) << "the three runs' strict figures are correlated: " << r.out;
}

// Issue 50: `report --format json --explain` wrote "FAIL ..." lines before the JSON on
// stdout. The failures are part of the document.
TEST(CliTest, JsonReportWithExplainIsOneJsonDocument) {
  TempDir dir;
  Structtest(dir, "run --model builtin/null --tasks html_easy --limit 2 --out run -q");
  ASSERT_TRUE(std::filesystem::exists(dir.path() + "/run/run.db"));
  const CommandResult r = Structtest(dir, "report run --format json --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "not one JSON document: " << r.out;
  ASSERT_EQ(j.at("explained").size(), 2u) << r.out;
  EXPECT_EQ(j.at("explained")[0].at("result"), "fail");
  EXPECT_EQ(j.at("explained")[0].at("subtask"), "html_easy");
  EXPECT_FALSE(j.at("explained")[0].at("reason").get<std::string>().empty());
  const CommandResult plain = Structtest(dir, "report run --format json");
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("explained"));
  const CommandResult text = Structtest(dir, "report run --explain");
  EXPECT_EQ(text.out.rfind("FAIL ", 0), 0u) << text.out;
}

}  // namespace
}  // namespace cli_test
}  // namespace structtest
