#include "backends/adaptive_client.h"

#include <algorithm>
#include <cassert>

#include "core/status_macros.h"

namespace structtest {

bool IsOverloadSignal(const ModelResult& r) {
  return r.http_status == 429 || r.timed_out;
}

AdaptiveConcurrencyClient::AdaptiveConcurrencyClient(std::unique_ptr<ModelClient> inner,
                                                     AdaptivePolicy policy)
    : inner_(std::move(inner)),
      policy_(policy),
      limit_(policy.initial),
      lowest_(policy.initial),
      highest_(policy.initial) {
  assert(policy.min >= 1 && policy.min <= policy.initial && policy.initial <= policy.max);
}

Status AdaptiveConcurrencyClient::Start(ModelRequest request) {
  const uint64_t id = request.id;
  RETURN_IF_ERROR(inner_->Start(std::move(request)));
  seq_of_[id] = next_seq_++;
  return Status::Ok();
}

void AdaptiveConcurrencyClient::SetLimit(size_t limit, Clock::time_point now) {
  limit_seconds_ += static_cast<double>(limit_) * std::chrono::duration<double>(now - since_).count();
  since_ = now;
  limit_ = limit;
  lowest_ = std::min(lowest_, limit);
  highest_ = std::max(highest_, limit);
  window_ms_.clear();
}

double AdaptiveConcurrencyClient::TimeWeightedLimit() const {
  const Clock::time_point now = Clock::now();
  const double total = std::chrono::duration<double>(now - created_).count();
  if (total <= 0) return static_cast<double>(limit_);
  return (limit_seconds_ +
          static_cast<double>(limit_) * std::chrono::duration<double>(now - since_).count()) /
         total;
}

void AdaptiveConcurrencyClient::Observe(const ModelResult& r, uint64_t seq,
                                        Clock::time_point now) {
  if (IsOverloadSignal(r)) {
    // Only a request started after the last halving speaks of the new limit.
    if (seq >= decreased_at_seq_ && limit_ > policy_.min) {
      SetLimit(std::max(policy_.min, limit_ / 2), now);
      ++decreases_;
      decreased_at_seq_ = next_seq_;
    }
    return;
  }
  if (!r.ok()) return;  // other errors say nothing about the load
  window_ms_.push_back(r.latency.count());
  if (window_ms_.size() < limit_) return;
  std::vector<int64_t> sorted = window_ms_;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const int64_t p50 = sorted[sorted.size() / 2];
  if (best_p50_ms_ < 0 || p50 < best_p50_ms_) best_p50_ms_ = p50;
  const double held = std::max(policy_.latency_slack * static_cast<double>(best_p50_ms_),
                               static_cast<double>(best_p50_ms_ + policy_.latency_floor.count()));
  if (static_cast<double>(p50) <= held && limit_ < policy_.max) {
    SetLimit(limit_ + 1, now);
  } else {
    window_ms_.clear();  // latency grew: hold the limit for another window
  }
}

size_t AdaptiveConcurrencyClient::WaitForAny(std::vector<ModelResult>* done,
                                             std::chrono::milliseconds timeout) {
  const size_t before = done->size();
  const size_t n = inner_->WaitForAny(done, timeout);
  const Clock::time_point now = Clock::now();
  for (size_t i = before; i < done->size(); ++i) {
    const ModelResult& r = (*done)[i];
    auto it = seq_of_.find(r.id);
    const uint64_t seq = it == seq_of_.end() ? next_seq_ : it->second;
    if (it != seq_of_.end()) seq_of_.erase(it);
    Observe(r, seq, now);
  }
  return n;
}

}  // namespace structtest
