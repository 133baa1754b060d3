// Generators of the eight code subtasks, and the preparation of the programs they draw
// from. A sample's context carries exactly what the checkers of family.cc read
// (source_code, var_mapping, fn_name, gen_n, call_based, inputs, expected_output,
// task_id, test_index, start/end tags); its target.answer passes the paper checker.
#ifndef STRUCTTEST_TASKS_CODE_GENERATOR_H_
#define STRUCTTEST_TASKS_CODE_GENERATOR_H_

#include <cstddef>
#include <cstdint>

#include "sources/program.h"
#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

class PythonPool;

// Number of Easy programs simulate_execute needs for `samples` samples (one sample per
// test input; built-in functions have 3 tests each), for sizing the built-in source.
size_t CodeProgramsForSimulateSamples(size_t samples);

// Makes `program` ready for the generators: printed_source (the add_print_statements
// answer, from Python's ast through `pool`; the analysis is not kept in the pool),
// where the data gives none a var_mapping of 1-3 (functions) or 2-4 (stdin programs)
// assigned variables drawn from (seed, program id), and renamed_source. Errors name
// the program: its source does not parse, it assigns no variable, or a given
// var_mapping cannot be applied.
Status PrepareCodeProgram(uint64_t seed, PythonPool* pool, Program* program);

namespace code_internal {

StatusOr<Sample> GenerateAddPrintStatements(const GenerateRequest& request);
StatusOr<Sample> GenerateReplaceVariables(const GenerateRequest& request);
StatusOr<Sample> GenerateTestCaseInputsGen(const GenerateRequest& request);
StatusOr<Sample> GenerateSimulateExecute(const GenerateRequest& request);
StatusOr<Sample> GenerateAddPrintStatementsV2(const GenerateRequest& request);
StatusOr<Sample> GenerateReplaceVariablesV2(const GenerateRequest& request);
StatusOr<Sample> GenerateTestCaseInputsGenV2(const GenerateRequest& request);
StatusOr<Sample> GenerateSimulateExecuteV2(const GenerateRequest& request);

}  // namespace code_internal

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_CODE_GENERATOR_H_
