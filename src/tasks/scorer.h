// Scores one record: finds its subtask in the registry, runs the checker of the chosen
// rule set and stamps the verdict with the rule set and checker version.
#ifndef STRUCTTEST_TASKS_SCORER_H_
#define STRUCTTEST_TASKS_SCORER_H_

#include <span>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

// Completes `v->checks` to one entry per declared rule: what the checker recorded, the
// rule its failing reason names ("<rule>: ..."), math's format and accuracy where
// listed, and for the rest what the stages imply (see RuleSpec). A failing rule the list
// lacks is added as it is (a checker bug the tests look for). The entries are in the
// order the rules were decided: every passed or failed rule in the declared order, then
// the rules not checked, so that no rule listed before a decided one is "not-checked"
// (a rule that shares the failing rule's stage was left undecided by the scan).
void CompleteChecks(std::span<const RuleSpec> declared, Verdict* v);

// Errors: unknown domain/subtask, a subtask this build cannot score, a rule set not
// implemented for it, unusable params. Never a wrong answer: that is a failing Verdict.
StatusOr<Verdict> ScoreResponse(const Sample& sample, std::string_view response,
                                RuleSet rules, const CheckEnv& env);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_SCORER_H_
