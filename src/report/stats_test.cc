// The statistics against figures python3 computed (testdata/stats_oracle.json, written
// by testing/stats_oracle.py: the formulas computed another way), and what the intervals
// are for: covering the truth 95% of the time, which a simulation checks at small n and
// at 0% and 100% for the aggregates of a run and for the differences of two runs.
#include "report/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "tasks/registry.h"
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

std::vector<Stratum> OracleStrata(const nlohmann::json& strata) {
  std::vector<Stratum> out;
  for (const auto& s : strata) {
    Stratum st;
    st.domain = s["domain"];
    st.subtask = s["subtask"];
    if (s["split"] == "easy") st.split = Split::kEasy;
    if (s["split"] == "hard") st.split = Split::kHard;
    st.kinds = Kinds(s["kinds"]);
    st.repeated = s.value("repeated", false);
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
    const Interval cc = ContinuityCorrectedWilson(c["k"].get<double>(), c["n"].get<double>());
    EXPECT_NEAR(cc.low, c["cc_low"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(cc.high, c["cc_high"].get<double>(), 1e-12) << c.dump();
  }
  // The bounds at 0 and n are exact, so that 0% and 100% are inside.
  EXPECT_EQ(WilsonInterval(0, 100).low, 0.0);
  EXPECT_EQ(WilsonInterval(100, 100).high, 1.0);
  EXPECT_EQ(ContinuityCorrectedWilson(0, 7).low, 0.0);
  EXPECT_EQ(ContinuityCorrectedWilson(7, 7).high, 1.0);
}

// P(k) of Binomial(n, p), for the exact coverage below.
double BinomialPmf(int n, int k, double p) {
  if (p == 0) return k == 0 ? 1.0 : 0.0;
  if (p == 1) return k == n ? 1.0 : 0.0;
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                  k * std::log(p) + (n - k) * std::log1p(-p));
}

double ExactCoverage(const std::function<Interval(double, double)>& interval, int n, double p) {
  double covered = 0;
  for (int k = 0; k <= n; ++k) {
    const Interval i = interval(k, n);
    if (i.low <= p && p <= i.high) covered += BinomialPmf(n, k, p);
  }
  return covered;
}

// The subtask interval's coverage, summed over every outcome rather than simulated:
// at least 94.6% at every p of a fine grid, where plain Wilson's dips to 79-90%.
TEST(StatsTest, ContinuityCorrectedWilsonCoversAtEveryP) {
  const auto cc = [](double k, double n) { return ContinuityCorrectedWilson(k, n); };
  const auto plain = [](double k, double n) { return WilsonInterval(k, n); };
  for (int n : {1, 3, 10, 100}) {
    double worst = 1, worst_plain = 1;
    for (int i = 0; i <= 1000; ++i) {
      const double p = i / 1000.0;
      worst = std::min(worst, ExactCoverage(cc, n, p));
      worst_plain = std::min(worst_plain, ExactCoverage(plain, n, p));
    }
    EXPECT_GE(worst, 0.945) << "n " << n;
    EXPECT_LT(worst_plain, 0.91) << "n " << n;  // why the correction
  }
  EXPECT_NEAR(ExactCoverage(plain, 3, 0.05), 0.857375, 1e-9);  // 0.95^3: k = 1 misses
}

TEST(StatsTest, SubtaskIntervalUsesTheDesignEffectOfItsClusters) {
  for (const auto& c : Oracle()["design_effect"]) {
    Stratum s;
    s.kinds = Kinds(c["kinds"]);
    s.repeated = c.value("repeated", false);  // a sample's repeats (run --repeats)
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
    ASSERT_EQ(rho->ci.has_value(), c["spearman_has_ci"].get<bool>()) << c.dump();
    if (rho->ci) {
      EXPECT_LE(rho->ci->low, rho->value);
      EXPECT_GE(rho->ci->high, rho->value);
    }
  }
  // Perfect agreement, and too few pairs for a bootstrap: a value, and no interval that
  // would claim a certainty (n = 3: rho takes four values; rho = 1: every resample is 1).
  const auto three = Spearman(std::vector<double>{1, 2, 3}, std::vector<double>{2, 3, 4}, "t");
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ(three->value, 1.0);
  EXPECT_FALSE(three->ci.has_value());
  const auto perfect = Pearson(std::vector<double>{1, 2, 3, 4, 5, 6},
                               std::vector<double>{2, 4, 6, 8, 10, 12});
  ASSERT_TRUE(perfect.has_value());
  EXPECT_FALSE(perfect->ci.has_value());
  const auto ranked = Spearman(std::vector<double>{1, 2, 3, 4, 5, 6},
                               std::vector<double>{1, 4, 9, 16, 25, 36}, "t");
  ASSERT_TRUE(ranked.has_value());
  EXPECT_EQ(ranked->value, 1.0);
  EXPECT_FALSE(ranked->ci.has_value());
  // Too few pairs, or a constant column: no correlation.
  EXPECT_FALSE(Pearson(std::vector<double>{1, 2}, std::vector<double>{2, 1}).has_value());
  EXPECT_FALSE(Pearson(std::vector<double>{1, 2, 3}, std::vector<double>{5, 5, 5}).has_value());
  EXPECT_FALSE(Spearman(std::vector<double>{4, 4, 4}, std::vector<double>{1, 2, 3}, "t").has_value());
}

TEST(StatsTest, AverageRanksShareTies) {
  EXPECT_EQ(AverageRanks(std::vector<double>{3, 1, 3, 2}),
            (std::vector<double>{3.5, 1, 3.5, 2}));
}

TEST(StatsTest, AggregateAndPairedIntervalsMatchPython) {
  for (const nlohmann::json& c : Oracle()["intervals"]) {
    const std::vector<Stratum> strata = OracleStrata(c["strata"]);
    ExpectAggregates(AggregateScoreIntervals(strata, Run::kA), c["a"]);
    ExpectAggregates(AggregateScoreIntervals(strata, Run::kB), c["b"]);
    const PairedIntervals paired = PairedDifferenceIntervals(strata);
    ExpectAggregates(paired.aggregates, c["difference"]);
    const nlohmann::json& want = c["strata_difference"];
    ASSERT_EQ(paired.strata.size(), want.size());
    for (size_t s = 0; s < want.size(); ++s) {
      ExpectInterval(paired.strata[s], want[s], 1e-9, strata[s].subtask);
    }
  }
}

// --- properties -----------------------------------------------------------------

// One Easy and one Hard stratum per paper domain; `units` samples each at proportion
// `p`, in clusters of `size` units that all pass or all fail (size 1: independent
// samples).
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
      if (pass > 0) s.kinds.push_back({size, size, 0, pass});
      if (pass < clusters) s.kinds.push_back({size, 0, 0, clusters - pass});
      out.push_back(s);
    }
  }
  return out;
}

double Width(const Interval& i) { return i.high - i.low; }

TEST(StatsTest, AnAggregateOfOneSubtaskHasItsInterval) {
  for (double p : {0.0, 0.3, 1.0}) {
    const std::vector<Stratum> strata = Uniform(12, p, 3);
    const AggregateIntervals ci = AggregateScoreIntervals(strata);
    const auto subtask = SubtaskInterval(strata[2]);  // code, Easy
    ASSERT_TRUE(subtask.has_value());
    EXPECT_NEAR(ci.easy.at("code").low, subtask->low, 1e-9) << p;
    EXPECT_NEAR(ci.easy.at("code").high, subtask->high, 1e-9) << p;
  }
}

TEST(StatsTest, AggregatesAtZeroOrAHundredPercentStillHaveWidth) {
  for (int64_t n : {1, 10, 1000}) {
    const AggregateIntervals none = AggregateScoreIntervals(Uniform(n, 0.0));
    const AggregateIntervals every = AggregateScoreIntervals(Uniform(n, 1.0));
    EXPECT_EQ(none.all->low, 0.0);
    EXPECT_GT(none.all->high, 0.0);
    EXPECT_EQ(every.all->high, 100.0);
    EXPECT_LT(every.all->low, 100.0);
    // The mean of 8 subtasks of n samples is bounded like one proportion of 8n.
    const Interval one = ContinuityCorrectedWilson(0, 8.0 * static_cast<double>(n));
    EXPECT_NEAR(none.all->high, 100 * one.high, 1e-9) << n;
  }
}

TEST(StatsTest, CorrelatedClustersWidenTheInterval) {
  // The same 400 samples at 50%: independent, or in clusters of 4 that agree.
  const AggregateIntervals independent = AggregateScoreIntervals(Uniform(400, 0.5, 1));
  const AggregateIntervals clustered = AggregateScoreIntervals(Uniform(400, 0.5, 4));
  EXPECT_GT(Width(*clustered.all), 1.8 * Width(*independent.all));
  EXPECT_GT(Width(clustered.hard.at("math")), 1.8 * Width(independent.hard.at("math")));
  // And the subtask interval sees it through the design effect (4 here).
  const Stratum s = Uniform(400, 0.5, 4)[0];
  EXPECT_NEAR(DesignEffect(s), 4.0, 1e-12);
  EXPECT_GT(Width(*SubtaskInterval(s)), 1.9 * Width(*SubtaskInterval(Uniform(400, 0.5, 1)[0])));
}

TEST(StatsTest, PairedDifferencesOfIdenticalRunsAreCenteredAndOfShiftedRunsExcludeZero) {
  std::vector<Stratum> same = Uniform(200, 0.5);
  for (Stratum& s : same) {
    for (ClusterKind& k : s.kinds) k.pass_b = k.pass_a;
  }
  const PairedIntervals zero = PairedDifferenceIntervals(same);
  EXPECT_NEAR(zero.aggregates.all->low, -zero.aggregates.all->high, 1e-9);
  EXPECT_GT(zero.aggregates.all->high, 0);
  // B passes everything A passes and 40 more of each 200.
  std::vector<Stratum> better = Uniform(200, 0.5);
  for (Stratum& s : better) {
    s.kinds = {{1, 1, 1, 100}, {1, 0, 1, 40}, {1, 0, 0, 60}};
  }
  const PairedIntervals up = PairedDifferenceIntervals(better);
  EXPECT_GT(up.aggregates.all->low, 0);
  EXPECT_LE(up.aggregates.all->low, 20);
  EXPECT_GE(up.aggregates.all->high, 20);
  ASSERT_TRUE(up.strata[0].has_value());
  EXPECT_GT(up.strata[0]->low, 0);
  // The pairing narrows it: the same margins with B's passes drawn apart from A's (B's
  // 140 passes split evenly over A's passes and failures) give a wider interval.
  std::vector<Stratum> unpaired = Uniform(200, 0.5);
  for (Stratum& s : unpaired) {
    s.kinds = {{1, 1, 1, 70}, {1, 1, 0, 30}, {1, 0, 1, 70}, {1, 0, 0, 30}};
  }
  EXPECT_GT(Width(*PairedDifferenceIntervals(unpaired).aggregates.all),
            1.3 * Width(*up.aggregates.all));
}

// --- coverage -----------------------------------------------------------------------
//
// What a 95% interval promises: over repeated runs, it holds the true figure about 95%
// of the time. The simulation draws runs of the paper's 19 subtasks (the registry's),
// of unequal sizes (n, 2n, 3n and 5n samples in turn), every sample passing with
// probability p, and counts how often each aggregate's interval holds the truth (100 p);
// for compare, pairs of runs whose verdicts on a sample are independent, correlated or
// anti-correlated, at equal and at different pass rates. A plug-in variance p(1-p)/n
// gives intervals of no width at 0% and 100% and covers a 50% figure at n = 1 never;
// the bootstrap compare used to draw collapses the same way.

constexpr int64_t kSizes[] = {1, 2, 3, 5};
constexpr double kRates[] = {0, 0.05, 0.5, 0.95, 1};
constexpr int64_t kBaseSizes[] = {1, 3, 10, 100};

// The paper's subtasks as strata without clusters, and the units each gets at base n.
std::vector<Stratum> PaperStrata() {
  std::vector<Stratum> out;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& spec : f->subtasks) {
      Stratum s;
      s.domain = f->domain;
      s.subtask = spec.name;
      s.split = spec.split;
      out.push_back(std::move(s));
    }
  }
  return out;
}

int64_t SizeOf(size_t stratum, int64_t n) { return n * kSizes[stratum % std::size(kSizes)]; }

// A draw of Binomial(n, p) by inverting its distribution function with one uniform.
int64_t Binomial(Rng& rng, int64_t n, double p) {
  if (p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - Binomial(rng, n, 1 - p);  // (1 - p)^n stays representable
  const double u = rng.UniformDouble();
  double pmf = std::pow(1 - p, static_cast<double>(n)), cdf = pmf;
  int64_t k = 0;
  while (u >= cdf && k < n) {
    pmf *= static_cast<double>(n - k) / static_cast<double>(k + 1) * p / (1 - p);
    ++k;
    cdf += pmf;
  }
  return k;
}

// Every aggregate's interval, by name, and whether it holds `truth`.
std::vector<std::pair<std::string, Interval>> Named(const AggregateIntervals& ci) {
  std::vector<std::pair<std::string, Interval>> out;
  for (const auto& [d, i] : ci.easy) out.push_back({d + " Easy", i});
  for (const auto& [d, i] : ci.hard) out.push_back({d + " Hard", i});
  if (ci.overall_easy) out.push_back({"overall Easy", *ci.overall_easy});
  if (ci.overall_hard) out.push_back({"overall Hard", *ci.overall_hard});
  if (ci.all) out.push_back({"All", *ci.all});
  return out;
}

// Coverage per aggregate over the draws; the worst one and its name.
class Coverage {
 public:
  void Count(const std::vector<std::pair<std::string, Interval>>& intervals, double truth) {
    ++draws_;
    for (const auto& [name, i] : intervals) {
      // A hair of slack: the truth at 0 or 100 sits on a bound computed in floating point.
      held_[name] += i.low <= truth + 1e-9 && truth - 1e-9 <= i.high;
    }
  }
  std::pair<double, std::string> Worst() const {
    std::pair<double, std::string> worst{1.0, ""};
    for (const auto& [name, held] : held_) {
      worst = std::min(worst, {static_cast<double>(held) / draws_, name});
    }
    return worst;
  }

 private:
  int draws_ = 0;
  std::map<std::string, int> held_;
};

constexpr double kMinCoverage = 0.93;

TEST(StatsCoverageTest, AggregatesOfARunCoverTheTruth) {
  constexpr int kDraws = 2000;
  Rng rng(27);
  std::string table;
  for (int64_t n : kBaseSizes) {
    for (double p : kRates) {
      Coverage coverage;
      std::vector<Stratum> strata = PaperStrata();
      for (int draw = 0; draw < kDraws; ++draw) {
        for (size_t s = 0; s < strata.size(); ++s) {
          const int64_t units = SizeOf(s, n);
          const int64_t pass = Binomial(rng, units, p);
          strata[s].kinds.clear();
          if (pass > 0) strata[s].kinds.push_back({1, 1, 0, pass});
          if (pass < units) strata[s].kinds.push_back({1, 0, 0, units - pass});
        }
        coverage.Count(Named(AggregateScoreIntervals(strata)), 100 * p);
      }
      const auto [worst, name] = coverage.Worst();
      table += fmt::format("n {:>3} p {:.2f}: {:.3f} ({})\n", n, p, worst, name);
      EXPECT_GE(worst, kMinCoverage) << "n " << n << " p " << p << ": " << name;
    }
  }
  std::printf("coverage of the aggregates' 95%% intervals, the worst aggregate per cell:\n%s",
              table.c_str());
}

// How the two runs' verdicts on a sample go together.
enum class Pairing { kIndependent, kCorrelated, kAnticorrelated };

// The probabilities of a sample's four outcomes (fail/pass in A x B, by 2 * A + B) when
// it passes with probability pa in A and pb in B: 80% of samples linked (B passes
// where A's uniform, or its mirror, is below pb: the strongest agreement or
// disagreement the margins allow), 20% independent. At pa = pb correlated runs agree
// on at least 80% of the samples.
std::array<double, 4> Outcomes(double pa, double pb, Pairing pairing) {
  double both = pa * pb;  // independent
  if (pairing == Pairing::kCorrelated) both = 0.8 * std::min(pa, pb) + 0.2 * both;
  if (pairing == Pairing::kAnticorrelated) both = 0.8 * std::max(0.0, pa + pb - 1) + 0.2 * both;
  return {1 - pa - pb + both, pb - both, pa - both, both};
}

// The worst coverage of B - A over the aggregates and the subtasks.
std::pair<double, std::string> PairedCoverage(Rng& rng, int64_t n, double pa, double pb,
                                              Pairing pairing, int draws) {
  Coverage coverage;
  std::vector<Stratum> strata = PaperStrata();
  const std::array<double, 4> outcomes = Outcomes(pa, pb, pairing);
  for (int draw = 0; draw < draws; ++draw) {
    for (size_t s = 0; s < strata.size(); ++s) {
      // A multinomial draw of the four outcomes, one binomial at a time.
      std::array<int64_t, 4> cells{};
      int64_t left = SizeOf(s, n);
      double mass = 1;
      for (int c = 3; c > 0; --c) {
        cells[c] = mass > 0 ? Binomial(rng, left, std::min(1.0, outcomes[c] / mass)) : 0;
        left -= cells[c];
        mass -= outcomes[c];
      }
      cells[0] = left;
      strata[s].kinds.clear();
      for (int c = 0; c < 4; ++c) {
        if (cells[c] > 0) strata[s].kinds.push_back({1, c / 2, c % 2, cells[c]});
      }
    }
    const PairedIntervals ci = PairedDifferenceIntervals(strata);
    std::vector<std::pair<std::string, Interval>> named = Named(ci.aggregates);
    for (size_t s = 0; s < strata.size(); ++s) named.push_back({strata[s].subtask, *ci.strata[s]});
    coverage.Count(named, 100 * (pb - pa));
  }
  return coverage.Worst();
}

TEST(StatsCoverageTest, PairedDifferencesCoverTheTruth) {
  constexpr int kDraws = 1000;
  Rng rng(27);
  std::string table;
  for (int64_t n : kBaseSizes) {
    for (double p : kRates) {
      for (Pairing pairing : {Pairing::kIndependent, Pairing::kCorrelated,
                              Pairing::kAnticorrelated}) {
        const auto [worst, name] = PairedCoverage(rng, n, p, p, pairing, kDraws);
        table += fmt::format("n {:>3} pa = pb = {:.2f} pairing {}: {:.3f} ({})\n", n, p,
                             static_cast<int>(pairing), worst, name);
        EXPECT_GE(worst, kMinCoverage) << "n " << n << " p " << p << " pairing "
                                       << static_cast<int>(pairing) << ": " << name;
      }
    }
  }
  std::printf("coverage of compare's 95%% intervals of B - A, the worst figure per cell:\n%s",
              table.c_str());
}

// One subtask's interval of B - A, its coverage summed over every outcome of n pairs
// (a multinomial over the four outcomes) rather than simulated: at least 93% wherever
// the runs differ by up to 50 points and their verdicts are independent or correlated.
TEST(StatsCoverageTest, OneSubtasksPairedIntervalCoversExactly) {
  const double rates[] = {0, 0.05, 0.25, 0.5, 0.75, 0.95, 1};
  for (int n : {1, 2, 3, 5, 10}) {
    for (double pa : rates) {
      for (double pb : rates) {
        if (std::abs(pa - pb) > 0.5) continue;
        for (Pairing pairing : {Pairing::kIndependent, Pairing::kCorrelated}) {
          const std::array<double, 4> q = Outcomes(pa, pb, pairing);
          double covered = 0;
          std::array<int64_t, 4> cells{};
          for (cells[3] = 0; cells[3] <= n; ++cells[3]) {
            for (cells[2] = 0; cells[3] + cells[2] <= n; ++cells[2]) {
              for (cells[1] = 0; cells[3] + cells[2] + cells[1] <= n; ++cells[1]) {
                cells[0] = n - cells[3] - cells[2] - cells[1];
                double log_p = std::lgamma(n + 1.0);
                bool possible = true;
                for (int c = 0; c < 4; ++c) {
                  if (cells[c] == 0) continue;
                  if (q[c] <= 0) possible = false;
                  log_p += cells[c] * std::log(std::max(q[c], 1e-300)) -
                           std::lgamma(static_cast<double>(cells[c]) + 1);
                }
                if (!possible) continue;
                Stratum s;
                s.domain = "html";
                s.subtask = "html_easy";
                s.split = Split::kEasy;
                for (int c = 0; c < 4; ++c) {
                  if (cells[c] > 0) s.kinds.push_back({1, c / 2, c % 2, cells[c]});
                }
                const Interval i = *PairedDifferenceIntervals(std::vector<Stratum>{s}).strata[0];
                const double truth = 100 * (pb - pa);
                if (i.low <= truth + 1e-9 && truth - 1e-9 <= i.high) covered += std::exp(log_p);
              }
            }
          }
          EXPECT_GE(covered, 0.93) << "n " << n << " pa " << pa << " pb " << pb << " pairing "
                                   << static_cast<int>(pairing);
        }
      }
    }
  }
}

// Runs that differ by up to 50 points, their verdicts independent or correlated. Not
// asserted, and left out here: differences of 90 points (5% against 95%) at 1 to 10
// samples per subtask, where the worst figure covers 91-92% (for one subtask of 1
// sample, 80% against 20% in runs that disagree wherever they can, 83%: one sample
// that says +100 cannot make an interval reach -60 without making every interval of
// one sample useless).
TEST(StatsCoverageTest, PairedDifferencesOfRunsThatDifferCoverTheTruth) {
  constexpr int kDraws = 1000;
  Rng rng(28);
  std::string table;
  for (int64_t n : kBaseSizes) {
    for (double pa : kRates) {
      for (double pb : kRates) {
        if (pa == pb || std::abs(pa - pb) > 0.5) continue;
        double worst = 1;
        std::string where;
        for (Pairing pairing : {Pairing::kIndependent, Pairing::kCorrelated}) {
          const auto [w, name] = PairedCoverage(rng, n, pa, pb, pairing, kDraws);
          if (w < worst) {
            worst = w;
            where = fmt::format("{} pairing {}", name, static_cast<int>(pairing));
          }
        }
        table += fmt::format("n {:>3} pa {:.2f} pb {:.2f}: {:.3f} ({})\n", n, pa, pb, worst, where);
        EXPECT_GE(worst, kMinCoverage)
            << "n " << n << " pa " << pa << " pb " << pb << ": " << where;
      }
    }
  }
  std::printf("coverage of B - A where the runs differ, the worst figure per cell:\n%s",
              table.c_str());
}

// pass@k and pass^k against the chance they estimate, counted by enumerating every
// k-subset of n answers, c of which pass: the estimators are exact, not approximations
// (a biased 1 - (1 - c/n)^k fails here).
TEST(StatsTest, PassAtKAndPassHatKAreTheChancesOverEveryKSubset) {
  for (int64_t n = 1; n <= 10; ++n) {
    for (int64_t c = 0; c <= n; ++c) {
      for (int64_t k = 1; k <= n; ++k) {
        int64_t subsets = 0, some = 0, all = 0;
        for (uint32_t mask = 0; mask < (1u << n); ++mask) {
          if (__builtin_popcount(mask) != k) continue;
          ++subsets;
          // Answers 0..c-1 pass.
          const int passing = __builtin_popcount(mask & ((1u << c) - 1));
          some += passing > 0;
          all += passing == k;
        }
        const double at = static_cast<double>(some) / static_cast<double>(subsets);
        const double hat = static_cast<double>(all) / static_cast<double>(subsets);
        EXPECT_NEAR(PassAtK(n, c, k), at, 1e-12) << n << " " << c << " " << k;
        EXPECT_NEAR(PassHatK(n, c, k), hat, 1e-12) << n << " " << c << " " << k;
      }
    }
  }
  // By hand: 5 answers, 2 passing. pass@1 = 2/5; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10;
  // pass^2 = C(2,2)/C(5,2) = 1/10; pass^3 = 0.
  EXPECT_DOUBLE_EQ(PassAtK(5, 2, 1), 0.4);
  EXPECT_DOUBLE_EQ(PassAtK(5, 2, 2), 0.7);
  EXPECT_DOUBLE_EQ(PassHatK(5, 2, 2), 0.1);
  EXPECT_EQ(PassHatK(5, 2, 3), 0.0);
  EXPECT_FALSE(std::signbit(PassHatK(5, 2, 5)));
  EXPECT_EQ(PassAtK(5, 3, 3), 1.0);  // fewer failures than k: some pass for certain
  // Large n: no overflow, no loss (C(1000, 500) overflows any integer).
  EXPECT_NEAR(PassAtK(1000, 500, 1), 0.5, 1e-12);
  EXPECT_NEAR(PassHatK(1000, 1000, 500), 1.0, 1e-12);
}

// How alike a sample's repeats are in a simulated run of repeated samples.
enum class Alike {
  kIndependent,  // every sample passes each repeat with the same chance
  kHalf,         // half the samples always pass or always fail; the others as above
  kAlways,       // every sample always passes or always fails (intra-class correlation 1)
};

// One subtask of `samples` samples asked `k` times, each sample passing each repeat with
// its own chance (mean `p` over samples) as `alike` says, as Tally::ToStratum gives it:
// a cluster per sample. `naive`: as if every verdict were a sample of its own.
Stratum RepeatedRun(Rng& rng, int64_t samples, int64_t k, double p, Alike alike, bool naive) {
  std::map<std::pair<int64_t, int64_t>, int64_t> kinds;
  for (int64_t i = 0; i < samples; ++i) {
    double chance = p;
    if (alike == Alike::kAlways || (alike == Alike::kHalf && rng.Bernoulli(0.5))) {
      chance = rng.Bernoulli(p) ? 1.0 : 0.0;
    }
    int64_t passed = 0;
    for (int64_t r = 0; r < k; ++r) passed += rng.Bernoulli(chance);
    if (naive) {
      kinds[{1, 1}] += passed;
      kinds[{1, 0}] += k - passed;
    } else {
      ++kinds[{k, passed}];
    }
  }
  Stratum s;
  s.domain = "math";
  s.subtask = "math_easy";
  s.split = Split::kEasy;
  s.repeated = !naive;
  for (const auto& [kind, count] : kinds) {
    if (count > 0) s.kinds.push_back({kind.first, kind.second, 0, count});
  }
  return s;
}

// The interval of the mean accuracy over repeats covers the population's mean chance
// (the estimand: a new sample's expected accuracy) at 93% or more, for 3 to 100
// samples, 2 to 10 repeats, rates from 5% to 100% and repeats from independent to
// always alike. Verdicts counted as independent samples instead fall far below where
// repeats are alike: the clustering is what holds it.
TEST(StatsCoverageTest, TheIntervalOverRepeatsCoversTheMeanAccuracy) {
  constexpr int kDraws = 1000;
  Rng rng(29);
  std::string table;
  double naive_worst = 1;
  for (int64_t samples : {3, 10, 30, 100}) {
    for (int64_t k : {2, 5, 10}) {
      for (double p : {0.05, 0.5, 0.9, 1.0}) {
        for (Alike alike : {Alike::kIndependent, Alike::kHalf, Alike::kAlways}) {
          int held = 0, naive_held = 0;
          double width = 0;
          for (int draw = 0; draw < kDraws; ++draw) {
            const auto covers = [&](const Interval& i) {
              return i.low <= 100 * p + 1e-9 && 100 * p - 1e-9 <= i.high;
            };
            const Interval i = *SubtaskInterval(RepeatedRun(rng, samples, k, p, alike, false));
            held += covers(i);
            width += i.high - i.low;
            naive_held += covers(*SubtaskInterval(RepeatedRun(rng, samples, k, p, alike, true)));
          }
          const double coverage = static_cast<double>(held) / kDraws;
          const double naive = static_cast<double>(naive_held) / kDraws;
          table += fmt::format("samples {:>3} K {:>2} p {:.2f} {:<11}: {:.3f} (width {:5.1f}), "
                               "verdicts as samples {:.3f}\n",
                               samples, k, p,
                               alike == Alike::kIndependent ? "independent"
                               : alike == Alike::kHalf      ? "half alike"
                                                            : "alike",
                               coverage, width / kDraws, naive);
          EXPECT_GE(coverage, kMinCoverage)
              << "samples " << samples << " K " << k << " p " << p << " alike "
              << static_cast<int>(alike);
          if (alike == Alike::kAlways && samples >= 10 && p == 0.5) {
            naive_worst = std::min(naive_worst, naive);
          }
        }
      }
    }
  }
  std::printf("coverage of the 95%% interval of the mean accuracy over repeats:\n%s",
              table.c_str());
  EXPECT_LT(naive_worst, 0.8);
}

}  // namespace
}  // namespace structtest
