// Generators of the seven summarization subtasks (internal to the family).
#ifndef STRUCTTEST_TASKS_SUMMARIZATION_GENERATOR_H_
#define STRUCTTEST_TASKS_SUMMARIZATION_GENERATOR_H_

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest::summarization_internal {

StatusOr<Sample> GenerateLength(const GenerateRequest& request);
StatusOr<Sample> GenerateBulletPoints(const GenerateRequest& request);
StatusOr<Sample> GenerateNumberedPoints(const GenerateRequest& request);
StatusOr<Sample> GenerateQuestions(const GenerateRequest& request);
StatusOr<Sample> GenerateBulletPointsLength(const GenerateRequest& request);
StatusOr<Sample> GenerateNumberedPointsLength(const GenerateRequest& request);
StatusOr<Sample> GenerateIndentedBulletPoints(const GenerateRequest& request);

}  // namespace structtest::summarization_internal

#endif  // STRUCTTEST_TASKS_SUMMARIZATION_GENERATOR_H_
