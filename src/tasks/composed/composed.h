// The `composed` suite (issue 52): per domain, a base task with K format rules drawn
// from the domain's rule library (rule.h), K = 1..kMaxRulesPerSample, a difficulty dial.
// Each (domain, K) is a subtask of a family of its own, "<domain>_composed_k<K>"
// (math_composed_k3), so that reports show accuracy by K with its interval. These
// families are not in the registry's table of paper families (Families()): the default
// and paper suites never draw them; FindSubtask finds them, so `score`, `run --samples`
// and the serve command score them like any subtask. Every verdict lists each of the
// sample's rules as a check, then the domain's own checks (math: `answer`, and `work`
// under strict; summarization: `points`, and `content` under strict; html:
// `well-formed`, and `content` under strict).
#ifndef STRUCTTEST_TASKS_COMPOSED_COMPOSED_H_
#define STRUCTTEST_TASKS_COMPOSED_COMPOSED_H_

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

inline constexpr int kMaxRulesPerSample = 8;
inline constexpr int kDefaultRulesPerSample = 3;

// Every composed family (rules versions "paper-cN" and "strict-cN": the rule set, then
// the composed checks' version, as the verdicts' rules are read from them), one per
// domain that has a rule library: summarization, math, html.
std::span<const TaskFamily* const> ComposedFamilies();

// The subtask of `domain`'s composed family with K rules per sample, or null.
const SubtaskSpec* ComposedSubtask(const TaskFamily& family, int rules_per_sample);

// A rule of a domain's library, for docs, `structtest tasks` and tests.
struct ComposedRuleInfo {
  std::string_view domain, id, summary;
  bool from_paper;  // a format property a paper subtask already asks for
};
std::vector<ComposedRuleInfo> ComposedRules();

// `builtin/noisy-P`: the reference answer of a composed sample with each of its rules
// broken, independently, with probability p (by the rule's own violation, which breaks
// it and no other rule); the draws are seeded by the sample, so the same sample gets the
// same answer. Errors: not a composed sample, or one without the target it rebuilds the
// answer from.
StatusOr<std::string> NoisyComposedAnswer(const Sample& sample, double p);

// The reference answer of a composed sample with exactly the rules named in `broken`
// broken (ids of its rules), for the independence tests. Errors as NoisyComposedAnswer.
StatusOr<std::string> ComposedAnswerBreaking(const Sample& sample,
                                             const std::vector<std::string>& broken);

// The reference answer of a composed sample with each of its content parts (math's
// steps, summarization's points) replaced by rewrite(i, part), every format rule's change
// kept: the red team's cheats of content (composed_test.cc). Errors as NoisyComposedAnswer.
StatusOr<std::string> ComposedAnswerRewriting(
    const Sample& sample, const std::function<std::string(size_t, const std::string&)>& rewrite);

// The rules per sample a difficulty level stands for: easy 2, medium 4, hard 6,
// extreme 8. Errors name the level and the known ones.
StatusOr<int> RulesForDifficulty(std::string_view level);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_COMPOSED_COMPOSED_H_
