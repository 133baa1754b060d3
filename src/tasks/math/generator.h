// Generators of math_easy and math_hard (internal to the family).
#ifndef STRUCTTEST_TASKS_MATH_GENERATOR_H_
#define STRUCTTEST_TASKS_MATH_GENERATOR_H_

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest::math_internal {

StatusOr<Sample> GenerateMathEasy(const GenerateRequest& request);
StatusOr<Sample> GenerateMathHard(const GenerateRequest& request);

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_GENERATOR_H_
