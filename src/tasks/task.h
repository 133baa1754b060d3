// What a task family is: a descriptor (domain, description, a rules version per rule
// set) and its subtasks, each with a checker per rule set (paper, strict) and the
// built-in cheating answers the strict checkers are tested against.
// Families are listed in the one table of registry.cc; nothing registers itself.
#ifndef STRUCTTEST_TASKS_TASK_H_
#define STRUCTTEST_TASKS_TASK_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "sources/split.h"
#include "tasks/params.h"

namespace structtest {

class PythonPool;
class SentenceSplitter;
struct Document;
struct MathProblem;
class ProgramStore;

// What a checker may use besides the sample and the response. Not owned.
struct CheckEnv {
  // The Punkt sentence splitter; null when no model was found. Checkers that count
  // sentences return an error (not a failing verdict) when it is null.
  const SentenceSplitter* sentences = nullptr;
  // The sandboxed python3 worker pool (src/sandbox/python_pool.h); null when the caller
  // provides none. Code checkers return an error (not a failing verdict) when it is
  // null or cannot start python3.
  PythonPool* python = nullptr;
};

// Scores `response` for `sample`, whose params its family parsed into `params`. A
// wrong answer is a failing Verdict with a reason; an error Status means the sample
// itself cannot be scored (missing or malformed params, missing sentence model) and is
// reported per record, never as a fail. The returned Verdict's rules/rules_version are
// filled in by the caller.
using CheckFn = StatusOr<Verdict> (*)(const Sample& sample, const SampleParams& params,
                                      std::string_view response, const CheckEnv& env);

// Fills the family's member of *out from `params` (the sample's JSON object; views into
// it): the keys its checkers of `rules` read, and only those, as scoring under one rule
// set should not pay for the other's. Never fails: a key that cannot be read holds its
// error (see tasks/params.h).
using ParseParamsFn = void (*)(const nlohmann::json& params, RuleSet rules, SampleParams* out);

// The data generators draw from (built-in or the user's), not owned. A generator whose
// source is empty returns an error naming what is missing.
struct SourceSet {
  std::span<const Document> documents;
  std::span<const MathProblem> math_problems;
  // The built-in documents and problems are made on demand instead, when their span
  // is empty and the count is set: item i is GenerateDocument / GenerateMathProblem
  // (seed, i), so a suite of any size holds none of them in memory.
  uint64_t generated_seed = 0;
  size_t generated_documents = 0;
  size_t generated_math_problems = 0;
  // Code: functions for the Easy subtasks, stdin programs for the Hard ones, prepared
  // (PrepareCodeProgram, code/generator.h) and read back one at a time when a sample
  // needs one, so that a suite holds none of them in memory either. Null: none.
  const ProgramStore* functions = nullptr;
  const ProgramStore* stdin_programs = nullptr;
  // The built-in sources' split (sources/split.h): train suites draw from items no eval
  // suite has, and their HTML prompts are worded apart.
  SourceSplit split = SourceSplit::kEval;
};

struct GenerateRequest {
  uint64_t seed = 0;
  size_t index = 0;  // sample number within its subtask
  const SourceSet* sources = nullptr;
  // Splits loaded documents (which carry no key sentences) for the reference answer;
  // may be null when only built-in documents are used.
  const SentenceSplitter* sentences = nullptr;
};

// Builds sample `index` of a subtask: a pure function of the request, so the same seed
// and sources give byte-identical samples on every machine. The sample carries the
// prompt (messages) and a target whose "answer" is a response that passes the paper
// checker: the built-in oracle responder returns it.
using GenerateFn = StatusOr<Sample> (*)(const GenerateRequest& request);

// A built-in cheating answer to a generated sample (src/tasks/responders.h): it uses
// the sample's prompt, params, context and target, never a model. Errors: the sample
// lacks what the cheat needs (a target, a source program), named.
using CheatFn = StatusOr<std::string> (*)(const Sample& sample);

enum class Split { kEasy, kHard };

// A rule a subtask's checker enforces under one rule set, named as its verdicts name it
// (a strict reason starts "<name>: "). The rules of a stage are checked together (one
// scan that stops at the first problem of any of them), and a stage only when every
// stage before it passed: so a failing rule tells which others passed (the earlier
// stages) and which were not checked (the rest), unless the checker recorded them.
struct RuleSpec {
  std::string_view name;
  int stage;
};

struct SubtaskSpec {
  std::string_view name;         // e.g. "bullet_points"
  Split split;
  std::string_view description;  // one line, for `structtest tasks`
  std::string_view params;       // the params it reads, for `structtest tasks`
  CheckFn check_paper;           // null: not implemented in this build
  bool needs_sentences;          // counts sentences with Punkt
  GenerateFn generate = nullptr;  // null: this build cannot generate it
  // Set for subtasks the paper reports per task rather than per sample
  // (simulate_execute: an MBPP task counts as solved only when all of its samples
  // pass): the task a sample belongs to.
  std::string (*task_key)(const Sample& sample) = nullptr;
  // The strict rule set's checker (docs/strict.md); null: not implemented in this build.
  CheckFn check_strict = nullptr;
  // `builtin/skeleton`: the target's structure with its content replaced by filler.
  // `builtin/loophole`: the cheapest answer that passes the paper checker without doing
  // the task. Null: the responder answers this subtask with nothing.
  CheatFn skeleton = nullptr;
  CheatFn loophole = nullptr;
  // The rules of check_paper and check_strict, in the order they are checked; every
  // verdict lists each of them (Verdict::checks).
  std::span<const RuleSpec> paper_rules = {};
  std::span<const RuleSpec> strict_rules = {};

  CheckFn checker(RuleSet rules) const {
    return rules == RuleSet::kPaper ? check_paper : check_strict;
  }
  std::span<const RuleSpec> rule_specs(RuleSet rules) const {
    return rules == RuleSet::kPaper ? paper_rules : strict_rules;
  }
};

struct TaskFamily {
  std::string_view domain;         // "summarization", "code", "html", "math"
  std::string_view description;
  // Changes whenever any verdict of this family's paper checkers may change; stored
  // with every verdict.
  std::string_view rules_version;
  std::span<const SubtaskSpec> subtasks;
  // The same for its strict checkers ("strict-1", ...).
  std::string_view strict_rules_version = "";
  // Its checkers call the sandboxed python pool (CheckEnv::python): each check waits
  // on a python3 worker, so callers score these records on several threads
  // (tasks/score_stage.h).
  bool needs_python = false;
  // Parses a sample's params for its checkers; null: the family's checkers read none.
  ParseParamsFn parse_params = nullptr;

  std::string_view version(RuleSet rules) const {
    return rules == RuleSet::kPaper ? rules_version : strict_rules_version;
  }

  // Parses what the checker of `rules` of `spec` (one of this family's subtasks) reads
  // from the sample's params, once, and runs it. REQUIRES: spec.checker(rules) is set.
  StatusOr<Verdict> Check(const SubtaskSpec& spec, RuleSet rules, const Sample& sample,
                          std::string_view response, const CheckEnv& env) const {
    assert(spec.checker(rules) != nullptr && "Check() of a checker this build lacks");
    SampleParams params;
    if (parse_params != nullptr) parse_params(sample.params, rules, &params);
    return spec.checker(rules)(sample, params, response, env);
  }
};

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_TASK_H_
