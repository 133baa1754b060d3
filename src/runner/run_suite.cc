#include "structtest/run.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "backends/providers.h"
#include "runner/batch_runner.h"
#include "runner/run_identity.h"
#include "runner/run_job.h"
#include "runner/score_run.h"
#include "sources/split.h"
#include "store/run_store.h"
#include "tasks/responders.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest {

StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options, const std::atomic<bool>* stop,
                                  const std::function<void(std::string_view)>& log) {
  RunJobOptions opt;
  opt.model = options.model;
  opt.base_urls = options.base_urls;
  opt.suite.suite = options.suite.suite;
  opt.suite.seed = options.suite.seed;
  opt.suite.tasks = options.suite.tasks;
  opt.suite.size = options.suite.size;
  opt.suite.limit = options.suite.limit;
  opt.suite.documents = options.suite.documents;
  opt.suite.mbpp = options.suite.mbpp;
  opt.suite.apps = options.suite.apps;
  opt.suite.gsm8k = options.suite.gsm8k;
  ASSIGN_OR_RETURN(opt.suite.split, ParseSourceSplit(options.suite.split));
  for (const std::string& task : options.suite.tasks) {
    opt.tasks_text += (opt.tasks_text.empty() ? "" : ",") + task;
  }
  if (options.suite.shard_count > 1) {
    ASSIGN_OR_RETURN(opt.shard, ParseShard(fmt::format("{}/{}", options.suite.shard_index,
                                                       options.suite.shard_count)));
  }
  opt.samples = options.samples;
  opt.out = options.out;
  opt.rules = options.rules;
  if (options.repeats < 1 || options.repeats > RunStore::kMaxRepeats) {
    return Status::InvalidArgument(
        fmt::format("repeats {}: expected 1 to {}", options.repeats, RunStore::kMaxRepeats));
  }
  opt.repeats = options.repeats;
  if (options.concurrency < 1 || options.concurrency > 4096) {
    return Status::InvalidArgument(
        fmt::format("concurrency {}: expected 1 to 4096", options.concurrency));
  }
  opt.concurrency = options.concurrency;
  ASSIGN_OR_RETURN(opt.score_jobs, ResolveScoreJobs(options.score_jobs));
  opt.max_tokens = options.max_tokens;
  opt.controls.system = options.system;
  opt.retries = options.retries;
  opt.timeout = options.timeout_seconds;
  opt.no_cache = !options.use_cache;
  opt.cache = options.cache;
  opt.python = options.python;
  opt.quiet = true;
  for (const std::string& url : opt.base_urls) {
    if (const std::string why = BadBaseUrl(url); !why.empty()) {
      return Status::InvalidArgument(fmt::format("base url {}: {}", PublicEndpoint(url), why));
    }
  }
  if (opt.samples.empty()) {
    RETURN_IF_ERROR(CheckSuiteOptions(opt.suite));
  } else {
    RETURN_IF_ERROR(ResolveTasks(opt.suite.tasks).status());
  }

  std::optional<ModelSpec> spec;
  if (std::string_view(opt.model).starts_with("builtin/")) {
    const auto names = BuiltinResponderNames();
    if (std::find(names.begin(), names.end(), opt.model.substr(8)) == names.end()) {
      return Status::InvalidArgument(
          fmt::format("model {}: unknown built-in responder", opt.model));
    }
    if (!opt.base_urls.empty()) {
      return Status::InvalidArgument(
          "base urls: the built-in responders answer in process, they take none");
    }
  } else {
    ASSIGN_OR_RETURN(spec, ParseModelSpec(opt.model));
  }
  opt.temperature = options.temperature;
  RETURN_IF_ERROR(SettleRequestSettings(spec ? &*spec : nullptr,
                                        options.temperature.has_value(), &opt));
  if (spec) {
    ASSIGN_OR_RETURN(opt.price, ResolvePrice(opt.model, {}));
  }

  std::unique_ptr<SentenceSplitter> sentences;
  if (NeedsSentences(opt)) {
    ASSIGN_OR_RETURN(sentences, SentenceSplitter::Load(options.nltk_data));
  }
  RunJobOutput output;
  if (log) {
    output.out = log;
    output.note = [&log](std::string_view line) { log(fmt::format("structtest: {}\n", line)); };
    output.warning = [&log](std::string_view line) {
      log(fmt::format("structtest: warning: {}\n", line));
    };
    output.log = log;
  }
  ASSIGN_OR_RETURN(const RunJobResult ran, RunJob(opt, sentences.get(), stop, output));
  RunSuiteResult result;
  result.dir = opt.out.empty() ? DefaultRunDir(opt) : opt.out;
  result.interrupted = ran.interrupted;
  result.failures = ran.failures;
  return result;
}

namespace {

// What scoring a stored run needs, made before the run is touched: the scoring threads
// and the sentence model (the caller's, or loaded here).
struct StoredRunScoring {
  int jobs = 0;
  std::unique_ptr<SentenceSplitter> loaded;
  const SentenceSplitter* sentences = nullptr;
};

StatusOr<StoredRunScoring> PrepareScoring(const RescoreOptions& options) {
  StoredRunScoring scoring;
  ASSIGN_OR_RETURN(scoring.jobs, ResolveScoreJobs(options.score_jobs));
  scoring.sentences = options.sentences;
  if (scoring.sentences == nullptr) {
    ASSIGN_OR_RETURN(scoring.loaded, SentenceSplitter::Load(options.nltk_data));
    scoring.sentences = scoring.loaded.get();
  }
  return scoring;
}

// Scores the run in `store` as RescoreRun does.
StatusOr<RescoreResult> ScoreStoredRun(RunStore* store, const StoredRunScoring& scoring,
                                       const RescoreOptions& options) {
  ASSIGN_OR_RETURN(const Tally tally, ScoreRun(store, scoring.sentences,
                                               {options.rules, scoring.jobs, options.python}));
  return RescoreResult{RenderTextReport(tally, options.rules), tally.errors()};
}

}  // namespace

StatusOr<RescoreResult> RescoreRun(const std::string& dir, const RescoreOptions& options) {
  ASSIGN_OR_RETURN(const StoredRunScoring scoring, PrepareScoring(options));
  ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, OpenExistingRun(dir));
  return ScoreStoredRun(store.get(), scoring, options);
}

StatusOr<ImportResult> ImportResults(const std::string& dir, const std::string& results,
                                     const RescoreOptions& options) {
  // Nothing is stored unless it can then be scored.
  ASSIGN_OR_RETURN(const StoredRunScoring scoring, PrepareScoring(options));
  ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, OpenExistingRun(dir));
  auto imported = ImportBatchResults(store.get(), results);
  if (!imported.ok()) return imported.status().WithContext("import");
  ImportResult result;
  result.lines = imported->lines;
  result.answered = imported->answered;
  result.errored = imported->errored;
  result.skipped = imported->skipped;
  ASSIGN_OR_RETURN(result.scored, ScoreStoredRun(store.get(), scoring, options));
  ASSIGN_OR_RETURN(const RunCounts counts, store->Counts());
  result.samples = counts.samples;
  result.samples_answered = counts.answered;
  return result;
}

}  // namespace structtest
