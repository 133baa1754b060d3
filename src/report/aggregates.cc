#include "report/aggregates.h"

#include <fmt/format.h>

#include "tasks/registry.h"

namespace structtest {

namespace {

// The registry's subtasks of a domain and split, counted once.
int Defined(std::string_view domain, Split split) {
  static const std::map<std::pair<std::string_view, Split>, int> defined = [] {
    std::map<std::pair<std::string_view, Split>, int> out;
    for (const TaskFamily* f : Families()) {
      for (const SubtaskSpec& s : f->subtasks) ++out[{f->domain, s.split}];
    }
    return out;
  }();
  const auto it = defined.find({domain, split});
  return it == defined.end() ? 0 : it->second;
}

void Add(const SubtaskCount& part, SubtaskCount* total) {
  total->scored += part.scored;
  total->of += part.of;
}

std::optional<double> Mean(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

std::string FromSubtasks(const SubtaskCount& count) {
  return count.complete() ? ""
                          : fmt::format("from {} of {} subtasks", count.scored, count.of);
}

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
    const SubtaskCount ce{e != easy.end() ? static_cast<int>(e->second.size()) : 0,
                          Defined(d, Split::kEasy)};
    const SubtaskCount ch{h != hard.end() ? static_cast<int>(h->second.size()) : 0,
                          Defined(d, Split::kHard)};
    agg.easy_subtasks[domain] = ce;
    agg.hard_subtasks[domain] = ch;
    Add(ce, &agg.overall_easy_subtasks);
    Add(ch, &agg.overall_hard_subtasks);
    Add(ce, &agg.all_subtasks);
    Add(ch, &agg.all_subtasks);
  }
  if (agg.missing_easy.empty()) agg.overall_easy = Mean(domain_easy);
  if (agg.missing_hard.empty()) agg.overall_hard = Mean(domain_hard);
  if (agg.overall_easy && agg.overall_hard) {
    agg.all = (*agg.overall_easy + *agg.overall_hard) / 2;
  }
  return agg;
}

}  // namespace structtest
