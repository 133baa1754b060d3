#include "testing/fake_client.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest {

FakeModelClient::FakeModelClient(size_t parallelism, FakeScript script, ClientClock* clock)
    : parallelism_(parallelism), script_(std::move(script)), clock_(clock) {
  assert(parallelism_ >= 1 && "FakeModelClient needs a parallelism of at least 1");
}

bool FakeModelClient::CanStartMore() const { return in_flight_.size() < parallelism_; }

Status FakeModelClient::Start(ModelRequest request) {
  assert(CanStartMore() && "Start() while the client is full");
  if (in_flight_.count(request.id)) {
    return Status::InvalidArgument(fmt::format("request {} is already in flight", request.id));
  }
  int& starts = starts_[request.id];
  FakeReply reply = script_(request, starts);
  ++starts;
  reply.result.id = request.id;
  reply.result.endpoint = request.endpoint;
  reply.result.latency = reply.latency;
  in_flight_[request.id] = Pending{clock_->Now() + reply.latency, next_seq_++,
                                   std::move(reply.result)};
  started_.push_back(std::move(request));
  max_in_flight_seen_ = std::max(max_in_flight_seen_, in_flight_.size());
  return Status::Ok();
}

size_t FakeModelClient::WaitForAny(std::vector<ModelResult>* done,
                                   std::chrono::milliseconds timeout) {
  if (in_flight_.empty()) return 0;
  Clock::time_point first = Clock::time_point::max();
  for (const auto& [id, p] : in_flight_) first = std::min(first, p.due);
  const Clock::time_point wake = std::min(first, clock_->Now() + timeout);
  clock_->SleepUntil(wake);
  const Clock::time_point now = clock_->Now();
  std::vector<Pending*> ready;
  for (auto& [id, p] : in_flight_) {
    if (p.due <= now) ready.push_back(&p);
  }
  std::sort(ready.begin(), ready.end(), [](const Pending* a, const Pending* b) {
    return a->due != b->due ? a->due < b->due : a->seq < b->seq;
  });
  std::vector<uint64_t> ids;
  for (Pending* p : ready) {
    ids.push_back(p->result.id);
    done->push_back(std::move(p->result));
  }
  for (uint64_t id : ids) in_flight_.erase(id);
  return ids.size();
}

ModelRequest FakeRequest(uint64_t id) {
  ModelRequest r;
  r.id = id;
  r.model = "m";
  r.messages = {{"user", "q" + std::to_string(id)}};
  return r;
}

std::vector<ModelRequest> FakeRequests(int n) {
  std::vector<ModelRequest> requests;
  for (int i = 0; i < n; ++i) requests.push_back(FakeRequest(static_cast<uint64_t>(i)));
  return requests;
}

StatusOr<std::vector<ModelResult>> DrainClient(ModelClient* client,
                                               const std::vector<ModelRequest>& requests) {
  std::vector<ModelResult> done;
  size_t next = 0;
  while (next < requests.size() || client->InFlight() > 0) {
    while (next < requests.size() && client->CanStartMore()) {
      RETURN_IF_ERROR(client->Start(requests[next++]));
    }
    client->WaitForAny(&done, std::chrono::milliseconds(100));
  }
  return done;
}

}  // namespace structtest
