#include "store/run_store.h"

#include "core/status_macros.h"
#include "core/record_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <sqlite3.h>

namespace structtest {
namespace {

// Numbered migrations: entry i takes the schema from version i to i+1. Append only;
// never edit a migration that has shipped.
constexpr const char* kMigrations[] = {
    // 1: the first schema.
    R"sql(
CREATE TABLE manifest (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  json TEXT NOT NULL
);
CREATE TABLE samples (
  idx INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  domain TEXT NOT NULL,
  subtask TEXT NOT NULL,
  json TEXT NOT NULL
);
CREATE TABLE responses (
  idx INTEGER PRIMARY KEY REFERENCES samples(idx),
  ok INTEGER NOT NULL,
  text TEXT NOT NULL,
  reasoning TEXT NOT NULL,
  finish TEXT NOT NULL,
  finish_raw TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  http_status INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  error TEXT NOT NULL,
  cached INTEGER NOT NULL,
  created_ms INTEGER NOT NULL
);
CREATE INDEX responses_ok ON responses(ok, idx);
CREATE TABLE verdicts (
  idx INTEGER NOT NULL REFERENCES responses(idx),
  rules TEXT NOT NULL,
  pass INTEGER NOT NULL,
  reason TEXT NOT NULL,
  rules_version TEXT NOT NULL,
  format INTEGER,
  accuracy INTEGER,
  error TEXT NOT NULL,
  PRIMARY KEY (idx, rules)
);
)sql",
    // 2: each sample's head, its JSON without the messages and the target: the scans
    // that tally or list the rows read these instead of the whole samples, most of
    // whose bytes are the prompts.
    R"sql(
CREATE TABLE sample_heads (
  idx INTEGER PRIMARY KEY REFERENCES samples(idx),
  json TEXT NOT NULL
);
INSERT INTO sample_heads(idx, json)
  SELECT idx, json_remove(json, '$.messages', '$.target') FROM samples WHERE json_valid(json);
)sql",
    // 3: each verdict's rules (Verdict::checks) as the JSON array `score` writes; ''
    // in the verdicts of older runs, which have none.
    R"sql(
ALTER TABLE verdicts ADD COLUMN checks TEXT NOT NULL DEFAULT '';
)sql",
    // 4: the model each reply says served it ('' where it named none, and in the
    // answers of runs stored before).
    R"sql(
ALTER TABLE responses ADD COLUMN served_model TEXT NOT NULL DEFAULT '';
)sql",
    // 5: batch inference. Each batch of requests sent to a provider's batch API (or
    // written to an offline batch file), recorded before it is submitted and given
    // its provider's id the moment the provider accepts it, with the samples it asks
    // and their custom ids; and, per response, whether it came through a batch
    // (billed at the batch price).
    R"sql(
CREATE TABLE provider_batches (
  seq INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  provider TEXT NOT NULL,
  batch_id TEXT NOT NULL,
  state TEXT NOT NULL,
  provider_state TEXT NOT NULL,
  requests INTEGER NOT NULL,
  done INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  detail TEXT NOT NULL
);
CREATE TABLE provider_batch_items (
  seq INTEGER NOT NULL REFERENCES provider_batches(seq),
  idx INTEGER NOT NULL REFERENCES samples(idx),
  custom_id TEXT NOT NULL,
  PRIMARY KEY (seq, idx)
);
CREATE INDEX provider_batch_items_custom_id ON provider_batch_items(custom_id);
CREATE INDEX provider_batch_items_idx ON provider_batch_items(idx);
ALTER TABLE responses ADD COLUMN batch INTEGER NOT NULL DEFAULT 0;
)sql",
    // 6: repeated samples (run --repeats K). A response, its verdicts and a provider
    // batch's request belong to a sample's repeat (rep, from 0); the rows of older
    // runs are repeat 0 (of K = 1). SQLite cannot change a primary key, so the three
    // tables are made again and their rows copied; renaming the old ones first points
    // the old verdicts at the old responses, so that nothing refers to the tables
    // being dropped.
    R"sql(
ALTER TABLE verdicts RENAME TO verdicts_v5;
ALTER TABLE responses RENAME TO responses_v5;
ALTER TABLE provider_batch_items RENAME TO provider_batch_items_v5;
CREATE TABLE responses (
  idx INTEGER NOT NULL REFERENCES samples(idx),
  rep INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  text TEXT NOT NULL,
  reasoning TEXT NOT NULL,
  finish TEXT NOT NULL,
  finish_raw TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  http_status INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  error TEXT NOT NULL,
  cached INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  served_model TEXT NOT NULL DEFAULT '',
  batch INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (idx, rep)
);
CREATE TABLE verdicts (
  idx INTEGER NOT NULL,
  rep INTEGER NOT NULL,
  rules TEXT NOT NULL,
  pass INTEGER NOT NULL,
  reason TEXT NOT NULL,
  rules_version TEXT NOT NULL,
  format INTEGER,
  accuracy INTEGER,
  error TEXT NOT NULL,
  checks TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (idx, rep, rules),
  FOREIGN KEY (idx, rep) REFERENCES responses(idx, rep)
);
CREATE TABLE provider_batch_items (
  seq INTEGER NOT NULL REFERENCES provider_batches(seq),
  idx INTEGER NOT NULL REFERENCES samples(idx),
  rep INTEGER NOT NULL,
  custom_id TEXT NOT NULL,
  PRIMARY KEY (seq, idx, rep)
);
INSERT INTO responses(idx, rep, ok, text, reasoning, finish, finish_raw, input_tokens,
                      output_tokens, reasoning_tokens, latency_ms, http_status, attempts, error,
                      cached, created_ms, served_model, batch)
  SELECT idx, 0, ok, text, reasoning, finish, finish_raw, input_tokens, output_tokens,
         reasoning_tokens, latency_ms, http_status, attempts, error, cached, created_ms,
         served_model, batch FROM responses_v5 ORDER BY idx;
INSERT INTO verdicts(idx, rep, rules, pass, reason, rules_version, format, accuracy, error,
                     checks)
  SELECT idx, 0, rules, pass, reason, rules_version, format, accuracy, error, checks
  FROM verdicts_v5 ORDER BY idx, rules;
INSERT INTO provider_batch_items(seq, idx, rep, custom_id)
  SELECT seq, idx, 0, custom_id FROM provider_batch_items_v5 ORDER BY seq, idx;
DROP TABLE verdicts_v5;
DROP TABLE responses_v5;
DROP TABLE provider_batch_items_v5;
CREATE INDEX responses_ok ON responses(ok, idx, rep);
CREATE INDEX provider_batch_items_custom_id ON provider_batch_items(custom_id);
CREATE INDEX provider_batch_items_idx ON provider_batch_items(idx, rep);
)sql",
};

// The first schema version with sample_heads. A reader of an older run reads the
// whole samples instead, as ForEach does when a sample has no head (one whose JSON
// SQLite's json_remove cannot read, which the migration leaves out).
constexpr int64_t kHeadsSince = 2;
// The first schema version whose verdicts have checks.
constexpr int64_t kChecksSince = 3;
// The first schema version with responses.served_model.
constexpr int64_t kServedModelSince = 4;
// The first schema version with provider_batches and responses.batch.
constexpr int64_t kBatchesSince = 5;
// The first schema version whose responses, verdicts and batch items have a repeat.
constexpr int64_t kRepeatsSince = 6;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<int64_t> FromBool(std::optional<bool> b) {
  if (!b) return std::nullopt;
  return *b ? 1 : 0;
}

StatusOr<Sample> ParseSample(std::string_view json, const std::string& where,
                             bool with_prompt = true) {
  bool not_json = false;
  auto sample = SampleFromJsonText(json, &not_json, with_prompt);
  if (not_json) return Status::IoError(where + ": stored sample is not valid JSON");
  if (!sample.ok()) return sample.status().WithContext(where + ": stored sample");
  return sample;
}

// `problem`, met opening the database at `path`, as "PATH: not a structtest run store"
// when SQLite found no database there (a corrupt or foreign file).
Status NotARunStore(const std::string& path, const Status& problem) {
  if (problem.message().find("file is not a database") == std::string::npos) return problem;
  return Status::InvalidArgument(
      fmt::format("{}: not a structtest run store (not an SQLite database)", path));
}

}  // namespace

RunStore::RunStore(std::string dir, std::unique_ptr<sqlite::Db> db, int lock_fd)
    : dir_(std::move(dir)), db_(std::move(db)), lock_fd_(lock_fd) {}

RunStore::~RunStore() {
  if (bulk_synced_.valid()) bulk_synced_.wait();
  // Statements first: the connection closes after them.
  add_sample_.reset();
  add_head_.reset();
  put_response_.reset();
  drop_verdicts_.reset();
  put_verdict_.reset();
  if (in_batch_) (void)db_->Exec("ROLLBACK");
  db_.reset();
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the flock
}

StatusOr<std::unique_ptr<RunStore>> RunStore::Open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError(fmt::format("{}: cannot create the run directory: {}", dir, ec.message()));
  const std::string lock_path = dir + "/lock";
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError(fmt::format("{}: cannot open: {}", lock_path, std::strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Unavailable(fmt::format(
          "{}: another structtest process is using this run directory", dir));
    }
    return Status::IoError(fmt::format("{}: cannot lock: {}", lock_path, std::strerror(err)));
  }
  auto db = sqlite::Db::Open(dir + "/" + std::string(kFileName));
  if (!db.ok()) {
    close(fd);
    return NotARunStore(dir + "/" + std::string(kFileName), db.status());
  }
  std::unique_ptr<RunStore> store(new RunStore(dir, std::move(db).value(), fd));
  if (Status s = sqlite::Migrate(*store->db_, kMigrations); !s.ok()) {
    return NotARunStore(dir + "/" + std::string(kFileName), s);
  }
  RETURN_IF_ERROR(store->Prepare());
  RETURN_IF_ERROR(store->ReadRepeats());
  return store;
}

StatusOr<std::unique_ptr<RunStore>> RunStore::OpenReadOnly(const std::string& dir) {
  const std::string path = dir + "/" + std::string(kFileName);
  if (!std::filesystem::exists(path)) {
    return Status::NotFound(fmt::format("{}: no run here (no {})", dir, kFileName));
  }
  auto opened = sqlite::Db::Open(path, /*read_only=*/true);
  if (!opened.ok()) return NotARunStore(path, opened.status());
  std::unique_ptr<sqlite::Db> db = std::move(opened).value();
  auto get = db->Prepare("PRAGMA user_version");
  if (!get.ok()) return NotARunStore(path, get.status());
  auto row = get->Step();
  if (!row.ok()) return NotARunStore(path, row.status());
  const int64_t version = *row ? get->Int(0) : 0;
  const auto known = static_cast<int64_t>(std::size(kMigrations));
  if (version < 1) {
    return Status::InvalidArgument(fmt::format(
        "{}: not a structtest run store (empty, or a database without a run's tables)", path));
  }
  if (version > known) {
    return Status::InvalidArgument(
        fmt::format("{}: schema version {} is newer than this build ({})", path, version, known));
  }
  std::unique_ptr<RunStore> store(new RunStore(dir, std::move(db), -1));
  store->heads_ = version >= kHeadsSince;
  store->checks_ = version >= kChecksSince;
  store->served_model_ = version >= kServedModelSince;
  store->batches_ = version >= kBatchesSince;
  store->repeat_columns_ = version >= kRepeatsSince;
  RETURN_IF_ERROR(store->ReadRepeats());
  return store;
}

StatusOr<std::unique_ptr<RunStore>> RunStore::OpenInMemory() {
  ASSIGN_OR_RETURN(auto db, sqlite::Db::Open(":memory:"));
  std::unique_ptr<RunStore> store(new RunStore("(memory)", std::move(db), -1));
  RETURN_IF_ERROR(sqlite::Migrate(*store->db_, kMigrations));
  RETURN_IF_ERROR(store->Prepare());
  return store;
}

Status RunStore::Prepare() {
  ASSIGN_OR_RETURN(add_sample_, db_->Prepare("INSERT INTO samples(idx, id, domain, subtask, json) "
                                             "VALUES (?1, ?2, ?3, ?4, ?5)"));
  ASSIGN_OR_RETURN(add_head_, db_->Prepare("INSERT INTO sample_heads(idx, json) VALUES (?1, ?2)"));
  // An answer or a verdict that replaces one updates its row in place (an upsert):
  // INSERT OR REPLACE deletes and inserts, and each such statement kept a journal of
  // its own pages for its rollback (2.5 times the instructions per answer stored).
  ASSIGN_OR_RETURN(put_response_,
                   db_->Prepare("INSERT INTO responses(idx, ok, text, reasoning, "
                                "finish, finish_raw, input_tokens, output_tokens, "
                                "reasoning_tokens, latency_ms, http_status, attempts, error, "
                                "cached, created_ms, served_model, batch, rep) VALUES (?1, ?2, ?3, "
                                "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                                "?18) ON CONFLICT(idx, rep) DO UPDATE "
                                "SET ok = excluded.ok, text = excluded.text, reasoning = "
                                "excluded.reasoning, finish = excluded.finish, finish_raw = "
                                "excluded.finish_raw, input_tokens = excluded.input_tokens, "
                                "output_tokens = excluded.output_tokens, reasoning_tokens = "
                                "excluded.reasoning_tokens, latency_ms = excluded.latency_ms, "
                                "http_status = excluded.http_status, attempts = "
                                "excluded.attempts, error = excluded.error, cached = "
                                "excluded.cached, created_ms = excluded.created_ms, "
                                "served_model = excluded.served_model, batch = excluded.batch"));
  ASSIGN_OR_RETURN(drop_verdicts_, db_->Prepare("DELETE FROM verdicts WHERE idx = ?1 AND rep = ?2"));
  ASSIGN_OR_RETURN(put_verdict_,
                   db_->Prepare("INSERT INTO verdicts(idx, rules, pass, reason, "
                                "rules_version, format, accuracy, error, checks, rep) VALUES "
                                "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT(idx, rep, "
                                "rules) DO "
                                "UPDATE SET pass = excluded.pass, reason = excluded.reason, "
                                "rules_version = excluded.rules_version, format = "
                                "excluded.format, accuracy = excluded.accuracy, error = "
                                "excluded.error, checks = excluded.checks"));
  return Status::Ok();
}

StatusOr<std::optional<RunManifest>> RunStore::Manifest() {
  ASSIGN_OR_RETURN(sqlite::Stmt get, db_->Prepare("SELECT json FROM manifest WHERE id = 1"));
  ASSIGN_OR_RETURN(bool row, get.Step());
  if (!row) return std::optional<RunManifest>();
  nlohmann::json j = nlohmann::json::parse(get.Text(0), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::IoError(fmt::format("{}: the stored manifest is not a JSON object", db_->path()));
  }
  ASSIGN_OR_RETURN(RunManifest m, RunManifest::FromJson(j, db_->path()));
  return std::optional<RunManifest>(std::move(m));
}

Status RunStore::ReadRepeats() {
  ASSIGN_OR_RETURN(const std::optional<RunManifest> manifest, Manifest());
  if (manifest) repeats_ = manifest->repeats;
  return Status::Ok();
}

std::string RunStore::RepeatsTable() const {
  return fmt::format("(WITH RECURSIVE k(rep) AS (SELECT 0 UNION ALL SELECT rep + 1 FROM k WHERE "
                     "rep + 1 < {}) SELECT rep FROM k)",
                     repeats_);
}

Status RunStore::SetManifest(const RunManifest& manifest) {
  // Through the codec both ways, so that what is stored is what reopening reads.
  const nlohmann::json j = manifest.ToJson();
  ASSIGN_OR_RETURN(const RunManifest checked, RunManifest::FromJson(j, db_->path()));
  ASSIGN_OR_RETURN(sqlite::Stmt put,
                   db_->Prepare("INSERT OR REPLACE INTO manifest(id, json) VALUES (1, ?1)"));
  RETURN_IF_ERROR(put.Bind(1, j.dump()).Run());
  repeats_ = checked.repeats;
  return Status::Ok();
}

Status RunStore::Begin() {
  assert(!in_batch_ && "Begin() inside a batch");
  RETURN_IF_ERROR(db_->Exec("BEGIN IMMEDIATE"));
  in_batch_ = true;
  return Status::Ok();
}

Status RunStore::BeginBulk() {
  RETURN_IF_ERROR(db_->Exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF"));
  bulk_ = true;
  return Begin();
}

Status RunStore::Commit() {
  assert(in_batch_ && "Commit() without Begin()");
  in_batch_ = false;
  Status s = db_->Exec("COMMIT");
  if (!s.ok()) (void)db_->Exec("ROLLBACK");
  if (bulk_) {
    bulk_ = false;
    const Status wal = db_->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
    if (s.ok()) s = wal;
    // The samples go to disk while the run asks for answers. A checkpoint of the log
    // syncs the whole file too, so this only brings that moment forward.
    const char* file = sqlite3_db_filename(db_->raw(), "main");
    if (s.ok() && file != nullptr && *file != '\0') {  // "" in memory
      bulk_synced_ = std::async(std::launch::async, [path = std::string(file)] {
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return errno;
        const int err = fdatasync(fd) == 0 ? 0 : errno;
        close(fd);
        return err;
      });
    }
  } else if (s.ok() && bulk_synced_.valid() &&
             bulk_synced_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    if (const int err = bulk_synced_.get(); err != 0) {
      s = Status::IoError(fmt::format("{}: the samples did not reach the disk: {}", db_->path(),
                                      std::strerror(err)));
    }
  }
  return s;
}

Status RunStore::AddSample(int64_t index, const Sample& sample, std::string_view json) {
  assert(in_batch_ && "AddSample() outside a batch");
  if (json.empty()) {
    sample_json_.clear();
    AppendSampleJson(sample, &sample_json_);
    json = sample_json_;
  }
  Status s = add_sample_->Bind(1, index)
                 .BindView(2, sample.id)
                 .BindView(3, sample.domain)
                 .BindView(4, sample.subtask)
                 .BindView(5, json)
                 .Run();
  if (!s.ok() && add_sample_->last_error() == SQLITE_CONSTRAINT_UNIQUE) {
    return Status::InvalidArgument(fmt::format("sample id '{}' appears twice", sample.id));
  }
  RETURN_IF_ERROR(s);
  sample_json_.clear();
  AppendSampleHeadJson(sample, &sample_json_);
  return add_head_->Bind(1, index).BindView(2, sample_json_).Run();
}

Status RunStore::PutResponse(int64_t index, const StoredResponse& r, int64_t repeat) {
  assert(in_batch_ && "PutResponse() outside a batch");
  RETURN_IF_ERROR(drop_verdicts_->Bind(1, index).Bind(2, repeat).Run());
  return put_response_->Bind(1, index)
      .Bind(2, int64_t{r.ok})
      .BindView(3, r.text)
      .BindView(4, r.reasoning)
      .BindView(5, r.finish)
      .BindView(6, r.finish_raw)
      .Bind(7, r.input_tokens)
      .Bind(8, r.output_tokens)
      .Bind(9, r.reasoning_tokens)
      .Bind(10, r.latency_ms)
      .Bind(11, r.http_status)
      .Bind(12, r.attempts)
      .BindView(13, r.error)
      .Bind(14, int64_t{r.cached})
      .Bind(15, NowMs())
      .BindView(16, r.served_model)
      .Bind(17, int64_t{r.batch})
      .Bind(18, repeat)
      .Run();
}

Status RunStore::PutVerdict(int64_t index, std::string_view rules, const StoredVerdict& v,
                            int64_t repeat) {
  assert(in_batch_ && "PutVerdict() outside a batch");
  return put_verdict_->Bind(1, index)
      .BindView(2, rules)
      .Bind(3, int64_t{v.pass})
      .BindView(4, v.reason)
      .BindView(5, v.rules_version)
      .Bind(6, FromBool(v.format))
      .Bind(7, FromBool(v.accuracy))
      .BindView(8, v.error)
      .BindView(9, v.checks.empty() ? std::string() : ChecksToJson(v.checks).dump())
      .Bind(10, repeat)
      .Run();
}

StatusOr<int64_t> RunStore::DropVerdictsNotOf(std::string_view rules, std::string_view domain,
                                               std::string_view rules_version) {
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("DELETE FROM verdicts WHERE rules = ?1 AND (rules_version != ?3 "
                                "OR error != '' OR checks = '') AND (SELECT domain FROM samples s WHERE s.idx = "
                                "verdicts.idx) = ?2"));
  RETURN_IF_ERROR(q.Bind(1, rules).Bind(2, domain).Bind(3, rules_version).Run());
  return static_cast<int64_t>(sqlite3_changes(db_->raw()));
}

StatusOr<int64_t> RunStore::DropFailedVerdicts(std::string_view rules) {
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("DELETE FROM verdicts WHERE rules = ?1 AND error != ''"));
  RETURN_IF_ERROR(q.Bind(1, rules).Run());
  return static_cast<int64_t>(sqlite3_changes(db_->raw()));
}

StatusOr<std::vector<StoredSample>> RunStore::PendingSamples(Slot after, int limit,
                                                             bool outside_open_batches) {
  // With one repeat, the query a run made before repeats: every slot is repeat 0.
  const bool one = repeats_ == 1;
  const std::string rep = one ? "0" : "p.rep";
  ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      db_->Prepare(fmt::format(
          "SELECT s.idx, {0}, s.json FROM samples s{1} WHERE {2} AND NOT EXISTS (SELECT 1 FROM "
          "responses r WHERE r.idx = s.idx AND r.rep = {0} AND r.ok = 1){3} ORDER BY s.idx{4} "
          "LIMIT ?2",
          rep, one ? "" : " CROSS JOIN " + RepeatsTable() + " p",
          one ? "s.idx > ?1" : "s.idx >= ?1 AND (s.idx > ?1 OR p.rep > ?3)",
          outside_open_batches && batches_
              ? fmt::format(" AND NOT EXISTS (SELECT 1 FROM provider_batch_items i JOIN "
                            "provider_batches b ON b.seq = i.seq WHERE i.idx = s.idx AND i.rep "
                            "= {} AND b.state IN ('submitting', 'submitted'))",
                            rep)
              : "",
          one ? "" : ", p.rep")));
  q.Bind(1, after.index).Bind(2, int64_t{limit});
  if (!one) q.Bind(3, after.repeat);
  std::vector<StoredSample> out;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    StoredSample s;
    s.index = q.Int(0);
    s.repeat = q.Int(1);
    ASSIGN_OR_RETURN(s.sample, ParseSample(q.Text(2), fmt::format("{} sample {}", db_->path(), s.index)));
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<int64_t> RunStore::GrowTo(RunStore& plan) {
  // What is stored here: id -> (index, JSON).
  std::map<std::string, std::pair<int64_t, std::string>> here;
  {
    ASSIGN_OR_RETURN(sqlite::Stmt q, db_->Prepare("SELECT idx, id, json FROM samples"));
    for (;;) {
      ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      here.emplace(std::string(q.Text(1)), std::pair{q.Int(0), std::string(q.Text(2))});
    }
  }
  struct Planned {
    int64_t index;
    std::string id, domain, subtask, json, head;
    std::optional<int64_t> old_index;  // when stored here
  };
  std::vector<Planned> planned;
  {
    ASSIGN_OR_RETURN(sqlite::Stmt q,
                     plan.db_->Prepare("SELECT s.idx, s.id, s.domain, s.subtask, s.json, h.json "
                                       "FROM samples s JOIN sample_heads h ON h.idx = s.idx "
                                       "ORDER BY s.idx"));
    for (;;) {
      ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      Planned p{q.Int(0), std::string(q.Text(1)), std::string(q.Text(2)),
                std::string(q.Text(3)), std::string(q.Text(4)), std::string(q.Text(5)),
                std::nullopt};
      if (auto it = here.find(p.id); it != here.end()) {
        if (it->second.second != p.json) {
          return Status::InvalidArgument(fmt::format(
              "{}: sample '{}' is another sample in the grown suite", dir_, p.id));
        }
        p.old_index = it->second.first;
        here.erase(it);
      }
      planned.push_back(std::move(p));
    }
  }
  if (!here.empty()) {
    return Status::InvalidArgument(fmt::format(
        "{}: sample '{}' is not in the grown suite: it is not this run's suite", dir_,
        here.begin()->first));
  }
  RETURN_IF_ERROR(Begin());
  const auto move_and_add = [&]() -> Status {
    // Indexes move through negative values, so that no two rows ever share one; the
    // references between the tables are checked once, at the commit.
    RETURN_IF_ERROR(db_->Exec("PRAGMA defer_foreign_keys=ON"));
    constexpr const char* kTables[] = {"samples", "sample_heads", "responses", "verdicts"};
    std::vector<sqlite::Stmt> moves;
    for (const char* table : kTables) {
      RETURN_IF_ERROR(db_->Exec(fmt::format("UPDATE {} SET idx = -1 - idx", table)));
      ASSIGN_OR_RETURN(sqlite::Stmt move,
                       db_->Prepare(fmt::format("UPDATE {} SET idx = ?1 WHERE idx = ?2", table)));
      moves.push_back(std::move(move));
    }
    for (const Planned& p : planned) {
      if (p.old_index) {
        for (sqlite::Stmt& move : moves) {
          RETURN_IF_ERROR(move.Bind(1, p.index).Bind(2, -1 - *p.old_index).Run());
        }
        continue;
      }
      RETURN_IF_ERROR(add_sample_->Bind(1, p.index)
                          .BindView(2, p.id)
                          .BindView(3, p.domain)
                          .BindView(4, p.subtask)
                          .BindView(5, p.json)
                          .Run());
      RETURN_IF_ERROR(add_head_->Bind(1, p.index).BindView(2, p.head).Run());
    }
    return Status::Ok();
  };
  if (Status s = move_and_add(); !s.ok()) {
    in_batch_ = false;
    (void)db_->Exec("ROLLBACK");
    return s;
  }
  RETURN_IF_ERROR(Commit());
  return static_cast<int64_t>(std::count_if(planned.begin(), planned.end(),
                                             [](const Planned& p) { return !p.old_index; }));
}

namespace {

// The `limit` most frequent texts of the rows `q` gives as (text, count), grouping the
// texts that differ only in their numbers ("after 0 ms", "after 1 ms"), each group
// shown by its first text; most frequent first.
StatusOr<std::vector<std::pair<std::string, int64_t>>> MostFrequent(sqlite::Stmt& q, int limit) {
  struct Group {
    std::string example;
    int64_t count = 0;
  };
  std::map<std::string, Group> groups;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    const std::string_view text = q.Text(0);
    std::string key;
    bool in_number = false;
    for (char c : text) {
      const bool digit = c >= '0' && c <= '9';
      if (!digit) key.push_back(c);
      if (digit && !in_number) key.push_back('#');
      in_number = digit;
    }
    Group& g = groups[key];
    if (g.count == 0) g.example = text;
    g.count += q.Int(1);
  }
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& [key, g] : groups) out.emplace_back(std::move(g.example), g.count);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > static_cast<size_t>(limit)) out.resize(static_cast<size_t>(limit));
  return out;
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, int64_t>>> RunStore::TopErrors(int limit) {
  ASSIGN_OR_RETURN(sqlite::Stmt q, db_->Prepare("SELECT error, COUNT(*) FROM responses WHERE "
                                                "ok = 0 GROUP BY error ORDER BY error"));
  return MostFrequent(q, limit);
}

StatusOr<std::vector<std::pair<std::string, int64_t>>> RunStore::TopScoringErrors(
    std::string_view rules, int limit) {
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("SELECT error, COUNT(*) FROM verdicts WHERE rules = ?1 AND "
                                "error != '' GROUP BY error ORDER BY error"));
  q.Bind(1, rules);
  return MostFrequent(q, limit);
}

StatusOr<std::vector<std::string>> RunStore::ScoredRuleSets() {
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("SELECT DISTINCT rules FROM verdicts ORDER BY rules"));
  std::vector<std::string> out;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.emplace_back(q.Text(0));
  }
  return out;
}

StatusOr<std::vector<std::pair<std::string, int64_t>>> RunStore::ServedModels() {
  std::vector<std::pair<std::string, int64_t>> out;
  if (!served_model_) return out;
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("SELECT served_model, COUNT(*) AS n FROM responses WHERE ok = 1 "
                                "AND served_model != '' GROUP BY served_model ORDER BY n DESC, "
                                "served_model"));
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) return out;
    out.emplace_back(q.Text(0), q.Int(1));
  }
}

StatusOr<RunCounts> RunStore::Counts() {
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("SELECT (SELECT COUNT(*) FROM samples), "
                                "(SELECT COUNT(*) FROM responses WHERE ok = 1), "
                                "(SELECT COUNT(*) FROM responses WHERE ok = 0), "
                                "(SELECT COUNT(*) FROM responses WHERE ok = 1 AND finish = "
                                "'length'), "
                                "(SELECT COUNT(*) FROM responses WHERE cached = 0 AND ok = 1 AND "
                                "input_tokens + output_tokens > 0), "
                                "(SELECT COALESCE(SUM(input_tokens), 0) FROM responses WHERE "
                                "cached = 0), "
                                "(SELECT COALESCE(SUM(output_tokens), 0) FROM responses WHERE "
                                "cached = 0)" +
                                std::string(batches_ ? ", (SELECT COALESCE(SUM(input_tokens), 0) "
                                                       "FROM responses WHERE cached = 0 AND "
                                                       "batch = 1), (SELECT "
                                                       "COALESCE(SUM(output_tokens), 0) FROM "
                                                       "responses WHERE cached = 0 AND batch = 1)"
                                                     : ", 0, 0")));
  ASSIGN_OR_RETURN(bool row, q.Step());
  RunCounts c;
  if (row) {
    c.samples = q.Int(0);
    c.slots = c.samples * repeats_;
    c.answered = q.Int(1);
    c.errored = q.Int(2);
    c.truncated = q.Int(3);
    c.paid_with_usage = q.Int(4);
    c.spent_input_tokens = q.Int(5);
    c.spent_output_tokens = q.Int(6);
    c.spent_batch_input_tokens = q.Int(7);
    c.spent_batch_output_tokens = q.Int(8);
  }
  return c;
}

// The columns ReadRow() reads, for the queries that join samples, responses and verdicts
// as s, r and v; a reader of a run older than the verdicts' checks or the responses'
// served models reads '' for them.
std::string RunStore::RowColumns(std::string_view rep) const {
  return fmt::format(
      "s.idx, s.json, r.ok, r.text, r.reasoning, r.finish, r.finish_raw, r.input_tokens, "
      "r.output_tokens, r.reasoning_tokens, r.latency_ms, r.http_status, r.attempts, r.error, "
      "r.cached, v.pass, v.reason, v.rules_version, v.format, v.accuracy, v.error, {}, {}, {}, "
      "{}",
      checks_ ? "v.checks" : "''", served_model_ ? "r.served_model" : "''",
      batches_ ? "r.batch" : "0", rep);
}

StatusOr<RunRow> RunStore::ReadRow(const sqlite::Stmt& q, RowRead read) {
  RunRow row;
  row.index = q.Int(0);
  row.repeat = q.Int(24);
  ASSIGN_OR_RETURN(row.sample, ParseSample(q.Text(1),
                                           fmt::format("{} sample {}", db_->path(), row.index),
                                           /*with_prompt=*/read == RowRead::kWhole));
  if (!q.IsNull(2)) {
    StoredResponse& r = row.response.emplace();
    r.ok = q.Int(2) != 0;
    if (read != RowRead::kTally) {
      r.text = q.Text(3);
      r.reasoning = q.Text(4);
    }
    r.finish = q.Text(5);
    r.finish_raw = q.Text(6);
    r.input_tokens = q.Int(7);
    r.output_tokens = q.Int(8);
    r.reasoning_tokens = q.Int(9);
    r.latency_ms = q.Int(10);
    r.http_status = q.Int(11);
    r.attempts = q.Int(12);
    r.error = q.Text(13);
    r.cached = q.Int(14) != 0;
    r.served_model = q.Text(22);
    r.batch = q.Int(23) != 0;
  }
  if (!q.IsNull(15)) {
    StoredVerdict& v = row.verdict.emplace();
    v.pass = q.Int(15) != 0;
    v.reason = q.Text(16);
    v.rules_version = q.Text(17);
    if (!q.IsNull(18)) v.format = q.Int(18) != 0;
    if (!q.IsNull(19)) v.accuracy = q.Int(19) != 0;
    v.error = q.Text(20);
    if (const std::string_view checks = q.Text(21); !checks.empty()) {
      const auto j = nlohmann::json::parse(checks, nullptr, /*allow_exceptions=*/false);
      auto parsed = ChecksFromJson(j);
      if (!parsed.ok()) {
        return parsed.status().WithContext(
            fmt::format("{} sample {}: stored verdict checks", db_->path(), row.index));
      }
      v.checks = *std::move(parsed);
    }
  }
  return row;
}

StatusOr<std::vector<RunRow>> RunStore::Unscored(std::string_view rules, Slot after, int limit) {
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format(
                       // The answers without a verdict first, from the indexes alone; only
                       // their samples are read (a sample is most of a row's bytes).
                       "SELECT {} FROM (SELECT r.idx AS idx, r.rep AS rep FROM responses r "
                       "LEFT JOIN verdicts v ON v.idx = r.idx AND v.rep = r.rep AND v.rules = "
                       "?1 WHERE r.ok = 1 AND r.idx >= ?2 AND (r.idx > ?2 OR r.rep > ?4) AND "
                       "v.idx IS NULL ORDER BY r.idx, r.rep LIMIT ?3) u JOIN samples s ON s.idx "
                       "= u.idx JOIN responses r ON r.idx = u.idx AND r.rep = u.rep LEFT JOIN "
                       "verdicts v ON v.idx = u.idx AND v.rep = u.rep AND v.rules = ?1 ORDER BY "
                       "u.idx, u.rep",
                       RowColumns("u.rep"))));
  q.Bind(1, rules).Bind(2, after.index).Bind(3, int64_t{limit}).Bind(4, after.repeat);
  std::vector<RunRow> out;
  for (;;) {
    ASSIGN_OR_RETURN(bool more, q.Step());
    if (!more) return out;
    ASSIGN_OR_RETURN(RunRow row, ReadRow(q, RowRead::kWhole));
    out.push_back(std::move(row));
  }
}

StatusOr<bool> RunStore::HeadsComplete() {
  if (!heads_) return false;
  ASSIGN_OR_RETURN(sqlite::Stmt q, db_->Prepare("SELECT (SELECT COUNT(*) FROM samples) = "
                                                "(SELECT COUNT(*) FROM sample_heads)"));
  ASSIGN_OR_RETURN(bool row, q.Step());
  return row && q.Int(0) != 0;
}

Status RunStore::ForEach(std::string_view rules, const std::function<Status(const RunRow&)>& fn,
                         RowRead read) {
  // Rows without the prompt come from the heads, when every sample has one.
  bool heads = false;
  if (read != RowRead::kWhole) {
    ASSIGN_OR_RETURN(heads, HeadsComplete());
  }
  // With one repeat, the query a run made before repeats (a run stored before them
  // has no repeat columns).
  const bool one = repeats_ == 1;
  const std::string rep = one ? "0" : "p.rep";
  const std::string on_rep = repeat_columns_ ? fmt::format(" AND r.rep = {}", rep) : "";
  const std::string on_verdict_rep = repeat_columns_ ? fmt::format(" AND v.rep = {}", rep) : "";
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format(
                       "SELECT {} FROM {} s{} LEFT JOIN responses r ON r.idx = s.idx{} LEFT "
                       "JOIN verdicts v ON v.idx = s.idx{} AND v.rules = ?1 ORDER BY s.idx{}",
                       RowColumns(rep), heads ? "sample_heads" : "samples",
                       one ? "" : " CROSS JOIN " + RepeatsTable() + " p", on_rep, on_verdict_rep,
                       one ? "" : ", p.rep")));
  q.Bind(1, rules);
  for (;;) {
    ASSIGN_OR_RETURN(bool more, q.Step());
    if (!more) return Status::Ok();
    ASSIGN_OR_RETURN(RunRow row, ReadRow(q, read));
    RETURN_IF_ERROR(fn(row));
  }
}

Status RunStore::ForEachSample(const std::function<Status(const Sample&)>& fn) {
  constexpr int64_t kBatch = 256;
  for (int64_t after = -1;;) {
    ASSIGN_OR_RETURN(sqlite::Stmt q, db_->Prepare("SELECT idx, json FROM samples WHERE idx > ?1 "
                                                  "ORDER BY idx LIMIT ?2"));
    q.Bind(1, after).Bind(2, kBatch);
    int64_t n = 0;
    for (;; ++n) {
      ASSIGN_OR_RETURN(bool more, q.Step());
      if (!more) break;
      after = q.Int(0);
      ASSIGN_OR_RETURN(const Sample sample,
                       ParseSample(q.Text(1), fmt::format("{} sample {}", db_->path(), after)));
      RETURN_IF_ERROR(fn(sample));
    }
    if (n < kBatch) return Status::Ok();
  }
}

StatusOr<MergeCounts> RunStore::MergeFrom(const std::string& dir) {
  assert(!in_batch_ && "MergeFrom() inside a batch");
  const std::string path = dir + "/" + std::string(kFileName);
  // ATTACH is not allowed inside a transaction; DETACH after it, whatever happened.
  {
    ASSIGN_OR_RETURN(sqlite::Stmt attach, db_->Prepare("ATTACH DATABASE ?1 AS src"));
    RETURN_IF_ERROR(attach.Bind(1, path).Run());
  }
  auto merge = [&]() -> StatusOr<MergeCounts> {
    RETURN_IF_ERROR(Begin());
    // The first row of `sql` (two text columns), or nullopt.
    const auto first = [&](const char* sql) -> StatusOr<std::optional<std::pair<std::string, std::string>>> {
      ASSIGN_OR_RETURN(sqlite::Stmt q, db_->Prepare(sql));
      ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) return std::optional<std::pair<std::string, std::string>>();
      return std::optional<std::pair<std::string, std::string>>(
          std::pair{std::string(q.Text(0)), std::string(q.Text(1))});
    };
    ASSIGN_OR_RETURN(auto other_sample,
                     first("SELECT o.id, s.id FROM src.samples o JOIN main.samples s ON s.idx = "
                           "o.idx WHERE s.id != o.id OR s.json != o.json LIMIT 1"));
    if (other_sample) {
      return Status::InvalidArgument(fmt::format(
          "{}: sample '{}' is not sample '{}' of this run (the runs hold different suites)",
          dir, other_sample->first, other_sample->second));
    }
    ASSIGN_OR_RETURN(auto moved, first("SELECT o.id, '' FROM src.samples o JOIN main.samples s "
                                       "ON s.id = o.id WHERE s.idx != o.idx LIMIT 1"));
    if (moved) {
      return Status::InvalidArgument(fmt::format(
          "{}: sample '{}' has another position in the suite than in this run (the runs "
          "hold different suites)",
          dir, moved->first));
    }
    // A run of a schema before repeats holds repeat 0 of each sample.
    ASSIGN_OR_RETURN(auto has_rep, first("SELECT COUNT(*), '' FROM pragma_table_info("
                                         "'responses', 'src') WHERE name = 'rep'"));
    const bool src_rep = has_rep && has_rep->first != "0";
    const std::string o_rep = src_rep ? "o.rep" : "0";
    ASSIGN_OR_RETURN(auto conflict,
                     first(fmt::format(
                               "SELECT s.id, {0} FROM src.responses o JOIN main.responses r ON "
                               "r.idx = o.idx AND r.rep = {0} JOIN main.samples s ON s.idx = "
                               "o.idx WHERE o.ok = 1 AND r.ok = 1 AND o.text != r.text ORDER BY "
                               "o.idx LIMIT 1",
                               o_rep)
                               .c_str()));
    if (conflict) {
      return Status::InvalidArgument(fmt::format(
          "{}: sample '{}'{} has another answer than in the runs merged before (the same "
          "sample answered twice, differently); nothing of {} was merged",
          dir, conflict->first,
          conflict->second == "0" ? "" : fmt::format(" (repeat {})", conflict->second), dir));
    }
    MergeCounts counts;
    // A run of an older schema has no checks column (its verdicts are scored again).
    ASSIGN_OR_RETURN(auto has_checks, first("SELECT COUNT(*), '' FROM pragma_table_info('verdicts', "
                                            "'src') WHERE name = 'checks'"));
    const bool src_checks = has_checks && has_checks->first != "0";
    // Nor a served_model column (its answers name no served model).
    ASSIGN_OR_RETURN(auto has_served, first("SELECT COUNT(*), '' FROM pragma_table_info("
                                            "'responses', 'src') WHERE name = 'served_model'"));
    const bool src_served = has_served && has_served->first != "0";
    // Nor a batch column (its answers were all asked online).
    ASSIGN_OR_RETURN(auto has_batch, first("SELECT COUNT(*), '' FROM pragma_table_info("
                                           "'responses', 'src') WHERE name = 'batch'"));
    const bool src_batch = has_batch && has_batch->first != "0";
    RETURN_IF_ERROR(db_->Exec("INSERT OR IGNORE INTO main.samples(idx, id, domain, subtask, json) "
                              "SELECT idx, id, domain, subtask, json FROM src.samples"));
    counts.samples = sqlite3_changes(db_->raw());
    // The heads of the samples taken, from their JSON (`src` may be of an older schema;
    // a sample SQLite cannot read has none, and the rows are read from the samples).
    RETURN_IF_ERROR(db_->Exec(
        "INSERT INTO main.sample_heads(idx, json) SELECT o.idx, json_remove(o.json, "
        "'$.messages', '$.target') FROM src.samples o WHERE json_valid(o.json) AND NOT EXISTS "
        "(SELECT 1 FROM main.sample_heads h WHERE h.idx = o.idx)"));
    // The responses to take: where this store has none, or an error and the other an
    // answer.
    RETURN_IF_ERROR(db_->Exec(fmt::format(
        "DROP TABLE IF EXISTS temp.take; CREATE TEMP TABLE take AS SELECT o.idx, {0} AS rep, "
        "o.ok FROM src.responses o LEFT JOIN main.responses r ON r.idx = o.idx AND r.rep = {0} "
        "WHERE r.idx IS NULL OR (r.ok = 0 AND o.ok = 1)",
        o_rep)));
    ASSIGN_OR_RETURN(auto taken, first("SELECT (SELECT COUNT(*) FROM temp.take WHERE ok = 1), "
                                       "(SELECT COUNT(*) FROM temp.take WHERE ok = 0)"));
    counts.answers = std::stoll(taken->first);
    counts.errors = std::stoll(taken->second);
    constexpr const char* kResponseColumns =
        "idx, ok, text, reasoning, finish, finish_raw, input_tokens, output_tokens, "
        "reasoning_tokens, latency_ms, http_status, attempts, error, cached, created_ms";
    const std::string v_rep = src_rep ? "v.rep" : "0";
    RETURN_IF_ERROR(db_->Exec(
        "DELETE FROM main.verdicts WHERE (idx, rep) IN (SELECT idx, rep FROM temp.take); " +
        fmt::format("INSERT OR REPLACE INTO main.responses({0}, served_model, batch, rep) SELECT "
                    "{0}, {1}, {2}, {3} FROM src.responses o WHERE (o.idx, {3}) IN (SELECT idx, "
                    "rep FROM temp.take); ",
                    kResponseColumns, src_served ? "served_model" : "''",
                    src_batch ? "batch" : "0", o_rep) +
        // Verdicts belong to an answer: taken with it, or added to the same answer.
        fmt::format("INSERT OR IGNORE INTO main.verdicts(idx, rules, pass, reason, "
                    "rules_version, format, accuracy, error, checks, rep) SELECT v.idx, v.rules, "
                    "v.pass, v.reason, v.rules_version, v.format, v.accuracy, v.error, {}, {} "
                    "FROM src.verdicts v JOIN",
                    src_checks ? "v.checks" : "''", v_rep) +
        fmt::format(" src.responses o ON o.idx = v.idx{0} AND o.ok = 1 JOIN main.responses r ON "
                    "r.idx = v.idx AND r.rep = {1} AND r.ok = 1 AND r.text = o.text; DROP TABLE "
                    "temp.take;",
                    src_rep ? " AND o.rep = v.rep" : "", v_rep)));
    RETURN_IF_ERROR(Commit());
    return counts;
  };
  StatusOr<MergeCounts> result = merge();
  if (in_batch_) {
    in_batch_ = false;
    (void)db_->Exec("ROLLBACK");
  }
  (void)db_->Exec("DROP TABLE IF EXISTS temp.take");
  const Status detached = db_->Exec("DETACH DATABASE src");
  if (result.ok() && !detached.ok()) return detached;
  return result;
}

namespace {

constexpr const char* kProviderBatchColumns =
    "seq, key, provider, batch_id, state, provider_state, requests, done, failed, created_ms, "
    "detail";

ProviderBatch ReadProviderBatch(const sqlite::Stmt& q) {
  ProviderBatch b;
  b.seq = q.Int(0);
  b.key = q.Text(1);
  b.provider = q.Text(2);
  b.batch_id = q.Text(3);
  b.state = q.Text(4);
  b.provider_state = q.Text(5);
  b.requests = q.Int(6);
  b.done = q.Int(7);
  b.failed = q.Int(8);
  b.created_ms = q.Int(9);
  b.detail = q.Text(10);
  return b;
}

}  // namespace

Status RunStore::AddProviderBatch(ProviderBatch* batch, const std::vector<ProviderBatchItem>& items) {
  assert(in_batch_ && "AddProviderBatch() outside a batch");
  const int64_t now = NowMs();
  ASSIGN_OR_RETURN(sqlite::Stmt add,
                   db_->Prepare("INSERT INTO provider_batches(key, provider, batch_id, state, "
                                "provider_state, requests, done, failed, created_ms, updated_ms, "
                                "detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10)"));
  Status s = add.Bind(1, batch->key)
                 .Bind(2, batch->provider)
                 .Bind(3, batch->batch_id)
                 .Bind(4, batch->state)
                 .Bind(5, batch->provider_state)
                 .Bind(6, static_cast<int64_t>(items.size()))
                 .Bind(7, batch->done)
                 .Bind(8, batch->failed)
                 .Bind(9, now)
                 .Bind(10, batch->detail)
                 .Run();
  if (!s.ok() && add.last_error() == SQLITE_CONSTRAINT_UNIQUE) {
    return Status::InvalidArgument(fmt::format("batch key '{}' is in the run already", batch->key));
  }
  RETURN_IF_ERROR(s);
  batch->seq = sqlite3_last_insert_rowid(db_->raw());
  batch->requests = static_cast<int64_t>(items.size());
  batch->created_ms = now;
  ASSIGN_OR_RETURN(sqlite::Stmt item,
                   db_->Prepare("INSERT INTO provider_batch_items(seq, idx, custom_id, rep) VALUES "
                                "(?1, ?2, ?3, ?4)"));
  for (const ProviderBatchItem& i : items) {
    RETURN_IF_ERROR(
        item.Bind(1, batch->seq).Bind(2, i.index).BindView(3, i.custom_id).Bind(4, i.repeat).Run());
  }
  return Status::Ok();
}

Status RunStore::UpdateProviderBatch(const ProviderBatch& batch) {
  assert(in_batch_ && "UpdateProviderBatch() outside a batch");
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare("UPDATE provider_batches SET batch_id = ?2, state = ?3, "
                                "provider_state = ?4, done = ?5, failed = ?6, detail = ?7, "
                                "updated_ms = ?8 WHERE seq = ?1"));
  RETURN_IF_ERROR(q.Bind(1, batch.seq)
                      .Bind(2, batch.batch_id)
                      .Bind(3, batch.state)
                      .Bind(4, batch.provider_state)
                      .Bind(5, batch.done)
                      .Bind(6, batch.failed)
                      .Bind(7, batch.detail)
                      .Bind(8, NowMs())
                      .Run());
  if (sqlite3_changes(db_->raw()) != 1) {
    return Status::Internal(fmt::format("{}: no batch {} to update", db_->path(), batch.seq));
  }
  return Status::Ok();
}

StatusOr<std::vector<ProviderBatch>> RunStore::ProviderBatches(std::string_view state) {
  std::vector<ProviderBatch> out;
  if (!batches_) return out;
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format("SELECT {} FROM provider_batches{} ORDER BY seq",
                                            kProviderBatchColumns,
                                            state.empty() ? "" : " WHERE state = ?1")));
  if (!state.empty()) q.Bind(1, state);
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) return out;
    out.push_back(ReadProviderBatch(q));
  }
}

StatusOr<std::vector<ProviderBatchItem>> RunStore::ProviderBatchItems(int64_t seq) {
  std::vector<ProviderBatchItem> out;
  if (!batches_) return out;
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format("SELECT idx, custom_id, {} FROM provider_batch_items "
                                            "WHERE seq = ?1 ORDER BY idx{}",
                                            repeat_columns_ ? "rep" : "0",
                                            repeat_columns_ ? ", rep" : "")));
  q.Bind(1, seq);
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) return out;
    out.push_back(ProviderBatchItem{q.Int(0), std::string(q.Text(1)), q.Int(2)});
  }
}

StatusOr<std::vector<Slot>> RunStore::AnsweredOfProviderBatch(int64_t seq) {
  std::vector<Slot> out;
  if (!batches_) return out;
  const bool rep = repeat_columns_;
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format("SELECT i.idx, {} FROM provider_batch_items i JOIN "
                                            "responses r ON r.idx = i.idx{} AND r.ok = 1 WHERE "
                                            "i.seq = ?1 ORDER BY i.idx{}",
                                            rep ? "i.rep" : "0", rep ? " AND r.rep = i.rep" : "",
                                            rep ? ", i.rep" : "")));
  q.Bind(1, seq);
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) return out;
    out.push_back(Slot{q.Int(0), q.Int(1)});
  }
}

StatusOr<std::vector<std::string>> RunStore::CustomIdsOf(std::string_view provider, int64_t index,
                                                         int64_t repeat) {
  std::vector<std::string> out;
  if (!batches_) return out;
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format("SELECT DISTINCT i.custom_id FROM provider_batch_items "
                                            "i JOIN provider_batches b ON b.seq = i.seq WHERE "
                                            "b.provider = ?1 AND i.idx = ?2{} ORDER BY i.custom_id",
                                            repeat_columns_ ? " AND i.rep = ?3" : "")));
  q.Bind(1, provider).Bind(2, index);
  if (repeat_columns_) q.Bind(3, repeat);
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) return out;
    out.emplace_back(q.Text(0));
  }
}

StatusOr<std::optional<RunRow>> RunStore::Row(int64_t index, std::string_view rules,
                                             int64_t repeat) {
  const bool rep = repeat_columns_;
  ASSIGN_OR_RETURN(sqlite::Stmt q,
                   db_->Prepare(fmt::format("SELECT {} FROM samples s LEFT JOIN responses r ON "
                                            "r.idx = s.idx{} LEFT JOIN verdicts v ON v.idx = s.idx"
                                            "{} AND v.rules = ?2 WHERE s.idx = ?1",
                                            RowColumns("?3"), rep ? " AND r.rep = ?3" : "",
                                            rep ? " AND v.rep = ?3" : "")));
  q.Bind(1, index).Bind(2, rules).Bind(3, repeat);
  ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<RunRow>();
  ASSIGN_OR_RETURN(RunRow r, ReadRow(q, RowRead::kWhole));
  return std::optional<RunRow>(std::move(r));
}

}  // namespace structtest
