// The contract every generated subtask keeps (RE2-style: every engine on the same
// inputs): the same seed gives byte-identical samples; the oracle responder passes 100%
// under the paper rules; the null and echo responders pass (about) nothing; a new seed
// gives a new test set. Runs over every subtask the registry can generate.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/builtin.h"
#include "core/jsonl.h"
#include "python/python_pool.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest {
namespace {

constexpr double kSize = 1.0;  // paper size: the whole default suite takes ~2 s

std::unique_ptr<Suite> PlanOrDie(uint64_t seed) {
  SuiteOptions options;
  options.seed = seed;
  options.size = kSize;
  auto suite = Suite::Plan(options, nullptr);
  EXPECT_TRUE(suite.ok()) << suite.status().message();
  return suite.ok() ? std::move(suite).value() : nullptr;
}

TEST(ContractTest, SameSeedSameBytesNewSeedNewSet) {
  auto a = PlanOrDie(11), b = PlanOrDie(11), c = PlanOrDie(12);
  ASSERT_TRUE(a && b && c);
  ASSERT_EQ(a->subtasks().size(), b->subtasks().size());
  for (size_t k = 0; k < a->subtasks().size(); ++k) {
    const PlannedSubtask& p = a->subtasks()[k];
    int differs_from_new_seed = 0;
    for (size_t i = 0; i < p.count; ++i) {
      auto x = a->Generate(p, i), y = b->Generate(b->subtasks()[k], i),
           z = c->Generate(c->subtasks()[k], i);
      ASSERT_TRUE(x.ok() && y.ok() && z.ok()) << p.ref.spec->name;
      const std::string dx = DumpJsonLine(SampleToJson(*x));
      ASSERT_EQ(dx, DumpJsonLine(SampleToJson(*y))) << p.ref.spec->name << " sample " << i;
      differs_from_new_seed += dx != DumpJsonLine(SampleToJson(*z));
    }
    EXPECT_GT(differs_from_new_seed, static_cast<int>(p.count) / 2)
        << p.ref.spec->name << ": a new seed should give a new test set";
  }
}

TEST(ContractTest, OraclePassesAllNullAndEchoPassNearlyNothing) {
  std::string load_error;
  const std::unique_ptr<SentenceSplitter> splitter =
      ::structtest::testing::SharedSentenceSplitter("contract", &load_error);
  ASSERT_EQ(load_error, "");
  PythonPool python;
  CheckEnv env;
  env.sentences = splitter.get();
  env.python = &python;
  auto suite = PlanOrDie(3);
  ASSERT_TRUE(suite);
  for (const PlannedSubtask& p : suite->subtasks()) {
    if (p.ref.spec->needs_sentences && !splitter) continue;
    std::map<std::string_view, int> passed;
    for (size_t i = 0; i < p.count; ++i) {
      auto sample = suite->Generate(p, i);
      ASSERT_TRUE(sample.ok()) << p.ref.spec->name << ": " << sample.status().message();
      ASSERT_FALSE(sample->messages.empty());
      for (std::string_view responder : BuiltinResponderNames()) {
        auto response = BuiltinRespond(responder, *sample);
        ASSERT_TRUE(response.ok()) << response.status().message();
        auto v = ScoreResponse(*sample, *response, RuleSet::kPaper, env);
        ASSERT_TRUE(v.ok()) << p.ref.spec->name << "/" << responder << ": "
                            << v.status().message();
        passed[responder] += v->pass;
        if (responder == "oracle") {
          EXPECT_TRUE(v->pass) << p.ref.spec->name << " sample " << i << ": " << v->reason
                               << "\n--- oracle answer ---\n" << *response;
        }
      }
    }
    std::printf("contract %-24s n=%-4zu oracle %3d  null %3d  echo %3d\n",
                std::string(p.ref.spec->name).c_str(), p.count, passed["oracle"],
                passed["null"], passed["echo"]);
    EXPECT_EQ(passed["null"], 0) << p.ref.spec->name;
    EXPECT_LE(passed["echo"], static_cast<int>(p.count) / 10) << p.ref.spec->name;
  }
}

}  // namespace
}  // namespace structtest
