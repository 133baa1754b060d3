// Comparing stored runs (`structtest compare`): each run after the first against the
// first, on the samples both hold. Samples are matched by id, and a matched pair must be
// the same sample (domain, subtask, params, context and prompt): two runs of another
// seed reuse ids for other samples, and those are not shared. A pair counts only when
// both runs scored it; the others are left out and counted (errored in either run, or
// not scored or asked). Per subtask: both accuracies on the shared samples, B - A with
// a paired interval (stats.h: PairedDifferenceIntervals), the flips, and McNemar's exact
// test on the discordant units with Holm's correction across subtasks; per domain split,
// overall and All: B - A with its interval, and the subtasks it takes in (marked in the
// outputs where fewer than the paper's). Units are samples, or tasks where a subtask
// counts tasks (simulate_execute), as in the report.
#ifndef STRUCTTEST_REPORT_COMPARE_H_
#define STRUCTTEST_REPORT_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/aggregates.h"
#include "report/stats.h"
#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

// What makes two rows the same sample beyond their id (domain, subtask, params, context,
// prompt; not the target): FNV-1a 64 over them, for matching samples across runs.
uint64_t SampleFingerprint(const Sample& sample);

struct ComparedRun {
  std::string dir;
  std::string model;  // from the manifest; "" when it names none
  int64_t samples = 0;
  int64_t repeats = 1;  // run --repeats
};

// A shared sample whose verdict differs between the runs.
struct Flip {
  std::string id, domain, subtask;
  bool passed_in_a = false;  // true: pass -> fail
  std::string reason_a, reason_b;
};

struct SubtaskComparison {
  std::string domain, subtask;
  std::optional<Split> split;
  bool per_task = false;
  int64_t samples = 0;  // shared samples both runs scored
  int64_t units = 0;    // = samples, or the tasks counted in both runs
  double accuracy_a = 0, accuracy_b = 0;  // percent, over the units
  std::optional<Interval> difference_ci;  // of B - A
  // Discordant units: passing in A only, in B only.
  int64_t pass_to_fail = 0, fail_to_pass = 0;
  int64_t sample_pass_to_fail = 0, sample_fail_to_pass = 0;
  double p = 1, p_holm = 1;  // McNemar's exact test; Holm-adjusted across subtasks
};

struct Comparison {
  ComparedRun a, b;
  // Runs of repeated samples (run --repeats K, the same K in both: runs of different K
  // are refused): a sample is paired when every repeat of it is scored in both runs
  // (`paired` counts those), and left out otherwise (counted in errored_* or unscored).
  // Each sample's repeats are one cluster of K units (Stratum::repeated), and McNemar's
  // test becomes the sign test of the samples passing more repeats in one run than in
  // the other (pass_to_fail: more in A). Flips are those samples, with repeat 0's reasons.
  int64_t repeats = 1;
  int64_t shared = 0;           // same id, same sample
  int64_t paired = 0;           // of those, scored in both runs
  int64_t errored_a = 0, errored_b = 0;  // shared samples left out: a request error
  int64_t unscored = 0;         // left out: not asked or not scored in a run (no error)
  int64_t only_a = 0, only_b = 0;  // ids of one run only
  int64_t differing = 0;        // ids in both that name different samples
  std::vector<SubtaskComparison> subtasks;  // registry order
  Aggregates aggregates_a, aggregates_b;
  AggregateIntervals difference_ci;  // of each aggregate's B - A
  std::vector<Flip> flips;  // when asked for, in A's order
  // The checker versions per domain both runs' verdicts were given under.
  std::map<std::string, std::string> rules_versions;
};

struct CompareOptions {
  RuleSet rules = RuleSet::kPaper;
  bool flips = false;  // collect Comparison::flips
};

// Compares dirs[1..] each against dirs[0]. REQUIRES: at least two dirs. Errors (the
// comparison is refused): a directory without a run, runs that share no sample, runs
// whose shared verdicts come from different checker versions or that have no verdicts
// under the rule set, each naming the runs and saying how to rescore.
StatusOr<std::vector<Comparison>> CompareRuns(const std::vector<std::string>& dirs,
                                              const CompareOptions& options);

// For every run as the baseline in turn, what CompareRuns gives for it followed by the
// others in their order (entry k: dirs[k] against each other dir), reading each run
// once rather than once per pair: the HTML report's baseline chooser.
std::vector<StatusOr<std::vector<Comparison>>> CompareEveryBaseline(
    const std::vector<std::string>& dirs, const CompareOptions& options);

// Text, Markdown and JSON of the comparisons; `flips` lists them with both reasons.
std::string RenderCompareText(const std::vector<Comparison>& comparisons, RuleSet rules,
                              bool flips);
std::string RenderCompareMarkdown(const std::vector<Comparison>& comparisons, RuleSet rules,
                                  bool flips);
nlohmann::json RenderCompareJson(const std::vector<Comparison>& comparisons, RuleSet rules,
                                 bool flips);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_COMPARE_H_
