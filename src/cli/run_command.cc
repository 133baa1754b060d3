// `structtest run`: generate a suite (or read one), ask a model every sample, score
// the answers and print the paper-style table. Everything lands in a run directory
// (store/run_store.h): running the same command again, after Ctrl-C, a crash or
// kill -9, continues where it stopped and asks only what is unanswered or errored.
// Without --model the built-in responders answer, in memory: the floor and ceiling
// of every rule set, and a first run that needs no model at all. An API run reports
// its tokens and their cost, can be held to a budget (--max-cost, --max-tokens-total),
// and --dry-run shows what it would send without sending it. This file reads and
// checks the flags; the run itself is runner/run_job.h's.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/providers.h"
#include "backends/request_controls.h"
#include "cli/commands.h"
#include "core/shard.h"
#include "runner/run_identity.h"
#include "runner/run_job.h"
#include "store/run_store.h"
#include "tasks/registry.h"
#include "tasks/responders.h"
#include "tasks/score_stage.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest::cli {

namespace {

constexpr int kExitInterrupted = 130;

// The flags: the run's options (run_options.h) as read, and what is given as text,
// read into them by RunRun. A RunJobOptions itself, so that the flags bind to its
// fields and RunRun hands it on as it is.
struct RunOptions : RunJobOptions {
  std::string endpoints_file;          // --endpoints FILE
  std::optional<std::string> limit;
  // --repeats K: each sample asked K times (store/run_store.h); read from repeats_text.
  std::optional<std::string> repeats_text;
  std::string concurrency_text = "8";  // -j N or -j auto
  int max_j = 256;
  // --temperature as given: a number, or "none" (send none); read into `temperature`.
  std::optional<std::string> temperature_text;
  // What the control flags were given as, before RunRun reads them into `controls` and
  // `headers`.
  std::optional<std::string> system_text;
  std::optional<std::string> extra_body_text;
  std::vector<std::string> header_texts;
  std::string rules_text = "paper";
  std::string nltk_data;
  std::optional<std::string> shard_text;  // --shard I/N
  std::optional<double> price_in;
  std::optional<double> price_out;
  std::string prices;
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
  auto rules = ParseRuleSet(opt.rules_text);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  opt.rules = *rules;
  opt.suite.tasks = SplitList(opt.tasks_text);
  if (!ApplySampleLimit(opt.limit, &opt.suite.limit)) return kExitFatal;
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
  if (Status s = SettleRequestSettings(spec ? &*spec : nullptr,
                                      opt.temperature_text.has_value(), &opt);
      !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  if (spec) {
    auto resolved = ResolvePrice(opt.model, {opt.price_in, opt.price_out, opt.prices});
    if (!resolved.ok()) {
      PrintError(resolved.status().message());
      return kExitFatal;
    }
    opt.price = *resolved;
    if (opt.max_cost && !opt.price) {
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
  std::shared_ptr<const SentenceSplitter> splitter;
  if (NeedsSentences(opt)) {
    splitter = LoadSentenceSplitter(opt.nltk_data);
    if (splitter == nullptr) return kExitFatal;
  }

  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);

  RunJobOutput output;
  output.out = [](std::string_view text) { std::fputs(std::string(text).c_str(), stdout); };
  output.flush = [] { std::fflush(stdout); };
  output.note = [](std::string_view line) { PrintNote(line); };
  output.warning = [](std::string_view line) { PrintWarning(line); };
  output.log = [](std::string_view text) { std::fputs(std::string(text).c_str(), stderr); };
  output.progress = stderr;
  auto result = RunJob(opt, splitter.get(), &g_stop, output);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitFatal;
  }
  if (result->interrupted) return kExitInterrupted;
  return result->failures ? kExitFailures : kExitOk;
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
  cmd->add_option("--tasks", opt->tasks_text, "comma-separated subtasks or domains (default: all)");
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
  AddScoreJobsOption(cmd, &opt->score_jobs);
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
  cmd->add_option("--rules", opt->rules_text, "rule set: paper (default) or strict");
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
