#include "structtest/run_reader.h"

#include <utility>

#include "report/aggregates.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "store/run_store.h"

namespace structtest {

RunReader::RunReader(std::unique_ptr<RunStore> store) : store_(std::move(store)) {}
RunReader::~RunReader() = default;

StatusOr<std::unique_ptr<RunReader>> RunReader::Open(const std::string& dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, RunStore::OpenReadOnly(dir));
  return std::unique_ptr<RunReader>(new RunReader(std::move(store)));
}

StatusOr<std::vector<std::string>> RunReader::ScoredRuleSets() {
  return store_->ScoredRuleSets();
}

Status RunReader::ForEachResult(RuleSet rules,
                                const std::function<Status(const SampleResult&)>& fn) {
  return store_->ForEach(
      RuleSetName(rules),
      [&](const RunRow& row) {
        SampleResult r;
        r.index = row.index;
        r.repeat = row.repeat;
        r.id = row.sample.id;
        r.domain = row.sample.domain;
        r.subtask = row.sample.subtask;
        if (row.response) {
          r.answered = row.response->ok;
          if (row.response->ok) {
            r.response = row.response->text;
          } else {
            r.error = row.response->error;
          }
        }
        if (row.verdict) {
          if (row.verdict->error.empty()) {
            r.scored = true;
            r.passed = row.verdict->pass;
            r.reason = row.verdict->reason;
            r.rules_version = row.verdict->rules_version;
            r.checks = row.verdict->checks;
          } else {
            r.scoring_error = row.verdict->error;
          }
        }
        return fn(r);
      },
      RunStore::RowRead::kNoPrompt);
}

StatusOr<RunResults> RunReader::Results(RuleSet rules) {
  ASSIGN_OR_RETURN(const RunCounts counts, store_->Counts());
  ASSIGN_OR_RETURN(const Tally tally, TallyRun(*store_, rules, nullptr, RunStore::RowRead::kTally));
  RunResults out;
  out.samples = counts.samples;
  out.requests = counts.slots;
  out.answered = counts.answered;
  out.errored = counts.errored;
  for (const SubtaskTally* s : tally.Subtasks()) {
    out.subtasks.push_back({s->domain, s->subtask, s->scored, s->passed, s->errors});
  }
  const Aggregates agg = tally.Compute();
  out.easy = agg.easy;
  out.hard = agg.hard;
  out.overall_easy = agg.overall_easy;
  out.overall_hard = agg.overall_hard;
  out.all = agg.all;
  return out;
}

}  // namespace structtest
