// The paper's aggregates (Table 1) of per-subtask accuracies: domain Easy/Hard = mean
// of its subtasks of that split; overall Easy/Hard = mean of the four domains; All =
// mean of overall Easy and Hard. One definition, used by the tally, the intervals'
// weights and compare; with how many of the subtasks the paper defines each one takes.
#ifndef STRUCTTEST_REPORT_AGGREGATES_H_
#define STRUCTTEST_REPORT_AGGREGATES_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tasks/task.h"

namespace structtest {

// The paper's four domains, in its order: the overall scores are only defined when all
// of them are there.
inline constexpr std::string_view kPaperDomains[] = {"summarization", "code", "html", "math"};

// The subtasks an aggregate rests on: `scored` of the `of` that the registry defines
// for it (the paper's definition: 19 subtasks over 4 domains x 2 splits). A partial
// aggregate (scored < of) is a mean over fewer subtasks than the paper's figure of
// that name, and the reports say so wherever they show it.
struct SubtaskCount {
  int scored = 0;
  int of = 0;
  bool complete() const { return scored == of; }
};

struct Aggregates {
  // domain -> mean accuracy of its Easy / Hard subtasks (only present ones). Every
  // paper domain has an entry.
  std::map<std::string, std::optional<double>> easy, hard;
  std::optional<double> overall_easy, overall_hard, all;
  // Domains of the paper without any scored subtask of a split, named in the report.
  std::vector<std::string> missing_easy, missing_hard;
  // The subtasks each aggregate rests on; every paper domain has an entry.
  std::map<std::string, SubtaskCount> easy_subtasks, hard_subtasks;
  SubtaskCount overall_easy_subtasks, overall_hard_subtasks, all_subtasks;
};

// "from 1 of 4 subtasks" for a partial count; "" for a complete one.
std::string FromSubtasks(const SubtaskCount& count);

// One subtask's accuracy (percent) as it enters the aggregates.
struct SubtaskScore {
  std::string_view domain;
  Split split;
  double accuracy;
};

// The aggregates of `scores`, one score per subtask. Means add in the order given, so
// the same scores in the same order give the same bits. Domains outside the paper's
// four enter nothing.
Aggregates ComputeAggregates(std::span<const SubtaskScore> scores);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_AGGREGATES_H_
