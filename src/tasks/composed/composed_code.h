// The composed suite's code domain (issue 52): subtasks code_composed_k1..k8, a given
// Python function rewritten under K format rules of the code rule library
// (code_rules.h). Its generator draws the function from the suite's prepared built-in
// functions (the code family's source, SourceSet::functions); its checkers run no
// code. composed.cc lists the family with the others.
#ifndef STRUCTTEST_TASKS_COMPOSED_COMPOSED_CODE_H_
#define STRUCTTEST_TASKS_COMPOSED_COMPOSED_CODE_H_

#include <functional>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

// The composed code family ("code", rules versions paper-c1 and strict-c1).
const TaskFamily& ComposedCodeFamily();

// The reference answer of a composed code sample with the rules for which `broken`
// holds broken (by each one's violation). Errors: the sample is not one, or lacks the
// context its answer is rebuilt from.
StatusOr<std::string> ComposedCodeAnswerWithBroken(
    const Sample& sample, const std::function<bool(std::string_view)>& broken);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_COMPOSED_COMPOSED_CODE_H_
