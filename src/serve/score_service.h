// The scoring behind `structtest serve`, without the HTTP: a request body in, the reply's
// status and JSON body out. POST /v1/score takes {"rules": "paper"|"strict", "records":
// [{sample..., "response": ...}, ...]}, and each verdict of its reply is the line
// `structtest score` writes for that record (AppendVerdictLine, or AppendScoreErrorLine
// for a record its checker cannot score), so the two always agree. The reward endpoints
// of RL trainers (OpenRLHF's POST /get_reward, slime's POST /slime/reward) take the
// trainers' own bodies (trainer_protocols.h). A request that names no rule set is scored
// under strict, and every reply says which rules scored it. Records are scored by the public
// Checker on one ScoringPool (structtest/scoring_pool.h) shared by every request; the
// service keeps nothing from one request to the next, so any number of copies can sit
// behind a load balancer.
#ifndef STRUCTTEST_SERVE_SCORE_SERVICE_H_
#define STRUCTTEST_SERVE_SCORE_SERVICE_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/trainer_protocols.h"
#include "structtest/sample.h"
#include "structtest/scoring_pool.h"

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
  // Removed from the end of the responses the reward endpoints cut out of what the
  // trainers send (StripEndTokens).
  std::vector<std::string> end_tokens;
};

// An HTTP reply: status and JSON body ({"rules": ..., "verdicts": [...]}, a reward
// endpoint's body, or {"error": "..."}).
struct ServiceReply {
  int status = 200;
  std::string body;
  // The rule set the request was scored under ("paper" or "strict"), for a header of
  // every reply of a scoring endpoint (a bare number, slime's, has no field for it);
  // empty when the request did not get as far as naming one.
  std::string_view rules;
};

// {"error": message} and a newline, invalid UTF-8 replaced: the body of every error reply.
std::string ErrorBody(std::string_view message);

// Thread-safety: every method may be called from any number of threads at once.
class ScoreService {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ScoreService(ScoreServiceOptions options);
  // Waits for the records being scored; those still queued are dropped. REQUIRES: no
  // call is under way.
  ~ScoreService();
  ScoreService(const ScoreService&) = delete;
  ScoreService& operator=(const ScoreService&) = delete;

  // The reply to POST /v1/score with `body`:
  //   200 {"rules": "paper"|"strict", "verdicts": [...]}, one verdict per record, in
  //       order; rules default to strict;
  //   400 {"error": ...} when the body is not JSON (or nested deeper than 64 levels),
  //       not an object of "rules" and "records", or a record is not one `score` reads
  //       (RecordsFromJsonText) or names an unknown subtask: the message names the
  //       record ("records[3]: missing field 'response'") or the key; and for any URL
  //       query `args` (the body holds the options);
  //   413 more records than max_in_flight;
  //   503 `deadline` passed before every record was scored (waiting for room counts).
  // Records already being scored when the deadline passes finish in the background.
  ServiceReply Score(std::string_view body, Clock::time_point deadline,
                     const QueryArgs& args = {});

  // The reply to POST at a trainer's reward endpoint (kOpenRlhf or kSlime) with `body`
  // and the URL's query `args` (ParseRewardParams):
  //   200 OpenRlhfReply or SlimeReply;
  //   400 {"error": ...} for a body or URL parameter that is not one, naming the item
  //       ("labels[3]: not a structtest sample: missing field 'subtask'");
  //   413, 503 as Score;
  //   500 a record the checker could not score (python3 missing, say), named: the
  //       request did nothing wrong, and a reward of 0 would be a lie.
  ServiceReply Reward(Endpoint endpoint, std::string_view body, const QueryArgs& args,
                      Clock::time_point deadline);

  // GET /healthz: 200 {"status": "ok", "threads": N, "records_in_flight": K,
  // "max_in_flight": M}.
  ServiceReply Health();

  int threads() const { return pool_.threads(); }

 private:
  struct Batch;
  // Scores the batch's records on the pool: nothing when each has its verdict or error,
  // else the 413 or 503 reply.
  std::optional<ServiceReply> Run(const std::shared_ptr<Batch>& batch,
                                  Clock::time_point deadline);
  void ScoreRecord(Batch& batch, size_t index) const;

  const ScoreServiceOptions options_;
  ScoringPool pool_;
};

}  // namespace structtest

#endif  // STRUCTTEST_SERVE_SCORE_SERVICE_H_
