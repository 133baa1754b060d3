// A thin RAII layer over the SQLite C API for the stores in this folder: a Db that
// owns a connection and a Stmt that owns a prepared statement, with every failure
// turned into a Status naming the database file. Schemas evolve through numbered
// migrations (Migrate), recorded in PRAGMA user_version.
#ifndef STRUCTTEST_STORE_SQLITE_H_
#define STRUCTTEST_STORE_SQLITE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "structtest/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace structtest::sqlite {

class Stmt;

class Db {
 public:
  // Opens (creating when missing) the database at `path` (":memory:" for a private
  // in-memory one) in WAL mode with a busy timeout, so readers never block the writer.
  static StatusOr<std::unique_ptr<Db>> Open(const std::string& path, bool read_only = false);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Status Exec(std::string_view sql);
  StatusOr<Stmt> Prepare(std::string_view sql);
  // "PATH: MESSAGE" with SQLite's current error message.
  Status Error(std::string_view what) const;
  const std::string& path() const { return path_; }
  sqlite3* raw() const { return db_; }

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// A prepared statement. Bind indexes start at 1; column indexes at 0.
class Stmt {
 public:
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&& other) noexcept;
  ~Stmt();

  Stmt& Bind(int index, int64_t value);
  Stmt& Bind(int index, std::string_view text);
  // Binds `text` without a copy: its bytes must stay as they are until the statement is
  // reset (Run() or Reset()), as in `stmt.BindView(1, s).Run()`.
  Stmt& BindView(int index, std::string_view text);
  Stmt& BindNull(int index);
  Stmt& Bind(int index, const std::optional<int64_t>& value);

  // Steps once: true with a row, false when done; an error otherwise.
  StatusOr<bool> Step();
  // SQLite's extended result code of the last failed Step() (SQLITE_CONSTRAINT_UNIQUE,
  // ...), or 0 when none failed.
  int last_error() const { return last_error_; }
  // Steps to the end of a statement that returns no rows, then resets it.
  Status Run();
  // Resets for another execution and clears the bindings.
  void Reset();

  int64_t Int(int col) const;
  std::string_view Text(int col) const;  // "" for NULL
  bool IsNull(int col) const;

 private:
  friend class Db;
  Stmt(const Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  const Db* db_;
  sqlite3_stmt* stmt_;
  int last_error_ = 0;
};

// Brings the schema of `db` to version migrations.size(): applies migrations[i] (in one
// transaction each) for every i >= the stored user_version. A database whose version
// is newer than this build knows is refused, untouched, with an error saying so.
Status Migrate(Db& db, std::span<const char* const> migrations);

// BEGIN IMMEDIATE ... COMMIT, rolled back by the destructor unless Commit() ran.
class Transaction {
 public:
  static StatusOr<Transaction> Begin(Db& db);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status Commit();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace structtest::sqlite

#endif  // STRUCTTEST_STORE_SQLITE_H_
