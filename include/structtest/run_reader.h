// Reading a run directory (`structtest run --out DIR`), finished or in progress, without
// changing it: each sample's answer and verdict, and the run's figures (the paper's
// per-domain Easy and Hard accuracies and their means, as `structtest report` prints
// them). A run holds verdicts under each rule set it was scored with (`rescore`).
#ifndef STRUCTTEST_RUN_READER_H_
#define STRUCTTEST_RUN_READER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

class RunStore;

// One request of the run: a sample (one of its repeats) with what it got.
struct SampleResult {
  int64_t index = 0;   // the sample's position in the suite, from 0
  int64_t repeat = 0;  // which of the run's repeats, from 0
  std::string id, domain, subtask;
  bool answered = false;  // the model's answer is stored
  std::string response;   // the answer, "" when none
  std::string error;      // why the request failed, when it did (asked again on resume)
  bool scored = false;    // a verdict under the rule set asked is stored
  bool passed = false;
  std::string reason;         // the verdict's, for a person
  std::string rules_version;  // the checker's that decided
  std::vector<RuleCheck> checks;
  std::string scoring_error;  // why an answer could not be scored, when it could not
};

// One subtask's counts under a rule set.
struct SubtaskResult {
  std::string domain, subtask;
  int64_t scored = 0;  // answers with a verdict
  int64_t passed = 0;
  int64_t errors = 0;  // requests failed or answers not scored
};

// The run's figures under a rule set, in percent: each paper domain's mean accuracy
// over its Easy and its Hard subtasks (nullopt where none was scored), the means over
// the domains, and everything.
struct RunResults {
  int64_t samples = 0;   // in the suite
  int64_t requests = 0;  // samples times repeats
  int64_t answered = 0;
  int64_t errored = 0;
  std::vector<SubtaskResult> subtasks;  // in the registry's order
  std::map<std::string, std::optional<double>> easy, hard;  // by domain
  std::optional<double> overall_easy, overall_hard, all;
};

class RunReader {
 public:
  // Opens `dir` read-only. Errors: no run there, or a store this build cannot read.
  static StatusOr<std::unique_ptr<RunReader>> Open(const std::string& dir);
  ~RunReader();
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  // The rule sets the run holds verdicts under ("paper", "strict").
  StatusOr<std::vector<std::string>> ScoredRuleSets();

  // Calls `fn` with every request of the run in suite order, with its verdict under
  // `rules`; a non-ok Status from `fn` stops and is returned.
  Status ForEachResult(RuleSet rules, const std::function<Status(const SampleResult&)>& fn);

  // The run's counts and figures under `rules`, as `structtest report` computes them.
  StatusOr<RunResults> Results(RuleSet rules);

 private:
  explicit RunReader(std::unique_ptr<RunStore> store);
  std::unique_ptr<RunStore> store_;
};

}  // namespace structtest

#endif  // STRUCTTEST_RUN_READER_H_
