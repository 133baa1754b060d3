#include "structtest/run.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "backends/providers.h"
#include "backends/request_controls.h"
#include "core/shard.h"
#include "runner/batch_runner.h"
#include "runner/run_identity.h"
#include "runner/run_job.h"
#include "runner/score_run.h"
#include "sources/split.h"
#include "store/run_store.h"
#include "structtest/run_reader.h"
#include "structtest/sentences.h"
#include "tasks/responders.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest {

static_assert(kMaxRepeats == RunStore::kMaxRepeats);

namespace {

// What only a model behind an API uses, refused for the built-in responders.
Status CheckApiOnlyOptions(const RunSuiteOptions& o) {
  const RequestSettings& r = o.request;
  const Budget& b = o.budget;
  const std::pair<bool, const char*> api_only[] = {
      {o.dry_run, "`dry_run`"},
      {b.max_cost.has_value(), "`budget.max_cost`"},
      {b.max_tokens_total.has_value(), "`budget.max_tokens_total`"},
      {b.price_in.has_value(), "`budget.price_in`"},
      {b.price_out.has_value(), "`budget.price_out`"},
      {!b.prices.empty(), "`budget.prices`"},
      {r.max_tokens != 0, "`request.max_tokens`"},
      {r.temperature.has_value(), "`request.temperature`"},
      {r.no_temperature, "`request.no_temperature`"},
      {r.system.has_value(), "`request.system`"},
      {r.top_p.has_value(), "`request.top_p`"},
      {!r.stop.empty(), "`request.stop`"},
      {r.sampling_seed.has_value(), "`request.sampling_seed`"},
      {!r.reasoning_effort.empty(), "`request.reasoning_effort`"},
      {r.thinking_budget.has_value(), "`request.thinking_budget`"},
      {r.extra_body.has_value(), "`request.extra_body`"},
      {!r.headers.empty(), "`request.headers`"}};
  for (const auto& [given, flag] : api_only) {
    if (!given) continue;
    return Status::InvalidArgument(fmt::format(
        "{}: the built-in responders send nothing and cost nothing; name a model with "
        "`model` PROVIDER/NAME",
        flag));
  }
  return Status::Ok();
}

// --batch's and --offline's refusals: a model with no batch API, options that contradict.
// `endpoints`: the API roots given, --endpoints' included.
Status CheckBatchOptions(const RunSuiteOptions& o, const std::optional<ModelSpec>& spec,
                         size_t endpoints) {
  const BatchSettings& b = o.batch;
  if (b.api || b.retry_online || b.size != 0 || b.poll_seconds) {
    if (!b.api) {
      return Status::InvalidArgument(
          fmt::format("{}: it goes with `batch.api`", b.retry_online ? "`batch.retry_online`"
                                                  : b.size != 0  ? "`batch.size`"
                                                                 : "`batch.poll_seconds`"));
    }
    if (!spec) {
      return Status::InvalidArgument(fmt::format(
          "`batch.api`: {} has no batch API (the built-in responders answer in process); "
          "`batch.api` "
          "takes openai/, anthropic/ and gemini/ models",
          o.model.empty() ? "the built-in responders" : o.model));
    }
    if (!b.offline.empty()) {
      return Status::InvalidArgument(
          "`batch.api` `batch.offline`: pick one (`batch.api` asks the provider's batch API; "
          "`batch.offline` writes a file and asks nothing)");
    }
    if (endpoints > 1) {
      return Status::InvalidArgument(
          "`batch.api`: a batch goes to one API; give one `transport.base_urls` (replicas are for "
          "online runs)");
    }
    if (b.size < 0) {
      return Status::InvalidArgument(fmt::format(
          "`batch.size` {}: expected a number of requests (0: the provider's limit)", b.size));
    }
    if (b.poll_seconds && !(*b.poll_seconds > 0 && *b.poll_seconds <= 3600)) {
      return Status::InvalidArgument(fmt::format(
          "`batch.poll_seconds` {}: expected a number of seconds, more than 0, at most 3600",
          *b.poll_seconds));
    }
  }
  if (!b.offline.empty()) {
    if (!spec || spec->provider != Provider::kOpenAi) {
      return Status::InvalidArgument(fmt::format(
          "`batch.offline`: it writes an OpenAI batch input file, for openai/ models (an offline "
          "engine such as vLLM serving NAME); `model` {} is not one",
          o.model.empty() ? "(none)" : o.model));
    }
    if (o.dry_run) return Status::InvalidArgument("`batch.offline` `dry_run`: pick one");
  }
  return Status::Ok();
}

// The ranges of the numeric options.
Status CheckRanges(const RunSuiteOptions& o) {
  const Transport& t = o.transport;
  const RequestSettings& r = o.request;
  if (o.repeats < 1 || o.repeats > RunStore::kMaxRepeats) {
    return Status::InvalidArgument(
        fmt::format("`repeats` {}: expected a whole number from 1 to {}", o.repeats,
                    RunStore::kMaxRepeats));
  }
  if (t.auto_concurrency) {
    if (t.max_concurrency < 1 || t.max_concurrency > 4096) {
      return Status::InvalidArgument(
          fmt::format("`transport.max_concurrency` {}: expected 1 to 4096", t.max_concurrency));
    }
  } else if (t.concurrency < 1 || t.concurrency > 4096) {
    return Status::InvalidArgument(
        fmt::format("`transport.concurrency` {}: expected 1 to 4096", t.concurrency));
  }
  if (t.retries < 0 || t.retries > 100) {
    return Status::InvalidArgument(
        fmt::format("`transport.retries` {}: expected 0 to 100", t.retries));
  }
  if (!(t.max_rps >= 0)) {
    return Status::InvalidArgument(
        fmt::format("`transport.max_rps` {}: expected a positive rate (0: no limit)", t.max_rps));
  }
  if (!(t.timeout_seconds > 0)) {
    return Status::InvalidArgument(
        fmt::format("`transport.timeout_seconds` {}: expected a positive number of seconds",
                    t.timeout_seconds));
  }
  if (r.max_tokens < 0) {
    return Status::InvalidArgument(
        fmt::format("`request.max_tokens` {}: expected 0 (provider default) or more",
                    r.max_tokens));
  }
  if (o.budget.max_cost && !(*o.budget.max_cost > 0 && *o.budget.max_cost < 1e12)) {
    return Status::InvalidArgument(
        fmt::format("`budget.max_cost` {}: expected a positive number of USD", *o.budget.max_cost));
  }
  if (o.budget.max_tokens_total && *o.budget.max_tokens_total < 1) {
    return Status::InvalidArgument(fmt::format(
        "`budget.max_tokens_total` {}: expected a positive number of tokens",
        *o.budget.max_tokens_total));
  }
  if (r.temperature && r.no_temperature) {
    return Status::InvalidArgument(fmt::format(
        "`request.temperature` {} and `request.no_temperature`: pick one", *r.temperature));
  }
  if (!t.use_cache && !t.cache.empty()) {
    return Status::InvalidArgument(fmt::format(
        "`transport.cache` {} `transport.use_cache=false`: pick one "
        "(`transport.use_cache=false` neither reads nor fills a cache)",
        t.cache));
  }
  return Status::Ok();
}

// The request every prompt is sent with, as `r` gives it (not settled: no model name,
// no default temperature yet): the token limit, the temperature, the controls
// (--system's file read, --extra-body parsed).
StatusOr<ModelRequest> RequestAsGiven(const RequestSettings& r) {
  ModelRequest every;
  every.max_tokens = r.max_tokens;
  every.temperature = r.temperature;
  RequestControls& c = every.controls;
  if (r.system) {
    ASSIGN_OR_RETURN(c.system, ReadTextFlag("`request.system`", *r.system));
  }
  c.top_p = r.top_p;
  c.stop = r.stop;
  c.seed = r.sampling_seed;
  c.reasoning_effort = r.reasoning_effort;
  c.thinking_budget = r.thinking_budget;
  if (r.extra_body) {
    ASSIGN_OR_RETURN(c.extra_body, ParseExtraBody(*r.extra_body));
  }
  return every;
}

// `options` checked whole (RunJob's REQUIRES) and resolved (run_options.h).
StatusOr<ResolvedRun> ResolveRun(const RunSuiteOptions& options) {
  RETURN_IF_ERROR(CheckRanges(options));
  ResolvedRun run;
  run.options = options;
  RunSuiteOptions& opt = run.options;
  // The split is checked with the suite below; read here first, as it always was.
  RETURN_IF_ERROR(ParseSourceSplit(opt.suite.split).status());
  if (opt.suite.shard_count != 1 || opt.suite.shard_index != 1) {
    // GenerateOptions' shard is set by SetShard, which checks it; checked again here for
    // one set by hand.
    RETURN_IF_ERROR(ParseShard(fmt::format("{}/{}", opt.suite.shard_index,
                                           opt.suite.shard_count)).status());
    run.shard = Shard{opt.suite.shard_index, opt.suite.shard_count};
  }
  Transport& transport = opt.transport;
  if (transport.auto_concurrency) transport.concurrency = transport.max_concurrency;
  ASSIGN_OR_RETURN(opt.scoring.score_jobs, ResolveScoreJobs(opt.scoring.score_jobs));
  ASSIGN_OR_RETURN(run.request, RequestAsGiven(opt.request));
  for (const std::string& line : opt.request.headers) {
    ASSIGN_OR_RETURN(HttpHeader header, ParseHeaderFlag(line));
    run.headers.push_back(std::move(header));
  }
  for (const std::string& url : transport.base_urls) {
    if (const std::string why = BadBaseUrl(url); !why.empty()) {
      return Status::InvalidArgument(
          fmt::format("`transport.base_urls` {}: {}", PublicEndpoint(url), why));
    }
  }
  if (!transport.endpoints_file.empty()) {
    ASSIGN_OR_RETURN(const std::vector<std::string> endpoints,
                     ReadEndpointsFile(transport.endpoints_file));
    transport.base_urls.insert(transport.base_urls.end(), endpoints.begin(), endpoints.end());
    transport.endpoints_file.clear();
  }
  // The suite is checked before anything is created: a refused run leaves no directory.
  if (opt.samples.empty()) {
    RETURN_IF_ERROR(CheckSuiteOptions(opt.suite));
  } else {
    RETURN_IF_ERROR(ResolveTasks(opt.suite.tasks).status());
  }

  // Who answers: built-in responders (in process) or a model behind an API.
  if (opt.model.empty() || IsBuiltinModel(opt.model)) {
    const auto names = BuiltinResponderNames();
    if (!opt.model.empty() && !IsBuiltinResponder(BuiltinResponderOf(opt.model))) {
      std::string known;
      for (std::string_view n : names) {
        known += fmt::format("{}builtin/{}", known.empty() ? "" : ", ", n);
      }
      return Status::InvalidArgument(fmt::format(
          "`model` {}: unknown built-in responder (expected one of {}, or builtin/noisy-P for "
          "a composed suite)", opt.model, known));
    }
    if (!transport.base_urls.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{}: the built-in responders answer in process; pass `model` PROVIDER/NAME to ask a "
          "server",
          options.transport.base_urls.empty() ? "`transport.endpoints_file`"
                                              : "`transport.base_urls`"));
    }
    RETURN_IF_ERROR(CheckApiOnlyOptions(options));
  } else {
    ASSIGN_OR_RETURN(run.spec, ParseModelSpec(opt.model));
    run.request.model = run.spec->name;
  }
  RETURN_IF_ERROR(CheckBatchOptions(options, run.spec, transport.base_urls.size()));
  RETURN_IF_ERROR(SettleRequestSettings(&run));
  if (run.spec) {
    ASSIGN_OR_RETURN(run.price, ResolvePrice(opt.model, opt.budget));
    if (opt.budget.max_cost && !run.price) {
      return Status::InvalidArgument(fmt::format(
          "`budget.max_cost` {}: no price for {}: pass `budget.price_in` and "
          "`budget.price_out` (USD per million tokens) or `budget.prices` FILE",
          *opt.budget.max_cost, opt.model));
    }
  }
  if (opt.model.empty() && !opt.out.empty()) {
    return Status::InvalidArgument(
        "`out`: name the responder with `model` (builtin/oracle, ...) to store a run");
  }
  return run;
}

}  // namespace

std::vector<std::string> BuiltinResponders() {
  std::vector<std::string> names;
  for (std::string_view name : BuiltinResponderNames()) names.emplace_back(name);
  return names;
}

StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options, const std::atomic<bool>* stop,
                                  const RunSuiteOutput& output) {
  ASSIGN_OR_RETURN(const ResolvedRun run, ResolveRun(options));
  // The Punkt model, loaded when the suite may need it.
  std::shared_ptr<const SentenceSplitter> sentences;
  if (NeedsSentences(options)) {
    ASSIGN_OR_RETURN(sentences, LoadSentenceModel(options.scoring.nltk_data));
  }
  ASSIGN_OR_RETURN(const RunJobResult ran, RunJob(run, sentences.get(), stop, output));
  RunSuiteResult result;
  result.dir = options.model.empty() ? ""
               : options.out.empty() ? DefaultRunDir(options)
                                     : options.out;
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

// What scoring a stored run needs, made before the run is touched: the scoring
// settings with their threads resolved, and the sentence model (the caller's, or loaded
// here).
struct StoredRunScoring {
  ScoringSettings settings;
  std::unique_ptr<SentenceSplitter> loaded;
  const SentenceSplitter* sentences = nullptr;
};

StatusOr<StoredRunScoring> PrepareScoring(const RescoreOptions& options) {
  StoredRunScoring scoring;
  scoring.settings = options.scoring;
  ASSIGN_OR_RETURN(scoring.settings.score_jobs, ResolveScoreJobs(options.scoring.score_jobs));
  scoring.sentences = options.sentences;
  if (scoring.sentences == nullptr) {
    ASSIGN_OR_RETURN(scoring.loaded, SentenceSplitter::Load(options.scoring.nltk_data));
    scoring.sentences = scoring.loaded.get();
  }
  return scoring;
}

// Scores the run in `store` as RescoreRun does.
StatusOr<RescoreResult> ScoreStoredRun(RunStore* store, const StoredRunScoring& scoring) {
  ASSIGN_OR_RETURN(const Tally tally, ScoreRun(store, scoring.sentences, scoring.settings));
  return RescoreResult{RenderTextReport(tally, scoring.settings.rules), tally.errors()};
}

}  // namespace

StatusOr<RescoreResult> RescoreRun(const std::string& dir, const RescoreOptions& options) {
  ASSIGN_OR_RETURN(const StoredRunScoring scoring, PrepareScoring(options));
  ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, OpenExistingRun(dir));
  return ScoreStoredRun(store.get(), scoring);
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
  ASSIGN_OR_RETURN(result.scored, ScoreStoredRun(store.get(), scoring));
  ASSIGN_OR_RETURN(const RunCounts counts, store->Counts());
  result.samples = counts.samples;
  result.samples_answered = counts.answered;
  store.reset();  // the reports read the run anew
  RETURN_IF_ERROR(WriteRunReports(dir).WithContext("import"));
  return result;
}

}  // namespace structtest
