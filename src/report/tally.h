// Accumulates verdicts per subtask and computes the paper's aggregates (Table 1):
// subtask accuracy; domain Easy/Hard = mean of its subtasks; overall Easy/Hard = mean
// of the four domains; All = mean of overall Easy and Hard; each with its 95% interval
// (stats.h). Memory is per subtask and per source item (SourceItem), not per record;
// in a run of repeated samples (run --repeats K), also per sample.
//
// With K > 1 every verdict of every repeat counts: a subtask's accuracy is the mean
// over the repeats, and its interval treats a sample's K verdicts as one cluster (the
// sample is the unit drawn; stats.h). The renderers then add, per subtask, the share
// of samples whose K verdicts agree and pass@k and pass^k for k = 1..K (stats.h's
// PassAtK, PassHatK), over the samples with all K repeats scored; a subtask that counts
// tasks (simulate_execute) counts them per task, a task passing a repeat when all its
// samples pass it. With K = 1 nothing of this appears: the outputs are as before.
#ifndef STRUCTTEST_REPORT_TALLY_H_
#define STRUCTTEST_REPORT_TALLY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/aggregates.h"
#include "report/stats.h"
#include "structtest/sample.h"
#include "tasks/task.h"

namespace structtest {

// (scored, passed) samples per source item, keyed by the item's 64-bit hash: an
// open-addressing table, as the tally looks one up for every record it adds.
class ItemCounts {
 public:
  struct Entry {
    uint64_t key = 0;
    uint32_t scored = 0;
    uint32_t passed = 0;
  };
  // The entry of `key`, made with zero counts when it is new.
  Entry& operator[](uint64_t key);
  size_t size() const { return size_; }
  // Calls f(const Entry&) for every entry, in no particular order.
  template <typename F>
  void ForEach(F f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.entry);
    }
  }

 private:
  struct Slot {
    Entry entry;
    bool used = false;
  };
  void Grow();
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// How often one rule of a subtask passed, failed or was not reached (RuleCheck).
struct RuleTally {
  std::string name;
  int64_t passed = 0;
  int64_t failed = 0;
  int64_t not_checked = 0;
  int64_t listed() const { return passed + failed + not_checked; }
};

// What a subtask's repeats show (SubtaskTally::RepeatStats), over its units (samples;
// tasks where it counts tasks) with all K repeats scored.
struct RepeatStats {
  int64_t repeats = 1;     // K
  int64_t units = 0;       // with all K repeats scored
  int64_t incomplete = 0;  // with a repeat not scored (errored, not asked, not scored)
  int64_t consistent = 0;  // of `units`: all K verdicts pass, or all fail
  // Percent, for k = 1..K (entry k - 1): the mean over `units` of PassAtK(K, c, k) and
  // of PassHatK(K, c, k), c the unit's passing repeats. Empty when units is 0.
  std::vector<double> pass_at_k, pass_hat_k;
  // Percent; nullopt when units is 0.
  std::optional<double> Consistency() const;
};

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
  // Per rule (Verdict::checks), over the scored samples whose verdicts list their rules
  // (`with_rules`; verdicts stored before they had rules list none), in the order the
  // subtask declares them (structtest tasks --rules).
  int64_t with_rules = 0;
  std::vector<RuleTally> rules;

  // Subtasks reported per task (spec->task_key): each task's state. A task with a
  // sample that could not be scored is left out of the per-task rate (and counted in
  // errors), never taken as failed.
  enum class TaskState { kSolved, kFailed, kIncomplete };
  std::map<std::string, TaskState> tasks;

  // Scored samples by the source item they were made from (other subtasks): -> (scored,
  // passed). Samples without a source item are counted in `single_*` instead. Items
  // are keyed by a 64-bit hash of their name (Fnv1a): this is the one part of a tally
  // that grows with the run, and two items of one subtask sharing a hash (a chance of
  // about n^2 / 2^65) would only merge two clusters of the interval's estimate.
  ItemCounts items;
  int64_t single_scored = 0;
  int64_t single_passed = 0;

  // Run --repeats K: K, and each sample's (repeats scored, passed) keyed by Fnv1a of its
  // id (with K = 1, empty). A sample without a source item is then a cluster of its own
  // in `items`, its repeats; `tasks` is keyed by TaskRepeatKey.
  int64_t repeats = 1;
  ItemCounts per_sample;

  // Token usage of the stored responses (Tally::AddUsage), as the server reported it.
  // `paid_*` leaves out the answers taken from the response cache, which cost nothing.
  int64_t responses = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;  // includes reasoning tokens
  int64_t reasoning_tokens = 0;
  int64_t paid_input_tokens = 0;
  int64_t paid_output_tokens = 0;
  // The part of paid_* that came through a batch API (billed at the batch price).
  int64_t paid_batch_input_tokens = 0;
  int64_t paid_batch_output_tokens = 0;
  int64_t no_usage = 0;  // answers whose server reported no token usage
  int64_t cached = 0;    // answers taken from the response cache

  bool per_task() const { return spec != nullptr && spec->task_key != nullptr; }
  double SampleAccuracy() const { return scored == 0 ? 0.0 : 100.0 * passed / scored; }
  // Rule-level accuracy (as IFEval's instruction-level next to its prompt-level): rules
  // passed / rules listed over the verdicts with rules, in percent; nullopt without
  // such verdicts. As every verdict of a subtask lists the same rules, it is also the
  // mean of their scores (Verdict::score, the partial credit).
  std::optional<double> RuleAccuracy() const;
  int64_t TasksSolved() const;
  int64_t TasksCounted() const;  // solved or failed
  // The subtask's score as the paper reports it: per task where it counts tasks,
  // otherwise per sample.
  double Accuracy() const;
  // Its clusters, for the statistics: tasks (one unit each, solved or not) where it
  // counts tasks, otherwise the scored samples by source item. `split` is set when the
  // subtask enters the aggregates. With repeats: a task's repeats, and a sample's
  // repeats where it has no source item, are one cluster (Stratum::repeated).
  Stratum ToStratum() const;
  // The figures of its repeats (RepeatStats).
  RepeatStats Repeats() const;
};

// The key of a task's repeat in SubtaskTally::tasks (with repeats): the task, a unit
// separator, the repeat.
std::string TaskRepeatKey(std::string_view task, int64_t repeat);

// The source item a sample was made from, which samples of one subtask may share: the
// GSM8K question of a math sample (context.gsm8k_index or problem_id), the document of
// a summarization sample (document_id), the MBPP task or program of a code sample
// (task_id). "" when it names none (html): the sample stands alone.
std::string SourceItem(const Sample& sample);
// Fnv1a(SourceItem(sample)), without writing the string out (the tally's hot path);
// nullopt when SourceItem is "".
std::optional<uint64_t> SourceItemHash(const Sample& sample);

// Where a subtask goes in a report: registry order, unknown subtasks last.
int ReportRank(std::string_view domain, std::string_view subtask);

class Tally {
 public:
  Tally() = default;
  // Copies and moves forget last_, which points into one map.
  Tally(const Tally& o)
      : by_subtask_(o.by_subtask_), scored_(o.scored_), errors_(o.errors_),
        repeats_(o.repeats_), aggregate_ci_(o.aggregate_ci_) {}
  Tally(Tally&& o) noexcept
      : by_subtask_(std::move(o.by_subtask_)), scored_(o.scored_), errors_(o.errors_),
        repeats_(o.repeats_), aggregate_ci_(std::move(o.aggregate_ci_)) {
    o.last_ = nullptr;
  }
  Tally& operator=(Tally o) noexcept {
    by_subtask_.swap(o.by_subtask_);
    scored_ = o.scored_;
    errors_ = o.errors_;
    repeats_ = o.repeats_;
    aggregate_ci_ = std::move(o.aggregate_ci_);
    last_ = nullptr;
    o.last_ = nullptr;
    return *this;
  }

  // Each sample is asked `k` times (run --repeats), each repeat's verdict added with
  // its repeat. REQUIRES: before any Add; k >= 1. Default 1.
  void SetRepeats(int64_t k);
  int64_t repeats() const { return repeats_; }

  void Add(const Sample& sample, const Verdict& verdict, int64_t repeat = 0);
  void AddError(const Sample& sample, int64_t repeat = 0);
  // The token usage of a stored response to `sample` (answer or error), which Add and
  // AddError do not count. An answer with no input and no output tokens counts as one
  // whose server reported no usage. `batch`: it came through a batch API.
  void AddUsage(const Sample& sample, bool ok, int64_t input_tokens, int64_t output_tokens,
                int64_t reasoning_tokens, bool cached, bool batch = false);

  // Subtasks in registry order (unknown ones last, by name).
  std::vector<const SubtaskTally*> Subtasks() const;
  Aggregates Compute() const;
  // Every subtask as a stratum, in the order Compute adds them.
  std::vector<Stratum> Strata() const;
  // AggregateScoreIntervals(Strata()), computed on the first call after the last Add,
  // for the renderers. Not thread-safe.
  const AggregateIntervals& AggregateCi() const;
  int64_t scored() const { return scored_; }
  int64_t errors() const { return errors_; }

 private:
  SubtaskTally& Get(const Sample& sample);
  std::map<std::pair<std::string, std::string>, SubtaskTally> by_subtask_;
  SubtaskTally* last_ = nullptr;  // the entry Get() returned last (map nodes are stable)
  int64_t scored_ = 0;
  int64_t errors_ = 0;
  int64_t repeats_ = 1;
  mutable std::optional<AggregateIntervals> aggregate_ci_;  // reset by Add and AddError
};

// The plain-text table printed by `structtest score`, `run` and `report`, with a 95%
// interval for every figure (stats.h: continuity-corrected Wilson, over tasks where a
// subtask counts tasks, on the effective sample size where samples share a source item
// and for the aggregates). An aggregate there that rests on fewer subtasks than the
// paper's (Aggregates' SubtaskCount) says "from k of m subtasks", and a note under the
// table says what that means; a run of every subtask shows no such mark.
std::string RenderTextReport(const Tally& tally, RuleSet rules);

// The same figures for programs: {"rules", "rules_versions", "subtasks": [{"domain",
// "subtask", "split", "scored", "passed", "errors", "accuracy", "ci", and where they
// apply "format_accuracy", "answer_accuracy", "tasks_solved", "tasks_counted",
// "sample_accuracy"}], "domains": {"code": {"easy", "hard", "easy_ci", "hard_ci",
// "easy_subtasks", "hard_subtasks"}, ...}, "overall_easy", "overall_hard", "all",
// "overall_easy_ci", "overall_hard_ci", "all_ci", "overall_easy_subtasks",
// "overall_hard_subtasks", "all_subtasks", "intervals"}. Percentages; null where there
// is nothing to average. A "ci" is {"n", "k", "estimate", "low", "high", "method"}: the
// units (samples, or tasks) and passes it comes from, the figure and its 95% bounds;
// "intervals" names the methods. A "*_subtasks" is {"scored", "of", "complete"}: the
// subtasks the aggregate takes in, of those the paper defines for it (always there;
// "complete" is false for a partial aggregate, and for one with nothing scored).
nlohmann::json RenderJsonReport(const Tally& tally, RuleSet rules);
// Where a subtask's verdicts list their rules, its JSON also has "rule_accuracy" (a
// percentage) and "rules": [{"name", "passed", "failed", "not_checked"}].

// With repeats (Tally::repeats() > 1), the JSON also has "repeats": {"k", "method"} and
// each subtask "repeats": {"samples", "incomplete", "consistency", "pass_at_k",
// "pass_hat_k"} (RepeatStats; percentages, the lists for k = 1..K); "samples" counts
// tasks where the subtask counts tasks.

// The repeats section of the text and Markdown reports: per subtask, the units with all
// repeats scored, consistency, pass@k and pass^k for k = 1..K. "" without repeats.
std::string RenderRepeatsText(const Tally& tally);
std::string RenderRepeatsMarkdown(const Tally& tally);

// The rules section of the text report: per subtask where a rule failed, rule-level
// accuracy and the rules that fail most (share of the samples listing them). "" when no verdict
// lists its rules.
std::string RenderRulesText(const Tally& tally);

// The same as GitHub-flavoured Markdown tables, to paste next to the paper's.
std::string RenderMarkdownReport(const Tally& tally, RuleSet rules);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_TALLY_H_
