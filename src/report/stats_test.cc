// The statistics against figures python3 computed (testdata/stats_oracle.json, written
// by testing/stats_oracle.py: closed forms computed another way, the bootstraps done
// again as stats.h documents them), and the properties a bootstrap interval must have.
#include "report/stats.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/test_support.h"

namespace structtest {
namespace {

const nlohmann::json& Oracle() {
  static const nlohmann::json j = nlohmann::json::parse(testing::ReadFileOrDie(
      testing::SourceDir() + "/src/report/testdata/stats_oracle.json"));
  return j;
}

std::vector<ClusterKind> Kinds(const nlohmann::json& kinds) {
  std::vector<ClusterKind> out;
  for (const auto& k : kinds) {
    out.push_back({k[0].get<int64_t>(), k[1].get<int64_t>(), k[2].get<int64_t>(),
                   k[3].get<int64_t>()});
  }
  return out;
}

std::vector<Stratum> OracleStrata() {
  std::vector<Stratum> out;
  for (const auto& s : Oracle()["bootstrap"]["strata"]) {
    Stratum st;
    st.domain = s["domain"];
    st.subtask = s["subtask"];
    if (s["split"] == "easy") st.split = Split::kEasy;
    if (s["split"] == "hard") st.split = Split::kHard;
    st.kinds = Kinds(s["kinds"]);
    out.push_back(std::move(st));
  }
  return out;
}

void ExpectInterval(const std::optional<Interval>& got, const nlohmann::json& want,
                    double tolerance, const std::string& what) {
  ASSERT_TRUE(got.has_value()) << what;
  EXPECT_NEAR(got->low, want[0].get<double>(), tolerance) << what;
  EXPECT_NEAR(got->high, want[1].get<double>(), tolerance) << what;
}

// Every named aggregate of `want` ({"easy:code": [low, high], ...}) and no other.
void ExpectAggregates(const AggregateIntervals& got, const nlohmann::json& want) {
  size_t present = got.easy.size() + got.hard.size() + got.overall_easy.has_value() +
                   got.overall_hard.has_value() + got.all.has_value();
  EXPECT_EQ(present, want.size());
  for (const auto& [name, bounds] : want.items()) {
    std::optional<Interval> i;
    if (name.starts_with("easy:") && got.easy.count(name.substr(5))) i = got.easy.at(name.substr(5));
    if (name.starts_with("hard:") && got.hard.count(name.substr(5))) i = got.hard.at(name.substr(5));
    if (name == "overall_easy") i = got.overall_easy;
    if (name == "overall_hard") i = got.overall_hard;
    if (name == "all") i = got.all;
    ExpectInterval(i, bounds, 1e-9, name);
  }
}

TEST(StatsTest, WilsonMatchesTheScoreTestSolvedByBisection) {
  for (const auto& c : Oracle()["wilson"]) {
    const Interval w = WilsonInterval(c["k"].get<double>(), c["n"].get<double>());
    EXPECT_NEAR(w.low, c["low"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(w.high, c["high"].get<double>(), 1e-12) << c.dump();
  }
}

TEST(StatsTest, SubtaskIntervalUsesTheDesignEffectOfItsClusters) {
  for (const auto& c : Oracle()["design_effect"]) {
    Stratum s;
    s.kinds = Kinds(c["kinds"]);
    EXPECT_NEAR(DesignEffect(s), c["design_effect"].get<double>(), 1e-12) << c.dump();
    const auto i = SubtaskInterval(s);
    ASSERT_TRUE(i.has_value());
    EXPECT_NEAR(i->low, c["low"].get<double>(), 1e-9) << c.dump();
    EXPECT_NEAR(i->high, c["high"].get<double>(), 1e-9) << c.dump();
  }
  EXPECT_FALSE(SubtaskInterval(Stratum()).has_value());
}

TEST(StatsTest, McNemarMatchesExactIntegers) {
  for (const auto& c : Oracle()["mcnemar"]) {
    const double want = c["p"];
    const double got = McNemarExactP(c["a_only"], c["b_only"]);
    if (want == 0) {
      EXPECT_LT(got, 1e-300) << c.dump();
    } else {
      EXPECT_NEAR(got / want, 1.0, 1e-9) << c.dump() << " got " << got;
    }
  }
}

TEST(StatsTest, HolmMatchesPython) {
  const std::vector<double> p = Oracle()["holm"]["p"];
  const std::vector<double> want = Oracle()["holm"]["adjusted"];
  const std::vector<double> got = HolmAdjust(p);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << i;
  EXPECT_TRUE(HolmAdjust({}).empty());
}

TEST(StatsTest, PearsonAndSpearmanMatchPythonsStatistics) {
  for (const auto& c : Oracle()["correlation"]) {
    const std::vector<double> x = c["x"], y = c["y"];
    const auto r = Pearson(x, y);
    ASSERT_TRUE(r.has_value());
    EXPECT_NEAR(r->value, c["pearson"].get<double>(), 1e-12) << c.dump();
    if (c["pearson_ci"].is_null()) {
      EXPECT_FALSE(r->ci.has_value());
    } else {
      ExpectInterval(r->ci, c["pearson_ci"], 1e-12, c.dump());
    }
    const auto rho = Spearman(x, y, "test");
    ASSERT_TRUE(rho.has_value());
    EXPECT_NEAR(rho->value, c["spearman"].get<double>(), 1e-12) << c.dump();
    ASSERT_TRUE(rho->ci.has_value());
    EXPECT_LE(rho->ci->low, rho->value);
    EXPECT_GE(rho->ci->high, rho->value);
  }
  // Too few pairs, or a constant column: no correlation.
  EXPECT_FALSE(Pearson(std::vector<double>{1, 2}, std::vector<double>{2, 1}).has_value());
  EXPECT_FALSE(Pearson(std::vector<double>{1, 2, 3}, std::vector<double>{5, 5, 5}).has_value());
  EXPECT_FALSE(Spearman(std::vector<double>{4, 4, 4}, std::vector<double>{1, 2, 3}, "t").has_value());
}

TEST(StatsTest, AverageRanksShareTies) {
  EXPECT_EQ(AverageRanks(std::vector<double>{3, 1, 3, 2}),
            (std::vector<double>{3.5, 1, 3.5, 2}));
}

TEST(StatsTest, BootstrapOfTheAggregatesMatchesTheDocumentedAlgorithm) {
  const std::vector<Stratum> strata = OracleStrata();
  BootstrapOptions o;
  o.replicates = Oracle()["bootstrap"]["replicates"];
  o.seed = Oracle()["bootstrap"]["seed"];
  ExpectAggregates(BootstrapAggregates(strata, o), Oracle()["bootstrap"]["aggregates"]);
  const PairedIntervals paired = BootstrapDifferences(strata, o);
  ExpectAggregates(paired.aggregates, Oracle()["bootstrap"]["paired"]["aggregates"]);
  const auto& want = Oracle()["bootstrap"]["paired"]["strata"];
  ASSERT_EQ(paired.strata.size(), want.size());
  for (size_t s = 0; s < want.size(); ++s) ExpectInterval(paired.strata[s], want[s], 1e-9, strata[s].subtask);
}

// --- properties -----------------------------------------------------------------

// One Easy stratum per paper domain; `units` samples each at proportion `p`, in
// clusters of `size` units that all pass or all fail (size 1: independent samples).
std::vector<Stratum> Uniform(int64_t units, double p, int64_t size = 1) {
  std::vector<Stratum> out;
  for (const char* d : {"summarization", "code", "html", "math"}) {
    for (Split split : {Split::kEasy, Split::kHard}) {
      Stratum s;
      s.domain = d;
      s.subtask = std::string(d) + (split == Split::kEasy ? "_easy" : "_hard");
      s.split = split;
      const int64_t clusters = units / size;
      const auto pass = static_cast<int64_t>(std::llround(p * clusters));
      s.kinds = {{size, size, 0, pass}, {size, 0, 0, clusters - pass}};
      out.push_back(s);
    }
  }
  return out;
}

double Width(const Interval& i) { return i.high - i.low; }

TEST(StatsTest, BootstrapIntervalsContainTheEstimateAndShrinkWithN) {
  for (double p : {0.02, 0.3, 0.5, 0.97}) {
    const auto small = BootstrapAggregates(Uniform(50, p));
    const auto large = BootstrapAggregates(Uniform(800, p));
    ASSERT_TRUE(small.all && large.all);
    const double estimate = 100 * std::llround(p * 50) / 50.0;
    EXPECT_LE(small.all->low, estimate);
    EXPECT_GE(small.all->high, estimate);
    for (const auto& [domain, i] : small.easy) {
      EXPECT_LE(i.low, estimate) << domain;
      EXPECT_GE(i.high, estimate) << domain;
    }
    // 16 times the samples: about a quarter of the width.
    EXPECT_LT(Width(*large.all), 0.4 * Width(*small.all)) << p;
    EXPECT_LT(Width(large.easy.at("code")), 0.4 * Width(small.easy.at("code"))) << p;
  }
}

TEST(StatsTest, OneSubtaskGivesAboutTheWilsonWidth) {
  for (double p : {0.2, 0.5, 0.8}) {
    Stratum s;
    s.domain = "html";
    s.subtask = "html_easy";
    s.split = Split::kEasy;
    const auto pass = static_cast<int64_t>(400 * p);
    s.kinds = {{1, 1, 0, pass}, {1, 0, 0, 400 - pass}};
    const auto boot = BootstrapAggregates(std::vector<Stratum>{s});
    const auto wilson = SubtaskInterval(s);
    ASSERT_TRUE(wilson.has_value());
    ASSERT_TRUE(boot.easy.count("html"));
    EXPECT_NEAR(Width(boot.easy.at("html")), Width(*wilson), 0.1 * Width(*wilson)) << p;
  }
}

TEST(StatsTest, CorrelatedClustersWidenTheInterval) {
  // The same 400 samples at 50%: independent, or in clusters of 4 that agree.
  const auto independent = BootstrapAggregates(Uniform(400, 0.5, 1));
  const auto clustered = BootstrapAggregates(Uniform(400, 0.5, 4));
  ASSERT_TRUE(independent.all && clustered.all);
  EXPECT_GT(Width(*clustered.all), 1.5 * Width(*independent.all));
  EXPECT_GT(Width(clustered.hard.at("math")), 1.5 * Width(independent.hard.at("math")));
  // And the subtask interval sees it through the design effect (4 here).
  const Stratum s = Uniform(400, 0.5, 4)[0];
  EXPECT_NEAR(DesignEffect(s), 4.0, 1e-12);
  EXPECT_GT(Width(*SubtaskInterval(s)), 1.9 * Width(*SubtaskInterval(Uniform(400, 0.5, 1)[0])));
}

TEST(StatsTest, TheSeedMakesTheBootstrapReproducible) {
  const std::vector<Stratum> strata = Uniform(120, 0.4);
  const auto a = BootstrapAggregates(strata), b = BootstrapAggregates(strata);
  EXPECT_EQ(a.all->low, b.all->low);
  EXPECT_EQ(a.all->high, b.all->high);
  BootstrapOptions other;
  other.seed = 99;
  const auto c = BootstrapAggregates(strata, other);
  EXPECT_TRUE(c.all->low != a.all->low || c.all->high != a.all->high);
  // A stratum's draws do not depend on the others: dropping one leaves the rest.
  std::vector<Stratum> fewer(strata.begin() + 1, strata.end());
  const auto d = BootstrapAggregates(fewer);
  EXPECT_EQ(d.hard.at("code").low, a.hard.at("code").low);
}

TEST(StatsTest, PairedDifferencesOfIdenticalRunsAreZeroAndOfShiftedRunsExcludeZero) {
  std::vector<Stratum> same = Uniform(200, 0.5);
  for (Stratum& s : same) {
    for (ClusterKind& k : s.kinds) k.pass_b = k.pass_a;
  }
  const PairedIntervals zero = BootstrapDifferences(same);
  EXPECT_EQ(zero.aggregates.all->low, 0);
  EXPECT_EQ(zero.aggregates.all->high, 0);
  // B passes everything A passes and 40 more of each 200.
  std::vector<Stratum> better = Uniform(200, 0.5);
  for (Stratum& s : better) {
    s.kinds = {{1, 1, 1, 100}, {1, 0, 1, 40}, {1, 0, 0, 60}};
  }
  const PairedIntervals up = BootstrapDifferences(better);
  EXPECT_GT(up.aggregates.all->low, 0);
  EXPECT_LE(up.aggregates.all->low, 20);
  EXPECT_GE(up.aggregates.all->high, 20);
  ASSERT_TRUE(up.strata[0].has_value());
  EXPECT_GT(up.strata[0]->low, 0);
}

}  // namespace
}  // namespace structtest

namespace structtest {
namespace {

// The exact variance of the aggregates, against the closed form worked out by hand for
// eight strata of one design: each domain's Easy figure is one subtask (its own
// binomial variance), overall Easy the mean of four (variance / 4), All the mean of
// overall Easy and Hard (variance / 8).
TEST(StatsTest, ExactVarianceAggregatesFollowTheWeightedMean) {
  const double z = 1.959964;
  for (double p : {0.3, 0.5, 0.9}) {
    for (int64_t size : {1, 4}) {
      const auto strata = Uniform(400, p, size);
      const AggregateIntervals ci = ExactVarianceAggregates(strata, z);
      const double deff = DesignEffect(strata[0]);
      EXPECT_NEAR(deff, size == 1 ? 1.0 : 4.0, 1e-9);  // clusters all pass or all fail
      const double var = 1e4 * p * (1 - p) / 400 * deff;
      const double est = 100 * p;
      ASSERT_TRUE(ci.easy.contains("code"));
      EXPECT_NEAR(ci.easy.at("code").high - est, z * std::sqrt(var), 1e-9);
      EXPECT_NEAR(ci.overall_easy->high - est, z * std::sqrt(var / 4), 1e-9);
      EXPECT_NEAR(est - ci.all->low, z * std::sqrt(var / 8), 1e-9);
      // The bootstrap of the same strata agrees within its own noise.
      const AggregateIntervals boot = BootstrapAggregates(strata);
      const double w = ci.all->high - ci.all->low, bw = boot.all->high - boot.all->low;
      EXPECT_NEAR(w, bw, 0.15 * w) << "p " << p << " size " << size;
    }
  }
  // Bounded to [0, 100], and no width where nothing can vary.
  const auto all_pass = Uniform(10, 1.0);
  const AggregateIntervals full = ExactVarianceAggregates(all_pass);
  EXPECT_EQ(full.all->low, 100.0);
  EXPECT_EQ(full.all->high, 100.0);
  const AggregateIntervals near = ExactVarianceAggregates(Uniform(10, 0.9));
  EXPECT_LE(near.easy.at("code").high, 100.0);
}

}  // namespace
}  // namespace structtest
