// One `structtest run` as a library call: generate the suite (or read a samples file)
// into a run directory, ask the model every sample through the client stack the
// options describe (curl, replicas, -j auto, rate limit, retries, the response cache,
// or a provider's batch API), score the answers and write report.json and report.html.
// The same options again resume the run where it stopped (run_identity.h). Without a
// model every built-in responder answers, in memory, and a closing table compares them
// under both rule sets. What a person should see goes through RunJobOutput, in the
// order the CLI prints it; errors come back as a Status.
#ifndef STRUCTTEST_RUNNER_RUN_JOB_H_
#define STRUCTTEST_RUNNER_RUN_JOB_H_

#include <atomic>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/cost.h"
#include "runner/run_options.h"
#include "structtest/run.h"
#include "structtest/status.h"

namespace structtest {

class PythonPool;
class RunStore;
class SentenceSplitter;

// Where a run's messages go (structtest/run.h).
using RunJobOutput = RunSuiteOutput;

struct RunJobResult {
  // Stopped by the stop flag before the end (the run directory holds what came back).
  bool interrupted = false;
  // Finished with samples not scored or answers errored, or stopped by the budget.
  bool failures = false;
};

// Runs `run`. `sentences` may be null when no subtask counts sentences
// (NeedsSentences). `stop`, when given, is polled: set (from a signal handler, say),
// the run stops starting requests, stores what came back and returns `interrupted`.
// REQUIRES: run is checked whole (ResolveRun: ranges, a known model or built-in
// responder, the suite, CheckRequestSettings).
// Errors: the run directory holds another run (CheckSameRun), the data cannot be read,
// the store or the cache cannot be opened, no API key, the first requests all failed.
StatusOr<RunJobResult> RunJob(const ResolvedRun& run, const SentenceSplitter* sentences,
                              const std::atomic<bool>* stop, const RunJobOutput& output);

// The run's request settings made whole and checked, before anything is asked: for a
// provider's model (run->spec) whose temperature was not given, the model's default
// one (marked temperature_defaulted); then run->request's max_tokens, temperature and
// controls checked against the provider, or, for the built-in responders (no spec),
// their ranges. REQUIRES: run->request holds the settings as given.
Status SettleRequestSettings(ResolvedRun* run);

// Whether the run's samples may include a sentence-counting subtask (a samples file:
// unknown until read, so true). An unknown task name is left for the suite to report.
bool NeedsSentences(const RunSuiteOptions& opt);

// Fills `store`, a new one, with the samples of the run, all in one transaction, and
// calls `before_commit` (when given) inside it. A shard run keeps the samples of its
// shard, at their positions in the whole suite, so that the shards merge into the
// unsharded run (store/merge.h). `python` serves the suite's code sources and may be
// null when none needs it. `notes` (when given) gets what the suite says of its data
// files (Suite::notes: one smaller than a subtask's samples is used again).
Status AddRunSamples(const ResolvedRun& run, const SentenceSplitter* sentences,
                     PythonPool* python, RunStore* store,
                     const std::function<Status()>& before_commit = nullptr,
                     std::vector<std::string>* notes = nullptr);

// The price that costs a run of `model`: the budget's price_in and price_out, else the
// model's line in its prices table file, else in the built-in table; nullopt when none
// has it. Errors (naming the flag): one price without the other, a price out of range,
// a table that cannot be read or parsed.
StatusOr<std::optional<Price>> ResolvePrice(const std::string& model, const Budget& budget);

// Why `url` cannot be an API root ("expected an http:// or https:// URL", "no host",
// the call given instead of the root...), or "" when it can.
std::string BadBaseUrl(std::string_view url);

// The API roots of an endpoints file (--endpoints FILE): one URL a line; blank lines
// and '#' comments are skipped. Errors name the file and line: a bad URL (BadBaseUrl),
// no URL at all, a file that cannot be read.
StatusOr<std::vector<std::string>> ReadEndpointsFile(const std::string& path);

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_RUN_JOB_H_
