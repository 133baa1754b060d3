#include "report/tally.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <span>
#include <tuple>

#include <fmt/format.h>

#include "core/bytes.h"
#include "core/hash.h"
#include "tasks/registry.h"

namespace structtest {

namespace {

std::string Pct(std::optional<double> v) {
  return v ? fmt::format("{:6.2f}", *v) : std::string("     -");
}

std::string Ci(std::optional<Interval> i) {
  return i ? fmt::format("[{:6.2f}, {:6.2f}]", i->low, i->high) : std::string("-");
}

// The notes column: math's format and answer rates, per-task counts, errors.
std::string Notes(const SubtaskTally& t) {
  std::string notes;
  if (t.has_math_parts && t.scored > 0) {
    notes = fmt::format("format {:.2f}  accuracy {:.2f}", 100.0 * t.format_passed / t.scored,
                        100.0 * t.accuracy_passed / t.scored);
  }
  if (t.per_task() && t.scored > 0) {
    notes = fmt::format("per task: {}/{} {} solved; per sample {:.2f}", t.TasksSolved(),
                        t.TasksCounted(), t.repeats > 1 ? "task repeats" : "tasks",
                        t.SampleAccuracy());
  }
  if (t.errors > 0) {
    notes += fmt::format("{}{} not scored (errors)", notes.empty() ? "" : "  ", t.errors);
  }
  return notes;
}

// Everything a renderer shows, computed once.
struct Figures {
  std::vector<const SubtaskTally*> subtasks;  // report order
  std::vector<std::optional<Interval>> subtask_ci;  // parallel to subtasks
  std::vector<double> design_effect;               // parallel to subtasks
  std::vector<Stratum> strata;                     // in Compute's order
  Aggregates agg;
  AggregateIntervals agg_ci;
};

Figures ComputeFigures(const Tally& tally) {
  Figures f;
  f.subtasks = tally.Subtasks();
  for (const SubtaskTally* t : f.subtasks) {
    const Stratum s = t->ToStratum();
    f.subtask_ci.push_back(SubtaskInterval(s));
    f.design_effect.push_back(DesignEffect(s));
  }
  f.strata = tally.Strata();
  f.agg = tally.Compute();
  f.agg_ci = tally.AggregateCi();
  return f;
}

// The units and passes an aggregate is computed from: the strata it takes in.
std::pair<int64_t, int64_t> UnitsOf(const std::vector<Stratum>& strata,
                                    std::optional<std::string_view> domain,
                                    std::optional<Split> split) {
  int64_t n = 0, k = 0;
  for (const Stratum& s : strata) {
    if (!s.split || (split && *s.split != *split)) continue;
    if (domain ? s.domain != *domain
               : std::find(std::begin(kPaperDomains), std::end(kPaperDomains), s.domain) ==
                     std::end(kPaperDomains)) {
      continue;
    }
    n += s.Units();
    k += s.PassedA();
  }
  return {n, k};
}

constexpr std::string_view kSubtaskMethod = "wilson, continuity-corrected";
constexpr std::string_view kAggregateMethod =
    "wilson, continuity-corrected, on the effective sample size";

nlohmann::json CiJson(std::pair<int64_t, int64_t> nk, std::optional<double> estimate,
                      std::optional<Interval> ci, std::string_view method) {
  if (!estimate || !ci) return nlohmann::json();
  return {{"n", nk.first},     {"k", nk.second},    {"estimate", *estimate},
          {"low", ci->low},    {"high", ci->high},  {"method", method}};
}

constexpr std::string_view kIntervalNote =
    "95% CI: Wilson's score interval with continuity correction; a subtask's over its "
    "samples (tasks where it counts tasks), an aggregate's over its effective sample size "
    "(the n at which one proportion would vary as much as its weighted mean); samples made "
    "from one source item count together";

constexpr std::string_view kRepeatsMethod =
    "a sample's repeats are one cluster (the sample is the unit drawn): n / design effect, "
    "the design effect of the clustered variance with one all-pass and one all-fail "
    "pseudo-cluster added and the CR1 factor";

// "k=1..3" cells of `values` (percent), each as "{:.2f}".
std::string Series(const std::vector<double>& values, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    out += fmt::format("{}{:.2f}", i ? sep : "", values[i]);
  }
  return out.empty() ? "-" : out;
}

constexpr std::string_view kPartialNote =
    "a figure marked \"from k of m subtasks\" is the mean of the k subtasks scored here; "
    "the paper's figure of that name is the mean of all m, so the two are not comparable";

// Whether an aggregate that is there rests on fewer subtasks than the paper's.
bool AnyPartial(const Aggregates& agg) {
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    if (agg.easy.at(domain) && !agg.easy_subtasks.at(domain).complete()) return true;
    if (agg.hard.at(domain) && !agg.hard_subtasks.at(domain).complete()) return true;
  }
  return (agg.overall_easy && !agg.overall_easy_subtasks.complete()) ||
         (agg.overall_hard && !agg.overall_hard_subtasks.complete()) ||
         (agg.all && !agg.all_subtasks.complete());
}

// "Easy from 2 of 4 subtasks; Hard from 1 of 4 subtasks" for a domain's partial
// figures that are there; "" when none is.
std::string DomainPartial(const Aggregates& agg, const std::string& domain) {
  std::string out;
  for (const auto& [name, value, count] :
       {std::tuple{"Easy", agg.easy.at(domain), agg.easy_subtasks.at(domain)},
        std::tuple{"Hard", agg.hard.at(domain), agg.hard_subtasks.at(domain)}}) {
    if (!value || count.complete()) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : "; ", name, FromSubtasks(count));
  }
  return out;
}

// " (from 1 of 4 subtasks)" for a partial count, "" for a complete one.
std::string Parenthesized(const SubtaskCount& count) {
  return count.complete() ? "" : fmt::format(" ({})", FromSubtasks(count));
}

// The same, set off by two spaces as the text table's columns are.
std::string TextMark(const SubtaskCount& count) {
  return count.complete() ? "" : fmt::format("  ({})", FromSubtasks(count));
}

nlohmann::json CountJson(const SubtaskCount& count) {
  return {{"scored", count.scored}, {"of", count.of}, {"complete", count.complete()}};
}

}  // namespace

int ReportRank(std::string_view domain, std::string_view subtask) {
  int rank = 0;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& s : f->subtasks) {
      if (f->domain == domain && s.name == subtask) return rank;
      ++rank;
    }
  }
  return 1 << 20;
}

namespace {

// Where `key` starts its probe in a table of mask + 1 slots. The multiply spreads
// FNV-1a's low bits, which differ little between names that differ in one digit.
size_t ProbeStart(uint64_t key, size_t mask) {
  const uint64_t h = key * 0x9E3779B97F4A7C15ULL;
  return static_cast<size_t>(h ^ (h >> 32)) & mask;
}

}  // namespace

ItemCounts::Entry& ItemCounts::operator[](uint64_t key) {
  if (2 * (size_ + 1) > slots_.size()) Grow();  // at most half full
  const size_t mask = slots_.size() - 1;
  for (size_t i = ProbeStart(key, mask);; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (!s.used) {
      s = Slot{Entry{key, 0, 0}, true};
      ++size_;
      return s.entry;
    }
    if (s.entry.key == key) return s.entry;
  }
}

void ItemCounts::Grow() {
  std::vector<Slot> old = std::move(slots_);
  const size_t n = old.empty() ? 16 : 2 * old.size();
  slots_.assign(n, Slot{});
  const size_t mask = n - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    size_t i = ProbeStart(s.entry.key, mask);
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

namespace {

// The context members that name a sample's source item, the first present (and not
// null) one winning; and the hash of each name with its "=", where SourceItem's string
// starts.
constexpr std::string_view kSourceItemFields[] = {"gsm8k_index", "problem_id", "document_id",
                                                 "task_id"};
constexpr uint64_t kSourceItemPrefixHash[] = {
    Fnv1a("=", Fnv1a(kSourceItemFields[0])), Fnv1a("=", Fnv1a(kSourceItemFields[1])),
    Fnv1a("=", Fnv1a(kSourceItemFields[2])), Fnv1a("=", Fnv1a(kSourceItemFields[3]))};

// The member naming the sample's source item, and in *field the index of its name;
// nullptr when the context names none. One pass over the members (a context has a
// handful), not a lookup for each name.
const nlohmann::json* SourceItemMember(const Sample& sample, size_t* field) {
  if (!sample.context.is_object()) return nullptr;
  const nlohmann::json* found = nullptr;
  size_t rank = std::size(kSourceItemFields);
  for (const auto& [key, value] : sample.context.get_ref<const nlohmann::json::object_t&>()) {
    for (size_t r = 0; r < rank; ++r) {
      if (SameBytes(key, kSourceItemFields[r]) && !value.is_null()) {
        found = &value;
        rank = r;
        break;
      }
    }
    if (rank == 0) break;  // none ranks higher
  }
  *field = rank;
  return found;
}

}  // namespace

std::string SourceItem(const Sample& sample) {
  size_t field = 0;
  const nlohmann::json* v = SourceItemMember(sample, &field);
  if (v == nullptr) return "";
  return std::string(kSourceItemFields[field]) + "=" +
         (v->is_string() ? v->get<std::string>() : v->dump());
}

std::optional<uint64_t> SourceItemHash(const Sample& sample) {
  size_t field = 0;
  const nlohmann::json* v = SourceItemMember(sample, &field);
  if (v == nullptr) return std::nullopt;
  const uint64_t h = kSourceItemPrefixHash[field];
  if (v->is_string()) return Fnv1a(v->get_ref<const std::string&>(), h);
  // Integers as dump() writes them, without a string to hold them.
  char digits[24];
  std::to_chars_result end{digits, {}};
  if (v->is_number_unsigned()) {
    end = std::to_chars(digits, digits + sizeof digits, v->get<uint64_t>());
  } else if (v->is_number_integer()) {
    end = std::to_chars(digits, digits + sizeof digits, v->get<int64_t>());
  } else {
    return Fnv1a(v->dump(), h);
  }
  return Fnv1a(std::string_view(digits, static_cast<size_t>(end.ptr - digits)), h);
}

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
  if (last_ != nullptr && SameBytes(last_->subtask, sample.subtask) &&
      SameBytes(last_->domain, sample.domain)) {
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

const AggregateIntervals& Tally::AggregateCi() const {
  if (!aggregate_ci_) aggregate_ci_ = AggregateScoreIntervals(Strata());
  return *aggregate_ci_;
}

std::string TaskRepeatKey(std::string_view task, int64_t repeat) {
  return fmt::format("{}\x1f{}", task, repeat);
}

namespace {

// A sample's own cluster in SubtaskTally::items (with repeats, where it has no source
// item): its id's hash, from a seed no source item's hash starts from.
constexpr uint64_t kSampleClusterSeed = Fnv1a("sample=");

}  // namespace

void Tally::SetRepeats(int64_t k) {
  assert(k >= 1 && scored_ == 0 && errors_ == 0 && "SetRepeats() after Add()");
  repeats_ = k;
}

void Tally::Add(const Sample& sample, const Verdict& verdict, int64_t repeat) {
  aggregate_ci_.reset();
  SubtaskTally& t = Get(sample);
  ++t.scored;
  ++scored_;
  if (verdict.pass) ++t.passed;
  if (repeats_ > 1) {
    t.repeats = repeats_;
    ItemCounts::Entry& e = t.per_sample[Fnv1a(sample.id)];
    ++e.scored;
    e.passed += verdict.pass;
  }
  if (!t.per_task()) {
    std::optional<uint64_t> item = SourceItemHash(sample);
    if (!item && repeats_ > 1) item = Fnv1a(sample.id, kSampleClusterSeed);
    if (!item) {
      ++t.single_scored;
      t.single_passed += verdict.pass;
    } else {
      ItemCounts::Entry& e = t.items[*item];
      ++e.scored;
      e.passed += verdict.pass;
    }
  }
  if (t.per_task()) {
    using State = SubtaskTally::TaskState;
    const State state = verdict.pass ? State::kSolved : State::kFailed;
    const auto [it, inserted] = t.tasks.emplace(
        repeats_ > 1 ? TaskRepeatKey(t.spec->task_key(sample), repeat) : t.spec->task_key(sample),
        state);
    if (!inserted && it->second == State::kSolved) it->second = state;
    if (!inserted && it->second == State::kIncomplete && !verdict.pass) it->second = state;
  }
  if (verdict.format || verdict.accuracy) {
    t.has_math_parts = true;
    if (verdict.format.value_or(false)) ++t.format_passed;
    if (verdict.accuracy.value_or(false)) ++t.accuracy_passed;
  }
  if (!verdict.checks.empty()) {
    ++t.with_rules;
    // The table is in the order the subtask declares its rules: a failing verdict lists
    // its undecided rules last, which is no order for a table.
    std::span<const RuleSpec> declared;
    if (auto ref = FindSubtask(sample.domain, sample.subtask); ref.ok()) {
      if (auto rules = ParseRuleSet(verdict.rules); rules.ok()) {
        declared = ref->spec->rule_specs(*rules);
      }
    }
    const auto rank = [&](std::string_view name) {
      size_t k = 0;
      while (k < declared.size() && declared[k].name != name) ++k;
      return k;
    };
    for (size_t i = 0; i < verdict.checks.size(); ++i) {
      const RuleCheck& c = verdict.checks[i];
      // Verdicts of one subtask list the same rules, mostly in the same order: the i-th
      // entry is nearly always the one.
      RuleTally* r = i < t.rules.size() && t.rules[i].name == c.name ? &t.rules[i] : nullptr;
      for (size_t k = 0; r == nullptr && k < t.rules.size(); ++k) {
        if (t.rules[k].name == c.name) r = &t.rules[k];
      }
      if (r == nullptr) {
        const size_t mine = rank(c.name);
        auto at = t.rules.begin();
        while (at != t.rules.end() && rank(at->name) <= mine) ++at;
        r = &*t.rules.insert(at, RuleTally{c.name});
      }
      switch (c.result) {
        case RuleCheck::Result::kPass:
          ++r->passed;
          break;
        case RuleCheck::Result::kFail:
          ++r->failed;
          break;
        case RuleCheck::Result::kNotChecked:
          ++r->not_checked;
          break;
      }
    }
  }
}

std::optional<double> SubtaskTally::RuleAccuracy() const {
  int64_t passed = 0, listed = 0;
  for (const RuleTally& r : rules) {
    passed += r.passed;
    listed += r.listed();
  }
  if (listed == 0) return std::nullopt;
  return 100.0 * static_cast<double>(passed) / static_cast<double>(listed);
}


void Tally::AddError(const Sample& sample, int64_t repeat) {
  aggregate_ci_.reset();
  SubtaskTally& t = Get(sample);
  ++t.errors;
  if (repeats_ > 1) {
    t.repeats = repeats_;
    (void)t.per_sample[Fnv1a(sample.id)];  // a sample with a repeat short
  }
  if (t.per_task()) {
    // A task with a failed sample is failed whatever else happens to it.
    using State = SubtaskTally::TaskState;
    const auto [it, inserted] = t.tasks.emplace(
        repeats_ > 1 ? TaskRepeatKey(t.spec->task_key(sample), repeat) : t.spec->task_key(sample),
        State::kIncomplete);
    if (!inserted && it->second == State::kSolved) it->second = State::kIncomplete;
  }
  ++errors_;
}

void Tally::AddUsage(const Sample& sample, bool ok, int64_t input_tokens,
                     int64_t output_tokens, int64_t reasoning_tokens, bool cached,
                     bool batch) {
  SubtaskTally& t = Get(sample);
  ++t.responses;
  t.input_tokens += input_tokens;
  t.output_tokens += output_tokens;
  t.reasoning_tokens += reasoning_tokens;
  if (cached) {
    ++t.cached;
  } else {
    t.paid_input_tokens += input_tokens;
    t.paid_output_tokens += output_tokens;
    if (batch) {
      t.paid_batch_input_tokens += input_tokens;
      t.paid_batch_output_tokens += output_tokens;
    }
  }
  if (ok && input_tokens == 0 && output_tokens == 0) ++t.no_usage;
}

std::vector<const SubtaskTally*> Tally::Subtasks() const {
  std::vector<const SubtaskTally*> out;
  for (const auto& [key, t] : by_subtask_) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(), [](const SubtaskTally* a, const SubtaskTally* b) {
    return ReportRank(a->domain, a->subtask) < ReportRank(b->domain, b->subtask);
  });
  return out;
}

Stratum SubtaskTally::ToStratum() const {
  Stratum s;
  s.domain = domain;
  s.subtask = subtask;
  if (scored > 0) s.split = split;
  s.repeated = repeats > 1;
  std::map<std::pair<int64_t, int64_t>, int64_t> kinds;  // (units, passed) -> clusters
  if (per_task() && repeats > 1) {
    // A task's repeats are one cluster: its repeats counted, and solved.
    std::map<std::string_view, std::pair<int64_t, int64_t>> by_task;
    for (const auto& [key, state] : tasks) {
      if (state == TaskState::kIncomplete) continue;
      auto& [units, solved] = by_task[std::string_view(key).substr(0, key.rfind('\x1f'))];
      ++units;
      solved += state == TaskState::kSolved;
    }
    for (const auto& [task, counts] : by_task) ++kinds[counts];
  } else if (per_task()) {
    for (const auto& [task, state] : tasks) {
      if (state != TaskState::kIncomplete) ++kinds[{1, state == TaskState::kSolved}];
    }
  } else {
    items.ForEach([&](const ItemCounts::Entry& e) { ++kinds[{e.scored, e.passed}]; });
    if (single_passed > 0) kinds[{1, 1}] += single_passed;
    if (single_scored > single_passed) kinds[{1, 0}] += single_scored - single_passed;
  }
  for (const auto& [kind, count] : kinds) {
    s.kinds.push_back({kind.first, kind.second, 0, count});
  }
  return s;
}

std::optional<double> RepeatStats::Consistency() const {
  if (units == 0) return std::nullopt;
  return 100.0 * static_cast<double>(consistent) / static_cast<double>(units);
}

RepeatStats SubtaskTally::Repeats() const {
  RepeatStats r;
  r.repeats = repeats;
  // (repeats scored, passed) -> units
  std::map<std::pair<int64_t, int64_t>, int64_t> counts;
  if (per_task()) {
    std::map<std::string_view, std::pair<int64_t, int64_t>> by_task;
    for (const auto& [key, state] : tasks) {
      auto& [counted, solved] = by_task[std::string_view(key).substr(0, key.rfind('\x1f'))];
      // An incomplete repeat leaves the task short of K.
      counted += state != TaskState::kIncomplete;
      solved += state == TaskState::kSolved;
    }
    for (const auto& [task, c] : by_task) ++counts[c];
  } else {
    per_sample.ForEach([&](const ItemCounts::Entry& e) { ++counts[{e.scored, e.passed}]; });
  }
  for (const auto& [c, n] : counts) {
    if (c.first != repeats) {
      r.incomplete += n;
      continue;
    }
    r.units += n;
    if (c.second == 0 || c.second == repeats) r.consistent += n;
  }
  if (r.units == 0) return r;
  for (int64_t k = 1; k <= repeats; ++k) {
    double at = 0, hat = 0;
    for (const auto& [c, n] : counts) {
      if (c.first != repeats) continue;
      at += static_cast<double>(n) * PassAtK(repeats, c.second, k);
      hat += static_cast<double>(n) * PassHatK(repeats, c.second, k);
    }
    r.pass_at_k.push_back(100.0 * at / static_cast<double>(r.units));
    r.pass_hat_k.push_back(100.0 * hat / static_cast<double>(r.units));
  }
  return r;
}

std::vector<Stratum> Tally::Strata() const {
  std::vector<Stratum> out;
  for (const auto& [key, t] : by_subtask_) out.push_back(t.ToStratum());
  return out;
}

Aggregates Tally::Compute() const {
  std::vector<SubtaskScore> scores;
  for (const auto& [key, t] : by_subtask_) {
    if (!t.split || t.scored == 0) continue;
    scores.push_back({t.domain, *t.split, t.Accuracy()});
  }
  return ComputeAggregates(scores);
}

std::string RenderTextReport(const Tally& tally, RuleSet rules) {
  const Figures fig = ComputeFigures(tally);
  std::string out;
  out += fmt::format("rules: {}", RuleSetName(rules));
  for (const TaskFamily* f : Families()) {
    out += fmt::format("  {} {}", f->domain, f->version(rules));
  }
  out += "\n\n";
  // 24 wide, or as wide as the longest name (a composed subtask's can be longer)
  size_t width = 24;
  for (const SubtaskTally* t : fig.subtasks) width = std::max(width, t->subtask.size());
  out += fmt::format("{:<14} {:<{}} {:<5} {:>6} {:>7}  {:<16}  {}\n", "domain", "subtask", width,
                     "split", "scored", "pass%", "95% CI", "notes");
  for (size_t i = 0; i < fig.subtasks.size(); ++i) {
    const SubtaskTally* t = fig.subtasks[i];
    out += fmt::format("{:<14} {:<{}} {:<5} {:>6} {:>7}  {:<16}  {}\n", t->domain, t->subtask,
                       width,
                       t->split ? SplitName(*t->split) : "?", t->scored,
                       t->scored ? fmt::format("{:.2f}", t->Accuracy()) : "-",
                       Ci(fig.subtask_ci[i]), Notes(*t));
  }
  const Aggregates& agg = fig.agg;
  out += fmt::format("\n{:<14} {:>6} {:>6}  {:<16}  {}\n", "domain", "Easy", "Hard",
                     "Easy 95% CI", "Hard 95% CI");
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    const std::string hard_ci = Ci(IntervalAt(fig.agg_ci.hard, domain));
    const std::string partial = DomainPartial(agg, domain);
    out += fmt::format("{:<14} {} {}  {:<16}  {}\n", domain, Pct(agg.easy.at(domain)),
                       Pct(agg.hard.at(domain)), Ci(IntervalAt(fig.agg_ci.easy, domain)),
                       partial.empty() ? hard_ci : fmt::format("{:<16}  ({})", hard_ci, partial));
  }
  auto missing = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& d : v) s += (s.empty() ? "" : ", ") + d;
    return s;
  };
  out += "\n";
  out += agg.overall_easy
             ? fmt::format("overall Easy  {:6.2f}  {}{}\n", *agg.overall_easy,
                           Ci(fig.agg_ci.overall_easy), TextMark(agg.overall_easy_subtasks))
             : fmt::format("overall Easy       -  (no Easy samples of: {})\n",
                           missing(agg.missing_easy));
  out += agg.overall_hard
             ? fmt::format("overall Hard  {:6.2f}  {}{}\n", *agg.overall_hard,
                           Ci(fig.agg_ci.overall_hard), TextMark(agg.overall_hard_subtasks))
             : fmt::format("overall Hard       -  (no Hard samples of: {})\n",
                           missing(agg.missing_hard));
  out += agg.all ? fmt::format("All           {:6.2f}  {}{}\n", *agg.all, Ci(fig.agg_ci.all),
                               TextMark(agg.all_subtasks))
                 : std::string("All                -  (needs overall Easy and Hard)\n");
  out += fmt::format("\n{}\n", kIntervalNote);
  if (AnyPartial(agg)) out += fmt::format("partial: {}\n", kPartialNote);
  if (std::string repeats = RenderRepeatsText(tally); !repeats.empty()) out += "\n" + repeats;
  if (std::string rules_text = RenderRulesText(tally); !rules_text.empty()) {
    out += "\n" + rules_text;
  }
  return out;
}

std::string RenderRepeatsText(const Tally& tally) {
  const int64_t k = tally.repeats();
  if (k <= 1) return "";
  std::string out = fmt::format(
      "repeats: each sample asked {0} times; pass% above is the mean over the {0} repeats, "
      "its 95% CI counts a sample's repeats as one cluster\n"
      "{1:<24} {2:>7} {3:>10} {4:>12}  {5:<{7}}  {6}\n",
      k, "subtask", "samples", "incomplete", "consistent%", fmt::format("pass@k, k=1..{}", k),
      fmt::format("pass^k, k=1..{}", k), std::max<size_t>(16, 7 * static_cast<size_t>(k)));
  for (const SubtaskTally* t : tally.Subtasks()) {
    const RepeatStats r = t->Repeats();
    out += fmt::format("{:<24} {:>7} {:>10} {:>12}  {:<{}}  {}\n", t->subtask, r.units,
                       r.incomplete, r.Consistency() ? fmt::format("{:.2f}", *r.Consistency()) : "-",
                       Series(r.pass_at_k, " "), std::max<size_t>(16, 7 * static_cast<size_t>(k)),
                       Series(r.pass_hat_k, " "));
  }
  out += fmt::format(
      "over the samples (tasks where a subtask counts tasks) with all {0} repeats scored; "
      "consistent: all {0} verdicts agree; pass@k: the chance that some of k of its "
      "answers passes, pass^k: that all k do (unbiased estimators from the {0}, Chen et al. "
      "2021)\n",
      k);
  return out;
}

std::string RenderRepeatsMarkdown(const Tally& tally) {
  const int64_t k = tally.repeats();
  if (k <= 1) return "";
  std::string out = fmt::format(
      "**Repeats:** each sample asked {0} times; pass % is the mean over the repeats and its "
      "95% CI counts a sample's repeats as one cluster.\n\n"
      "| subtask | samples | incomplete | consistent % |",
      k);
  for (int64_t i = 1; i <= k; ++i) out += fmt::format(" pass@{} |", i);
  for (int64_t i = 1; i <= k; ++i) out += fmt::format(" pass^{} |", i);
  out += "\n|---|---:|---:|---:|";
  for (int64_t i = 0; i < 2 * k; ++i) out += "---:|";
  out += "\n";
  for (const SubtaskTally* t : tally.Subtasks()) {
    const RepeatStats r = t->Repeats();
    out += fmt::format("| {} | {} | {} | {} |", t->subtask, r.units, r.incomplete,
                       r.Consistency() ? fmt::format("{:.2f}", *r.Consistency()) : "-");
    for (const auto* series : {&r.pass_at_k, &r.pass_hat_k}) {
      for (int64_t i = 0; i < k; ++i) {
        out += series->empty() ? std::string(" - |")
                               : fmt::format(" {:.2f} |", (*series)[static_cast<size_t>(i)]);
      }
    }
    out += "\n";
  }
  out += fmt::format(
      "\nOver the samples (tasks where a subtask counts tasks) with all {0} repeats scored; "
      "consistent: all {0} verdicts agree; pass@k and pass^k: unbiased estimators (Chen et "
      "al. 2021) of the chance that some, or all, of k answers pass.\n",
      k);
  return out;
}

std::string RenderRulesText(const Tally& tally) {
  constexpr size_t kShown = 3;  // rules named per subtask
  std::string out;
  for (const SubtaskTally* t : tally.Subtasks()) {
    if (t->with_rules == 0) continue;
    std::vector<const RuleTally*> failing;
    for (const RuleTally& r : t->rules) {
      if (r.failed > 0) failing.push_back(&r);
    }
    if (failing.empty()) continue;  // every rule of every sample held
    std::stable_sort(failing.begin(), failing.end(), [](const RuleTally* a, const RuleTally* b) {
      return a->failed > b->failed;
    });
    std::string worst;
    for (size_t i = 0; i < failing.size() && i < kShown; ++i) {
      worst += fmt::format("{}{} {:.1f}%", i ? ", " : "", failing[i]->name,
                           100.0 * static_cast<double>(failing[i]->failed) /
                               static_cast<double>(failing[i]->listed()));
    }
    out += fmt::format("{:<24} {:>6} {:>7.2f}  {}\n", t->subtask, t->with_rules,
                       *t->RuleAccuracy(), worst.empty() ? "-" : worst);
  }
  if (out.empty()) return out;
  return fmt::format("{:<24} {:>6} {:>7}  {}\n", "rules: subtask", "scored", "rule%",
                     "failing most (share of samples)") +
         out +
         "rule%: rules passed / rules listed, the mean partial credit of a sample (a rule "
         "its checker did not reach after a failed one counts as not passed)\n";
}

nlohmann::json RenderJsonReport(const Tally& tally, RuleSet rules) {
  const Figures fig = ComputeFigures(tally);
  const auto pct = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json out = {{"rules", RuleSetName(rules)}};
  nlohmann::json versions = nlohmann::json::object();
  for (const TaskFamily* f : Families()) versions[std::string(f->domain)] = f->version(rules);
  out["rules_versions"] = std::move(versions);
  nlohmann::json subtasks = nlohmann::json::array();
  for (size_t i = 0; i < fig.subtasks.size(); ++i) {
    const SubtaskTally* t = fig.subtasks[i];
    const Stratum s = t->ToStratum();
    nlohmann::json j = {{"domain", t->domain},
                        {"subtask", t->subtask},
                        {"split", t->split ? nlohmann::json(SplitName(*t->split)) : nlohmann::json()},
                        {"scored", t->scored},
                        {"passed", t->passed},
                        {"errors", t->errors},
                        {"accuracy", t->scored ? nlohmann::json(t->Accuracy()) : nlohmann::json()}};
    j["ci"] = CiJson({s.Units(), s.PassedA()},
                     s.Units() ? std::optional<double>(s.AccuracyA()) : std::nullopt,
                     fig.subtask_ci[i], kSubtaskMethod);
    if (fig.design_effect[i] > 1) j["ci"]["design_effect"] = fig.design_effect[i];
    if (t->has_math_parts && t->scored > 0) {
      j["format_accuracy"] = 100.0 * t->format_passed / t->scored;
      j["answer_accuracy"] = 100.0 * t->accuracy_passed / t->scored;
    }
    if (t->per_task()) {
      j["tasks_solved"] = t->TasksSolved();
      j["tasks_counted"] = t->TasksCounted();
      j["sample_accuracy"] = t->scored ? nlohmann::json(t->SampleAccuracy()) : nlohmann::json();
    }
    if (t->repeats > 1) {
      const RepeatStats r = t->Repeats();
      const auto optional = [](std::optional<double> v) {
        return v ? nlohmann::json(*v) : nlohmann::json();
      };
      j["repeats"] = {{"samples", r.units},
                      {"incomplete", r.incomplete},
                      {"consistency", optional(r.Consistency())},
                      {"pass_at_k", r.pass_at_k},
                      {"pass_hat_k", r.pass_hat_k}};
    }
    if (t->with_rules > 0) {
      j["rule_accuracy"] = *t->RuleAccuracy();
      nlohmann::json rules_json = nlohmann::json::array();
      for (const RuleTally& r : t->rules) {
        rules_json.push_back({{"name", r.name},
                              {"passed", r.passed},
                              {"failed", r.failed},
                              {"not_checked", r.not_checked}});
      }
      j["rules"] = std::move(rules_json);
    }
    subtasks.push_back(std::move(j));
  }
  out["subtasks"] = std::move(subtasks);
  const Aggregates& agg = fig.agg;
  nlohmann::json domains = nlohmann::json::object();
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    domains[domain] = {
        {"easy", pct(agg.easy.at(domain))},
        {"hard", pct(agg.hard.at(domain))},
        {"easy_ci", CiJson(UnitsOf(fig.strata, d, Split::kEasy), agg.easy.at(domain),
                           IntervalAt(fig.agg_ci.easy, domain), kAggregateMethod)},
        {"hard_ci", CiJson(UnitsOf(fig.strata, d, Split::kHard), agg.hard.at(domain),
                           IntervalAt(fig.agg_ci.hard, domain), kAggregateMethod)},
        {"easy_subtasks", CountJson(agg.easy_subtasks.at(domain))},
        {"hard_subtasks", CountJson(agg.hard_subtasks.at(domain))}};
  }
  out["domains"] = std::move(domains);
  out["overall_easy"] = pct(agg.overall_easy);
  out["overall_hard"] = pct(agg.overall_hard);
  out["all"] = pct(agg.all);
  out["overall_easy_ci"] = CiJson(UnitsOf(fig.strata, std::nullopt, Split::kEasy),
                                  agg.overall_easy, fig.agg_ci.overall_easy, kAggregateMethod);
  out["overall_hard_ci"] = CiJson(UnitsOf(fig.strata, std::nullopt, Split::kHard),
                                  agg.overall_hard, fig.agg_ci.overall_hard, kAggregateMethod);
  out["all_ci"] = CiJson(UnitsOf(fig.strata, std::nullopt, std::nullopt), agg.all,
                         fig.agg_ci.all, kAggregateMethod);
  out["overall_easy_subtasks"] = CountJson(agg.overall_easy_subtasks);
  out["overall_hard_subtasks"] = CountJson(agg.overall_hard_subtasks);
  out["all_subtasks"] = CountJson(agg.all_subtasks);
  out["intervals"] = {
      {"confidence", 0.95},
      {"subtasks", "wilson score interval with continuity correction; over tasks where a "
                   "subtask counts tasks; n / design effect where samples share a source "
                   "item"},
      {"aggregates", "wilson score interval with continuity correction on the effective "
                     "sample size of the weighted mean of subtask accuracies, 1 / sum of "
                     "weight^2 * design effect / n over its subtasks"}};
  if (tally.repeats() > 1) {
    out["intervals"]["repeats"] = kRepeatsMethod;
    out["repeats"] = {{"k", tally.repeats()},
                      {"accuracy", "the mean over the repeats: every verdict of every repeat "
                                   "counts once"},
                      {"pass_at_k", "1 - C(n - c, k) / C(n, k), n = k_max repeats, c passing "
                                    "(Chen et al. 2021), mean over the samples with all "
                                    "repeats scored"},
                      {"pass_hat_k", "C(c, k) / C(n, k), the same samples"}};
  }
  return out;
}

std::string RenderMarkdownReport(const Tally& tally, RuleSet rules) {
  const Figures fig = ComputeFigures(tally);
  const auto cell = [](std::optional<double> v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("-");
  };
  const auto ci = [](std::optional<Interval> i) {
    return i ? fmt::format("{:.2f}–{:.2f}", i->low, i->high) : std::string("-");
  };
  std::string out = "| domain | subtask | split | scored | pass % | 95% CI | notes |\n"
                    "|---|---|---|---:|---:|---:|---|\n";
  for (size_t i = 0; i < fig.subtasks.size(); ++i) {
    const SubtaskTally* t = fig.subtasks[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", t->domain, t->subtask,
                       t->split ? SplitName(*t->split) : "?", t->scored,
                       t->scored ? fmt::format("{:.2f}", t->Accuracy()) : "-",
                       ci(fig.subtask_ci[i]), Notes(*t));
  }
  const Aggregates& agg = fig.agg;
  out += "\n| domain | Easy | Easy 95% CI | Hard | Hard 95% CI |\n|---|---:|---:|---:|---:|\n";
  // A figure that is there and partial carries its count.
  const auto marked = [&](std::optional<double> v, const SubtaskCount& count) {
    return v ? cell(v) + Parenthesized(count) : cell(v);
  };
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    out += fmt::format("| {} | {} | {} | {} | {} |\n", domain,
                       marked(agg.easy.at(domain), agg.easy_subtasks.at(domain)),
                       ci(IntervalAt(fig.agg_ci.easy, domain)),
                       marked(agg.hard.at(domain), agg.hard_subtasks.at(domain)),
                       ci(IntervalAt(fig.agg_ci.hard, domain)));
  }
  out += fmt::format("| **overall** | **{}**{} | {} | **{}**{} | {} |\n",
                     cell(agg.overall_easy),
                     agg.overall_easy ? Parenthesized(agg.overall_easy_subtasks) : "",
                     ci(fig.agg_ci.overall_easy), cell(agg.overall_hard),
                     agg.overall_hard ? Parenthesized(agg.overall_hard_subtasks) : "",
                     ci(fig.agg_ci.overall_hard));
  out += fmt::format("\n**All: {}** ({}95% CI {}; rules: {}", cell(agg.all),
                     agg.all && !agg.all_subtasks.complete()
                         ? FromSubtasks(agg.all_subtasks) + "; "
                         : "",
                     ci(fig.agg_ci.all), RuleSetName(rules));
  for (const TaskFamily* f : Families()) out += fmt::format(", {} {}", f->domain, f->version(rules));
  out += fmt::format(")\n\n{}.\n", kIntervalNote);
  if (AnyPartial(agg)) out += fmt::format("\nPartial: {}.\n", kPartialNote);
  if (std::string repeats = RenderRepeatsMarkdown(tally); !repeats.empty()) {
    out += "\n" + repeats;
  }
  return out;
}

}  // namespace structtest
