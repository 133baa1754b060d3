#include "runner/run_job.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "backends/adaptive_client.h"
#include "backends/batch_api.h"
#include "backends/endpoint_pool_client.h"
#include "backends/http/curl_client.h"
#include "backends/http/http_transport.h"
#include "backends/providers.h"
#include "backends/rate_limit_client.h"
#include "backends/request_controls.h"
#include "backends/retry_client.h"
#include "core/file_util.h"
#include "core/record_io.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "runner/batch_runner.h"
#include "runner/progress.h"
#include "runner/run_identity.h"
#include "runner/runner.h"
#include "sandbox/python_pool.h"
#include "store/merge.h"
#include "store/response_cache.h"
#include "store/run_store.h"
#include "tasks/registry.h"
#include "tasks/responders.h"
#include "tasks/score_stage.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest {

namespace {

// DIR/report.html, the run's self-contained page (html_report.h), begun while the run
// asks the model: the samples half (the prompts, most of the page) is read and
// compressed on a thread of its own during the request loop, and the rows half waits
// for Finish(). `price`: what the run is costed at (ResolvePrice).
class RunPage {
 public:
  RunPage(const std::string& dir, RuleSet rules, const std::optional<Price>& price)
      : rows_ready_(go_.get_future()) {
    written_ = std::async(std::launch::async, [this, dir, rules, price] {
      // Below the request loop's priority (and so its compressor's, which inherits it):
      // the page takes the CPU time the loop leaves.
      (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
      PageHooks hooks;
      hooks.before_rows = [this] {
        return rows_ready_.get() ? Status::Ok()
                                 : Status::Unavailable("report.html: the run stopped");
      };
      hooks.tallied = [this](size_t, Tally&& tally) { tally_ = std::move(tally); };
      return WriteHtmlReport({dir}, rules, dir + "/report.html", {price}, hooks);
    });
  }
  // Lets the page read the rows, now that they are stored, and waits for it. The
  // run's tally (TallyRun's) comes from the same pass over the rows.
  StatusOr<Tally> Finish() {
    finished_ = true;
    go_.set_value(true);
    RETURN_IF_ERROR(written_.get());
    return std::move(tally_);
  }
  // A run that ends on an error keeps the page it had: the new one is abandoned.
  ~RunPage() {
    if (!finished_) {
      go_.set_value(false);
      written_.wait();
    }
  }

 private:
  std::promise<bool> go_;
  std::future<bool> rows_ready_;
  std::future<Status> written_;
  Tally tally_;
  bool finished_ = false;
};

void Emit(const std::function<void(std::string_view)>& to, std::string_view text) {
  if (to) to(text);
}

struct Outcome {
  RunnerStats stats;
  RunCounts counts;
  bool interrupted = false;
  bool failures = false;
  Aggregates agg;  // of the rule set it was scored under
};

// The closing table of a run of every built-in responder: per rule set, each domain's
// Easy and Hard and the overall figures.
std::string RenderRulesTable(const std::vector<std::string>& names,
                             const std::vector<std::pair<Aggregates, Aggregates>>& by_rules) {
  const auto pct = [](const std::optional<double>& v) {
    return v ? fmt::format(" {:>6.2f}", *v) : std::string("      -");
  };
  std::string out = fmt::format("{:<9} {:<6}", "responder", "rules");
  for (std::string_view d : kPaperDomains) {
    out += fmt::format(" {:>6.6} {:>6.6}", fmt::format("{}", d.substr(0, 4)) + " E",
                       fmt::format("{}", d.substr(0, 4)) + " H");
  }
  out += fmt::format(" {:>6} {:>6} {:>6}\n", "Easy", "Hard", "All");
  for (size_t i = 0; i < names.size() && i < by_rules.size(); ++i) {
    for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
      const Aggregates& agg = rules == RuleSet::kPaper ? by_rules[i].first : by_rules[i].second;
      out += fmt::format("{:<9} {:<6}", names[i], RuleSetName(rules));
      for (std::string_view d : kPaperDomains) {
        const std::string domain(d);
        out += pct(agg.easy.count(domain) ? agg.easy.at(domain) : std::nullopt);
        out += pct(agg.hard.count(domain) ? agg.hard.at(domain) : std::nullopt);
      }
      out += pct(agg.overall_easy) + pct(agg.overall_hard) + pct(agg.all) + "\n";
    }
  }
  return out + "\n";
}

// What the client stack can tell about itself: the -j auto limit for the progress
// line, and lines for the end of the run (per endpoint, the adaptive limit).
struct ClientReport {
  std::function<int64_t()> concurrency_limit;
  std::function<std::string()> closing_lines;
};

// The run's closing text: its title, the table under its rules, the usage and cost
// (`price`: when a model was asked, what it is costed at), and the coverage line.
std::string RunText(const ResolvedRun& run, const std::string& label, const RunCounts& counts,
                    int64_t repeats, const Tally& tally, const std::optional<Price>* price) {
  const RunSuiteOptions& opt = run.options;
  std::string text = fmt::format(
      "== {} on {}{} ({} samples)\n", label,
      opt.samples.empty() ? fmt::format("suite {} (seed {})", opt.suite.suite, opt.suite.seed)
                          : opt.samples,
      run.shard ? ", shard " + run.shard->ToString() : "", counts.samples);
  text += RenderTextReport(tally, opt.scoring.rules);
  if (price != nullptr) text += RenderUsageText(tally, *price);
  const int64_t unscored = tally.errors() - counts.errored;
  text += fmt::format(
      "\nanswered {} of {} {} ({:.2f}% coverage), {} errored; accuracy is over the "
      "answered samples",
      counts.answered, counts.slots,
      repeats > 1 ? fmt::format("requests ({} samples x {} repeats)", counts.samples, repeats)
                  : "samples",
      counts.slots ? 100.0 * counts.answered / counts.slots : 0.0,
      counts.errored);
  if (unscored > 0) text += fmt::format("; {} answered but not scored", unscored);
  if (counts.truncated > 0) {
    text += fmt::format("; {} answer(s) cut off by the token limit (scored as they are; "
                        "raise --max-tokens)",
                        counts.truncated);
  }
  text += "\n";
  return text;
}

// Opens the run in `store` for `run`: a new one gets its samples (a planned suite's,
// when given) and its manifest in one transaction; a stored one must be the same run
// (CheckSameRun), or the same suite with a larger limit, which grows it. The stored
// manifest may keep the temperature (KeepStoredTemperature).
Status OpenRun(ResolvedRun* run, RunStore* store, const std::string& endpoint,
               const CheckEnv& env, PythonPool* python, RunStore* planned,
               const RunJobOutput& output) {
  ASSIGN_OR_RETURN(std::optional<RunManifest> stored, store->Manifest());
  KeepStoredTemperature(stored, run);
  if (stored && stored->merge) {
    return Status::InvalidArgument(fmt::format(
        "{}: a merged run ('structtest merge'); run the missing shards into their own "
        "directories and merge them into it again",
        store->dir()));
  }
  ASSIGN_OR_RETURN(RunCounts before, store->Counts());
  if (!stored && before.samples == 0 && planned != nullptr) {
    // A run in memory of a suite generated once for several responders.
    ASSIGN_OR_RETURN(const RunManifest identity, RunIdentity(*run, endpoint));
    RETURN_IF_ERROR(store->SetManifest(StampedManifest(run->options.scoring.rules, identity)));
    RETURN_IF_ERROR(store->GrowTo(*planned).status());
  } else if (!stored && before.samples == 0) {
    // A new run: the data files are fingerprinted on a thread of their own while the
    // samples are read and stored, and the manifest is written in the samples'
    // transaction, so a run directory never holds samples without it.
    std::future<StatusOr<RunManifest>> identity =
        std::async(std::launch::async, [&] { return RunIdentity(*run, endpoint); });
    std::vector<std::string> notes;
    RETURN_IF_ERROR(AddRunSamples(
        *run, env.sentences, python, store,
        [&]() -> Status {
          ASSIGN_OR_RETURN(RunManifest id, identity.get());
          return store->SetManifest(StampedManifest(run->options.scoring.rules, std::move(id)));
        },
        &notes));
    // what the suite says of its data files (one used again from its start)
    if (!run->options.quiet) {
      for (const std::string& note : notes) Emit(output.warning, note);
    }
  } else {
    ASSIGN_OR_RETURN(const RunManifest identity, RunIdentity(*run, endpoint));
    if (stored && LimitGrows(*stored, identity)) {
      // The same suite with a larger --limit (or none): its first samples are this
      // run's, byte for byte; the run grows and asks only the new ones.
      ASSIGN_OR_RETURN(auto plan, RunStore::OpenInMemory());
      RETURN_IF_ERROR(AddRunSamples(*run, env.sentences, python, plan.get()));
      ASSIGN_OR_RETURN(const int64_t added, store->GrowTo(*plan));
      RETURN_IF_ERROR(store->SetManifest(StampedManifest(run->options.scoring.rules, identity)));
      Emit(output.note, fmt::format("{}: `limit` {} grows the run (limit was {}): {} new sample(s)",
                            store->dir(), identity.limit ? fmt::format("{}", *identity.limit) : "none",
                            *stored->limit, added));
    } else if (stored) {
      RETURN_IF_ERROR(CheckSameRun(store->dir(), *stored, identity));
    } else {
      RETURN_IF_ERROR(store->SetManifest(StampedManifest(run->options.scoring.rules, identity)));
    }
    if (before.samples == 0) {
      RETURN_IF_ERROR(AddRunSamples(*run, env.sentences, python, store));
    }
  }
  if (before.samples > 0 && !run->options.quiet && before.answered < before.slots) {
    Emit(output.note, fmt::format("{}: resuming: {} of {} {} answered, {} errored earlier", store->dir(),
                          before.answered, before.slots,
                          store->repeats() > 1 ? "requests (samples x repeats)" : "samples",
                          before.errored));
  }
  return Status::Ok();
}

// One run into `store`: fill it when new, answer what is pending, score, write the
// reports, and tell `output` how it went.
StatusOr<Outcome> RunOne(ResolvedRun run, const std::string& label, RunStore* store,
                         ResponseCache* cache, ModelClient* client, std::string_view builtin,
                         const std::string& endpoint, const CheckEnv& env, PythonPool* python,
                         bool in_memory, const std::atomic<bool>* stop, const RunJobOutput& output,
                         const ClientReport& client_report = {}, BatchApi* batch_api = nullptr,
                         RunStore* planned = nullptr) {
  const RunSuiteOptions& opt = run.options;
  const RuleSet rules = opt.scoring.rules;
  const std::optional<Price>& price = run.price;
  RETURN_IF_ERROR(OpenRun(&run, store, endpoint, env, python, planned, output));
  if (client != nullptr && !opt.quiet && store->repeats() > 1 && run.request.temperature &&
      *run.request.temperature == 0) {
    Emit(output.note,
         fmt::format("{} repeats of each sample at temperature 0: they differ only where the "
                     "server is not deterministic, so their spread (and its share of the "
                     "intervals) measures that, not sampling; set `request.temperature` to "
                     "sample",
                     store->repeats()));
  }
  RunnerOptions ro;
  ro.scoring = opt.scoring;
  ro.request = {run.request, endpoint, HeaderNames(run.headers)};
  ro.concurrency_limit = client_report.concurrency_limit;
  ro.max_uncommitted = 2 * opt.transport.concurrency *
                       static_cast<int>(std::max<size_t>(1, opt.transport.base_urls.size()));
  ro.stop = stop;
  ro.budget = opt.budget;
  ro.price = price;
  Outcome out;
  const std::string& offline = opt.batch.offline;
  if (!offline.empty()) {
    ASSIGN_OR_RETURN(const int64_t written,
                     WriteOfflineBatch(store, BatchOptionsFrom(ro, opt.batch), offline));
    Emit(output.note, written == 0 ? fmt::format("{}: every sample is answered: nothing to write", store->dir())
                           : fmt::format("{}: {} request(s) written to {}, asked nothing; run them "
                                         "(vllm run-batch -i {} -o RESULTS --model NAME), then "
                                         "'structtest import {} RESULTS'",
                                         store->dir(), written, offline, offline, store->dir()));
    return out;
  }
  Runner runner(store, cache, env, ro);
  std::optional<RunPage> page;
  if (!in_memory) page.emplace(store->dir(), rules, price);
  Progress progress(output.progress != nullptr ? output.progress : stderr,
                    output.progress != nullptr ? Progress::ModeFor(output.progress, opt.quiet)
                                               : Progress::Mode::kQuiet);
  std::optional<BatchRunStats> batched;
  if (batch_api != nullptr) {
    BatchRunOptions bo = BatchOptionsFrom(ro, opt.batch);
    if (!opt.quiet) bo.note = [&output](std::string_view line) { Emit(output.note, line); };
    ASSIGN_OR_RETURN(batched, RunBatches(store, cache, batch_api, bo));
    out.stats.interrupted = batched->interrupted;
    out.stats.budget_reached = batched->budget_reached;
    ASSIGN_OR_RETURN(const RunCounts spent, store->Counts());
    out.stats.spent_input_tokens = spent.spent_input_tokens;
    out.stats.spent_output_tokens = spent.spent_output_tokens;
  }
  if (batch_api == nullptr || (opt.batch.retry_online && !batched->interrupted &&
                               !batched->budget_reached)) {
    ASSIGN_OR_RETURN(out.stats, client != nullptr ? runner.Run(client, &progress)
                                                  : runner.RunBuiltin(builtin, &progress));
  }
  ASSIGN_OR_RETURN(out.counts, store->Counts());
  if (!out.stats.gave_up.empty()) {
    return Status::Unavailable(fmt::format(
        "stopped: the first {} requests all failed, the last with: {}\nfix the model name, "
        "`transport.base_urls` or key and run the same command again (the errors are in {})",
        kGiveUpAfter, out.stats.gave_up, store->dir()));
  }
  if (out.stats.interrupted) {
    // What is there so far; the next run writes it again.
    if (page) RETURN_IF_ERROR(page->Finish().status());
    Emit(output.note, fmt::format("interrupted: {} of {} {} answered and stored in {}; run the "
                          "same command again to continue",
                          out.counts.answered, out.counts.slots,
                          store->repeats() > 1 ? "requests (samples x repeats)" : "samples",
                          store->dir()));
    out.interrupted = true;
    return out;
  }
  Tally tally;
  if (page) {
    RETURN_IF_ERROR(runner.ScoreUnscored());
    ASSIGN_OR_RETURN(tally, page->Finish());
  } else {
    ASSIGN_OR_RETURN(tally, runner.ScoreAndTally());
  }
  out.agg = tally.Compute();
  nlohmann::json served;  // ServedModelsJson's
  if (!in_memory) {
    ASSIGN_OR_RETURN(const nlohmann::json report,
                     RunReportJson(*store, tally, rules,
                                   client != nullptr ? std::optional<std::optional<Price>>(price)
                                                     : std::nullopt));
    served = report.value("served_models", nlohmann::json());
    RETURN_IF_ERROR(WriteFileAtomically(store->dir() + "/report.json", report.dump(2) + "\n"));
  }
  const int64_t unscored = tally.errors() - out.counts.errored;
  Emit(output.out, RunText(run, label, out.counts, store->repeats(), tally,
                           client != nullptr ? &price : nullptr));
  if (output.flush) output.flush();
  if (batched) {
    Emit(output.note, fmt::format("batches: {} submitted, {} found at the provider, {} collected; {} "
                          "answered, {} errored, {} from the cache",
                          batched->submitted, batched->found, batched->collected,
                          batched->answered, batched->errored, batched->cached));
  }
  if (client != nullptr && (!batched || opt.batch.retry_online)) {
    Emit(output.log, fmt::format("structtest: requests: {} sent, {} errored, {} cached, {:.2f} s, "
                                 "{:.1f} req/s\n",
                                 out.stats.sent, out.stats.errored, out.stats.cached,
                                 out.stats.seconds,
                                 out.stats.seconds > 0 ? out.stats.sent / out.stats.seconds : 0.0));
    if (client_report.closing_lines) Emit(output.log, client_report.closing_lines());
  }
  if (!served.is_null()) {
    std::string names;
    for (const auto& [name, answers] : served.items()) {
      names += fmt::format("{}{} ({} answers)", names.empty() ? "" : ", ", name, answers.dump());
    }
    Emit(output.note, fmt::format("asked for {}, the server says it answered as {}", opt.model, names));
  }
  if (out.stats.cached > 0) {
    Emit(output.note, fmt::format("{} answer(s) came from the response cache (the same requests in "
                          "earlier runs); pass `transport.use_cache=false` to ask the model again",
                          out.stats.cached));
  }
  if (out.counts.errored > 0) {
    std::string common;
    if (auto top = store->TopErrors(3); top.ok()) {
      for (const auto& [error, n] : *top) common += fmt::format("\n  {} x {}", n, error);
    }
    Emit(output.note, fmt::format("{} sample(s) errored; run the same command again to retry them. "
                          "The most frequent error(s):{}\n(every one with 'structtest export "
                          "{} --all')",
                          out.counts.errored, common, store->dir()));
  }
  if (unscored > 0) {
    std::string common;
    if (auto top = store->TopScoringErrors(RuleSetName(rules), 3); top.ok()) {
      for (const auto& [error, n] : *top) common += fmt::format("\n  {} x {}", n, error);
    }
    Emit(output.note, fmt::format("{} answer(s) could not be scored under rules {}. The most frequent "
                          "reason(s):{}",
                          unscored, RuleSetName(rules), common));
  }
  if (!in_memory) {  // also under --quiet: where the run is, is the result
    Emit(output.note, fmt::format("stored in {} (report.json, report.html; every answer with 'structtest export {}')",
                          store->dir(), store->dir()));
  }
  if (LimitsSpending(ro.budget) && out.stats.no_usage > 0) {
    Emit(output.warning, fmt::format("{} answer(s) reported no token usage: the budget cannot count them",
                             out.stats.no_usage));
  }
  if (out.stats.budget_reached) {
    const int64_t tokens = out.stats.spent_input_tokens + out.stats.spent_output_tokens;
    std::string spent = fmt::format("{} tokens", tokens);
    std::optional<double> cost;
    if (price) {
      cost = price->Cost(out.stats.spent_input_tokens, out.stats.spent_output_tokens);
      spent += fmt::format(" (${:.4f})", *cost);
    }
    const Budget& budget = opt.budget;
    std::string limit;
    if (budget.max_tokens_total) {
      limit += fmt::format("`budget.max_tokens_total` {}", *budget.max_tokens_total);
    }
    if (budget.max_cost) {
      limit += fmt::format("{}`budget.max_cost` {}", limit.empty() ? "" : ", ", *budget.max_cost);
    }
    // The runner starts a request when its estimate fits: the answers that came back
    // longer than the estimate can have taken the spending past the budget. Say so.
    const bool exceeded = (budget.max_tokens_total && tokens > *budget.max_tokens_total) ||
                          (budget.max_cost && cost && *cost > *budget.max_cost);
    const std::string what =
        exceeded ? fmt::format("budget exceeded: {} spent in {} is past {} (a request is started "
                               "when its estimate, the mean usage so far, fits; {})",
                               spent, store->dir(), limit,
                               run.request.max_tokens > 0
                                   ? fmt::format("`request.max_tokens` {} bounds each answer",
                                                 run.request.max_tokens)
                                   : "without `request.max_tokens` an answer's length has no bound, so the "
                                     "budget is an estimate")
                 : fmt::format("budget reached: the next request would exceed {}; {} spent in {}",
                               limit, spent, store->dir());
    Emit(output.note, fmt::format(
        "{}; answered {} of {} {} ({:.2f}% coverage); raise the budget and run the same command "
        "to continue",
        what, out.counts.answered, out.counts.slots,
        store->repeats() > 1 ? "requests (samples x repeats)" : "samples",
        out.counts.slots ? 100.0 * out.counts.answered / out.counts.slots : 0.0));
    out.failures = true;
  }
  if (tally.errors() > 0) out.failures = true;
  return out;
}

// `run --dry-run`: the requests the run would send, per subtask, read from the run
// directory when it holds the run already (what is still to ask), else from the suite
// built in memory. Sends nothing and creates nothing.
StatusOr<std::string> DryRun(ResolvedRun run, const std::string& endpoint,
                             const SentenceSplitter* sentences, PythonPool* python) {
  const RunSuiteOptions& opt = run.options;
  const std::optional<Price>& price = run.price;
  const std::string dir = opt.out.empty() ? DefaultRunDir(opt) : opt.out;
  std::unique_ptr<RunStore> store;
  std::optional<RunManifest> stored;
  std::string from;
  if (std::filesystem::exists(std::filesystem::path(dir) / RunStore::kFileName)) {
    ASSIGN_OR_RETURN(store, RunStore::OpenReadOnly(dir));
    ASSIGN_OR_RETURN(stored, store->Manifest());
    KeepStoredTemperature(stored, &run);
    from = fmt::format("the samples of {} not answered yet", dir);
  }
  ASSIGN_OR_RETURN(const RunManifest identity, RunIdentity(run, endpoint));
  // A larger `suite.limit` grows a stored run (OpenRun): its new samples are asked too.
  std::unique_ptr<RunStore> grown;
  std::set<std::string> stored_ids;
  if (stored && LimitGrows(*stored, identity)) {
    ASSIGN_OR_RETURN(grown, RunStore::OpenInMemory());
    RETURN_IF_ERROR(AddRunSamples(run, sentences, python, grown.get()));
    RETURN_IF_ERROR(grown->SetManifest(StampedManifest(opt.scoring.rules, identity)));
    RETURN_IF_ERROR(store->ForEachSample([&](const Sample& s) {
      stored_ids.insert(s.id);
      return Status::Ok();
    }));
    from = fmt::format("the samples of {} not answered yet, and those a limit of {} adds "
                       "(it was {})",
                       dir, identity.limit ? fmt::format("{}", *identity.limit) : "none",
                       *stored->limit);
  } else if (stored) {
    RETURN_IF_ERROR(CheckSameRun(store->dir(), *stored, identity));
  }
  if (store == nullptr) {
    ASSIGN_OR_RETURN(store, RunStore::OpenInMemory());
    RETURN_IF_ERROR(AddRunSamples(run, sentences, python, store.get()));
    RETURN_IF_ERROR(store->SetManifest(StampedManifest(opt.scoring.rules, identity)));  // its repeats
    from = "a new run";
  }
  std::map<std::tuple<int, std::string, std::string>, PlannedRequests> by_subtask;
  const auto count_pending = [&](RunStore* from_store, bool only_new) -> Status {
    for (Slot after = kBeforeFirstSlot;;) {
      ASSIGN_OR_RETURN(std::vector<StoredSample> batch, from_store->PendingSamples(after, 512));
      if (batch.empty()) return Status::Ok();
      for (const StoredSample& s : batch) {
        after = s.slot();
        if (only_new && stored_ids.count(s.sample.id)) continue;
        PlannedRequests& p = by_subtask[{ReportRank(s.sample.domain, s.sample.subtask),
                                        s.sample.domain, s.sample.subtask}];
        p.domain = s.sample.domain;
        p.subtask = s.sample.subtask;
        ++p.requests;
        p.prompt_chars += static_cast<int64_t>(run.request.controls.system.size());
        for (const Message& m : s.sample.messages) {
          p.prompt_chars += static_cast<int64_t>(m.content.size());
        }
      }
    }
  };
  RETURN_IF_ERROR(count_pending(store.get(), /*only_new=*/false));
  if (grown != nullptr) RETURN_IF_ERROR(count_pending(grown.get(), /*only_new=*/true));
  std::vector<PlannedRequests> plan;
  for (auto& [key, p] : by_subtask) plan.push_back(std::move(p));
  std::string text = fmt::format(
      "dry run: {} would be sent to {} ({}); nothing was sent\nrequest settings: {}\n\n", from,
      opt.model, endpoint, identity.RequestSettings().dump());
  text += RenderDryRun(plan, price, run.request.max_tokens);
  if (opt.batch.api) {
    RunnerOptions ro;
    ro.request.every = run.request;
    const BatchRunOptions bo = BatchOptionsFrom(ro, opt.batch);
    const Provider provider = run.spec->provider;
    ASSIGN_OR_RETURN(const BatchPlan batches, PlanBatches(store.get(), provider, bo));
    text += RenderBatchPlan(batches, provider, price, run.request.max_tokens, opt.batch.size);
  }
  return text;
}

// `transport` in the curl client's options, for http->base_url's provider: requests in
// flight, the replicas, the timeouts, TLS.
void ApplyTransport(const Transport& transport, HttpClientOptions* http) {
  // -j is per endpoint; under -j auto the adaptive limit holds the total and each
  // endpoint takes up to --max-j.
  const size_t replicas = std::max<size_t>(1, transport.base_urls.size());
  http->max_in_flight = static_cast<size_t>(transport.concurrency) * replicas;
  if (replicas > 1) http->base_urls = transport.base_urls;
  http->total_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(transport.timeout_seconds * 1000));
  http->idle_timeout = std::min(http->idle_timeout, http->total_timeout);
  http->ca_file = transport.ca_cert;
  if (transport.http11) http->http_version = HttpClientOptions::HttpVersion::kHttp11;
}

// A run's client stack, from the inside out: curl (`http`, ApplyTransport's), the
// endpoint pool over the replicas, -j auto's adaptive limit, the rate limit, retries
// (their jitter seeded by `seed`). `report` reads the pool and the adaptive limit.
struct ClientStack {
  std::unique_ptr<ModelClient> client;  // the outermost: retries
  ClientReport report;
};

StatusOr<ClientStack> BuildClientStack(HttpClientOptions http, const Transport& transport,
                                       uint64_t seed) {
  const size_t replicas = std::max<size_t>(1, transport.base_urls.size());
  const size_t per_endpoint = static_cast<size_t>(transport.concurrency);
  ASSIGN_OR_RETURN(std::unique_ptr<ModelClient> paced, NewCurlModelClient(std::move(http)));
  ClientStack stack;
  ClientReport& client_report = stack.report;
  EndpointPoolClient* pool = nullptr;
  if (replicas > 1) {
    EndpointPoolPolicy pool_policy;
    pool_policy.per_endpoint = per_endpoint;
    auto owned = std::make_unique<EndpointPoolClient>(std::move(paced), replicas, pool_policy);
    pool = owned.get();
    paced = std::move(owned);
  }
  AdaptiveConcurrencyClient* adaptive = nullptr;
  if (transport.auto_concurrency) {
    AdaptivePolicy adaptive_policy;
    adaptive_policy.max = per_endpoint * replicas;
    adaptive_policy.initial = std::min<size_t>(4, adaptive_policy.max);
    auto owned = std::make_unique<AdaptiveConcurrencyClient>(std::move(paced), adaptive_policy);
    adaptive = owned.get();
    paced = std::move(owned);
    client_report.concurrency_limit = [adaptive] {
      return static_cast<int64_t>(adaptive->limit());
    };
  }
  if (pool != nullptr || adaptive != nullptr) {
    const std::vector<std::string> urls = transport.base_urls;
    client_report.closing_lines = [pool, adaptive, urls] {
      std::string text;
      if (adaptive != nullptr) {
        text += fmt::format("structtest: -j auto: limit {} at the end ({} to {}, {:.1f} on "
                            "average over time, {} back-off(s))\n",
                            adaptive->limit(), adaptive->lowest_limit(),
                            adaptive->highest_limit(), adaptive->TimeWeightedLimit(),
                            adaptive->decreases());
      }
      for (size_t i = 0; pool != nullptr && i < pool->endpoints(); ++i) {
        const EndpointStats st = pool->Stats(i);
        text += fmt::format("structtest: endpoint {}: {} requests, {} errors, {} cool-down(s), "
                            "latency p50 {} ms, p95 {} ms\n",
                            PublicEndpoint(urls[i]), st.requests, st.errors, st.cooldowns,
                            st.p50.count(), st.p95.count());
      }
      return text;
    };
  }
  if (transport.max_rps > 0) {
    paced = std::make_unique<RateLimitedModelClient>(std::move(paced), transport.max_rps,
                                                     per_endpoint * replicas);
  }
  RetryPolicy policy;
  policy.max_attempts = transport.retries + 1;
  policy.seed = seed;
  stack.client = std::make_unique<RetryingModelClient>(std::move(paced), policy);
  return stack;
}

// The run directory of a run that is about to write one: a run already, or a folder
// this run makes its own (new, or empty). A folder holding anything else is refused,
// naming it: the run would write its files among someone else's.
class RunDir {
 public:
  static StatusOr<RunDir> Open(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool existed = fs::exists(dir, ec);
    const bool is_run = existed && fs::exists(fs::path(dir) / RunStore::kFileName, ec);
    if (existed && !is_run && (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec))) {
      return Status::InvalidArgument(fmt::format(
          "{}: exists and is not a run (it holds no {}): name a new or empty folder, or a run "
          "directory",
          dir, RunStore::kFileName));
    }
    RunDir out;
    out.dir_ = dir;
    out.made_ = !existed;
    out.emptied_ = existed && !is_run;
    ASSIGN_OR_RETURN(out.store_, RunStore::Open(dir));
    return out;
  }

  RunStore* store() const { return store_.get(); }

  // After a run that failed: when it answered nothing and the folder was not a run
  // before, the folder is left as it was (gone, or empty), so that a mistyped
  // --samples or an unwritable batch file leaves no run behind. Best effort: the
  // run's own error is what the user needs to read.
  void UndoIfUnused() {
    if (!made_ && !emptied_) return;
    auto counts = store_->Counts();
    if (!counts.ok() || counts->answered > 0 || counts->errored > 0) return;
    store_.reset();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (made_) {
      fs::remove_all(dir_, ec);
      return;
    }
    for (const auto& entry : fs::directory_iterator(dir_, ec)) fs::remove_all(entry.path(), ec);
  }

 private:
  std::string dir_;
  bool made_ = false;
  bool emptied_ = false;
  std::unique_ptr<RunStore> store_;
};

}  // namespace

Status AddRunSamples(const ResolvedRun& run, const SentenceSplitter* sentences,
                     PythonPool* python, RunStore* store,
                     const std::function<Status()>& before_commit,
                     std::vector<std::string>* notes) {
  const RunSuiteOptions& opt = run.options;
  const std::optional<Shard>& shard = run.shard;
  RETURN_IF_ERROR(store->BeginBulk());
  int64_t index = 0;
  const auto add = [&](const Sample& sample, std::string_view json = {}) {
    return store->AddSample(index++, sample, json);
  };
  if (!opt.samples.empty()) {
    ASSIGN_OR_RETURN(auto reader, RecordReader::Open(opt.samples));
    Sample read;
    std::string_view line;
    std::string bad;
    std::map<std::string, size_t> per_subtask;  // samples taken, for --limit
    // --tasks keeps the samples of the subtasks it names.
    std::set<std::pair<std::string_view, std::string_view>> wanted;
    if (!opt.suite.tasks.empty()) {
      ASSIGN_OR_RETURN(const std::vector<SubtaskRef> refs, ResolveTasks(opt.suite.tasks));
      for (const SubtaskRef& ref : refs) wanted.emplace(ref.family->domain, ref.spec->name);
    }
    int64_t read_samples = 0;
    for (;;) {
      const auto r = reader->NextSample(&read, &line, &bad);
      if (r == RecordReader::Result::kEnd) break;
      if (r == RecordReader::Result::kBadLine) return Status::InvalidArgument(bad);
      const Sample* sample = &read;
      const auto where = [&] { return fmt::format("{}:{}", reader->path(), reader->line_number()); };
      if (sample->messages.empty()) {
        return Status::InvalidArgument(fmt::format(
            "{}: sample '{}' has no messages to send (write samples with 'structtest "
            "generate')",
            where(), sample->id));
      }
      if (auto ref = FindSubtask(sample->domain, sample->subtask); !ref.ok()) {
        return ref.status().WithContext(fmt::format("{}: sample '{}'", where(), sample->id));
      }
      ++read_samples;
      if (!wanted.empty() && !wanted.count({sample->domain, sample->subtask})) continue;
      if (opt.suite.limit > 0 &&
          ++per_subtask[sample->domain + "/" + sample->subtask] > opt.suite.limit) {
        continue;
      }
      if (shard && !shard->Contains(sample->id)) {
        ++index;
        continue;
      }
      RETURN_IF_ERROR(add(*sample, line).WithContext(where()));
    }
    RETURN_IF_ERROR(reader->io_error());
    if (read_samples == 0) {
      return Status::InvalidArgument(fmt::format("{}: no samples", opt.samples));
    }
    if (index == 0) {
      return Status::InvalidArgument(fmt::format("{}: none of its {} samples is of `tasks` {}",
                                                 opt.samples, read_samples,
                                                 fmt::join(opt.suite.tasks, ",")));
    }
  } else {
    // The splitter writes the reference answers of loaded documents.
    ASSIGN_OR_RETURN(auto suite, Suite::Plan(opt.suite, sentences, python));
    if (notes != nullptr) notes->insert(notes->end(), suite->notes().begin(), suite->notes().end());
    for (const PlannedSubtask& p : suite->subtasks()) {
      for (size_t i = 0; i < p.count; ++i) {
        auto sample = suite->Generate(p, i);
        if (!sample.ok()) {
          return sample.status().WithContext(fmt::format("{} sample {}", p.ref.spec->name, i));
        }
        if (shard && !shard->Contains(sample->id)) {
          ++index;
          continue;
        }
        RETURN_IF_ERROR(add(*sample));
      }
    }
  }
  if (before_commit) RETURN_IF_ERROR(before_commit());
  return store->Commit();
}

Status SettleRequestSettings(ResolvedRun* run) {
  const RequestSettings& given = run->options.request;
  if (run->spec && !given.temperature && !given.no_temperature) {
    run->request.temperature = DefaultTemperature(*run->spec, run->request.controls);
    run->temperature_defaulted = true;
  }
  return run->spec ? CheckRequestSettings(run->spec->provider, run->request)
                   : CheckControlRanges(run->request);
}

bool NeedsSentences(const RunSuiteOptions& opt) {
  if (!opt.samples.empty()) return true;  // unknown until read: look for the model
  auto refs = ResolveTasks(opt.suite.tasks);
  if (!refs.ok()) return false;
  return std::any_of(refs->begin(), refs->end(),
                     [](const SubtaskRef& ref) { return ref.spec->needs_sentences; });
}

StatusOr<std::optional<Price>> ResolvePrice(const std::string& model, const Budget& budget) {
  if (budget.price_in || budget.price_out) {
    if (!budget.price_in || !budget.price_out) {
      return Status::InvalidArgument(fmt::format(
          "{}: give both `budget.price_in` and `budget.price_out` (USD per million tokens)",
          budget.price_in ? "`budget.price_in`" : "`budget.price_out`"));
    }
    for (const auto& [flag, v] :
         {std::pair{"`budget.price_in`", *budget.price_in},
          {"`budget.price_out`", *budget.price_out}}) {
      if (!(v >= 0) || v > 1e6) {
        return Status::InvalidArgument(
            fmt::format("{} {}: expected USD per million tokens, 0 or more", flag, v));
      }
    }
    Price p;
    p.model = model;
    p.input_per_mtok = *budget.price_in;
    p.output_per_mtok = *budget.price_out;
    p.source = "--price-in/--price-out";
    return std::optional<Price>(p);
  }
  if (!budget.prices.empty()) {
    StatusOr<std::string> text = ReadFileToString(budget.prices);
    if (!text.ok()) {
      return Status::IoError(fmt::format("`budget.prices` {}: cannot read: {}", budget.prices,
                                         text.status().message()));
    }
    ASSIGN_OR_RETURN(std::vector<Price> table, ParsePrices(*text, budget.prices));
    if (auto p = FindPrice(table, model)) return p;
  }
  return BuiltinPrice(model);
}

std::string BadBaseUrl(std::string_view url) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return "expected an http:// or https:// URL";
  }
  const std::string_view rest = url.substr(url.find("://") + 3);
  if (rest.empty() || rest.front() == '/' || rest.front() == ':') return "no host";
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return "contains a space or control character";
  }
  std::string_view path = url.substr(0, url.find_first_of("?#"));
  while (path.ends_with('/')) path.remove_suffix(1);
  for (std::string_view call : {"/chat/completions", "/completions", "/v1/messages"}) {
    if (path.ends_with(call)) {
      return fmt::format("give the API root, not the call: {} (structtest adds {} itself)",
                         url.substr(0, path.size() - call.size()), call);
    }
  }
  return "";
}

StatusOr<std::vector<std::string>> ReadEndpointsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError(fmt::format("`transport.endpoints_file` {}: cannot read: "
                                       "{}", path, std::strerror(errno)));
  }
  std::vector<std::string> urls;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    if (const std::string why = BadBaseUrl(line); !why.empty()) {
      return Status::InvalidArgument(
          fmt::format("`transport.endpoints_file` {}:{}: '{}': {}", path, number, line, why));
    }
    urls.push_back(line);
  }
  if (urls.empty()) {
    return Status::InvalidArgument(fmt::format("`transport.endpoints_file` {}: no URL in the "
                                               "file", path));
  }
  return urls;
}

StatusOr<RunJobResult> RunJob(const ResolvedRun& run, const SentenceSplitter* sentences,
                              const std::atomic<bool>* stop, const RunJobOutput& output) {
  const RunSuiteOptions& opt = run.options;
  const Transport& transport = opt.transport;
  PythonOptions python_options;
  python_options.python = opt.scoring.python;
  // one python3 worker per scoring thread
  python_options.max_workers = opt.scoring.score_jobs;
  PythonPool python(python_options);
  CheckEnv env;
  env.sentences = sentences;
  env.python = &python;

  // Who answers: a model behind an API, or built-in responders (in process).
  const std::optional<ModelSpec>& spec = run.spec;
  std::vector<std::string> builtins;
  if (opt.model.empty()) {
    for (std::string_view name : BuiltinResponderNames()) builtins.emplace_back(name);
  } else if (!spec) {
    builtins.emplace_back(BuiltinResponderOf(opt.model));
  }
  RunJobResult result;
  if (spec) {
    HttpClientOptions http;
    http.provider = spec->provider;
    http.base_url =
        transport.base_urls.empty() ? std::string(DefaultBaseUrl(spec->provider))
                                    : transport.base_urls.front();
    http.api_key = ApiKeyFromEnvironment(spec->provider);
    http.headers = run.headers;
    if (opt.dry_run) {
      const std::string endpoint =
          fmt::format("{} {}", ProviderName(spec->provider), PublicEndpoint(http.base_url));
      ASSIGN_OR_RETURN(const std::string text, DryRun(run, endpoint, sentences, &python));
      Emit(output.out, text);
      return result;
    }
    if (http.api_key.empty() && transport.base_urls.empty() && opt.batch.offline.empty()) {
      return Status::InvalidArgument(
          fmt::format("`model` {}: {} is not set (the API key of {})", opt.model,
                      ApiKeyEnvVar(spec->provider), ProviderName(spec->provider)));
    }
    ApplyTransport(transport, &http);
    // The cache key's endpoint and the manifest's: the first URL names the deployment.
    // Replicas serve one model, so every answer of the run is cached under it, whichever
    // replica gave it.
    const std::string endpoint =
        fmt::format("{} {}", ProviderName(spec->provider), PublicEndpoint(http.base_url));
    const HttpClientOptions batch_http = http;  // --batch's calls, with the same settings
    ASSIGN_OR_RETURN(ClientStack stack, BuildClientStack(std::move(http), transport,
                                                         opt.suite.seed));
    ASSIGN_OR_RETURN(RunDir run_dir, RunDir::Open(opt.out.empty() ? DefaultRunDir(opt) : opt.out));
    RunStore* store = run_dir.store();
    std::unique_ptr<ResponseCache> cache;
    if (transport.use_cache) {
      auto opened = ResponseCache::Open(transport.cache.empty() ? ResponseCache::DefaultPath()
                                                                : transport.cache);
      if (!opened.ok()) {
        return Status::IoError(fmt::format("response cache: {} (pass `transport.use_cache=false` "
                                           "to run without it)",
                                           opened.status().message()));
      }
      cache = std::move(opened).value();
    }
    std::unique_ptr<HttpTransport> batch_transport;
    std::optional<BatchApi> batch_api;
    if (opt.batch.api) {
      ASSIGN_OR_RETURN(batch_transport, NewCurlHttpTransport(batch_http));
      batch_api.emplace(spec->provider, batch_http.base_url, batch_http.api_key, batch_http.headers,
                        batch_transport.get());
    }
    StatusOr<Outcome> ran = RunOne(run, opt.model, store, cache.get(), stack.client.get(), "",
                                   endpoint, env, &python, false, stop, output, stack.report,
                                   batch_api ? &*batch_api : nullptr);
    if (!ran.ok()) {
      run_dir.UndoIfUnused();
      return ran.status();
    }
    const Outcome& outcome = *ran;
    result.interrupted = outcome.interrupted;
    result.failures = outcome.failures;
    return result;
  }

  // With all of them (no --model), each is also scored under the other rule set, for
  // the closing table of what the cheaters get under paper and under strict.
  const RuleSet rules = opt.scoring.rules;
  const RuleSet other = rules == RuleSet::kPaper ? RuleSet::kStrict : RuleSet::kPaper;
  std::vector<std::pair<Aggregates, Aggregates>> by_rules;  // (paper, strict) per builtin
  // All of them answer one suite, generated once.
  std::unique_ptr<RunStore> planned;
  if (opt.model.empty()) {
    ASSIGN_OR_RETURN(planned, RunStore::OpenInMemory());
    RETURN_IF_ERROR(AddRunSamples(run, env.sentences, &python, planned.get()));
  }
  for (const std::string& name : builtins) {
    ResolvedRun one = run;
    one.options.model = "builtin/" + name;
    // One named responder is a run like a model's, in its run directory; all of them
    // (no --model) are a demonstration, kept in memory.
    const bool in_memory = opt.model.empty();
    std::optional<RunDir> run_dir;
    std::unique_ptr<RunStore> memory;
    if (in_memory) {
      ASSIGN_OR_RETURN(memory, RunStore::OpenInMemory());
    } else {
      ASSIGN_OR_RETURN(run_dir, RunDir::Open(opt.out.empty() ? DefaultRunDir(one.options) : opt.out));
    }
    RunStore* store = in_memory ? memory.get() : run_dir->store();
    StatusOr<Outcome> ran = RunOne(one, one.options.model, store, nullptr, nullptr, name, "builtin",
                                   env, &python, in_memory, stop, output, {}, nullptr,
                                   planned.get());
    if (!ran.ok()) {
      if (run_dir) run_dir->UndoIfUnused();
      return ran.status();
    }
    const Outcome& outcome = *ran;
    result.failures = result.failures || outcome.failures;
    if (outcome.interrupted) {
      result.interrupted = true;
      return result;
    }
    Emit(output.out, "\n");
    if (opt.model.empty()) {
      RunnerOptions ro;
      ro.scoring = opt.scoring;
      ro.scoring.rules = other;
      Runner rescore(store, nullptr, env, ro);
      ASSIGN_OR_RETURN(Tally tally, rescore.ScoreAndTally());
      by_rules.emplace_back(rules == RuleSet::kPaper ? outcome.agg : tally.Compute(),
                            rules == RuleSet::kPaper ? tally.Compute() : outcome.agg);
    }
  }
  if (opt.model.empty()) {
    Emit(output.out, RenderRulesTable(builtins, by_rules));
    Emit(output.out,
        "These are the built-in responders: oracle answers every sample correctly, null "
        "answers nothing, echo repeats the prompt, skeleton keeps the structure of a correct "
        "answer with filler for its content, loophole gives the cheapest answer the paper "
        "rules pass.\nTo score a model behind an API:\n"
        "  OPENAI_API_KEY=... structtest run --model openai/gpt-4o-mini\n"
        "  structtest run --model openai/NAME --base-url http://localhost:8000/v1   "
        "(vLLM, llama.cpp, Ollama, ...)\n"
        "  ANTHROPIC_API_KEY=... structtest run --model anthropic/claude-3-5-haiku-latest\n"
        "  GEMINI_API_KEY=... structtest run --model gemini/gemini-1.5-flash\n");
  }
  return result;
}

}  // namespace structtest
