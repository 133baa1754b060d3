// What defines one `structtest run`, as plain values: the model, the suite, the
// request settings and how to ask. The CLI reads its flags into it (run_command.cc);
// run_identity.h derives the run's identity from it and run_job.h runs it.
#ifndef STRUCTTEST_RUNNER_RUN_OPTIONS_H_
#define STRUCTTEST_RUNNER_RUN_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/request_controls.h"
#include "core/shard.h"
#include "report/cost.h"
#include "tasks/score_stage.h"
#include "tasks/suite.h"
#include "tasks/task.h"

namespace structtest {

struct RunJobOptions {
  // PROVIDER/NAME, builtin/NAME, or "" for every built-in responder (in memory).
  std::string model;
  // The API roots serving the model, one per replica; empty: the provider's.
  std::vector<std::string> base_urls;
  SuiteOptions suite;
  // A JSONL file of samples to ask instead of generating `suite` (its tasks and limit
  // still filter them).
  std::string samples;
  // The --tasks text as given, for messages.
  std::string tasks_text;
  // Each sample asked this many times (store/run_store.h).
  int64_t repeats = 1;
  // Requests in flight per endpoint; with auto_concurrency, the most per endpoint.
  int concurrency = 8;
  bool auto_concurrency = false;
  int score_jobs = DefaultScoreJobs();
  int max_tokens = 0;
  std::optional<double> temperature;
  // Set when the temperature was not given and `temperature` is DefaultTemperature's: a
  // run stored without one keeps none (KeepStoredTemperature).
  bool temperature_defaulted = false;
  RequestControls controls;
  std::vector<HttpHeader> headers;
  // The run directory; "": DefaultRunDir's.
  std::string out;
  RuleSet rules = RuleSet::kPaper;
  std::string python;  // python3 for the code subtasks; "": PythonOptions' default
  bool no_cache = false;
  std::string cache;   // the response cache file; "": ResponseCache::DefaultPath()
  int retries = 5;
  double max_rps = 0;   // 0: no limit
  double timeout = 600;  // seconds a request may take in all
  std::string ca_cert;
  bool http11 = false;
  bool quiet = false;   // no progress output, fewer notes
  std::optional<Shard> shard;
  // What the run is costed at (ResolvePrice); nullopt: unknown.
  std::optional<Price> price;
  std::optional<double> max_cost;
  std::optional<int64_t> max_tokens_total;
  bool dry_run = false;
  // Batch inference (runner/batch_runner.h).
  bool batch = false;
  double batch_poll = 30;
  bool batch_retry_online = false;
  int64_t batch_size = 0;
  // A file to write the unanswered requests to, asking nothing.
  std::string offline;
};

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_RUN_OPTIONS_H_
