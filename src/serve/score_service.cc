#include "serve/score_service.h"

#include <exception>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/jsonl.h"
#include "core/record_io.h"
#include "structtest/checker.h"
#include "structtest/sample.h"
#include "tasks/registry.h"
#include "tasks/score_stage.h"

namespace structtest {

// One request's records and, as they are scored, their lines.
struct ScoreService::Batch {
  RuleSet rules = RuleSet::kPaper;
  std::vector<ScoredRecord> records;
  std::vector<std::string> lines;  // lines[i] belongs to the thread scoring record i
  size_t left = 0;                 // GUARDED_BY(mu_): records not yet scored
  bool abandoned = false;          // GUARDED_BY(mu_): the request gave up waiting
  std::condition_variable done;    // left reached 0
};

namespace {

// A sample's params and context are a few levels deep; nlohmann parses any depth
// without recursion, but copies and destroys values recursively, so a body nested
// deeper than this is refused before it is parsed.
constexpr size_t kMaxDepth = 64;

ServiceReply Error(int status, std::string_view message) {
  return ServiceReply{status, ErrorBody(message)};
}

// Whether arrays and objects in `text` nest deeper than kMaxDepth (brackets inside
// strings do not count).
bool NestedTooDeep(std::string_view text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::string ErrorBody(std::string_view message) {
  return DumpJsonLine(nlohmann::json{{"error", message}}) + "\n";
}

ScoreService::ScoreService(ScoreServiceOptions options) : options_(options) {
  const int n = options_.threads > 0 ? options_.threads : DefaultScoreJobs();
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ScoreService::~ScoreService() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

ServiceReply ScoreService::Score(std::string_view body, Clock::time_point deadline) {
  if (NestedTooDeep(body)) {
    return Error(400, fmt::format("arrays and objects nested deeper than {} levels", kMaxDepth));
  }
  auto batch = std::make_shared<Batch>();
  nlohmann::json members;
  if (Status s = RecordsFromJsonText(body, "records", &batch->records, &members); !s.ok()) {
    return Error(400, s.message());
  }
  for (const auto& [key, value] : members.items()) {
    if (key != "rules") {
      return Error(400, fmt::format("unknown key '{}' (expected \"rules\" and \"records\")", key));
    }
    if (!value.is_string()) {
      return Error(400, fmt::format("rules: expected \"paper\" or \"strict\", found {}",
                                    value.type_name()));
    }
    auto rules = ParseRuleSet(value.get_ref<const std::string&>());
    if (!rules.ok()) return Error(400, "rules: " + rules.status().message());
    batch->rules = *rules;
  }
  const size_t n = batch->records.size();
  if (n > options_.max_in_flight) {
    return Error(413, fmt::format("{} records: at most {} per request (--max-in-flight)", n,
                                  options_.max_in_flight));
  }
  for (size_t i = 0; i < n; ++i) {
    const Sample& sample = batch->records[i].sample;
    if (Status s = FindSubtask(sample.domain, sample.subtask).status(); !s.ok()) {
      return Error(400, fmt::format("records[{}]: {}", i, s.message()));
    }
  }
  batch->lines.resize(n);
  batch->left = n;

  std::unique_lock<std::mutex> lock(mu_);
  if (!room_cv_.wait_until(lock, deadline,
                           [&] { return in_flight_ + n <= options_.max_in_flight; })) {
    return Error(503, fmt::format("busy: {} records in flight, no room for {} more before the "
                                  "request's deadline; retry later",
                                  in_flight_, n));
  }
  in_flight_ += n;
  for (size_t i = 0; i < n; ++i) tasks_.push_back(Task{batch, i});
  if (n == 1) {
    work_cv_.notify_one();
  } else if (n > 1) {
    work_cv_.notify_all();
  }
  if (!batch->done.wait_until(lock, deadline, [&] { return batch->left == 0; })) {
    batch->abandoned = true;
    return Error(503, fmt::format("timed out: {} of {} records scored before the request's "
                                  "deadline (--timeout); retry with fewer records or later",
                                  n - batch->left, n));
  }
  lock.unlock();

  std::string reply = "{\"verdicts\":[";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) reply += ',';
    reply += batch->lines[i];
  }
  reply += "]}\n";
  return ServiceReply{200, std::move(reply)};
}

ServiceReply ScoreService::Health() {
  size_t in_flight;
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight = in_flight_;
  }
  return ServiceReply{200, fmt::format("{{\"max_in_flight\":{},\"records_in_flight\":{},"
                                       "\"status\":\"ok\",\"threads\":{}}}\n",
                                       options_.max_in_flight, in_flight, threads())};
}

void ScoreService::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
    if (stop_) return;
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    Batch& batch = *task.batch;
    if (!batch.abandoned) {
      lock.unlock();
      ScoreRecord(batch, task.index);
      lock.lock();
    }
    --in_flight_;
    room_cv_.notify_all();
    if (--batch.left == 0) batch.done.notify_one();
  }
}

void ScoreService::ScoreRecord(Batch& batch, size_t index) const {
  const ScoredRecord& record = batch.records[index];
  std::string& line = batch.lines[index];
  StatusOr<Verdict> verdict = Status::Internal("not scored");
  // Checkers do not throw; should one (a bug), the record gets an error, and the
  // server stays up.
  try {
    verdict = options_.checker->Check(record.sample, record.response.text, batch.rules);
  } catch (const std::exception& e) {
    verdict = Status::Internal(fmt::format("internal error while scoring: {}", e.what()));
  }
  if (verdict.ok()) {
    AppendVerdictLine(record.sample, *verdict, &line);
  } else {
    AppendScoreErrorLine(record.sample, verdict.status().message(), batch.rules, &line);
  }
  line.pop_back();  // the newline
}

}  // namespace structtest
