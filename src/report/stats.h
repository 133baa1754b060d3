// The statistics of `report`, `compare` and `correlate`: 95% intervals for a subtask's
// proportion, for the paper's aggregates of a run (weighted means of subtask
// accuracies) and for paired differences between two runs; McNemar's exact test with
// Holm's correction; Pearson / Spearman correlations with their intervals. Pure
// functions of their inputs: Spearman's bootstrap draws from the project's seeded Rng
// (core/rng.h), so a fixed seed gives the same figures on every machine.
//
// The intervals are score intervals, not Wald intervals or bootstraps, because a run
// often has few samples per subtask and accuracies at 0% or 100%, where p(1-p)/n and
// every resample of the data have no spread at all: an interval of no width there
// claims a certainty that one sample cannot give. Wilson's score interval with a
// continuity correction holds the truth about 95% of the time or more from n = 1 on.
// An aggregate gets the same interval on its effective sample size, and a difference of
// two runs is recovered from the two runs' intervals (MOVER). stats_test checks the
// coverage of all three: exactly for one subtask, by simulation for the aggregates and
// differences of runs of the paper's 19 subtasks at n = 1, 3, 10 and 100 samples (and
// 2, 3 and 5 times that) per subtask and p = 0, 0.05, 0.5, 0.95 and 1.
//
// Clusters follow "Adding Error Bars to Evals" (Miller 2024): samples made from one
// source item (the test inputs of one MBPP task, the formats of one GSM8K question) are
// not independent, so a subtask's sample size is divided by its design effect. A run
// that asks each sample K times (run --repeats) has its units (verdicts) in clusters of
// K or more (a sample's repeats, within its source item's): the sample, not the
// verdict, is what was drawn, and the interval is of the mean accuracy over repeats
// (Miller 2024, section 3: resampling within a question). stats_test checks its
// coverage by simulation too.
#ifndef STRUCTTEST_REPORT_STATS_H_
#define STRUCTTEST_REPORT_STATS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace structtest {

// The normal quantile of 0.975: two-sided 95%.
inline constexpr double kZ95 = 1.959963984540054;
// Spearman's percentile bootstrap: 2000 replicates put the Monte Carlo error of a 95%
// bound at about 1-2% of the interval's width (Efron & Tibshirani ch. 19).
inline constexpr int kBootstrapReplicates = 2000;
inline constexpr uint64_t kBootstrapSeed = 12;  // issue 12; any fixed value would do

struct Interval {
  double low = 0;
  double high = 0;
};

// Wilson's score interval of the proportion k/n, as fractions in [0, 1]: the p whose
// score test (k/n - p)^2 <= z^2 p (1 - p) / n accepts. `n` may be an effective,
// non-integer sample size (n / design effect, with k scaled alike).
// REQUIRES: n > 0, 0 <= k <= n.
Interval WilsonInterval(double k, double n, double z = kZ95);

// Wilson's interval with continuity correction (Newcombe 1998, method 4): the p with
// |k/n - p| - 1/(2n) <= z sqrt(p (1 - p) / n), that is each bound is Wilson's bound of
// k/n moved half a unit outwards (within [0, 1]). Its exact coverage is at least 94.6%
// at every p for n = 1, 3, 10 and 100, where plain Wilson's falls to 79-90% (p = 0.05
// at n = 3: 86%); stats_test enumerates it.
// REQUIRES: n > 0, 0 <= k <= n.
Interval ContinuityCorrectedWilson(double k, double n, double z = kZ95);

// The interval of `key` in `intervals`; nullopt when it has none.
std::optional<Interval> IntervalAt(const std::map<std::string, Interval>& intervals,
                                   const std::string& key);

// `count` clusters of `units` units each (samples; tasks where a subtask counts tasks),
// `pass_a` of which pass in run A and `pass_b` in run B (paired statistics only).
struct ClusterKind {
  int64_t units = 1;
  int64_t pass_a = 0;
  int64_t pass_b = 0;
  int64_t count = 0;
};

// A subtask as the statistics see it.
struct Stratum {
  std::string domain;
  std::string subtask;
  // The split it enters the aggregates under; nullopt: it enters none (unknown
  // subtask, nothing scored).
  std::optional<Split> split;
  std::vector<ClusterKind> kinds;  // any order; units >= 1, count >= 1
  // The units are repeats (run --repeats): a cluster holds every repeat of its samples
  // (DesignEffect estimates its variance another way).
  bool repeated = false;

  int64_t Units() const;
  int64_t PassedA() const;
  int64_t PassedB() const;
  // Percent; 0 when there are no units (as Tally::Accuracy).
  double AccuracyA() const;
  double AccuracyB() const;
};

// Which run's passes a statistic is of.
enum class Run { kA, kB };

// The design effect of a run's proportion (Kish): its variance under cluster sampling,
// sum over clusters of (k_c - n_c p)^2 / N^2 (Miller 2024's clustered standard error),
// over its variance p(1-p)/N under independent sampling. Never below 1; exactly 1 when
// every cluster is one unit (and the stratum is not `repeated`).
//
// A repeated stratum's (its C clusters hold a sample's repeats, or a source item's
// samples' repeats), and that of clusters at p = 0 or 1 (where the clustered variance
// is 0 and 1,319 samples of 10 questions would count as 1,319), is the Kish ratio of its clustered variance with two pseudo-clusters
// of the mean cluster size added, one passing throughout and one failing throughout
// (p = (passes + size) / (N + 2 size)), times the CR1 factor (C + 2) / (C + 1). The
// plain clustered variance is too small where few clusters carry most of the spread:
// samples that always pass among samples that pass at random, missing from a draw,
// leave a variance of the rest that claims far too much (coverage fell to 80% at 30
// samples of 10 repeats, 5% rate, half the samples always alike); the pseudo-clusters
// (Agresti and Coull's added successes and failures, given to clusters) keep it at 94%
// or more in stats_test's simulation, and at 0% or 100% they give the interval the
// width of about C samples rather than of N verdicts. Independent repeats still
// narrow the interval as K grows.
double DesignEffect(const Stratum& stratum, Run run = Run::kA);

// A subtask's 95% interval in percent: ContinuityCorrectedWilson with the effective
// sample size N / design effect (passes scaled alike). nullopt when it has no units.
std::optional<Interval> SubtaskInterval(const Stratum& stratum, Run run = Run::kA);

struct BootstrapOptions {
  int replicates = kBootstrapReplicates;
  uint64_t seed = kBootstrapSeed;
  double confidence = 0.95;
};

// The percentile interval of `values` (linear interpolation between order statistics,
// numpy's default), in their unit. REQUIRES: values not empty.
Interval PercentileInterval(std::vector<double> values, double confidence);

// Intervals of the paper's aggregates (aggregates.h), in percent, present where the
// aggregate is. Each contains its estimate.
struct AggregateIntervals {
  std::map<std::string, Interval> easy, hard;  // by domain
  std::optional<Interval> overall_easy, overall_hard, all;
};

// Run A's aggregates (or B's): each is a weighted mean sum_s w_s p_s of subtask
// accuracies (aggregates.h: domain = mean of its subtasks, overall = mean of domains,
// All = their mean). Its interval is ContinuityCorrectedWilson of the estimate on the
// effective sample size n_eff = 1 / sum_s (w_s^2 deff_s / N_s): the n at which one
// proportion would have the variance the weighted mean has when every subtask is at the
// same p (the stratified Wilson interval; N_s the subtask's units, deff_s its design
// effect). So an aggregate of one subtask has that subtask's interval, one at 0% or
// 100% has an upper or lower bound away from it, and n_eff, not the number of
// subtasks, sets the width. An aggregate that takes in a subtask without units spans
// [0, 100]. Each interval contains its estimate.
AggregateIntervals AggregateScoreIntervals(std::span<const Stratum> strata,
                                           Run run = Run::kA, double z = kZ95);

struct PairedIntervals {
  std::vector<std::optional<Interval>> strata;  // of B - A, per stratum; none without units
  AggregateIntervals aggregates;                // of the aggregates' B - A
};

// Intervals of B - A, in percentage points, for every stratum and aggregate, by the
// method of variance estimates recovery (MOVER, Newcombe's hybrid score interval for
// paired proportions, 1998 methods 10 and 11, Zou & Donner 2008) from the two runs' own
// intervals: with estimates a and b, intervals [l_a, u_a] and [l_b, u_b] (each
// AggregateScoreIntervals', or SubtaskInterval for a stratum) and the correlation r of
// the two estimates,
//   low  = (b - a) - sqrt((b - l_b)^2 + (u_a - a)^2 - 2 r (b - l_b)(u_a - a))
//   high = (b - a) + sqrt((u_b - b)^2 + (a - l_a)^2 - 2 r (u_b - b)(a - l_a))
// within [-100, 100]. The pairing enters through r = sum_s w_s^2 cov_s /
// sqrt(sum_s w_s^2 var_a,s * sum_s w_s^2 var_b,s), from the clusters' passes in both
// runs. r is the smaller of two estimates: the plug-in one with Newcombe's continuity
// correction (a stratum's positive covariance reduced by half a unit, as method 11
// reduces AD - BC by n/2; 0 where a run has no spread), and the same with half a
// pseudo-unit added to each of the four outcomes (pass/fail in A x B) of every
// stratum. Two runs that agree on a few samples by chance would otherwise get an r
// near 1 and an interval of almost no width; a negative r, which widens the interval,
// is kept. For one subtask this is Newcombe's method 11 but for the smoothed bound on
// r, which keeps its exact coverage at 93% or more at n = 1 to 10 wherever the runs
// differ by up to 50 points and their verdicts are independent or correlated
// (stats_test enumerates it; runs that disagree wherever they can fall to 79% at n = 1).
// A stratum without units has no interval.
PairedIntervals PairedDifferenceIntervals(std::span<const Stratum> strata, double z = kZ95);

// pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code"): the
// chance that at least one of k answers drawn without replacement from n answers to a
// sample, c of which pass, passes; the unbiased estimator 1 - C(n - c, k) / C(n, k),
// computed as 1 - prod_{i = n - c + 1}^{n} (1 - k / i) (no large binomials).
// REQUIRES: 0 <= c <= n, 1 <= k <= n.
double PassAtK(int64_t n, int64_t c, int64_t k);
// pass^k (Yao et al. 2024, tau-bench): the chance that all k such answers pass, the
// unbiased C(c, k) / C(n, k) = prod_{i = 0}^{k - 1} (c - i) / (n - i).
// REQUIRES: 0 <= c <= n, 1 <= k <= n.
double PassHatK(int64_t n, int64_t c, int64_t k);

// McNemar's exact test: the two-sided binomial p-value (1/2, doubled, at most 1) of
// `a_only` units passing only in A against `b_only` passing only in B. 1 when both are 0.
double McNemarExactP(int64_t a_only, int64_t b_only);

// Holm's step-down adjustment of p-values for the family given, in the given order.
std::vector<double> HolmAdjust(std::span<const double> p);

// Spearman's bootstrap interval needs this many pairs: with fewer, the resamples take a
// handful of values (at 3 pairs, rho is -1, -0.5, 0.5 or 1) and the percentiles are
// those values, an interval of no width or with the estimate at one end.
inline constexpr int64_t kMinBootstrapPairs = 5;

struct Correlation {
  int64_t n = 0;
  double value = 0;
  // Pearson: Fisher's z interval (needs n >= 4 and |r| < 1); Spearman: percentile
  // bootstrap (needs n >= kMinBootstrapPairs and |rho| < 1). nullopt otherwise.
  std::optional<Interval> ci;
  int replicates_used = 0;  // Spearman: replicates whose ranks were not all tied
};

// Pearson's r of the pairs (x[i], y[i]). nullopt when n < 3 or a column is constant.
// REQUIRES: x.size() == y.size().
std::optional<Correlation> Pearson(std::span<const double> x, std::span<const double> y,
                                   double z = kZ95);

// Ranks from 1, ties given their mean rank.
std::vector<double> AverageRanks(std::span<const double> v);

// Spearman's rho (Pearson's r of the average ranks) with a percentile bootstrap interval:
// replicates resample the n pairs (UniformInt(0, n - 1), n draws each, from
// Rng(seed).Fork(stream)); replicates whose resampled x or y is constant are skipped.
std::optional<Correlation> Spearman(std::span<const double> x, std::span<const double> y,
                                    const std::string& stream,
                                    const BootstrapOptions& options = {});

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_STATS_H_
