#include "report/aggregates.h"

namespace structtest {

namespace {

std::optional<double> Mean(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

Aggregates ComputeAggregates(std::span<const SubtaskScore> scores) {
  Aggregates agg;
  std::map<std::string_view, std::vector<double>> easy, hard;
  for (const SubtaskScore& s : scores) {
    (s.split == Split::kEasy ? easy : hard)[s.domain].push_back(s.accuracy);
  }
  std::vector<double> domain_easy, domain_hard;
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    const auto e = easy.find(d);
    const auto h = hard.find(d);
    agg.easy[domain] = e != easy.end() ? Mean(e->second) : std::nullopt;
    agg.hard[domain] = h != hard.end() ? Mean(h->second) : std::nullopt;
    if (agg.easy[domain]) {
      domain_easy.push_back(*agg.easy[domain]);
    } else {
      agg.missing_easy.push_back(domain);
    }
    if (agg.hard[domain]) {
      domain_hard.push_back(*agg.hard[domain]);
    } else {
      agg.missing_hard.push_back(domain);
    }
  }
  if (agg.missing_easy.empty()) agg.overall_easy = Mean(domain_easy);
  if (agg.missing_hard.empty()) agg.overall_hard = Mean(domain_hard);
  if (agg.overall_easy && agg.overall_hard) {
    agg.all = (*agg.overall_easy + *agg.overall_hard) / 2;
  }
  return agg;
}

}  // namespace structtest
