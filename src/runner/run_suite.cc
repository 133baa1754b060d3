#include "structtest/run.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "backends/providers.h"
#include "backends/request_controls.h"
#include "core/shard.h"
#include "runner/batch_runner.h"
#include "runner/run_identity.h"
#include "runner/run_job.h"
#include "runner/score_run.h"
#include "sources/split.h"
#include "store/run_store.h"
#include "structtest/sentences.h"
#include "tasks/responders.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest {

static_assert(kMaxRepeats == RunStore::kMaxRepeats);

namespace {

// What only a model behind an API uses, refused for the built-in responders.
Status CheckApiOnlyOptions(const RunSuiteOptions& o) {
  const std::pair<bool, const char*> api_only[] = {
      {o.dry_run, "--dry-run"},
      {o.max_cost.has_value(), "--max-cost"},
      {o.max_tokens_total.has_value(), "--max-tokens-total"},
      {o.price_in.has_value(), "--price-in"},
      {o.price_out.has_value(), "--price-out"},
      {!o.prices.empty(), "--prices"},
      {o.system.has_value(), "--system"},
      {o.top_p.has_value(), "--top-p"},
      {!o.stop.empty(), "--stop"},
      {o.sampling_seed.has_value(), "--sampling-seed"},
      {!o.reasoning_effort.empty(), "--reasoning-effort"},
      {o.thinking_budget.has_value(), "--thinking-budget"},
      {o.extra_body.has_value(), "--extra-body"},
      {!o.headers.empty(), "--header"}};
  for (const auto& [given, flag] : api_only) {
    if (!given) continue;
    return Status::InvalidArgument(fmt::format(
        "{}: the built-in responders send nothing and cost nothing; name a model with "
        "--model PROVIDER/NAME",
        flag));
  }
  return Status::Ok();
}

// --batch's and --offline's refusals: a model with no batch API, options that contradict.
// `endpoints`: the API roots given, --endpoints' included.
Status CheckBatchOptions(const RunSuiteOptions& o, const std::optional<ModelSpec>& spec,
                         size_t endpoints) {
  if (o.batch || o.batch_retry_online || o.batch_size != 0 || o.batch_poll) {
    if (!o.batch) {
      return Status::InvalidArgument(
          fmt::format("{}: it goes with --batch", o.batch_retry_online ? "--batch-retry-online"
                                                  : o.batch_size != 0  ? "--batch-size"
                                                                       : "--batch-poll"));
    }
    if (!spec) {
      return Status::InvalidArgument(fmt::format(
          "--batch: {} has no batch API (the built-in responders answer in process); --batch "
          "takes openai/, anthropic/ and gemini/ models",
          o.model.empty() ? "the built-in responders" : o.model));
    }
    if (!o.offline.empty()) {
      return Status::InvalidArgument("--batch --offline: pick one (--batch asks the provider's "
                                     "batch API; --offline writes a file and asks nothing)");
    }
    if (endpoints > 1) {
      return Status::InvalidArgument(
          "--batch: a batch goes to one API; give one --base-url (replicas are for online runs)");
    }
    if (o.batch_size < 0) {
      return Status::InvalidArgument(fmt::format(
          "--batch-size {}: expected a number of requests (0: the provider's limit)",
          o.batch_size));
    }
    if (o.batch_poll && !(*o.batch_poll > 0 && *o.batch_poll <= 3600)) {
      return Status::InvalidArgument(fmt::format(
          "--batch-poll {}: expected a number of seconds, more than 0, at most 3600",
          *o.batch_poll));
    }
  }
  if (!o.offline.empty()) {
    if (!spec || spec->provider != Provider::kOpenAi) {
      return Status::InvalidArgument(fmt::format(
          "--offline: it writes an OpenAI batch input file, for openai/ models (an offline "
          "engine such as vLLM serving NAME); --model {} is not one",
          o.model.empty() ? "(none)" : o.model));
    }
    if (o.dry_run) return Status::InvalidArgument("--offline --dry-run: pick one");
  }
  return Status::Ok();
}

// The ranges of the numeric options.
Status CheckRanges(const RunSuiteOptions& o) {
  if (o.repeats < 1 || o.repeats > RunStore::kMaxRepeats) {
    return Status::InvalidArgument(
        fmt::format("--repeats {}: expected a whole number from 1 to {}", o.repeats,
                    RunStore::kMaxRepeats));
  }
  if (o.auto_concurrency) {
    if (o.max_concurrency < 1 || o.max_concurrency > 4096) {
      return Status::InvalidArgument(
          fmt::format("--max-j {}: expected 1 to 4096", o.max_concurrency));
    }
  } else if (o.concurrency < 1 || o.concurrency > 4096) {
    return Status::InvalidArgument(
        fmt::format("--concurrency {}: expected 1 to 4096", o.concurrency));
  }
  if (o.retries < 0 || o.retries > 100) {
    return Status::InvalidArgument(fmt::format("--retries {}: expected 0 to 100", o.retries));
  }
  if (!(o.max_rps >= 0)) {
    return Status::InvalidArgument(
        fmt::format("--max-rps {}: expected a positive rate (0: no limit)", o.max_rps));
  }
  if (!(o.timeout_seconds > 0)) {
    return Status::InvalidArgument(
        fmt::format("--timeout {}: expected a positive number of seconds", o.timeout_seconds));
  }
  if (o.max_tokens < 0) {
    return Status::InvalidArgument(
        fmt::format("--max-tokens {}: expected 0 (provider default) or more", o.max_tokens));
  }
  if (o.max_cost && !(*o.max_cost > 0 && *o.max_cost < 1e12)) {
    return Status::InvalidArgument(
        fmt::format("--max-cost {}: expected a positive number of USD", *o.max_cost));
  }
  if (o.max_tokens_total && *o.max_tokens_total < 1) {
    return Status::InvalidArgument(fmt::format(
        "--max-tokens-total {}: expected a positive number of tokens", *o.max_tokens_total));
  }
  if (o.temperature && o.no_temperature) {
    return Status::InvalidArgument(fmt::format(
        "--temperature {} and none: pick one", *o.temperature));
  }
  if (!o.use_cache && !o.cache.empty()) {
    return Status::InvalidArgument(fmt::format(
        "--cache {} --no-cache: pick one (--no-cache neither reads nor fills a cache)", o.cache));
  }
  return Status::Ok();
}

// The internal options of `options`, checked whole (the CLI's checks and RunJob's
// REQUIRES), and the model they name (nullopt: built-in responders).
StatusOr<RunJobOptions> ToRunJobOptions(const RunSuiteOptions& options,
                                        std::optional<ModelSpec>* spec) {
  RETURN_IF_ERROR(CheckRanges(options));
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
  if (options.suite.shard_count != 1 || options.suite.shard_index != 1) {
    ASSIGN_OR_RETURN(opt.shard, ParseShard(fmt::format("{}/{}", options.suite.shard_index,
                                                       options.suite.shard_count)));
  }
  opt.samples = options.samples;
  opt.out = options.out;
  opt.rules = options.rules;
  opt.repeats = options.repeats;
  opt.auto_concurrency = options.auto_concurrency;
  opt.concurrency = options.auto_concurrency ? options.max_concurrency : options.concurrency;
  ASSIGN_OR_RETURN(opt.score_jobs, ResolveScoreJobs(options.score_jobs));
  opt.max_tokens = options.max_tokens;
  opt.temperature = options.temperature;
  if (options.system) {
    ASSIGN_OR_RETURN(opt.controls.system, ReadTextFlag("--system", *options.system));
  }
  opt.controls.top_p = options.top_p;
  opt.controls.stop = options.stop;
  opt.controls.seed = options.sampling_seed;
  opt.controls.reasoning_effort = options.reasoning_effort;
  opt.controls.thinking_budget = options.thinking_budget;
  if (options.extra_body) {
    ASSIGN_OR_RETURN(opt.controls.extra_body, ParseExtraBody(*options.extra_body));
  }
  for (const std::string& line : options.headers) {
    ASSIGN_OR_RETURN(HttpHeader header, ParseHeaderFlag(line));
    opt.headers.push_back(std::move(header));
  }
  opt.retries = options.retries;
  opt.timeout = options.timeout_seconds;
  opt.max_rps = options.max_rps;
  opt.ca_cert = options.ca_cert;
  opt.http11 = options.http11;
  opt.no_cache = !options.use_cache;
  opt.cache = options.cache;
  opt.python = options.python;
  opt.quiet = options.quiet;
  opt.max_cost = options.max_cost;
  opt.max_tokens_total = options.max_tokens_total;
  opt.dry_run = options.dry_run;
  opt.batch = options.batch;
  opt.batch_poll = options.batch_poll.value_or(opt.batch_poll);
  opt.batch_size = options.batch_size;
  opt.batch_retry_online = options.batch_retry_online;
  opt.offline = options.offline;
  for (const std::string& url : opt.base_urls) {
    if (const std::string why = BadBaseUrl(url); !why.empty()) {
      return Status::InvalidArgument(fmt::format("--base-url {}: {}", PublicEndpoint(url), why));
    }
  }
  std::vector<std::string> endpoints;
  if (!options.endpoints_file.empty()) {
    ASSIGN_OR_RETURN(endpoints, ReadEndpointsFile(options.endpoints_file));
    opt.base_urls.insert(opt.base_urls.end(), endpoints.begin(), endpoints.end());
  }
  // The suite is checked before anything is created: a refused run leaves no directory.
  if (opt.samples.empty()) {
    RETURN_IF_ERROR(CheckSuiteOptions(opt.suite));
  } else {
    RETURN_IF_ERROR(ResolveTasks(opt.suite.tasks).status());
  }

  // Who answers: built-in responders (in process) or a model behind an API.
  spec->reset();
  if (opt.model.empty() || std::string_view(opt.model).starts_with("builtin/")) {
    const auto names = BuiltinResponderNames();
    if (!opt.model.empty() &&
        std::find(names.begin(), names.end(), opt.model.substr(8)) == names.end()) {
      std::string known;
      for (std::string_view n : names) {
        known += fmt::format("{}builtin/{}", known.empty() ? "" : ", ", n);
      }
      return Status::InvalidArgument(fmt::format(
          "--model {}: unknown built-in responder (expected one of {})", opt.model, known));
    }
    if (!opt.base_urls.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{}: the built-in responders answer in process; pass --model PROVIDER/NAME to ask a "
          "server",
          options.base_urls.empty() ? "--endpoints" : "--base-url"));
    }
    RETURN_IF_ERROR(CheckApiOnlyOptions(options));
  } else {
    ASSIGN_OR_RETURN(*spec, ParseModelSpec(opt.model));
  }
  RETURN_IF_ERROR(CheckBatchOptions(options, *spec, opt.base_urls.size()));
  RETURN_IF_ERROR(SettleRequestSettings(
      *spec ? &**spec : nullptr, options.temperature.has_value() || options.no_temperature, &opt));
  if (*spec) {
    ASSIGN_OR_RETURN(opt.price, ResolvePrice(opt.model, {options.price_in, options.price_out,
                                                         options.prices}));
    if (opt.max_cost && !opt.price) {
      return Status::InvalidArgument(fmt::format(
          "--max-cost {}: no price for {}: pass --price-in and --price-out (USD per million "
          "tokens) or --prices FILE",
          *opt.max_cost, opt.model));
    }
  }
  if (opt.model.empty() && !opt.out.empty()) {
    return Status::InvalidArgument(
        "--out: name the responder with --model (builtin/oracle, ...) to store a run");
  }
  return opt;
}

}  // namespace

std::vector<std::string> BuiltinResponders() {
  std::vector<std::string> names;
  for (std::string_view name : BuiltinResponderNames()) names.emplace_back(name);
  return names;
}

StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options, const std::atomic<bool>* stop,
                                  const RunSuiteOutput& output) {
  std::optional<ModelSpec> spec;
  ASSIGN_OR_RETURN(const RunJobOptions opt, ToRunJobOptions(options, &spec));
  // The Punkt model, loaded when the suite may need it.
  std::shared_ptr<const SentenceSplitter> sentences;
  if (NeedsSentences(opt)) {
    ASSIGN_OR_RETURN(sentences, LoadSentenceModel(options.nltk_data));
  }
  ASSIGN_OR_RETURN(const RunJobResult ran, RunJob(opt, sentences.get(), stop, output));
  RunSuiteResult result;
  result.dir = opt.model.empty() ? "" : opt.out.empty() ? DefaultRunDir(opt) : opt.out;
  result.interrupted = ran.interrupted;
  result.failures = ran.failures;
  return result;
}

StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options, const std::atomic<bool>* stop,
                                  const std::function<void(std::string_view)>& log) {
  RunSuiteOutput output;
  if (log) {
    output.out = log;
    output.note = [&log](std::string_view line) { log(fmt::format("structtest: {}\n", line)); };
    output.warning = [&log](std::string_view line) {
      log(fmt::format("structtest: warning: {}\n", line));
    };
    output.log = log;
  }
  return RunSuite(options, stop, output);
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
  result.top_errors = imported->top_errors;
  ASSIGN_OR_RETURN(result.scored, ScoreStoredRun(store.get(), scoring, options));
  ASSIGN_OR_RETURN(const RunCounts counts, store->Counts());
  result.samples = counts.samples;
  result.samples_answered = counts.answered;
  return result;
}

}  // namespace structtest
