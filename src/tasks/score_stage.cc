#include "tasks/score_stage.h"

#include <algorithm>
#include <cassert>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"

namespace structtest {

int DefaultScoreJobs() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

Status CheckScoreJobs(int jobs) {
  if (jobs >= 1 && jobs <= 1024) return Status::Ok();
  return Status::InvalidArgument(fmt::format("`score_jobs` {}: expected 1 to 1024", jobs));
}

StatusOr<int> ResolveScoreJobs(int jobs) {
  if (jobs == 0) return DefaultScoreJobs();
  RETURN_IF_ERROR(CheckScoreJobs(jobs));
  return jobs;
}

ScoreStage::ScoreStage(RuleSet rules, int jobs, DeliverFn deliver, size_t max_queued,
                       ScoreFn score)
    : rules_(rules),
      jobs_(std::max(1, jobs)),
      // A slow record at the head holds back those behind it: room for a few per
      // thread keeps the threads busy meanwhile.
      max_queued_(max_queued > 0 ? max_queued : static_cast<size_t>(std::max(64, 16 * jobs_))),
      deliver_(std::move(deliver)),
      score_(std::move(score)) {}

void ScoreStage::Score(ScoreItem* item) const {
  item->verdict = score_ ? score_(*item, rules_)
                         : ScoreResponse(item->record.sample, item->record.response.text,
                                         rules_, item->env);
}

ScoreStage::~ScoreStage() { pool_.reset(); }

bool ScoreStage::Offloads(const Sample& sample) {
  if (jobs_ <= 1) return false;
  if (!known_domain_ || sample.domain != last_domain_) {
    auto family = FindFamily(sample.domain);
    // An unknown domain is scored inline, where ScoreResponse reports it.
    last_offloads_ = family.ok() && (*family)->needs_python;
    last_domain_ = sample.domain;
    known_domain_ = true;
  }
  return last_offloads_;
}

Status ScoreStage::Add(ScoreItem* item) {
  if (!failed_.ok()) return failed_;
  const bool offload = Offloads(item->record.sample);
  if (!offload) {
    Score(item);
    if (slots_.empty()) {  // nothing ahead of it: delivered without a move
      if (Status s = deliver_(*item); !s.ok()) failed_ = std::move(s);
      return failed_;
    }
  }
  Slot& slot = slots_.emplace_back();
  slot.item = std::move(*item);
  if (offload) {
    if (pool_ == nullptr) {
      pool_ = std::make_unique<ScoringPool>(ScoringPoolOptions{.threads = jobs_});
    }
    ScoreItem* scored = &slot.item;
    auto batch = pool_->Submit(1, [this, scored](size_t) { Score(scored); });
    // Unbounded, it takes every record.
    assert(batch.ok() && "an unbounded pool refused a record");
    slot.batch = std::move(batch).value();
  }
  RETURN_IF_ERROR(DeliverReady(false));
  while (slots_.size() >= max_queued_) RETURN_IF_ERROR(DeliverReady(true));
  return Status::Ok();
}

Status ScoreStage::Poll() { return DeliverReady(false); }

Status ScoreStage::Finish() {
  while (!slots_.empty()) RETURN_IF_ERROR(DeliverReady(true));
  return failed_;
}

size_t ScoreStage::queued() const { return slots_.size(); }

Status ScoreStage::DeliverReady(bool wait_for_one) {
  if (!failed_.ok()) return failed_;
  while (!slots_.empty()) {
    Slot& head = slots_.front();
    if (head.batch && !head.batch->done()) {
      if (!wait_for_one) return Status::Ok();
      pool_->Wait(*head.batch, ScoringPool::Clock::time_point::max(), /*help=*/false);
    }
    wait_for_one = false;
    Status s = deliver_(head.item);
    slots_.pop_front();
    if (!s.ok()) {
      failed_ = std::move(s);
      return failed_;
    }
  }
  return Status::Ok();
}

}  // namespace structtest
