#include "runner/runner.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/jsonl.h"
#include "core/mutex.h"
#include "core/status_macros.h"
#include "core/record_io.h"
#include "report/run_report.h"
#include "tasks/registry.h"
#include "tasks/responders.h"
#include "tasks/score_stage.h"
#include "tasks/scorer.h"

namespace structtest {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kFetch = 512;  // samples read from the store at a time
// Results waiting for the store thread before the network thread stops starting more.
constexpr size_t kMaxBacklog = 512;

StoredVerdict ToStoredVerdict(const StatusOr<Verdict>& verdict) {
  StoredVerdict out;
  if (!verdict.ok()) {
    out.error = verdict.status().message();
    return out;
  }
  out.pass = verdict->pass;
  out.reason = verdict->reason;
  out.rules_version = std::string(verdict->rules_version);
  out.format = verdict->format;
  out.accuracy = verdict->accuracy;
  out.checks = verdict->checks;
  return out;
}

StoredVerdict Score(const Sample& sample, const std::string& text, RuleSet rules,
                    const CheckEnv& env) {
  return ToStoredVerdict(ScoreResponse(sample, text, rules, env));
}

// The number of slot {index, repeat} in a run of `repeats` repeats: its position in
// slot order, which is the sample's index when the run asks each sample once. It tags
// the slot's request and its record in the score stage.
int64_t SlotNumber(Slot slot, int64_t repeats) { return slot.index * repeats + slot.repeat; }
Slot SlotOfNumber(int64_t number, int64_t repeats) {
  return Slot{number / repeats, number % repeats};
}

// A record for the score stage: the sample and the text of its answer, tagged with
// its slot's number.
ScoreItem ItemFor(int64_t slot_number, Sample sample, std::string text, const CheckEnv& env) {
  ScoreItem item;
  item.record.sample = std::move(sample);
  item.record.response.text = std::move(text);
  item.env = env;
  item.tag = slot_number;
  return item;
}

// What a run has spent: the store's figures, then each result as it comes back.
struct Spend {
  int64_t input = 0;
  int64_t output = 0;
  int64_t with_usage = 0;  // answers that reported some usage
};

// Whether starting `next`, with `in_flight` requests under way, keeps the run within
// `b` (runner.h).
bool WithinBudget(const Budget& b, const std::optional<Price>& price, const Spend& spent,
                  size_t in_flight, const ModelRequest& next) {
  double each_in = 0, each_out = 0;
  if (spent.with_usage > 0) {
    each_in = static_cast<double>(spent.input) / spent.with_usage;
    each_out = static_cast<double>(spent.output) / spent.with_usage;
  } else {
    int64_t chars = 0;
    for (const Message& m : next.messages) chars += static_cast<int64_t>(m.content.size());
    each_in = static_cast<double>((chars + 3) / 4);
  }
  const double n = static_cast<double>(in_flight + 1);
  const double input = spent.input + n * each_in;
  const double output = spent.output + n * each_out;
  if (b.max_tokens_total && input + output > static_cast<double>(*b.max_tokens_total)) return false;
  if (b.max_cost && price &&
      (input * price->input_per_mtok + output * price->output_per_mtok) / 1e6 > *b.max_cost) {
    return false;
  }
  return true;
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
  s.served_model = r.served_model;
  s.input_tokens = r.usage.input;
  s.output_tokens = r.usage.output;
  s.reasoning_tokens = r.usage.reasoning;
  s.latency_ms = r.latency.count();
  s.http_status = r.http_status;
  s.attempts = r.attempts;
  return s;
}

ModelRequest RequestFor(const RequestTemplate& t, const StoredSample& s, uint64_t id) {
  ModelRequest req = t.every;
  req.id = id;
  req.messages = s.sample.messages;
  return req;
}

std::string Runner::CacheKey(std::string_view endpoint, const ModelRequest& request,
                             const std::vector<std::string>& header_names, int64_t repeat) {
  // Written directly: building and dumping an nlohmann value of the whole prompt took
  // longer. A request without controls has the key it had before they existed, and
  // repeat 0 the key it had before repeats.
  const nlohmann::json controls = ControlsJson(request.controls, header_names);
  std::string key = "{";
  if (!controls.empty()) {
    key += "\"controls\":";
    key += controls.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    key += ',';
  }
  key += "\"endpoint\":";
  bool ok = AppendJsonString(endpoint, &key);
  key += fmt::format(",\"max_tokens\":{},\"messages\":", request.max_tokens);
  ok = ok && AppendMessagesJson(request.messages, &key);
  key += ",\"model\":";
  ok = ok && AppendJsonString(request.model, &key);
  if (repeat > 0) key += fmt::format(",\"repeat\":{}", repeat);
  if (request.temperature) key += ",\"temperature\":" + nlohmann::json(*request.temperature).dump();
  key += '}';
  if (ok) return key;
  // Invalid UTF-8 somewhere: nlohmann's replacement (U+FFFD).
  nlohmann::json messages = nlohmann::json::array();
  for (const Message& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  nlohmann::json j = {{"endpoint", endpoint},
                      {"model", request.model},
                      {"messages", std::move(messages)},
                      {"max_tokens", request.max_tokens}};
  if (request.temperature) j["temperature"] = *request.temperature;
  if (!controls.empty()) j["controls"] = controls;
  if (repeat > 0) j["repeat"] = repeat;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One Run(): the queue of samples still to ask, the requests in flight, the open batch.
class Runner::Loop {
 public:
  Loop(Runner* runner, Progress* progress)
      : r_(*runner),
        progress_(progress),
        batch_results_(runner->options_.max_uncommitted > 0
                           ? std::clamp(runner->options_.max_uncommitted / 2, 1,
                                        runner->options_.batch_results)
                           : runner->options_.batch_results),
        // The code subtasks' verdicts are stored as they come back from the stage's
        // threads, in whatever batch is open then: a response committed without its
        // verdict (a kill in between) is scored by ScoreAndTally, like any other.
        stage_(runner->options_.scoring.rules, runner->score_jobs(), [this](ScoreItem& item) {
          RETURN_IF_ERROR(OpenBatch());
          const Slot slot = SlotOfNumber(item.tag, r_.store_->repeats());
          return r_.store_->PutVerdict(slot.index, RuleSetName(r_.options_.scoring.rules),
                                       ToStoredVerdict(item.verdict), slot.repeat);
        }) {}

  Status Init() {
    ASSIGN_OR_RETURN(RunCounts counts, r_.store_->Counts());
    counts_.total = counts.slots;
    counts_.done = counts.answered;
    initial_ = counts;
    return Status::Ok();
  }

  // The -j auto limit now, for the progress line.
  void ReadLimit() {
    if (r_.options_.concurrency_limit) counts_.concurrency_limit = r_.options_.concurrency_limit();
  }

  // The store's counts when Init() read them.
  const RunCounts& initial() const { return initial_; }

  // The next sample to ask, or nullopt when there is none left.
  StatusOr<std::optional<StoredSample>> Next() {
    if (queue_.empty() && !exhausted_) {
      ASSIGN_OR_RETURN(std::vector<StoredSample> batch, r_.store_->PendingSamples(after_, kFetch));
      if (batch.empty()) exhausted_ = true;
      // The cursor only moves forward, so a sample answered (or failed) in this
      // session is never fetched again, committed or not.
      for (StoredSample& s : batch) {
        after_ = s.slot();
        queue_.push_back(std::move(s));
      }
    }
    if (queue_.empty()) return std::optional<StoredSample>();
    std::optional<StoredSample> s(std::move(queue_.front()));
    queue_.pop_front();
    return s;
  }

  ModelRequest RequestOf(const StoredSample& s) const {
    return RequestFor(r_.options_.request, s,
                      static_cast<uint64_t>(SlotNumber(s.slot(), r_.store_->repeats())));
  }

  // The cached answer to `req`, the request of `s`, if any.
  StatusOr<std::optional<StoredResponse>> FromCache(const StoredSample& s, const ModelRequest& req) {
    if (r_.cache_ == nullptr) return std::optional<StoredResponse>();
    return r_.cache_->Get(CacheKey(r_.options_.request.endpoint, req, r_.options_.request.header_names, s.repeat));
  }

  // Stores (and scores) the response to sample `s`.
  Status Handle(const StoredSample& s, const StoredResponse& response,
                const ModelRequest* cache_as) {
    RETURN_IF_ERROR(OpenBatch());
    RETURN_IF_ERROR(r_.store_->PutResponse(s.index, response, s.repeat));
    ++pending_results_;
    if (!response.cached) ++counts_.requests;
    if (!response.ok) {
      ++counts_.errors;
      ++stats_.errored;
      return Status::Ok();
    }
    if (!response.cached) counts_.output_tokens += response.output_tokens;
    stats_.output_tokens += response.output_tokens;
    ++stats_.answered;
    ++counts_.done;
    if (stage_.Offloads(s.sample)) {
      // Scored on the stage's threads and stored when it is done (see stage_).
      ScoreItem item =
          ItemFor(SlotNumber(s.slot(), r_.store_->repeats()), s.sample, response.text, r_.env_);
      RETURN_IF_ERROR(stage_.Add(&item));
    } else {
      const StoredVerdict verdict = Score(s.sample, response.text, r_.options_.scoring.rules, r_.env_);
      RETURN_IF_ERROR(
          r_.store_->PutVerdict(s.index, RuleSetName(r_.options_.scoring.rules), verdict, s.repeat));
    }
    if (cache_as != nullptr && r_.cache_ != nullptr && !response.cached) {
      RETURN_IF_ERROR(r_.cache_->Put(
          CacheKey(r_.options_.request.endpoint, *cache_as, r_.options_.request.header_names,
                   s.repeat), response));
    }
    return Status::Ok();
  }

  // Commits the open batch when it is big or old enough (always when `force`).
  // With `force`, waits for the verdicts still being scored first, so that none is
  // left out of the last batch.
  Status MaybeCommit(bool force) {
    RETURN_IF_ERROR(force ? stage_.Finish() : stage_.Poll());
    if (!batch_open_) return Status::Ok();
    if (!force && pending_results_ < batch_results_ &&
        Clock::now() - batch_started_ < r_.options_.batch_interval) {
      return Status::Ok();
    }
    RETURN_IF_ERROR(r_.store_->Commit());
    if (r_.cache_ != nullptr) RETURN_IF_ERROR(r_.cache_->Commit());
    batch_open_ = false;
    pending_results_ = 0;
    return Status::Ok();
  }

  // Thread-safe.
  bool Stopped() const {
    return r_.options_.stop != nullptr && r_.options_.stop->load(std::memory_order_relaxed);
  }

  void Report() {
    if (progress_ == nullptr) return;
    ReadLimit();
    progress_->Update(counts_);
  }

  RunnerStats Finish(bool interrupted) {
    if (progress_ != nullptr) {
      ReadLimit();
      progress_->Finish(counts_);
    }
    stats_.interrupted = interrupted;
    stats_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    return stats_;
  }

  RunnerStats& stats() { return stats_; }
  bool batch_open() const { return batch_open_; }

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
  const int batch_results_;
  std::deque<StoredSample> queue_;
  Slot after_ = kBeforeFirstSlot;
  bool exhausted_ = false;
  bool batch_open_ = false;
  int pending_results_ = 0;
  Clock::time_point batch_started_;
  Clock::time_point start_ = Clock::now();
  ProgressCounts counts_;
  RunCounts initial_;
  RunnerStats stats_;
  // Last member: its threads stop before the rest of the loop goes away.
  ScoreStage stage_;
};

Runner::Runner(RunStore* store, ResponseCache* cache, const CheckEnv& env, RunnerOptions options)
    : store_(store), cache_(cache), env_(env), options_(std::move(options)) {}

namespace {

// A sample on its way to the model, and what came back.
struct Flight {
  StoredSample sample;
  ModelRequest request;
};
struct Landed {
  Flight flight;
  StoredResponse response;
};

// What the network thread and the store thread of Run() share.
struct Exchange {
  Mutex mu;
  CondVar wake_net;    // ready samples, exhaustion or a store failure
  CondVar wake_store;  // results, room in `ready`, or the end
  std::deque<Flight> ready GUARDED_BY(mu);     // store -> network
  bool exhausted GUARDED_BY(mu) = false;       // no sample left to fetch
  std::vector<Landed> landed GUARDED_BY(mu);   // network -> store
  bool net_done GUARDED_BY(mu) = false;        // no more results will come
  // Results put in `landed` and not yet committed by the store thread.
  size_t uncommitted GUARDED_BY(mu) = 0;
  bool store_failed GUARDED_BY(mu) = false;
};

}  // namespace

// Two threads: this one drives the client (start, wait, collect) and does nothing
// else, so the transfers in flight never wait for a disk write or a slow checker (a
// code sample's sandboxed run takes milliseconds); the store thread fetches pending
// samples (answering cache hits itself), scores and stores results, and commits.
StatusOr<RunnerStats> Runner::Run(ModelClient* client, Progress* progress) {
  Loop loop(this, progress);
  RETURN_IF_ERROR(DropOtherVersions());
  RETURN_IF_ERROR(loop.Init());
  Exchange x;
  // Enough samples ready that the client never waits for the store thread.
  const size_t low_water = 2 * kFetch;
  Status store_status;
  std::thread store_thread([&] {
    auto fail = [&](Status s) {
      MutexLock lock(&x.mu);
      store_status = std::move(s);
      x.store_failed = true;
      x.wake_net.SignalAll();
    };
    std::vector<Landed> landed;
    size_t handled = 0;  // results from `x.landed` in the open batch
    for (;;) {
      bool fetch = false, last = false;
      {
        MutexLock lock(&x.mu);
        const auto deadline = std::chrono::steady_clock::now() + options_.batch_interval;
        while (x.landed.empty() && !x.net_done && (x.exhausted || x.ready.size() >= low_water) &&
               x.wake_store.WaitUntil(&x.mu, deadline)) {
        }
        landed.swap(x.landed);
        x.wake_net.SignalAll();  // room in the backlog
        fetch = !x.exhausted && !x.net_done && x.ready.size() < low_water;
        last = x.net_done;
      }
      for (Landed& l : landed) {
        if (Status s = loop.Handle(l.flight.sample, l.response, &l.flight.request); !s.ok()) {
          return fail(s);
        }
      }
      handled += landed.size();
      landed.clear();
      while (fetch) {
        auto next = loop.Next();
        if (!next.ok()) return fail(next.status());
        if (!next->has_value()) {
          MutexLock lock(&x.mu);
          x.exhausted = true;
          x.wake_net.SignalAll();
          break;
        }
        ModelRequest req = loop.RequestOf(**next);
        auto hit = loop.FromCache(**next, req);
        if (!hit.ok()) return fail(hit.status());
        if (*hit) {
          ++loop.stats().cached;
          if (Status s = loop.Handle(**next, **hit, nullptr); !s.ok()) return fail(s);
          continue;
        }
        MutexLock lock(&x.mu);
        x.ready.push_back(Flight{std::move(**next), std::move(req)});
        x.wake_net.SignalAll();
        fetch = x.ready.size() < low_water && !x.net_done;
      }
      if (Status s = loop.MaybeCommit(last); !s.ok()) return fail(s);
      if (handled > 0 && !loop.batch_open()) {
        MutexLock lock(&x.mu);
        x.uncommitted -= handled;
        handled = 0;
        x.wake_net.SignalAll();  // room under max_uncommitted
      }
      loop.Report();
      if (last) {
        MutexLock lock(&x.mu);
        if (x.landed.empty()) return;
      }
    }
  });

  std::unordered_map<uint64_t, Flight> in_flight;
  // Whether another request may start under max_uncommitted, with x.uncommitted results
  // not committed yet.
  const size_t max_uncommitted = static_cast<size_t>(std::max(0, options_.max_uncommitted));
  const auto room = [&](size_t uncommitted) {
    return max_uncommitted == 0 || in_flight.size() + uncommitted < max_uncommitted;
  };
  std::vector<ModelResult> done;
  std::vector<Landed> landed;
  bool interrupted = false;
  bool budget_reached = false;
  const Budget& budget = options_.budget;
  Spend spent{loop.initial().spent_input_tokens, loop.initial().spent_output_tokens,
              loop.initial().paid_with_usage};
  int64_t no_usage = 0;
  int64_t sent = 0;
  // Errors before the first answer: kGiveUpAfter of them stop the run.
  bool any_answer = false;
  int leading_errors = 0;
  std::string gave_up;
  for (;;) {
    interrupted = loop.Stopped() || !gave_up.empty();
    bool finished = false;
    {
      MutexLock lock(&x.mu);
      if (x.store_failed) break;
      // Nothing in flight and nothing to start (none ready, or too many results
      // waiting to be stored): wait for the store thread.
      if (in_flight.empty() && !interrupted && !budget_reached) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
        while (!x.store_failed && !(x.landed.size() < kMaxBacklog && room(x.uncommitted) &&
                                    (!x.ready.empty() || x.exhausted)) &&
               x.wake_net.WaitUntil(&x.mu, deadline)) {
        }
        if (x.store_failed) break;
      }
      // Results the store thread has not taken yet hold their answers in memory: past
      // a bound, wait for it rather than start more.
      const bool backlog = x.landed.size() >= kMaxBacklog;
      while (!interrupted && !budget_reached && !backlog && room(x.uncommitted) &&
             client->CanStartMore() &&
             !x.ready.empty()) {
        if (LimitsSpending(budget) && !WithinBudget(budget, options_.price, spent, in_flight.size(), x.ready.front().request)) {
          budget_reached = true;
          break;
        }
        Flight f = std::move(x.ready.front());
        x.ready.pop_front();
        if (Status s = client->Start(f.request); !s.ok()) {
          // The request cannot be expressed: an error result of its own, not a stop.
          StoredResponse failed;
          failed.error = s.message();
          failed.finish = "unknown";
          x.landed.push_back(Landed{std::move(f), std::move(failed)});
          ++x.uncommitted;
          continue;
        }
        const uint64_t id = f.request.id;
        in_flight.emplace(id, std::move(f));
      }
      if (x.ready.size() < low_water || !x.landed.empty()) x.wake_store.Signal();
      finished = in_flight.empty() &&
                 (interrupted || budget_reached || (x.ready.empty() && x.exhausted));
    }
    // Interrupted: requests still in flight are dropped, to be asked again next time.
    if (finished || interrupted) break;
    if (in_flight.empty()) continue;
    done.clear();
    client->WaitForAny(&done, std::chrono::milliseconds(100));
    for (ModelResult& result : done) {
      auto it = in_flight.find(result.id);
      if (it == in_flight.end()) {
        MutexLock lock(&x.mu);
        store_status = Status::Internal(
            fmt::format("the model client returned unknown request {}", result.id));
        x.store_failed = true;
        break;
      }
      ++sent;
      StoredResponse response = ToStoredResponse(result);
      spent.input += response.input_tokens;
      spent.output += response.output_tokens;
      if (response.ok && response.input_tokens + response.output_tokens > 0) {
        ++spent.with_usage;
      } else if (response.ok) {
        ++no_usage;
      }
      if (response.ok) {
        any_answer = true;
      } else if (!any_answer && ++leading_errors == kGiveUpAfter) {
        gave_up = response.error;
      }
      landed.push_back(Landed{std::move(it->second), std::move(response)});
      in_flight.erase(it);
    }
    if (!landed.empty()) {
      MutexLock lock(&x.mu);
      for (Landed& l : landed) x.landed.push_back(std::move(l));
      x.uncommitted += landed.size();
      x.wake_store.Signal();
    }
    landed.clear();
  }
  {
    MutexLock lock(&x.mu);
    x.net_done = true;
    x.wake_store.Signal();
  }
  store_thread.join();
  RETURN_IF_ERROR(store_status);
  loop.stats().sent += sent;
  loop.stats().gave_up = std::move(gave_up);
  loop.stats().budget_reached = budget_reached;
  loop.stats().spent_input_tokens = spent.input;
  loop.stats().spent_output_tokens = spent.output;
  loop.stats().no_usage = no_usage;
  return loop.Finish(interrupted);
}

StatusOr<RunnerStats> Runner::RunBuiltin(std::string_view name, Progress* progress) {
  Loop loop(this, progress);
  RETURN_IF_ERROR(DropOtherVersions());
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

Status Runner::DropOtherVersions() {
  if (other_versions_dropped_) return Status::Ok();
  const std::string_view rules = RuleSetName(options_.scoring.rules);
  RETURN_IF_ERROR(store_->Begin());
  for (const TaskFamily* f : Families()) {
    auto dropped = store_->DropVerdictsNotOf(rules, f->domain, f->version(options_.scoring.rules));
    if (!dropped.ok()) {
      (void)store_->Commit();
      return dropped.status();
    }
  }
  RETURN_IF_ERROR(store_->Commit());
  other_versions_dropped_ = true;
  return Status::Ok();
}

Status Runner::ScoreUnscored() {
  const std::string_view rules = RuleSetName(options_.scoring.rules);
  // Verdicts of another checker version and failed scorings are scored again.
  RETURN_IF_ERROR(DropOtherVersions());
  RETURN_IF_ERROR(store_->Begin());
  if (Status s = store_->DropFailedVerdicts(rules).status(); !s.ok()) {
    (void)store_->Commit();
    return s;
  }
  RETURN_IF_ERROR(store_->Commit());
  // Every stored answer is of one of the run's repeats (a resume with another count is
  // refused); one past them is a store written by hand, refused rather than misnumbered.
  const int64_t repeats = store_->repeats();
  ScoreStage stage(options_.scoring.rules, score_jobs(), [&](ScoreItem& item) {
    const Slot slot = SlotOfNumber(item.tag, repeats);
    return store_->PutVerdict(slot.index, rules, ToStoredVerdict(item.verdict), slot.repeat);
  });
  for (Slot after = kBeforeFirstSlot;;) {
    ASSIGN_OR_RETURN(std::vector<RunRow> rows, store_->Unscored(rules, after, kFetch));
    if (rows.empty()) break;
    RETURN_IF_ERROR(store_->Begin());
    for (RunRow& row : rows) {
      after = Slot{row.index, row.repeat};
      if (row.repeat >= repeats) {
        (void)store_->Commit();
        return Status::Internal(fmt::format("{}: sample {} has an answer of repeat {}, past the "
                                            "run's {} repeat(s)",
                                            store_->dir(), row.index, row.repeat, repeats));
      }
      // The stage scores the code rows on its threads, the others here and at once.
      ScoreItem item = ItemFor(SlotNumber(after, repeats), std::move(row.sample),
                               std::move(row.response->text), env_);
      RETURN_IF_ERROR(stage.Add(&item));
    }
    // This batch's verdicts are all in it.
    RETURN_IF_ERROR(stage.Finish());
    RETURN_IF_ERROR(store_->Commit());
  }
  return Status::Ok();
}

StatusOr<Tally> Runner::ScoreAndTally() {
  RETURN_IF_ERROR(ScoreUnscored());
  return TallyRun(*store_, options_.scoring.rules);
}

}  // namespace structtest
