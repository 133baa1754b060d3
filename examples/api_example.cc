// The C++ API in one program (docs/cpp-api.md): generate a few samples, score an
// answer to each under both rule sets, then run a built-in responder on a suite into a
// run directory and read its table back. It includes nothing but include/structtest/
// and links structtest_api. Usage: api_example DIR (an empty folder for the run).
// Prints what it did and exits 0; anything unexpected is an error (exit 1), so that
// the test that runs it can fail.
#include <cstdio>
#include <filesystem>
#include <string>

#include "structtest/checker.h"
#include "structtest/generate.h"
#include "structtest/run.h"
#include "structtest/run_reader.h"
#include "structtest/sample.h"

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "api_example: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return Fail("usage: api_example DIR");
  const std::string dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail(dir + ": " + ec.message());

  // 1. A suite: two samples of each HTML and math subtask, seed 7.
  structtest::GenerateOptions suite;
  suite.seed = 7;
  suite.tasks = {"html", "math"};
  suite.limit = 2;
  auto samples = structtest::GenerateSuite(suite);
  if (!samples.ok()) return Fail(samples.status().message());

  // 2. Score answers. A sample's target holds a correct answer; a reasoning model's
  // <think> block is split off first, as `run` does.
  structtest::Checker checker;
  for (const structtest::Sample& sample : *samples) {
    const std::string answer = sample.target.value("answer", "");
    const structtest::Response response =
        structtest::SplitThinking("<think>Count the tags first.</think>" + answer);
    for (structtest::RuleSet rules : {structtest::RuleSet::kPaper, structtest::RuleSet::kStrict}) {
      auto verdict = checker.Check(sample, response.text, rules);
      if (!verdict.ok()) return Fail(sample.id + ": " + verdict.status().message());
      if (!verdict->pass) return Fail(sample.id + ": the target fails: " + verdict->reason);
      std::printf("%-28s %-6s pass  %zu rules\n", sample.id.c_str(),
                  std::string(structtest::RuleSetName(rules)).c_str(), verdict->checks.size());
    }
    auto wrong = checker.Check(sample, "I cannot help with that.", structtest::RuleSet::kStrict);
    if (!wrong.ok() || wrong->pass) return Fail(sample.id + ": a refusal passes");
  }

  // 3. A run: the oracle responder (answers in process; a model would be
  // "openai/NAME" with base_urls), stored in DIR/run, then read back.
  structtest::RunSuiteOptions run;
  run.model = "builtin/oracle";
  run.suite = suite;
  run.out = dir + "/run";
  auto ran = structtest::RunSuite(run);
  if (!ran.ok()) return Fail(ran.status().message());
  auto reader = structtest::RunReader::Open(ran->dir);
  if (!reader.ok()) return Fail(reader.status().message());
  auto results = (*reader)->Results(structtest::RuleSet::kPaper);
  if (!results.ok()) return Fail(results.status().message());
  if (results->samples == 0 || results->answered != results->samples) {
    return Fail("the run did not answer every sample");
  }
  auto table = (*reader)->Report(structtest::RuleSet::kPaper, "text");
  if (!table.ok()) return Fail(table.status().message());
  std::printf("%s", table->c_str());
  return 0;
}
