// Generators of html_easy and html_hard (internal to the family).
#ifndef STRUCTTEST_TASKS_HTML_GENERATOR_H_
#define STRUCTTEST_TASKS_HTML_GENERATOR_H_

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest::html_internal {

StatusOr<Sample> GenerateHtmlEasy(const GenerateRequest& request);
StatusOr<Sample> GenerateHtmlHard(const GenerateRequest& request);

}  // namespace structtest::html_internal

#endif  // STRUCTTEST_TASKS_HTML_GENERATOR_H_
