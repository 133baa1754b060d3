// `structtest run`: generate a suite (or read one), ask a model every sample, score
// the answers and print the paper-style table. Everything lands in a run directory:
// running the same command again, after Ctrl-C, a crash or kill -9, continues where it
// stopped and asks only what is unanswered or errored. Without --model the built-in
// responders answer, in memory: the floor and ceiling of every rule set, and a first
// run that needs no model at all. This file reads the flags' text into
// RunSuiteOptions (structtest/run.h) and hands them to RunSuite, which checks them
// together and runs.
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

#include "cli/commands.h"
#include "structtest/generate.h"
#include "structtest/run.h"
#include "structtest/sample.h"

namespace structtest::cli {

namespace {

constexpr int kExitInterrupted = 130;

// The flags: the run's options as read, and what is given as text, read into them by
// RunRun.
struct RunOptions {
  RunSuiteOptions run;
  std::string tasks_text;              // --tasks
  std::optional<std::string> limit;
  std::optional<std::string> repeats_text;  // --repeats K
  std::string concurrency_text = "8";  // -j N or -j auto
  // --temperature as given: a number, or "none" (send none).
  std::optional<std::string> temperature_text;
  std::string rules_text = "paper";
  std::optional<std::string> shard_text;  // --shard I/N
  bool no_cache = false;
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

// Reads the flags given as text into opt->run; the error names the flag.
Status ReadTextFlags(RunOptions* opt) {
  RunSuiteOptions& run = opt->run;
  STRUCTTEST_ASSIGN_OR_RETURN(run.scoring.rules, ParseRuleSet(opt->rules_text));
  run.suite.tasks = SplitList(opt->tasks_text);
  if (opt->limit) {
    STRUCTTEST_ASSIGN_OR_RETURN(run.suite.limit, ParseSampleLimit(*opt->limit));
  }
  if (opt->repeats_text) {
    const std::string& text = *opt->repeats_text;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), run.repeats);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Status::InvalidArgument(
          fmt::format("--repeats {}: expected a whole number from 1 to {}", text, kMaxRepeats));
    }
  }
  if (opt->shard_text) STRUCTTEST_RETURN_IF_ERROR(SetShard(*opt->shard_text, &run.suite));
  if (opt->concurrency_text == "auto") {
    run.transport.auto_concurrency = true;
  } else {
    const std::string& t = opt->concurrency_text;
    const bool digits = !t.empty() && t.size() <= 9 && std::all_of(t.begin(), t.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
    if (!digits) {
      return Status::InvalidArgument(fmt::format(
          "--concurrency {}: expected a number of requests in flight (1 to 4096) or auto", t));
    }
    run.transport.concurrency = std::stoi(t);
  }
  if (opt->max_j_given && !run.transport.auto_concurrency) {
    return Status::InvalidArgument(fmt::format(
        "--max-j {}: it bounds -j auto only; pass -j auto with it, or set the requests in "
        "flight with -j N",
        run.transport.max_concurrency));
  }
  if (opt->temperature_text) {
    const std::string& text = *opt->temperature_text;
    if (text == "none") {
      run.request.no_temperature = true;
    } else {
      char* end = nullptr;
      run.request.temperature = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) {
        return Status::InvalidArgument(fmt::format(
            "--temperature {}: expected a number from 0 to 2, or none (send none)", text));
      }
    }
  }
  run.transport.use_cache = !opt->no_cache;
  // The suite is checked by RunSuite; the flags that cannot go with --samples, here.
  if (!run.samples.empty() && !opt->suite_flags_given.empty()) {
    const std::string& flag = opt->suite_flags_given.front();
    return Status::InvalidArgument(fmt::format(
        "{}: the samples come from --samples {}, made already; leave {} out (or generate a "
        "new file with 'structtest generate')",
        flag, run.samples, flag));
  }
  return Status::Ok();
}

int RunRun(RunOptions opt) {
  if (Status s = ReadTextFlags(&opt); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);

  RunSuiteOutput output;
  output.out = [](std::string_view text) { std::fputs(std::string(text).c_str(), stdout); };
  output.flush = [] { std::fflush(stdout); };
  output.note = [](std::string_view line) { PrintNote(line); };
  output.warning = [](std::string_view line) { PrintWarning(line); };
  output.log = [](std::string_view text) { std::fputs(std::string(text).c_str(), stderr); };
  output.progress = stderr;
  auto result = RunSuite(opt.run, &g_stop, output);
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
  const std::vector<std::string> names = BuiltinResponders();
  for (const std::string& name : names) {
    builtins += fmt::format("{}{}", builtins.empty() ? "" : "|", name);
  }
  cmd->add_option(FlagNames("model"), opt->run.model,
                  fmt::format("PROVIDER/NAME: openai/... (any OpenAI-compatible server), "
                              "anthropic/..., gemini/..., or builtin/{} (default: all {} "
                              "built-in responders, in memory, with a closing table). Keys "
                              "come from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY",
                              builtins, names.size()));
  cmd->add_option(FlagNames("transport.base_urls"), opt->run.transport.base_urls,
                  "the server's API root, e.g. http://localhost:8000/v1 (default: the "
                  "provider's); give it again for each replica serving the same model: "
                  "requests go to the one with the fewest in flight, one failing "
                  "repeatedly is set aside for a growing cool-down (docs/scale-out.md)")
      ->allow_extra_args(false);
  cmd->add_option(FlagNames("transport.endpoints_file"), opt->run.transport.endpoints_file,
                  "FILE: replicas of the model, one API root a line ('#' comments and blank "
                  "lines skipped), after any --base-url");
  cmd->add_option(FlagNames("suite"), opt->run.suite.suite,
                  "default, paper or composed (see 'generate')");
  cmd->add_option(FlagNames("rules_per_sample"), opt->run.suite.rules_per_sample,
                  "composed suite: format rules per sample, 1 to 8 (default 3)")
      ->type_name("K");
  cmd->add_option(FlagNames("difficulty"), opt->run.suite.difficulty,
                  "composed suite: easy, medium, hard or extreme (2, 4, 6 or 8 rules per "
                  "sample), instead of --rules-per-sample");
  cmd->add_option(FlagNames("samples"), opt->run.samples,
                  "ask these samples (JSONL from 'structtest generate') instead of generating");
  cmd->add_option(FlagNames("seed"), opt->run.suite.seed, "seed of the generated suite (default 0)")
      ->check(SeedValidator());
  cmd->add_option(FlagNames("tasks"), opt->tasks_text,
                  "comma-separated subtasks or domains (default: all)")
      ->check(TaskListValidator());
  cmd->add_option(FlagNames("size"), opt->run.suite.size,
                  "scale of the paper's sample counts (default 1)");
  cmd->add_option(FlagNames("limit"), opt->limit,
                  "at most N samples of each subtask: the first N of the suite (or of "
                  "--samples), for a quick smoke test")
      ->type_name("N");
  cmd->add_option(FlagNames("repeats"), opt->repeats_text,
                  "ask each sample K times (default 1): the report gives the mean accuracy "
                  "over the repeats with an interval per sample, consistency, pass@k and "
                  "pass^k")
      ->type_name("K");
  cmd->add_option(FlagNames("shard"), opt->shard_text,
                  "I/N: only the I-th of N disjoint parts of the suite (by a hash of the "
                  "sample id), into its own run directory; 'structtest merge' combines the "
                  "shards (docs/scale-out.md)");
  cmd->add_option(FlagNames("documents"), opt->run.suite.documents, "documents (paper suite)");
  cmd->add_option(FlagNames("mbpp"), opt->run.suite.mbpp, "MBPP-style JSON (paper suite)");
  cmd->add_option(FlagNames("apps"), opt->run.suite.apps, "APPS-style JSON (paper suite)");
  cmd->add_option(FlagNames("gsm8k"), opt->run.suite.gsm8k, "GSM8K JSONL (paper suite)");
  cmd->add_option(FlagNames("transport.concurrency"), opt->concurrency_text,
                  "requests in flight, per endpoint (default 8); auto: find the limit, "
                  "starting at 4, growing while latency holds and halving on 429s and "
                  "timeouts, up to --max-j per endpoint")
      ->type_name("N|auto");
  cmd->add_option(FlagNames("transport.max_concurrency"), opt->run.transport.max_concurrency,
                  "with -j auto, the most requests in flight per endpoint "
                  "(default 256)");
  AddScoreJobsOption(cmd, &opt->run.scoring.score_jobs);
  cmd->add_option(FlagNames("request.max_tokens"), opt->run.request.max_tokens,
                  "answer token limit (default: the provider's; 4096 for anthropic)");
  cmd->add_option(FlagNames("request.temperature"), opt->temperature_text,
                  "sampling temperature, 0 to 2 (anthropic: 0 to 1), or none: send none, the "
                  "provider's default applies. Default 0, the most reproducible; none with "
                  "--top-p, for OpenAI's reasoning models (o1, o3, gpt-5...) and with "
                  "anthropic's --thinking-budget")
      ->type_name("T|none");
  cmd->add_option(FlagNames("request.top_p"), opt->run.request.top_p,
                  "nucleus sampling: more than 0, at most 1");
  cmd->add_option(FlagNames("request.stop"), opt->run.request.stop,
                  "a stop sequence; give it again for each (gemini: at most 5)")
      ->type_name("TEXT")
      ->allow_extra_args(false);
  cmd->add_option(FlagNames("request.sampling_seed"), opt->run.request.sampling_seed,
                  "the provider's sampling seed, 0 to 2147483647 (openai, gemini; not the "
                  "suite's --seed)");
  cmd->add_option(FlagNames("request.reasoning_effort"), opt->run.request.reasoning_effort,
                  "none, minimal, low, medium, high or xhigh: openai's reasoning_effort "
                  "(o-series, gpt-5, and servers that take it), gemini's thinking level "
                  "(minimal to high)");
  cmd->add_option(FlagNames("request.thinking_budget"), opt->run.request.thinking_budget,
                  "tokens the model may think: anthropic's thinking.budget_tokens (1024 or "
                  "more, below --max-tokens), gemini's thinkingBudget (-1: the model decides, "
                  "0: none)")
      ->type_name("TOKENS");
  cmd->add_option(FlagNames("request.system"), opt->run.request.system,
                  "a system message before every prompt (TEXT, or the contents of FILE)")
      ->type_name("TEXT|@FILE");
  cmd->add_option(FlagNames("request.extra_body"), opt->run.request.extra_body,
                  "a JSON object merged into every request body, or @FILE holding it, e.g. "
                  "vLLM's '{\"top_k\": 20, \"chat_template_kwargs\": {\"enable_thinking\": "
                  "false}}' (a field structtest sets already is refused)")
      ->type_name("JSON|@FILE");
  cmd->add_option(FlagNames("request.headers"), opt->run.request.headers,
                  "sent with every request; give it again for each. Values are never "
                  "stored (the run keeps the names)")
      ->type_name("'NAME: VALUE'")
      ->allow_extra_args(false);
  cmd->add_option(FlagNames("out"), opt->run.out,
                  "run directory (default: runs/ plus a name made from the model and suite)");
  cmd->add_option(FlagNames("transport.retries"), opt->run.transport.retries,
                  "retries of a request failing with 429, 5xx or a network error (default 5)");
  cmd->add_option(FlagNames("transport.timeout_seconds"), opt->run.transport.timeout_seconds,
                  "seconds a request may take in all (default 600)");
  cmd->add_option(FlagNames("transport.max_rps"), opt->run.transport.max_rps,
                  "start at most this many requests per second, retries included (default: "
                  "no limit)");
  cmd->add_option(FlagNames("transport.ca_cert"), opt->run.transport.ca_cert,
                  "PEM file of the certificate authorities to trust for an https --base-url "
                  "(a private CA or a self-signed server; default: the system's)")
      ->check(CLI::ExistingFile);
  cmd->add_flag(FlagNames("transport.http11"), opt->run.transport.http11,
                "never ask for HTTP/2 (default: HTTP/2 over https where the server offers "
                "it, many requests on few connections)");
  cmd->add_flag(FlagNames("transport.use_cache=false"), opt->no_cache,
                  "neither read nor fill the response cache");
  cmd->add_option(FlagNames("transport.cache"), opt->run.transport.cache,
                  "response cache file (default: $STRUCTTEST_CACHE, else "
                  "~/.cache/structtest/responses.db)");
  cmd->add_option(FlagNames("rules"), opt->rules_text, "rule set: paper (default) or strict");
  cmd->add_option(FlagNames("nltk_data"), opt->run.scoring.nltk_data, kNltkDataHelp);
  cmd->add_option(FlagNames("python"), opt->run.scoring.python,
                  "python3 for the code subtasks (see 'score')");
  cmd->add_flag(FlagNames("quiet"), opt->run.quiet, "no progress output");
  cmd->add_option(FlagNames("budget.price_in"), opt->run.budget.price_in,
                  "USD per million input tokens, for the cost (default: the model's list price "
                  "in --prices or the built-in table)");
  cmd->add_option(FlagNames("budget.price_out"), opt->run.budget.price_out,
                  "USD per million output tokens (reasoning included), with --price-in");
  cmd->add_option(FlagNames("budget.prices"), opt->run.budget.prices,
                  "price table CSV with the columns model, input_usd_per_mtok, "
                  "output_usd_per_mtok, date and an optional note "
                  "(looked in before the built-in one, data/prices/prices.csv)");
  cmd->add_option(FlagNames("budget.max_cost"), opt->run.budget.max_cost,
                  "USD: start no request whose estimate (the mean usage so far) would take the run "
                  "directory's spending past it; "
                  "exit 1, and the same command with a higher budget continues");
  cmd->add_option(FlagNames("budget.max_tokens_total"), opt->run.budget.max_tokens_total,
                  "the same budget in tokens, input plus output");
  cmd->add_flag(FlagNames("batch.api"), opt->run.batch.api,
                "ask through the provider's batch API at its batch price (half the online "
                "one; openai, anthropic, gemini): submit the unanswered samples in batches, "
                "poll them and store the answers; the same command again polls the batches "
                "already submitted and never submits them twice (README, Batch inference)");
  cmd->add_option(FlagNames("batch.poll_seconds"), opt->run.batch.poll_seconds,
                  "with --batch, seconds before the first poll (default 30); the wait doubles "
                  "while nothing changes, up to 32 times it or 10 minutes");
  cmd->add_option(FlagNames("batch.size"), opt->run.batch.size,
                  "with --batch, at most N requests a batch (default: the provider's limit, "
                  "50,000 for openai, 100,000 for anthropic; the bytes limit holds too)")
      ->type_name("N");
  cmd->add_flag(FlagNames("batch.retry_online"), opt->run.batch.retry_online,
                "with --batch, ask the requests that failed or expired in a batch online (at "
                "the online price) instead of in another batch");
  cmd->add_option(FlagNames("batch.offline"), opt->run.batch.offline,
                  "FILE: ask nothing; write every unanswered request of the run (an openai/ "
                  "model) to FILE as an OpenAI batch input file, for an offline engine "
                  "(vllm run-batch -i FILE -o RESULTS --model NAME); then 'structtest import "
                  "DIR RESULTS'")
      ->type_name("FILE");
  cmd->add_flag(FlagNames("dry_run"), opt->run.dry_run,
                "print what the run would send (requests and estimated prompt tokens per "
                "subtask, the cost range) and send nothing");
  cmd->callback([opt, exit_code, cmd]() {
    for (const char* field : {"seed", "size", "suite", "rules_per_sample", "difficulty",
                              "documents", "mbpp", "apps", "gsm8k"}) {
      const std::string flag(FlagOf(field));
      if (cmd->count(flag) > 0) opt->suite_flags_given.push_back(flag);
    }
    opt->max_j_given = cmd->count(std::string(FlagOf("transport.max_concurrency"))) > 0;
    *exit_code = RunRun(*opt);
  });
}

}  // namespace structtest::cli
