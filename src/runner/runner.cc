#include "runner/runner.h"

#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/builtin.h"
#include "tasks/scorer.h"

namespace structtest {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kFetch = 512;  // samples read from the store at a time

StoredVerdict Score(const Sample& sample, const std::string& text, RuleSet rules,
                    const CheckEnv& env) {
  StoredVerdict out;
  auto verdict = ScoreResponse(sample, text, rules, env);
  if (!verdict.ok()) {
    out.error = verdict.status().message();
    return out;
  }
  out.pass = verdict->pass;
  out.reason = verdict->reason;
  out.rules_version = std::string(verdict->rules_version);
  out.format = verdict->format;
  out.accuracy = verdict->accuracy;
  return out;
}

}  // namespace

StoredResponse ToStoredResponse(const ModelResult& r) {
  StoredResponse s;
  s.ok = r.ok();
  if (s.ok) {
    s.text = r.response.text;
    s.reasoning = r.response.reasoning;
  } else {
    s.error = r.error_message.empty() ? std::string(ErrorKindName(r.error)) : r.error_message;
  }
  s.finish = FinishReasonName(r.finish);
  s.finish_raw = r.finish_raw;
  s.input_tokens = r.usage.input;
  s.output_tokens = r.usage.output;
  s.reasoning_tokens = r.usage.reasoning;
  s.latency_ms = r.latency.count();
  s.http_status = r.http_status;
  s.attempts = r.attempts;
  return s;
}

std::string Runner::CacheKey(std::string_view endpoint, const ModelRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  for (const Message& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  nlohmann::json key = {{"endpoint", endpoint},
                        {"model", request.model},
                        {"messages", std::move(messages)},
                        {"max_tokens", request.max_tokens}};
  if (request.temperature) key["temperature"] = *request.temperature;
  return key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One Run(): the queue of samples still to ask, the requests in flight, the open batch.
class Runner::Loop {
 public:
  Loop(Runner* runner, Progress* progress) : r_(*runner), progress_(progress) {}

  Status Init() {
    ASSIGN_OR_RETURN(RunCounts counts, r_.store_->Counts());
    counts_.total = counts.samples;
    counts_.done = counts.answered;
    return Status::Ok();
  }

  // The next sample to ask, or nullopt when there is none left.
  StatusOr<std::optional<StoredSample>> Next() {
    if (queue_.empty() && !exhausted_) {
      ASSIGN_OR_RETURN(std::vector<StoredSample> batch, r_.store_->PendingSamples(after_, kFetch));
      if (batch.empty()) exhausted_ = true;
      // The cursor only moves forward, so a sample answered (or failed) in this
      // session is never fetched again, committed or not.
      for (StoredSample& s : batch) {
        after_ = s.index;
        queue_.push_back(std::move(s));
      }
    }
    if (queue_.empty()) return std::optional<StoredSample>();
    std::optional<StoredSample> s(std::move(queue_.front()));
    queue_.pop_front();
    return s;
  }
  bool Drained() const { return queue_.empty() && exhausted_; }

  ModelRequest RequestFor(const StoredSample& s) const {
    ModelRequest req;
    req.id = static_cast<uint64_t>(s.index);
    req.model = r_.options_.model;
    req.messages = s.sample.messages;
    req.max_tokens = r_.options_.max_tokens;
    req.temperature = r_.options_.temperature;
    return req;
  }

  // The cached answer to `req`, if any.
  StatusOr<std::optional<StoredResponse>> FromCache(const ModelRequest& req) {
    if (r_.cache_ == nullptr) return std::optional<StoredResponse>();
    return r_.cache_->Get(CacheKey(r_.options_.endpoint, req));
  }

  // Stores (and scores) the response to sample `s`.
  Status Handle(const StoredSample& s, const StoredResponse& response,
                const ModelRequest* cache_as) {
    RETURN_IF_ERROR(OpenBatch());
    RETURN_IF_ERROR(r_.store_->PutResponse(s.index, response));
    ++pending_results_;
    ++counts_.requests;
    if (!response.ok) {
      ++counts_.errors;
      ++stats_.errored;
      return Status::Ok();
    }
    if (!response.cached) counts_.output_tokens += response.output_tokens;
    stats_.output_tokens += response.output_tokens;
    ++stats_.answered;
    ++counts_.done;
    const StoredVerdict verdict = Score(s.sample, response.text, r_.options_.rules, r_.env_);
    RETURN_IF_ERROR(
        r_.store_->PutVerdict(s.index, RuleSetName(r_.options_.rules), verdict));
    if (cache_as != nullptr && r_.cache_ != nullptr && !response.cached) {
      RETURN_IF_ERROR(r_.cache_->Put(CacheKey(r_.options_.endpoint, *cache_as), response));
    }
    return Status::Ok();
  }

  // Commits the open batch when it is big or old enough (always when `force`).
  Status MaybeCommit(bool force) {
    if (!batch_open_) return Status::Ok();
    if (!force && pending_results_ < r_.options_.batch_results &&
        Clock::now() - batch_started_ < r_.options_.batch_interval) {
      return Status::Ok();
    }
    RETURN_IF_ERROR(r_.store_->Commit());
    if (r_.cache_ != nullptr) RETURN_IF_ERROR(r_.cache_->Commit());
    batch_open_ = false;
    pending_results_ = 0;
    return Status::Ok();
  }

  bool Stopped() const {
    return r_.options_.stop != nullptr && r_.options_.stop->load(std::memory_order_relaxed);
  }

  void Report() {
    if (progress_ != nullptr) progress_->Update(counts_);
  }

  RunnerStats Finish(bool interrupted) {
    if (progress_ != nullptr) progress_->Finish(counts_);
    stats_.interrupted = interrupted;
    stats_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    return stats_;
  }

  RunnerStats& stats() { return stats_; }

 private:
  Status OpenBatch() {
    if (batch_open_) return Status::Ok();
    RETURN_IF_ERROR(r_.store_->Begin());
    if (r_.cache_ != nullptr) RETURN_IF_ERROR(r_.cache_->Begin());
    batch_open_ = true;
    batch_started_ = Clock::now();
    return Status::Ok();
  }

  Runner& r_;
  Progress* progress_;
  std::deque<StoredSample> queue_;
  int64_t after_ = -1;
  bool exhausted_ = false;
  bool batch_open_ = false;
  int pending_results_ = 0;
  Clock::time_point batch_started_;
  Clock::time_point start_ = Clock::now();
  ProgressCounts counts_;
  RunnerStats stats_;
};

Runner::Runner(RunStore* store, ResponseCache* cache, const CheckEnv& env, RunnerOptions options)
    : store_(store), cache_(cache), env_(env), options_(std::move(options)) {}

StatusOr<RunnerStats> Runner::Run(ModelClient* client, Progress* progress) {
  Loop loop(this, progress);
  RETURN_IF_ERROR(loop.Init());
  std::unordered_map<uint64_t, std::pair<StoredSample, ModelRequest>> in_flight;
  std::vector<ModelResult> done;
  bool interrupted = false;
  for (;;) {
    interrupted = loop.Stopped();
    while (!interrupted && client->CanStartMore()) {
      ASSIGN_OR_RETURN(std::optional<StoredSample> next, loop.Next());
      if (!next) break;
      ModelRequest req = loop.RequestFor(*next);
      ASSIGN_OR_RETURN(std::optional<StoredResponse> hit, loop.FromCache(req));
      if (hit) {
        ++loop.stats().cached;
        RETURN_IF_ERROR(loop.Handle(*next, *hit, nullptr));
        continue;
      }
      if (Status s = client->Start(req); !s.ok()) {
        // The request cannot be expressed: an error result of its own, not a stop.
        StoredResponse failed;
        failed.error = s.message();
        failed.finish = "unknown";
        RETURN_IF_ERROR(loop.Handle(*next, failed, nullptr));
        continue;
      }
      in_flight.emplace(req.id, std::make_pair(std::move(*next), std::move(req)));
    }
    if (in_flight.empty() && (interrupted || loop.Drained())) break;
    if (interrupted) break;  // in-flight requests are dropped: asked again next time
    done.clear();
    client->WaitForAny(&done, std::chrono::milliseconds(100));
    for (const ModelResult& result : done) {
      auto it = in_flight.find(result.id);
      if (it == in_flight.end()) {
        return Status::Internal(fmt::format("the model client returned unknown request {}", result.id));
      }
      ++loop.stats().sent;
      RETURN_IF_ERROR(loop.Handle(it->second.first, ToStoredResponse(result), &it->second.second));
      in_flight.erase(it);
    }
    RETURN_IF_ERROR(loop.MaybeCommit(false));
    loop.Report();
  }
  RETURN_IF_ERROR(loop.MaybeCommit(true));
  return loop.Finish(interrupted);
}

StatusOr<RunnerStats> Runner::RunBuiltin(std::string_view name, Progress* progress) {
  Loop loop(this, progress);
  RETURN_IF_ERROR(loop.Init());
  bool interrupted = false;
  for (;;) {
    if ((interrupted = loop.Stopped())) break;
    ASSIGN_OR_RETURN(std::optional<StoredSample> next, loop.Next());
    if (!next) break;
    StoredResponse response;
    auto answer = BuiltinRespond(name, next->sample);
    if (answer.ok()) {
      response.ok = true;
      response.text = std::move(answer).value();
      response.finish = "stop";
    } else {
      response.error = answer.status().message();
      response.finish = "unknown";
    }
    response.attempts = 1;
    ++loop.stats().sent;
    RETURN_IF_ERROR(loop.Handle(*next, response, nullptr));
    RETURN_IF_ERROR(loop.MaybeCommit(false));
    loop.Report();
  }
  RETURN_IF_ERROR(loop.MaybeCommit(true));
  return loop.Finish(interrupted);
}

StatusOr<Tally> Runner::ScoreAndTally() {
  const std::string_view rules = RuleSetName(options_.rules);
  for (int64_t after = -1;;) {
    ASSIGN_OR_RETURN(std::vector<RunRow> rows, store_->Unscored(rules, after, kFetch));
    if (rows.empty()) break;
    RETURN_IF_ERROR(store_->Begin());
    for (const RunRow& row : rows) {
      RETURN_IF_ERROR(store_->PutVerdict(
          row.index, rules, Score(row.sample, row.response->text, options_.rules, env_)));
      after = row.index;
    }
    RETURN_IF_ERROR(store_->Commit());
  }
  Tally tally;
  RETURN_IF_ERROR(store_->ForEach(rules, [&](const RunRow& row) {
    if (!row.response) return Status::Ok();  // not asked yet
    if (!row.response->ok || !row.verdict || !row.verdict->error.empty()) {
      tally.AddError(row.sample);
      return Status::Ok();
    }
    Verdict v;
    v.pass = row.verdict->pass;
    v.reason = row.verdict->reason;
    v.rules = rules;
    v.rules_version = row.verdict->rules_version;
    v.format = row.verdict->format;
    v.accuracy = row.verdict->accuracy;
    tally.Add(row.sample, v);
    return Status::Ok();
  }));
  return tally;
}

}  // namespace structtest
