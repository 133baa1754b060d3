#include "structtest/checker.h"

#include <algorithm>
#include <cassert>
#include <mutex>

#include "core/status_macros.h"
#include "sandbox/python_pool.h"
#include "structtest/scoring_pool.h"
#include "tasks/registry.h"
#include "tasks/score_stage.h"
#include "tasks/scorer.h"
#include "text/punkt.h"

namespace structtest {

std::vector<SubtaskInfo> Subtasks() {
  std::vector<SubtaskInfo> out;
  for (const TaskFamily* family : Families()) {
    for (const SubtaskSpec& spec : family->subtasks) {
      SubtaskInfo info;
      info.domain = family->domain;
      info.name = spec.name;
      info.split = SplitName(spec.split);
      info.description = spec.description;
      info.params = spec.params;
      if (spec.check_paper != nullptr) info.paper_version = family->rules_version;
      if (spec.check_strict != nullptr) info.strict_version = family->strict_rules_version;
      for (const RuleSpec& r : spec.paper_rules) info.paper_rules.emplace_back(r.name);
      for (const RuleSpec& r : spec.strict_rules) info.strict_rules.emplace_back(r.name);
      info.counts_sentences = spec.needs_sentences;
      info.runs_python = family->needs_python;
      out.push_back(std::move(info));
    }
  }
  return out;
}

struct Checker::State {
  CheckerOptions options;
  std::once_flag sentences_once, python_once;
  std::unique_ptr<SentenceSplitter> sentences;
  Status sentences_error;
  std::unique_ptr<PythonPool> python;

  // What `sample`'s checker uses: the sentence model when its subtask counts sentences,
  // the pool when its family runs python. Errors: the sentence model cannot be loaded.
  StatusOr<CheckEnv> EnvFor(const Sample& sample) {
    CheckEnv env;
    auto ref = FindSubtask(sample.domain, sample.subtask);
    if (!ref.ok()) return env;  // ScoreResponse names it
    if (ref->spec->needs_sentences) {
      std::call_once(sentences_once, [this] {
        auto loaded = SentenceSplitter::Load(options.nltk_data);
        if (loaded.ok()) {
          sentences = std::move(loaded).value();
        } else {
          sentences_error = loaded.status();
        }
      });
      if (sentences == nullptr) return sentences_error;
      env.sentences = sentences.get();
    }
    if (ref->family->needs_python) {
      std::call_once(python_once, [this] {
        PythonOptions p;
        p.python = options.python;
        p.worker_script = options.worker_script;
        p.max_workers = options.python_workers > 0 ? options.python_workers : DefaultScoreJobs();
        python = std::make_unique<PythonPool>(p);
      });
      env.python = python.get();
    }
    return env;
  }
};

Checker::Checker(CheckerOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
}

Checker::~Checker() = default;

StatusOr<Verdict> Checker::Check(const Sample& sample, std::string_view response, RuleSet rules) {
  ASSIGN_OR_RETURN(CheckEnv env, state_->EnvFor(sample));
  return ScoreResponse(sample, response, rules, env);
}

std::vector<StatusOr<Verdict>> Checker::CheckBatch(std::span<const Sample> samples,
                                                   std::span<const std::string> responses,
                                                   RuleSet rules, int threads) {
  assert(samples.size() == responses.size() && "one response per sample");
  const size_t n = std::min(samples.size(), responses.size());
  std::vector<StatusOr<Verdict>> out(n, Status::Internal("not scored"));
  const size_t workers =
      std::min(n, static_cast<size_t>(threads > 0 ? threads : DefaultScoreJobs()));
  // This thread scores too: the pool starts one thread fewer (none for one).
  ScoringPool pool({.threads = static_cast<int>(std::max<size_t>(workers, 1) - 1)});
  auto batch = pool.Submit(n, [&](size_t i) { out[i] = Check(samples[i], responses[i], rules); });
  assert(batch.ok() && "an unbounded pool refused a batch");
  pool.Wait(*batch);
  return out;
}

}  // namespace structtest
