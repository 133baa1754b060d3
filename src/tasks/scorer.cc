#include "tasks/scorer.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "tasks/registry.h"

namespace structtest {

namespace {

size_t IndexOf(std::span<const RuleSpec> declared, std::string_view name) {
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i].name == name) return i;
  }
  return declared.size();
}

}  // namespace

void CompleteChecks(std::span<const RuleSpec> declared, Verdict* v) {
  using Result = RuleCheck::Result;
  std::vector<RuleCheck> out(declared.size());
  std::vector<bool> recorded(declared.size(), false);
  for (size_t i = 0; i < declared.size(); ++i) out[i].name = declared[i].name;
  std::vector<RuleCheck> unlisted;
  const auto record = [&](size_t i, Result result, std::string detail) {
    out[i].result = result;
    out[i].detail = std::move(detail);
    recorded[i] = true;
  };
  for (RuleCheck& c : v->checks) {
    const size_t i = IndexOf(declared, c.name);
    if (i == declared.size()) {
      unlisted.push_back(std::move(c));
    } else {
      record(i, c.result, std::move(c.detail));
    }
  }
  // Math's two verdict halves are rules of their own where the subtask lists them.
  const auto half = [&](std::string_view name, std::optional<bool> value) {
    const size_t i = IndexOf(declared, name);
    if (!value || i == declared.size() || recorded[i]) return;
    record(i, *value ? Result::kPass : Result::kFail, *value ? "" : v->reason);
  };
  half("format", v->format);
  half("accuracy", v->accuracy);

  const auto failed = [&](size_t i) { return recorded[i] && out[i].result == Result::kFail; };
  bool any_failed = !unlisted.empty();
  for (size_t i = 0; i < declared.size(); ++i) any_failed = any_failed || failed(i);
  if (!v->pass && !any_failed) {
    // The checker names the rule it failed: "<rule>: <detail>" (strict), or the
    // subtask has one rule (paper).
    const size_t colon = v->reason.find(": ");
    const std::string_view named =
        colon == std::string::npos ? std::string_view() : std::string_view(v->reason).substr(0, colon);
    size_t i = named.empty() ? declared.size() : IndexOf(declared, named);
    if (i < declared.size()) {
      record(i, Result::kFail, v->reason.substr(colon + 2));
    } else if (declared.size() == 1) {
      record(0, Result::kFail, v->reason);
    } else {
      // A checker that fails a rule its subtask does not list: shown as it is, so that
      // the verdict still fails on its checks (the contract tests look for these).
      unlisted.push_back({named.empty() ? std::string("unlisted") : std::string(named),
                          Result::kFail, v->reason});
    }
  }
  // Rules nobody recorded: on a pass, each held; on a fail, those of the stages before
  // the first failing one held and the rest were not reached.
  int first_failed_stage = std::numeric_limits<int>::max();
  for (size_t i = 0; i < declared.size(); ++i) {
    if (failed(i)) first_failed_stage = std::min(first_failed_stage, declared[i].stage);
  }
  if (!unlisted.empty()) first_failed_stage = std::numeric_limits<int>::min();
  for (size_t i = 0; i < declared.size(); ++i) {
    if (recorded[i]) continue;
    const bool held = v->pass || declared[i].stage < first_failed_stage;
    out[i].result = held ? Result::kPass : Result::kNotChecked;
    if (v->pass && declared.size() == 1) out[i].detail = v->reason;
  }
  // The list is in the order the rules were decided: a stage's rules are decided
  // together in one scan, which stopped at the failing one, so the rules it left
  // undecided (listed before it or after) come after every rule that was decided.
  std::vector<RuleCheck> checks;
  checks.reserve(out.size() + unlisted.size());
  for (RuleCheck& c : out) {
    if (c.result != Result::kNotChecked) checks.push_back(std::move(c));
  }
  for (RuleCheck& c : unlisted) checks.push_back(std::move(c));
  for (RuleCheck& c : out) {
    if (c.result == Result::kNotChecked) checks.push_back(std::move(c));
  }
  v->checks = std::move(checks);
}

StatusOr<Verdict> ScoreResponse(const Sample& sample, std::string_view response,
                                RuleSet rules, const CheckEnv& env) {
  ASSIGN_OR_RETURN(SubtaskRef ref, FindSubtask(sample.domain, sample.subtask));
  const CheckFn check = ref.spec->checker(rules);
  if (check == nullptr) {
    return Status::Unimplemented(fmt::format("subtask '{}' cannot be scored under the {} rules "
                                             "by this build",
                                             sample.subtask, RuleSetName(rules)));
  }
  ASSIGN_OR_RETURN(Verdict v, ref.family->Check(*ref.spec, rules, sample, response, env));
  v.rules = RuleSetName(rules);
  v.rules_version = ref.family->version(rules);
  CompleteChecks(ref.spec->rule_specs(rules), &v);
  return v;
}

}  // namespace structtest
