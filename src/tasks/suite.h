// Test suites: which subtasks, how many samples of each, and the data they are drawn
// from. `default` uses the built-in sources (no files needed; a new seed gives a new
// test set); `paper` is the paper's design over the user's data files.
#ifndef STRUCTTEST_TASKS_SUITE_H_
#define STRUCTTEST_TASKS_SUITE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sources/document.h"
#include "sources/math_problem.h"
#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/registry.h"
#include "tasks/task.h"

namespace structtest {

struct SuiteOptions {
  std::string suite = "default";  // "default" or "paper"
  uint64_t seed = 0;
  // Subtask or domain names; empty means every subtask.
  std::vector<std::string> tasks;
  // Scale of the paper's sample counts (1 = paper size); at least one sample each.
  double size = 1.0;
  // The user's data (required by `paper`, optional for `default`).
  std::string documents;  // JSONL/CSV with a text column, or a folder of .txt files
  std::string mbpp;       // MBPP-style JSON
  std::string apps;       // APPS-style JSON
  std::string gsm8k;      // GSM8K JSONL
};

struct PlannedSubtask {
  SubtaskRef ref;
  size_t count = 0;
};

// The paper's number of samples for a subtask (1200 per summarization subtask, 240
// Easy and 199 Hard code samples, 300 per HTML split, 1319 per math split).
size_t PaperSampleCount(const SubtaskRef& ref);

class Suite {
 public:
  // Resolves the task list and loads or builds the sources. Errors name the unknown
  // task (with a suggestion), the missing data (every file the suite needs), or the
  // file that could not be read. `sentences` may be null; generating from loaded
  // documents then fails per sample with a clear error.
  static StatusOr<std::unique_ptr<Suite>> Plan(const SuiteOptions& options,
                                               const SentenceSplitter* sentences);

  const std::vector<PlannedSubtask>& subtasks() const { return subtasks_; }
  // Subtasks left out because this build cannot generate them, for a warning.
  const std::vector<std::string>& skipped() const { return skipped_; }
  size_t total() const;

  // Sample `index` of `planned`.
  StatusOr<Sample> Generate(const PlannedSubtask& planned, size_t index) const;

 private:
  Suite() = default;

  SuiteOptions options_;
  const SentenceSplitter* sentences_ = nullptr;
  std::vector<PlannedSubtask> subtasks_;
  std::vector<std::string> skipped_;
  std::vector<Document> documents_;
  std::vector<MathProblem> math_problems_;
  SourceSet sources_;
};

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_SUITE_H_
