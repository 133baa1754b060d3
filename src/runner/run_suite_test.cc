// The public API of a run (structtest/run.h, generate.h, run_reader.h) without the CLI:
// a built-in responder's run into a directory, read back, resumed, grown and refused.
#include "structtest/run.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "structtest/generate.h"
#include "structtest/run_reader.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

RunSuiteOptions OracleRun(const std::string& dir) {
  RunSuiteOptions options;
  options.model = "builtin/oracle";
  options.suite.tasks = {"html", "math"};
  options.suite.limit = 2;
  options.out = dir + "/run";
  options.score_jobs = 1;
  return options;
}

TEST(RunSuiteTest, AnOracleRunReadsBackAtFullMarks) {
  testing::TempDir dir;
  std::string printed;
  auto ran = RunSuite(OracleRun(dir.path()), nullptr,
                      [&](std::string_view text) { printed += text; });
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_EQ(ran->dir, dir.path() + "/run");
  EXPECT_FALSE(ran->interrupted);
  EXPECT_FALSE(ran->failures);
  EXPECT_NE(printed.find("== builtin/oracle on suite default (seed 0)"), std::string::npos)
      << printed;

  auto reader = RunReader::Open(ran->dir);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  auto results = (*reader)->Results(RuleSet::kPaper);
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_GT(results->samples, 0);
  EXPECT_EQ(results->answered, results->samples);
  EXPECT_EQ(results->errored, 0);
  ASSERT_EQ(results->subtasks.size(), 4u);  // html and math, easy and hard
  for (const SubtaskResult& s : results->subtasks) {
    EXPECT_GT(s.scored, 0) << s.subtask;
    EXPECT_EQ(s.passed, s.scored) << s.subtask;
  }
  for (const char* domain : {"html", "math"}) {
    ASSERT_TRUE(results->easy.at(domain).has_value()) << domain;
    EXPECT_DOUBLE_EQ(*results->easy.at(domain), 100.0) << domain;
    ASSERT_TRUE(results->hard.at(domain).has_value()) << domain;
    EXPECT_DOUBLE_EQ(*results->hard.at(domain), 100.0) << domain;
  }
  EXPECT_FALSE(results->all.has_value());  // two of the paper's four domains only
  int64_t seen = 0;
  std::set<std::string> subtasks;
  ASSERT_TRUE((*reader)
                  ->ForEachResult(RuleSet::kPaper,
                                  [&](const SampleResult& r) {
                                    ++seen;
                                    subtasks.insert(r.subtask);
                                    EXPECT_TRUE(r.answered);
                                    EXPECT_TRUE(r.scored) << r.id << ": " << r.scoring_error;
                                    EXPECT_TRUE(r.passed) << r.id << ": " << r.reason;
                                    return Status::Ok();
                                  })
                  .ok());
  EXPECT_EQ(seen, results->requests);
  EXPECT_EQ(subtasks.size(), results->subtasks.size());
}

TEST(RunSuiteTest, TheSameRunResumesALargerLimitGrowsAnotherSettingIsRefused) {
  testing::TempDir dir;
  RunSuiteOptions options = OracleRun(dir.path());
  ASSERT_TRUE(RunSuite(options).ok());
  ASSERT_TRUE(RunSuite(options).ok());  // nothing left to ask
  auto before = RunReader::Open(options.out).value()->Results(RuleSet::kPaper);
  ASSERT_TRUE(before.ok());

  options.suite.limit = 3;
  ASSERT_TRUE(RunSuite(options).ok());
  auto after = RunReader::Open(options.out).value()->Results(RuleSet::kPaper);
  ASSERT_TRUE(after.ok());
  EXPECT_GT(after->samples, before->samples);

  options.suite.seed = 1;
  auto refused = RunSuite(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            options.out + ": this directory holds another run (seed was 0, now 1); pass "
                          "another --out or remove the directory");
}

TEST(RunSuiteTest, BadOptionsAreRefusedNamingThem) {
  testing::TempDir dir;
  RunSuiteOptions options = OracleRun(dir.path());
  options.model = "builtin/nobody";
  EXPECT_EQ(RunSuite(options).status().message(),
            "model builtin/nobody: unknown built-in responder");
  options = OracleRun(dir.path());
  options.concurrency = 0;
  EXPECT_EQ(RunSuite(options).status().message(), "concurrency 0: expected 1 to 4096");
}

TEST(GenerateSuiteTest, TheSameOptionsGiveTheSameSamplesAndShardsPartitionThem) {
  GenerateOptions options;
  options.tasks = {"html"};
  options.limit = 4;
  auto first = GenerateSuite(options);
  auto second = GenerateSuite(options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok());
  ASSERT_FALSE(first->empty());
  ASSERT_EQ(first->size(), second->size());
  for (size_t i = 0; i < first->size(); ++i) {
    EXPECT_EQ(SampleToJson((*first)[i]), SampleToJson((*second)[i]));
  }
  size_t sharded = 0;
  for (int index = 1; index <= 2; ++index) {
    options.shard_index = index;
    options.shard_count = 2;
    auto part = GenerateSuite(options);
    ASSERT_TRUE(part.ok());
    sharded += part->size();
  }
  EXPECT_EQ(sharded, first->size());
  options = {};
  options.tasks = {"no_such_task"};
  EXPECT_FALSE(GenerateSuite(options).ok());
}

}  // namespace
}  // namespace structtest
