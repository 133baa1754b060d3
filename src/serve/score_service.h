// The scoring behind `structtest serve`, without the HTTP: a request body
// {"rules": "paper"|"strict", "records": [{sample..., "response": ...}, ...]} in, the
// reply's status and JSON body out. Each verdict of a reply is the line `structtest
// score` writes for that record (AppendVerdictLine, or AppendScoreErrorLine for a record
// its checker cannot score), so the two always agree. Records are scored by the public
// Checker on a pool of threads shared by every request; the service keeps nothing from
// one request to the next, so any number of copies can sit behind a load balancer.
#ifndef STRUCTTEST_SERVE_SCORE_SERVICE_H_
#define STRUCTTEST_SERVE_SCORE_SERVICE_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace structtest {

class Checker;

struct ScoreServiceOptions {
  // Threads scoring records, over all requests. Default (0): the number of cores.
  int threads = 0;
  // Records admitted and not yet scored, over all requests: a request waits (until
  // its deadline) for room, and one holding more is refused with 413.
  size_t max_in_flight = 4096;
  // What scores each record (thread-safe). Not owned: it must outlive the service.
  Checker* checker = nullptr;
};

// An HTTP reply: status and JSON body ({"verdicts": [...]} or {"error": "..."}).
struct ServiceReply {
  int status = 200;
  std::string body;
};

// {"error": message} and a newline, invalid UTF-8 replaced: the body of every error reply.
std::string ErrorBody(std::string_view message);

// Thread-safety: every method may be called from any number of threads at once.
class ScoreService {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ScoreService(ScoreServiceOptions options);
  // Waits for the records being scored; those still queued are dropped.
  ~ScoreService();
  ScoreService(const ScoreService&) = delete;
  ScoreService& operator=(const ScoreService&) = delete;

  // The reply to POST /v1/score with `body`:
  //   200 {"verdicts": [...]}, one per record, in order;
  //   400 {"error": ...} when the body is not JSON (or nested deeper than 64 levels),
  //       not an object of "rules" and "records", or a record is not one `score` reads
  //       (RecordsFromJsonText) or names an unknown subtask: the message names the
  //       record ("records[3]: missing field 'response'") or the key;
  //   413 more records than max_in_flight;
  //   503 `deadline` passed before every record was scored (waiting for room counts).
  // Records already being scored when the deadline passes finish in the background.
  ServiceReply Score(std::string_view body, Clock::time_point deadline);

  // GET /healthz: 200 {"status": "ok", "threads": N, "records_in_flight": K,
  // "max_in_flight": M}.
  ServiceReply Health();

  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  struct Batch;
  struct Task {
    std::shared_ptr<Batch> batch;  // shared with the request waiting for it
    size_t index;
  };
  void WorkerLoop();
  void ScoreRecord(Batch& batch, size_t index) const;

  const ScoreServiceOptions options_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // tasks_ grew, or stop_
  std::condition_variable room_cv_;  // in_flight_ fell
  std::deque<Task> tasks_;           // GUARDED_BY(mu_)
  size_t in_flight_ = 0;             // GUARDED_BY(mu_): admitted, not yet scored or dropped
  bool stop_ = false;                // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

}  // namespace structtest

#endif  // STRUCTTEST_SERVE_SCORE_SERVICE_H_
