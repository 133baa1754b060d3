#include "report/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>

#include "core/rng.h"
#include "report/aggregates.h"

namespace structtest {

namespace {

// The aggregates of one set of per-stratum accuracies, in strata order.
Aggregates AggregatesOf(std::span<const Stratum> strata, const std::vector<double>& accuracy) {
  std::vector<SubtaskScore> scores;
  for (size_t s = 0; s < strata.size(); ++s) {
    if (strata[s].split) scores.push_back({strata[s].domain, *strata[s].split, accuracy[s]});
  }
  return ComputeAggregates(scores);
}

// The aggregates as named values ("easy:code", "overall_easy", ...), present ones only.
std::map<std::string, double> Named(const Aggregates& agg) {
  std::map<std::string, double> out;
  for (const auto& [domain, v] : agg.easy) {
    if (v) out["easy:" + domain] = *v;
  }
  for (const auto& [domain, v] : agg.hard) {
    if (v) out["hard:" + domain] = *v;
  }
  if (agg.overall_easy) out["overall_easy"] = *agg.overall_easy;
  if (agg.overall_hard) out["overall_hard"] = *agg.overall_hard;
  if (agg.all) out["all"] = *agg.all;
  return out;
}

Interval Containing(Interval i, double estimate) {
  return {std::min(i.low, estimate), std::max(i.high, estimate)};
}

// Files the interval of the aggregate named as Named() names it.
void Put(const std::string& name, Interval i, AggregateIntervals* out) {
  if (name.starts_with("easy:")) {
    out->easy[name.substr(5)] = i;
  } else if (name.starts_with("hard:")) {
    out->hard[name.substr(5)] = i;
  } else if (name == "overall_easy") {
    out->overall_easy = i;
  } else if (name == "overall_hard") {
    out->overall_hard = i;
  } else {
    out->all = i;
  }
}

// Every aggregate present, by name (as Named), with the weight of each stratum in it
// (0 for the strata it does not take in): aggregates.h's definition written as
// weights, a domain split being the mean of its subtasks, overall the mean of the four
// domains, All the mean of overall Easy and Hard. The estimates themselves come from
// ComputeAggregates; stats_oracle.py writes the weights out on its own, so a change of
// the definition that left these behind would fail the oracle test.
std::map<std::string, std::vector<double>> Weights(std::span<const Stratum> strata) {
  constexpr size_t kDomains = std::size(kPaperDomains);
  std::vector<size_t> members[kDomains][2];  // by domain, Easy / Hard
  for (size_t s = 0; s < strata.size(); ++s) {
    if (!strata[s].split) continue;
    const auto d = static_cast<size_t>(
        std::find(std::begin(kPaperDomains), std::end(kPaperDomains), strata[s].domain) -
        std::begin(kPaperDomains));
    if (d < kDomains) members[d][*strata[s].split == Split::kHard].push_back(s);
  }
  std::map<std::string, std::vector<double>> out;
  bool overall[2] = {true, true};
  for (size_t d = 0; d < kDomains; ++d) {
    for (size_t h = 0; h < 2; ++h) {
      if (members[d][h].empty()) {
        overall[h] = false;
        continue;
      }
      std::vector<double>& w = out[(h ? "hard:" : "easy:") + std::string(kPaperDomains[d])];
      w.assign(strata.size(), 0.0);
      for (size_t s : members[d][h]) w[s] = 1.0 / static_cast<double>(members[d][h].size());
    }
  }
  for (size_t h = 0; h < 2; ++h) {
    if (!overall[h]) continue;
    std::vector<double>& w = out[h ? "overall_hard" : "overall_easy"];
    w.assign(strata.size(), 0.0);
    for (size_t d = 0; d < kDomains; ++d) {
      const double n = static_cast<double>(kDomains * members[d][h].size());
      for (size_t s : members[d][h]) w[s] = 1.0 / n;
    }
  }
  if (overall[0] && overall[1]) {
    std::vector<double>& w = out["all"];
    w.assign(strata.size(), 0.0);
    for (size_t s = 0; s < strata.size(); ++s) {
      w[s] = (out["overall_easy"][s] + out["overall_hard"][s]) / 2;
    }
  }
  return out;
}

int64_t Passed(const Stratum& s, Run run) { return run == Run::kA ? s.PassedA() : s.PassedB(); }

double Accuracy(const Stratum& s, Run run) {
  return run == Run::kA ? s.AccuracyA() : s.AccuracyB();
}

Interval Percent(Interval i) { return {100.0 * i.low, 100.0 * i.high}; }

// Second moments of a stratum's two proportions, from its clusters (Miller 2024's
// clustered variance): var_a = sum_c (k_a,c - u_c p_a)^2 / N^2, var_b alike, and cov
// the cross products, a positive sum of them less 1/2 (not below 0): Newcombe's
// continuity correction of the correlation (1998, method 11; for single units the sum
// is (AD - BC) / N). `smoothed`: with half a pseudo-unit of each outcome (pass/fail in
// A x B) added, two units in all, and no correction.
struct Moments {
  double var_a = 0, var_b = 0, cov = 0;
};

Moments MomentsOf(const Stratum& s, bool smoothed) {
  const double add = smoothed ? 1.0 : 0.0;  // pseudo-passes of each run
  const double m = static_cast<double>(s.Units()) + 2 * add;
  const double pa = (static_cast<double>(s.PassedA()) + add) / m;
  const double pb = (static_cast<double>(s.PassedB()) + add) / m;
  double saa = 0, sbb = 0, sab = 0;
  for (const ClusterKind& k : s.kinds) {
    const double c = static_cast<double>(k.count), u = static_cast<double>(k.units);
    const double da = static_cast<double>(k.pass_a) - u * pa;
    const double db = static_cast<double>(k.pass_b) - u * pb;
    saa += c * da * da;
    sbb += c * db * db;
    sab += c * da * db;
  }
  if (smoothed) {
    // Half a unit each of (1,1), (1,0), (0,1) and (0,0).
    saa += (1 - pa) * (1 - pa) + pa * pa;
    sbb += (1 - pb) * (1 - pb) + pb * pb;
    sab += 0.5 * (1 - 2 * pa) * (1 - 2 * pb);
  } else if (sab > 0) {
    sab = std::max(0.0, sab - 0.5);
  }
  return {saa / (m * m), sbb / (m * m), sab / (m * m)};
}

// The correlation of two runs' weighted means: the smaller of the corrected plug-in one
// (0 where a run has no spread) and the smoothed one (stats.h says why).
double PairCorrelation(std::span<const Stratum> strata, const std::vector<double>& weight) {
  double r = 1;
  for (bool smoothed : {false, true}) {
    Moments sum;
    for (size_t s = 0; s < strata.size(); ++s) {
      if (weight[s] == 0 || strata[s].Units() == 0) continue;
      const Moments m = MomentsOf(strata[s], smoothed);
      const double w2 = weight[s] * weight[s];
      sum.var_a += w2 * m.var_a;
      sum.var_b += w2 * m.var_b;
      sum.cov += w2 * m.cov;
    }
    const double denominator = std::sqrt(sum.var_a * sum.var_b);
    r = std::min(r, denominator > 0 ? sum.cov / denominator : 0.0);
  }
  return std::clamp(r, -1.0, 1.0);
}

// The aggregates of a run's accuracies, by name.
std::map<std::string, double> Estimates(std::span<const Stratum> strata, Run run) {
  std::vector<double> accuracy;
  for (const Stratum& s : strata) accuracy.push_back(Accuracy(s, run));
  return Named(AggregatesOf(strata, accuracy));
}

// AggregateScoreIntervals, of the weights and estimates given.
AggregateIntervals RunIntervals(std::span<const Stratum> strata,
                                const std::map<std::string, std::vector<double>>& weights,
                                const std::map<std::string, double>& estimate, Run run,
                                double z) {
  std::vector<double> deff;
  for (const Stratum& s : strata) deff.push_back(DesignEffect(s, run));
  AggregateIntervals out;
  for (const auto& [name, weight] : weights) {
    // 1 / n_eff: the weighted mean's variance over p(1 - p).
    double inverse_n = 0;
    bool unknown = false;
    for (size_t s = 0; s < strata.size(); ++s) {
      if (weight[s] == 0) continue;
      const int64_t units = strata[s].Units();
      if (units == 0) {
        unknown = true;
        break;
      }
      inverse_n += weight[s] * weight[s] * deff[s] / static_cast<double>(units);
    }
    const double e = estimate.at(name);
    Interval i{0, 100};
    if (!unknown) {
      const double n_eff = 1 / inverse_n;
      const double p = std::clamp(e / 100, 0.0, 1.0);
      i = Percent(ContinuityCorrectedWilson(p * n_eff, n_eff, z));
    }
    Put(name, Containing(i, e), &out);
  }
  return out;
}

// MOVER's interval of b - a (percent) from the runs' intervals and their correlation.
Interval Mover(double a, Interval ia, double b, Interval ib, double r) {
  const double down_b = b - ib.low, up_b = ib.high - b;
  const double down_a = a - ia.low, up_a = ia.high - a;
  const double d = b - a;
  const double low = d - std::sqrt(std::max(0.0, down_b * down_b + up_a * up_a -
                                                     2 * r * down_b * up_a));
  const double high = d + std::sqrt(std::max(0.0, up_b * up_b + down_a * down_a -
                                                      2 * r * up_b * down_a));
  return Containing({std::max(-100.0, low), std::min(100.0, high)}, d);
}

double PearsonOf(std::span<const double> x, std::span<const double> y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::nan("");
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

bool Constant(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
}

}  // namespace

int64_t Stratum::Units() const {
  int64_t n = 0;
  for (const ClusterKind& k : kinds) n += k.units * k.count;
  return n;
}

int64_t Stratum::PassedA() const {
  int64_t n = 0;
  for (const ClusterKind& k : kinds) n += k.pass_a * k.count;
  return n;
}

int64_t Stratum::PassedB() const {
  int64_t n = 0;
  for (const ClusterKind& k : kinds) n += k.pass_b * k.count;
  return n;
}

double Stratum::AccuracyA() const {
  const int64_t n = Units();
  return n == 0 ? 0.0 : 100.0 * static_cast<double>(PassedA()) / static_cast<double>(n);
}

double Stratum::AccuracyB() const {
  const int64_t n = Units();
  return n == 0 ? 0.0 : 100.0 * static_cast<double>(PassedB()) / static_cast<double>(n);
}

std::optional<Interval> IntervalAt(const std::map<std::string, Interval>& intervals,
                                   const std::string& key) {
  const auto it = intervals.find(key);
  return it == intervals.end() ? std::nullopt : std::optional<Interval>(it->second);
}

Interval WilsonInterval(double k, double n, double z) {
  assert(n > 0 && k >= 0 && k <= n && "Wilson interval of an impossible proportion");
  const double p = k / n;
  const double z2 = z * z;
  const double denom = 1 + z2 / n;
  const double center = (p + z2 / (2 * n)) / denom;
  const double half = z / denom * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  // At k = 0 (k = n) the bound is 0 (1) exactly, which rounding would miss.
  return {k == 0 ? 0.0 : std::max(0.0, center - half), k == n ? 1.0 : std::min(1.0, center + half)};
}

Interval ContinuityCorrectedWilson(double k, double n, double z) {
  assert(n > 0 && k >= 0 && k <= n && "Wilson interval of an impossible proportion");
  const double low = k - 0.5 <= 0 ? 0.0 : WilsonInterval(k - 0.5, n, z).low;
  const double high = k + 0.5 >= n ? 1.0 : WilsonInterval(k + 0.5, n, z).high;
  return {low, high};
}

namespace {

// The Kish ratio of the clustered variance with two pseudo-clusters of the mean cluster
// size added, one passing throughout and one failing, times the CR1 factor (stats.h).
double PseudoClusterEffect(const Stratum& stratum, Run run) {
  const double n = static_cast<double>(stratum.Units());
  const double passed = static_cast<double>(Passed(stratum, run));
  double clusters = 0;
  for (const ClusterKind& k : stratum.kinds) clusters += static_cast<double>(k.count);
  const double size = n / clusters;
  const double p = (passed + size) / (n + 2 * size);
  double sum = size * (1 - p) * size * (1 - p) + size * p * size * p;
  for (const ClusterKind& k : stratum.kinds) {
    const double kp = static_cast<double>(run == Run::kA ? k.pass_a : k.pass_b);
    const double d = kp - static_cast<double>(k.units) * p;
    sum += static_cast<double>(k.count) * d * d;
  }
  const double deff = sum / ((n + 2 * size) * p * (1 - p)) * (clusters + 2) / (clusters + 1);
  return std::max(1.0, deff);
}

}  // namespace

double DesignEffect(const Stratum& stratum, Run run) {
  const int64_t n = stratum.Units();
  const int64_t passed = Passed(stratum, run);
  if (n == 0) return 1.0;
  if (stratum.repeated) return PseudoClusterEffect(stratum, run);
  const bool singletons = std::all_of(stratum.kinds.begin(), stratum.kinds.end(),
                                      [](const ClusterKind& k) { return k.units == 1; });
  if (singletons) return 1.0;
  // All alike: the clustered variance is 0 and says nothing of how alike a cluster's
  // samples are; the pseudo-clusters give the interval the width of about as many
  // samples as there are clusters, not of N independent ones.
  if (passed == 0 || passed == n) return PseudoClusterEffect(stratum, run);
  const double p = static_cast<double>(passed) / static_cast<double>(n);
  double sum = 0;
  for (const ClusterKind& k : stratum.kinds) {
    const double kp = static_cast<double>(run == Run::kA ? k.pass_a : k.pass_b);
    const double d = kp - static_cast<double>(k.units) * p;
    sum += static_cast<double>(k.count) * d * d;
  }
  return std::max(1.0, sum / (static_cast<double>(n) * p * (1 - p)));
}

double PassAtK(int64_t n, int64_t c, int64_t k) {
  assert(0 <= c && c <= n && 1 <= k && k <= n && "pass@k of an impossible count");
  if (n - c < k) return 1.0;
  double none = 1.0;  // C(n - c, k) / C(n, k)
  for (int64_t i = n - c + 1; i <= n; ++i) {
    none *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
  }
  return 1.0 - none;
}

double PassHatK(int64_t n, int64_t c, int64_t k) {
  assert(0 <= c && c <= n && 1 <= k && k <= n && "pass^k of an impossible count");
  if (c < k) return 0.0;
  double all = 1.0;
  for (int64_t i = 0; i < k; ++i) {
    all *= static_cast<double>(c - i) / static_cast<double>(n - i);
  }
  return all;
}

std::optional<Interval> SubtaskInterval(const Stratum& stratum, Run run) {
  const int64_t n = stratum.Units();
  if (n == 0) return std::nullopt;
  const double deff = DesignEffect(stratum, run);
  const double n_eff = static_cast<double>(n) / deff;
  const double k_eff = static_cast<double>(Passed(stratum, run)) / deff;
  return Percent(ContinuityCorrectedWilson(k_eff, n_eff));
}

Interval PercentileInterval(std::vector<double> values, double confidence) {
  assert(!values.empty() && "a percentile of nothing");
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double h = (static_cast<double>(values.size()) - 1) * q;
    const auto lo = static_cast<size_t>(std::floor(h));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  const double tail = (1 - confidence) / 2;
  return {at(tail), at(1 - tail)};
}

AggregateIntervals AggregateScoreIntervals(std::span<const Stratum> strata, Run run,
                                           double z) {
  return RunIntervals(strata, Weights(strata), Estimates(strata, run), run, z);
}

PairedIntervals PairedDifferenceIntervals(std::span<const Stratum> strata, double z) {
  PairedIntervals out;
  for (const Stratum& s : strata) {
    const std::optional<Interval> a = SubtaskInterval(s, Run::kA);
    const std::optional<Interval> b = SubtaskInterval(s, Run::kB);
    if (!a || !b) {
      out.strata.push_back(std::nullopt);
      continue;
    }
    const Stratum one[] = {s};
    out.strata.push_back(
        Mover(s.AccuracyA(), *a, s.AccuracyB(), *b, PairCorrelation(one, {1.0})));
  }
  const std::map<std::string, std::vector<double>> weights = Weights(strata);
  const std::map<std::string, double> est_a = Estimates(strata, Run::kA);
  const std::map<std::string, double> est_b = Estimates(strata, Run::kB);
  const AggregateIntervals ci_a = RunIntervals(strata, weights, est_a, Run::kA, z);
  const AggregateIntervals ci_b = RunIntervals(strata, weights, est_b, Run::kB, z);
  const auto interval = [](const AggregateIntervals& ci, const std::string& name) {
    if (name.starts_with("easy:")) return ci.easy.at(name.substr(5));
    if (name.starts_with("hard:")) return ci.hard.at(name.substr(5));
    if (name == "overall_easy") return *ci.overall_easy;
    if (name == "overall_hard") return *ci.overall_hard;
    return *ci.all;
  };
  for (const auto& [name, weight] : weights) {
    Put(name,
        Mover(est_a.at(name), interval(ci_a, name), est_b.at(name), interval(ci_b, name),
              PairCorrelation(strata, weight)),
        &out.aggregates);
  }
  return out;
}

double McNemarExactP(int64_t a_only, int64_t b_only) {
  const int64_t n = a_only + b_only;
  if (n == 0) return 1.0;
  const int64_t m = std::min(a_only, b_only);
  // P(X <= m) for X ~ Binomial(n, 1/2), summed in log space (0.5^n underflows).
  const double log_total = std::lgamma(static_cast<double>(n) + 1) - n * std::log(2.0);
  std::vector<double> logs;
  for (int64_t i = 0; i <= m; ++i) {
    logs.push_back(log_total - std::lgamma(static_cast<double>(i) + 1) -
                   std::lgamma(static_cast<double>(n - i) + 1));
  }
  const double top = *std::max_element(logs.begin(), logs.end());
  double sum = 0;
  for (double l : logs) sum += std::exp(l - top);
  return std::min(1.0, 2 * std::exp(top + std::log(sum)));
}

std::vector<double> HolmAdjust(std::span<const double> p) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(p.size());
  double running = 0;
  for (size_t j = 0; j < order.size(); ++j) {
    const double v = std::min(1.0, static_cast<double>(p.size() - j) * p[order[j]]);
    running = std::max(running, v);
    out[order[j]] = running;
  }
  return out;
}

std::optional<Correlation> Pearson(std::span<const double> x, std::span<const double> y,
                                   double z) {
  assert(x.size() == y.size() && "Pearson of columns of different lengths");
  if (x.size() < 3 || Constant(x) || Constant(y)) return std::nullopt;
  Correlation c;
  c.n = static_cast<int64_t>(x.size());
  c.value = PearsonOf(x, y);
  // At |r| = 1 Fisher's z is infinite: no interval rather than one of no width.
  if (c.n >= 4 && std::abs(c.value) < 1) {
    const double fz = std::atanh(c.value);
    const double se = 1 / std::sqrt(static_cast<double>(c.n) - 3);
    c.ci = Interval{std::tanh(fz - z * se), std::tanh(fz + z * se)};
  }
  return c;
}

std::vector<double> AverageRanks(std::span<const double> v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t t = i; t <= j; ++t) ranks[order[t]] = rank;
    i = j + 1;
  }
  return ranks;
}

std::optional<Correlation> Spearman(std::span<const double> x, std::span<const double> y,
                                    const std::string& stream,
                                    const BootstrapOptions& options) {
  assert(x.size() == y.size() && "Spearman of columns of different lengths");
  if (x.size() < 3 || Constant(x) || Constant(y)) return std::nullopt;
  Correlation c;
  c.n = static_cast<int64_t>(x.size());
  c.value = PearsonOf(AverageRanks(x), AverageRanks(y));
  // Every resample of a perfect ranking is perfect too, and a handful of models has
  // only a few resamples: either interval would claim a certainty the data lack.
  if (c.n < kMinBootstrapPairs || std::abs(c.value) == 1) return c;
  Rng rng = Rng(options.seed).Fork(stream);
  std::vector<double> values, rx(x.size()), ry(y.size());
  for (int r = 0; r < options.replicates; ++r) {
    for (size_t i = 0; i < x.size(); ++i) {
      const auto j = static_cast<size_t>(rng.UniformInt(0, c.n - 1));
      rx[i] = x[j];
      ry[i] = y[j];
    }
    if (Constant(rx) || Constant(ry)) continue;
    values.push_back(PearsonOf(AverageRanks(rx), AverageRanks(ry)));
  }
  c.replicates_used = static_cast<int>(values.size());
  if (!values.empty()) {
    c.ci = Containing(PercentileInterval(std::move(values), options.confidence), c.value);
  }
  return c;
}

}  // namespace structtest
