// The red team (testing/red_team.h) over a generated suite: every family's cheats pass
// strict at most 1% of the time, and its harmless twins always. The table it prints
// (per family: samples it applies to, cheats passed under paper and strict, twins
// passed under strict and paper, and the rules that caught the cheats) is the one in
// docs/strict.md.
//
// For working on a family, environment variables change what it does:
//   STRUCTTEST_RED_TEAM_FAMILY=text  only the families whose name contains it
//   STRUCTTEST_RED_TEAM_SHOW=N       print up to N wrong verdicts per family (a cheat that
//                                    passes strict, a twin that fails it) in full
//   STRUCTTEST_RED_TEAM_MEASURE=1    print the table without asserting (to measure an
//                                    older rule set)
//   STRUCTTEST_RED_TEAM_SEED=S, STRUCTTEST_RED_TEAM_SIZE=X   another suite
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sandbox/python_pool.h"
#include "structtest/generate.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"
#include "testing/red_team.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest {
namespace {

std::string EnvOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

TEST(RedTeamTest, StrictFailsEveryCheatFamilyAndPassesItsTwins) {
  const std::unique_ptr<SentenceSplitter> splitter =
      ::structtest::testing::BuiltinSentenceSplitter();
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  PythonOptions python_options;
  python_options.max_workers = threads;
  PythonPool python(python_options);
  CheckEnv env;
  env.sentences = splitter.get();
  env.python = &python;

  GenerateOptions options;
  options.seed = std::stoull(EnvOr("STRUCTTEST_RED_TEAM_SEED", "17"));
  options.size = std::stod(EnvOr("STRUCTTEST_RED_TEAM_SIZE", "0.05"));
  auto suite = Suite::Plan(options, splitter.get());
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  std::vector<Sample> samples;
  for (const PlannedSubtask& p : (*suite)->subtasks()) {
    for (size_t i = 0; i < p.count; ++i) {
      auto sample = (*suite)->Generate(p, i);
      ASSERT_TRUE(sample.ok()) << sample.status().message();
      samples.push_back(std::move(sample).value());
    }
  }
  const std::string only = EnvOr("STRUCTTEST_RED_TEAM_FAMILY", "");
  const int show = std::stoi(EnvOr("STRUCTTEST_RED_TEAM_SHOW", "0"));
  const bool measure = EnvOr("STRUCTTEST_RED_TEAM_MEASURE", "") == "1";

  std::printf("red-team seed %llu size %g\n",
              static_cast<unsigned long long>(options.seed), options.size);
  std::printf("red-team %-52s %5s %12s %12s %12s %12s\n", "family", "n", "cheat paper",
              "cheat strict", "twin strict", "twin paper");
  std::map<std::string_view, int> families;
  for (const ::structtest::testing::CheatFamily& family :
       ::structtest::testing::RedTeamFamilies()) {
    if (family.name.find(only) == std::string_view::npos) continue;
    ++families[family.domain];
    struct Counts {
      int n = 0, cheat_paper = 0, cheat_strict = 0, twin_strict = 0, twin_paper = 0;
      std::vector<std::string> shown, problems;
      std::map<std::string, int> caught_by;  // the rule each failing cheat fails
    };
    std::vector<Counts> counts(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        Counts& c = counts[static_cast<size_t>(t)];
        for (size_t i = static_cast<size_t>(t); i < samples.size();
             i += static_cast<size_t>(threads)) {
          const Sample& sample = samples[i];
          if (sample.domain != family.domain) continue;
          std::optional<::structtest::testing::RedTeamPair> pair = family.make(sample, i);
          if (!pair) continue;
          ++c.n;
          const auto score = [&](const std::string& answer, RuleSet rules) {
            auto v = ScoreResponse(sample, answer, rules, env);
            if (!v.ok()) {
              c.problems.push_back(fmt::format("{} {}: {}", family.name, sample.id,
                                               v.status().message()));
              return Verdict{};
            }
            return *std::move(v);
          };
          const Verdict cheat = score(pair->cheat, RuleSet::kStrict);
          const Verdict twin = score(pair->twin, RuleSet::kStrict);
          c.cheat_strict += cheat.pass;
          if (!cheat.pass) ++c.caught_by[cheat.reason.substr(0, cheat.reason.find(':'))];
          c.twin_strict += twin.pass;
          c.cheat_paper += score(pair->cheat, RuleSet::kPaper).pass;
          c.twin_paper += score(pair->twin, RuleSet::kPaper).pass;
          if (static_cast<int>(c.shown.size()) < show && (cheat.pass || !twin.pass)) {
            c.shown.push_back(fmt::format(
                "--- {} {} ({}): {}\n{}\n", family.name, sample.id,
                cheat.pass ? "cheat passes strict" : "twin fails strict",
                cheat.pass ? cheat.reason : twin.reason, cheat.pass ? pair->cheat : pair->twin));
          }
        }
      });
    }
    for (std::thread& t : pool) t.join();
    Counts all;
    for (const Counts& c : counts) {
      all.n += c.n;
      all.cheat_paper += c.cheat_paper;
      all.cheat_strict += c.cheat_strict;
      all.twin_strict += c.twin_strict;
      all.twin_paper += c.twin_paper;
      for (const auto& [rule, k] : c.caught_by) all.caught_by[rule] += k;
      for (const std::string& s : c.shown) std::printf("%s", s.c_str());
      for (const std::string& p : c.problems) ADD_FAILURE() << p;
    }
    const auto pct = [&](int k) {
      return fmt::format("{:.1f}%", all.n == 0 ? 0.0 : 100.0 * k / all.n);
    };
    std::printf("red-team %-52s %5d %12s %12s %12s %12s\n", std::string(family.name).c_str(),
                all.n, pct(all.cheat_paper).c_str(), pct(all.cheat_strict).c_str(),
                pct(all.twin_strict).c_str(), pct(all.twin_paper).c_str());
    std::string caught;
    for (const auto& [rule, k] : all.caught_by) caught += fmt::format(" {} {}", rule, k);
    std::printf("red-team %-52s caught by:%s\n", "", caught.c_str());
    if (measure) continue;
    EXPECT_GT(all.n, 0) << family.name << " applies to no sample of the suite";
    EXPECT_LE(all.cheat_strict * 100, all.n) << family.name << ": cheats passing strict";
    EXPECT_EQ(all.twin_strict, all.n) << family.name << ": twins failing strict";
  }
  if (only.empty() && !measure) {
    for (std::string_view domain : {"summarization", "code", "html", "math"}) {
      // A domain whose table is still empty is named, not failed: its families are
      // being written (issue 47). Once it has one, it needs three.
      if (families[domain] == 0) {
        std::printf("red-team %s: no cheat families yet\n", std::string(domain).c_str());
        continue;
      }
      EXPECT_GE(families[domain], 3) << domain << ": at least three families per domain";
    }
  }
}

// The same families over composed samples (issue 52), and those written for composed
// samples only (ComposedCheatFamilies for html, ComposedCodeCheatFamilies for code): every
// math and html cheat keeps the reference's layout, so each composed format rule still
// holds; a code cheat keeps the function's names and values and is another function.
// Strict must fail at most 1% of them (math: on `work` or `answer`; html: on `well-formed`
// or `content`; code: on `statements`), at K = 3 and K = 8. A twin rewrites statements
// (other operator symbols, separators, a result restated on a line of its own; a comment
// before a paragraph), which may legitimately break a format rule (a word range, a step
// count, the doctype first): of a twin, only the content checks are asserted. The
// summarization families rewrite the paper subtasks' answers and apply to no composed
// sample; composed_test.cc's StrictFailsSummariesThatKeepTheFormatAndLoseTheContent has
// composed summarization's.
TEST(RedTeamTest, StrictFailsTheCheatsOfComposedSamples) {
  const std::string only = EnvOr("STRUCTTEST_RED_TEAM_FAMILY", "");
  const auto splitter = ::structtest::testing::BuiltinSentenceSplitter();
  CheckEnv env;
  env.sentences = splitter.get();  // composed summarization's point-sentences counts them
  for (int k : {3, 8}) {
    GenerateOptions options;
    options.suite = "composed";
    options.rules_per_sample = k;
    options.seed = std::stoull(EnvOr("STRUCTTEST_RED_TEAM_SEED", "17"));
    options.limit = 150;
    auto suite = Suite::Plan(options, nullptr);
    ASSERT_TRUE(suite.ok()) << suite.status().message();
    std::vector<Sample> samples;
    for (const PlannedSubtask& p : (*suite)->subtasks()) {
      for (size_t i = 0; i < p.count; ++i) {
        auto sample = (*suite)->Generate(p, i);
        ASSERT_TRUE(sample.ok()) << sample.status().message();
        samples.push_back(std::move(sample).value());
      }
    }
    std::vector<::structtest::testing::CheatFamily> all_families =
        ::structtest::testing::RedTeamFamilies();
    for (const auto& f : ::structtest::testing::ComposedCheatFamilies()) all_families.push_back(f);
    for (const auto& f : ::structtest::testing::ComposedCodeCheatFamilies()) all_families.push_back(f);
    for (const ::structtest::testing::CheatFamily& family : all_families) {
      if (family.name.find(only) == std::string_view::npos) continue;
      int n = 0, cheat_paper = 0, cheat_strict = 0, twin_content = 0;
      for (size_t i = 0; i < samples.size(); ++i) {
        const Sample& sample = samples[i];
        if (sample.domain != family.domain) continue;
        std::optional<::structtest::testing::RedTeamPair> pair = family.make(sample, i);
        if (!pair) continue;
        ++n;
        auto cheat = ScoreResponse(sample, pair->cheat, RuleSet::kStrict, env);
        auto paper = ScoreResponse(sample, pair->cheat, RuleSet::kPaper, env);
        auto twin = ScoreResponse(sample, pair->twin, RuleSet::kStrict, env);
        ASSERT_TRUE(cheat.ok() && paper.ok() && twin.ok()) << family.name << " " << sample.id;
        cheat_strict += cheat->pass;
        cheat_paper += paper->pass;
        bool content = true;
        for (const RuleCheck& c : twin->checks) {
          if ((c.name == "answer" || c.name == "work" || c.name == "points" || c.name == "content" ||
               c.name == "well-formed" || c.name == "program" || c.name == "statements") &&
              c.result != RuleCheck::Result::kPass) {
            content = false;
          }
        }
        twin_content += content;
      }
      if (n == 0) continue;
      std::printf("red-team composed k%d %-44s %5d  cheat paper %5.1f%%  strict %5.1f%%  "
                  "twin content %5.1f%%\n",
                  k, std::string(family.name).c_str(), n, 100.0 * cheat_paper / n,
                  100.0 * cheat_strict / n, 100.0 * twin_content / n);
      if (family.domain != "math" && family.domain != "html" && family.domain != "code") continue;
      EXPECT_LE(cheat_strict * 100, n) << family.name << " k" << k << ": cheats passing strict";
      EXPECT_EQ(twin_content, n) << family.name << " k" << k << ": twins failing their content checks";
    }
  }
}

}  // namespace
}  // namespace structtest
