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
#include <string_view>
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
  // The whole sample (prompt and target too), when read with `with_samples`.
  std::optional<Sample> sample;
  bool asked = false;     // a reply is stored (an answer or an error); false: pending
  bool answered = false;  // the model's answer is stored
  std::string response;   // the answer, "" when none
  std::string reasoning;  // the reasoning split off the answer (never scored)
  std::string error;      // why the request failed, when it did (asked again on resume)
  // What the run learned with the reply: how it finished ("stop", "length", "other",
  // "unknown"; `finish_raw` as the provider said it), tokens, time, HTTP status, tries,
  // whether it came from the response cache, the model the server says answered.
  std::string finish, finish_raw;
  int64_t input_tokens = 0, output_tokens = 0, reasoning_tokens = 0;
  int64_t latency_ms = 0, http_status = 0, attempts = 0;
  bool cached = false;
  std::string served_model;
  bool scored = false;    // a verdict under the rule set asked is stored
  bool passed = false;
  std::string reason;         // the verdict's, for a person
  std::string rules_version;  // the checker's that decided
  std::vector<RuleCheck> checks;
  std::optional<bool> format, accuracy;  // math: the paper's two halves of a verdict
  std::string scoring_error;  // why an answer could not be scored, when it could not
};

// What a run is: its directory, the model it asked, how many times it asks each sample,
// the request settings it sends (null for a built-in responder, which sends none), and
// its files (which an output written next to it must not overwrite).
struct RunInfo {
  std::string dir;
  std::string model;
  int64_t repeats = 1;
  nlohmann::json request;
  std::vector<std::string> files;
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

  // The rule set `asked` names ("paper", "strict"), refused when the run holds verdicts
  // but none under it; with "" the run's own: paper, unless it was scored under strict
  // only.
  StatusOr<RuleSet> ChooseRuleSet(std::string_view asked);

  StatusOr<RunInfo> Info();

  // Calls `fn` with every request of the run in suite order, with its verdict under
  // `rules` (and the whole sample with `with_samples`); a non-ok Status from `fn` stops
  // and is returned.
  Status ForEachResult(RuleSet rules, const std::function<Status(const SampleResult&)>& fn,
                       bool with_samples = false);

  // The run's table under `rules` as `structtest report` prints it: `format` "text",
  // "markdown" or "json"; with `explain`, every failing, errored or unscored request
  // with its reason: lines before the table, or in json an "explained" list of
  // {"id", "domain", "subtask", "result" (fail, error, unscored), "reason"}, so that
  // the json is one document.
  StatusOr<std::string> Report(RuleSet rules, std::string_view format, bool explain = false);

  // Refuses (naming both) an output `path` that is one of the run's own files (writing
  // it would lose the run); "" and "-" (standard output) pass.
  Status CheckNotOwnFile(const std::string& path);

  // Report's text written to `path`, whole or not at all (a reader never sees half);
  // never one of the run's own files (CheckNotOwnFile).
  Status WriteReport(RuleSet rules, std::string_view format, bool explain,
                     const std::string& path);

  // What `structtest export` writes: ExportRecord of every answered request (with `all`,
  // errored and pending ones too) under `rules`, a JSON line each, to `path` ("-":
  // standard output). Errors: the run does not read, the file cannot be written or is
  // one of the run's own (CheckNotOwnFile).
  struct ExportCounts {
    int64_t written = 0;
    int64_t left_out = 0;  // errored or pending, without `all`
  };
  StatusOr<ExportCounts> ExportJsonl(RuleSet rules, const std::string& path, bool all = false);

  // The run's counts and figures under `rules`, as `structtest report` computes them.
  StatusOr<RunResults> Results(RuleSet rules);

 private:
  explicit RunReader(std::unique_ptr<RunStore> store);
  std::unique_ptr<RunStore> store_;
};

// ChooseRuleSet's choice among `scored`, the rule sets a run holds verdicts under;
// `dir` names the run in the error.
StatusOr<RuleSet> ChooseStoredRuleSet(const std::vector<std::string>& scored,
                                      std::string_view asked, std::string_view dir);

// One self-contained HTML page of the runs in `run_dirs` (`structtest report --format
// html`), written to `path` once it is whole, under `rules` ("paper" or "strict"), which
// every run must hold verdicts under; "" is the rule set the runs were scored under (as
// ChooseRuleSet picks it), an error when they differ.
Status WriteRunsPage(const std::vector<std::string>& run_dirs, std::string_view rules,
                     const std::string& path);

// Writes the run's report.json and report.html in `dir`, as `run` does at its end, under
// the rule set it was scored under (paper when both): for a run made by `merge` or
// completed by `import`, whose answers did not come through `run`. With a model asked
// (not builtin/...), report.json's usage is at its recorded or built-in price. A run
// with no verdicts yet gets neither file.
Status WriteRunReports(const std::string& dir);

// A request of the run as `structtest export` writes it: the sample, "status"
// ("answered", "error", "pending"), the answer and its reasoning or the error, what the
// run learned with the reply, the run's request settings, and the verdict under `rules`
// (with its rule checks and score); "repeat" in a run of repeats. `r` read with samples.
nlohmann::json ExportRecord(const SampleResult& r, RuleSet rules, const RunInfo& info);

}  // namespace structtest

#endif  // STRUCTTEST_RUN_READER_H_
