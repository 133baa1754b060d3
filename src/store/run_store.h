// RunStore: everything one `structtest run` produces, in DIR/run.db (SQLite, WAL):
// the manifest (what was run, against what, with which settings), the samples, one
// response per sample and repeat (the answer with its reasoning, token usage, latency
// and attempts, or the error that ended its request) and the verdicts per rule set. A
// run asks each sample K times (run --repeats K, the manifest's "repeats"; 1 when it
// has none): a response and its verdicts belong to a Slot, a sample's repeat; a run
// stored before repeats holds repeat 0 of each sample. A response is written in the
// same transaction as its verdict, and a commit is atomic, so a run killed at any
// moment reopens with every committed answer and nothing half written; the slots still
// to ask are exactly those without an answer (PendingSamples). The schema is versioned
// (numbered migrations in run_store.cc).
//
// One process at a time: Open() takes an exclusive lock on the directory, held until
// the store is destroyed (or the process dies). Readers (OpenReadOnly) need no lock.
// Thread-safety: a RunStore is used from one thread.
#ifndef STRUCTTEST_STORE_RUN_STORE_H_
#define STRUCTTEST_STORE_RUN_STORE_H_

#include <compare>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_manifest.h"
#include "store/sqlite.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// One request of a run: sample `index` (its position in the suite, from 0) asked for
// the `repeat`-th time (from 0, below the run's repeats). Slots order by index, then
// repeat.
struct Slot {
  int64_t index = 0;
  int64_t repeat = 0;
  auto operator<=>(const Slot&) const = default;
};
// Before every slot: where a scan of slots starts.
inline constexpr Slot kBeforeFirstSlot{-1, 0};

// A model's answer to one sample, or the error that ended its request.
struct StoredResponse {
  bool ok = false;
  std::string text;       // the final answer (scored)
  std::string reasoning;  // separated reasoning (never scored)
  std::string finish;     // "stop", "length", "other", "unknown"
  std::string finish_raw;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t latency_ms = 0;
  int64_t http_status = 0;
  int64_t attempts = 0;
  std::string error;  // for a person; empty when ok. Never holds a key.
  bool cached = false;  // taken from the response cache, not asked
  // The model the reply says served it (ModelResult::served_model); "" when unknown.
  std::string served_model;
  // Answered through a provider's batch API (run --batch), billed at its batch price.
  bool batch = false;
};

// A batch of requests sent to a provider's batch API by `run --batch` (or written to an
// offline batch file by `run --offline`), as the run keeps it. Its row is written
// before the batch is submitted (state "submitting"), and takes the provider's id the
// moment the provider accepts it ("submitted"), so that a run killed at any moment
// finds every batch it may have submitted. "collected": its results are stored;
// "failed": it ended without results (its samples are asked again); "written": an
// offline file holds it.
struct ProviderBatch {
  int64_t seq = 0;           // the run's number for it, from 1
  std::string key;           // unique in the run; sent as the batch's name where it has one
  std::string provider;      // "openai", "anthropic", "gemini"; "offline"
  std::string batch_id;      // the provider's id; "" until accepted
  std::string state;         // see above
  std::string provider_state;  // the provider's last word: "in_progress", ...
  int64_t requests = 0;
  int64_t done = 0;    // answered, as the provider last counted
  int64_t failed = 0;  // failed, expired or cancelled, as the provider last counted
  int64_t created_ms = 0;  // when the row was written (ms since the epoch)
  std::string detail;  // why it failed, for a person
};

// One request of a ProviderBatch: the sample (and repeat) it asks and its custom id.
struct ProviderBatchItem {
  int64_t index = 0;
  std::string custom_id;
  int64_t repeat = 0;
};

// A verdict as stored: Verdict's fields, or the error that kept the sample from being
// scored (a checker error, such as a missing Punkt model).
struct StoredVerdict {
  bool pass = false;
  std::string reason;
  std::string rules_version;
  std::optional<bool> format;
  std::optional<bool> accuracy;
  // Every rule of the subtask, as Verdict::checks; empty in a verdict stored before
  // verdicts had them (schema 2), which a run scores again.
  std::vector<RuleCheck> checks;
  std::string error;  // non-empty: not scored
};

struct StoredSample {
  int64_t index = 0;  // position in the suite, from 0
  Sample sample;
  int64_t repeat = 0;  // which of the run's repeats is asked
  Slot slot() const { return Slot{index, repeat}; }
};

// One row of the whole run (a sample's repeat), for reports and export.
struct RunRow {
  int64_t index = 0;
  int64_t repeat = 0;
  Sample sample;
  std::optional<StoredResponse> response;
  std::optional<StoredVerdict> verdict;  // for the rule set asked
};

// What RunStore::MergeFrom() took from another run.
struct MergeCounts {
  int64_t samples = 0;  // samples this store did not have
  int64_t answers = 0;  // answers to samples this store had no answer to
  int64_t errors = 0;   // request errors of samples this store had no response to
};

struct RunCounts {
  int64_t samples = 0;
  int64_t slots = 0;     // samples times the run's repeats: the requests a run makes
  int64_t answered = 0;  // ok responses
  int64_t errored = 0;   // error responses
  int64_t truncated = 0;  // answers cut off by the token limit (finish "length")
  // What the stored responses not taken from the response cache used, as their
  // servers reported it: what the run has spent (an error replaced by the answer of a
  // retry takes its usage with it). `paid_with_usage` counts those that are answers
  // with a usage (some tokens in or out).
  int64_t paid_with_usage = 0;
  int64_t spent_input_tokens = 0;
  int64_t spent_output_tokens = 0;
  // The part of the spent tokens that came through a batch API (StoredResponse::batch).
  int64_t spent_batch_input_tokens = 0;
  int64_t spent_batch_output_tokens = 0;
};

class RunStore {
 public:
  static constexpr std::string_view kFileName = "run.db";

  // Opens DIR/run.db for writing, creating DIR and the database when missing, and
  // locks DIR for this process. Errors: DIR not creatable, locked by another run, a
  // database that is not a run store or is newer than this build.
  static StatusOr<std::unique_ptr<RunStore>> Open(const std::string& dir);
  // Opens an existing run for reading (export, report). Errors: no run there, a schema
  // newer than this build. A run of an older schema is read as it is (without
  // sample_heads, the rows come from the whole samples).
  static StatusOr<std::unique_ptr<RunStore>> OpenReadOnly(const std::string& dir);
  // A store that lives in memory only (runs of the built-in responders without --out).
  static StatusOr<std::unique_ptr<RunStore>> OpenInMemory();
  ~RunStore();

  const std::string& dir() const { return dir_; }

  // The manifest, or nullopt for a new store.
  StatusOr<std::optional<RunManifest>> Manifest();
  // Errors: repeats that are not from 1 to kMaxRepeats.
  Status SetManifest(const RunManifest& manifest);
  // How many times the run asks each sample: the manifest's "repeats", 1 without one
  // (and in a store without a manifest yet).
  int64_t repeats() const { return repeats_; }
  static constexpr int64_t kMaxRepeats = 1000;

  // Writes go inside Begin()/Commit(); a store destroyed with an open batch rolls it
  // back, which is what a crash does too.
  Status Begin();
  Status Commit();
  // A batch that fills a new run with its samples: written once, under a rollback
  // journal, instead of to the write-ahead log and then again into the database. Its
  // Commit() does not wait for the disk: the database file is synced on a thread of
  // its own while the run goes on (a power loss in that second, not a process crash,
  // can leave the new run's database unreadable, with the answers of that second),
  // and a later Commit() reports that sync's failure.
  Status BeginBulk();

  // REQUIRES: in a batch. Indexes are unique; samples are added once, before any
  // response. `repeat` (here and below): which of the sample's repeats, from 0. Errors: a sample id already in the run ("sample id 'x' appears twice").
  // `json`, when given, is the sample's JSON text as read (a line of a samples file),
  // stored as it is; otherwise the sample is written out.
  Status AddSample(int64_t index, const Sample& sample, std::string_view json = {});
  // Replaces the sample's response (an error is replaced by the answer of a retry) and
  // drops its verdicts, which belonged to the old response.
  Status PutResponse(int64_t index, const StoredResponse& response, int64_t repeat = 0);
  Status PutVerdict(int64_t index, std::string_view rules, const StoredVerdict& verdict,
                    int64_t repeat = 0);
  // Drops the verdicts under `rules` of the samples of `domain` that another checker
  // version gave (or that are errors), so they are scored again. Returns how many.
  StatusOr<int64_t> DropVerdictsNotOf(std::string_view rules, std::string_view domain,
                                      std::string_view rules_version);
  // Drops the verdicts under `rules` that are errors (the sample could not be scored),
  // of every domain. Returns how many.
  StatusOr<int64_t> DropFailedVerdicts(std::string_view rules);

  // Copies the run in `dir` into this store, in one transaction: the samples it lacks
  // (by index), the answers (with their verdicts under every rule set) of samples it
  // has no answer to, and the request errors of samples it has no response to. An
  // answer already here is kept, with the verdicts of the other run added where this
  // store has none and the answers are the same. Merging a run twice adds nothing.
  // Errors, before anything is written: a sample that is another one in the other run
  // (index, id or content), a sample answered in both with different answers.
  // REQUIRES: not in a batch; `dir` holds a run of the same manifest, of a schema this
  // build reads (OpenReadOnly checks it), and is not this store.
  StatusOr<MergeCounts> MergeFrom(const std::string& dir);

  // Grows this run to the samples of `plan` (a store holding only samples, e.g. the same
  // suite under a larger --limit), in one transaction: every sample stored here keeps
  // its answer and verdicts and takes its index in `plan`; the others are added,
  // unanswered. Returns how many were added. Errors, before anything is written: a
  // sample stored here that `plan` lacks or holds with other content.
  // REQUIRES: not in a batch; `plan` is another store.
  StatusOr<int64_t> GrowTo(RunStore& plan);

  // Up to `limit` slots after `after` (of the run's repeats) that have no ok response,
  // in slot order; with `outside_open_batches`, only those that no batch being
  // submitted or submitted (ProviderBatch states "submitting", "submitted") asks.
  StatusOr<std::vector<StoredSample>> PendingSamples(Slot after, int limit,
                                                     bool outside_open_batches = false);
  // The row of sample `index`'s `repeat` (its verdict under `rules`), or nullopt when
  // the run has no such sample.
  StatusOr<std::optional<RunRow>> Row(int64_t index, std::string_view rules, int64_t repeat = 0);

  // Provider batches (ProviderBatch). REQUIRES for the writes: in a batch (Begin()).
  // Adds `batch` with `items` and sets its seq, requests and created_ms. Errors: its
  // key is in the run already.
  Status AddProviderBatch(ProviderBatch* batch, const std::vector<ProviderBatchItem>& items);
  // Writes batch_id, state, provider_state, done, failed and detail of batch `seq`.
  Status UpdateProviderBatch(const ProviderBatch& batch);
  // The run's provider batches in the order they were added; those in `state` only
  // when given.
  StatusOr<std::vector<ProviderBatch>> ProviderBatches(std::string_view state = "");
  StatusOr<std::vector<ProviderBatchItem>> ProviderBatchItems(int64_t seq);
  // The slots of batch `seq` that have an answer (an ok response).
  StatusOr<std::vector<Slot>> AnsweredOfProviderBatch(int64_t seq);
  // The custom ids the run's batches of `provider` gave sample `index`'s `repeat`.
  StatusOr<std::vector<std::string>> CustomIdsOf(std::string_view provider, int64_t index,
                                                 int64_t repeat = 0);
  // Up to `limit` answered slots after `after` with no verdict under `rules`, in slot
  // order (rows carry the response).
  StatusOr<std::vector<RunRow>> Unscored(std::string_view rules, Slot after, int limit);
  StatusOr<RunCounts> Counts();
  // The `limit` most frequent errors of the samples whose request failed, with their
  // counts, most frequent first. Messages that differ only in their numbers count as
  // one, shown as the first of them.
  StatusOr<std::vector<std::pair<std::string, int64_t>>> TopErrors(int limit);
  // The same for the answers that could not be scored under `rules` (the verdicts'
  // errors).
  StatusOr<std::vector<std::pair<std::string, int64_t>>> TopScoringErrors(std::string_view rules,
                                                                          int limit);
  // The models the answers' replies say served them (StoredResponse::served_model), each
  // with its count of answers, most frequent first; answers whose reply named none are
  // left out (all of them in a run stored before the names were kept).
  StatusOr<std::vector<std::pair<std::string, int64_t>>> ServedModels();
  // The rule sets ("paper", "strict") this run holds verdicts under, sorted.
  StatusOr<std::vector<std::string>> ScoredRuleSets();
  // What ForEach reads of each row.
  enum class RowRead {
    kWhole,
    kNoPrompt,  // leaves out the sample's messages and target
    kTally,     // also the answer and the reasoning: what tallies need
  };
  // Calls `fn` for every slot of the run (each sample's repeats 0 to repeats() - 1) in
  // slot order, with its response and its verdict under `rules`; a slot not asked yet
  // has neither. Rows stream from the database: memory does not grow with the run.
  Status ForEach(std::string_view rules, const std::function<Status(const RunRow&)>& fn,
                 RowRead read = RowRead::kWhole);
  // Calls `fn` for every sample, whole, in index order. The samples are read a few
  // hundred at a time, each batch in a read transaction of its own, so that a reader
  // beside a running run never holds the log from being checkpointed for long.
  Status ForEachSample(const std::function<Status(const Sample&)>& fn);

 private:
  RunStore(std::string dir, std::unique_ptr<sqlite::Db> db, int lock_fd);
  Status Prepare();
  // Whether every sample has its head (sample_heads), which ForEach then reads.
  StatusOr<bool> HeadsComplete();
  // `rep`: the SQL of the rows' repeat ("p.rep", "0", ...).
  std::string RowColumns(std::string_view rep) const;
  // Reads the row at `q`'s cursor: the columns of RowColumns().
  StatusOr<RunRow> ReadRow(const sqlite::Stmt& q, RowRead read);

  std::string dir_;
  std::unique_ptr<sqlite::Db> db_;
  int lock_fd_ = -1;
  bool in_batch_ = false;
  // Prepared once; see run_store.cc.
  std::optional<sqlite::Stmt> add_sample_, add_head_, put_response_, drop_verdicts_, put_verdict_;
  std::string sample_json_;  // AddSample's buffer
  bool bulk_ = false;        // in a BeginBulk() batch
  // Whether the schema has sample_heads, and verdicts.checks (a reader of an older
  // run: false).
  bool heads_ = true;
  bool checks_ = true;
  // Whether the schema has responses.served_model (a reader of an older run: false).
  bool served_model_ = true;
  // Whether the schema has provider_batches and responses.batch (a reader of an older
  // run: false).
  bool batches_ = true;
  // Whether the schema has the repeat columns (a reader of an older run: false).
  bool repeat_columns_ = true;
  int64_t repeats_ = 1;  // repeats()
  // Reads repeats_ from the stored manifest.
  Status ReadRepeats();
  // The repeats a scan of slots enumerates: "(SELECT 0 AS rep UNION ALL ...)".
  std::string RepeatsTable() const;
  // The bulk batch's sync (see BeginBulk): 0 or its errno.
  std::future<int> bulk_synced_;
};

}  // namespace structtest

#endif  // STRUCTTEST_STORE_RUN_STORE_H_
