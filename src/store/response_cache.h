// ResponseCache: answers of earlier runs, so that another run asking the very same
// request of the very same model reuses the answer instead of paying for it again.
// The key is the full request (endpoint, model, messages and generation settings),
// compared whole, never by a hash alone. Only successful answers are kept. One SQLite
// file, shared by every run of a user (default ~/.cache/structtest/responses.db) and
// safe to use from several processes at once.
#ifndef STRUCTTEST_STORE_RESPONSE_CACHE_H_
#define STRUCTTEST_STORE_RESPONSE_CACHE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/run_store.h"
#include "store/sqlite.h"
#include "structtest/status.h"

namespace structtest {

class ResponseCache {
 public:
  // $STRUCTTEST_CACHE, else $XDG_CACHE_HOME/structtest/responses.db, else
  // ~/.cache/structtest/responses.db.
  static std::string DefaultPath();
  // Opens (creating the file and its folder) the cache at `path`.
  static StatusOr<std::unique_ptr<ResponseCache>> Open(const std::string& path);
  ~ResponseCache();

  StatusOr<std::optional<StoredResponse>> Get(std::string_view key);
  // Puts between Begin() and Commit() share one transaction (fewer syncs); a Put
  // outside commits by itself.
  Status Begin() { return db_->Exec("BEGIN IMMEDIATE"); }
  Status Commit() { return db_->Exec("COMMIT"); }
  // REQUIRES: response.ok.
  Status Put(std::string_view key, const StoredResponse& response);

 private:
  explicit ResponseCache(std::unique_ptr<sqlite::Db> db) : db_(std::move(db)) {}
  std::unique_ptr<sqlite::Db> db_;
  std::optional<sqlite::Stmt> get_, put_;
};

}  // namespace structtest

#endif  // STRUCTTEST_STORE_RESPONSE_CACHE_H_
