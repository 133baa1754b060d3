#include "tasks/scorer.h"

#include <fmt/format.h>

#include "tasks/registry.h"

namespace structtest {

StatusOr<Verdict> ScoreResponse(const Sample& sample, std::string_view response,
                                RuleSet rules, const CheckEnv& env) {
  ASSIGN_OR_RETURN(SubtaskRef ref, FindSubtask(sample.domain, sample.subtask));
  if (rules != RuleSet::kPaper) {
    return Status::Unimplemented(fmt::format("rule set '{}' is not implemented for {} yet",
                                             RuleSetName(rules), sample.subtask));
  }
  if (ref.spec->check_paper == nullptr) {
    return Status::Unimplemented(
        fmt::format("subtask '{}' cannot be scored by this build yet", sample.subtask));
  }
  ASSIGN_OR_RETURN(Verdict v, ref.spec->check_paper(sample, response, env));
  v.rules = RuleSetName(rules);
  v.rules_version = ref.family->rules_version;
  return v;
}

}  // namespace structtest
