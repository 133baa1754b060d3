// Running a suite against a model: what `structtest run` does, as a call. The suite is
// generated (or a samples file read) into a run directory, every sample is asked of the
// model (a provider's API, an OpenAI-compatible server, or a built-in responder), the
// answers are scored and report.json and report.html written. Calling it again with the
// same options resumes the run where it stopped (after a stop, a crash or kill -9) and
// asks only what is unanswered or errored; other options are refused, naming the one
// that differs. Read the finished run with structtest/run_reader.h.
#ifndef STRUCTTEST_RUN_H_
#define STRUCTTEST_RUN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/generate.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

class SentenceSplitter;

struct RunSuiteOptions {
  // PROVIDER/NAME (openai/..., anthropic/..., gemini/...; the key from
  // OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) or builtin/NAME (oracle, null,
  // echo, skeleton, loophole: answered in process).
  std::string model;
  // The API roots serving the model (one per replica); empty: the provider's.
  std::vector<std::string> base_urls;
  GenerateOptions suite;  // its shard splits the run as `run --shard` does
  // A samples file (JSONL of `structtest generate`) asked instead of generating; the
  // suite's tasks and limit still filter it.
  std::string samples;
  // The run directory; "": runs/ plus a name made from the model and the suite.
  std::string out;
  RuleSet rules = RuleSet::kPaper;
  int64_t repeats = 1;   // each sample asked this many times
  int concurrency = 8;   // requests in flight per endpoint
  int max_tokens = 0;    // 0: the provider's default (4096 for anthropic)
  // nullopt: structtest's default for the model (0, the most reproducible, where the
  // model takes a temperature).
  std::optional<double> temperature;
  std::string system;    // a system message before every prompt; "": none
  int retries = 5;       // of a request failing with 429, 5xx or a network error
  double timeout_seconds = 600;
  bool use_cache = true;  // the response cache: requests seen before are not asked
  std::string cache;      // its file; "": $STRUCTTEST_CACHE, else ~/.cache/structtest
  std::string nltk_data;  // the Punkt model's folder; "": $NLTK_DATA's, else built in
  std::string python;     // python3 for the code subtasks; "": found as `score` finds it
  int score_jobs = 0;     // threads and python3 workers scoring code, 1 to 1024; 0: one per core
};

struct RunSuiteResult {
  std::string dir;           // the run directory
  bool interrupted = false;  // stopped by `stop`; the same call again continues
  // Finished with requests errored or answers not scored (the same call again asks
  // the errored ones).
  bool failures = false;
};

// Runs `options` to the end, or until `stop` (when given) is set. `log`, when given,
// receives what `structtest run` prints (the report table, then "structtest: ..."
// notes), a piece at a time. Errors: options that are not valid (each names the
// option), a run directory holding another run, data that cannot be read, no API key,
// a model that fails every request.
StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options,
                                  const std::atomic<bool>* stop = nullptr,
                                  const std::function<void(std::string_view)>& log = nullptr);

// Scoring a run's stored answers without asking the model: `structtest rescore` (under
// another rule set, or a newer checker's) and `structtest import` (answers of an
// offline engine).
struct RescoreOptions {
  RuleSet rules = RuleSet::kPaper;
  // The Punkt model: from this folder, else $NLTK_DATA's, else the built-in one;
  // `sentences`, when given, instead (it must outlive the call).
  std::string nltk_data;
  const SentenceSplitter* sentences = nullptr;
  std::string python;  // python3 for the code subtasks; "": as `score` finds it
  int score_jobs = 0;  // threads and python3 workers, 1 to 1024; 0: one per core
};

struct RescoreResult {
  std::string table;   // the run's table under the rule set, as `rescore` prints it
  int64_t errors = 0;  // requests that failed and answers that could not be scored
};

// Scores the answers of the run in `dir` that have no verdict of the current checker
// under options.rules (and failed scorings again), stores the verdicts, and gives the
// whole run's table. Errors: no run in `dir`, bad options, the sentence model.
StatusOr<RescoreResult> RescoreRun(const std::string& dir, const RescoreOptions& options);

struct ImportResult {
  int64_t lines = 0;     // result lines in the file
  int64_t answered = 0;  // answers stored
  int64_t errored = 0;   // request errors stored (their samples stay unanswered)
  int64_t skipped = 0;   // results for samples answered already (kept as they were)
  int64_t samples = 0;   // the run's samples, and how many are answered now
  int64_t samples_answered = 0;
  RescoreResult scored;  // RescoreRun's, after the import
};

// Stores the answers in `results` (an OpenAI batch output file, e.g. vLLM run-batch's,
// for the requests `structtest run --offline FILE` wrote) into the run in `dir`, then
// scores it as RescoreRun does. Every line is checked before anything is stored: a line
// that is not a result, or a custom id the run did not write (a request of other
// settings included), refuses the whole file, naming the line; so are the options and
// the sentence model, before the run is opened.
StatusOr<ImportResult> ImportResults(const std::string& dir, const std::string& results,
                                     const RescoreOptions& options);

}  // namespace structtest

#endif  // STRUCTTEST_RUN_H_
