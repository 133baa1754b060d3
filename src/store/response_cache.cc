#include "store/response_cache.h"

#include <cassert>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest {
namespace {

constexpr const char* kCacheMigrations[] = {
    // 1: the first schema.
    R"sql(
CREATE TABLE responses (
  key TEXT PRIMARY KEY,
  text TEXT NOT NULL,
  reasoning TEXT NOT NULL,
  finish TEXT NOT NULL,
  finish_raw TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
    // 2: the model each reply says served it ('' where unknown).
    R"sql(
ALTER TABLE responses ADD COLUMN served_model TEXT NOT NULL DEFAULT '';
)sql",
};

}  // namespace

std::string ResponseCache::DefaultPath() {
  if (const char* p = std::getenv("STRUCTTEST_CACHE"); p != nullptr && *p != '\0') return p;
  if (const char* p = std::getenv("XDG_CACHE_HOME"); p != nullptr && *p != '\0') {
    return std::string(p) + "/structtest/responses.db";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : ".") +
         "/.cache/structtest/responses.db";
}

StatusOr<std::unique_ptr<ResponseCache>> ResponseCache::Open(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return Status::IoError(fmt::format("{}: cannot create the cache folder: {}",
                                         parent.string(), ec.message()));
    }
  }
  ASSIGN_OR_RETURN(auto db, sqlite::Db::Open(path));
  RETURN_IF_ERROR(sqlite::Migrate(*db, kCacheMigrations));
  std::unique_ptr<ResponseCache> cache(new ResponseCache(std::move(db)));
  ASSIGN_OR_RETURN(cache->get_,
                   cache->db_->Prepare("SELECT text, reasoning, finish, finish_raw, "
                                       "input_tokens, output_tokens, reasoning_tokens, "
                                       "latency_ms, served_model FROM responses WHERE key = ?1"));
  ASSIGN_OR_RETURN(cache->put_,
                   cache->db_->Prepare("INSERT OR REPLACE INTO responses(key, text, reasoning, "
                                       "finish, finish_raw, input_tokens, output_tokens, "
                                       "reasoning_tokens, latency_ms, served_model) VALUES (?1, "
                                       "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  return cache;
}

ResponseCache::~ResponseCache() {
  get_.reset();
  put_.reset();
}

StatusOr<std::optional<StoredResponse>> ResponseCache::Get(std::string_view key) {
  get_->Bind(1, key);
  auto row = get_->Step();
  if (!row.ok()) return row.status();
  std::optional<StoredResponse> out;
  if (*row) {
    StoredResponse& r = out.emplace();
    r.ok = true;
    r.text = get_->Text(0);
    r.reasoning = get_->Text(1);
    r.finish = get_->Text(2);
    r.finish_raw = get_->Text(3);
    r.input_tokens = get_->Int(4);
    r.output_tokens = get_->Int(5);
    r.reasoning_tokens = get_->Int(6);
    r.latency_ms = get_->Int(7);
    r.served_model = get_->Text(8);
    r.cached = true;
  }
  get_->Reset();
  return out;
}

Status ResponseCache::Put(std::string_view key, const StoredResponse& r) {
  assert(r.ok && "only answers are cached");
  return put_->Bind(1, key)
      .Bind(2, r.text)
      .Bind(3, r.reasoning)
      .Bind(4, r.finish)
      .Bind(5, r.finish_raw)
      .Bind(6, r.input_tokens)
      .Bind(7, r.output_tokens)
      .Bind(8, r.reasoning_tokens)
      .Bind(9, r.latency_ms)
      .Bind(10, r.served_model)
      .Run();
}

}  // namespace structtest
