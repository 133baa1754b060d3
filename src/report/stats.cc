#include "report/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>

#include "core/rng.h"
#include "report/aggregates.h"

namespace structtest {

namespace {

// The clusters of a stratum, one entry each, in the documented order.
struct Expanded {
  std::vector<int64_t> units, pass_a, pass_b;
};

Expanded Expand(const Stratum& s) {
  std::vector<ClusterKind> kinds = s.kinds;
  std::sort(kinds.begin(), kinds.end(), [](const ClusterKind& x, const ClusterKind& y) {
    return std::tie(x.units, x.pass_a, x.pass_b) < std::tie(y.units, y.pass_a, y.pass_b);
  });
  Expanded e;
  for (const ClusterKind& k : kinds) {
    for (int64_t i = 0; i < k.count; ++i) {
      e.units.push_back(k.units);
      e.pass_a.push_back(k.pass_a);
      e.pass_b.push_back(k.pass_b);
    }
  }
  return e;
}

// Per stratum, per replicate: the accuracy (percent) of A and, when paired, of B.
struct Replicates {
  std::vector<std::vector<double>> a, b;
};

Replicates Resample(std::span<const Stratum> strata, const BootstrapOptions& options,
                    bool paired) {
  assert(options.replicates > 0 && "a bootstrap needs replicates");
  const auto reps = static_cast<size_t>(options.replicates);
  Replicates out;
  for (const Stratum& s : strata) {
    std::vector<double>& a = out.a.emplace_back(reps, 0.0);
    std::vector<double>& b = out.b.emplace_back(paired ? reps : 0, 0.0);
    const Expanded e = Expand(s);
    const int64_t clusters = static_cast<int64_t>(e.units.size());
    if (clusters == 0) continue;  // no units: a constant 0, as its estimate
    Rng rng = Rng(options.seed).Fork(s.domain + "/" + s.subtask);
    // Rng::UniformInt(0, clusters - 1), its rejection bound computed once: the same
    // draws, one division each instead of two. The clusters packed side by side, so a
    // draw touches one cache line.
    const auto n = static_cast<uint64_t>(clusters);
    const uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    struct Packed {
      int32_t units, pass_a, pass_b;
    };
    std::vector<Packed> packed(static_cast<size_t>(clusters));
    for (size_t i = 0; i < packed.size(); ++i) {
      packed[i] = {static_cast<int32_t>(e.units[i]), static_cast<int32_t>(e.pass_a[i]),
                   static_cast<int32_t>(e.pass_b[i])};
    }
    for (size_t r = 0; r < reps; ++r) {
      int64_t units = 0, pass_a = 0, pass_b = 0;
      for (int64_t c = 0; c < clusters; ++c) {
        uint64_t x;
        do {
          x = rng.Next();
        } while (x >= limit);
        const Packed& p = packed[x % n];
        units += p.units;
        pass_a += p.pass_a;
        pass_b += p.pass_b;
      }
      a[r] = 100.0 * static_cast<double>(pass_a) / static_cast<double>(units);
      if (paired) b[r] = 100.0 * static_cast<double>(pass_b) / static_cast<double>(units);
    }
  }
  return out;
}

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

// Percentile intervals of the named aggregate values over the replicates; `diff`: of
// B - A.
AggregateIntervals IntervalsOf(std::span<const Stratum> strata, const Replicates& reps,
                               const BootstrapOptions& options, bool diff) {
  std::vector<double> est_a, est_b;
  for (const Stratum& s : strata) {
    est_a.push_back(s.AccuracyA());
    est_b.push_back(s.AccuracyB());
  }
  std::map<std::string, double> estimate = Named(AggregatesOf(strata, est_a));
  if (diff) {
    const std::map<std::string, double> b = Named(AggregatesOf(strata, est_b));
    for (auto& [name, v] : estimate) v = b.at(name) - v;
  }
  std::map<std::string, std::vector<double>> values;
  std::vector<double> acc_a(strata.size()), acc_b(strata.size());
  for (size_t r = 0; r < static_cast<size_t>(options.replicates); ++r) {
    for (size_t s = 0; s < strata.size(); ++s) {
      acc_a[s] = reps.a[s][r];
      if (diff) acc_b[s] = reps.b[s][r];
    }
    std::map<std::string, double> named = Named(AggregatesOf(strata, acc_a));
    if (diff) {
      const std::map<std::string, double> b = Named(AggregatesOf(strata, acc_b));
      for (auto& [name, v] : named) v = b.at(name) - v;
    }
    for (const auto& [name, v] : named) values[name].push_back(v);
  }
  AggregateIntervals out;
  for (auto& [name, v] : values) {
    const Interval i = Containing(PercentileInterval(std::move(v), options.confidence),
                                  estimate.at(name));
    Put(name, i, &out);
  }
  return out;
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
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

double DesignEffect(const Stratum& stratum) {
  const double n = static_cast<double>(stratum.Units());
  const int64_t passed = stratum.PassedA();
  if (n == 0 || passed == 0 || passed == stratum.Units()) return 1.0;
  const bool singletons = std::all_of(stratum.kinds.begin(), stratum.kinds.end(),
                                      [](const ClusterKind& k) { return k.units == 1; });
  if (singletons) return 1.0;
  const double p = static_cast<double>(passed) / n;
  double sum = 0;
  for (const ClusterKind& k : stratum.kinds) {
    const double d = static_cast<double>(k.pass_a) - static_cast<double>(k.units) * p;
    sum += static_cast<double>(k.count) * d * d;
  }
  return std::max(1.0, sum / (n * p * (1 - p)));
}

std::optional<Interval> SubtaskInterval(const Stratum& stratum) {
  const int64_t n = stratum.Units();
  if (n == 0) return std::nullopt;
  const double deff = DesignEffect(stratum);
  const double n_eff = static_cast<double>(n) / deff;
  const double k_eff = static_cast<double>(stratum.PassedA()) / deff;
  const Interval w = WilsonInterval(k_eff, n_eff);
  return Interval{100.0 * w.low, 100.0 * w.high};
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

AggregateIntervals ExactVarianceAggregates(std::span<const Stratum> strata, double z) {
  std::vector<double> est;
  std::vector<double> variance;  // percent squared
  for (const Stratum& s : strata) {
    est.push_back(s.AccuracyA());
    const int64_t n = s.Units();
    const double p = n == 0 ? 0.0 : static_cast<double>(s.PassedA()) / static_cast<double>(n);
    variance.push_back(n == 0 ? 0.0
                              : 1e4 * p * (1 - p) / static_cast<double>(n) * DesignEffect(s));
  }
  const std::map<std::string, double> estimate = Named(AggregatesOf(strata, est));
  // The aggregates are linear in the subtask accuracies: stratum s's weight in each is
  // what a unit more of its accuracy adds.
  std::map<std::string, double> agg_variance;
  for (size_t s = 0; s < strata.size(); ++s) {
    std::vector<double> bumped = est;
    bumped[s] += 1;
    for (const auto& [name, v] : Named(AggregatesOf(strata, bumped))) {
      const double w = v - estimate.at(name);
      agg_variance[name] += w * w * variance[s];
    }
  }
  AggregateIntervals out;
  for (const auto& [name, e] : estimate) {
    const double half = z * std::sqrt(agg_variance[name]);
    const Interval i{std::max(0.0, e - half), std::min(100.0, e + half)};
    Put(name, i, &out);
  }
  return out;
}

AggregateIntervals BootstrapAggregates(std::span<const Stratum> strata,
                                       const BootstrapOptions& options) {
  return IntervalsOf(strata, Resample(strata, options, /*paired=*/false), options,
                     /*diff=*/false);
}

PairedIntervals BootstrapDifferences(std::span<const Stratum> strata,
                                     const BootstrapOptions& options) {
  const Replicates reps = Resample(strata, options, /*paired=*/true);
  PairedIntervals out;
  for (size_t s = 0; s < strata.size(); ++s) {
    if (strata[s].Units() == 0) {
      out.strata.push_back(std::nullopt);
      continue;
    }
    std::vector<double> d(reps.a[s].size());
    for (size_t r = 0; r < d.size(); ++r) d[r] = reps.b[s][r] - reps.a[s][r];
    out.strata.push_back(Containing(PercentileInterval(std::move(d), options.confidence),
                                    strata[s].AccuracyB() - strata[s].AccuracyA()));
  }
  out.aggregates = IntervalsOf(strata, reps, options, /*diff=*/true);
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
  if (c.n >= 4) {
    if (std::abs(c.value) == 1) {
      c.ci = Interval{c.value, c.value};
    } else {
      const double fz = std::atanh(c.value);
      const double se = 1 / std::sqrt(static_cast<double>(c.n) - 3);
      c.ci = Interval{std::tanh(fz - z * se), std::tanh(fz + z * se)};
    }
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
