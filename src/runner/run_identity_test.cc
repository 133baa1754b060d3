#include "runner/run_identity.h"

#include <gtest/gtest.h>

#include <string>

#include "runner/run_job.h"
#include "store/run_store.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

ResolvedRun SuiteRun() {
  ResolvedRun run;
  run.options.model = "openai/gpt-4o-mini";
  run.options.suite.seed = 7;
  run.options.suite.limit = 5;
  run.request.model = "gpt-4o-mini";
  run.request.temperature = 0.0;
  return run;
}

constexpr const char* kEndpoint = "openai https://api.openai.com/v1";

RunManifest IdentityOf(const ResolvedRun& opt, const std::string& endpoint = kEndpoint) {
  auto id = RunIdentity(opt, endpoint);
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : RunManifest();
}

RunManifest Stored(nlohmann::json j) {
  auto m = RunManifest::FromJson(j, "run.db");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : RunManifest();
}

TEST(RunIdentityTest, TheSameOptionsAreTheSameRun) {
  const RunManifest stored = StampedManifest(RuleSet::kPaper, IdentityOf(SuiteRun()));
  EXPECT_TRUE(DifferingKeys(stored, IdentityOf(SuiteRun())).empty());
  EXPECT_TRUE(CheckSameRun("runs/x", stored, IdentityOf(SuiteRun())).ok());
  EXPECT_FALSE(stored.structtest_version.empty());
  EXPECT_FALSE(stored.rules_versions.empty());
}

TEST(RunIdentityTest, AChangedFlagIsRefusedNamingIt) {
  const RunManifest stored = StampedManifest(RuleSet::kPaper, IdentityOf(SuiteRun()));
  ResolvedRun changed = SuiteRun();
  changed.request.max_tokens = 100;
  const Status s = CheckSameRun("runs/x", stored, IdentityOf(changed));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "runs/x: this directory holds another run (max_tokens was 0, now 100); pass another "
            "`out` or remove the directory");
}

TEST(RunIdentityTest, AChangedRepeatsIsRefusedWithTheFlagsValues) {
  const RunManifest stored = StampedManifest(RuleSet::kPaper, IdentityOf(SuiteRun()));
  ResolvedRun changed = SuiteRun();
  changed.options.repeats = 3;
  const Status s = CheckSameRun("runs/x", stored, IdentityOf(changed));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "runs/x: this directory holds another run (`repeats` was 1, now 3); pass another "
            "`out` or remove the directory");
}

TEST(RunIdentityTest, AKeyOnlyTheStoredRunHasIsNamed) {
  ResolvedRun sharded = SuiteRun();
  sharded.shard = Shard{1, 4};
  const RunManifest stored = StampedManifest(RuleSet::kPaper, IdentityOf(sharded));
  EXPECT_EQ(DifferingKeys(stored, IdentityOf(SuiteRun())), std::vector<std::string>{"shard"});
}

TEST(RunIdentityTest, AnotherHostOfTheSameProviderOrOtherReplicasAreTheSameRun) {
  ResolvedRun replicas = SuiteRun();
  const RunManifest stored = IdentityOf(SuiteRun());
  replicas.options.transport.base_urls = {"http://a:8000/v1", "http://b:8000/v1"};
  EXPECT_TRUE(DifferingKeys(stored, IdentityOf(replicas, "openai http://a:8000/v1")).empty());
  EXPECT_EQ(DifferingKeys(stored, IdentityOf(SuiteRun(), "anthropic https://api.anthropic.com")),
            std::vector<std::string>{"endpoint"});
}

TEST(RunIdentityTest, ALargerLimitOrNoneGrowsTheRun) {
  const RunManifest stored = IdentityOf(SuiteRun());
  ResolvedRun grown = SuiteRun();
  grown.options.suite.limit = 10;
  EXPECT_TRUE(LimitGrows(stored, IdentityOf(grown)));
  grown.options.suite.limit = 0;  // none
  EXPECT_TRUE(LimitGrows(stored, IdentityOf(grown)));
  grown.options.suite.limit = 3;
  EXPECT_FALSE(LimitGrows(stored, IdentityOf(grown)));
  grown.options.suite.limit = 10;
  grown.options.suite.seed = 8;  // another suite: not its first samples
  EXPECT_FALSE(LimitGrows(stored, IdentityOf(grown)));
  ResolvedRun unlimited = SuiteRun();
  unlimited.options.suite.limit = 0;
  EXPECT_FALSE(LimitGrows(IdentityOf(unlimited), IdentityOf(SuiteRun())));
}

TEST(RunIdentityTest, AStoredRunWithoutTemperatureKeepsNone) {
  ResolvedRun opt = SuiteRun();
  opt.temperature_defaulted = true;
  KeepStoredTemperature(Stored({{"temperature", nullptr}}), &opt);
  EXPECT_FALSE(opt.request.temperature.has_value());
  opt.request.temperature = 0.0;
  KeepStoredTemperature(Stored({{"temperature", 0.0}}), &opt);
  EXPECT_EQ(opt.request.temperature, 0.0);
  opt.temperature_defaulted = false;  // given on the command line: it counts
  KeepStoredTemperature(Stored({{"temperature", nullptr}}), &opt);
  EXPECT_EQ(opt.request.temperature, 0.0);
}

// A run directory stored before --temperature's default and before --limit holds
// neither key: the same command without them resumes it, and keeps no temperature.
TEST(RunIdentityTest, ARunStoredWithoutTemperatureOrLimitKeysResumes) {
  ResolvedRun run = SuiteRun();
  run.options.suite.limit = 0;
  run.request.temperature.reset();
  nlohmann::json old = StampedManifest(RuleSet::kPaper, IdentityOf(run)).ToJson();
  old.erase("temperature");
  old.erase("limit");
  const RunManifest stored = Stored(old);
  ResolvedRun resumed = SuiteRun();
  resumed.options.suite.limit = 0;
  resumed.temperature_defaulted = true;
  KeepStoredTemperature(stored, &resumed);
  EXPECT_FALSE(resumed.request.temperature.has_value());
  EXPECT_TRUE(CheckSameRun("runs/x", stored, IdentityOf(resumed)).ok());
  resumed.options.suite.limit = 5;  // a limit where it had none is another run
  EXPECT_EQ(CheckSameRun("runs/x", stored, IdentityOf(resumed)).message(),
            "runs/x: this directory holds another run (limit was null, now 5); pass another "
            "`out` or remove the directory");
}

TEST(RunIdentityTest, AChangedDataFileIsAnotherRun) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/samples.jsonl";
  testing::WriteFileOrDie(path, "one\n");
  ResolvedRun opt = SuiteRun();
  opt.options.samples = path;
  const RunManifest stored = IdentityOf(opt);
  testing::WriteFileOrDie(path, "two\n");
  EXPECT_EQ(DifferingKeys(stored, IdentityOf(opt)), std::vector<std::string>{"samples"});
}

TEST(RunIdentityTest, PublicEndpointAndDefaultRunDirShowNoSecrets) {
  EXPECT_EQ(PublicEndpoint("http://user:pass@host:8000/v1?key=x"), "http://host:8000/v1");
  EXPECT_EQ(PublicEndpoint("https://host/v1#frag"), "https://host/v1");
  RunSuiteOptions opt = SuiteRun().options;
  opt.suite.tasks = {"math"};
  opt.suite.shard_index = 2;
  opt.suite.shard_count = 4;
  EXPECT_EQ(DefaultRunDir(opt), "runs/openai-gpt-4o-mini_default_seed7_math_shard2of4");
}

TEST(RunJobTest, BadBaseUrlsAndEndpointsFiles) {
  EXPECT_EQ(BadBaseUrl("http://localhost:8000/v1"), "");
  EXPECT_EQ(BadBaseUrl("localhost:8000"), "expected an http:// or https:// URL");
  EXPECT_EQ(BadBaseUrl("http:///v1"), "no host");
  EXPECT_EQ(BadBaseUrl("http://h/v1/chat/completions"),
            "give the API root, not the call: http://h/v1 (structtest adds /chat/completions "
            "itself)");
  testing::TempDir dir;
  const std::string path = dir.path() + "/endpoints";
  testing::WriteFileOrDie(path, "# replicas\n http://a/v1 \n\nhttp://b/v1  # second\n");
  auto urls = ReadEndpointsFile(path);
  ASSERT_TRUE(urls.ok()) << urls.status().message();
  EXPECT_EQ(*urls, (std::vector<std::string>{"http://a/v1", "http://b/v1"}));
  testing::WriteFileOrDie(path, "http://a/v1\nftp://b\n");
  EXPECT_EQ(ReadEndpointsFile(path).status().message(),
            "`transport.endpoints_file` " + path +
                ":2: 'ftp://b': expected an http:// or https:// URL");
  testing::WriteFileOrDie(path, "# none\n");
  EXPECT_EQ(ReadEndpointsFile(path).status().message(),
            "`transport.endpoints_file` " + path + ": no URL in the file");
}

TEST(RunJobTest, ResolvePriceTakesBothFlagsOrATableOrTheBuiltInOne) {
  EXPECT_EQ(ResolvePrice("openai/x", {1.0, std::nullopt, ""}).status().message(),
            "`budget.price_in`: give both `budget.price_in` and `budget.price_out` (USD per "
            "million tokens)");
  auto given = ResolvePrice("openai/x", {1.0, 2.0, ""});
  ASSERT_TRUE(given.ok());
  ASSERT_TRUE(given->has_value());
  EXPECT_EQ((*given)->output_per_mtok, 2.0);
  EXPECT_EQ((*given)->source, "--price-in/--price-out");  // shown in reports as it was
  auto none = ResolvePrice("openai/no-such-model-anywhere", {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace structtest
