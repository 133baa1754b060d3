// Across runs: several runs at once: comparing runs on the samples they share (`structtest
// compare`), putting a run's figures next to other benchmarks' (`structtest
// correlate`), and merging runs made in parts (`structtest merge`: shards, or a run
// continued elsewhere) into one run directory.
#ifndef STRUCTTEST_ACROSS_RUNS_H_
#define STRUCTTEST_ACROSS_RUNS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

struct CompareRunsOptions {
  // Whose stored verdicts to compare. Default: the rule set every run was scored under
  // (paper when each has paper verdicts, else strict when each has strict ones, else
  // paper), as a run's report defaults to the rule set it was scored under.
  std::optional<RuleSet> rules;
  std::string format = "text";  // "text", "markdown" or "json"
  bool flips = false;           // also list every sample that passes in one run only
};

// Every run of run_dirs[1..] against run_dirs[0] on the samples they share: B - A per
// subtask, domain and overall, with paired tests and intervals, as `structtest compare`
// prints it. Errors: a bad format, fewer than two runs, a directory without a run, runs
// that share no sample or whose verdicts come from different checker versions (naming
// the runs and how to rescore).
StatusOr<std::string> CompareRunsReport(const std::vector<std::string>& run_dirs,
                                        const CompareRunsOptions& options);

struct CorrelateRunsOptions {
  // A CSV of models by benchmark (a "model" column, then one column per benchmark);
  // "": the paper's Table 4.
  std::string table;
  // (model, run directory): the run's StructTest figures become that model's columns
  // (a model the table lacks is added).
  std::vector<std::pair<std::string, std::string>> runs;
  // Whose stored verdicts the runs give. Default: the rule set every run was scored
  // under, as for CompareRunsOptions::rules.
  std::optional<RuleSet> rules;
  std::string format = "text";  // "text", "markdown" or "json"
};

// The correlations between every two columns of the table (Pearson and Spearman over
// the models that have both), as `structtest correlate` prints them. Errors: a bad
// format, a table that does not read, a run that does not open.
StatusOr<std::string> CorrelateRunsReport(const CorrelateRunsOptions& options);

// What MergeRunDirs did: per run merged, what it added; then the merged run's counts
// and, when it holds shards, which of 1..N it holds and which it lacks.
struct MergeReport {
  struct Added {
    std::string dir;
    std::string shard;  // "2/3"; "" for a run that is not a shard
    int64_t samples = 0, answers = 0, errors = 0;
  };
  std::vector<Added> runs;
  int64_t samples = 0;
  int64_t requests = 0;  // samples times the run's repeats
  int64_t answered = 0, errored = 0;
  std::optional<int> shard_count;           // N, when the merged run holds shards
  std::vector<std::string> shards;          // the shards it holds, "1/3", in order
  std::vector<std::string> missing_shards;  // those of 1..N it does not
  bool unsharded = false;  // it holds a whole (unsharded) run: no shard is missing
};

// Merges the runs in `run_dirs` into the run directory `out` (made when missing).
// Everything is checked before anything is written (the settings of the runs, naming
// the one that differs, and the shard counts); a run refused leaves `out` as it was
// before that run. Errors name the run and the problem.
StatusOr<MergeReport> MergeRunDirs(const std::string& out, const std::vector<std::string>& run_dirs);

}  // namespace structtest

#endif  // STRUCTTEST_ACROSS_RUNS_H_
