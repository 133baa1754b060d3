// The public entry point of structtest's checkers: the subtasks this build knows, and a
// Checker that scores a response to a sample under a rule set, code subtasks included
// (through the sandboxed python3 worker pool). `structtest score`'s verdicts, for
// programs that link the library: the Python module and `structtest serve` use it.
#ifndef STRUCTTEST_CHECKER_H_
#define STRUCTTEST_CHECKER_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// One subtask of the registry, as `structtest tasks` lists it.
struct SubtaskInfo {
  std::string domain;       // "summarization", "code", "html", "math"
  std::string name;         // "bullet_points"
  std::string split;        // "easy" or "hard"
  std::string description;  // one line
  std::string params;       // the params and context fields its checkers read
  std::string paper_version, strict_version;  // rules versions ("" where not implemented)
  std::vector<std::string> paper_rules, strict_rules;  // a verdict's checks, in order
  bool counts_sentences = false;  // needs the Punkt model
  bool runs_python = false;       // scored through the python3 worker pool
};

// Every subtask, in the registry's order.
std::vector<SubtaskInfo> Subtasks();

struct CheckerOptions {
  // Folder holding tokenizers/punkt_tab/english; "": $NLTK_DATA's, else the built-in
  // model (as `score`).
  std::string nltk_data;
  // The python3 of the code subtasks and the worker script; "": as PythonOptions
  // (sandbox/python_pool.h) finds them.
  std::string python;
  std::string worker_script;
  // python3 workers (code samples scored at once); 0: one per core.
  int python_workers = 0;
};

// The threads (and python3 workers) scoring takes when given 0: one per core.
int DefaultScoreJobs();

// Scores responses. What the checkers need (the sentence model, the python3 workers) is
// made on first need and kept. Thread-safe: Check and CheckBatch may be called from many
// threads at once.
class Checker {
 public:
  explicit Checker(CheckerOptions options = {});
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // The verdict of `response` for `sample` under `rules`, as `structtest score` gives it.
  // Errors (the sample cannot be scored, never a wrong answer): unknown subtask, unusable
  // params, the sentence model or python3 unavailable; each names what is wrong.
  StatusOr<Verdict> Check(const Sample& sample, std::string_view response, RuleSet rules);

  // Check of each (samples[i], responses[i]) on up to `threads` threads (0: one per
  // core), in order. REQUIRES: samples.size() == responses.size().
  std::vector<StatusOr<Verdict>> CheckBatch(std::span<const Sample> samples,
                                            std::span<const std::string> responses,
                                            RuleSet rules, int threads = 0);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace structtest

#endif  // STRUCTTEST_CHECKER_H_
