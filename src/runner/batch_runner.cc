#include "runner/batch_runner.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/file_util.h"
#include "core/record_io.h"
#include "report/cost.h"

namespace structtest {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kPendingPage = 512;  // samples read from the store at a time
// Submissions of one batch whose outcome stays unknown (each followed by a look-up)
// before RunBatches gives up on it for now.
constexpr int kSubmitAttempts = 4;

int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The request of `s` (its id is not sent: a batch entry's id is its custom id).
ModelRequest RequestOf(const BatchRunOptions& o, const StoredSample& s) {
  return RequestFor(o.request, s, static_cast<uint64_t>(s.index));
}

// Calls `fn` for every pending sample (in no open batch when `outside_open`).
Status ForEachPending(RunStore* store, bool outside_open,
                      const std::function<Status(const StoredSample&)>& fn) {
  for (Slot after = kBeforeFirstSlot;;) {
    ASSIGN_OR_RETURN(std::vector<StoredSample> page, store->PendingSamples(after, kPendingPage, outside_open));
    if (page.empty()) return Status::Ok();
    for (const StoredSample& s : page) {
      after = s.slot();
      RETURN_IF_ERROR(fn(s));
    }
  }
}

// A name for a new batch, unique in the run and, by its time and random part, among
// the provider's batches of the same account.
std::string NewKey() {
  std::random_device rd;
  return fmt::format("structtest-{}-{:08x}", NowMs(), rd());
}

// The provider's limits, with options.batch_size.
BatchLimits LimitsFor(Provider provider, const BatchRunOptions& o) {
  BatchLimits limits = BatchLimitsOf(provider);
  if (o.batch_size > 0 && (limits.max_requests == 0 || o.batch_size < limits.max_requests)) {
    limits.max_requests = o.batch_size;
  }
  return limits;
}

bool Stopped(const BatchRunOptions& o) { return o.stop != nullptr && o.stop->load(); }

// Sleeps `wait`, waking early when stopped.
void Sleep(const BatchRunOptions& o, milliseconds wait) {
  const Clock::time_point end = Clock::now() + wait;
  while (!Stopped(o)) {
    const Clock::time_point now = Clock::now();
    if (now >= end) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(end - now, milliseconds(50)));
  }
}

// One request ready to go into a batch.
struct Pending {
  Slot slot;
  BatchEntry entry;
  int64_t prompt_chars = 0;
};

class Driver {
 public:
  Driver(RunStore* store, ResponseCache* cache, BatchApi* api, const BatchRunOptions& options)
      : store_(store), cache_(cache), api_(api), o_(options),
        provider_(ProviderName(api->provider())) {}

  StatusOr<BatchRunStats> Run() {
    RETURN_IF_ERROR(ResolveUnconfirmed());
    milliseconds interval = o_.poll_initial;
    int poll_failures = 0;
    bool first_round = true;
    for (;;) {
      if (Stopped(o_)) {
        stats_.interrupted = true;
        break;
      }
      const int64_t submitted_before = stats_.submitted;
      if (!stats_.budget_reached && (first_round || !o_.no_resubmit)) RETURN_IF_ERROR(SubmitPending());
      first_round = false;
      // A batch just submitted is not done yet: its first poll waits an interval.
      if (stats_.submitted > submitted_before) Sleep(o_, interval);
      if (Stopped(o_)) {
        stats_.interrupted = true;
        break;
      }
      ASSIGN_OR_RETURN(std::vector<ProviderBatch> open, Open("submitted"));
      if (open.empty()) break;
      bool changed = false;
      bool failed_poll = false;
      for (ProviderBatch& b : open) {
        if (Stopped(o_)) break;
        StatusOr<bool> polled = Poll(b);
        if (!polled.ok()) {
          if (polled.status().code() != StatusCode::kUnavailable) return polled.status();
          Note(fmt::format("batch {} ({}): {}; polled again later", b.seq, b.batch_id,
                           polled.status().message()));
          failed_poll = true;
          continue;
        }
        changed = changed || *polled;
      }
      if (failed_poll) {
        if (++poll_failures >= o_.max_poll_failures) {
          ASSIGN_OR_RETURN(std::vector<ProviderBatch> left, Open("submitted"));
          stats_.open = static_cast<int64_t>(left.size());
          return Status::Unavailable(fmt::format(
              "{} batch: {} polls in a row failed; {} batch(es) are still at the provider and "
              "stored in the run: run the same command again to collect them",
              provider_, poll_failures, left.size()));
        }
      } else {
        poll_failures = 0;
      }
      ASSIGN_OR_RETURN(std::vector<ProviderBatch> still, Open("submitted"));
      if (still.empty() && !changed) continue;  // submit what failed, or end
      if (changed) {
        interval = o_.poll_initial;
        if (still.empty()) continue;
      }
      Sleep(o_, interval);
      interval = std::min(o_.poll_max, interval * 2);
    }
    ASSIGN_OR_RETURN(std::vector<ProviderBatch> left, Open("submitted"));
    stats_.open = static_cast<int64_t>(left.size());
    return stats_;
  }

 private:
  void Note(const std::string& line) {
    if (o_.note) o_.note(line);
  }

  // The run's batches of this provider in `state`.
  StatusOr<std::vector<ProviderBatch>> Open(std::string_view state) {
    ASSIGN_OR_RETURN(std::vector<ProviderBatch> all, store_->ProviderBatches(state));
    std::erase_if(all, [&](const ProviderBatch& b) { return b.provider != provider_; });
    return all;
  }

  StatusOr<std::vector<std::string>> KnownIds() {
    ASSIGN_OR_RETURN(std::vector<ProviderBatch> all, store_->ProviderBatches());
    std::vector<std::string> ids;
    for (const ProviderBatch& b : all) {
      if (!b.batch_id.empty()) ids.push_back(b.batch_id);
    }
    return ids;
  }

  Status Update(const ProviderBatch& b) {
    RETURN_IF_ERROR(store_->Begin());
    if (Status s = store_->UpdateProviderBatch(b); !s.ok()) {
      (void)store_->Commit();
      return s;
    }
    return store_->Commit();
  }

  // Batches an earlier process wrote and may have submitted without storing the id
  // (killed between the two, or the submission's answer was lost): looked up by name.
  // One the provider does not have was never submitted: its samples are pending again.
  Status ResolveUnconfirmed() {
    ASSIGN_OR_RETURN(std::vector<ProviderBatch> unconfirmed, Open("submitting"));
    for (ProviderBatch& b : unconfirmed) {
      ASSIGN_OR_RETURN(const std::vector<std::string> known, KnownIds());
      ASSIGN_OR_RETURN(const std::optional<std::string> id,
                       api_->FindByKey(b.key, b.requests, b.created_ms, known));
      if (id) {
        b.batch_id = *id;
        b.state = "submitted";
        b.provider_state = "submitted";
        RETURN_IF_ERROR(Update(b));
        ++stats_.found;
        Note(fmt::format("batch {} ({}, {} requests): submitted by an earlier run, found at the "
                         "provider; polling it",
                         b.seq, b.batch_id, b.requests));
      } else {
        b.state = "failed";
        b.detail = "not found at the provider: never submitted";
        RETURN_IF_ERROR(Update(b));
        Note(fmt::format("batch {} ({} requests): never reached the provider; its samples are "
                         "submitted again",
                         b.seq, b.requests));
      }
    }
    return Status::Ok();
  }

  // The estimated tokens of a request of `prompt_chars`, (input, output).
  std::pair<double, double> Estimate(const RunCounts& c, int64_t prompt_chars) const {
    if (c.paid_with_usage > 0) {
      return {static_cast<double>(c.spent_input_tokens) / c.paid_with_usage,
              static_cast<double>(c.spent_output_tokens) / c.paid_with_usage};
    }
    return {static_cast<double>(EstimateTokens(prompt_chars)), static_cast<double>(o_.request.every.max_tokens)};
  }

  // Submits every pending sample in no open batch (cache hits are stored at once).
  Status SubmitPending() {
    std::vector<Pending> pending;
    int64_t cached = 0;
    bool cache_open = false;
    Status walked = ForEachPending(store_, true, [&](const StoredSample& s) -> Status {
      if (submissions_[s.slot()] >= o_.max_submissions || given_up_.contains(s.slot())) {
        return Status::Ok();
      }
      const ModelRequest req = RequestOf(o_, s);
      if (cache_ != nullptr) {
        ASSIGN_OR_RETURN(std::optional<StoredResponse> hit,
                         cache_->Get(Runner::CacheKey(o_.request.endpoint, req, o_.request.header_names, s.repeat)));
        if (hit) {
          if (!cache_open) {
            RETURN_IF_ERROR(store_->Begin());
            cache_open = true;
          }
          RETURN_IF_ERROR(store_->PutResponse(s.index, *hit, s.repeat));
          ++cached;
          return Status::Ok();
        }
      }
      StatusOr<BatchEntry> entry = MakeBatchEntry(api_->provider(), s.index, req, s.repeat);
      if (!entry.ok()) {
        // A request the provider cannot express: an error of its own, as online.
        given_up_.insert(s.slot());
        StoredResponse failed;
        failed.error = entry.status().message();
        failed.finish = "unknown";
        if (!cache_open) {
          RETURN_IF_ERROR(store_->Begin());
          cache_open = true;
        }
        ++stats_.errored;
        return store_->PutResponse(s.index, failed, s.repeat);
      }
      Pending p;
      p.slot = s.slot();
      p.entry = *std::move(entry);
      for (const Message& m : req.messages) p.prompt_chars += static_cast<int64_t>(m.content.size());
      p.prompt_chars += static_cast<int64_t>(req.controls.system.size());
      pending.push_back(std::move(p));
      return Status::Ok();
    });
    if (cache_open) {
      const Status committed = store_->Commit();
      if (walked.ok()) walked = committed;
    }
    RETURN_IF_ERROR(walked);
    stats_.cached += cached;
    if (pending.empty()) return Status::Ok();
    if (LimitsSpending(o_.budget)) RETURN_IF_ERROR(KeepWithinBudget(&pending));
    std::vector<size_t> sizes;
    for (const Pending& p : pending) sizes.push_back(p.entry.json.size());
    size_t start = 0;
    for (size_t n : SplitIntoBatches(sizes, LimitsFor(api_->provider(), o_))) {
      if (Stopped(o_)) return Status::Ok();
      RETURN_IF_ERROR(SubmitOne(std::vector<Pending>(pending.begin() + static_cast<ptrdiff_t>(start),
                                                     pending.begin() + static_cast<ptrdiff_t>(start + n))));
      start += n;
    }
    return Status::Ok();
  }

  // Drops the pending requests past what the budget allows (and says so).
  Status KeepWithinBudget(std::vector<Pending>* pending) {
    ASSIGN_OR_RETURN(const RunCounts c, store_->Counts());
    const Budget& b = o_.budget;
    // No price: every token free, as the online runner counts it.
    const double in_usd = o_.price ? o_.price->input_per_mtok : 0;
    const double out_usd = o_.price ? o_.price->output_per_mtok : 0;
    const double online_usd =
        ((c.spent_input_tokens - c.spent_batch_input_tokens) * in_usd +
         (c.spent_output_tokens - c.spent_batch_output_tokens) * out_usd) / 1e6;
    const double batch_usd = kBatchPriceShare *
                             (c.spent_batch_input_tokens * in_usd +
                              c.spent_batch_output_tokens * out_usd) / 1e6;
    double usd = online_usd + batch_usd;
    double tokens = static_cast<double>(c.spent_input_tokens + c.spent_output_tokens);
    const auto add = [&](int64_t prompt_chars) {
      const auto [in, out] = Estimate(c, prompt_chars);
      tokens += in + out;
      usd += kBatchPriceShare * (in * in_usd + out * out_usd) / 1e6;
    };
    // The requests of the batches in flight, at the estimate (their prompts unknown
    // here: at the mean prompt of the pending ones).
    ASSIGN_OR_RETURN(std::vector<ProviderBatch> open, Open("submitted"));
    int64_t mean_chars = 0;
    for (const Pending& p : *pending) mean_chars += p.prompt_chars;
    mean_chars /= static_cast<int64_t>(pending->size());
    for (const ProviderBatch& batch : open) {
      for (int64_t i = 0; i < batch.requests; ++i) add(mean_chars);
    }
    size_t keep = 0;
    for (; keep < pending->size(); ++keep) {
      add((*pending)[keep].prompt_chars);
      if ((b.max_tokens_total && tokens > static_cast<double>(*b.max_tokens_total)) ||
          (b.max_cost && usd > *b.max_cost)) {
        break;
      }
    }
    if (keep < pending->size()) {
      stats_.budget_reached = true;
      Note(fmt::format("budget: {} of {} pending request(s) fit in it; the others are not "
                       "submitted",
                       keep, pending->size()));
      pending->resize(keep);
    }
    return Status::Ok();
  }

  // Writes the batch, submits it, and stores its id the moment it is accepted.
  Status SubmitOne(const std::vector<Pending>& chunk) {
    ProviderBatch b;
    b.key = NewKey();
    b.provider = provider_;
    b.state = "submitting";
    std::vector<ProviderBatchItem> items;
    std::vector<std::string> entries;
    for (const Pending& p : chunk) {
      items.push_back(ProviderBatchItem{p.slot.index, p.entry.custom_id, p.slot.repeat});
      entries.push_back(p.entry.json);
      ++submissions_[p.slot];
    }
    RETURN_IF_ERROR(store_->Begin());
    if (Status s = store_->AddProviderBatch(&b, items); !s.ok()) {
      (void)store_->Commit();
      return s;
    }
    RETURN_IF_ERROR(store_->Commit());
    std::optional<std::string> id;
    Status last;
    milliseconds backoff = o_.poll_initial;
    for (int attempt = 0; attempt < kSubmitAttempts && !id; ++attempt) {
      if (attempt > 0) {
        Sleep(o_, backoff);
        backoff = std::min(o_.poll_max, backoff * 2);
        if (Stopped(o_)) break;
      }
      StatusOr<std::string> made = api_->Submit(b.key, o_.request.every.model, entries);
      if (made.ok()) {
        id = *made;
        break;
      }
      last = made.status();
      if (last.code() != StatusCode::kUnavailable) {
        // Refused: nothing was made. The samples stay pending; the run stops here.
        b.state = "failed";
        b.detail = last.message();
        RETURN_IF_ERROR(Update(b));
        return last;
      }
      // The provider may have taken it: look before submitting it again.
      Note(fmt::format("batch {} ({} requests): {}; looking it up by its name", b.seq,
                       b.requests, last.message()));
      ASSIGN_OR_RETURN(const std::vector<std::string> known, KnownIds());
      StatusOr<std::optional<std::string>> found = api_->FindByKey(b.key, b.requests, b.created_ms, known);
      if (found.ok() && found->has_value()) {
        id = **found;
        Note(fmt::format("batch {}: the provider had taken it ({})", b.seq, *id));
      } else if (!found.ok()) {
        last = found.status();
      }
    }
    if (!id) {
      // Left "submitting": the next run looks it up before anything else.
      return Status::Unavailable(fmt::format(
          "{}; batch {} may or may not have reached the provider: run the same command again "
          "(it looks the batch up before submitting anything)",
          last.message(), b.seq));
    }
    b.batch_id = *id;
    b.state = "submitted";
    b.provider_state = "submitted";
    RETURN_IF_ERROR(Update(b));
    ++stats_.submitted;
    Note(fmt::format("batch {} ({}): submitted, {} requests", b.seq, b.batch_id, b.requests));
    return Status::Ok();
  }

  // Polls batch `b`, and collects it when it ended. Returns whether anything changed.
  StatusOr<bool> Poll(ProviderBatch& b) {
    ASSIGN_OR_RETURN(const BatchStatus st, api_->Get(b.batch_id));
    bool changed = false;
    if (st.state != b.provider_state || st.done != b.done || st.failed != b.failed) {
      b.provider_state = st.state;
      b.done = st.done;
      b.failed = st.failed;
      changed = true;
      Note(fmt::format("batch {} ({}): {}, {} of {} answered, {} failed", b.seq, b.batch_id,
                       st.state, st.done, st.total > 0 ? st.total : b.requests, st.failed));
    }
    if (st.phase == BatchPhase::kRunning) {
      if (changed) RETURN_IF_ERROR(Update(b));
      return changed;
    }
    if (st.phase == BatchPhase::kFailed) {
      b.state = "failed";
      b.detail = st.detail.empty() ? st.state : st.detail;
      RETURN_IF_ERROR(Update(b));
      Note(fmt::format("batch {} ({}): failed ({}); its {} samples are {}", b.seq, b.batch_id,
                       b.detail, b.requests,
                       o_.no_resubmit          ? "left for the online client"
                       : stats_.budget_reached ? "not submitted again (the budget is reached)"
                                               : "submitted again"));
      return true;
    }
    RETURN_IF_ERROR(Collect(b, st));
    return true;
  }

  // Stores the results of ended batch `b` and marks it collected, in one transaction.
  Status Collect(ProviderBatch& b, const BatchStatus& st) {
    ASSIGN_OR_RETURN(const std::vector<ProviderBatchItem> items, store_->ProviderBatchItems(b.seq));
    std::unordered_map<std::string, Slot> by_id;
    for (const ProviderBatchItem& i : items) by_id.emplace(i.custom_id, Slot{i.index, i.repeat});
    // Each result names its request; one that names none is no one's answer.
    ASSIGN_OR_RETURN(const BatchResults results, api_->Results(st));
    ASSIGN_OR_RETURN(const std::vector<Slot> answered_list, store_->AnsweredOfProviderBatch(b.seq));
    const std::set<Slot> answered(answered_list.begin(), answered_list.end());
    std::set<Slot> seen;
    int64_t ok = 0, failed = 0;
    // What becomes of the failed requests, for the note: asked again, refused (not asked
    // again: the first refusal's words), or retryable but not asked again by this call.
    int64_t again = 0, refused = 0, left = 0, foreign = 0;
    std::string refusal;
    const auto classify = [&](const Slot& slot, ErrorKind error, const std::string& message) {
      if (error == ErrorKind::kFatal) given_up_.insert(slot);
      if (o_.no_resubmit) {
        ++left;  // the online client asks every unanswered sample, refused ones too
      } else if (error == ErrorKind::kFatal) {
        if (refused++ == 0) refusal = message;
      } else if (stats_.budget_reached || submissions_[slot] >= o_.max_submissions) {
        ++left;
      } else {
        ++again;
      }
    };
    std::vector<std::pair<Slot, StoredResponse>> to_cache;
    RETURN_IF_ERROR(store_->Begin());
    const auto body = [&]() -> Status {
      for (const BatchItemResult& r : results.items) {
        const auto it = by_id.find(r.custom_id);
        if (it == by_id.end() || !seen.insert(it->second).second) {
          ++stats_.foreign;
          ++foreign;
          continue;
        }
        StoredResponse response = ToStoredResponse(r.result);
        response.batch = true;
        if (!response.ok) {
          ++failed;
          // An answer stored already is kept.
          if (answered.contains(it->second)) continue;
          classify(it->second, r.result.error, response.error);
          ++stats_.errored;
        } else {
          ++ok;
          ++stats_.answered;
          if (cache_ != nullptr) to_cache.emplace_back(it->second, response);
        }
        RETURN_IF_ERROR(store_->PutResponse(it->second.index, response, it->second.repeat));
      }
      // Requests the batch said nothing of (or with no key to tell): asked again.
      const std::string unkeyed =
          results.unkeyed > 0
              ? fmt::format("; {} response(s) named no request and were not stored",
                            results.unkeyed)
              : "";
      for (const ProviderBatchItem& i : items) {
        const Slot slot{i.index, i.repeat};
        if (seen.contains(slot) || answered.contains(slot)) continue;
        ++failed;
        ++stats_.errored;
        classify(slot, ErrorKind::kRetryable, "");
        StoredResponse missing;
        missing.error = fmt::format("{} batch {}: no result that names this request ({}{})",
                                    provider_, b.batch_id, st.state, unkeyed);
        missing.finish = "unknown";
        missing.batch = true;
        RETURN_IF_ERROR(store_->PutResponse(i.index, missing, i.repeat));
      }
      b.state = "collected";
      b.provider_state = st.state;
      b.done = ok;
      b.failed = failed;
      return store_->UpdateProviderBatch(b);
    };
    if (Status s = body(); !s.ok()) {
      (void)store_->Commit();
      return s;
    }
    RETURN_IF_ERROR(store_->Commit());
    ++stats_.collected;
    std::string fate;
    if (again > 0) fate += fmt::format("; {} asked again", again);
    if (left > 0) {
      fate += fmt::format("; {} not asked again in a batch ({})", left,
                          o_.no_resubmit         ? "left for the online client"
                          : stats_.budget_reached ? "the budget is reached"
                                                  : fmt::format("submitted {} times", o_.max_submissions));
    }
    if (refused > 0) {
      fate += fmt::format("; {} refused by the provider, not asked again ({})", refused, refusal);
    }
    if (results.unkeyed > 0) {
      fate += fmt::format("; {} response(s) named no request (no key): not stored, as no answer is "
                          "taken without proof of its sample",
                          results.unkeyed);
    }
    if (foreign > 0) fate += fmt::format("; {} result(s) for requests not in this batch, ignored", foreign);
    Note(fmt::format("batch {} ({}): {}; {} answered, {} failed or expired{}", b.seq, b.batch_id,
                     st.state, ok, failed, fate));
    if (!to_cache.empty()) RETURN_IF_ERROR(FillCache(to_cache));
    return Status::Ok();
  }

  // Puts the answers into the response cache under their requests' keys.
  Status FillCache(const std::vector<std::pair<Slot, StoredResponse>>& answers) {
    RETURN_IF_ERROR(cache_->Begin());
    for (const auto& [slot, response] : answers) {
      StatusOr<std::optional<RunRow>> row = store_->Row(slot.index, "paper", slot.repeat);
      if (!row.ok() || !*row) continue;
      StoredSample s{slot.index, (*row)->sample, slot.repeat};
      const Status put = cache_->Put(
          Runner::CacheKey(o_.request.endpoint, RequestOf(o_, s), o_.request.header_names,
                           slot.repeat), response);
      if (!put.ok()) {
        (void)cache_->Commit();
        return put;
      }
    }
    return cache_->Commit();
  }

  RunStore* store_;
  ResponseCache* cache_;
  BatchApi* api_;
  const BatchRunOptions& o_;
  const std::string provider_;
  BatchRunStats stats_;
  std::map<Slot, int> submissions_;  // this call's submissions per slot
  std::set<Slot> given_up_;          // refused requests: not submitted again
};

}  // namespace

BatchRunOptions BatchOptionsFrom(const RunnerOptions& ro, const BatchSettings& batch) {
  BatchRunOptions o;
  o.request = ro.request;
  o.stop = ro.stop;
  o.budget = ro.budget;
  o.price = ro.price;
  o.batch_size = batch.size;
  o.poll_initial = milliseconds(static_cast<int64_t>(batch.poll_seconds.value_or(30) * 1000));
  o.poll_max = std::max(o.poll_initial, std::min(32 * o.poll_initial, o.poll_max));
  o.no_resubmit = batch.retry_online;
  return o;
}

std::string RenderBatchPlan(const BatchPlan& plan, Provider provider, const std::optional<Price>& price,
                            int max_tokens, int64_t batch_size) {
  const int64_t prompt_tokens = EstimateTokens(plan.prompt_chars);
  BatchRunOptions sized;
  sized.batch_size = batch_size;
  const BatchLimits limits = LimitsFor(provider, sized);
  std::string out = fmt::format(
      "batch: {} request(s) in {} {} batch(es) ({:.1f} MB of requests; a batch holds at most {}"
      "{:.0f} MB)\n",
      plan.requests, plan.batches, ProviderName(provider), plan.bytes / 1e6,
      limits.max_requests > 0 ? fmt::format("{} requests and ", limits.max_requests) : "",
      limits.max_bytes / 1e6);
  if (price) {
    out += fmt::format("cost at the batch price ({:g}% of the online one): {}; online: {}\n",
                       100 * kBatchPriceShare,
                       CostRange(BatchPrice(*price), plan.requests, prompt_tokens, max_tokens),
                       CostRange(*price, plan.requests, prompt_tokens, max_tokens));
  }
  return out;
}

StatusOr<BatchRunStats> RunBatches(RunStore* store, ResponseCache* cache, BatchApi* api,
                                   const BatchRunOptions& options) {
  Driver driver(store, cache, api, options);
  return driver.Run();
}

StatusOr<BatchPlan> PlanBatches(RunStore* store, Provider provider, const BatchRunOptions& options) {
  BatchPlan plan;
  std::vector<size_t> sizes;
  RETURN_IF_ERROR(ForEachPending(store, true, [&](const StoredSample& s) -> Status {
    const ModelRequest req = RequestOf(options, s);
    ASSIGN_OR_RETURN(const BatchEntry entry, MakeBatchEntry(provider, s.index, req, s.repeat));
    for (const Message& m : req.messages) plan.prompt_chars += static_cast<int64_t>(m.content.size());
    plan.prompt_chars += static_cast<int64_t>(req.controls.system.size());
    sizes.push_back(entry.json.size());
    plan.bytes += static_cast<int64_t>(entry.json.size());
    ++plan.requests;
    return Status::Ok();
  }));
  plan.batches = static_cast<int64_t>(SplitIntoBatches(sizes, LimitsFor(provider, options)).size());
  return plan;
}

StatusOr<int64_t> WriteOfflineBatch(RunStore* store, const BatchRunOptions& options,
                                    const std::string& path) {
  std::string text;
  std::vector<ProviderBatchItem> items;
  RETURN_IF_ERROR(ForEachPending(store, false, [&](const StoredSample& s) -> Status {
    ASSIGN_OR_RETURN(const BatchEntry entry,
                     MakeBatchEntry(Provider::kOpenAi, s.index, RequestOf(options, s), s.repeat));
    text += entry.json;
    text += '\n';
    items.push_back(ProviderBatchItem{s.index, entry.custom_id, s.repeat});
    return Status::Ok();
  }));
  if (items.empty()) return int64_t{0};
  // The file first: a store that names a file which is not there would mislead.
  RETURN_IF_ERROR(WriteFileAtomically(path, text).WithContext("--offline"));
  ProviderBatch b;
  b.key = NewKey();
  b.provider = "offline";
  b.state = "written";
  b.batch_id = path;
  RETURN_IF_ERROR(store->Begin());
  if (Status s = store->AddProviderBatch(&b, items); !s.ok()) {
    (void)store->Commit();
    return s;
  }
  RETURN_IF_ERROR(store->Commit());
  return static_cast<int64_t>(items.size());
}

namespace {

// A batch's results file; errors name it.
StatusOr<std::string> ReadResultsFile(const std::string& path) {
  StatusOr<std::string> text = ReadFileToString(path);
  if (text.ok()) return text;
  const std::string& why = text.status().message();
  return Status::IoError(why.starts_with("read error") ? fmt::format("{}: read error", path)
                                                       : fmt::format("{}: cannot read: {}", path, why));
}

}  // namespace

StatusOr<ImportStats> ImportBatchResults(RunStore* store, const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadResultsFile(path));
  struct Line {
    int64_t number;
    Slot slot;
    BatchItemResult result;
  };
  std::vector<Line> lines;
  std::map<std::string, int64_t> first_line;  // custom id -> line
  ImportStats stats;
  int64_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const auto where = [&] { return fmt::format("{}:{}", path, number); };
    // A local engine's file: its errors are not OpenAI's.
    StatusOr<BatchItemResult> r = ParseOpenAiBatchLine(line, "offline batch");
    if (!r.ok()) {
      return Status::InvalidArgument(fmt::format(
          "{}: not a batch output line ({}); expected {{\"custom_id\", \"response\": "
          "{{\"status_code\", \"body\"}}, \"error\"}}",
          where(), r.status().message()));
    }
    const std::optional<CustomIdParts> parts = ParseCustomId(r->custom_id);
    ASSIGN_OR_RETURN(const std::vector<std::string> ids,
                     parts ? store->CustomIdsOf("offline", parts->index, parts->repeat)
                           : std::vector<std::string>());
    if (std::find(ids.begin(), ids.end(), r->custom_id) == ids.end()) {
      bool in_run = false;
      if (parts && parts->repeat < store->repeats()) {
        ASSIGN_OR_RETURN(const std::optional<RunRow> row, store->Row(parts->index, "paper"));
        in_run = row.has_value();
      }
      if (in_run) {
        return Status::InvalidArgument(fmt::format(
            "{}: custom_id '{}': the request does not match: sample {}{} of {} is asked with "
            "another request (other settings or another sample); write the batch file again "
            "with 'run ... --offline FILE' and run it",
            where(), r->custom_id, parts->index,
            parts->repeat > 0 ? fmt::format(" (repeat {})", parts->repeat) : "", store->dir()));
      }
      return Status::InvalidArgument(fmt::format(
          "{}: custom_id '{}' is not in the run {} (no batch file written by 'run --offline' "
          "for it has it)",
          where(), r->custom_id, store->dir()));
    }
    if (auto [it, inserted] = first_line.emplace(r->custom_id, number); !inserted) {
      return Status::InvalidArgument(fmt::format("{}: custom_id '{}' was on line {} already",
                                                 where(), r->custom_id, it->second));
    }
    lines.push_back(Line{number, Slot{parts->index, parts->repeat}, *std::move(r)});
  }
  stats.lines = static_cast<int64_t>(lines.size());
  if (lines.empty()) return Status::InvalidArgument(fmt::format("{}: no result lines", path));
  // What is answered already is kept: an import never replaces an answer.
  std::set<Slot> answered;
  {
    ASSIGN_OR_RETURN(std::vector<ProviderBatch> offline, store->ProviderBatches("written"));
    for (const ProviderBatch& b : offline) {
      ASSIGN_OR_RETURN(const std::vector<Slot> a, store->AnsweredOfProviderBatch(b.seq));
      answered.insert(a.begin(), a.end());
    }
  }
  RETURN_IF_ERROR(store->Begin());
  for (const Line& l : lines) {
    if (answered.contains(l.slot)) {
      ++stats.skipped;
      continue;
    }
    StoredResponse response = ToStoredResponse(l.result.result);
    if (response.ok) {
      ++stats.answered;
    } else {
      ++stats.errored;
    }
    if (Status s = store->PutResponse(l.slot.index, response, l.slot.repeat); !s.ok()) {
      (void)store->Commit();
      return s;
    }
  }
  RETURN_IF_ERROR(store->Commit());
  // Grouped as the run's note groups them (texts that differ only in their numbers,
  // "you requested 5000 tokens", are one).
  if (stats.errored > 0) {
    ASSIGN_OR_RETURN(stats.top_errors, store->TopErrors(3));
  }
  return stats;
}

}  // namespace structtest
