#include "store/run_manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace structtest {
namespace {

using nlohmann::json;

// A manifest as `run` stores it today for a suite run with every request control.
const char* kSuiteRun = R"({"endpoint":"openai http://a/v1","endpoints":["http://a/v1","http://b/v1"],)"
                        R"("extra_body":{"k":1},"headers":["x-a","x-b"],"limit":5,"max_tokens":0,)"
                        R"("mbpp":"/d/mbpp.jsonl fnv1a:00000000000000ff","model":"openai/m",)"
                        R"("reasoning_effort":"low","repeats":3,)"
                        R"("rules_versions":{"math":"math-1"},"sampling_seed":3,"seed":7,)"
                        R"("shard":"1/4","size":1.0,"stop":["x"],"structtest_version":"1.0",)"
                        R"("suite":"default","system":"S","tasks":["math"],"temperature":0.0,)"
                        R"("thinking_budget":2000,"top_p":0.5})";

RunManifest Decode(const json& j) {
  auto m = RunManifest::FromJson(j, "runs/x/run.db");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : RunManifest();
}

TEST(RunManifestTest, ARunsManifestReadsAndWritesBackByteForByte) {
  const RunManifest m = Decode(json::parse(kSuiteRun));
  EXPECT_EQ(m.model, "openai/m");
  EXPECT_EQ(m.limit, 5u);
  EXPECT_EQ(m.repeats, 3);
  EXPECT_EQ(m.temperature, 0.0);
  EXPECT_EQ(m.headers, (std::vector<std::string>{"x-a", "x-b"}));
  EXPECT_EQ(m.rules_versions.at("math"), "math-1");
  EXPECT_EQ(m.ToJson().dump(), kSuiteRun);

  const std::string samples_run =
      R"({"endpoint":"builtin","limit":null,"max_tokens":0,"model":"builtin/oracle",)"
      R"("samples":"/d/s.jsonl fnv1a:0000000000000001","temperature":null})";
  EXPECT_EQ(Decode(json::parse(samples_run)).ToJson().dump(), samples_run);
}

// Runs stored before structtest had --temperature's default, --limit, --repeats or
// --tasks hold no such keys: they read as none (once, every subtask), and are written
// back with the keys a run of today would have.
TEST(RunManifestTest, OlderShapesAreUpgraded) {
  const RunManifest m = Decode(
      {{"model", "openai/m"}, {"endpoint", "openai http://a/v1"}, {"max_tokens", 0},
       {"suite", "default"}, {"seed", 7}, {"size", 1.0}});
  EXPECT_FALSE(m.temperature.has_value());
  EXPECT_FALSE(m.limit.has_value());
  EXPECT_EQ(m.repeats, 1);
  const json written = m.ToJson();
  EXPECT_TRUE(written.contains("temperature") && written["temperature"].is_null());
  EXPECT_TRUE(written.contains("limit") && written["limit"].is_null());
  EXPECT_FALSE(written.contains("repeats"));
  EXPECT_EQ(written["tasks"], json::array());  // every subtask
  // A merged run's manifest (store/merge.h) keeps its shards.
  const json merged = json::parse(
      R"({"endpoint":"openai","limit":null,"max_tokens":0,"merge":{"shard_count":3,)"
      R"("shards":["1/3","3/3"],"unsharded":false},"model":"openai/m","seed":7,"size":1.0,)"
      R"("suite":"default","tasks":[],"temperature":null})");
  const RunManifest mm = Decode(merged);
  ASSERT_TRUE(mm.merge.has_value());
  EXPECT_EQ(mm.merge->shard_count, 3);
  EXPECT_EQ(mm.ToJson(), merged);
}

// A composed run off the default rules per sample keeps its K; the default stores no
// key, so composed runs stored before `run --rules-per-sample` keep their identity.
TEST(RunManifestTest, TheComposedDialIsStoredOffItsDefault) {
  const json k6 = json::parse(
      R"({"endpoint":"builtin","limit":null,"max_tokens":0,"model":"builtin/oracle",)"
      R"("rules_per_sample":6,"seed":0,"size":1.0,"suite":"composed","tasks":[],"temperature":null})");
  const RunManifest m = Decode(k6);
  EXPECT_EQ(m.rules_per_sample, 6);
  EXPECT_EQ(m.ToJson(), k6);
  RunManifest d = m;
  d.rules_per_sample = 0;
  EXPECT_FALSE(d.ToJson().contains("rules_per_sample"));
  const auto diff = DiffManifests(m, d);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].field, "rules_per_sample");
  EXPECT_FALSE(diff[0].now.has_value());
  const auto bad = RunManifest::FromJson(json::parse(R"({"suite":"composed","rules_per_sample":"six"})"),
                                         "runs/x/run.db");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("rules_per_sample"), std::string::npos) << bad.status().message();
}

// "repeats" appears from 2 on (a run asking each sample once has none) up to the most
// a run may ask.
TEST(RunManifestTest, RepeatsFromTwoToTheMostAreStored) {
  RunManifest m;
  m.repeats = 2;
  EXPECT_EQ(m.ToJson()["repeats"], 2);
  EXPECT_EQ(Decode(m.ToJson()).repeats, 2);
  m.repeats = 1;
  EXPECT_FALSE(m.ToJson().contains("repeats"));
  EXPECT_EQ(Decode({{"repeats", 1000}}).repeats, 1000);
  EXPECT_FALSE(RunManifest::FromJson({{"repeats", 1001}}, "run.db").ok());
}

TEST(RunManifestTest, KeysOfANewerBuildAreKeptAndCompared) {
  json j = json::parse(kSuiteRun);
  j["future_setting"] = {{"a", 1}};
  const RunManifest m = Decode(j);
  EXPECT_EQ(m.other, json({{"future_setting", {{"a", 1}}}}));
  EXPECT_EQ(m.ToJson(), j);
  const std::vector<ManifestDifference> diff = DiffManifests(m, Decode(json::parse(kSuiteRun)));
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].field, "future_setting");
  EXPECT_FALSE(diff[0].now.has_value());
}

TEST(RunManifestTest, AValueOfTheWrongTypeIsRefusedNamingIt) {
  for (const auto& [j, message] : std::vector<std::pair<json, std::string>>{
           {{{"limit", "5"}}, "runs/x/run.db: the manifest's limit \"5\" is not a whole number of samples"},
           {{{"limit", -1}}, "runs/x/run.db: the manifest's limit -1 is not a whole number of samples"},
           {{{"model", 3}}, "runs/x/run.db: the manifest's model 3 is not text"},
           {{{"temperature", "hot"}}, "runs/x/run.db: the manifest's temperature \"hot\" is not a number"},
           {{{"stop", "x"}}, "runs/x/run.db: the manifest's stop \"x\" is not a list of texts"},
           {{{"merge", 1}}, "runs/x/run.db: the manifest's merge 1 is not an object"},
           {{{"repeats", 0}}, "runs/x/run.db: the manifest's repeats 0 is not a whole number from 1 to 1000"},
           {json::array(), "runs/x/run.db: the manifest is not a JSON object"}}) {
    const auto m = RunManifest::FromJson(j, "runs/x/run.db");
    ASSERT_FALSE(m.ok()) << j;
    EXPECT_EQ(m.status().message(), message);
  }
}

TEST(RunManifestTest, TheDiffNamesEachFieldWithBothValues) {
  RunManifest was = Decode(json::parse(kSuiteRun));
  RunManifest now = was;
  EXPECT_TRUE(DiffManifests(was, now).empty());
  now.endpoint = "openai http://c/v1";  // another host of the same provider
  now.endpoints.clear();                // and other replicas
  EXPECT_TRUE(DiffManifests(was, now).empty());
  now.max_tokens = 100;
  now.seed = 8;
  now.shard.clear();
  const std::vector<ManifestDifference> diff = DiffManifests(was, now);
  ASSERT_EQ(diff.size(), 3u);
  EXPECT_EQ(diff[0].field, "max_tokens");
  EXPECT_EQ(diff[0].was, 0);
  EXPECT_EQ(diff[0].now, json(100));
  EXPECT_EQ(diff[1].field, "seed");
  EXPECT_EQ(diff[2].field, "shard");  // only the first has it: last
  EXPECT_EQ(diff[2].was, "1/4");
  EXPECT_FALSE(diff[2].now.has_value());
  now.endpoint = "anthropic http://a/v1";
  EXPECT_EQ(DiffManifests(was, now)[0].field, "endpoint");
}

TEST(RunManifestTest, RequestSettingsAndTheBuiltinResponder) {
  const RunManifest m = Decode(json::parse(kSuiteRun));
  EXPECT_EQ(m.RequestSettings(),
            json::parse(R"({"extra_body":{"k":1},"headers":["x-a","x-b"],"max_tokens":0,)"
                        R"("model":"openai/m","reasoning_effort":"low","sampling_seed":3,)"
                        R"("stop":["x"],"system":"S","temperature":0.0,"thinking_budget":2000,)"
                        R"("top_p":0.5})"));
  EXPECT_EQ(m.BuiltinResponder(), "");
  RunManifest builtin;
  builtin.model = "builtin/loophole";
  EXPECT_EQ(builtin.BuiltinResponder(), "loophole");
  EXPECT_TRUE(IsBuiltinModel("builtin/oracle"));
  EXPECT_FALSE(IsBuiltinModel("openai/builtin/x"));
  EXPECT_EQ(ProviderOfEndpoint("openai http://a/v1"), "openai");
}

}  // namespace
}  // namespace structtest
