// The built-in code source: Python programs drawn from our own templates, with names,
// constants and inputs from the seed. Easy: functions of 3-30 lines with arguments
// (string, list and number manipulations with loops and assignments). Hard: 50-200
// line programs that read stdin (a number, a line of integers, a line of words), run
// several helper functions over it and print the results.
//
// Candidates are pure text, a function of (seed, index). Their outputs come from
// running them in the python worker pool's sandbox (ops "call_values" and
// "stdin_outputs" of worker.py: every input runs twice, in the job's process, with a
// 1 s limit per run and at most kProgramOutputCap bytes of result), in jobs of at most
// kProgramsPerJob programs, so that a job's request, its result and the programs in
// flight stay the same size whatever the number of programs asked for. Only
// candidates whose every input terminates within the limits, without an error and
// with the same result twice, are kept; which ones are does not depend on how they
// are grouped into jobs. The user's programs (program_loader.h) are never run: their
// outputs come with them. Needs no files.
#ifndef STRUCTTEST_SOURCES_PROGRAM_GENERATOR_H_
#define STRUCTTEST_SOURCES_PROGRAM_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sources/program.h"
#include "sources/split.h"
#include "structtest/status.h"

namespace structtest {

class PythonPool;

// Inputs of each built-in candidate (the first ones are shown by simulate_execute,
// the first five are the known-good inputs of test_case_inputs_gen).
inline constexpr size_t kProgramInputs = 6;

// Candidate `index` of the stream for `seed`, without outputs. Function candidates
// have ids "fn-NNNN", stdin candidates "prog-NNNN". Thread-safe.
// In the train split (sources/split.h) the ids start "train-" and every function name
// ends with a suffix of its own ("_zorvic").
Program FunctionProgramCandidate(uint64_t seed, size_t index,
                                 SourceSplit split = SourceSplit::kEval);
Program StdinProgramCandidate(uint64_t seed, size_t index, SourceSplit split = SourceSplit::kEval);

// Number of function templates and of stdin helper blocks, for tests.
size_t FunctionTemplateCount();
Program FunctionProgramFromTemplate(uint64_t seed, size_t index, size_t template_index,
                                    SourceSplit split = SourceSplit::kEval);

// Programs per sandbox job when computing outputs (fewer when their results might not
// fit in the worker's result limit of 1 MiB per job).
inline constexpr size_t kProgramsPerJob = 64;
// Bytes of JSON the result of one input may take in such a job (the printed output or
// the repr of the value, or the error); an input giving more fails (an output limit).
inline constexpr size_t kProgramOutputCap = 2048;
// REQUIRES of RunPrograms: no program has more inputs (so that one fits in a job).
inline constexpr size_t kMaxProgramInputs = 256;

// Receives each program kept, in order; an error stops the build and is returned.
using ProgramSink = std::function<Status(Program program)>;

// Passes the first `count` candidates of the stream that run cleanly to `keep`, in
// candidate order, with their outputs filled in by the sandbox; at most
// kProgramsPerJob candidates are held at a time. Errors: the pool cannot run jobs, a
// job failed as a whole (see RunPrograms), too many candidates fail (a broken
// interpreter), or `keep` failed. `sandbox_runs`, when given, is increased by the
// number of program runs made.
Status BuildFunctionPrograms(uint64_t seed, size_t count, PythonPool* pool,
                             const ProgramSink& keep, size_t* sandbox_runs = nullptr,
                             SourceSplit split = SourceSplit::kEval);
Status BuildStdinPrograms(uint64_t seed, size_t count, PythonPool* pool,
                          const ProgramSink& keep, size_t* sandbox_runs = nullptr,
                          SourceSplit split = SourceSplit::kEval);

// Fills `programs[i].outputs` by running every input in the sandbox, in jobs of at
// most `programs_per_job` programs; the outputs and failures are the same however the
// programs are grouped. A program whose run fails gets its problem in *failures
// (index, "input 3: time limit (1 s per run)"; inputs numbered from 1) and keeps empty
// outputs. Errors: the pool cannot run jobs, or a job failed as a whole (killed, out
// of time, no result): the message names the program and input it was running and the
// limit it hit or what happened. REQUIRES: all programs call_based or none, each with
// at most kMaxProgramInputs inputs; programs_per_job > 0. Used by the builders above.
Status RunPrograms(PythonPool* pool, std::vector<Program>* programs,
                   std::vector<std::pair<size_t, std::string>>* failures,
                   size_t* sandbox_runs = nullptr, size_t programs_per_job = kProgramsPerJob);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_PROGRAM_GENERATOR_H_
