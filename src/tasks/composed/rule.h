// Composed format rules (issue 52): the parts a `composed` suite builds its prompts from.
// A sample of the suite `composed` asks for a domain's base task (a math word problem,
// ...) and K format rules drawn from the domain's library, K = --rules-per-sample. Each
// rule is one RuleDef, a row of its domain's table (math_rules.cc: MathRules()); the
// tables are listed in composed.cc, the way families are listed in registry.cc, and
// nothing registers itself.
//
// A rule is a whole unit: it knows
//   - its id (the name of its check in every verdict) and one line saying what it asks;
//   - whether it can be drawn for a sample (`applies`) and its parameters (`draw`,
//     from the sample's own random stream and the answer as the earlier rules left it);
//   - the instruction it adds to the prompt, in several phrasings (one chosen by seed);
//   - `apply`: the change that makes a correct answer satisfy it, so that the
//     reference answer (the oracle's) is correct by construction;
//   - `violate`: the smallest change that breaks it and no other rule (the noisy
//     responder, the independence test and the golden failing cases use it);
//   - `check`: its verdict on a response read into parts (Parsed), under the paper's
//     exactness and under strict (strict adds content checks of its own);
//   - the rules it cannot be drawn with (`incompatible`, symmetric).
// Applying and checking work on a domain's Draft (the answer as parts: steps, answer
// line, ...) and Parsed (a response read into the same parts, given which rules the
// sample holds), so that each rule touches only its part of the text and a broken rule
// does not make another one fail (tested for every pair, composed_test.cc).
#ifndef STRUCTTEST_TASKS_COMPOSED_RULE_H_
#define STRUCTTEST_TASKS_COMPOSED_RULE_H_

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "structtest/sample.h"

namespace structtest::composed {

// Where a rule comes from: a format property the paper's subtasks already ask for, or
// one added by the composed suite.
enum class RuleOrigin { kPaper, kNew };

template <typename Draft, typename Parsed>
struct RuleDef {
  std::string_view id;       // "title", "step-count", ...: unique within its domain
  std::string_view summary;  // one line, for docs and `structtest tasks`
  RuleOrigin origin;
  std::span<const std::string_view> incompatible;  // rule ids it is never drawn with
  // Whether the rule can be asked of this answer (an answer in words needs an
  // integer). Null: always.
  bool (*applies)(const Draft& draft) = nullptr;
  // The rule's parameters for this sample (an object; {} when it has none).
  nlohmann::json (*draw)(Rng* rng, const Draft& draft) = nullptr;
  // The instruction's phrasings; `phrasing` < phrasings.
  int phrasings = 1;
  std::string (*instruction)(const nlohmann::json& params, int phrasing) = nullptr;
  void (*apply)(const nlohmann::json& params, Draft* draft) = nullptr;
  void (*violate)(const nlohmann::json& params, Draft* draft) = nullptr;
  // The check's name is the rule's id; detail says what was found.
  RuleCheck (*check)(const nlohmann::json& params, const Parsed& parsed, RuleSet rules) = nullptr;
};

// Whether `a` and `b` (rule ids) may be drawn together: neither lists the other.
template <typename Def>
bool Compatible(const Def& a, const Def& b) {
  if (a.id == b.id) return false;
  for (std::string_view id : a.incompatible) {
    if (id == b.id) return false;
  }
  for (std::string_view id : b.incompatible) {
    if (id == a.id) return false;
  }
  return true;
}

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_RULE_H_
