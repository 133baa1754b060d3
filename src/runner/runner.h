// Runner: answers the samples of a run store that have no answer yet, scores each
// answer as it arrives and stores both. It drives a ModelClient in one loop (start
// while the client has room, wait for any result, store it), commits in batches, and
// can stop at any moment: whatever was committed stays, and the next Run() of the same
// store asks only what is still unanswered (errors included), so an interrupted or
// killed run resumes without sending a completed request again. A response cache, when
// given, answers requests seen before without asking. A Budget stops it starting
// requests that would take the run past a token or cost limit. The built-in responders
// (builtin/oracle, null, echo) take the same path, answered in process.
#ifndef STRUCTTEST_RUNNER_RUNNER_H_
#define STRUCTTEST_RUNNER_RUNNER_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/model_client.h"
#include "report/cost.h"
#include "report/tally.h"
#include "runner/progress.h"
#include "store/response_cache.h"
#include "store/run_store.h"
#include "structtest/run.h"
#include "structtest/sample.h"
#include "tasks/task.h"

namespace structtest {

// What every request of a run carries besides its sample's messages (`every`: the
// model's name at the provider, max_tokens, temperature, controls), and the parts of
// the response cache key that are not in a request. Made once, from the run's
// RequestSettings, when the run is resolved (run_options.h); the online runner, the
// batch runner, the offline file and the dry run all make their requests from it with
// RequestFor, so the requests and cache keys of one run never differ between them.
struct RequestTemplate {
  ModelRequest every;  // no messages, id 0
  // "openai http://host/v1": the cache key's endpoint part. No secrets.
  std::string endpoint;
  // The names of the extra headers the client sends (never their values): part of the
  // cache key.
  std::vector<std::string> header_names;
};

// The request of sample `s`: `t.every` with the sample's messages, numbered `id`.
ModelRequest RequestFor(const RequestTemplate& t, const StoredSample& s, uint64_t id);

// Whether `b` limits the spending (max_tokens_total or max_cost). Run() starts no
// request that would take the run past it: what the store already spent (RunCounts: a
// resumed run continues the same budget), plus the requests in flight and the next one,
// each estimated at the mean usage of the answers so far (before the first, the next
// prompt at 4 characters a token, with no output). Requests in flight when it stops
// finish and are stored. Answers from the response cache cost nothing; answers whose
// server reports no usage cannot be counted (RunnerStats::no_usage). A cost limit
// counts at RunnerOptions::price (none: every token free).
inline bool LimitsSpending(const Budget& b) {
  return b.max_tokens_total.has_value() || b.max_cost.has_value();
}

struct RunnerOptions {
  // The rule set and the threads scoring the code subtasks (tasks/score_stage.h), so
  // that the store thread does not wait on one sandboxed check at a time; give the
  // python pool as many workers. score_jobs as ResolveScoreJobs gives it; below 1: 1,
  // every answer scored on the store thread. The rest is not read.
  ScoringSettings scoring = {RuleSet::kPaper, "", "", 1};
  RequestTemplate request;
  // Under -j auto, the current limit, for the progress line; empty otherwise.
  std::function<int64_t()> concurrency_limit;
  // A batch is committed after this many results or this long, whichever comes first:
  // at most this much work is asked again after a crash.
  int batch_results = 256;
  std::chrono::milliseconds batch_interval{250};
  // When > 0, at most this many requests are started and not yet committed (in
  // flight, received, or in the open batch), and a batch is committed once it holds
  // half as many results: a kill -9 costs at most this many answered requests. The
  // run command sets it to twice the concurrency. 0: only batch_results bounds it.
  int max_uncommitted = 0;
  // Set (from a signal handler, say) to stop starting requests; Run() then commits
  // what has come back and returns with `interrupted`. Requests still in flight are
  // dropped and asked again by the next run.
  const std::atomic<bool>* stop = nullptr;
  // The spending limits (LimitsSpending; only max_cost and max_tokens_total are read)
  // and the price that costs them. Default: no limit. Applies to Run(); the built-in
  // responders cost nothing.
  Budget budget;
  std::optional<Price> price;
};

struct RunnerStats {
  int64_t sent = 0;     // requests that went to the model and came back
  int64_t cached = 0;   // answered from the cache
  int64_t answered = 0;
  int64_t errored = 0;
  int64_t output_tokens = 0;
  double seconds = 0;   // of the whole Run()
  bool interrupted = false;
  // Set when Run() stopped starting requests because the next one would exceed the
  // budget; the requests in flight were stored. Not counted as interrupted.
  bool budget_reached = false;
  // What the run directory has spent, this Run() included (RunCounts::spent_*).
  int64_t spent_input_tokens = 0;
  int64_t spent_output_tokens = 0;
  // Answers of this Run(), not from the cache, whose server reported no token usage.
  int64_t no_usage = 0;
  // Set when Run() stopped by itself because its first kGiveUpAfter requests all
  // failed (a wrong model name, endpoint or key fails every request): the error of
  // the last of them. The run counts as interrupted.
  std::string gave_up;
};

// Requests that must all fail, before any answer came, for a run to give up.
inline constexpr int kGiveUpAfter = 16;

class Runner {
 public:
  // `cache` may be null. `env` must outlive the runner.
  Runner(RunStore* store, ResponseCache* cache, const CheckEnv& env, RunnerOptions options);

  // Answers every pending sample with `client`.
  StatusOr<RunnerStats> Run(ModelClient* client, Progress* progress);
  // Answers every pending sample with the built-in responder `name`.
  StatusOr<RunnerStats> RunBuiltin(std::string_view name, Progress* progress);

  // Scores the answered samples that have no verdict under options.scoring.rules (a run
  // resumed with another rule set, or a newer checker version), and again those whose
  // scoring failed (no Punkt model or python3 then, maybe now).
  Status ScoreUnscored();
  // ScoreUnscored(), then tallies the whole run: answers by their verdicts, request
  // errors as "not scored".
  StatusOr<Tally> ScoreAndTally();

  // The cache key of a request to `endpoint`, sent with headers named `header_names`,
  // for a sample's `repeat`: nlohmann's dump of {"controls": ControlsJson (when not
  // empty), "endpoint", "max_tokens", "messages", "model", "repeat" (when above 0),
  // "temperature" (when set)}. Each repeat of a sample has its own answer: repeat 1 is
  // never answered with repeat 0's, and repeat 0 has the key the one request of a run
  // without repeats has.
  static std::string CacheKey(std::string_view endpoint, const ModelRequest& request,
                              const std::vector<std::string>& header_names = {},
                              int64_t repeat = 0);

 private:
  class Loop;
  // Drops the verdicts of other checker versions (a run resumed by a newer build, which
  // is another process), once: the verdicts this runner writes are of the current
  // ones, and no one else writes to the store while it runs (RunStore's lock). Run()
  // and RunBuiltin() do it first, when the run has the fewest verdicts.
  Status DropOtherVersions();
  int score_jobs() const { return std::max(1, options_.scoring.score_jobs); }

  RunStore* store_;
  ResponseCache* cache_;
  bool other_versions_dropped_ = false;
  const CheckEnv& env_;
  RunnerOptions options_;
};

// A failed request or an answer as the store keeps it.
StoredResponse ToStoredResponse(const ModelResult& result);

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_RUNNER_H_
