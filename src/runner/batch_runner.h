// Batch inference for a run store: `run --batch` answers the pending samples through a
// provider's batch API (backends/batch_api.h), `run --offline FILE` writes them as an
// OpenAI batch input file for an offline engine (vLLM's run-batch) and `import` stores
// that engine's output.
//
// RunBatches submits the pending samples in batches within the provider's limits.
// Each batch is written to the store before it is submitted and given the provider's
// id the moment the provider accepts it, so that a process killed at any moment leaves
// the store knowing every batch it may have submitted: the next RunBatches polls those
// and never submits their samples again. A batch whose submission had no clear answer
// (a network error, a 5xx after the provider took it) is looked up by its name before
// anything is submitted again. Ended batches' results are mapped back by custom id
// (Gemini's key), never by position, and stored as run stores answers (scored afterwards
// by Runner::ScoreUnscored, as every answer is); requests that failed or expired, or
// whose result named no request, are stored as errors, which makes them pending again,
// and are submitted again in a later batch, unless the provider refused them. Each
// collected batch's note says what became of its failures: asked again, refused (in the
// provider's words), or not asked again by this call (and why).
#ifndef STRUCTTEST_RUNNER_BATCH_RUNNER_H_
#define STRUCTTEST_RUNNER_BATCH_RUNNER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/batch_api.h"
#include "report/cost.h"
#include "runner/runner.h"
#include "store/response_cache.h"
#include "store/run_store.h"

namespace structtest {

struct BatchRunOptions {
  // What every request carries besides the sample's messages, and the response cache
  // key's parts (Runner::CacheKey): the run's, as RunnerOptions has it.
  RequestTemplate request;
  // At most this many requests a batch, below the provider's own limit (0: its limit).
  int64_t batch_size = 0;
  // The first wait between polls; it doubles while nothing changes, up to poll_max.
  std::chrono::milliseconds poll_initial{10'000};
  std::chrono::milliseconds poll_max{600'000};
  // How many times one RunBatches submits a sample whose request keeps failing or
  // expiring (a request the provider refuses as invalid is not submitted again).
  int max_submissions = 3;
  // Submit no batch after the first round: what failed is left for the online client.
  bool no_resubmit = false;
  // Polls in a row that may fail (network, 5xx) before RunBatches gives up; the
  // batches stay in the store, polled by the next run.
  int max_poll_failures = 8;
  // Stops RunBatches between calls (SIGINT): submitted batches stay at the provider.
  const std::atomic<bool>* stop = nullptr;
  // The spending limits (LimitsSpending) and the online price; a batch is costed at
  // kBatchPriceShare of it. A batch is submitted only when the store's spending, the
  // batches in flight and it stay within the budget, each request estimated at the mean
  // usage of the answers so far or, before the first, at its prompt (4 characters a
  // token) plus max_tokens.
  Budget budget;
  std::optional<Price> price;
  // Progress, one line a call ("batch 2 (batch_abc): in_progress, 40 of 100 answered").
  std::function<void(std::string_view)> note;
};

struct BatchRunStats {
  int64_t submitted = 0;   // batches submitted by this call
  int64_t found = 0;       // batches of an earlier run found at the provider by their name
  int64_t collected = 0;   // batches whose results this call stored
  int64_t answered = 0;    // answers stored
  int64_t errored = 0;     // request errors stored
  int64_t cached = 0;      // answered from the response cache, not submitted
  int64_t foreign = 0;     // results whose custom id is not in their batch (ignored)
  int64_t open = 0;        // batches still at the provider when it returned
  bool interrupted = false;
  bool budget_reached = false;
};

// The request template, stop flag, budget and price of `ro`, the batch settings' size,
// first poll and online retry of `batch`; the rest default.
BatchRunOptions BatchOptionsFrom(const RunnerOptions& ro, const BatchSettings& batch);

// Answers the pending samples of `store` through `api`. `cache` may be null.
StatusOr<BatchRunStats> RunBatches(RunStore* store, ResponseCache* cache, BatchApi* api,
                                   const BatchRunOptions& options);

// What `run --dry-run --batch` prints: the batches the pending samples make.
struct BatchPlan {
  int64_t requests = 0;
  int64_t batches = 0;
  int64_t bytes = 0;  // of their entries
  int64_t prompt_chars = 0;  // of their messages (and the system message)
};
StatusOr<BatchPlan> PlanBatches(RunStore* store, Provider provider, const BatchRunOptions& options);
// The dry run's lines for `plan`: the batches, and the cost range of its requests
// (RenderDryRun's) at the batch price and at the online one.
std::string RenderBatchPlan(const BatchPlan& plan, Provider provider, const std::optional<Price>& price,
                            int max_tokens, int64_t batch_size = 0);

// `run --offline FILE`: writes every pending sample's request as a line of an OpenAI
// batch input file (custom_id, method, url, body), atomically, and records them in the
// store (a ProviderBatch of provider "offline", state "written"), so that `import`
// knows their custom ids. Returns how many it wrote (0: none pending, no file).
StatusOr<int64_t> WriteOfflineBatch(RunStore* store, const BatchRunOptions& options,
                                    const std::string& path);

struct ImportStats {
  int64_t lines = 0;
  int64_t answered = 0;   // answers stored
  int64_t errored = 0;    // request errors stored (the sample stays pending)
  int64_t skipped = 0;    // results for samples answered already (kept as they were)
  // When errors were stored: the run's most frequent errors (RunStore::TopErrors(3)).
  std::vector<std::pair<std::string, int64_t>> top_errors;
};
// `import`: stores the results in `path` (an OpenAI batch output file: vLLM's
// run-batch output) in one transaction. Every line is checked first: nothing is stored
// when one is not a result line, names a custom id that no offline batch of the run
// wrote (one for a sample of the run with other settings: "request does not match"),
// or repeats a custom id; the error names the file, the line and the problem.
StatusOr<ImportStats> ImportBatchResults(RunStore* store, const std::string& path);

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_BATCH_RUNNER_H_
