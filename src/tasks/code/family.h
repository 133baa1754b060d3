// The code family: StructTest's four code subtasks, each in an Easy split (MBPP
// functions of 3-30 lines, called with arguments) and a Hard split (`*_v2`: 50-200 line
// programs reading stdin). add_print_statements and replace_variables check an edited
// copy of the source; test_case_inputs_gen runs the source on the model's inputs;
// simulate_execute compares the model's predicted output with the real one.
//
// The checkers need the python3 worker pool (CheckEnv::python): Python's ast decides
// what parses and what is assigned, and evaluating answers or running programs happens
// in the pool's sandbox, never in this process. Without a pool, or without a usable
// python3, a code sample gets an error (not a failing verdict); other domains are
// unaffected.
#ifndef STRUCTTEST_TASKS_CODE_FAMILY_H_
#define STRUCTTEST_TASKS_CODE_FAMILY_H_

#include <string>

#include "structtest/sample.h"
#include "tasks/task.h"

namespace structtest {

const TaskFamily& CodeFamily();

// Per-input time limit of test_case_inputs_gen, as in the reference harness.
inline constexpr int kCodeInputSeconds = 4;
// Time allowed for evaluating a simulate_execute answer (the reference had none).
inline constexpr int kCodeEvalSeconds = 10;

// The paper reports simulate_execute (Easy) per MBPP task: a task counts as solved only
// when all of its samples `<task_id>_<k>` pass. This is the task a sample belongs to:
// context.task_id when present, else the id up to its last '_'; empty for samples of
// other subtasks.
std::string SimulateExecuteTaskKey(const Sample& sample);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_CODE_FAMILY_H_
