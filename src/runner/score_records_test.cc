// structtest/score_records.h, `structtest score` as a call: a records file of generated
// samples with right, wrong and unscorable answers and a malformed line, scored in
// order on one thread and on three; and the options refused before anything is written.
#include "structtest/score_records.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "structtest/checker.h"
#include "structtest/generate.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

// Two samples of each of html_easy, math_easy and simulate_execute (a code subtask,
// scored through python3); the first of each answered with its target, the second with
// a wrong answer. Returns the samples and answers in file order.
struct RecordsToScore {
  std::vector<Sample> samples;
  std::vector<std::string> responses;
  std::string text;  // the JSONL file
};

RecordsToScore MakeRecordsToScore() {
  GenerateOptions options;
  options.tasks = {"html_easy", "math_easy", "simulate_execute"};
  options.limit = 2;
  auto samples = GenerateSuite(options);
  EXPECT_TRUE(samples.ok()) << samples.status().message();
  RecordsToScore r;
  for (size_t i = 0; samples.ok() && i < samples->size(); ++i) {
    const Sample& s = (*samples)[i];
    const std::string response =
        i % 2 == 0 ? s.target.at("answer").get<std::string>() : "I cannot do that.";
    nlohmann::json line = SampleToJson(s);
    line["response"] = response;
    r.text += line.dump() + "\n";
    r.samples.push_back(s);
    r.responses.push_back(response);
  }
  return r;
}

TEST(ScoreRecordsTest, VerdictsInInputOrderOnAnyThreadsWithProblemsAndFailuresReported) {
  testing::TempDir dir;
  RecordsToScore records = MakeRecordsToScore();
  ASSERT_EQ(records.samples.size(), 6u);
  // A record of no known subtask, and a line that is not JSON, after the samples.
  const std::string input = dir.path() + "/records.jsonl";
  testing::WriteFileOrDie(
      input, records.text +
                 R"({"id": "x1", "domain": "html", "subtask": "no_such", "params": {}, "context": {}, "response": "a"})"
                 "\n{not json\n");

  Checker checker;
  std::string first_output;
  for (int jobs : {1, 3}) {
    SCOPED_TRACE(jobs);
    ScoreRecordsOptions options;
    options.input = input;
    options.output = dir.path() + fmt::format("/verdicts-{}.jsonl", jobs);
    options.score_jobs = jobs;
    std::vector<std::string> problems, errors, failed;
    ScoreRecordsEvents events;
    events.problem = [&](std::string_view p) { problems.emplace_back(p); };
    events.error = [&](std::string_view e) { errors.emplace_back(e); };
    events.failed = [&](const Sample& s, const Verdict& v) {
      EXPECT_FALSE(v.pass) << s.id;
      failed.push_back(s.id);
    };
    auto result = ScoreRecords(options, events);
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(result->input, input);
    EXPECT_EQ(result->scored, 6);
    EXPECT_EQ(result->errors, 1);
    EXPECT_EQ(result->bad_lines, 1);
    EXPECT_TRUE(errors.empty());
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].rfind(input + ":7: record 'x1' (html/no_such): ", 0), 0u) << problems[0];
    EXPECT_EQ(problems[1].rfind(input + ":8: ", 0), 0u) << problems[1];
    EXPECT_EQ(failed, (std::vector<std::string>{records.samples[1].id, records.samples[3].id,
                                                records.samples[5].id}));
    for (const char* subtask : {"html_easy", "math_easy", "simulate_execute"}) {
      EXPECT_NE(result->table.find(subtask), std::string::npos) << result->table;
    }

    // One verdict line per record, in input order: the checker's verdict, and the error
    // of the record it could not score.
    const std::string output = testing::ReadFileOrDie(options.output);
    std::vector<nlohmann::json> lines;
    for (size_t at = 0, nl; (nl = output.find('\n', at)) != std::string::npos; at = nl + 1) {
      lines.push_back(nlohmann::json::parse(output.substr(at, nl - at)));
    }
    ASSERT_EQ(lines.size(), 7u) << output;
    for (size_t i = 0; i < records.samples.size(); ++i) {
      auto want = checker.Check(records.samples[i], records.responses[i], RuleSet::kPaper);
      ASSERT_TRUE(want.ok()) << want.status().message();
      EXPECT_EQ(lines[i].at("id"), records.samples[i].id);
      EXPECT_EQ(lines[i].at("pass"), want->pass) << i;
      EXPECT_EQ(lines[i].at("pass"), i % 2 == 0) << i;
      EXPECT_EQ(lines[i].at("reason"), want->reason) << i;
    }
    EXPECT_EQ(lines[6].at("id"), "x1");
    EXPECT_TRUE(lines[6].contains("error")) << lines[6].dump();
    if (first_output.empty()) {
      first_output = output;
    } else {
      EXPECT_EQ(output, first_output) << "the output depends on the number of threads";
    }
  }
}

TEST(ScoreRecordsTest, BadOptionsAreRefusedBeforeAnythingIsWritten) {
  testing::TempDir dir;
  const std::string input = dir.path() + "/records.jsonl";
  const RecordsToScore records = MakeRecordsToScore();
  testing::WriteFileOrDie(input, records.text);
  const std::string output = dir.path() + "/verdicts.jsonl";
  const auto refused = [&](ScoreRecordsOptions options, std::string_view says) {
    auto result = ScoreRecords(options);
    ASSERT_FALSE(result.ok()) << says;
    EXPECT_NE(result.status().message().find(says), std::string::npos)
        << result.status().message();
    EXPECT_FALSE(std::filesystem::exists(output)) << says;
    EXPECT_EQ(testing::ReadFileOrDie(input), records.text) << says;
  };
  ScoreRecordsOptions options;
  options.input = input;
  options.output = output;
  options.score_jobs = 2000;
  refused(options, "2000: expected 1 to 1024");
  options.score_jobs = -1;
  refused(options, "-1: expected 1 to 1024");
  options.score_jobs = 1;
  options.input = dir.path() + "/none.jsonl";
  refused(options, "none.jsonl");
  options.input = input;
  options.output = input;  // writing it would truncate what is to be read
  {
    auto result = ScoreRecords(options);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(testing::ReadFileOrDie(input), records.text);
  }
  // A sentence-model folder named that lacks the model: refused, not replaced by the
  // built-in model, before the output is made.
  options.output = output;
  options.nltk_data = dir.path() + "/no-model";
  refused(options, "no-model");
}

}  // namespace
}  // namespace structtest
