// `structtest run`: generate a suite (or read one), ask a model every sample, score
// the answers and print the paper-style table. Everything lands in a run directory
// (store/run_store.h): running the same command again, after Ctrl-C, a crash or
// kill -9, continues where it stopped and asks only what is unanswered or errored.
// Without --model the built-in responders answer, in memory: the floor and ceiling
// of every rule set, and a first run that needs no model at all. An API run reports
// its tokens and their cost, can be held to a budget (--max-cost, --max-tokens-total),
// and --dry-run shows what it would send without sending it.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include "backends/adaptive_client.h"
#include "backends/batch_api.h"
#include "backends/endpoint_pool_client.h"
#include "backends/http/curl_client.h"
#include "backends/http/http_transport.h"
#include "backends/providers.h"
#include "backends/rate_limit_client.h"
#include "backends/request_controls.h"
#include "backends/retry_client.h"
#include "cli/commands.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/jsonl.h"
#include "core/record_io.h"
#include "core/shard.h"
#include "sandbox/python_pool.h"
#include "report/cost.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "runner/batch_runner.h"
#include "runner/runner.h"
#include "store/merge.h"
#include "store/response_cache.h"
#include "store/run_store.h"
#include "tasks/registry.h"
#include "tasks/responders.h"
#include "tasks/score_stage.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest::cli {

namespace {

constexpr int kExitInterrupted = 130;

struct RunOptions {
  std::string model;
  std::vector<std::string> base_urls;  // --base-url, given once per replica
  std::string endpoints_file;          // --endpoints FILE
  SuiteOptions suite;
  std::string samples;
  std::string tasks;
  std::optional<std::string> limit;
  // --repeats K: each sample asked K times (store/run_store.h); read from repeats_text.
  std::optional<std::string> repeats_text;
  int64_t repeats = 1;
  std::string concurrency_text = "8";  // -j N or -j auto
  int concurrency = 8;  // per endpoint; with -j auto, --max-j
  bool auto_concurrency = false;
  int max_j = 256;
  int score_jobs = DefaultScoreJobs();
  int max_tokens = 0;
  std::optional<double> temperature;
  // --temperature as given: a number, or "none" (send none); read into `temperature`.
  std::optional<std::string> temperature_text;
  // Set when --temperature was not given and `temperature` is DefaultTemperature's.
  bool temperature_defaulted = false;
  RequestControls controls;
  // What the control flags were given as, before RunRun reads them into `controls` and
  // `headers`.
  std::optional<std::string> system_text;
  std::optional<std::string> extra_body_text;
  std::vector<std::string> header_texts;
  std::vector<HttpHeader> headers;
  std::string out;
  std::string rules = "paper";
  std::string nltk_data;
  std::string python;
  bool no_cache = false;
  std::string cache;
  int retries = 5;
  double max_rps = 0;
  double timeout = 600;
  std::string ca_cert;
  bool http11 = false;
  bool quiet = false;
  std::optional<std::string> shard_text;  // --shard I/N
  std::optional<Shard> shard;  // parsed
  std::optional<double> price_in;
  std::optional<double> price_out;
  std::string prices;
  std::optional<double> max_cost;
  std::optional<int64_t> max_tokens_total;
  bool dry_run = false;
  // Batch inference (runner/batch_runner.h): --batch, --batch-poll SECONDS,
  // --batch-retry-online, --offline FILE.
  bool batch = false;
  double batch_poll = 30;
  bool batch_retry_online = false;
  int64_t batch_size = 0;
  std::string offline;
  // The suite options given on the command line (--seed, --size...): refused next to
  // --samples, whose samples were made already.
  std::vector<std::string> suite_flags_given;
  bool max_j_given = false;
};

std::atomic<bool> g_stop{false};

extern "C" void OnStopSignal(int) {
  g_stop.store(true);
  // A second signal ends the process the usual way.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

// "http://user:pass@host/v1?key=x" -> "http://host/v1": what a store or report may show.
std::string PublicEndpoint(std::string url) {
  if (const size_t q = url.find_first_of("?#"); q != std::string::npos) url.resize(q);
  const size_t scheme = url.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t at = url.find('@', host);
  if (at != std::string::npos && url.find('/', host) > at) url.erase(host, at + 1 - host);
  return url;
}

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

// A default run directory named after what defines the run, so the same command finds
// the same directory again.
std::string DefaultOutDir(const RunOptions& opt) {
  std::string name = opt.model;
  if (!opt.samples.empty()) {
    name += "_" + std::filesystem::path(opt.samples).stem().string();
  } else {
    name += fmt::format("_{}_seed{}", opt.suite.suite, opt.suite.seed);
    if (opt.suite.size != 1.0) name += fmt::format("_size{}", opt.suite.size);
    for (const std::string& t : opt.suite.tasks) name += "_" + t;
  }
  if (opt.suite.limit > 0) name += fmt::format("_limit{}", opt.suite.limit);
  if (opt.shard) name += fmt::format("_shard{}of{}", opt.shard->index, opt.shard->count);
  for (char& c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    if (!keep) c = '-';
  }
  return "runs/" + name;
}

// "PATH FNV-1a-64 of the bytes" for a regular file (the path alone for a folder), so a
// run directory refuses a data file that changed since the run began.
StatusOr<std::string> Fingerprint(const std::string& path) {
  const std::string absolute = std::filesystem::absolute(path).string();
  if (!std::filesystem::is_regular_file(path)) return absolute;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Status::IoError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  }
  uint64_t h = kFnv1aOffset;
  char buf[1 << 16];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) h = Fnv1a(std::string_view(buf, n), h);
  std::fclose(f);
  return fmt::format("{} fnv1a:{:016x}", absolute, h);
}

// The settings that define a run: a directory holding another run is refused.
StatusOr<nlohmann::json> Identity(const RunOptions& opt, const std::string& endpoint) {
  nlohmann::json id = {{"model", opt.model}, {"endpoint", endpoint}, {"max_tokens", opt.max_tokens}};
  // Only with replicas, so a one-endpoint manifest is what it was before them.
  if (opt.base_urls.size() > 1) {
    nlohmann::json urls = nlohmann::json::array();
    for (const std::string& url : opt.base_urls) urls.push_back(PublicEndpoint(url));
    id["endpoints"] = std::move(urls);
  }
  id["temperature"] = opt.temperature ? nlohmann::json(*opt.temperature) : nlohmann::json();
  // Only the controls given, so a run without them has the identity it had before them.
  id.update(ControlsJson(opt.controls, HeaderNames(opt.headers)));
  if (!opt.samples.empty()) {
    ASSIGN_OR_RETURN(std::string samples, Fingerprint(opt.samples));
    id["samples"] = samples;
    // Only when given, so a manifest written before --tasks filtered samples reads the same.
    if (!opt.suite.tasks.empty()) id["tasks"] = opt.suite.tasks;
  } else {
    id["suite"] = opt.suite.suite;
    id["seed"] = opt.suite.seed;
    id["size"] = opt.suite.size;
    id["tasks"] = opt.suite.tasks;
    for (const auto& [key, file] : {std::pair{"documents", &opt.suite.documents},
                                    {"mbpp", &opt.suite.mbpp},
                                    {"apps", &opt.suite.apps},
                                    {"gsm8k", &opt.suite.gsm8k}}) {
      if (file->empty()) continue;
      ASSIGN_OR_RETURN(std::string fingerprint, Fingerprint(*file));
      id[key] = fingerprint;
    }
  }
  // Null without --limit, which is also what a run stored before --limit existed gives.
  id["limit"] = opt.suite.limit > 0 ? nlohmann::json(opt.suite.limit) : nlohmann::json();
  // Only in shard runs, so an unsharded run's manifest is what it was before --shard.
  if (opt.shard) id["shard"] = opt.shard->ToString();
  // Only with --repeats above 1, so a run asking each sample once is what it was before.
  if (opt.repeats > 1) id["repeats"] = opt.repeats;
  return id;
}

nlohmann::json Manifest(const RunOptions& opt, const nlohmann::json& identity) {
  nlohmann::json m = identity;
  m["structtest_version"] = STRUCTTEST_VERSION;
  nlohmann::json versions = nlohmann::json::object();
  // The checker versions of the rule set this command scores with (a run directory may
  // hold verdicts of both; each verdict names its own).
  const auto parsed = ParseRuleSet(opt.rules);
  const RuleSet rules = parsed.ok() ? *parsed : RuleSet::kPaper;
  for (const TaskFamily* f : Families()) versions[f->domain] = f->version(rules);
  m["rules_versions"] = std::move(versions);
  return m;
}

// The keys that make `identity` another run than the `stored` manifest's: the command's
// keys whose value differs (a key the manifest lacks reads as null; for "endpoint" only
// the provider counts), then the manifest's keys the command lacks. The replicas
// ("endpoints") and the versions that wrote the manifest do not count.
std::vector<std::string> DifferingKeys(const nlohmann::json& stored,
                                       const nlohmann::json& identity) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : identity.items()) {
    if (key == "endpoints") continue;
    const nlohmann::json old = stored.value(key, nlohmann::json());
    const bool differs = key == "endpoint" ? ProviderOfEndpoint(old) != ProviderOfEndpoint(value)
                                           : old != value;
    if (differs) keys.push_back(key);
  }
  for (const auto& [key, value] : stored.items()) {
    if (!identity.contains(key) && key != "structtest_version" && key != "rules_versions" &&
        key != "endpoints") {
      keys.push_back(key);
    }
  }
  return keys;
}

// Refuses a directory whose run was made by another command, naming what differs. The
// model name and the generation settings define a run, not the hosts serving it: a
// run may resume on another set of replicas (of the same provider's API).
Status CheckSameRun(const RunStore& store, const nlohmann::json& stored,
                    const nlohmann::json& identity) {
  const std::vector<std::string> keys = DifferingKeys(stored, identity);
  if (keys.empty()) return Status::Ok();
  const std::string& key = keys.front();
  const nlohmann::json old = stored.value(key, nlohmann::json());
  if (key == "repeats") {
    // A run without the key asks each sample once.
    return Status::InvalidArgument(fmt::format(
        "{}: this directory holds another run (--repeats was {}, now {}); pass another --out "
        "or remove the directory",
        store.dir(), stored.value("repeats", nlohmann::json(1)).dump(),
        identity.value("repeats", nlohmann::json(1)).dump()));
  }
  return Status::InvalidArgument(fmt::format(
      "{}: this directory holds another run ({} was {}{}); pass another --out or remove the "
      "directory",
      store.dir(), key, old.dump(),
      identity.contains(key) ? ", now " + identity.at(key).dump() : ""));
}

// A run directory made before structtest had a temperature default holds none (null:
// the provider's default) and keeps it when resumed without --temperature, which the
// default would make another run.
void KeepStoredTemperature(const std::optional<nlohmann::json>& stored, RunOptions* opt) {
  if (opt->temperature_defaulted && stored &&
      stored->value("temperature", nlohmann::json()).is_null()) {
    opt->temperature.reset();
  }
}

// Whether `identity` is the stored run's with a larger --limit (or none where it had
// one): the same suite's first samples, so the run may grow.
bool LimitGrows(const nlohmann::json& stored, const nlohmann::json& identity) {
  if (DifferingKeys(stored, identity) != std::vector<std::string>{"limit"}) return false;
  const nlohmann::json old = stored.value("limit", nlohmann::json());
  const nlohmann::json now = identity.value("limit", nlohmann::json());
  return old.is_number_unsigned() && (now.is_null() || (now.is_number_unsigned() && now > old));
}

// Fills a new store with the samples of the run, all in one transaction, and calls
// `before_commit` (when given) inside it. A shard run keeps the samples of its shard, at
// their positions in the whole suite, so that the shards merge into the unsharded run
// (store/merge.h).
Status AddSamples(const RunOptions& opt, const SentenceSplitter* sentences, PythonPool* python,
                  RunStore* store, const std::function<Status()>& before_commit = nullptr) {
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
      if (opt.shard && !opt.shard->Contains(sample->id)) {
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
      return Status::InvalidArgument(fmt::format("{}: none of its {} samples is of --tasks {}",
                                                 opt.samples, read_samples, opt.tasks));
    }
  } else {
    // The splitter writes the reference answers of loaded documents.
    ASSIGN_OR_RETURN(auto suite, Suite::Plan(opt.suite, sentences, python));
    for (const PlannedSubtask& p : suite->subtasks()) {
      for (size_t i = 0; i < p.count; ++i) {
        auto sample = suite->Generate(p, i);
        if (!sample.ok()) {
          return sample.status().WithContext(fmt::format("{} sample {}", p.ref.spec->name, i));
        }
        if (opt.shard && !opt.shard->Contains(sample->id)) {
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

// Whether the run's samples may include a sentence-counting subtask. An unknown task
// name is left for Suite::Plan to report.
bool NeedsSentences(const RunOptions& opt) {
  if (!opt.samples.empty()) return true;  // unknown until read: look for the model
  auto refs = ResolveTasks(opt.suite.tasks);
  if (!refs.ok()) return false;
  return std::any_of(refs->begin(), refs->end(),
                     [](const SubtaskRef& ref) { return ref.spec->needs_sentences; });
}

struct Outcome {
  RunnerStats stats;
  RunCounts counts;
  int exit_code = kExitOk;
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

// One run into `store`: fill it when new, answer what is pending, score, print.
StatusOr<Outcome> RunOne(RunOptions opt, const std::string& label, RunStore* store,
                         ResponseCache* cache, ModelClient* client, std::string_view builtin,
                         const std::string& endpoint, const CheckEnv& env, RuleSet rules,
                         PythonPool* python, bool in_memory, const std::optional<Price>& price,
                         const ClientReport& client_report = {}, BatchApi* batch_api = nullptr) {
  ASSIGN_OR_RETURN(std::optional<nlohmann::json> stored, store->Manifest());
  KeepStoredTemperature(stored, &opt);
  if (stored && stored->contains(kMergeKey)) {
    return Status::InvalidArgument(fmt::format(
        "{}: a merged run ('structtest merge'); run the missing shards into their own "
        "directories and merge them into it again",
        store->dir()));
  }
  ASSIGN_OR_RETURN(RunCounts before, store->Counts());
  if (!stored && before.samples == 0) {
    // A new run: the data files are fingerprinted on a thread of their own while the
    // samples are read and stored, and the manifest is written in the samples'
    // transaction, so a run directory never holds samples without it.
    std::future<StatusOr<nlohmann::json>> identity =
        std::async(std::launch::async, [&] { return Identity(opt, endpoint); });
    RETURN_IF_ERROR(AddSamples(opt, env.sentences, python, store, [&]() -> Status {
      ASSIGN_OR_RETURN(const nlohmann::json id, identity.get());
      return store->SetManifest(Manifest(opt, id));
    }));
  } else {
    ASSIGN_OR_RETURN(const nlohmann::json identity, Identity(opt, endpoint));
    if (stored && LimitGrows(*stored, identity)) {
      // The same suite with a larger --limit (or none): its first samples are this
      // run's, byte for byte; the run grows and asks only the new ones.
      ASSIGN_OR_RETURN(auto plan, RunStore::OpenInMemory());
      RETURN_IF_ERROR(AddSamples(opt, env.sentences, python, plan.get()));
      ASSIGN_OR_RETURN(const int64_t added, store->GrowTo(*plan));
      RETURN_IF_ERROR(store->SetManifest(Manifest(opt, identity)));
      PrintNote(fmt::format("{}: --limit {} grows the run (limit was {}): {} new sample(s)",
                            store->dir(), identity["limit"].is_null() ? "none" : identity["limit"].dump(),
                            (*stored)["limit"].dump(), added));
    } else if (stored) {
      RETURN_IF_ERROR(CheckSameRun(*store, *stored, identity));
    } else {
      RETURN_IF_ERROR(store->SetManifest(Manifest(opt, identity)));
    }
    if (before.samples == 0) {
      RETURN_IF_ERROR(AddSamples(opt, env.sentences, python, store));
    }
  }
  if (before.samples > 0 && !opt.quiet && before.answered < before.slots) {
    PrintNote(fmt::format("{}: resuming: {} of {} {} answered, {} errored earlier", store->dir(),
                          before.answered, before.slots,
                          store->repeats() > 1 ? "requests (samples x repeats)" : "samples",
                          before.errored));
  }
  RunnerOptions ro;
  ro.rules = rules;
  ro.model = client != nullptr ? ParseModelSpec(opt.model)->name : "";
  ro.max_tokens = opt.max_tokens;
  ro.temperature = opt.temperature;
  ro.controls = opt.controls;
  ro.endpoint = endpoint;
  ro.header_names = HeaderNames(opt.headers);
  ro.concurrency_limit = client_report.concurrency_limit;
  ro.max_uncommitted = 2 * opt.concurrency * static_cast<int>(std::max<size_t>(1, opt.base_urls.size()));
  ro.score_jobs = opt.score_jobs;
  ro.stop = &g_stop;
  ro.budget.max_cost = opt.max_cost;
  ro.budget.max_tokens_total = opt.max_tokens_total;
  if (price) {
    ro.budget.input_per_mtok = price->input_per_mtok;
    ro.budget.output_per_mtok = price->output_per_mtok;
  }
  Outcome out;
  if (!opt.offline.empty()) {
    ASSIGN_OR_RETURN(const int64_t written, WriteOfflineBatch(store, BatchOptionsFrom(ro), opt.offline));
    PrintNote(written == 0 ? fmt::format("{}: every sample is answered: nothing to write", store->dir())
                           : fmt::format("{}: {} request(s) written to {}, asked nothing; run them "
                                         "(vllm run-batch -i {} -o RESULTS --model NAME), then "
                                         "'structtest import {} RESULTS'",
                                         store->dir(), written, opt.offline, opt.offline, store->dir()));
    return out;
  }
  Runner runner(store, cache, env, ro);
  std::optional<RunPage> page;
  if (!in_memory) page.emplace(store->dir(), rules, price);
  Progress progress(stderr, Progress::ModeFor(stderr, opt.quiet));
  std::optional<BatchRunStats> batched;
  if (batch_api != nullptr) {
    BatchRunOptions bo = BatchOptionsFrom(ro);
    bo.poll_initial = std::chrono::milliseconds(static_cast<int64_t>(opt.batch_poll * 1000));
    bo.poll_max = std::max(bo.poll_initial, std::min(32 * bo.poll_initial, bo.poll_max));
    bo.no_resubmit = opt.batch_retry_online;
    bo.batch_size = opt.batch_size;
    if (!opt.quiet) bo.note = [](std::string_view line) { PrintNote(line); };
    ASSIGN_OR_RETURN(batched, RunBatches(store, cache, batch_api, bo));
    out.stats.interrupted = batched->interrupted;
    out.stats.budget_reached = batched->budget_reached;
    ASSIGN_OR_RETURN(const RunCounts spent, store->Counts());
    out.stats.spent_input_tokens = spent.spent_input_tokens;
    out.stats.spent_output_tokens = spent.spent_output_tokens;
  }
  if (batch_api == nullptr || (opt.batch_retry_online && !batched->interrupted &&
                               !batched->budget_reached)) {
    ASSIGN_OR_RETURN(out.stats, client != nullptr ? runner.Run(client, &progress)
                                                  : runner.RunBuiltin(builtin, &progress));
  }
  ASSIGN_OR_RETURN(out.counts, store->Counts());
  if (!out.stats.gave_up.empty()) {
    return Status::Unavailable(fmt::format(
        "stopped: the first {} requests all failed, the last with: {}\nfix the model name, "
        "--base-url or key and run the same command again (the errors are in {})",
        kGiveUpAfter, out.stats.gave_up, store->dir()));
  }
  if (out.stats.interrupted) {
    // What is there so far; the next run writes it again.
    if (page) RETURN_IF_ERROR(page->Finish().status());
    PrintNote(fmt::format("interrupted: {} of {} {} answered and stored in {}; run the "
                          "same command again to continue",
                          out.counts.answered, out.counts.slots,
                          store->repeats() > 1 ? "requests (samples x repeats)" : "samples",
                          store->dir()));
    out.exit_code = kExitInterrupted;
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
    nlohmann::json report = RenderJsonReport(tally, rules);
    ASSIGN_OR_RETURN(std::optional<nlohmann::json> manifest, store->Manifest());
    ASSIGN_OR_RETURN(served, ServedModelsJson(*store, manifest));
    if (!served.is_null()) report["served_models"] = served;
    report["manifest"] = manifest.value_or(nlohmann::json());
    report["samples"] = out.counts.samples;
    report["answered"] = out.counts.answered;
    report["errored"] = out.counts.errored;
    report["truncated"] = out.counts.truncated;
    if (client != nullptr) AddUsageJson(tally, price, &report);
    RETURN_IF_ERROR(WriteFileAtomically(store->dir() + "/report.json", report.dump(2) + "\n"));
  }
  std::string text = fmt::format("== {} on {}{} ({} samples)\n", label,
                                 opt.samples.empty() ? fmt::format("suite {} (seed {})",
                                                                   opt.suite.suite, opt.suite.seed)
                                                     : opt.samples,
                                 opt.shard ? ", shard " + opt.shard->ToString() : "",
                                 out.counts.samples);
  text += RenderTextReport(tally, rules);
  if (client != nullptr) text += RenderUsageText(tally, price);
  const int64_t unscored = tally.errors() - out.counts.errored;
  text += fmt::format(
      "\nanswered {} of {} {} ({:.2f}% coverage), {} errored; accuracy is over the "
      "answered samples",
      out.counts.answered, out.counts.slots,
      store->repeats() > 1
          ? fmt::format("requests ({} samples x {} repeats)", out.counts.samples, store->repeats())
          : "samples",
      out.counts.slots ? 100.0 * out.counts.answered / out.counts.slots : 0.0,
      out.counts.errored);
  if (unscored > 0) text += fmt::format("; {} answered but not scored", unscored);
  if (out.counts.truncated > 0) {
    text += fmt::format("; {} answer(s) cut off by the token limit (scored as they are; "
                        "raise --max-tokens)",
                        out.counts.truncated);
  }
  text += "\n";
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (batched) {
    PrintNote(fmt::format("batches: {} submitted, {} found at the provider, {} collected; {} "
                          "answered, {} errored, {} from the cache",
                          batched->submitted, batched->found, batched->collected,
                          batched->answered, batched->errored, batched->cached));
  }
  if (client != nullptr && (!batched || opt.batch_retry_online)) {
    std::fputs(fmt::format("structtest: requests: {} sent, {} errored, {} cached, {:.2f} s, "
                           "{:.1f} req/s\n",
                           out.stats.sent, out.stats.errored, out.stats.cached,
                           out.stats.seconds,
                           out.stats.seconds > 0 ? out.stats.sent / out.stats.seconds : 0.0)
                   .c_str(),
               stderr);
    if (client_report.closing_lines) std::fputs(client_report.closing_lines().c_str(), stderr);
  }
  if (!served.is_null()) {
    std::string names;
    for (const auto& [name, answers] : served.items()) {
      names += fmt::format("{}{} ({} answers)", names.empty() ? "" : ", ", name, answers.dump());
    }
    PrintNote(fmt::format("asked for {}, the server says it answered as {}", opt.model, names));
  }
  if (out.stats.cached > 0) {
    PrintNote(fmt::format("{} answer(s) came from the response cache (the same requests in "
                          "earlier runs); pass --no-cache to ask the model again",
                          out.stats.cached));
  }
  if (out.counts.errored > 0) {
    std::string common;
    if (auto top = store->TopErrors(3); top.ok()) {
      for (const auto& [error, n] : *top) common += fmt::format("\n  {} x {}", n, error);
    }
    PrintNote(fmt::format("{} sample(s) errored; run the same command again to retry them. "
                          "The most frequent error(s):{}\n(every one with 'structtest export "
                          "{} --all')",
                          out.counts.errored, common, store->dir()));
  }
  if (unscored > 0) {
    std::string common;
    if (auto top = store->TopScoringErrors(RuleSetName(rules), 3); top.ok()) {
      for (const auto& [error, n] : *top) common += fmt::format("\n  {} x {}", n, error);
    }
    PrintNote(fmt::format("{} answer(s) could not be scored under rules {}. The most frequent "
                          "reason(s):{}",
                          unscored, RuleSetName(rules), common));
  }
  if (!in_memory) {  // also under --quiet: where the run is, is the result
    PrintNote(fmt::format("stored in {} (report.json, report.html; every answer with 'structtest export {}')",
                          store->dir(), store->dir()));
  }
  if (ro.budget.any() && out.stats.no_usage > 0) {
    PrintWarning(fmt::format("{} answer(s) reported no token usage: the budget cannot count them",
                             out.stats.no_usage));
  }
  if (out.stats.budget_reached) {
    const int64_t tokens = out.stats.spent_input_tokens + out.stats.spent_output_tokens;
    std::string spent = fmt::format("{} tokens", tokens);
    if (price) {
      spent += fmt::format(" (${:.4f})",
                           price->Cost(out.stats.spent_input_tokens, out.stats.spent_output_tokens));
    }
    std::string limit;
    if (opt.max_tokens_total) limit += fmt::format("--max-tokens-total {}", *opt.max_tokens_total);
    if (opt.max_cost) limit += fmt::format("{}--max-cost {}", limit.empty() ? "" : ", ", *opt.max_cost);
    PrintNote(fmt::format(
        "budget reached: the next request would exceed {}; {} spent in {}; answered {} of {} "
        "{} ({:.2f}% coverage); raise the budget and run the same command to continue",
        limit, spent, store->dir(), out.counts.answered, out.counts.slots,
        store->repeats() > 1 ? "requests (samples x repeats)" : "samples",
        out.counts.slots ? 100.0 * out.counts.answered / out.counts.slots : 0.0));
    out.exit_code = kExitFailures;
  }
  if (tally.errors() > 0) out.exit_code = kExitFailures;
  return out;
}

// The price that costs the run: --price-in/--price-out, else the model's line in
// --prices FILE, else in the built-in table; nullopt when none has it.
StatusOr<std::optional<Price>> ResolvePrice(const RunOptions& opt) {
  if (opt.price_in || opt.price_out) {
    if (!opt.price_in || !opt.price_out) {
      return Status::InvalidArgument(fmt::format(
          "{}: give both --price-in and --price-out (USD per million tokens)",
          opt.price_in ? "--price-in" : "--price-out"));
    }
    for (const auto& [flag, v] : {std::pair{"--price-in", *opt.price_in}, {"--price-out", *opt.price_out}}) {
      if (!(v >= 0) || v > 1e6) {
        return Status::InvalidArgument(
            fmt::format("{} {}: expected USD per million tokens, 0 or more", flag, v));
      }
    }
    Price p;
    p.model = opt.model;
    p.input_per_mtok = *opt.price_in;
    p.output_per_mtok = *opt.price_out;
    p.source = "--price-in/--price-out";
    return std::optional<Price>(p);
  }
  if (!opt.prices.empty()) {
    std::ifstream in(opt.prices, std::ios::binary);
    if (!in) {
      return Status::IoError(fmt::format("--prices {}: cannot read: {}", opt.prices, std::strerror(errno)));
    }
    std::ostringstream text;
    text << in.rdbuf();
    ASSIGN_OR_RETURN(std::vector<Price> table, ParsePrices(text.str(), opt.prices));
    if (auto p = FindPrice(table, opt.model)) return p;
  }
  return BuiltinPrice(opt.model);
}

// `run --dry-run`: the requests the run would send, per subtask, read from the run
// directory when it holds the run already (what is still to ask), else from the suite
// built in memory. Sends nothing and creates nothing.
Status DryRun(RunOptions opt, const std::string& endpoint,
              const SentenceSplitter* sentences, PythonPool* python,
              const std::optional<Price>& price) {
  const std::string dir = opt.out.empty() ? DefaultOutDir(opt) : opt.out;
  std::unique_ptr<RunStore> store;
  std::optional<nlohmann::json> stored;
  std::string from;
  if (std::filesystem::exists(std::filesystem::path(dir) / RunStore::kFileName)) {
    ASSIGN_OR_RETURN(store, RunStore::OpenReadOnly(dir));
    ASSIGN_OR_RETURN(stored, store->Manifest());
    KeepStoredTemperature(stored, &opt);
    from = fmt::format("the samples of {} not answered yet", dir);
  }
  ASSIGN_OR_RETURN(const nlohmann::json identity, Identity(opt, endpoint));
  if (stored) RETURN_IF_ERROR(CheckSameRun(*store, *stored, identity));
  if (store == nullptr) {
    ASSIGN_OR_RETURN(store, RunStore::OpenInMemory());
    RETURN_IF_ERROR(AddSamples(opt, sentences, python, store.get()));
    RETURN_IF_ERROR(store->SetManifest(Manifest(opt, identity)));  // its repeats
    from = "a new run";
  }
  std::map<std::tuple<int, std::string, std::string>, PlannedRequests> by_subtask;
  for (Slot after = kBeforeFirstSlot;;) {
    ASSIGN_OR_RETURN(std::vector<StoredSample> batch, store->PendingSamples(after, 512));
    if (batch.empty()) break;
    for (const StoredSample& s : batch) {
      after = s.slot();
      PlannedRequests& p = by_subtask[{ReportRank(s.sample.domain, s.sample.subtask),
                                      s.sample.domain, s.sample.subtask}];
      p.domain = s.sample.domain;
      p.subtask = s.sample.subtask;
      ++p.requests;
      p.prompt_chars += static_cast<int64_t>(opt.controls.system.size());
      for (const Message& m : s.sample.messages) p.prompt_chars += static_cast<int64_t>(m.content.size());
    }
  }
  std::vector<PlannedRequests> plan;
  for (auto& [key, p] : by_subtask) plan.push_back(std::move(p));
  std::string text = fmt::format(
      "dry run: {} would be sent to {} ({}); nothing was sent\nrequest settings: {}\n\n", from,
      opt.model, endpoint, RequestSettings(identity).dump());
  text += RenderDryRun(plan, price, opt.max_tokens);
  if (opt.batch) {
    ASSIGN_OR_RETURN(const ModelSpec spec, ParseModelSpec(opt.model));
    RunnerOptions ro;
    ro.model = spec.name;
    ro.max_tokens = opt.max_tokens;
    ro.temperature = opt.temperature;
    ro.controls = opt.controls;
    BatchRunOptions bo = BatchOptionsFrom(ro);
    bo.batch_size = opt.batch_size;
    ASSIGN_OR_RETURN(const BatchPlan batches, PlanBatches(store.get(), spec.provider, bo));
    text += RenderBatchPlan(batches, spec.provider, price, opt.max_tokens, opt.batch_size);
  }
  std::fputs(text.c_str(), stdout);
  return Status::Ok();
}

// Why `url` cannot be an API root, or "" when it can.
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

// The endpoints of --endpoints FILE: one URL a line; blank lines and '#' comments
// are skipped.
StatusOr<std::vector<std::string>> ReadEndpointsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError(fmt::format("--endpoints {}: cannot read: {}", path, std::strerror(errno)));
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
          fmt::format("--endpoints {}:{}: '{}': {}", path, number, line, why));
    }
    urls.push_back(line);
  }
  if (urls.empty()) {
    return Status::InvalidArgument(fmt::format("--endpoints {}: no URL in the file", path));
  }
  return urls;
}

// Reads the control flags given as text (--system, --extra-body, --header) into
// `opt->controls` and `opt->headers`.
Status ReadControlFlags(RunOptions* opt) {
  if (opt->temperature_text && *opt->temperature_text != "none") {
    const std::string& text = *opt->temperature_text;
    char* end = nullptr;
    opt->temperature = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Status::InvalidArgument(fmt::format(
          "--temperature {}: expected a number from 0 to 2, or none (send none)", text));
    }
  }
  if (opt->system_text) {
    ASSIGN_OR_RETURN(opt->controls.system, ReadTextFlag("--system", *opt->system_text));
  }
  if (opt->extra_body_text) {
    ASSIGN_OR_RETURN(opt->controls.extra_body, ParseExtraBody(*opt->extra_body_text));
  }
  for (const std::string& text : opt->header_texts) {
    ASSIGN_OR_RETURN(HttpHeader header, ParseHeaderFlag(text));
    opt->headers.push_back(std::move(header));
  }
  return Status::Ok();
}

// --batch and --offline's refusals: a model with no batch API, flags that contradict.
Status CheckBatchFlags(const RunOptions& opt, const std::optional<ModelSpec>& spec) {
  if (opt.batch || opt.batch_retry_online || opt.batch_size != 0) {
    if (!opt.batch) {
      return Status::InvalidArgument(fmt::format("{}: it goes with --batch",
                                                 opt.batch_retry_online ? "--batch-retry-online"
                                                                        : "--batch-size"));
    }
    if (!spec) {
      return Status::InvalidArgument(fmt::format(
          "--batch: {} has no batch API (the built-in responders answer in process); --batch "
          "takes openai/, anthropic/ and gemini/ models",
          opt.model.empty() ? "the built-in responders" : opt.model));
    }
    if (!opt.offline.empty()) {
      return Status::InvalidArgument("--batch --offline: pick one (--batch asks the provider's "
                                     "batch API; --offline writes a file and asks nothing)");
    }
    if (opt.base_urls.size() > 1) {
      return Status::InvalidArgument(
          "--batch: a batch goes to one API; give one --base-url (replicas are for online runs)");
    }
    if (opt.batch_size < 0) {
      return Status::InvalidArgument(fmt::format(
          "--batch-size {}: expected a number of requests (0: the provider's limit)", opt.batch_size));
    }
    if (!(opt.batch_poll > 0 && opt.batch_poll <= 3600)) {
      return Status::InvalidArgument(
          fmt::format("--batch-poll {}: expected a number of seconds, more than 0, at most 3600",
                      opt.batch_poll));
    }
  }
  if (!opt.offline.empty()) {
    if (!spec || spec->provider != Provider::kOpenAi) {
      return Status::InvalidArgument(fmt::format(
          "--offline: it writes an OpenAI batch input file, for openai/ models (an offline "
          "engine such as vLLM serving NAME); --model {} is not one",
          opt.model.empty() ? "(none)" : opt.model));
    }
    if (opt.dry_run) return Status::InvalidArgument("--offline --dry-run: pick one");
  }
  return Status::Ok();
}

int RunRun(RunOptions opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  opt.suite.tasks = SplitList(opt.tasks);
  if (!ApplySampleLimit(opt.limit, &opt.suite)) return kExitFatal;
  if (opt.repeats_text) {
    int64_t k = 0;
    const std::string& text = *opt.repeats_text;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
    if (ec != std::errc() || end != text.data() + text.size() || k < 1 ||
        k > RunStore::kMaxRepeats) {
      PrintError(fmt::format("--repeats {}: expected a whole number from 1 to {}", text,
                             RunStore::kMaxRepeats));
      return kExitFatal;
    }
    opt.repeats = k;
  }
  if (opt.shard_text) {
    auto shard = ParseShard(*opt.shard_text);
    if (!shard.ok()) {
      PrintError(shard.status().message());
      return kExitFatal;
    }
    opt.shard = *shard;
  }
  if (opt.concurrency_text == "auto") {
    opt.auto_concurrency = true;
    if (opt.max_j < 1 || opt.max_j > 4096) {
      PrintError(fmt::format("--max-j {}: expected 1 to 4096", opt.max_j));
      return kExitFatal;
    }
    opt.concurrency = opt.max_j;
  } else {
    const std::string& t = opt.concurrency_text;
    const bool digits = !t.empty() && t.size() <= 9 &&
                        std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      PrintError(fmt::format("--concurrency {}: expected a number of requests in flight (1 to "
                             "4096) or auto",
                             t));
      return kExitFatal;
    }
    opt.concurrency = std::stoi(t);
  }
  if (!opt.endpoints_file.empty()) {
    auto urls = ReadEndpointsFile(opt.endpoints_file);
    if (!urls.ok()) {
      PrintError(urls.status().message());
      return kExitFatal;
    }
    opt.base_urls.insert(opt.base_urls.end(), urls->begin(), urls->end());
  }
  for (const std::string& url : opt.base_urls) {
    if (const std::string why = BadBaseUrl(url); !why.empty()) {
      PrintError(fmt::format("--base-url {}: {}", PublicEndpoint(url), why));
      return kExitFatal;
    }
  }
  if (opt.concurrency < 1 || opt.concurrency > 4096) {
    PrintError(fmt::format("--concurrency {}: expected 1 to 4096", opt.concurrency));
    return kExitFatal;
  }
  if (Status s = CheckScoreJobs(opt.score_jobs); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  if (opt.retries < 0 || opt.retries > 100) {
    PrintError(fmt::format("--retries {}: expected 0 to 100", opt.retries));
    return kExitFatal;
  }
  if (opt.max_rps < 0) {
    PrintError(fmt::format("--max-rps {}: expected a positive rate (0: no limit)", opt.max_rps));
    return kExitFatal;
  }
  if (!(opt.timeout > 0)) {
    PrintError(fmt::format("--timeout {}: expected a positive number of seconds", opt.timeout));
    return kExitFatal;
  }
  if (opt.max_tokens < 0) {
    PrintError(fmt::format("--max-tokens {}: expected 0 (provider default) or more", opt.max_tokens));
    return kExitFatal;
  }
  if (opt.max_cost && !(*opt.max_cost > 0 && *opt.max_cost < 1e12)) {
    PrintError(fmt::format("--max-cost {}: expected a positive number of USD", *opt.max_cost));
    return kExitFatal;
  }
  if (opt.max_tokens_total && *opt.max_tokens_total < 1) {
    PrintError(fmt::format("--max-tokens-total {}: expected a positive number of tokens",
                           *opt.max_tokens_total));
    return kExitFatal;
  }
  if (Status s = ReadControlFlags(&opt); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  if (opt.max_j_given && !opt.auto_concurrency) {
    PrintError(fmt::format("--max-j {}: it bounds -j auto only; pass -j auto with it, or set "
                           "the requests in flight with -j N",
                           opt.max_j));
    return kExitFatal;
  }
  if (opt.no_cache && !opt.cache.empty()) {
    PrintError(fmt::format("--cache {} --no-cache: pick one (--no-cache neither reads nor "
                           "fills a cache)",
                           opt.cache));
    return kExitFatal;
  }
  // The suite is checked before anything is created: a refused run leaves no directory.
  if (!opt.samples.empty()) {
    if (!opt.suite_flags_given.empty()) {
      PrintError(fmt::format("{}: the samples come from --samples {}, made already; leave {} "
                             "out (or generate a new file with 'structtest generate')",
                             opt.suite_flags_given.front(), opt.samples,
                             opt.suite_flags_given.front()));
      return kExitFatal;
    }
    if (auto refs = ResolveTasks(opt.suite.tasks); !refs.ok()) {
      PrintError(refs.status().message());
      return kExitFatal;
    }
  } else if (Status s = CheckSuiteOptions(opt.suite); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }

  // Who answers: built-in responders (in process) or a model behind an API.
  std::vector<std::string> builtins;
  std::optional<ModelSpec> spec;
  if (opt.model.empty()) {
    for (std::string_view name : BuiltinResponderNames()) builtins.emplace_back(name);
  } else if (std::string_view(opt.model).starts_with("builtin/")) {
    const std::string name = opt.model.substr(8);
    const auto names = BuiltinResponderNames();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string known;
      for (std::string_view n : names) known += fmt::format("{}builtin/{}", known.empty() ? "" : ", ", n);
      PrintError(fmt::format("--model {}: unknown built-in responder (expected one of {})",
                             opt.model, known));
      return kExitFatal;
    }
    builtins.push_back(name);
  } else {
    auto parsed = ParseModelSpec(opt.model);
    if (!parsed.ok()) {
      PrintError(parsed.status().message());
      return kExitFatal;
    }
    spec = *parsed;
  }
  if (!builtins.empty() && !opt.base_urls.empty()) {
    PrintError(std::string(opt.endpoints_file.empty() ? "--base-url" : "--endpoints") +
               ": the built-in responders answer in process; pass --model "
               "PROVIDER/NAME to ask a server");
    return kExitFatal;
  }
  if (!spec) {
    // What only a model behind an API uses.
    const std::pair<bool, const char*> api_only[] = {
        {opt.dry_run, "--dry-run"},           {opt.max_cost.has_value(), "--max-cost"},
        {opt.max_tokens_total.has_value(), "--max-tokens-total"},
        {opt.price_in.has_value(), "--price-in"}, {opt.price_out.has_value(), "--price-out"},
        {!opt.prices.empty(), "--prices"},    {opt.system_text.has_value(), "--system"},
        {opt.controls.top_p.has_value(), "--top-p"}, {!opt.controls.stop.empty(), "--stop"},
        {opt.controls.seed.has_value(), "--sampling-seed"},
        {!opt.controls.reasoning_effort.empty(), "--reasoning-effort"},
        {opt.controls.thinking_budget.has_value(), "--thinking-budget"},
        {opt.extra_body_text.has_value(), "--extra-body"}, {!opt.headers.empty(), "--header"}};
    for (const auto& [given, flag] : api_only) {
      if (!given) continue;
      PrintError(fmt::format("{}: the built-in responders send nothing and cost nothing; name a "
                             "model with --model PROVIDER/NAME",
                             flag));
      return kExitFatal;
    }
  }
  if (Status s = CheckBatchFlags(opt, spec); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  if (spec && !opt.temperature_text) {
    opt.temperature = DefaultTemperature(*spec, opt.controls);
    opt.temperature_defaulted = true;
  }
  ModelRequest every;
  every.model = spec ? spec->name : "";
  every.max_tokens = opt.max_tokens;
  every.temperature = opt.temperature;
  every.controls = opt.controls;
  if (Status s = spec ? CheckRequestSettings(spec->provider, every) : CheckControlRanges(every);
      !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  std::optional<Price> price;
  if (spec) {
    auto resolved = ResolvePrice(opt);
    if (!resolved.ok()) {
      PrintError(resolved.status().message());
      return kExitFatal;
    }
    price = *resolved;
    if (opt.max_cost && !price) {
      PrintError(fmt::format("--max-cost {}: no price for {}: pass --price-in and --price-out "
                             "(USD per million tokens) or --prices FILE",
                             *opt.max_cost, opt.model));
      return kExitFatal;
    }
  }
  if (opt.model.empty() && !opt.out.empty()) {
    PrintError("--out: name the responder with --model (builtin/oracle, ...) to store a run");
    return kExitFatal;
  }

  // The Punkt model, loaded when the suite may need it: the built-in one unless
  // --nltk-data or $NLTK_DATA names another.
  std::unique_ptr<SentenceSplitter> splitter;
  if (NeedsSentences(opt)) {
    splitter = LoadSentenceSplitter(opt.nltk_data);
    if (splitter == nullptr) return kExitFatal;
  }
  PythonOptions python_options;
  python_options.python = opt.python;
  python_options.max_workers = opt.score_jobs;  // one python3 worker per scoring thread
  PythonPool python(python_options);
  CheckEnv env;
  env.sentences = splitter.get();
  env.python = &python;

  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);

  int exit_code = kExitOk;
  auto fail = [](const Status& s) {
    PrintError(s.message());
    return kExitFatal;
  };
  if (spec) {
    HttpClientOptions http;
    http.provider = spec->provider;
    http.base_url =
        opt.base_urls.empty() ? std::string(DefaultBaseUrl(spec->provider)) : opt.base_urls.front();
    http.api_key = ApiKeyFromEnvironment(spec->provider);
    http.headers = opt.headers;
    if (opt.dry_run) {
      const std::string endpoint =
          fmt::format("{} {}", ProviderName(spec->provider), PublicEndpoint(http.base_url));
      const Status s = DryRun(opt, endpoint, splitter.get(), &python, price);
      return s.ok() ? kExitOk : fail(s);
    }
    if (http.api_key.empty() && opt.base_urls.empty() && opt.offline.empty()) {
      PrintError(fmt::format("--model {}: {} is not set (the API key of {})", opt.model,
                             ApiKeyEnvVar(spec->provider), ProviderName(spec->provider)));
      return kExitFatal;
    }
    // -j is per endpoint; under -j auto the adaptive limit holds the total and each
    // endpoint takes up to --max-j.
    const size_t replicas = std::max<size_t>(1, opt.base_urls.size());
    const size_t per_endpoint = static_cast<size_t>(opt.concurrency);
    http.max_in_flight = per_endpoint * replicas;
    if (replicas > 1) http.base_urls = opt.base_urls;
    http.total_timeout = std::chrono::milliseconds(static_cast<int64_t>(opt.timeout * 1000));
    http.idle_timeout = std::min(http.idle_timeout, http.total_timeout);
    http.ca_file = opt.ca_cert;
    if (opt.http11) http.http_version = HttpClientOptions::HttpVersion::kHttp11;
    // The cache key's endpoint and the manifest's: the first URL names the deployment.
    // Replicas serve one model, so every answer of the run is cached under it, whichever
    // replica gave it.
    const std::string endpoint =
        fmt::format("{} {}", ProviderName(spec->provider), PublicEndpoint(http.base_url));
    const HttpClientOptions batch_http = http;  // --batch's calls, with the same settings
    auto transport = NewCurlModelClient(std::move(http));
    if (!transport.ok()) return fail(transport.status());
    std::unique_ptr<ModelClient> paced = std::move(transport).value();
    ClientReport client_report;
    EndpointPoolClient* pool = nullptr;
    if (replicas > 1) {
      EndpointPoolPolicy pool_policy;
      pool_policy.per_endpoint = per_endpoint;
      auto owned = std::make_unique<EndpointPoolClient>(std::move(paced), replicas, pool_policy);
      pool = owned.get();
      paced = std::move(owned);
    }
    AdaptiveConcurrencyClient* adaptive = nullptr;
    if (opt.auto_concurrency) {
      AdaptivePolicy adaptive_policy;
      adaptive_policy.max = per_endpoint * replicas;
      adaptive_policy.initial = std::min<size_t>(4, adaptive_policy.max);
      auto owned = std::make_unique<AdaptiveConcurrencyClient>(std::move(paced), adaptive_policy);
      adaptive = owned.get();
      paced = std::move(owned);
      client_report.concurrency_limit = [adaptive] { return static_cast<int64_t>(adaptive->limit()); };
    }
    if (pool != nullptr || adaptive != nullptr) {
      const std::vector<std::string> urls = opt.base_urls;
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
    if (opt.max_rps > 0) {
      paced = std::make_unique<RateLimitedModelClient>(std::move(paced), opt.max_rps,
                                                       per_endpoint * replicas);
    }
    RetryPolicy policy;
    policy.max_attempts = opt.retries + 1;
    policy.seed = opt.suite.seed;
    RetryingModelClient client(std::move(paced), policy);
    auto store = RunStore::Open(opt.out.empty() ? DefaultOutDir(opt) : opt.out);
    if (!store.ok()) return fail(store.status());
    std::unique_ptr<ResponseCache> cache;
    if (!opt.no_cache) {
      auto opened = ResponseCache::Open(opt.cache.empty() ? ResponseCache::DefaultPath() : opt.cache);
      if (!opened.ok()) {
        PrintError(fmt::format("response cache: {} (pass --no-cache to run without it)",
                               opened.status().message()));
        return kExitFatal;
      }
      cache = std::move(opened).value();
    }
    std::unique_ptr<HttpTransport> batch_transport;
    std::optional<BatchApi> batch_api;
    if (opt.batch) {
      auto made = NewCurlHttpTransport(batch_http);
      if (!made.ok()) return fail(made.status());
      batch_transport = std::move(made).value();
      batch_api.emplace(spec->provider, batch_http.base_url, batch_http.api_key, batch_http.headers,
                        batch_transport.get());
    }
    auto outcome = RunOne(opt, opt.model, store->get(), cache.get(), &client, "", endpoint, env,
                          *rules, &python, false, price,
                          client_report, batch_api ? &*batch_api : nullptr);
    if (!outcome.ok()) return fail(outcome.status());
    return std::max(exit_code, outcome->exit_code);
  }

  // With all of them (no --model), each is also scored under the other rule set, for
  // the closing table of what the cheaters get under paper and under strict.
  const RuleSet other = *rules == RuleSet::kPaper ? RuleSet::kStrict : RuleSet::kPaper;
  std::vector<std::pair<Aggregates, Aggregates>> by_rules;  // (paper, strict) per builtin
  for (const std::string& name : builtins) {
    RunOptions one = opt;
    one.model = "builtin/" + name;
    // One named responder is a run like a model's, in its run directory; all of them
    // (no --model) are a demonstration, kept in memory.
    const bool in_memory = opt.model.empty();
    auto store = in_memory ? RunStore::OpenInMemory()
                           : RunStore::Open(opt.out.empty() ? DefaultOutDir(one) : opt.out);
    if (!store.ok()) return fail(store.status());
    auto outcome = RunOne(one, one.model, store->get(), nullptr, nullptr, name, "builtin", env,
                          *rules, &python, in_memory, std::nullopt);
    if (!outcome.ok()) return fail(outcome.status());
    exit_code = std::max(exit_code, outcome->exit_code);
    if (outcome->exit_code == kExitInterrupted) return kExitInterrupted;
    std::fputs("\n", stdout);
    if (opt.model.empty()) {
      RunnerOptions ro;
      ro.rules = other;
      ro.score_jobs = opt.score_jobs;
      Runner rescore(store->get(), nullptr, env, ro);
      auto tally = rescore.ScoreAndTally();
      if (!tally.ok()) return fail(tally.status());
      by_rules.emplace_back(*rules == RuleSet::kPaper ? outcome->agg : tally->Compute(),
                            *rules == RuleSet::kPaper ? tally->Compute() : outcome->agg);
    }
  }
  if (opt.model.empty()) {
    std::fputs(RenderRulesTable(builtins, by_rules).c_str(), stdout);
    std::fputs(
        "These are the built-in responders: oracle answers every sample correctly, null "
        "answers nothing, echo repeats the prompt, skeleton keeps the structure of a correct "
        "answer with filler for its content, loophole gives the cheapest answer the paper "
        "rules pass.\nTo score a model behind an API:\n"
        "  OPENAI_API_KEY=... structtest run --model openai/gpt-4o-mini\n"
        "  structtest run --model openai/NAME --base-url http://localhost:8000/v1   "
        "(vLLM, llama.cpp, Ollama, ...)\n"
        "  ANTHROPIC_API_KEY=... structtest run --model anthropic/claude-3-5-haiku-latest\n"
        "  GEMINI_API_KEY=... structtest run --model gemini/gemini-1.5-flash\n",
        stdout);
  }
  return exit_code;
}

}  // namespace

void SetupRun(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Ask a model every sample of a suite, score the answers and print the table; "
             "the same command again resumes an interrupted run");
  std::string builtins;
  for (std::string_view name : BuiltinResponderNames()) {
    builtins += fmt::format("{}{}", builtins.empty() ? "" : "|", name);
  }
  cmd->add_option("--model", opt->model,
                  fmt::format("PROVIDER/NAME: openai/... (any OpenAI-compatible server), "
                              "anthropic/..., gemini/..., or builtin/{} (default: all {} "
                              "built-in responders, in memory, with a closing table). Keys "
                              "come from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY",
                              builtins, BuiltinResponderNames().size()));
  cmd->add_option("--base-url", opt->base_urls,
                  "the server's API root, e.g. http://localhost:8000/v1 (default: the "
                  "provider's); give it again for each replica serving the same model: "
                  "requests go to the one with the fewest in flight, one failing "
                  "repeatedly is set aside for a growing cool-down (docs/scale-out.md)")
      ->allow_extra_args(false);
  cmd->add_option("--endpoints", opt->endpoints_file,
                  "FILE: replicas of the model, one API root a line ('#' comments and blank "
                  "lines skipped), after any --base-url");
  cmd->add_option("--suite", opt->suite.suite, "default or paper (see 'generate')");
  cmd->add_option("--samples", opt->samples,
                  "ask these samples (JSONL from 'structtest generate') instead of generating");
  cmd->add_option("--seed", opt->suite.seed, "seed of the generated suite (default 0)")
      ->check(SeedValidator());
  cmd->add_option("--tasks", opt->tasks, "comma-separated subtasks or domains (default: all)");
  cmd->add_option("--size", opt->suite.size, "scale of the paper's sample counts (default 1)");
  cmd->add_option("--limit", opt->limit,
                  "at most N samples of each subtask: the first N of the suite (or of "
                  "--samples), for a quick smoke test")
      ->type_name("N");
  cmd->add_option("--repeats", opt->repeats_text,
                  "ask each sample K times (default 1): the report gives the mean accuracy "
                  "over the repeats with an interval per sample, consistency, pass@k and "
                  "pass^k")
      ->type_name("K");
  cmd->add_option("--shard", opt->shard_text,
                  "I/N: only the I-th of N disjoint parts of the suite (by a hash of the "
                  "sample id), into its own run directory; 'structtest merge' combines the "
                  "shards (docs/scale-out.md)");
  cmd->add_option("--documents", opt->suite.documents, "documents (paper suite)");
  cmd->add_option("--mbpp", opt->suite.mbpp, "MBPP-style JSON (paper suite)");
  cmd->add_option("--apps", opt->suite.apps, "APPS-style JSON (paper suite)");
  cmd->add_option("--gsm8k", opt->suite.gsm8k, "GSM8K JSONL (paper suite)");
  cmd->add_option("--concurrency,-j", opt->concurrency_text,
                  "requests in flight, per endpoint (default 8); auto: find the limit, "
                  "starting at 4, growing while latency holds and halving on 429s and "
                  "timeouts, up to --max-j per endpoint")
      ->type_name("N|auto");
  cmd->add_option("--max-j", opt->max_j, "with -j auto, the most requests in flight per endpoint "
                  "(default 256)");
  cmd->add_option("--score-jobs,-J", opt->score_jobs,
                  "threads (and python3 workers) scoring the code subtasks' answers "
                  "(default: the number of cores)");
  cmd->add_option("--max-tokens", opt->max_tokens,
                  "answer token limit (default: the provider's; 4096 for anthropic)");
  cmd->add_option("--temperature", opt->temperature_text,
                  "sampling temperature, 0 to 2 (anthropic: 0 to 1), or none: send none, the "
                  "provider's default applies. Default 0, the most reproducible; none with "
                  "--top-p, for OpenAI's reasoning models (o1, o3, gpt-5...) and with "
                  "anthropic's --thinking-budget")
      ->type_name("T|none");
  cmd->add_option("--top-p", opt->controls.top_p, "nucleus sampling: more than 0, at most 1");
  cmd->add_option("--stop", opt->controls.stop,
                  "a stop sequence; give it again for each (gemini: at most 5)")
      ->type_name("TEXT")
      ->allow_extra_args(false);
  cmd->add_option("--sampling-seed", opt->controls.seed,
                  "the provider's sampling seed, 0 to 2147483647 (openai, gemini; not the "
                  "suite's --seed)");
  cmd->add_option("--reasoning-effort", opt->controls.reasoning_effort,
                  "none, minimal, low, medium, high or xhigh: openai's reasoning_effort "
                  "(o-series, gpt-5, and servers that take it), gemini's thinking level "
                  "(minimal to high)");
  cmd->add_option("--thinking-budget", opt->controls.thinking_budget,
                  "tokens the model may think: anthropic's thinking.budget_tokens (1024 or "
                  "more, below --max-tokens), gemini's thinkingBudget (-1: the model decides, "
                  "0: none)")
      ->type_name("TOKENS");
  cmd->add_option("--system", opt->system_text,
                  "a system message before every prompt (TEXT, or the contents of FILE)")
      ->type_name("TEXT|@FILE");
  cmd->add_option("--extra-body", opt->extra_body_text,
                  "a JSON object merged into every request body, or @FILE holding it, e.g. "
                  "vLLM's '{\"top_k\": 20, \"chat_template_kwargs\": {\"enable_thinking\": "
                  "false}}' (a field structtest sets already is refused)")
      ->type_name("JSON|@FILE");
  cmd->add_option("--header", opt->header_texts,
                  "sent with every request; give it again for each. Values are never "
                  "stored (the run keeps the names)")
      ->type_name("'NAME: VALUE'")
      ->allow_extra_args(false);
  cmd->add_option("--out", opt->out,
                  "run directory (default: runs/ plus a name made from the model and suite)");
  cmd->add_option("--retries", opt->retries,
                  "retries of a request failing with 429, 5xx or a network error (default 5)");
  cmd->add_option("--timeout", opt->timeout, "seconds a request may take in all (default 600)");
  cmd->add_option("--max-rps", opt->max_rps,
                  "start at most this many requests per second, retries included (default: "
                  "no limit)");
  cmd->add_option("--ca-cert", opt->ca_cert,
                  "PEM file of the certificate authorities to trust for an https --base-url "
                  "(a private CA or a self-signed server; default: the system's)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--http1.1", opt->http11,
                "never ask for HTTP/2 (default: HTTP/2 over https where the server offers "
                "it, many requests on few connections)");
  cmd->add_flag("--no-cache", opt->no_cache, "neither read nor fill the response cache");
  cmd->add_option("--cache", opt->cache,
                  "response cache file (default: $STRUCTTEST_CACHE, else "
                  "~/.cache/structtest/responses.db)");
  cmd->add_option("--rules", opt->rules, "rule set: paper (default) or strict");
  cmd->add_option("--nltk-data", opt->nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->python, "python3 for the code subtasks (see 'score')");
  cmd->add_flag("--quiet,-q", opt->quiet, "no progress output");
  cmd->add_option("--price-in", opt->price_in,
                  "USD per million input tokens, for the cost (default: the model's list price "
                  "in --prices or the built-in table)");
  cmd->add_option("--price-out", opt->price_out,
                  "USD per million output tokens (reasoning included), with --price-in");
  cmd->add_option("--prices", opt->prices,
                  "price table CSV with the columns model, input_usd_per_mtok, "
                  "output_usd_per_mtok, date and an optional note "
                  "(looked in before the built-in one, data/prices/prices.csv)");
  cmd->add_option("--max-cost", opt->max_cost,
                  "USD: start no request that would take the run directory's spending past it; "
                  "exit 1, and the same command with a higher budget continues");
  cmd->add_option("--max-tokens-total", opt->max_tokens_total,
                  "the same budget in tokens, input plus output");
  cmd->add_flag("--batch", opt->batch,
                "ask through the provider's batch API at its batch price (half the online "
                "one; openai, anthropic, gemini): submit the unanswered samples in batches, "
                "poll them and store the answers; the same command again polls the batches "
                "already submitted and never submits them twice (README, Batch inference)");
  cmd->add_option("--batch-poll", opt->batch_poll,
                  "with --batch, seconds before the first poll (default 30); the wait doubles "
                  "while nothing changes, up to 32 times it or 10 minutes");
  cmd->add_option("--batch-size", opt->batch_size,
                  "with --batch, at most N requests a batch (default: the provider's limit, "
                  "50,000 for openai, 100,000 for anthropic; the bytes limit holds too)")
      ->type_name("N");
  cmd->add_flag("--batch-retry-online", opt->batch_retry_online,
                "with --batch, ask the requests that failed or expired in a batch online (at "
                "the online price) instead of in another batch");
  cmd->add_option("--offline", opt->offline,
                  "FILE: ask nothing; write every unanswered request of the run (an openai/ "
                  "model) to FILE as an OpenAI batch input file, for an offline engine "
                  "(vllm run-batch -i FILE -o RESULTS --model NAME); then 'structtest import "
                  "DIR RESULTS'")
      ->type_name("FILE");
  cmd->add_flag("--dry-run", opt->dry_run,
                "print what the run would send (requests and estimated prompt tokens per "
                "subtask, the cost range) and send nothing");
  cmd->callback([opt, exit_code, cmd]() {
    for (const char* flag : {"--seed", "--size", "--suite", "--documents", "--mbpp", "--apps",
                             "--gsm8k"}) {
      if (cmd->count(flag) > 0) opt->suite_flags_given.emplace_back(flag);
    }
    opt->max_j_given = cmd->count("--max-j") > 0;
    *exit_code = RunRun(*opt);
  });
}

}  // namespace structtest::cli
