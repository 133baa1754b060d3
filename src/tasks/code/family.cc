#include "tasks/code/family.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "sandbox/python_pool.h"
#include "tasks/code/common.h"
#include "tasks/code/generator.h"
#include "tasks/code/rules.h"
#include "tasks/code/strict.h"
#include "tasks/params.h"

namespace structtest {

namespace {

using namespace code_internal;

Verdict Fail(std::string reason) { return MakeVerdict(false, std::move(reason)); }

int64_t JsonInt(const nlohmann::json& j, const char* key, int64_t fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// ---- sample fields -------------------------------------------------------------------

struct Tags {
  std::string_view start = "<ans>";
  std::string_view end = "</ans>";
};

// Missing tags default to the paper's <ans> pair; present but mistyped is an error.
StatusOr<Tags> GetTags(const Sample& sample) {
  Tags tags;
  if (!sample.context.is_object()) return tags;
  using namespace std::string_view_literals;
  for (auto [key, tag] : {std::pair{"start_tag"sv, &tags.start}, std::pair{"end_tag"sv, &tags.end}}) {
    const auto it = sample.context.find(key);
    if (it == sample.context.end()) continue;
    if (!it->is_string()) {
      return Status::InvalidArgument(
          fmt::format("context.{}: expected a string, found {}", key, it->type_name()));
    }
    *tag = it->get_ref<const std::string&>();
  }
  if (tags.start.empty() || tags.end.empty()) {
    return Status::InvalidArgument("context: start_tag and end_tag must not be empty");
  }
  return tags;
}

// A view into `response` or into *storage.
StatusOr<std::string_view> Answer(const Sample& sample, std::string_view response,
                                  std::string* storage) {
  ASSIGN_OR_RETURN(Tags tags, GetTags(sample));
  return ExtractCodeSpan(response, tags.start, tags.end, storage);
}

// ---- add_print_statements ------------------------------------------------------------

bool ContainsPrintOf(std::string_view line, std::string_view name) {
  return line.find(fmt::format("\"{}: \", str({})", name, name)) != std::string_view::npos ||
         line.find(fmt::format("'{}: ', str({})", name, name)) != std::string_view::npos;
}

StatusOr<Verdict> CheckAddPrintStatements(const Sample& sample, const SampleParams&,
                                          std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  std::string storage;
  ASSIGN_OR_RETURN(std::string_view answer_span, Answer(sample, response, &storage));
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  ASSIGN_OR_RETURN(const SourceAnalysis* analysis, pool->Analyze(source));
  if (!analysis->parses) {
    return Status::InvalidArgument(fmt::format(
        "context.source_code does not parse as Python ({})", analysis->error));
  }
  const std::string_view answer = FirstFencedBlockOrText(answer_span);

  // Source lines keep their index in source.split('\n'), which the analysis uses.
  struct SourceLine {
    std::string_view text;
    size_t index;
  };
  thread_local std::vector<SourceLine> source_lines;
  thread_local std::vector<std::string_view> lines;  // the answer's non-empty lines, stripped
  source_lines.clear();
  lines.clear();
  size_t index = 0;
  for (size_t start = 0;; ++index) {
    const size_t nl = source.find('\n', start);
    const std::string_view line = source.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (!line.empty()) source_lines.push_back({line, index});
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  if (analysis->lines.size() != index + 1) {
    return Status::Internal("python worker: analysis does not match the source's lines");
  }
  for (size_t start = 0;;) {
    const size_t nl = answer.find('\n', start);
    const std::string_view line = answer.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (!line.empty()) lines.push_back(PyStrip(line));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  if (lines.size() < source_lines.size()) {
    return Fail(fmt::format("the answer has {}, fewer than the {} of the source code",
                            Plural(static_cast<int64_t>(lines.size()), "non-empty line"),
                            source_lines.size()));
  }
  int checked = 0;
  for (size_t k = 0; k < source_lines.size(); ++k) {
    const std::string_view line = source_lines[k].text;
    if (line.find('=') == std::string_view::npos) continue;
    const LineAnalysis& info = analysis->lines[source_lines[k].index];
    if (!info.parses) continue;
    if (k == 0 && line.find("def ") != std::string_view::npos) continue;
    if (line.find("return ") != std::string_view::npos) continue;
    const std::string_view stripped = PyStrip(line);
    size_t at = lines.size();
    for (size_t j = lines.size(); j-- > 0;) {
      if (lines[j] == stripped) {
        at = j;
        break;
      }
    }
    if (at == lines.size()) {
      return Fail(fmt::format("the source line {} is missing from the answer (or was changed)",
                              Quote(stripped)));
    }
    ++checked;
    bool needs_print = false;
    for (const std::string& name : info.names) needs_print |= analysis->HasName(name);
    if (!needs_print) {
      if (at + 1 == lines.size()) {
        return Fail(fmt::format("the source line {} is the last line of the answer: a line "
                                "must follow it",
                                Quote(stripped)));
      }
      continue;
    }
    if (at + 1 == lines.size()) {
      return Fail(fmt::format("the source line {} is the last line of the answer: a print of "
                              "its variables must follow it",
                              Quote(stripped)));
    }
    const std::string_view next = lines[at + 1];
    for (const std::string& name : info.names) {
      if (!analysis->HasName(name)) continue;
      if (!next.starts_with("print(")) {
        return Fail(fmt::format("the line after {} is {}, not a print( of {}",
                                Quote(stripped), Quote(next), name));
      }
      if (!ContainsPrintOf(next, name)) {
        return Fail(fmt::format("the print after {} does not contain \"{}: \", str({})",
                                Quote(stripped), name, name));
      }
    }
  }
  return Pass(fmt::format("every assignment line of the source is in the answer, followed "
                          "by a print of its variables ({} checked)",
                          Plural(checked, "line")));
}

// ---- replace_variables ---------------------------------------------------------------

// context.var_mapping, checked: a list of "old:new" strings with one colon each.
StatusOr<const nlohmann::json*> GetMapping(const Sample& sample) {
  ASSIGN_OR_RETURN(const nlohmann::json* mapping,
                   GetField(sample.context, "context", "var_mapping"));
  if (!mapping->is_array()) {
    return Status::InvalidArgument("context.var_mapping: expected a list of \"old:new\"");
  }
  for (size_t i = 0; i < mapping->size(); ++i) {
    const nlohmann::json& m = (*mapping)[i];
    if (!m.is_string()) {
      return Status::InvalidArgument(
          fmt::format("context.var_mapping[{}]: expected a string \"old:new\"", i));
    }
    const std::string& e = m.get_ref<const std::string&>();
    const size_t colon = e.find(':');
    if (colon == std::string::npos || e.find(':', colon + 1) != std::string::npos) {
      // The reference's `old, new = m.split(':')` fails on these.
      return Status::InvalidArgument(fmt::format(
          "context.var_mapping[{}]: '{}' is not of the form old:new (one colon)", i, e));
    }
  }
  return mapping;
}

std::vector<Renaming> Renamings(const nlohmann::json& mapping) {
  std::vector<Renaming> out;
  for (const auto& m : mapping) {
    const std::string& e = m.get_ref<const std::string&>();
    const size_t colon = e.find(':');
    out.emplace_back(e.substr(0, colon), e.substr(colon + 1));
  }
  return out;
}

// The key of a (source, mapping) in the pool's memo. A view of a thread-local buffer.
std::string_view RenamingKey(std::string_view source, const nlohmann::json& mapping) {
  thread_local std::string key;
  key.assign("replace_variables\n");
  for (const auto& m : mapping) {
    key += m.get_ref<const std::string&>();
    key += '\n';
  }
  key += source;
  return key;
}

// The source with the renamings applied and whitespace removed, once per distinct
// (source, mapping). Plain identifier renamings are done here; anything else (the
// reference pastes `old` into a regular expression) by Python's re in the sandbox.
StatusOr<const std::string*> ExpectedRenamedSource(PythonPool* pool, std::string_view source,
                                                   const nlohmann::json& mapping) {
  return pool->Memo(RenamingKey(source, mapping), [&]() -> StatusOr<std::string> {
    const std::vector<Renaming> renamings = Renamings(mapping);
    bool native = true;
    for (const auto& [o, n] : renamings) native = native && IsPyWord(o) && IsPyWord(n);
    if (native) return RemovePyWhitespace(RenameWholeWords(source, renamings));
    ASSIGN_OR_RETURN(nlohmann::json r,
                     pool->RunJob({{"op", "subst"}, {"source", source}, {"mapping", mapping}},
                                  kCodeEvalSeconds));
    if (JsonHas(r, "bad_mapping")) {
      return Status::InvalidArgument(fmt::format(
          "context.var_mapping: not usable as the reference's regular expression: {}",
          JsonString(r, "bad_mapping")));
    }
    if (!JsonHas(r, "code")) {
      return Status::Internal(SandboxProblem(r, "renaming the source with Python's re"));
    }
    return RemovePyWhitespace(JsonString(r, "code"));
  });
}

StatusOr<Verdict> CheckReplaceVariables(const Sample& sample, const SampleParams&,
                                        std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  ASSIGN_OR_RETURN(const nlohmann::json* mapping, GetMapping(sample));
  std::string storage;
  ASSIGN_OR_RETURN(std::string_view answer_span, Answer(sample, response, &storage));
  const std::string_view answer = FirstFencedBlockOrText(answer_span);

  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  ASSIGN_OR_RETURN(const std::string* expected, ExpectedRenamedSource(pool, source, *mapping));
  size_t answer_at;
  const size_t at = MismatchIgnoringPyWhitespace(answer, *expected, &answer_at);
  if (at == std::string_view::npos) {
    static const std::vector<std::string> kReasons = [] {
      std::vector<std::string> r;
      for (int n = 0; n <= 32; ++n) {
        r.push_back(fmt::format("the answer is the source with the {} applied (whitespace "
                                "ignored)",
                                Plural(n, "renaming")));
      }
      return r;
    }();
    if (mapping->size() < kReasons.size()) return Pass(kReasons[mapping->size()]);
    return Pass(fmt::format("the answer is the source with the {} applied (whitespace "
                            "ignored)",
                            Plural(static_cast<int64_t>(mapping->size()), "renaming")));
  }
  // Show both from a little before the first difference (equal up to `at`).
  const size_t from = at > 20 ? PrevCodePointStart(*expected, at - 20 + 1) : 0;
  const std::string_view exp_part = std::string_view(*expected).substr(from);
  std::string got_part(std::string_view(*expected).substr(from, at - from));
  got_part += RemovePyWhitespace(answer.substr(answer_at), 64);
  std::string reason;
  reason.reserve(320);
  reason += "the answer is not the source with the renamings ";
  if (mapping->empty()) reason += "(none)";
  for (size_t k = 0; k < mapping->size(); ++k) {
    if (k > 0) reason += ", ";
    const std::string& e = (*mapping)[k].get_ref<const std::string&>();
    const size_t colon = e.find(':');
    reason.append(e, 0, colon).append("->").append(e, colon + 1);
  }
  reason += " applied (whitespace ignored): from character ";
  reason += std::to_string(from + 1);
  reason += " of the code without whitespace, expected ";
  reason += exp_part.empty() ? "the end" : Quote(exp_part, 50);
  reason += ", found ";
  reason += got_part.empty() ? "the end" : Quote(got_part, 50);
  return Fail(std::move(reason));
}

// ---- test_case_inputs_gen ------------------------------------------------------------

Verdict RunResults(const nlohmann::json& r, const std::vector<std::string>& shown_inputs,
                   int64_t n) {
  if (JsonHas(r, "load_error")) {
    return Fail(fmt::format("the task's code does not load: {}", JsonString(r, "load_error")));
  }
  const auto it = r.find("results");
  if (it == r.end() || !it->is_array() || static_cast<int64_t>(it->size()) > n) {
    return Fail(SandboxProblem(r, "running the program on the inputs"));
  }
  // The worker stops at the first input that fails.
  for (size_t k = 0; k < it->size(); ++k) {
    const nlohmann::json& res = (*it)[k];
    if (JsonTrue(res, "ok")) continue;
    const std::string what =
        k < shown_inputs.size() ? fmt::format("input {} ({})", k + 1, shown_inputs[k])
                                : fmt::format("input {}", k + 1);
    if (JsonTrue(res, "timeout")) {
      return Fail(fmt::format("{}: the program did not finish within {} s", what,
                              kCodeInputSeconds));
    }
    return Fail(fmt::format("{}: the program failed: {}", what, JsonString(res, "error")));
  }
  if (static_cast<int64_t>(it->size()) != n) {
    return Fail(SandboxProblem(r, "running the program on the inputs"));
  }
  return Pass(fmt::format("the program runs without an error on all {}",
                          Plural(n, "input")));
}

StatusOr<Verdict> CheckCallInputs(const Sample& sample, std::string_view answer,
                                  PythonPool* pool, int64_t n) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  ASSIGN_OR_RETURN(const std::string* fn_name, GetString(sample.context, "context", "fn_name"));
  int64_t non_empty = 0;
  for (std::string_view line : SplitChar(answer, '\n')) non_empty += !PyStrip(line).empty();
  if (non_empty < n) {
    return Fail(fmt::format("expected {} (one Python expression per line), found only {}",
                            Plural(n, "test input"), Plural(non_empty, "non-empty line")));
  }
  ASSIGN_OR_RETURN(nlohmann::json r,
                   pool->RunJob({{"op", "calls"},
                                 {"source", source},
                                 {"fn_name", *fn_name},
                                 {"answer", answer},
                                 {"gen_n", n},
                                 {"timeout", kCodeInputSeconds}},
                                static_cast<double>(n * kCodeInputSeconds + kJobMarginSeconds)));
  if (!JsonHas(r, "count")) return Fail(SandboxProblem(r, "evaluating the input lines"));
  const int64_t count = JsonInt(r, "count", -1);
  if (count != n) {
    std::string why = fmt::format("expected {}, found {} that evaluate as Python",
                                  Plural(n, "test input line"), count);
    const auto dropped = r.find("dropped");
    if (dropped != r.end() && dropped->is_array() && !dropped->empty()) {
      const nlohmann::json& d = (*dropped)[0];
      why += fmt::format(" ({} dropped, e.g. line {} {}: {})",
                         JsonInt(r, "dropped_count", 0), JsonInt(d, "line", 0),
                         Quote(JsonString(d, "text"), 40), JsonString(d, "error"));
    }
    return Fail(std::move(why));
  }
  std::vector<std::string> shown;
  if (const auto lines = r.find("lines"); lines != r.end() && lines->is_array()) {
    const auto all = SplitChar(answer, '\n');
    for (const auto& l : *lines) {
      const int64_t i = l.is_number_integer() ? l.get<int64_t>() : 0;
      shown.push_back(i >= 1 && static_cast<size_t>(i) <= all.size()
                          ? fmt::format("line {} {}", i, Quote(PyStrip(all[i - 1]), 40))
                          : "?");
    }
  }
  return RunResults(r, shown, n);
}

StatusOr<Verdict> CheckStdinInputs(const Sample& sample, std::string_view answer,
                                   PythonPool* pool, int64_t n) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  std::vector<std::string_view> inputs;
  size_t start = 0;
  for (;;) {
    const size_t at = answer.find(kSplitMarker, start);
    const std::string_view item =
        answer.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    if (!PyStrip(item).empty()) inputs.push_back(item);
    if (at == std::string_view::npos) break;
    start = at + kSplitMarker.size();
  }
  if (static_cast<int64_t>(inputs.size()) != n) {
    return Fail(fmt::format("expected {} separated by {}, found {}",
                            Plural(n, "non-empty stdin input"), kSplitMarker, inputs.size()));
  }
  nlohmann::json list = nlohmann::json::array();
  std::vector<std::string> shown;
  for (std::string_view in : inputs) {
    list.push_back(std::string(in));
    shown.push_back(Quote(PyStrip(in), 40));
  }
  ASSIGN_OR_RETURN(nlohmann::json r,
                   pool->RunJob({{"op", "stdin"},
                                 {"source", source},
                                 {"inputs", list},
                                 {"timeout", kCodeInputSeconds}},
                                static_cast<double>(n * kCodeInputSeconds + kJobMarginSeconds)));
  return RunResults(r, shown, n);
}

StatusOr<Verdict> CheckTestCaseInputsGen(const Sample& sample, const SampleParams&,
                                         std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(int64_t n, GenN(sample));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  std::string storage;
  ASSIGN_OR_RETURN(std::string_view answer, Answer(sample, response, &storage));
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  if (call_based) {
    ASSIGN_OR_RETURN(PythonInfo info, pool->Info());
    if (info.numpy.empty()) {
      return Status::Unavailable(fmt::format(
          "test_case_inputs_gen runs code after the reference's preamble, which imports "
          "numpy, and {} cannot import it ({}): install numpy for it (Debian: "
          "python3-numpy) or set STRUCTTEST_PYTHON to an interpreter that has it",
          info.executable.empty() ? info.python : info.executable, info.numpy_error));
    }
    return CheckCallInputs(sample, answer, pool, n);
  }
  return CheckStdinInputs(sample, answer, pool, n);
}

// ---- simulate_execute ----------------------------------------------------------------

StatusOr<Verdict> CheckSimulateExecute(const Sample& sample, const SampleParams&,
                                       std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(const std::string* expected,
                   GetString(sample.context, "context", "expected_output"));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  std::string storage;
  ASSIGN_OR_RETURN(std::string_view answer, Answer(sample, response, &storage));
  if (!call_based) {
    const std::string_view want = PyStrip(*expected);
    if (answer == want) return Pass("the answer is the expected output");
    const auto got_lines = SplitChar(answer, '\n');
    const auto want_lines = SplitChar(want, '\n');
    for (size_t i = 0; i < std::min(got_lines.size(), want_lines.size()); ++i) {
      if (got_lines[i] != want_lines[i]) {
        return Fail(fmt::format("the answer differs from the expected output at line {}: "
                                "expected {}, found {}",
                                i + 1, Quote(want_lines[i]), Quote(got_lines[i])));
      }
    }
    return Fail(fmt::format("the answer has {}, the expected output {}",
                            Plural(static_cast<int64_t>(got_lines.size()), "line"),
                            want_lines.size()));
  }
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  if (answer.empty()) return Fail("the answer is empty");
  ASSIGN_OR_RETURN(nlohmann::json r, pool->RunJob({{"op", "simulate"},
                                                   {"answer", answer},
                                                   {"expected", *expected}},
                                                  kCodeEvalSeconds));
  if (JsonHas(r, "bad_expected")) {
    return Status::InvalidArgument(fmt::format(
        "context.expected_output does not evaluate as Python: {}", JsonString(r, "bad_expected")));
  }
  if (JsonHas(r, "eval_error")) {
    return Fail(fmt::format("the answer {} does not evaluate as Python: {}", Quote(answer),
                            JsonString(r, "eval_error")));
  }
  if (JsonHas(r, "compare_error")) {
    return Fail(fmt::format("the answer's value {} cannot be compared with the expected {}: {}",
                            JsonString(r, "answer"), JsonString(r, "expected"),
                            JsonString(r, "compare_error")));
  }
  if (!JsonHas(r, "pass")) return Fail(SandboxProblem(r, "evaluating the answer"));
  if (JsonTrue(r, "pass")) {
    return Pass(fmt::format("the answer equals the expected output {}", JsonString(r, "expected")));
  }
  return Fail(fmt::format("the answer evaluates to {}, expected {}", JsonString(r, "answer"),
                          JsonString(r, "expected")));
}

// The rules each checker lists (RuleSpec): the paper's one test each; strict's the tables
// of docs/strict.md, after the answer's own rules (one scan, stage 0), in the order the
// worker's jobs reach them.
constexpr RuleSpec kPaperAddPrint[] = {{"prints-added", 0}};
constexpr RuleSpec kPaperRename[] = {{"renamed", 0}};
constexpr RuleSpec kPaperInputs[] = {{"inputs-run", 0}};
constexpr RuleSpec kPaperSimulate[] = {{"output-matches", 0}};
constexpr RuleSpec kStrictAddPrint[] = {
    {"answer-tags", 0}, {"one-answer", 0}, {"answer-size", 0}, {"answer-empty", 0},
    {"answer-parses", 1}, {"program-unchanged", 2}, {"print-form", 2},
    {"print-reads", 3}, {"print-bound", 3}, {"print-after-assignment", 4}};
constexpr RuleSpec kStrictRename[] = {
    {"answer-tags", 0}, {"one-answer", 0}, {"answer-size", 0}, {"answer-empty", 0},
    {"answer-parses", 1}, {"program-renamed", 2}};
constexpr RuleSpec kStrictCallInputs[] = {
    {"answer-tags", 0}, {"one-answer", 0}, {"answer-size", 0}, {"answer-empty", 0},
    {"input-count", 1}, {"input-literal", 2}, {"inputs-distinct", 2}, {"input-fits", 3},
    {"input-runs", 4}};
constexpr RuleSpec kStrictStdinInputs[] = {
    {"answer-tags", 0}, {"one-answer", 0}, {"answer-size", 0}, {"answer-empty", 0},
    {"input-count", 1}, {"inputs-distinct", 2}, {"input-runs", 3}};
constexpr RuleSpec kStrictCallSimulate[] = {
    {"answer-tags", 0}, {"one-answer", 0}, {"answer-size", 0}, {"answer-empty", 0},
    {"answer-literal", 1}, {"value-matches", 2}};
constexpr RuleSpec kStrictStdinSimulate[] = {
    {"answer-tags", 0}, {"one-answer", 0}, {"answer-size", 0}, {"answer-empty", 0},
    {"output-matches", 1}};

constexpr SubtaskSpec kSubtasks[] = {
    {"add_print_statements", Split::kEasy,
     "after each assignment in a function, print the assigned variables",
     "context: source_code", &CheckAddPrintStatements, false,
     &code_internal::GenerateAddPrintStatements, nullptr,
     &code_internal::CheckAddPrintStatementsStrict, &code_internal::SkeletonAddPrint,
     &code_internal::LoopholeAddPrint, kPaperAddPrint, kStrictAddPrint},
    {"replace_variables", Split::kEasy, "rename a function's variables by a mapping",
     "context: source_code, var_mapping", &CheckReplaceVariables, false,
     &code_internal::GenerateReplaceVariables, nullptr,
     &code_internal::CheckReplaceVariablesStrict, &code_internal::SkeletonReplaceVariables,
     &code_internal::LoopholeReplaceVariables, kPaperRename, kStrictRename},
    {"test_case_inputs_gen", Split::kEasy,
     "write gen_n argument lists on which a function runs without an error",
     "context: source_code, fn_name, gen_n", &CheckTestCaseInputsGen, false,
     &code_internal::GenerateTestCaseInputsGen, nullptr,
     &code_internal::CheckTestCaseInputsGenStrict, &code_internal::SkeletonTestInputs,
     &code_internal::LoopholeTestInputs, kPaperInputs, kStrictCallInputs},
    {"simulate_execute", Split::kEasy, "predict what a function returns for given arguments",
     "context: fn_name, inputs, expected_output", &CheckSimulateExecute, false,
     &code_internal::GenerateSimulateExecute, &SimulateExecuteTaskKey,
     &code_internal::CheckSimulateExecuteStrict, &code_internal::SkeletonSimulate,
     &code_internal::LoopholeSimulate, kPaperSimulate, kStrictCallSimulate},
    {"add_print_statements_v2", Split::kHard,
     "after each assignment in a stdin program, print the assigned variables",
     "context: source_code", &CheckAddPrintStatements, false,
     &code_internal::GenerateAddPrintStatementsV2, nullptr,
     &code_internal::CheckAddPrintStatementsStrict, &code_internal::SkeletonAddPrint,
     &code_internal::LoopholeAddPrint, kPaperAddPrint, kStrictAddPrint},
    {"replace_variables_v2", Split::kHard, "rename a stdin program's variables by a mapping",
     "context: source_code, var_mapping", &CheckReplaceVariables, false,
     &code_internal::GenerateReplaceVariablesV2, nullptr,
     &code_internal::CheckReplaceVariablesStrict, &code_internal::SkeletonReplaceVariables,
     &code_internal::LoopholeReplaceVariables, kPaperRename, kStrictRename},
    {"test_case_inputs_gen_v2", Split::kHard,
     "write gen_n stdin inputs, separated by <SPLIT>, on which a program runs without an "
     "error",
     "context: source_code, gen_n, call_based=false", &CheckTestCaseInputsGen, false,
     &code_internal::GenerateTestCaseInputsGenV2, nullptr,
     &code_internal::CheckTestCaseInputsGenStrict, &code_internal::SkeletonTestInputs,
     &code_internal::LoopholeTestInputs, kPaperInputs, kStrictStdinInputs},
    {"simulate_execute_v2", Split::kHard, "predict what a program prints for a given stdin",
     "context: inputs, expected_output, call_based=false", &CheckSimulateExecute, false,
     &code_internal::GenerateSimulateExecuteV2, nullptr,
     &code_internal::CheckSimulateExecuteStrict, &code_internal::SkeletonSimulate,
     &code_internal::LoopholeSimulate, kPaperSimulate, kStrictStdinSimulate},
};

}  // namespace

std::string SimulateExecuteTaskKey(const Sample& sample) {
  if (sample.subtask != "simulate_execute") return "";
  if (sample.context.is_object()) {
    if (auto it = sample.context.find("task_id"); it != sample.context.end()) {
      if (it->is_string()) return it->get<std::string>();
      if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
    }
  }
  const size_t us = sample.id.rfind('_');
  return us == std::string::npos ? sample.id : sample.id.substr(0, us);
}

const TaskFamily& CodeFamily() {
  static constexpr TaskFamily kFamily{
      "code", "edit, test and simulate Python code (MBPP functions, stdin programs)",
      "paper-1", kSubtasks, kCodeStrictRulesVersion, /*needs_python=*/true};
  return kFamily;
}

}  // namespace structtest
