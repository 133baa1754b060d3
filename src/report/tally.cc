#include "report/tally.h"

#include <algorithm>

#include <fmt/format.h>

#include "tasks/registry.h"

namespace structtest {

namespace {

// The paper's four domains: the overall scores are only defined when all are there.
constexpr std::string_view kPaperDomains[] = {"summarization", "code", "html", "math"};

// Position of a subtask in the registry, for a stable report order.
int RegistryRank(std::string_view domain, std::string_view subtask) {
  int rank = 0;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& s : f->subtasks) {
      if (f->domain == domain && s.name == subtask) return rank;
      ++rank;
    }
  }
  return 1 << 20;
}

std::optional<double> Mean(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

std::string Pct(std::optional<double> v) {
  return v ? fmt::format("{:6.2f}", *v) : std::string("     -");
}

// The notes column: math's format and answer rates, per-task counts, errors.
std::string Notes(const SubtaskTally& t) {
  std::string notes;
  if (t.has_math_parts && t.scored > 0) {
    notes = fmt::format("format {:.2f}  accuracy {:.2f}", 100.0 * t.format_passed / t.scored,
                        100.0 * t.accuracy_passed / t.scored);
  }
  if (t.per_task() && t.scored > 0) {
    notes = fmt::format("per task: {}/{} tasks solved; per sample {:.2f}", t.TasksSolved(),
                        t.TasksCounted(), t.SampleAccuracy());
  }
  if (t.errors > 0) {
    notes += fmt::format("{}{} not scored (errors)", notes.empty() ? "" : "  ", t.errors);
  }
  return notes;
}

}  // namespace

int64_t SubtaskTally::TasksSolved() const {
  int64_t n = 0;
  for (const auto& [task, state] : tasks) n += state == TaskState::kSolved;
  return n;
}

int64_t SubtaskTally::TasksCounted() const {
  int64_t n = 0;
  for (const auto& [task, state] : tasks) n += state != TaskState::kIncomplete;
  return n;
}

double SubtaskTally::Accuracy() const {
  if (!per_task()) return SampleAccuracy();
  const int64_t counted = TasksCounted();
  return counted == 0 ? 0.0 : 100.0 * TasksSolved() / static_cast<double>(counted);
}

SubtaskTally& Tally::Get(const Sample& sample) {
  // Records mostly come in runs of one subtask.
  if (last_ != nullptr && last_->subtask == sample.subtask && last_->domain == sample.domain) {
    return *last_;
  }
  SubtaskTally& t = by_subtask_[{sample.domain, sample.subtask}];
  last_ = &t;
  if (t.subtask.empty()) {
    t.domain = sample.domain;
    t.subtask = sample.subtask;
    if (auto ref = FindSubtask(sample.domain, sample.subtask); ref.ok()) {
      t.split = ref->spec->split;
      t.spec = ref->spec;
    }
  }
  return t;
}

void Tally::Add(const Sample& sample, const Verdict& verdict) {
  SubtaskTally& t = Get(sample);
  ++t.scored;
  ++scored_;
  if (verdict.pass) ++t.passed;
  if (t.per_task()) {
    using State = SubtaskTally::TaskState;
    const State state = verdict.pass ? State::kSolved : State::kFailed;
    const auto [it, inserted] = t.tasks.emplace(t.spec->task_key(sample), state);
    if (!inserted && it->second == State::kSolved) it->second = state;
    if (!inserted && it->second == State::kIncomplete && !verdict.pass) it->second = state;
  }
  if (verdict.format || verdict.accuracy) {
    t.has_math_parts = true;
    if (verdict.format.value_or(false)) ++t.format_passed;
    if (verdict.accuracy.value_or(false)) ++t.accuracy_passed;
  }
}

void Tally::AddError(const Sample& sample) {
  SubtaskTally& t = Get(sample);
  ++t.errors;
  if (t.per_task()) {
    // A task with a failed sample is failed whatever else happens to it.
    using State = SubtaskTally::TaskState;
    const auto [it, inserted] = t.tasks.emplace(t.spec->task_key(sample), State::kIncomplete);
    if (!inserted && it->second == State::kSolved) it->second = State::kIncomplete;
  }
  ++errors_;
}

std::vector<const SubtaskTally*> Tally::Subtasks() const {
  std::vector<const SubtaskTally*> out;
  for (const auto& [key, t] : by_subtask_) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(), [](const SubtaskTally* a, const SubtaskTally* b) {
    return RegistryRank(a->domain, a->subtask) < RegistryRank(b->domain, b->subtask);
  });
  return out;
}

Aggregates Tally::Compute() const {
  Aggregates agg;
  std::map<std::string, std::vector<double>> easy, hard;
  for (const auto& [key, t] : by_subtask_) {
    if (!t.split || t.scored == 0) continue;
    (*t.split == Split::kEasy ? easy : hard)[t.domain].push_back(t.Accuracy());
  }
  std::vector<double> domain_easy, domain_hard;
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    agg.easy[domain] = easy.count(domain) ? Mean(easy[domain]) : std::nullopt;
    agg.hard[domain] = hard.count(domain) ? Mean(hard[domain]) : std::nullopt;
    if (agg.easy[domain]) {
      domain_easy.push_back(*agg.easy[domain]);
    } else {
      agg.missing_easy.push_back(domain);
    }
    if (agg.hard[domain]) {
      domain_hard.push_back(*agg.hard[domain]);
    } else {
      agg.missing_hard.push_back(domain);
    }
  }
  if (agg.missing_easy.empty()) agg.overall_easy = Mean(domain_easy);
  if (agg.missing_hard.empty()) agg.overall_hard = Mean(domain_hard);
  if (agg.overall_easy && agg.overall_hard) {
    agg.all = (*agg.overall_easy + *agg.overall_hard) / 2;
  }
  return agg;
}

std::string RenderTextReport(const Tally& tally, RuleSet rules) {
  std::string out;
  out += fmt::format("rules: {}", RuleSetName(rules));
  for (const TaskFamily* f : Families()) {
    out += fmt::format("  {} {}", f->domain, f->rules_version);
  }
  out += "\n\n";
  out += fmt::format("{:<14} {:<24} {:<5} {:>6} {:>7}  {}\n", "domain", "subtask", "split",
                     "scored", "pass%", "notes");
  for (const SubtaskTally* t : tally.Subtasks()) {
    const std::string notes = Notes(*t);
    out += fmt::format("{:<14} {:<24} {:<5} {:>6} {:>7}  {}\n", t->domain, t->subtask,
                       t->split ? SplitName(*t->split) : "?", t->scored,
                       t->scored ? fmt::format("{:.2f}", t->Accuracy()) : "-", notes);
  }
  const Aggregates agg = tally.Compute();
  out += fmt::format("\n{:<14} {:>6} {:>6}\n", "domain", "Easy", "Hard");
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    out += fmt::format("{:<14} {} {}\n", domain, Pct(agg.easy.at(domain)), Pct(agg.hard.at(domain)));
  }
  auto missing = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& d : v) s += (s.empty() ? "" : ", ") + d;
    return s;
  };
  out += "\n";
  out += agg.overall_easy ? fmt::format("overall Easy  {:6.2f}\n", *agg.overall_easy)
                          : fmt::format("overall Easy       -  (no Easy samples of: {})\n",
                                        missing(agg.missing_easy));
  out += agg.overall_hard ? fmt::format("overall Hard  {:6.2f}\n", *agg.overall_hard)
                          : fmt::format("overall Hard       -  (no Hard samples of: {})\n",
                                        missing(agg.missing_hard));
  out += agg.all ? fmt::format("All           {:6.2f}\n", *agg.all)
                 : std::string("All                -  (needs overall Easy and Hard)\n");
  return out;
}

nlohmann::json RenderJsonReport(const Tally& tally, RuleSet rules) {
  const auto pct = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json out = {{"rules", RuleSetName(rules)}};
  nlohmann::json versions = nlohmann::json::object();
  for (const TaskFamily* f : Families()) versions[std::string(f->domain)] = f->rules_version;
  out["rules_versions"] = std::move(versions);
  nlohmann::json subtasks = nlohmann::json::array();
  for (const SubtaskTally* t : tally.Subtasks()) {
    nlohmann::json j = {{"domain", t->domain},
                        {"subtask", t->subtask},
                        {"split", t->split ? nlohmann::json(SplitName(*t->split)) : nlohmann::json()},
                        {"scored", t->scored},
                        {"passed", t->passed},
                        {"errors", t->errors},
                        {"accuracy", t->scored ? nlohmann::json(t->Accuracy()) : nlohmann::json()}};
    if (t->has_math_parts && t->scored > 0) {
      j["format_accuracy"] = 100.0 * t->format_passed / t->scored;
      j["answer_accuracy"] = 100.0 * t->accuracy_passed / t->scored;
    }
    if (t->per_task()) {
      j["tasks_solved"] = t->TasksSolved();
      j["tasks_counted"] = t->TasksCounted();
      j["sample_accuracy"] = t->scored ? nlohmann::json(t->SampleAccuracy()) : nlohmann::json();
    }
    subtasks.push_back(std::move(j));
  }
  out["subtasks"] = std::move(subtasks);
  const Aggregates agg = tally.Compute();
  nlohmann::json domains = nlohmann::json::object();
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    domains[domain] = {{"easy", pct(agg.easy.at(domain))}, {"hard", pct(agg.hard.at(domain))}};
  }
  out["domains"] = std::move(domains);
  out["overall_easy"] = pct(agg.overall_easy);
  out["overall_hard"] = pct(agg.overall_hard);
  out["all"] = pct(agg.all);
  return out;
}

std::string RenderMarkdownReport(const Tally& tally, RuleSet rules) {
  const auto cell = [](std::optional<double> v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("-");
  };
  std::string out = "| domain | subtask | split | scored | pass % | notes |\n"
                    "|---|---|---|---:|---:|---|\n";
  for (const SubtaskTally* t : tally.Subtasks()) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", t->domain, t->subtask,
                       t->split ? SplitName(*t->split) : "?", t->scored,
                       t->scored ? fmt::format("{:.2f}", t->Accuracy()) : "-", Notes(*t));
  }
  const Aggregates agg = tally.Compute();
  out += "\n| domain | Easy | Hard |\n|---|---:|---:|\n";
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    out += fmt::format("| {} | {} | {} |\n", domain, cell(agg.easy.at(domain)),
                       cell(agg.hard.at(domain)));
  }
  out += fmt::format("| **overall** | **{}** | **{}** |\n", cell(agg.overall_easy),
                     cell(agg.overall_hard));
  out += fmt::format("\n**All: {}** (rules: {}", cell(agg.all), RuleSetName(rules));
  for (const TaskFamily* f : Families()) out += fmt::format(", {} {}", f->domain, f->rules_version);
  out += ")\n";
  return out;
}

}  // namespace structtest

