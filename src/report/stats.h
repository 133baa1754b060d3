// The statistics of `report`, `compare` and `correlate`: Wilson intervals for a
// subtask's proportion, a stratified cluster bootstrap of the paper's aggregates and of
// paired differences between runs, McNemar's exact test with Holm's correction, and
// Pearson / Spearman correlations with their intervals. Pure functions of their inputs:
// the bootstrap draws from the project's seeded Rng (core/rng.h), one stream per
// stratum, so a fixed seed gives the same figures on every machine.
//
// Clusters follow "Adding Error Bars to Evals" (Miller 2024): samples made from one
// source item (the test inputs of one MBPP task, the formats of one GSM8K question) are
// not independent, so they are resampled together. A stratum is one subtask; a
// bootstrap replicate draws, within every stratum, as many clusters as it has, with
// replacement, and recomputes the aggregates from the replicate's subtask accuracies.
// The work is the number of clusters times the replicates (about 28 million draws for
// a full run at 2000 replicates); no per-sample object is touched.
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
// 2000 replicates put the Monte Carlo error of a 95% percentile bound at about 1-2% of
// the interval's width (Efron & Tibshirani ch. 19), and cost about 0.1 s for a full run.
inline constexpr int kBootstrapReplicates = 2000;
inline constexpr uint64_t kBootstrapSeed = 12;  // issue 12; any fixed value would do

struct Interval {
  double low = 0;
  double high = 0;
};

// Wilson's score interval of the proportion k/n, as fractions in [0, 1]. `n` may be an
// effective, non-integer sample size (n / design effect, with k scaled alike).
// REQUIRES: n > 0, 0 <= k <= n.
Interval WilsonInterval(double k, double n, double z = kZ95);

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

  int64_t Units() const;
  int64_t PassedA() const;
  int64_t PassedB() const;
  // Percent; 0 when there are no units (as Tally::Accuracy).
  double AccuracyA() const;
  double AccuracyB() const;
};

// The design effect of run A's proportion (Kish): its variance under cluster sampling,
// sum over clusters of (k_c - n_c p)^2 / N^2 (Miller 2024's clustered
// standard error), over its variance
// p(1-p)/N under independent sampling. Never below 1; exactly 1 when every cluster is
// one unit or p is 0 or 1.
double DesignEffect(const Stratum& stratum);

// A subtask's 95% interval in percent: Wilson with the effective sample size N / design
// effect. nullopt when it has no units.
std::optional<Interval> SubtaskInterval(const Stratum& stratum);

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

// Run A's aggregates from the exact variance of their weighted means: every aggregate
// is a fixed linear combination of subtask accuracies (domain = mean of its subtasks,
// overall = mean of domains, All = their mean), so its variance is the weighted sum of
// the subtasks' clustered variances (p(1-p)/n times the design effect, Miller 2024);
// the interval is the estimate +- z standard errors, within [0, 100]. It costs nothing
// per sample, where the bootstrap below draws kBootstrapReplicates clusters per
// cluster (about 7 us per sample): the reports use this one.
AggregateIntervals ExactVarianceAggregates(std::span<const Stratum> strata, double z = 1.959964);

// Stratified cluster bootstrap of run A's aggregates over `strata` (in the order the
// aggregates add them). Stratum s draws from Rng(seed).Fork(domain + "/" + subtask): a
// replicate draws its clusters with UniformInt(0, C - 1), C draws per replicate,
// replicates in order; clusters are numbered kind by kind, kinds sorted by (units,
// pass_a, pass_b). scripts/stats_oracle.py does the same in python.
AggregateIntervals BootstrapAggregates(std::span<const Stratum> strata,
                                       const BootstrapOptions& options = {});

struct PairedIntervals {
  std::vector<std::optional<Interval>> strata;  // of B - A, per stratum; none without units
  AggregateIntervals aggregates;                // of the aggregates' B - A
};

// Paired bootstrap of B - A: the same draws as BootstrapAggregates, each drawn cluster
// carrying both runs' passes, so the interval reflects the pairing.
PairedIntervals BootstrapDifferences(std::span<const Stratum> strata,
                                     const BootstrapOptions& options = {});

// McNemar's exact test: the two-sided binomial p-value (1/2, doubled, at most 1) of
// `a_only` units passing only in A against `b_only` passing only in B. 1 when both are 0.
double McNemarExactP(int64_t a_only, int64_t b_only);

// Holm's step-down adjustment of p-values for the family given, in the given order.
std::vector<double> HolmAdjust(std::span<const double> p);

struct Correlation {
  int64_t n = 0;
  double value = 0;
  // Pearson: Fisher's z interval (needs n >= 4); Spearman: percentile bootstrap.
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
