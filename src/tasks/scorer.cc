#include "tasks/scorer.h"

#include <fmt/format.h>

#include "tasks/registry.h"

namespace structtest {

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
  return v;
}

}  // namespace structtest
