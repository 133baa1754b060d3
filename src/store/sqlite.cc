#include "store/sqlite.h"

#include <sqlite3.h>

#include <cassert>

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest::sqlite {

StatusOr<std::unique_ptr<Db>> Db::Open(const std::string& path, bool read_only) {
  // Before SQLite's first use: no statistics of its allocations, which take a global
  // mutex on every malloc and free (a sixth of the instructions of storing an answer).
  static const bool configured = [] {
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
  sqlite3* raw = nullptr;
  const int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close(raw);
    return Status::IoError(fmt::format("{}: cannot open the database: {}", path, message));
  }
  std::unique_ptr<Db> db(new Db(raw, path));
  sqlite3_busy_timeout(raw, 10'000);
  sqlite3_extended_result_codes(raw, 1);
  if (!read_only) {
    // WAL: a crash (kill -9) at any moment leaves the last committed transaction
    // intact; synchronous=NORMAL may lose the newest commits on power loss, never on
    // a process crash, and avoids an fsync per batch.
    // page_size only takes on a new database (before WAL): samples of several KB then
    // fit in one or two pages instead of a chain of 4 KB overflow pages.
    RETURN_IF_ERROR(db->Exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; "
                             "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-8192;"));
  }
  // Statement journals (each INSERT OR REPLACE in a batch keeps one, for its own
  // rollback) and temporary tables stay in memory: on disk, every answer stored cost
  // a few writes to a file in /var/tmp. They hold a statement's pages, not a run's.
  RETURN_IF_ERROR(db->Exec("PRAGMA temp_store=MEMORY;"));
  RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON;"));
  return db;
}

Db::~Db() { sqlite3_close_v2(db_); }

Status Db::Error(std::string_view what) const {
  return Status::IoError(fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_)));
}

Status Db::Exec(std::string_view sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::Ok();
  Status s = Status::IoError(
      fmt::format("{}: {}", path_, message != nullptr ? message : sqlite3_errstr(rc)));
  sqlite3_free(message);
  return s;
}

StatusOr<Stmt> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                         SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
    return Error(fmt::format("preparing '{}'", sql.substr(0, 60)));
  }
  return Stmt(this, stmt);
}

Stmt::Stmt(Stmt&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), last_error_(other.last_error_) {
  other.stmt_ = nullptr;
}

Stmt& Stmt::operator=(Stmt&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    last_error_ = other.last_error_;
    other.stmt_ = nullptr;
  }
  return *this;
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Stmt& Stmt::Bind(int index, std::string_view text) {
  // SQLITE_TRANSIENT: SQLite copies, so the caller's buffer may go away before Step().
  sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::BindView(int index, std::string_view text) {
  sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Stmt& Stmt::Bind(int index, const std::optional<int64_t>& value) {
  return value ? Bind(index, *value) : BindNull(index);
}

StatusOr<bool> Stmt::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  last_error_ = rc;
  Status s = db_->Error("statement failed");
  sqlite3_reset(stmt_);
  return s;
}

Status Stmt::Run() {
  auto stepped = Step();
  Reset();
  if (!stepped.ok()) return stepped.status();
  return Status::Ok();
}

void Stmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Stmt::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

std::string_view Stmt::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (p == nullptr) return {};
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

bool Stmt::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

StatusOr<Transaction> Transaction::Begin(Db& db) {
  RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  assert(db_ != nullptr && "Commit() twice");
  Db* db = db_;
  db_ = nullptr;
  Status s = db->Exec("COMMIT");
  if (!s.ok()) (void)db->Exec("ROLLBACK");
  return s;
}

Status Migrate(Db& db, std::span<const char* const> migrations) {
  ASSIGN_OR_RETURN(Stmt get, db.Prepare("PRAGMA user_version"));
  ASSIGN_OR_RETURN(bool row, get.Step());
  const int64_t version = row ? get.Int(0) : 0;
  get.Reset();
  const auto known = static_cast<int64_t>(migrations.size());
  if (version > known) {
    return Status::InvalidArgument(fmt::format(
        "{}: schema version {} is newer than this build ({}); use a newer structtest",
        db.path(), version, known));
  }
  for (int64_t v = version; v < known; ++v) {
    ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(db));
    RETURN_IF_ERROR(db.Exec(migrations[static_cast<size_t>(v)]));
    RETURN_IF_ERROR(db.Exec(fmt::format("PRAGMA user_version={}", v + 1)));
    RETURN_IF_ERROR(tx.Commit());
  }
  return Status::Ok();
}

}  // namespace structtest::sqlite
