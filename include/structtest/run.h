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
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "structtest/generate.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

class SentenceSplitter;

// The options of a run, in groups by concern; a run's layers each take the group they
// need by const reference (the request loop the request settings, the client stack the
// transport, the budget checks the budget, the batch runner the batch settings, scoring
// the scoring settings), so a setting is read where it is used and never copied into a
// look-alike struct. RunSuite checks them whole before anything is created, and its
// errors name the field (`request.top_p 2: ...`, `suite.tasks: ...`); the CLI maps
// those names to its flags (src/cli/flag_table.cc) and names the flag instead. The
// comments below name each field's `structtest run` flag.

// What every request carries besides the sample's messages. Unset controls are not
// sent; a provider that cannot take one is refused before anything is asked.
struct RequestSettings {
  int max_tokens = 0;  // --max-tokens; 0: the provider's default (4096 for anthropic)
  // --temperature; nullopt: structtest's default for the model (0, the most
  // reproducible, where the model takes a temperature), or none sent with
  // `no_temperature` (--temperature none: the provider's default applies).
  std::optional<double> temperature;
  bool no_temperature = false;
  // --system: a system message before every prompt, as TEXT or @FILE (its contents).
  std::optional<std::string> system;
  std::optional<double> top_p;              // --top-p, more than 0, at most 1
  std::vector<std::string> stop;            // --stop sequences
  std::optional<int64_t> sampling_seed;     // --sampling-seed, 0 to 2^31-1
  std::string reasoning_effort;             // --reasoning-effort: none, minimal, ... xhigh
  std::optional<int64_t> thinking_budget;   // --thinking-budget, in tokens
  // --extra-body: a JSON object merged into every request body, as JSON or @FILE.
  std::optional<std::string> extra_body;
  // --header: "Name: value" lines sent with every request (the run stores the names,
  // never the values).
  std::vector<std::string> headers;
};

// How requests reach the model: the endpoints, how many in flight, retries, limits,
// TLS and the response cache.
struct Transport {
  // --base-url: the API roots serving the model (one per replica); empty: the provider's.
  std::vector<std::string> base_urls;
  // --endpoints: a file of more of them, one a line ('#' comments and blank lines
  // skipped), asked after `base_urls`.
  std::string endpoints_file;
  int concurrency = 8;   // -j: requests in flight per endpoint, 1 to 4096
  // -j auto: find the limit per endpoint (start at 4, grow while latency holds, halve
  // on 429s and timeouts), up to max_concurrency (--max-j, 1 to 4096).
  bool auto_concurrency = false;
  int max_concurrency = 256;
  int retries = 5;       // --retries of a request failing with 429, 5xx or a network error
  double timeout_seconds = 600;  // --timeout: seconds a request may take in all
  double max_rps = 0;    // --max-rps: requests started per second, retries included; 0: no limit
  std::string ca_cert;   // --ca-cert: PEM file of the CAs to trust; "": the system's
  bool http11 = false;   // --http1.1: never ask for HTTP/2
  // The response cache (--no-cache: false): requests seen before are not asked.
  bool use_cache = true;
  std::string cache;      // --cache: its file; "": $STRUCTTEST_CACHE, else ~/.cache/structtest
};

// What the run is costed at, and what it may spend.
struct Budget {
  // --price-in and --price-out (USD per million tokens, both or neither) and --prices
  // (a price table CSV looked in before the built-in one).
  std::optional<double> price_in, price_out;
  std::string prices;
  // --max-cost (USD) and --max-tokens-total: start no request that would take the run
  // directory's spending past them; the run then ends with `failures`.
  std::optional<double> max_cost;
  std::optional<int64_t> max_tokens_total;
};

// Asking through a provider's batch API, or writing the requests for an offline engine.
struct BatchSettings {
  // api (--batch): ask through the provider's batch API (openai, anthropic, gemini);
  // again, the call polls the batches already submitted. poll_seconds (--batch-poll)
  // before the first poll (default 30); size (--batch-size) at most N requests a batch
  // (0: the provider's limit); retry_online (--batch-retry-online) asks what failed in
  // a batch online. Each of these three is refused without api.
  bool api = false;
  std::optional<double> poll_seconds;
  int64_t size = 0;
  bool retry_online = false;
  // --offline FILE: ask nothing; write the unanswered requests of the run (an openai/
  // model) to FILE as an OpenAI batch input file, for ImportResults to read the answers.
  std::string offline;
};

// How answers are scored.
struct ScoringSettings {
  RuleSet rules = RuleSet::kPaper;  // --rules
  // --nltk-data: the Punkt model's folder; "": $NLTK_DATA's, else the built-in one.
  std::string nltk_data;
  // --python: python3 for the code subtasks; "": found as `score` finds it.
  std::string python;
  // --score-jobs: threads and python3 workers scoring code, 1 to 1024; 0: one per core.
  int score_jobs = 0;
};

struct RunSuiteOptions {
  // --model: PROVIDER/NAME (openai/..., anthropic/..., gemini/...; the key from
  // OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) or builtin/NAME (oracle, null,
  // echo, skeleton, loophole: answered in process); "": every built-in responder, in
  // memory, with a closing table comparing them (nothing is stored: no `out`).
  std::string model;
  GenerateOptions suite;  // its shard splits the run as `run --shard` does
  // --samples: a samples file (JSONL of `structtest generate`) asked instead of
  // generating; the suite's tasks and limit still filter it.
  std::string samples;
  // --out: the run directory; "": runs/ plus a name made from the model and the suite.
  std::string out;
  int64_t repeats = 1;   // --repeats: each sample asked this many times, 1 to kMaxRepeats
  RequestSettings request;
  Transport transport;
  Budget budget;
  BatchSettings batch;
  ScoringSettings scoring;
  // --dry-run: say what the run would send (requests, estimated tokens, the cost range)
  // and send nothing.
  bool dry_run = false;
  bool quiet = false;  // --quiet: fewer notes, no progress
};

// Where RunSuite's messages go, each in the order `structtest run` prints them. Each may
// be empty: that output is dropped.
struct RunSuiteOutput {
  // The results: the tables and the closing lines (the CLI's stdout).
  std::function<void(std::string_view)> out;
  // Called once a run's report is complete in `out`, before the notes about it (the CLI
  // flushes its stdout there, so that they follow the report).
  std::function<void()> flush;
  // A line a person running the command should know (the CLI: "structtest: LINE").
  std::function<void(std::string_view)> note;
  // A line about something that may be wrong (the CLI: "structtest: warning: LINE").
  std::function<void(std::string_view)> warning;
  // Text as it is, lines with their own prefix and newline (the CLI's stderr).
  std::function<void(std::string_view)> log;
  // Where the progress line goes (a terminal gets one line redrawn, anything else a
  // line now and then); null: none.
  std::FILE* progress = nullptr;
};

struct RunSuiteResult {
  std::string dir;           // the run directory ("": every built-in responder, in memory)
  bool interrupted = false;  // stopped by `stop`; the same call again continues
  // Finished with requests errored or answers not scored (the same call again asks
  // the errored ones).
  bool failures = false;
};

// The most times a run may ask each sample (--repeats).
inline constexpr int64_t kMaxRepeats = 1000;

// The built-in responders' names (oracle, null, ...), each a model "builtin/NAME".
std::vector<std::string> BuiltinResponders();

// Runs `options` to the end, or until `stop` (when given) is set: then no request is
// started, what came back is stored and the result says `interrupted`. Errors: options
// that are not valid (each names its field), a run directory holding another run, data
// that cannot be read, no API key, a model that fails every request.
StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options, const std::atomic<bool>* stop,
                                  const RunSuiteOutput& output);

// The same with every message (the report table, then "structtest: ..." notes) to
// `log`, when given, a piece at a time.
StatusOr<RunSuiteResult> RunSuite(const RunSuiteOptions& options,
                                  const std::atomic<bool>* stop = nullptr,
                                  const std::function<void(std::string_view)>& log = nullptr);

// Scoring a run's stored answers without asking the model: `structtest rescore` (under
// another rule set, or a newer checker's) and `structtest import` (answers of an
// offline engine).
struct RescoreOptions {
  // The rule set, python3 and threads (ScoringSettings'). The Punkt model: from
  // scoring.nltk_data, else $NLTK_DATA's, else the built-in one; `sentences`, when
  // given, instead (it must outlive the call).
  ScoringSettings scoring;
  const SentenceSplitter* sentences = nullptr;
};

struct RescoreResult {
  std::string table;   // the run's table under the rule set, as `rescore` prints it
  int64_t errors = 0;  // requests that failed and answers that could not be scored
};

// Scores the answers of the run in `dir` that have no verdict of the current checker
// under options.scoring.rules (and failed scorings again), stores the verdicts, and gives the
// whole run's table. Errors: no run in `dir`, bad options, the sentence model.
StatusOr<RescoreResult> RescoreRun(const std::string& dir, const RescoreOptions& options);

struct ImportResult {
  int64_t lines = 0;     // result lines in the file
  int64_t answered = 0;  // answers stored
  int64_t errored = 0;   // request errors stored (their samples stay unanswered)
  int64_t skipped = 0;   // results for samples answered already (kept as they were)
  // When errors were stored: the run's most frequent errors now, as (the engine's words,
  // count), most frequent first, at most 3.
  std::vector<std::pair<std::string, int64_t>> top_errors;
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
