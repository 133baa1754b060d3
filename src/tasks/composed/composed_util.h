// What a composed domain's generator and checker share, whatever its rule library:
// drawing K compatible rules, reading a sample's list of rules, and the verdict of a
// list of checks. Templates over the domain's RuleDef (rule.h).
#ifndef STRUCTTEST_TASKS_COMPOSED_COMPOSED_UTIL_H_
#define STRUCTTEST_TASKS_COMPOSED_COMPOSED_UTIL_H_

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/composed/rule.h"

namespace structtest::composed {

// K rules of `library`, pairwise compatible and applicable to `draft`, in the library's
// order. Errors: no such K after 16 shuffles.
template <typename Rule, typename Draft>
StatusOr<std::vector<const Rule*>> DrawCompatibleRules(Rng* rng, std::span<const Rule> library,
                                                       const Draft& draft, int k,
                                                       std::string_view domain) {
  constexpr int kDrawAttempts = 16;
  std::vector<const Rule*> candidates;
  for (const Rule& r : library) {
    if (r.applies == nullptr || r.applies(draft)) candidates.push_back(&r);
  }
  for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
    std::vector<const Rule*> order = candidates;
    rng->Shuffle(&order);
    std::vector<const Rule*> chosen;
    for (const Rule* r : order) {
      if (static_cast<int>(chosen.size()) == k) break;
      if (std::all_of(chosen.begin(), chosen.end(), [&](const Rule* c) { return Compatible(*c, *r); })) {
        chosen.push_back(r);
      }
    }
    if (static_cast<int>(chosen.size()) == k) {
      std::sort(chosen.begin(), chosen.end());  // the table's order: pointers into it
      return chosen;
    }
  }
  return Status::InvalidArgument(fmt::format("no {} compatible {} rules apply to this sample", k, domain));
}

// The rules drawn for a sample, in the library's order: each one's parameters (an object
// with its "id"), and its instruction.
struct AppliedRules {
  nlohmann::json params = nlohmann::json::array();
  std::vector<std::string> instructions;
};

// K rules drawn for `draft` (DrawCompatibleRules), then for each in turn: its parameters
// (from the sample's stream and the draft as the rules before it left it), its change
// applied to the draft, and a phrasing of its instruction picked by the stream.
template <typename Rule, typename Draft>
StatusOr<AppliedRules> DrawAndApplyRules(Rng* rng, std::span<const Rule> library, Draft* draft,
                                         int k, std::string_view domain) {
  STRUCTTEST_ASSIGN_OR_RETURN(const std::vector<const Rule*> rules,
                              DrawCompatibleRules(rng, library, *draft, k, domain));
  AppliedRules out;
  for (const Rule* r : rules) {
    nlohmann::json p = r->draw != nullptr ? r->draw(rng, *draft) : nlohmann::json::object();
    p["id"] = std::string(r->id);
    if (r->apply != nullptr) r->apply(p, draft);
    const int phrasing = static_cast<int>(rng->UniformInt(0, r->phrasings - 1));
    out.instructions.push_back(r->instruction(p, phrasing));
    out.params.push_back(std::move(p));
  }
  return out;
}

// The prompt: the base task, then the rules' instructions, numbered.
inline std::string PromptWithRules(std::string base, const std::vector<std::string>& instructions) {
  base += "\n\nFollow every one of these format rules:";
  for (size_t i = 0; i < instructions.size(); ++i) {
    base += fmt::format("\n{}. {}", i + 1, instructions[i]);
  }
  return base;
}

// Each of the sample's rules (`rules`: params.rules as RulesOfSample read it) checked
// on the parsed response, in the sample's order.
template <typename Rule, typename Parsed>
std::vector<RuleCheck> CheckEachRule(const nlohmann::json& rules, const Parsed& parsed,
                                     RuleSet rule_set, const Rule* (*find)(std::string_view)) {
  std::vector<RuleCheck> out;
  for (const auto& r : rules) out.push_back(find(r["id"].template get<std::string>())->check(r, parsed, rule_set));
  return out;
}

// The sample's params.rules, each an object with a string "id" that `find` knows.
// Errors name the sample and what is wrong.
template <typename Rule>
StatusOr<const nlohmann::json*> RulesOfSample(const Sample& sample, std::string_view domain,
                                               const Rule* (*find)(std::string_view)) {
  const auto rules = sample.params.is_object() ? sample.params.find("rules") : sample.params.end();
  if (!sample.params.is_object() || rules == sample.params.end() || !rules->is_array()) {
    return Status::InvalidArgument(fmt::format("sample '{}': params.rules is not an array of rules", sample.id));
  }
  for (const auto& r : *rules) {
    const auto id = r.is_object() ? r.find("id") : r.end();
    if (!r.is_object() || id == r.end() || !id->is_string()) {
      return Status::InvalidArgument(
          fmt::format("sample '{}': params.rules holds an entry without a string \"id\"", sample.id));
    }
    if (find(id->get<std::string>()) == nullptr) {
      return Status::InvalidArgument(
          fmt::format("sample '{}': unknown {} rule '{}'", sample.id, domain, id->get<std::string>()));
    }
  }
  return &*rules;
}

// The verdict of its checks: a pass when each passes, else the first failing one's reason.
inline Verdict DecidedByChecks(Verdict verdict) {
  verdict.pass = true;
  for (const RuleCheck& c : verdict.checks) {
    if (c.result != RuleCheck::Result::kPass) {
      verdict.pass = false;
      verdict.reason = fmt::format("{}: {}", c.name, c.detail);
      break;
    }
  }
  if (verdict.pass) verdict.reason = fmt::format("all {} checks hold", verdict.checks.size());
  return verdict;
}

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_COMPOSED_UTIL_H_
