// The public API of runs (structtest/run.h, generate.h, run_reader.h, across_runs.h) without the
// CLI: a built-in responder's run into a directory, read back, resumed, grown, refused,
// rescored; runs compared, correlated and merged.
#include "structtest/run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "structtest/generate.h"
#include "structtest/run_reader.h"
#include "structtest/across_runs.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

RunSuiteOptions OracleRun(const std::string& dir) {
  RunSuiteOptions options;
  options.model = "builtin/oracle";
  options.suite.tasks = {"html", "math"};
  options.suite.limit = 2;
  options.out = dir + "/run";
  options.scoring.score_jobs = 1;
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

// What `structtest export` writes, through the public API: the run's identity, its rule
// set chosen or refused, and each request's record with the whole sample and verdict.
TEST(RunSuiteTest, AReaderGivesTheRunsIdentityRuleSetsAndExportRecords) {
  testing::TempDir dir;
  auto ran = RunSuite(OracleRun(dir.path()));
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  auto reader = RunReader::Open(ran->dir);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  auto info = (*reader)->Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->model, "builtin/oracle");
  EXPECT_EQ(info->repeats, 1);
  EXPECT_TRUE(info->request.is_null());  // a built-in responder sends no request
  ASSERT_FALSE(info->files.empty());
  EXPECT_EQ(info->files[0], ran->dir + "/run.db");

  auto scored = (*reader)->ScoredRuleSets();
  ASSERT_TRUE(scored.ok()) << scored.status().message();
  EXPECT_EQ(*scored, std::vector<std::string>{"paper"});
  EXPECT_EQ((*reader)->ChooseRuleSet("").value(), RuleSet::kPaper);
  EXPECT_EQ((*reader)->ChooseRuleSet("paper").value(), RuleSet::kPaper);
  auto strict = (*reader)->ChooseRuleSet("strict");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("no verdicts under rules strict (it was scored under "
                                           "paper); score its answers with 'structtest rescore"),
            std::string::npos)
      << strict.status().message();
  EXPECT_FALSE((*reader)->ChooseRuleSet("lenient").ok());
  EXPECT_EQ(ChooseStoredRuleSet({"strict"}, "", "r").value(), RuleSet::kStrict);
  EXPECT_EQ(ChooseStoredRuleSet({}, "strict", "r").value(), RuleSet::kStrict);  // none yet

  int64_t records = 0;
  ASSERT_TRUE((*reader)
                  ->ForEachResult(
                      RuleSet::kPaper,
                      [&](const SampleResult& r) {
                        ++records;
                        EXPECT_TRUE(r.asked);
                        EXPECT_TRUE(r.sample.has_value());
                        if (!r.sample) return Status::Ok();
                        EXPECT_FALSE(r.sample->messages.empty()) << r.id;
                        const nlohmann::json j = ExportRecord(r, RuleSet::kPaper, *info);
                        EXPECT_EQ(j["id"], r.id);
                        EXPECT_EQ(j["messages"].size(), r.sample->messages.size());
                        EXPECT_EQ(j["status"], "answered");
                        EXPECT_EQ(j["response"], r.response);
                        EXPECT_FALSE(j.contains("request"));
                        EXPECT_FALSE(j.contains("repeat"));
                        EXPECT_EQ(j["verdict"]["rules"], "paper");
                        EXPECT_EQ(j["verdict"]["pass"], true);
                        EXPECT_EQ(j["verdict"]["score"], 1.0);
                        if (r.domain == "math") {  // the paper's two halves
                          EXPECT_EQ(j["verdict"]["format"], true) << r.id;
                          EXPECT_EQ(j["verdict"]["accuracy"], true) << r.id;
                        }
                        return Status::Ok();
                      },
                      /*with_samples=*/true)
                  .ok());
  EXPECT_GT(records, 0);
  // A request not asked yet, and one that failed.
  SampleResult pending;
  pending.id = "p";
  pending.domain = "html";
  pending.subtask = "html_easy";
  EXPECT_EQ(ExportRecord(pending, RuleSet::kPaper, *info).dump(),
            R"({"domain":"html","id":"p","status":"pending","subtask":"html_easy"})");
  SampleResult failed = pending;
  failed.asked = true;
  failed.error = "HTTP 500";
  failed.attempts = 3;
  RunInfo asked = *info;
  asked.repeats = 2;
  asked.request = {{"model", "m"}, {"temperature", 0}};
  const nlohmann::json j = ExportRecord(failed, RuleSet::kStrict, asked);
  EXPECT_EQ(j["status"], "error");
  EXPECT_EQ(j["error"], "HTTP 500");
  EXPECT_EQ(j["attempts"], 3);
  EXPECT_EQ(j["repeat"], 0);
  EXPECT_EQ(j["request"]["model"], "m");
  EXPECT_FALSE(j.contains("response"));
  EXPECT_FALSE(j.contains("verdict"));

  // The table `structtest report` prints, in each format; a format it has not is refused.
  auto text = (*reader)->Report(RuleSet::kPaper, "text", /*explain=*/true);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_NE(text->find("html_easy"), std::string::npos) << *text;
  EXPECT_EQ(text->find("FAIL "), std::string::npos) << *text;  // the oracle fails nothing
  EXPECT_NE(text->find(ran->dir + ": answered " + std::to_string(records) + " of " +
                       std::to_string(records) + " samples, 0 errored, 0 not asked yet"),
            std::string::npos)
      << *text;
  auto json = (*reader)->Report(RuleSet::kPaper, "json");
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(nlohmann::json::parse(*json)["answered"], records);
  auto markdown = (*reader)->Report(RuleSet::kPaper, "markdown");
  ASSERT_TRUE(markdown.ok()) << markdown.status().message();
  EXPECT_NE(markdown->find("|"), std::string::npos);
  auto html = (*reader)->Report(RuleSet::kPaper, "html");
  ASSERT_FALSE(html.ok());
  EXPECT_NE(html.status().message().find("expected text, markdown or json"), std::string::npos);
}

// ExportJsonl writes ExportRecord's line for each request; WriteReport writes Report's
// text whole, or nothing where it cannot.
TEST(RunSuiteTest, ExportJsonlAndWriteReportWriteWhatTheReaderGives) {
  testing::TempDir dir;
  const RunSuiteOptions options = OracleRun(dir.path());
  ASSERT_TRUE(RunSuite(options).ok());
  auto reader = RunReader::Open(options.out);
  ASSERT_TRUE(reader.ok());
  const RunInfo info = (*reader)->Info().value();
  std::vector<nlohmann::json> want;
  ASSERT_TRUE((*reader)
                  ->ForEachResult(
                      RuleSet::kPaper,
                      [&](const SampleResult& r) {
                        want.push_back(ExportRecord(r, RuleSet::kPaper, info));
                        return Status::Ok();
                      },
                      true)
                  .ok());
  const std::string path = dir.path() + "/export.jsonl";
  auto counts = (*reader)->ExportJsonl(RuleSet::kPaper, path);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->written, static_cast<int64_t>(want.size()));
  EXPECT_EQ(counts->left_out, 0);
  const std::string text = testing::ReadFileOrDie(path);
  size_t at = 0;
  for (const nlohmann::json& record : want) {
    const size_t nl = text.find('\n', at);
    ASSERT_NE(nl, std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(text.substr(at, nl - at)), record);
    at = nl + 1;
  }
  EXPECT_EQ(at, text.size());

  const std::string report = dir.path() + "/report.md";
  ASSERT_TRUE((*reader)->WriteReport(RuleSet::kPaper, "markdown", false, report).ok());
  EXPECT_EQ(testing::ReadFileOrDie(report), (*reader)->Report(RuleSet::kPaper, "markdown").value());
  const std::string nowhere = dir.path() + "/no/such/dir/report.md";
  EXPECT_FALSE((*reader)->WriteReport(RuleSet::kPaper, "text", false, nowhere).ok());
  EXPECT_FALSE((*reader)->ExportJsonl(RuleSet::kPaper, nowhere).ok());
  EXPECT_FALSE((*reader)->WriteReport(RuleSet::kPaper, "yaml", false, report).ok());
  EXPECT_EQ(testing::ReadFileOrDie(report), (*reader)->Report(RuleSet::kPaper, "markdown").value())
      << "a refused report must leave the file as it was";

  // The run's own files are never an output: the run stays as it was.
  ASSERT_FALSE(info.files.empty());
  for (const std::string& own : info.files) {
    const std::string before = testing::ReadFileOrDie(own);
    const Status exported = (*reader)->ExportJsonl(RuleSet::kPaper, own).status();
    EXPECT_NE(exported.message().find("writing it would destroy it"), std::string::npos)
        << own << ": " << exported.message();
    const Status reported = (*reader)->WriteReport(RuleSet::kPaper, "json", false, own);
    EXPECT_NE(reported.message().find("writing it would destroy it"), std::string::npos)
        << own << ": " << reported.message();
    EXPECT_EQ(testing::ReadFileOrDie(own), before) << own;
  }
  EXPECT_TRUE((*reader)->CheckNotOwnFile("-").ok());
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
                          "another `out` or remove the directory");
}

TEST(RunSuiteTest, BadOptionsAreRefusedNamingThem) {
  testing::TempDir dir;
  RunSuiteOptions options = OracleRun(dir.path());
  options.model = "builtin/nobody";
  EXPECT_EQ(RunSuite(options).status().message(),
            "`model` builtin/nobody: unknown built-in responder (expected one of "
            "builtin/oracle, builtin/null, builtin/echo, builtin/skeleton, builtin/loophole, "
            "or builtin/noisy-P for a composed suite)");
  options = OracleRun(dir.path());
  options.transport.concurrency = 0;
  EXPECT_EQ(RunSuite(options).status().message(), "`transport.concurrency` 0: expected 1 to 4096");
  options = OracleRun(dir.path());
  options.scoring.score_jobs = -1;  // 0 is "one per core"; below it is no number of threads
  EXPECT_EQ(RunSuite(options).status().message(), "`score_jobs` -1: expected 1 to 1024");
  // The fields of each group, by their path in RunSuiteOptions.
  options = OracleRun(dir.path());
  options.model = "openai/gpt-4o-mini";
  options.request.top_p = 2;
  EXPECT_EQ(RunSuite(options).status().message(),
            "`request.top_p` 2: expected more than 0 and at most 1");
  options = OracleRun(dir.path());
  options.model = "openai/gpt-4o-mini";
  options.batch.offline = dir.path() + "/requests.jsonl";
  options.dry_run = true;
  EXPECT_EQ(RunSuite(options).status().message(), "`batch.offline` `dry_run`: pick one");
  options = OracleRun(dir.path());
  options.budget.max_tokens_total = 0;
  EXPECT_EQ(RunSuite(options).status().message(),
            "`budget.max_tokens_total` 0: expected a positive number of tokens");
}

// The options of `run` that only a model behind an API takes, those that go together,
// and a dry run, through the public call: refused runs leave no directory, and a dry
// run says what it would send in `out` and sends nothing.
TEST(RunSuiteTest, RunFlagsAreOptionsCheckedTogetherAndADryRunSendsNothing) {
  testing::TempDir dir;
  RunSuiteOptions options = OracleRun(dir.path());
  options.request.top_p = 0.5;
  EXPECT_EQ(RunSuite(options).status().message(),
            "`request.top_p`: the built-in responders send nothing and cost nothing; name a model "
            "with `model` PROVIDER/NAME");
  // every request control, the temperature and the length limit too: a built-in
  // responder's run records none, since it sends nothing
  options = OracleRun(dir.path());
  options.request.temperature = 0.7;
  EXPECT_EQ(RunSuite(options).status().message(),
            "`request.temperature`: the built-in responders send nothing and cost nothing; name a "
            "model with `model` PROVIDER/NAME");
  options = OracleRun(dir.path());
  options.request.max_tokens = 50;
  EXPECT_EQ(RunSuite(options).status().message(),
            "`request.max_tokens`: the built-in responders send nothing and cost nothing; name a "
            "model with `model` PROVIDER/NAME");
  EXPECT_FALSE(std::filesystem::exists(options.out));
  options = OracleRun(dir.path());
  const std::string endpoints = dir.path() + "/endpoints.txt";
  testing::WriteFileOrDie(endpoints, "http://localhost:1/v1\n");
  options.transport.endpoints_file = endpoints;
  EXPECT_EQ(RunSuite(options).status().message(),
            "`transport.endpoints_file`: the built-in responders answer in process; pass `model` "
            "PROVIDER/NAME to ask a server");
  options = OracleRun(dir.path());
  options.transport.use_cache = false;
  options.transport.cache = dir.path() + "/cache.db";
  EXPECT_NE(RunSuite(options).status().message().find("`transport.use_cache=false`: pick "
                                                      "one"), std::string::npos);
  options = OracleRun(dir.path());
  options.repeats = kMaxRepeats + 1;
  EXPECT_EQ(RunSuite(options).status().message(),
            fmt::format("`repeats` {}: expected a whole number from 1 to {}", kMaxRepeats + 1,
                        kMaxRepeats));

  RunSuiteOptions api = OracleRun(dir.path());
  api.model = "openai/gpt-4o-mini";
  api.transport.base_urls = {"http://127.0.0.1:1/v1"};  // nothing listens: a request would fail
  api.batch.size = 10;
  EXPECT_EQ(RunSuite(api).status().message(), "`batch.size`: it goes with `batch.api`");
  api.batch.api = true;
  api.transport.endpoints_file = endpoints;  // a second API root
  EXPECT_EQ(RunSuite(api).status().message(),
            "`batch.api`: a batch goes to one API; give one `transport.base_urls` (replicas are "
            "for online "
            "runs)");
  api.batch.api = false;
  api.transport.endpoints_file.clear();
  api.batch.size = 0;
  api.budget.max_cost = 1;
  api.budget.price_in = 1;
  EXPECT_EQ(RunSuite(api).status().message(),
            "`budget.price_in`: give both `budget.price_in` and `budget.price_out` (USD per "
            "million tokens)");
  api.budget.price_out = 2;
  api.request.extra_body = "{\"top_k\": 20}";
  api.dry_run = true;
  std::string out;
  RunSuiteOutput output;
  output.out = [&](std::string_view text) { out += text; };
  auto ran = RunSuite(api, nullptr, output);
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_NE(out.find("html/html_easy"), std::string::npos) << out;
  EXPECT_NE(out.find("USD 1 in / 2 out per million tokens"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(api.out)) << "a dry run stores nothing";
}

// RescoreRun stores verdicts under another rule set, which the reader then holds, and
// gives the table `rescore` prints; ImportResults refuses a file that is not results
// without storing anything; neither makes a run where there is none.
TEST(RunSuiteTest, RescoreAddsARuleSetAndImportRefusesWhatIsNoResult) {
  testing::TempDir dir;
  RunSuiteOptions run = OracleRun(dir.path());
  run.suite.tasks = {"html_easy", "math_easy", "simulate_execute"};
  ASSERT_TRUE(RunSuite(run).ok());
  EXPECT_EQ(RunReader::Open(run.out).value()->ScoredRuleSets().value(),
            (std::vector<std::string>{"paper"}));

  RescoreOptions options;
  options.scoring.rules = RuleSet::kStrict;
  options.scoring.score_jobs = 2;
  auto rescored = RescoreRun(run.out, options);
  ASSERT_TRUE(rescored.ok()) << rescored.status().message();
  EXPECT_EQ(rescored->errors, 0);
  EXPECT_NE(rescored->table.find("rules: strict"), std::string::npos) << rescored->table;
  auto reader = RunReader::Open(run.out);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->ScoredRuleSets().value(), (std::vector<std::string>{"paper", "strict"}));
  auto strict = (*reader)->Results(RuleSet::kStrict);
  ASSERT_TRUE(strict.ok());
  ASSERT_EQ(strict->subtasks.size(), 3u);
  for (const SubtaskResult& s : strict->subtasks) {
    EXPECT_EQ(s.scored, 2) << s.subtask;  // the oracle passes under strict too
    EXPECT_EQ(s.passed, 2) << s.subtask;
  }
  EXPECT_EQ(rescored->table, (*reader)->Report(RuleSet::kStrict, "text").value().substr(
                                 0, rescored->table.size()));

  const std::string bad = dir.path() + "/results.jsonl";
  testing::WriteFileOrDie(bad, "{\"custom_id\": \"nobody\"}\n");
  auto imported = ImportResults(run.out, bad, options);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message().rfind("import: " + bad + ":1: ", 0), 0u)
      << imported.status().message();
  EXPECT_EQ(RunReader::Open(run.out).value()->Results(RuleSet::kStrict).value().answered,
            strict->answered);

  for (auto status : {RescoreRun(dir.path() + "/none", options).status(),
                      ImportResults(dir.path() + "/none", bad, options).status()}) {
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find(dir.path() + "/none"), std::string::npos) << status.message();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/none"));
  // A sentence model that does not load refuses the import before it stores anything.
  options.scoring.nltk_data = dir.path() + "/no-model";
  auto no_model = ImportResults(run.out, bad, options);
  ASSERT_FALSE(no_model.ok());
  EXPECT_NE(no_model.status().message().find("no-model"), std::string::npos)
      << no_model.status().message();
  EXPECT_EQ(no_model.status().message().find("import: "), std::string::npos)
      << no_model.status().message();
  options.scoring.nltk_data.clear();
  options.scoring.score_jobs = -2;
  EXPECT_EQ(RescoreRun(run.out, options).status().message(), "`score_jobs` -2: expected 1 to 1024");
}

// structtest/across_runs.h: the oracle against null compared (every sample flips), both runs
// put beside the paper's Table 4, and a run made in two shards merged, one shard at a
// time; and what each refuses.
TEST(RunsTest, CompareCorrelateAndMergeRunsThroughThePublicApi) {
  testing::TempDir dir;
  RunSuiteOptions oracle = OracleRun(dir.path());
  oracle.suite.tasks = {"html_easy", "math_easy"};
  ASSERT_TRUE(RunSuite(oracle).ok());
  RunSuiteOptions null = oracle;
  null.model = "builtin/null";
  null.out = dir.path() + "/null";
  ASSERT_TRUE(RunSuite(null).ok());

  CompareRunsOptions compare;
  compare.format = "json";
  compare.flips = true;
  auto compared = CompareRunsReport({oracle.out, null.out}, compare);
  ASSERT_TRUE(compared.ok()) << compared.status().message();
  const nlohmann::json j = nlohmann::json::parse(*compared);
  ASSERT_EQ(j.at("comparisons").size(), 1u);
  const nlohmann::json& c = j.at("comparisons")[0];
  ASSERT_EQ(c.at("subtasks").size(), 2u);
  for (const nlohmann::json& s : c.at("subtasks")) {
    EXPECT_DOUBLE_EQ(s.at("difference").get<double>(), -100.0) << s.dump();
    EXPECT_EQ(s.at("pass_to_fail"), 2) << s.dump();
  }
  EXPECT_EQ(c.at("flips").size(), 4u);
  compare.format = "text";
  auto text = CompareRunsReport({oracle.out, null.out}, compare);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("html_easy"), std::string::npos) << *text;
  compare.format = "yaml";
  EXPECT_EQ(CompareRunsReport({oracle.out, null.out}, compare).status().message(),
            "format yaml: expected text, markdown or json");
  compare.format = "text";
  EXPECT_EQ(CompareRunsReport({oracle.out}, compare).status().message(),
            "compare: expected two run directories or more, got 1");

  CorrelateRunsOptions correlate;
  correlate.runs = {{"my-oracle", oracle.out}, {"my-null", null.out}};
  auto correlated = CorrelateRunsReport(correlate);
  ASSERT_TRUE(correlated.ok()) << correlated.status().message();
  correlate.format = "json";
  correlated = CorrelateRunsReport(correlate);
  ASSERT_TRUE(correlated.ok()) << correlated.status().message();
  EXPECT_NE(correlated->find("my-oracle"), std::string::npos);
  correlate.runs = {{"nobody", dir.path() + "/none"}};
  auto refused = CorrelateRunsReport(correlate);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(dir.path() + "/none"), std::string::npos)
      << refused.status().message();

  // Two shards of one run, merged as they finish.
  std::vector<std::string> shards;
  for (int i = 1; i <= 2; ++i) {
    RunSuiteOptions shard = oracle;
    shard.suite.shard_index = i;
    shard.suite.shard_count = 2;
    shard.out = dir.path() + fmt::format("/shard{}", i);
    ASSERT_TRUE(RunSuite(shard).ok());
    shards.push_back(shard.out);
  }
  const std::string merged = dir.path() + "/merged";
  auto first = MergeRunDirs(merged, {shards[0]});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->shard_count, 2);
  EXPECT_EQ(first->shards, (std::vector<std::string>{"1/2"}));
  EXPECT_EQ(first->missing_shards, (std::vector<std::string>{"2/2"}));
  ASSERT_EQ(first->runs.size(), 1u);
  EXPECT_EQ(first->runs[0].shard, "1/2");
  EXPECT_EQ(first->runs[0].answers, first->answered);
  auto second = MergeRunDirs(merged, {shards[1]});
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->missing_shards.empty());
  const auto whole = RunReader::Open(oracle.out).value()->Results(RuleSet::kPaper).value();
  EXPECT_EQ(second->samples, whole.samples);
  EXPECT_EQ(second->answered, whole.samples);
  EXPECT_EQ(second->requests, whole.requests);
  EXPECT_EQ(second->errored, 0);
  auto mixed = MergeRunDirs(merged, {null.out});  // another model's run
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message().rfind("merge: ", 0), 0u) << mixed.status().message();
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

// A caller of the library reads the name of the field it set, in backticks, not a flag
// of the CLI (which shows its flags instead: cli_test.cc, run_cli_test.cc).
TEST(GenerateSuiteTest, ErrorsNameTheFieldNotAFlag) {
  GenerateOptions options;
  options.tasks = {"htm"};
  EXPECT_EQ(GenerateSuite(options).status().message(),
            "`tasks`: 'htm' is neither a subtask nor a domain (did you mean 'html'?); run "
            "'structtest tasks' for the list");
  options = {};
  options.size = 0;
  EXPECT_EQ(GenerateSuite(options).status().message(), "`size`: 0 is not a scale in (0, 1000]");
  options = {};
  options.suite = "paper";
  options.tasks = {"math"};
  EXPECT_EQ(GenerateSuite(options).status().message(),
            "the paper suite needs the user's data:\n  `gsm8k` FILE (the GSM8K test split, 1319 "
            "problems)");
  EXPECT_EQ(ParseSampleLimit("0").status().message(),
            "`limit`: '0' is not a positive whole number (of samples per subtask)");
}

// WriteJsonl writes the samples Generate gives, a line each, in order; SetShard reads
// "I/N" as --shard does and refuses anything else, naming it.
TEST(GenerateSuiteTest, WriteJsonlWritesGeneratesSamplesAndSetShardReadsIOfN) {
  testing::TempDir dir;
  GenerateOptions options;
  options.tasks = {"html_easy", "math_hard"};
  options.limit = 3;
  ASSERT_TRUE(SetShard("2/3", &options).ok());
  EXPECT_EQ(options.shard_index, 2);
  EXPECT_EQ(options.shard_count, 3);
  options.shard_index = options.shard_count = 1;
  auto samples = GenerateSuite(options);
  ASSERT_TRUE(samples.ok()) << samples.status().message();
  auto generator = SuiteGenerator::Open(options, nullptr);
  ASSERT_TRUE(generator.ok()) << generator.status().message();
  const std::string path = dir.path() + "/samples.jsonl";
  auto written = (*generator)->WriteJsonl(path);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ASSERT_EQ(written->size(), 2u);
  EXPECT_EQ((*written)[0].samples + (*written)[1].samples, samples->size());
  const std::string text = testing::ReadFileOrDie(path);
  size_t at = 0;
  for (const Sample& sample : *samples) {
    const size_t nl = text.find('\n', at);
    ASSERT_NE(nl, std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(text.substr(at, nl - at)), SampleToJson(sample));
    at = nl + 1;
  }
  EXPECT_EQ(at, text.size());
  auto unwritable = (*generator)->WriteJsonl(dir.path() + "/no/such/dir/samples.jsonl");
  ASSERT_FALSE(unwritable.ok());
  EXPECT_NE(unwritable.status().message().find(dir.path() + "/no/such/dir/samples.jsonl"),
            std::string::npos)
      << unwritable.status().message();
  for (const char* bad : {"3/2", "0/2", "x", "1/", "2/3/4"}) {
    const Status s = SetShard(bad, &options);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace structtest
