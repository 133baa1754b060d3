// Test suites: which subtasks, how many samples of each, and the data they are drawn
// from. `default` uses the built-in sources (no files needed; a new seed gives a new
// test set); `paper` is the paper's design over the user's data files.
#ifndef STRUCTTEST_TASKS_SUITE_H_
#define STRUCTTEST_TASKS_SUITE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sources/document.h"
#include "sources/math_problem.h"
#include "sources/program_store.h"
#include "structtest/generate.h"
#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/registry.h"
#include "tasks/task.h"

namespace structtest {

// The suite spec is the public GenerateOptions (structtest/generate.h), taken as it is
// by CheckSuiteOptions and Suite::Plan: its split is read from its name there, and its
// shard is applied by whoever walks the samples (SuiteGenerator, the run).

class PythonPool;


struct PlannedSubtask {
  SubtaskRef ref;
  size_t count = 0;
};

// The paper's number of samples for a subtask (1200 per summarization subtask, 240
// Easy and 199 Hard code samples, except 725 for simulate_execute: one per MBPP test
// input of the 240 functions; 300 per HTML split, 1319 per math split).
size_t PaperSampleCount(const SubtaskRef& ref);

// Every subtask named by `tasks` (subtask or domain names; empty: all), in registry
// order. Errors name an unknown name, with a suggestion.
StatusOr<std::vector<SubtaskRef>> ResolveTasks(const std::vector<std::string>& tasks);

// The composed suite's format rules per sample: rules_per_sample, or the difficulty's
// number, or the default (3); 0 for another suite. Errors name the option: either given
// to another suite, both given, a number out of 1..8, an unknown level.
StatusOr<int> ComposedRulesPerSample(const GenerateOptions& options);

// What Suite::Plan checks before it prepares anything: the split's name, the suite's
// name, the size, the task names, and (paper suite) that the data files its subtasks draw from are given.
// Cheap: no file is read. Errors name the option.
Status CheckSuiteOptions(const GenerateOptions& options);

class Suite {
 public:
  // Resolves the task list and loads or builds the sources. Errors name the unknown
  // task (with a suggestion), the missing data (every file the suite needs), or the
  // file that could not be read. `sentences` may be null; generating from loaded
  // documents then fails per sample with a clear error. The code subtasks need python3
  // to prepare their programs (built-in programs are run in the sandbox for their
  // outputs): `python` when given (not owned, must outlive the call), else the suite
  // starts a pool of its own, only when code subtasks are selected. Only the programs
  // the samples draw from are prepared, a batch at a time, and they are kept in a
  // temporary file (sources/program_store.h), so memory does not grow with --size.
  static StatusOr<std::unique_ptr<Suite>> Plan(const GenerateOptions& options,
                                               const SentenceSplitter* sentences,
                                               PythonPool* python = nullptr);

  const std::vector<PlannedSubtask>& subtasks() const { return subtasks_; }
  // Subtasks left out because this build cannot generate them, for a warning.
  const std::vector<std::string>& skipped() const { return skipped_; }
  // What the user should know of the suite's sources, a sentence each: a data file with
  // fewer items than a subtask's samples, used again from its start.
  const std::vector<std::string>& notes() const { return notes_; }
  size_t total() const;

  // Program runs made in the sandbox while planning (built-in code programs), for
  // reports and benchmarks.
  size_t sandbox_runs() const { return sandbox_runs_; }

  // Sample `index` of `planned`.
  StatusOr<Sample> Generate(const PlannedSubtask& planned, size_t index) const;

 private:
  Suite() = default;

  GenerateOptions options_;
  const SentenceSplitter* sentences_ = nullptr;
  std::vector<PlannedSubtask> subtasks_;
  std::vector<std::string> skipped_;
  std::vector<std::string> notes_;
  std::vector<Document> documents_;
  std::vector<MathProblem> math_problems_;
  std::unique_ptr<ProgramStore> functions_;
  std::unique_ptr<ProgramStore> stdin_programs_;
  size_t sandbox_runs_ = 0;
  SourceSet sources_;
};

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_SUITE_H_
