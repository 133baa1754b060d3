// Accumulates verdicts per subtask and computes the paper's aggregates (Table 1):
// subtask accuracy; domain Easy/Hard = mean of its subtasks; overall Easy/Hard = mean
// of the four domains; All = mean of overall Easy and Hard. Memory is per subtask, not
// per record.
#ifndef STRUCTTEST_REPORT_TALLY_H_
#define STRUCTTEST_REPORT_TALLY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"
#include "tasks/task.h"

namespace structtest {

struct SubtaskTally {
  std::string domain;
  std::string subtask;
  std::optional<Split> split;  // unknown for subtasks not in the registry
  const SubtaskSpec* spec = nullptr;  // null for subtasks not in the registry
  int64_t scored = 0;
  int64_t passed = 0;
  int64_t errors = 0;  // records that could not be scored
  // Math: the paper's separate format and answer-accuracy rates.
  bool has_math_parts = false;
  int64_t format_passed = 0;
  int64_t accuracy_passed = 0;

  // Subtasks reported per task (spec->task_key): each task's state. A task with a
  // sample that could not be scored is left out of the per-task rate (and counted in
  // errors), never taken as failed.
  enum class TaskState { kSolved, kFailed, kIncomplete };
  std::map<std::string, TaskState> tasks;

  bool per_task() const { return spec != nullptr && spec->task_key != nullptr; }
  double SampleAccuracy() const { return scored == 0 ? 0.0 : 100.0 * passed / scored; }
  int64_t TasksSolved() const;
  int64_t TasksCounted() const;  // solved or failed
  // The subtask's score as the paper reports it: per task where it counts tasks,
  // otherwise per sample.
  double Accuracy() const;
};

struct Aggregates {
  // domain -> mean accuracy of its Easy / Hard subtasks (only present ones).
  std::map<std::string, std::optional<double>> easy, hard;
  std::optional<double> overall_easy, overall_hard, all;
  // Domains of the paper without any scored subtask of a split, named in the report.
  std::vector<std::string> missing_easy, missing_hard;
};

class Tally {
 public:
  Tally() = default;
  // Copies and moves forget last_, which points into one map.
  Tally(const Tally& o) : by_subtask_(o.by_subtask_), scored_(o.scored_), errors_(o.errors_) {}
  Tally(Tally&& o) noexcept
      : by_subtask_(std::move(o.by_subtask_)), scored_(o.scored_), errors_(o.errors_) {
    o.last_ = nullptr;
  }
  Tally& operator=(Tally o) noexcept {
    by_subtask_.swap(o.by_subtask_);
    scored_ = o.scored_;
    errors_ = o.errors_;
    last_ = nullptr;
    o.last_ = nullptr;
    return *this;
  }

  void Add(const Sample& sample, const Verdict& verdict);
  void AddError(const Sample& sample);

  // Subtasks in registry order (unknown ones last, by name).
  std::vector<const SubtaskTally*> Subtasks() const;
  Aggregates Compute() const;
  int64_t scored() const { return scored_; }
  int64_t errors() const { return errors_; }

 private:
  SubtaskTally& Get(const Sample& sample);
  std::map<std::pair<std::string, std::string>, SubtaskTally> by_subtask_;
  SubtaskTally* last_ = nullptr;  // the entry Get() returned last (map nodes are stable)
  int64_t scored_ = 0;
  int64_t errors_ = 0;
};

// The plain-text table printed by `structtest score`.
std::string RenderTextReport(const Tally& tally, RuleSet rules);

// The same figures for programs: {"rules", "rules_versions", "subtasks": [{"domain",
// "subtask", "split", "scored", "passed", "errors", "accuracy", and where they apply
// "format_accuracy", "answer_accuracy", "tasks_solved", "tasks_counted",
// "sample_accuracy"}], "domains": {"code": {"easy", "hard"}, ...}, "overall_easy",
// "overall_hard", "all"}. Percentages; null where there is nothing to average.
nlohmann::json RenderJsonReport(const Tally& tally, RuleSet rules);

// The same as GitHub-flavoured Markdown tables, to paste next to the paper's.
std::string RenderMarkdownReport(const Tally& tally, RuleSet rules);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_TALLY_H_
