// The contract every generated subtask keeps (RE2-style: every engine on the same
// inputs): the same seed gives byte-identical samples; the oracle responder passes 100%
// under both rule sets; the null and echo responders pass (about) nothing under paper,
// and no cheating responder passes more than 1% under strict; a new seed gives a new
// test set. Runs over every subtask the registry can generate.
#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tasks/responders.h"
#include "core/jsonl.h"
#include "sandbox/python_pool.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest {
namespace {

constexpr double kSize = 1.0;  // paper size: the whole default suite takes ~2 s

std::unique_ptr<Suite> PlanOrDie(uint64_t seed) {
  GenerateOptions options;
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

// Every built-in responder under both rule sets. Paper: the oracle passes all, null
// nothing, echo at most a tenth. Strict: the oracle passes all; null, echo, skeleton
// and loophole at most 1% each. What the other cheaters score under paper is printed
// only (and each gets a verdict, not an error): on the code subtasks, where a verdict
// is a sandboxed python3 job, they are scored under paper on every tenth sample.
TEST(ContractTest, OraclePassesAllCheatersPassNearlyNothingUnderStrict) {
  const std::unique_ptr<SentenceSplitter> splitter =
      ::structtest::testing::BuiltinSentenceSplitter();
  // The samples of a subtask are scored on as many threads as there are cores, each with
  // a python3 worker of its own (the code subtasks' checks are most of the time).
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  PythonOptions python_options;
  python_options.max_workers = threads;
  PythonPool python(python_options);
  CheckEnv env;
  env.sentences = splitter.get();
  env.python = &python;
  auto suite = PlanOrDie(3);
  ASSERT_TRUE(suite);
  const std::vector<std::string_view> responders = BuiltinResponderNames();
  std::printf("contract %-24s %5s  %s\n", "subtask", "n", "passed, paper/strict:");
  for (const PlannedSubtask& p : suite->subtasks()) {
    const std::string name(p.ref.spec->name);
    const bool strict = p.ref.spec->check_strict != nullptr;
    EXPECT_TRUE(strict) << name << ": no strict checker";
    std::vector<Sample> samples;
    for (size_t i = 0; i < p.count; ++i) {
      auto sample = suite->Generate(p, i);
      ASSERT_TRUE(sample.ok()) << name << ": " << sample.status().message();
      ASSERT_FALSE(sample->messages.empty());
      samples.push_back(std::move(sample).value());
    }
    // Per thread: passes per responder and rule set, and the problems found.
    struct Counts {
      std::map<std::string_view, int> paper, strict;
      std::vector<std::string> problems;
    };
    const bool sampled = p.ref.family->needs_python;
    const auto asserted_under_paper = [](std::string_view r) {
      return r == "oracle" || r == "null" || r == "echo";
    };
    std::vector<Counts> counts(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        Counts& c = counts[static_cast<size_t>(t)];
        const size_t step = static_cast<size_t>(threads);
        for (size_t i = static_cast<size_t>(t); i < samples.size(); i += step) {
          for (std::string_view responder : responders) {
            auto response = BuiltinRespond(responder, samples[i]);
            if (!response.ok()) {
              c.problems.push_back(fmt::format("{}/{}: {}", name, responder,
                                               response.status().message()));
              continue;
            }
            for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
              if (rules == RuleSet::kStrict && !strict) continue;
              if (rules == RuleSet::kPaper && sampled && !asserted_under_paper(responder) &&
                  i % 10 != 0) {
                continue;
              }
              auto v = ScoreResponse(samples[i], *response, rules, env);
              if (!v.ok()) {
                c.problems.push_back(fmt::format("{}/{} ({}): {}", name, responder,
                                                 RuleSetName(rules), v.status().message()));
                continue;
              }
              (rules == RuleSet::kPaper ? c.paper : c.strict)[responder] += v->pass;
              if (responder == "oracle" && !v->pass) {
                c.problems.push_back(fmt::format("{} sample {} ({}): the oracle fails: {}\n"
                                                 "--- oracle answer ---\n{}",
                                                 name, i, RuleSetName(rules), v->reason,
                                                 *response));
              }
            }
          }
        }
      });
    }
    for (std::thread& t : pool) t.join();
    std::map<std::string_view, int> paper_passed, strict_passed;
    for (const Counts& c : counts) {
      for (const auto& [r, n] : c.paper) paper_passed[r] += n;
      for (const auto& [r, n] : c.strict) strict_passed[r] += n;
      for (const std::string& problem : c.problems) ADD_FAILURE() << problem;
    }
    std::string line = fmt::format("contract {:<24} {:5}", name, p.count);
    for (std::string_view r : responders) {
      const std::string paper = sampled && !asserted_under_paper(r)
                                    ? fmt::format("{} of {}", paper_passed[r], (p.count + 9) / 10)
                                    : std::to_string(paper_passed[r]);
      line += fmt::format("  {} {}/{}", r, paper,
                          strict ? std::to_string(strict_passed[r]) : "-");
    }
    std::printf("%s\n", line.c_str());
    EXPECT_EQ(paper_passed["oracle"], static_cast<int>(p.count)) << name;
    if (strict) {
      EXPECT_EQ(strict_passed["oracle"], static_cast<int>(p.count)) << name;
    }
    EXPECT_EQ(paper_passed["null"], 0) << name;
    EXPECT_LE(paper_passed["echo"], static_cast<int>(p.count) / 10) << name;
    const int strict_cap = static_cast<int>(p.count) / 100;  // at most 1%
    for (std::string_view r : responders) {
      if (r == "oracle") continue;
      EXPECT_LE(strict_passed[r], strict_cap) << name << ": " << r << " under strict";
    }
  }
}

// Checkers read a sample's params from the flat struct its family parsed once
// (tasks/params.h): a key a subtask reads that is missing or mistyped is an error naming
// that key, under either rule set, and a key it does not read changes nothing, whatever
// it holds. Every key any family parses is tried on every subtask that does not have it.
TEST(ContractTest, ParamsAreReadWhereTheSubtaskReadsThemAndNowhereElse) {
  const std::unique_ptr<SentenceSplitter> splitter =
      ::structtest::testing::BuiltinSentenceSplitter();
  CheckEnv env;
  env.sentences = splitter.get();
  auto suite = PlanOrDie(5);
  ASSERT_TRUE(suite);
  const std::vector<std::string> known = {
      "n_sentences", "n_points",   "n_subpoints", "n_sentences_per_point", "n_sentences_total",
      "symbol",      "ground_truth", "mode",      "no_of_tags",            "math_format_name"};
  int checked = 0;
  for (const PlannedSubtask& p : suite->subtasks()) {
    if (p.ref.family->needs_python) continue;  // its checkers read no params
    const std::string name(p.ref.spec->name);
    auto sample = suite->Generate(p, 0);
    ASSERT_TRUE(sample.ok()) << name;
    const std::string oracle = sample->target.at("answer").get<std::string>();
    for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
      const auto score = [&](const Sample& s) { return ScoreResponse(s, oracle, rules, env); };
      const std::string where = fmt::format("{} ({})", name, RuleSetName(rules));
      auto base = score(*sample);
      ASSERT_TRUE(base.ok()) << where << ": " << base.status().message();
      ASSERT_TRUE(base->pass) << where;
      for (const std::string& key : known) {
        if (sample->params.contains(key)) {
          for (const nlohmann::json& bad : {nlohmann::json(), nlohmann::json(""),
                                            nlohmann::json(-5), nlohmann::json::array()}) {
            Sample s = *sample;
            if (bad.is_null()) {
              s.params.erase(key);
            } else {
              s.params[key] = bad;
            }
            auto v = score(s);
            if (v.ok()) {
              // Only a key this rule set does not read, or a value it accepts.
              EXPECT_EQ(v->reason, base->reason) << where << ": params." << key << " = "
                                                 << bad.dump();
              continue;
            }
            ++checked;
            EXPECT_NE(v.status().message().find("params." + key), std::string::npos)
                << where << ": params." << key << " = " << bad.dump() << ": "
                << v.status().message();
          }
        } else {
          Sample s = *sample;
          s.params[key] = "not a value of " + key;
          auto v = score(s);
          ASSERT_TRUE(v.ok()) << where << ": an unread params." << key << ": "
                              << v.status().message();
          EXPECT_EQ(v->pass, base->pass) << where << ": params." << key;
          EXPECT_EQ(v->reason, base->reason) << where << ": params." << key;
        }
      }
      if (sample->params.empty()) continue;  // `questions` reads none
      Sample s = *sample;
      s.params = nlohmann::json::array();
      auto v = score(s);
      ASSERT_FALSE(v.ok()) << where << ": params that are not an object";
      EXPECT_EQ(v.status().message(), "params: expected an object") << where;
    }
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace structtest
