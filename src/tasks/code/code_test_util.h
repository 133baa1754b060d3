// Test helpers shared by the code family's tests.
#ifndef STRUCTTEST_TASKS_CODE_CODE_TEST_UTIL_H_
#define STRUCTTEST_TASKS_CODE_CODE_TEST_UTIL_H_

#include <string_view>

#include <gtest/gtest.h>

#include "tasks/code/family.h"

namespace structtest {

// The code subtask `name`; a test failure (and the first subtask) when there is none.
inline const SubtaskSpec& Spec(std::string_view name) {
  for (const SubtaskSpec& s : CodeFamily().subtasks) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << "no subtask " << name;
  return CodeFamily().subtasks[0];
}

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_CODE_CODE_TEST_UTIL_H_
