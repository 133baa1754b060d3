// The code family's strict rule set (docs/strict.md): what each prompt asked,
// judged as a careful grader would. Programs are compared by their syntax trees and
// answers are parsed as Python literals, by Python's ast in a sandboxed job of the
// worker pool: model text is never evaluated, in this process or elsewhere (test
// inputs, once parsed as literals, are passed to the task's function in the sandbox,
// the way the paper runs them).
//
// Also the built-in cheating answers of the code subtasks (`builtin/skeleton`,
// `builtin/loophole`), which the strict checkers must reject.
#ifndef STRUCTTEST_TASKS_CODE_STRICT_H_
#define STRUCTTEST_TASKS_CODE_STRICT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

// The strict rules version of the code family; changes with any rule or constant.
inline constexpr std::string_view kCodeStrictRulesVersion = "strict-3";

// The largest answer (the text between the tags) a strict code checker looks at: a
// correct answer to any code subtask is a few kilobytes (the Hard programs have at
// most 200 lines), and a larger one would only cost parse time.
inline constexpr size_t kMaxStrictAnswerBytes = size_t{1} << 20;

namespace code_internal {

// The answer strict takes from a response: Windows line endings become '\n'; the text
// of the one <ans>...</ans> pair (a start tag, then the next end tag; a second pair is
// a second answer); for code, the body of the one fenced block inside it when there is
// one. `fenced` says whether to look for a fence. On failure *reason is the verdict's
// reason and false is returned.
bool StrictAnswer(const Sample& sample, std::string_view response, bool fenced,
                  std::string* answer, std::string* reason);

StatusOr<Verdict> CheckAddPrintStatementsStrict(const Sample& sample, const SampleParams&,
                                                std::string_view response, const CheckEnv& env);
StatusOr<Verdict> CheckReplaceVariablesStrict(const Sample& sample, const SampleParams&,
                                              std::string_view response, const CheckEnv& env);
StatusOr<Verdict> CheckTestCaseInputsGenStrict(const Sample& sample, const SampleParams&,
                                               std::string_view response, const CheckEnv& env);
StatusOr<Verdict> CheckSimulateExecuteStrict(const Sample& sample, const SampleParams&,
                                             std::string_view response, const CheckEnv& env);

// builtin/skeleton: the target's structure with its content replaced by filler.
StatusOr<std::string> SkeletonAddPrint(const Sample& sample);
StatusOr<std::string> SkeletonReplaceVariables(const Sample& sample);
StatusOr<std::string> SkeletonTestInputs(const Sample& sample);
StatusOr<std::string> SkeletonSimulate(const Sample& sample);

// builtin/loophole: the cheapest answer that passes the paper checker without doing
// the task (stdin simulate_execute has none: see the function).
StatusOr<std::string> LoopholeAddPrint(const Sample& sample);
StatusOr<std::string> LoopholeReplaceVariables(const Sample& sample);
StatusOr<std::string> LoopholeTestInputs(const Sample& sample);
StatusOr<std::string> LoopholeSimulate(const Sample& sample);

}  // namespace code_internal

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_CODE_STRICT_H_
