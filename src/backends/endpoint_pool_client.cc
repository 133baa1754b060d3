#include "backends/endpoint_pool_client.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest {

using std::chrono::milliseconds;

bool IsEndpointFailure(const ModelResult& r) {
  if (r.error != ErrorKind::kRetryable) return false;
  return r.http_status != 429;  // pacing, not ill health; the adaptive limit handles it
}

EndpointPoolClient::EndpointPoolClient(std::unique_ptr<ModelClient> inner, size_t endpoints,
                                       EndpointPoolPolicy policy)
    : inner_(std::move(inner)), policy_(policy), eps_(endpoints) {
  assert(endpoints >= 1 && policy.per_endpoint >= 1);
}

size_t EndpointPoolClient::Room(const Endpoint& e, Clock::time_point now) const {
  if (now < e.cool_until) return 0;
  const size_t limit = e.probing ? 1 : policy_.per_endpoint;
  return limit > e.in_flight ? limit - e.in_flight : 0;
}

int EndpointPoolClient::Pick(Clock::time_point now) const {
  int best = -1;
  for (size_t i = 0; i < eps_.size(); ++i) {
    if (Room(eps_[i], now) == 0) continue;
    if (best < 0 || eps_[i].in_flight < eps_[static_cast<size_t>(best)].in_flight) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

bool EndpointPoolClient::CanStartMore() const {
  const Clock::time_point now = policy_.clock->Now();
  if (queue_.empty() && Pick(now) >= 0 && inner_->CanStartMore()) return true;
  const bool all_cooling = std::all_of(eps_.begin(), eps_.end(),
                                       [&](const Endpoint& e) { return now < e.cool_until; });
  return all_cooling && InFlight() < policy_.per_endpoint * eps_.size();
}

Status EndpointPoolClient::Start(ModelRequest request) {
  for (const ModelRequest& q : queue_) {
    if (q.id == request.id) {
      return Status::InvalidArgument(fmt::format("request {} is already in flight", request.id));
    }
  }
  const int pick = queue_.empty() && inner_->CanStartMore() ? Pick(policy_.clock->Now()) : -1;
  if (pick < 0) {
    queue_.push_back(std::move(request));
    return Status::Ok();
  }
  request.endpoint = static_cast<size_t>(pick);
  RETURN_IF_ERROR(inner_->Start(std::move(request)));
  ++eps_[static_cast<size_t>(pick)].in_flight;
  return Status::Ok();
}

void EndpointPoolClient::Dispatch(std::vector<ModelResult>* done, size_t* appended) {
  const Clock::time_point now = policy_.clock->Now();
  while (!queue_.empty() && inner_->CanStartMore()) {
    const int pick = Pick(now);
    if (pick < 0) return;
    ModelRequest request = std::move(queue_.front());
    queue_.pop_front();
    const uint64_t id = request.id;
    request.endpoint = static_cast<size_t>(pick);
    if (Status s = inner_->Start(std::move(request)); !s.ok()) {
      ModelResult r;
      r.id = id;
      r.endpoint = static_cast<size_t>(pick);
      r.error = ErrorKind::kFatal;
      r.error_message = s.message();
      done->push_back(std::move(r));
      ++*appended;
      continue;
    }
    ++eps_[static_cast<size_t>(pick)].in_flight;
  }
}

void EndpointPoolClient::Record(const ModelResult& r, Clock::time_point now) {
  if (r.endpoint >= eps_.size()) return;  // the inner client broke its contract
  Endpoint& e = eps_[r.endpoint];
  if (e.in_flight > 0) --e.in_flight;
  ++e.requests;
  if (!r.ok()) ++e.errors;
  ++e.latency_counts[r.latency.count()];
  if (!IsEndpointFailure(r)) {
    e.consecutive_failures = 0;
    e.level = 0;
    e.probing = false;
    return;
  }
  if (now < e.cool_until) return;  // set aside already: requests sent before still land
  ++e.consecutive_failures;
  if (!e.probing && e.consecutive_failures < policy_.failures_to_cool) return;
  const auto factor = int64_t{1} << std::min(e.level, 30);
  const milliseconds cool = std::min(policy_.max_cooldown, policy_.initial_cooldown * factor);
  e.cool_until = now + cool;
  ++e.level;
  ++e.cooldowns;
  e.last_cooldown = cool;
  e.consecutive_failures = 0;
  e.probing = true;
}

size_t EndpointPoolClient::WaitForAny(std::vector<ModelResult>* done, milliseconds timeout) {
  const Clock::time_point deadline = policy_.clock->Now() + timeout;
  size_t appended = 0;
  std::vector<ModelResult> batch;
  for (;;) {
    Dispatch(done, &appended);
    if (appended > 0 || InFlight() == 0) return appended;
    Clock::time_point now = policy_.clock->Now();
    if (now >= deadline) return 0;
    Clock::time_point wake = deadline;
    if (!queue_.empty()) {
      for (const Endpoint& e : eps_) {
        if (e.cool_until > now) wake = std::min(wake, e.cool_until);
      }
    }
    batch.clear();
    WaitInnerUntil(*inner_, wake, &batch, policy_.clock);
    now = policy_.clock->Now();
    for (ModelResult& r : batch) {
      Record(r, now);
      done->push_back(std::move(r));
      ++appended;
    }
  }
}

EndpointStats EndpointPoolClient::Stats(size_t endpoint) const {
  const Endpoint& e = eps_.at(endpoint);
  EndpointStats s;
  s.requests = e.requests;
  s.errors = e.errors;
  s.cooldowns = e.cooldowns;
  s.last_cooldown = e.last_cooldown;
  if (e.requests > 0) {
    const auto rank = [&](double q) {
      // Nearest rank: the smallest value with at least q of the values at or below it.
      const auto k = std::clamp<int64_t>(
          static_cast<int64_t>(std::ceil(q * static_cast<double>(e.requests))), 1, e.requests);
      int64_t seen = 0;
      for (const auto& [ms, n] : e.latency_counts) {
        seen += n;
        if (seen >= k) return milliseconds(ms);
      }
      return milliseconds(e.latency_counts.rbegin()->first);
    };
    s.p50 = rank(0.50);
    s.p95 = rank(0.95);
  }
  return s;
}

bool EndpointPoolClient::CoolingDown(size_t endpoint) const {
  return policy_.clock->Now() < eps_.at(endpoint).cool_until;
}

}  // namespace structtest
