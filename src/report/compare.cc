#include "report/compare.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/hash.h"
#include "report/tally.h"
#include "store/run_store.h"
#include "tasks/registry.h"

namespace structtest {

namespace {

enum class Outcome { kPass, kFail, kErrored, kUnscored };

Outcome OutcomeOf(const RunRow& row) {
  if (!row.response) return Outcome::kUnscored;  // not asked yet
  if (!row.response->ok) return Outcome::kErrored;
  if (!row.verdict || !row.verdict->error.empty()) return Outcome::kUnscored;
  return row.verdict->pass ? Outcome::kPass : Outcome::kFail;
}


// What compare keeps of one sample of a run.
struct Row {
  int64_t index = 0;
  std::string id, domain, subtask;
  uint64_t fingerprint = 0;
  Outcome outcome = Outcome::kUnscored;
  bool no_verdict = false;  // answered, but no verdict under the rule set
  std::string reason, rules_version;
  std::string item;  // SourceItem, or the task where the subtask counts tasks
  // In a run of repeated samples: the outcome of each repeat, in order (`outcome` and
  // the rest are repeat 0's).
  std::vector<Outcome> repeats;
};

bool Scored(Outcome o) { return o == Outcome::kPass || o == Outcome::kFail; }

struct SubtaskInfo {
  const SubtaskSpec* spec = nullptr;
  std::optional<Split> split;
};

class SubtaskCache {
 public:
  const SubtaskInfo& Get(const std::string& domain, const std::string& subtask) {
    auto [it, inserted] = cache_.try_emplace({domain, subtask});
    if (inserted) {
      if (auto ref = FindSubtask(domain, subtask); ref.ok()) {
        it->second.spec = ref->spec;
        it->second.split = ref->spec->split;
      }
    }
    return it->second;
  }

 private:
  std::map<std::pair<std::string, std::string>, SubtaskInfo> cache_;
};

Row RowOf(const RunRow& r, SubtaskCache& subtasks) {
  Row row;
  row.index = r.index;
  row.id = r.sample.id;
  row.domain = r.sample.domain;
  row.subtask = r.sample.subtask;
  row.fingerprint = SampleFingerprint(r.sample);
  row.outcome = OutcomeOf(r);
  row.no_verdict = r.response && r.response->ok && !r.verdict;
  if (r.verdict) {
    row.reason = r.verdict->error.empty() ? r.verdict->reason : r.verdict->error;
    row.rules_version = r.verdict->rules_version;
  }
  const SubtaskInfo& info = subtasks.Get(row.domain, row.subtask);
  row.item = info.spec != nullptr && info.spec->task_key != nullptr
                 ? info.spec->task_key(r.sample)
                 : SourceItem(r.sample);
  return row;
}

struct RunRows {
  ComparedRun run;
  std::vector<Row> rows;  // index order
  std::unordered_map<std::string, size_t> by_id;
};

StatusOr<RunRows> ReadRun(const std::string& dir, RuleSet rules, SubtaskCache& subtasks) {
  ASSIGN_OR_RETURN(auto store, RunStore::OpenReadOnly(dir));
  RunRows out;
  out.run.dir = dir;
  ASSIGN_OR_RETURN(const std::optional<RunManifest> manifest, store->Manifest());
  out.run.model = manifest ? manifest->model : "";
  out.run.repeats = store->repeats();
  const bool repeated = out.run.repeats > 1;
  RETURN_IF_ERROR(store->ForEach(RuleSetName(rules), [&](const RunRow& r) {
    // A sample's repeats come one after another, repeat 0 first.
    if (repeated && r.repeat > 0) {
      Row& row = out.rows.back();
      row.repeats.push_back(OutcomeOf(r));
      row.no_verdict = row.no_verdict || (r.response && r.response->ok && !r.verdict);
      return Status::Ok();
    }
    out.by_id.emplace(r.sample.id, out.rows.size());
    out.rows.push_back(RowOf(r, subtasks));
    if (repeated) out.rows.back().repeats.push_back(out.rows.back().outcome);
    return Status::Ok();
  }));
  out.run.samples = static_cast<int64_t>(out.rows.size());
  return out;
}

using TaskState = SubtaskTally::TaskState;

// Tally::Add and AddError's rules for a task's state: a failed sample fails the task
// whatever else happens; one that was left out makes a solved task incomplete.
void Update(std::map<std::string, TaskState>& tasks, const std::string& task,
            std::optional<bool> pass) {
  const TaskState state =
      !pass ? TaskState::kIncomplete : *pass ? TaskState::kSolved : TaskState::kFailed;
  const auto [it, inserted] = tasks.emplace(task, state);
  if (inserted) return;
  if (!pass) {
    if (it->second == TaskState::kSolved) it->second = TaskState::kIncomplete;
  } else if (!*pass) {
    it->second = TaskState::kFailed;
  }
}

// The shared samples of one subtask.
struct PairTally {
  std::string domain, subtask;
  SubtaskInfo info;
  std::map<std::string, std::array<int64_t, 3>> items;  // -> units, pass A, pass B
  std::array<int64_t, 4> singles{};                     // by 2 * pass A + pass B
  std::map<std::string, TaskState> tasks_a, tasks_b;  // by TaskRepeatKey with repeats
  int64_t samples = 0, pass_to_fail = 0, fail_to_pass = 0;
  int64_t repeats = 1;

  bool per_task() const { return info.spec != nullptr && info.spec->task_key != nullptr; }

  Stratum ToStratum() const {
    Stratum s;
    s.domain = domain;
    s.subtask = subtask;
    s.repeated = repeats > 1;
    if (samples > 0) s.split = info.split;
    std::map<std::array<int64_t, 3>, int64_t> kinds;
    if (per_task() && repeats > 1) {
      // A task's repeats counted in both runs are one cluster.
      std::map<std::string_view, std::array<int64_t, 3>> by_task;
      for (const auto& [key, a] : tasks_a) {
        const TaskState b = tasks_b.at(key);
        if (a == TaskState::kIncomplete || b == TaskState::kIncomplete) continue;
        auto& counts = by_task[std::string_view(key).substr(0, key.rfind('\x1f'))];
        ++counts[0];
        counts[1] += a == TaskState::kSolved;
        counts[2] += b == TaskState::kSolved;
      }
      for (const auto& [task, counts] : by_task) ++kinds[counts];
    } else if (per_task()) {
      for (const auto& [task, a] : tasks_a) {
        const TaskState b = tasks_b.at(task);
        if (a == TaskState::kIncomplete || b == TaskState::kIncomplete) continue;
        ++kinds[{1, a == TaskState::kSolved, b == TaskState::kSolved}];
      }
    } else {
      for (const auto& [item, counts] : items) ++kinds[counts];
      for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2; ++b) {
          if (singles[2 * a + b] > 0) kinds[{1, a, b}] += singles[2 * a + b];
        }
      }
    }
    for (const auto& [k, count] : kinds) s.kinds.push_back({k[0], k[1], k[2], count});
    return s;
  }
};

std::string Join(const std::set<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

// Refuses runs whose shared verdicts come from different checkers.
Status CheckSameRules(const Comparison& c, RuleSet rules,
                      const std::map<std::string, std::set<std::string>>& a,
                      const std::map<std::string, std::set<std::string>>& b) {
  std::set<std::string> domains;
  for (const auto& [d, v] : a) domains.insert(d);
  for (const auto& [d, v] : b) domains.insert(d);
  for (const std::string& d : domains) {
    const std::set<std::string> va = a.count(d) ? a.at(d) : std::set<std::string>();
    const std::set<std::string> vb = b.count(d) ? b.at(d) : std::set<std::string>();
    if (va == vb && va.size() == 1) continue;
    std::string current;
    if (auto family = FindFamily(d); family.ok()) current = std::string((*family)->version(rules));
    const bool a_current = va.size() == 1 && *va.begin() == current;
    const std::string& stale = a_current ? c.b.dir : c.a.dir;
    return Status::InvalidArgument(fmt::format(
        "{} and {} were scored under different rules ({}: {} in {}, {} in {}); rescore {} "
        "with this build ({} {}) first: 'structtest rescore {} --rules {}'",
        c.a.dir, c.b.dir, d, Join(va), c.a.dir, Join(vb), c.b.dir, stale, d,
        current.empty() ? "?" : current, stale, RuleSetName(rules)));
  }
  return Status::Ok();
}

// B against A, both read already (ReadRun), so that a run compared with several others
// is read once.
StatusOr<Comparison> CompareTwo(const RunRows& a, const RunRows& b,
                                const CompareOptions& options, SubtaskCache& subtasks) {
  Comparison c;
  c.a = a.run;
  c.b.dir = b.run.dir;
  c.b.model = b.run.model;
  std::map<std::pair<std::string, std::string>, PairTally> by_subtask;
  std::map<std::string, std::set<std::string>> versions_a, versions_b;
  std::vector<std::pair<int64_t, Flip>> flips;
  int64_t no_verdict_a = 0, no_verdict_b = 0;
  if (a.run.repeats != b.run.repeats) {
    return Status::InvalidArgument(fmt::format(
        "{} asks each sample {} time(s) and {} {} (run --repeats): compare runs of the same "
        "repeats",
        a.run.dir, a.run.repeats, b.run.dir, b.run.repeats));
  }
  const int64_t repeats = a.run.repeats;
  c.repeats = repeats;
  std::vector<bool> matched(a.rows.size(), false);
  for (const Row& rb : b.rows) {
    ++c.b.samples;
    const auto it = a.by_id.find(rb.id);
    if (it == a.by_id.end()) {
      ++c.only_b;
      continue;
    }
    const Row& ra = a.rows[it->second];
    matched[it->second] = true;
    if (ra.fingerprint != rb.fingerprint) {
      ++c.differing;
      continue;
    }
    ++c.shared;
    PairTally& t = by_subtask[{ra.domain, ra.subtask}];
    if (t.subtask.empty()) {
      t.domain = ra.domain;
      t.subtask = ra.subtask;
      t.info = subtasks.Get(ra.domain, ra.subtask);
      t.repeats = repeats;
    }
    if (repeats > 1) {
      // Paired on the samples with every repeat scored in both runs.
      const bool all_a = std::all_of(ra.repeats.begin(), ra.repeats.end(), Scored);
      const bool all_b = std::all_of(rb.repeats.begin(), rb.repeats.end(), Scored);
      if (!all_a || !all_b) {
        const auto errored = [](const Row& r) {
          return std::count(r.repeats.begin(), r.repeats.end(), Outcome::kErrored) > 0;
        };
        c.errored_a += errored(ra);
        c.errored_b += errored(rb);
        if (!errored(ra) && !errored(rb)) ++c.unscored;
        no_verdict_a += ra.no_verdict;
        no_verdict_b += rb.no_verdict;
        if (t.per_task()) {
          for (int64_t r = 0; r < repeats; ++r) {
            Update(t.tasks_a, TaskRepeatKey(ra.item, r), std::nullopt);
            Update(t.tasks_b, TaskRepeatKey(ra.item, r), std::nullopt);
          }
        }
        continue;
      }
      ++c.paired;
      versions_a[ra.domain].insert(ra.rules_version);
      versions_b[ra.domain].insert(rb.rules_version);
      const auto passes = [](const Row& r) {
        return static_cast<int64_t>(std::count(r.repeats.begin(), r.repeats.end(), Outcome::kPass));
      };
      const int64_t pa = passes(ra), pb = passes(rb);
      ++t.samples;
      // With repeats, the test's units are samples: better in A (more repeats pass) or
      // in B, a sign test.
      if (pa > pb) ++t.pass_to_fail;
      if (pb > pa) ++t.fail_to_pass;
      if (t.per_task()) {
        for (int64_t r = 0; r < repeats; ++r) {
          const auto i = static_cast<size_t>(r);
          Update(t.tasks_a, TaskRepeatKey(ra.item, r), ra.repeats[i] == Outcome::kPass);
          Update(t.tasks_b, TaskRepeatKey(ra.item, r), rb.repeats[i] == Outcome::kPass);
        }
      } else {
        // A sample without a source item is a cluster of its own: its repeats.
        auto& counts = t.items[ra.item.empty() ? "\x1fsample " + ra.id : ra.item];
        counts[0] += repeats;
        counts[1] += pa;
        counts[2] += pb;
      }
      if (options.flips && pa != pb) {
        flips.push_back({ra.index, {ra.id, ra.domain, ra.subtask, pa > pb, ra.reason, rb.reason}});
      }
      continue;
    }
    const bool scored_a = ra.outcome == Outcome::kPass || ra.outcome == Outcome::kFail;
    const bool scored_b = rb.outcome == Outcome::kPass || rb.outcome == Outcome::kFail;
    if (!scored_a || !scored_b) {
      c.errored_a += ra.outcome == Outcome::kErrored;
      c.errored_b += rb.outcome == Outcome::kErrored;
      if (ra.outcome != Outcome::kErrored && rb.outcome != Outcome::kErrored) ++c.unscored;
      no_verdict_a += ra.no_verdict;
      no_verdict_b += rb.no_verdict;
      if (t.per_task()) {
        Update(t.tasks_a, ra.item, std::nullopt);
        Update(t.tasks_b, ra.item, std::nullopt);
      }
      continue;
    }
    ++c.paired;
    versions_a[ra.domain].insert(ra.rules_version);
    versions_b[ra.domain].insert(rb.rules_version);
    const bool pa = ra.outcome == Outcome::kPass, pb = rb.outcome == Outcome::kPass;
    ++t.samples;
    if (pa && !pb) ++t.pass_to_fail;
    if (!pa && pb) ++t.fail_to_pass;
    if (t.per_task()) {
      Update(t.tasks_a, ra.item, pa);
      Update(t.tasks_b, ra.item, pb);
    } else if (ra.item.empty()) {
      ++t.singles[2 * pa + pb];
    } else {
      auto& counts = t.items[ra.item];
      ++counts[0];
      counts[1] += pa;
      counts[2] += pb;
    }
    if (options.flips && pa != pb) {
      flips.push_back({ra.index, {ra.id, ra.domain, ra.subtask, pa, ra.reason, rb.reason}});
    }
  }
  c.only_a = static_cast<int64_t>(std::count(matched.begin(), matched.end(), false));

  if (c.shared == 0) {
    return Status::InvalidArgument(
        c.differing > 0
            ? fmt::format("{} and {} share no samples: {} sample ids are in both, but name "
                          "other samples (another suite, seed or data file?)",
                          c.a.dir, c.b.dir, c.differing)
            : fmt::format("{} and {} share no samples: no sample id is in both", c.a.dir,
                          c.b.dir));
  }
  if (c.paired == 0) {
    const std::string& none = no_verdict_a > 0 ? c.a.dir : c.b.dir;
    if (no_verdict_a > 0 || no_verdict_b > 0) {
      return Status::InvalidArgument(fmt::format(
          "{} has no verdicts under rules {} for the samples it shares with {}: score them "
          "first with 'structtest rescore {} --rules {}'",
          none, RuleSetName(options.rules), none == c.a.dir ? c.b.dir : c.a.dir, none,
          RuleSetName(options.rules)));
    }
    return Status::InvalidArgument(fmt::format(
        "{} and {} share {} samples, but none is scored in both ({} errored in {}, {} in "
        "{}, {} not asked or not scored)",
        c.a.dir, c.b.dir, c.shared, c.errored_a, c.a.dir, c.errored_b, c.b.dir, c.unscored));
  }
  RETURN_IF_ERROR(CheckSameRules(c, options.rules, versions_a, versions_b));
  for (const auto& [domain, v] : versions_a) c.rules_versions[domain] = *v.begin();

  std::vector<Stratum> strata;
  std::vector<const PairTally*> tallies;
  for (const auto& [key, t] : by_subtask) {
    strata.push_back(t.ToStratum());
    tallies.push_back(&t);
  }
  const PairedIntervals intervals = PairedDifferenceIntervals(strata);
  std::vector<SubtaskScore> scores_a, scores_b;
  for (size_t s = 0; s < strata.size(); ++s) {
    const Stratum& st = strata[s];
    const PairTally& t = *tallies[s];
    if (st.split) {
      scores_a.push_back({st.domain, *st.split, st.AccuracyA()});
      scores_b.push_back({st.domain, *st.split, st.AccuracyB()});
    }
    SubtaskComparison sc;
    sc.domain = t.domain;
    sc.subtask = t.subtask;
    sc.split = t.info.split;
    sc.per_task = t.per_task();
    sc.samples = t.samples;
    sc.units = st.Units();
    sc.accuracy_a = st.AccuracyA();
    sc.accuracy_b = st.AccuracyB();
    sc.difference_ci = intervals.strata[s];
    sc.sample_pass_to_fail = t.pass_to_fail;
    sc.sample_fail_to_pass = t.fail_to_pass;
    if (sc.per_task) {
      for (const ClusterKind& k : st.kinds) {  // one task each
        if (k.pass_a > k.pass_b) sc.pass_to_fail += k.count;
        if (k.pass_b > k.pass_a) sc.fail_to_pass += k.count;
      }
    } else {
      sc.pass_to_fail = t.pass_to_fail;
      sc.fail_to_pass = t.fail_to_pass;
    }
    sc.p = McNemarExactP(sc.pass_to_fail, sc.fail_to_pass);
    c.subtasks.push_back(std::move(sc));
  }
  std::vector<double> p;
  std::vector<size_t> tested;
  for (size_t i = 0; i < c.subtasks.size(); ++i) {
    if (c.subtasks[i].units == 0) continue;
    p.push_back(c.subtasks[i].p);
    tested.push_back(i);
  }
  const std::vector<double> holm = HolmAdjust(p);
  for (size_t j = 0; j < tested.size(); ++j) c.subtasks[tested[j]].p_holm = holm[j];
  std::stable_sort(c.subtasks.begin(), c.subtasks.end(),
                   [](const SubtaskComparison& x, const SubtaskComparison& y) {
                     return ReportRank(x.domain, x.subtask) < ReportRank(y.domain, y.subtask);
                   });
  c.aggregates_a = ComputeAggregates(scores_a);
  c.aggregates_b = ComputeAggregates(scores_b);
  c.difference_ci = intervals.aggregates;
  std::stable_sort(flips.begin(), flips.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [index, flip] : flips) c.flips.push_back(std::move(flip));
  return c;
}

// --- rendering ----------------------------------------------------------------------

std::string Label(const ComparedRun& r) {
  return r.model.empty() ? r.dir : fmt::format("{} ({})", r.dir, r.model);
}

std::string Signed(double v) { return fmt::format("{:+.2f}", v); }

std::string CiText(const std::optional<Interval>& i) {
  return i ? fmt::format("[{:+7.2f}, {:+7.2f}]", i->low, i->high) : std::string("-");
}

std::string CiMarkdown(const std::optional<Interval>& i) {
  return i ? fmt::format("{:+.2f} to {:+.2f}", i->low, i->high) : std::string("-");
}

// Below the smallest double the exact p underflows to 0: shown as a bound.
std::string P(double p) { return p < 1e-300 ? std::string("<1e-300") : fmt::format("{:.3g}", p); }

// One aggregate row: its name, A, B, the interval of B - A (nullopt when absent) and
// the subtasks it takes in (the same in both runs: those they share).
struct AggregateRow {
  std::string name;
  std::optional<double> a, b;
  std::optional<Interval> ci;
  SubtaskCount subtasks;
  // Shown, and over fewer subtasks than the paper's figure.
  bool partial() const { return a && b && !subtasks.complete(); }
};

std::vector<AggregateRow> AggregateRows(const Comparison& c) {
  std::vector<AggregateRow> rows;
  for (std::string_view d : kPaperDomains) {
    const std::string domain(d);
    rows.push_back({domain + " Easy", c.aggregates_a.easy.at(domain),
                    c.aggregates_b.easy.at(domain), IntervalAt(c.difference_ci.easy, domain),
                    c.aggregates_a.easy_subtasks.at(domain)});
    rows.push_back({domain + " Hard", c.aggregates_a.hard.at(domain),
                    c.aggregates_b.hard.at(domain), IntervalAt(c.difference_ci.hard, domain),
                    c.aggregates_a.hard_subtasks.at(domain)});
  }
  rows.push_back({"overall Easy", c.aggregates_a.overall_easy, c.aggregates_b.overall_easy,
                  c.difference_ci.overall_easy, c.aggregates_a.overall_easy_subtasks});
  rows.push_back({"overall Hard", c.aggregates_a.overall_hard, c.aggregates_b.overall_hard,
                  c.difference_ci.overall_hard, c.aggregates_a.overall_hard_subtasks});
  rows.push_back({"All", c.aggregates_a.all, c.aggregates_b.all, c.difference_ci.all,
                  c.aggregates_a.all_subtasks});
  return rows;
}

std::string LeftOut(const Comparison& c) {
  if (c.repeats > 1) {
    return fmt::format(
        "{} shared samples, {} with all {} repeats scored in both; left out, a repeat short in "
        "either run: {} with a repeat errored in A, {} in B, {} with one not asked or not "
        "scored; {} only in A, {} only in B{}",
        c.shared, c.paired, c.repeats, c.errored_a, c.errored_b, c.unscored, c.only_a, c.only_b,
        c.differing > 0 ? fmt::format(", {} ids naming other samples", c.differing) : "");
  }
  return fmt::format(
      "{} shared samples, {} scored in both; left out: {} errored in A, {} errored in B, {} "
      "not asked or not scored; {} only in A, {} only in B{}",
      c.shared, c.paired, c.errored_a, c.errored_b, c.unscored, c.only_a, c.only_b,
      c.differing > 0 ? fmt::format(", {} ids naming other samples", c.differing) : "");
}

std::string RulesLine(const Comparison& c, RuleSet rules) {
  std::string out = fmt::format("rules: {}", RuleSetName(rules));
  for (const TaskFamily* f : Families()) {
    const auto it = c.rules_versions.find(std::string(f->domain));
    if (it != c.rules_versions.end()) out += fmt::format("  {} {}", it->first, it->second);
  }
  return out;
}

constexpr std::string_view kCompareNote =
    "B-A with a paired 95% CI (MOVER: from each run's continuity-corrected Wilson interval "
    "and the correlation of the paired verdicts; samples made from one source item count "
    "together); p: McNemar's exact test on the flips, Holm-adjusted across subtasks; units "
    "(n, flips) are tasks for simulate_execute";

constexpr std::string_view kComparePartialNote =
    "a row marked \"from k of m subtasks\" is the mean of the k subtasks both runs scored; "
    "the paper's figure of that name is the mean of all m, so the two are not comparable";

bool AnyPartialRow(const std::vector<AggregateRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const AggregateRow& r) { return r.partial(); });
}

std::string FlipsText(const Comparison& c) {
  std::string out = fmt::format("\nflips of B against A ({}):\n", c.flips.size());
  for (const Flip& f : c.flips) {
    out += fmt::format("{} {} {}/{}\n  A: {}\n  B: {}\n",
                       f.passed_in_a ? "PASS->FAIL" : "FAIL->PASS", f.id, f.domain,
                       f.subtask, f.reason_a, f.reason_b);
  }
  return out;
}

nlohmann::json OptionalJson(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json DifferenceCiJson(const std::optional<Interval>& i) {
  return i ? nlohmann::json{{"low", i->low}, {"high", i->high}} : nlohmann::json();
}

}  // namespace

StatusOr<std::vector<Comparison>> CompareRuns(const std::vector<std::string>& dirs,
                                              const CompareOptions& options) {
  if (dirs.size() < 2) return Status::InvalidArgument("compare needs two runs or more");
  SubtaskCache subtasks;
  ASSIGN_OR_RETURN(const RunRows a, ReadRun(dirs[0], options.rules, subtasks));
  std::vector<Comparison> out;
  for (size_t i = 1; i < dirs.size(); ++i) {
    ASSIGN_OR_RETURN(const RunRows b, ReadRun(dirs[i], options.rules, subtasks));
    ASSIGN_OR_RETURN(Comparison c, CompareTwo(a, b, options, subtasks));
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<StatusOr<std::vector<Comparison>>> CompareEveryBaseline(
    const std::vector<std::string>& dirs, const CompareOptions& options) {
  SubtaskCache subtasks;
  std::vector<StatusOr<RunRows>> runs;
  runs.reserve(dirs.size());
  for (const std::string& dir : dirs) runs.push_back(ReadRun(dir, options.rules, subtasks));
  std::vector<StatusOr<std::vector<Comparison>>> out;
  for (size_t base = 0; base < dirs.size(); ++base) {
    out.push_back([&]() -> StatusOr<std::vector<Comparison>> {
      if (dirs.size() < 2) return Status::InvalidArgument("compare needs two runs or more");
      if (!runs[base].ok()) return runs[base].status();
      std::vector<Comparison> comparisons;
      for (size_t i = 0; i < dirs.size(); ++i) {
        if (i == base) continue;
        if (!runs[i].ok()) return runs[i].status();
        ASSIGN_OR_RETURN(Comparison c, CompareTwo(*runs[base], *runs[i], options, subtasks));
        comparisons.push_back(std::move(c));
      }
      return comparisons;
    }());
  }
  return out;
}

std::string RenderCompareText(const std::vector<Comparison>& comparisons, RuleSet rules,
                              bool flips) {
  std::string out;
  for (const Comparison& c : comparisons) {
    if (!out.empty()) out += "\n";
    out += fmt::format("A: {}, {} samples\nB: {}, {} samples\n{}\n{}\n\n", Label(c.a),
                       c.a.samples, Label(c.b), c.b.samples, LeftOut(c), RulesLine(c, rules));
    out += fmt::format("{:<14} {:<24} {:<5} {:>5} {:>7} {:>7} {:>7}  {:<18}  {:>5} {:>5}  "
                       "{:>9} {:>9}\n",
                       "domain", "subtask", "split", "n", "A%", "B%", "B-A", "95% CI of B-A",
                       "p->f", "f->p", "p", "p (Holm)");
    for (const SubtaskComparison& s : c.subtasks) {
      out += fmt::format(
          "{:<14} {:<24} {:<5} {:>5} {:>7.2f} {:>7.2f} {:>7}  {:<18}  {:>5} {:>5}  {:>9} "
          "{:>9}\n",
          s.domain, s.subtask, s.split ? SplitName(*s.split) : "?", s.units, s.accuracy_a,
          s.accuracy_b, Signed(s.accuracy_b - s.accuracy_a), CiText(s.difference_ci),
          s.pass_to_fail, s.fail_to_pass, P(s.p), P(s.p_holm));
    }
    out += fmt::format("\n{:<20} {:>7} {:>7} {:>7}  {}\n", "", "A", "B", "B-A", "95% CI of B-A");
    const std::vector<AggregateRow> rows = AggregateRows(c);
    for (const AggregateRow& r : rows) {
      if (!r.a || !r.b) {
        out += fmt::format("{:<20} {:>7} {:>7} {:>7}  -\n", r.name, "-", "-", "-");
        continue;
      }
      out += fmt::format("{:<20} {:>7.2f} {:>7.2f} {:>7}  {}{}\n", r.name, *r.a, *r.b,
                         Signed(*r.b - *r.a), CiText(r.ci),
                         r.partial() ? fmt::format("  ({})", FromSubtasks(r.subtasks)) : "");
    }
    out += fmt::format("\n{}\n", kCompareNote);
    if (AnyPartialRow(rows)) out += fmt::format("partial: {}\n", kComparePartialNote);
    if (flips) out += FlipsText(c);
  }
  return out;
}

std::string RenderCompareMarkdown(const std::vector<Comparison>& comparisons, RuleSet rules,
                                  bool flips) {
  std::string out;
  for (const Comparison& c : comparisons) {
    if (!out.empty()) out += "\n";
    out += fmt::format("**A**: {} ({} samples); **B**: {} ({} samples). {}. {}.\n\n",
                       Label(c.a), c.a.samples, Label(c.b), c.b.samples, LeftOut(c),
                       RulesLine(c, rules));
    out += "| domain | subtask | split | n | A % | B % | B−A | 95% CI | pass→fail | "
           "fail→pass | p | p (Holm) |\n"
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const SubtaskComparison& s : c.subtasks) {
      out += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.2f} | {} | {} | {} | {} | {} | {} |\n",
                         s.domain, s.subtask, s.split ? SplitName(*s.split) : "?", s.units,
                         s.accuracy_a, s.accuracy_b, Signed(s.accuracy_b - s.accuracy_a),
                         CiMarkdown(s.difference_ci), s.pass_to_fail, s.fail_to_pass, P(s.p),
                         P(s.p_holm));
    }
    out += "\n| | A | B | B−A | 95% CI |\n|---|---:|---:|---:|---:|\n";
    const std::vector<AggregateRow> rows = AggregateRows(c);
    for (const AggregateRow& r : rows) {
      if (!r.a || !r.b) {
        out += fmt::format("| {} | - | - | - | - |\n", r.name);
        continue;
      }
      out += fmt::format("| {}{} | {:.2f} | {:.2f} | {} | {} |\n", r.name,
                         r.partial() ? fmt::format(" ({})", FromSubtasks(r.subtasks)) : "",
                         *r.a, *r.b, Signed(*r.b - *r.a), CiMarkdown(r.ci));
    }
    out += fmt::format("\n{}.\n", kCompareNote);
    if (AnyPartialRow(rows)) out += fmt::format("\nPartial: {}.\n", kComparePartialNote);
    if (flips && !c.flips.empty()) {
      out += "\n| flip | id | subtask | A's reason | B's reason |\n|---|---|---|---|---|\n";
      const auto cell = [](std::string s) {
        for (char& ch : s) {
          if (ch == '\n' || ch == '|') ch = ' ';
        }
        return s;
      };
      for (const Flip& f : c.flips) {
        out += fmt::format("| {} | {} | {}/{} | {} | {} |\n",
                           f.passed_in_a ? "pass→fail" : "fail→pass", f.id, f.domain,
                           f.subtask, cell(f.reason_a), cell(f.reason_b));
      }
    }
  }
  return out;
}

nlohmann::json RenderCompareJson(const std::vector<Comparison>& comparisons, RuleSet rules,
                                 bool flips) {
  nlohmann::json out = {{"rules", RuleSetName(rules)}};
  nlohmann::json list = nlohmann::json::array();
  const auto run = [](const ComparedRun& r) {
    return nlohmann::json{{"dir", r.dir}, {"model", r.model}, {"samples", r.samples}};
  };
  for (const Comparison& c : comparisons) {
    nlohmann::json j = {{"a", run(c.a)},
                        {"b", run(c.b)},
                        {"rules_versions", c.rules_versions},
                        {"shared", c.shared},
                        {"paired", c.paired},
                        {"left_out", {{"errored_a", c.errored_a},
                                      {"errored_b", c.errored_b},
                                      {"unscored", c.unscored}}},
                        {"only_a", c.only_a},
                        {"only_b", c.only_b},
                        {"differing", c.differing}};
    // Only in comparisons of repeated samples: "paired" counts the samples with every
    // repeat scored in both runs.
    if (c.repeats > 1) j["repeats"] = c.repeats;
    nlohmann::json subtasks = nlohmann::json::array();
    for (const SubtaskComparison& s : c.subtasks) {
      subtasks.push_back({{"domain", s.domain},
                          {"subtask", s.subtask},
                          {"split", s.split ? nlohmann::json(SplitName(*s.split)) : nlohmann::json()},
                          {"unit", s.per_task ? "task" : "sample"},
                          {"samples", s.samples},
                          {"n", s.units},
                          {"a", s.accuracy_a},
                          {"b", s.accuracy_b},
                          {"difference", s.accuracy_b - s.accuracy_a},
                          {"ci", DifferenceCiJson(s.difference_ci)},
                          {"pass_to_fail", s.pass_to_fail},
                          {"fail_to_pass", s.fail_to_pass},
                          {"sample_pass_to_fail", s.sample_pass_to_fail},
                          {"sample_fail_to_pass", s.sample_fail_to_pass},
                          {"mcnemar_p", s.p},
                          {"holm_p", s.p_holm}});
    }
    j["subtasks"] = std::move(subtasks);
    const auto figure = [](const AggregateRow& r) {
      return nlohmann::json{
          {"a", OptionalJson(r.a)},
          {"b", OptionalJson(r.b)},
          {"difference", r.a && r.b ? nlohmann::json(*r.b - *r.a) : nlohmann::json()},
          {"ci", DifferenceCiJson(r.ci)},
          {"subtasks", {{"scored", r.subtasks.scored},
                        {"of", r.subtasks.of},
                        {"complete", r.subtasks.complete()}}}};
    };
    // AggregateRows' order: Easy and Hard of each paper domain, then overall and All.
    const std::vector<AggregateRow> rows = AggregateRows(c);
    nlohmann::json domains = nlohmann::json::object();
    size_t row = 0;
    for (std::string_view d : kPaperDomains) {
      domains[std::string(d)] = {{"easy", figure(rows[row])}, {"hard", figure(rows[row + 1])}};
      row += 2;
    }
    j["domains"] = std::move(domains);
    j["overall_easy"] = figure(rows[row]);
    j["overall_hard"] = figure(rows[row + 1]);
    j["all"] = figure(rows[row + 2]);
    if (flips) {
      nlohmann::json list_flips = nlohmann::json::array();
      for (const Flip& f : c.flips) {
        list_flips.push_back({{"id", f.id},
                              {"domain", f.domain},
                              {"subtask", f.subtask},
                              {"flip", f.passed_in_a ? "pass_to_fail" : "fail_to_pass"},
                              {"reason_a", f.reason_a},
                              {"reason_b", f.reason_b}});
      }
      j["flips"] = std::move(list_flips);
    }
    list.push_back(std::move(j));
  }
  out["comparisons"] = std::move(list);
  out["intervals"] = {{"confidence", 0.95},
                      {"method", "MOVER (Newcombe's hybrid score interval for paired "
                                 "proportions) from each run's continuity-corrected Wilson "
                                 "interval on its effective sample size and the correlation "
                                 "of the paired verdicts, clustered by source item"},
                      {"test", "McNemar exact (two-sided binomial), Holm across subtasks"}};
  return out;
}

uint64_t SampleFingerprint(const Sample& s) {
  // Each part seeds the next one's hash, so that their boundaries count.
  uint64_t h = 0;
  for (const std::string& part : {s.domain, s.subtask, s.params.dump(), s.context.dump()}) {
    h = FastHash64(part, h);
  }
  for (const Message& m : s.messages) {
    h = FastHash64(m.role, h);
    h = FastHash64(m.content, h);
  }
  return h;
}

}  // namespace structtest
