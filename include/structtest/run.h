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
  int score_jobs = 0;     // threads and python3 workers scoring code; 0: one per core
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

}  // namespace structtest

#endif  // STRUCTTEST_RUN_H_
