// The built-in code source: Python programs drawn from our own templates, with names,
// constants and inputs from the seed. Easy: functions of 3-30 lines with arguments
// (string, list and number manipulations with loops and assignments). Hard: 50-200
// line programs that read stdin (a number, a line of integers, a line of words), run
// several helper functions over it and print the results.
//
// Candidates are pure text, a function of (seed, index). Their outputs come from
// running them in the python worker pool's sandbox, in one batched job per call (ops
// "call_values" and "stdin_outputs" of worker.py: every input runs twice, in the job's
// process, with a 1 s limit per run); only candidates whose every input terminates
// within the limit, without an error and with the same result twice, are kept. The
// user's programs (program_loader.h) are never run: their outputs come with them.
// Needs no files.
#ifndef STRUCTTEST_SOURCES_PROGRAM_GENERATOR_H_
#define STRUCTTEST_SOURCES_PROGRAM_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sources/program.h"
#include "structtest/status.h"

namespace structtest {

class PythonPool;

// Inputs of each built-in candidate (the first ones are shown by simulate_execute,
// the first five are the known-good inputs of test_case_inputs_gen).
inline constexpr size_t kProgramInputs = 6;

// Candidate `index` of the stream for `seed`, without outputs. Function candidates
// have ids "fn-NNNN", stdin candidates "prog-NNNN". Thread-safe.
Program FunctionProgramCandidate(uint64_t seed, size_t index);
Program StdinProgramCandidate(uint64_t seed, size_t index);

// Number of function templates and of stdin helper blocks, for tests.
size_t FunctionTemplateCount();
Program FunctionProgramFromTemplate(uint64_t seed, size_t index, size_t template_index);

// The first `count` candidates of the stream that run cleanly, with their outputs
// filled in by the sandbox. Errors: the pool cannot run jobs, or too many candidates
// fail (a broken interpreter). `sandbox_runs`, when given, is increased by the
// number of program runs made.
StatusOr<std::vector<Program>> BuildFunctionPrograms(uint64_t seed, size_t count,
                                                     PythonPool* pool,
                                                     size_t* sandbox_runs = nullptr);
StatusOr<std::vector<Program>> BuildStdinPrograms(uint64_t seed, size_t count,
                                                  PythonPool* pool,
                                                  size_t* sandbox_runs = nullptr);

// Fills `programs[i].outputs` by running every input in the sandbox, all programs in
// one job; a program whose run fails gets its per-input error in *failures (index,
// message) and keeps empty outputs. REQUIRES: all programs call_based or none. Used by
// the builders above.
Status RunPrograms(PythonPool* pool, std::vector<Program>* programs,
                   std::vector<std::pair<size_t, std::string>>* failures,
                   size_t* sandbox_runs = nullptr);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_PROGRAM_GENERATOR_H_
