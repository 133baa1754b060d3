#include "tasks/code/generator.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "core/rng.h"
#include "sandbox/python_pool.h"
#include "sources/program_store.h"
#include "tasks/code/rules.h"
#include "tasks/generate_util.h"

namespace structtest {

namespace {

constexpr std::string_view kStartTag = "<ans>";
constexpr std::string_view kEndTag = "</ans>";
constexpr int kGenN = 5;                  // the paper's gen_n
constexpr size_t kBuiltinTestInputs = 3;  // must match program_generator.cc

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

// True when `word` occurs in `text` as a whole \w run.
bool HasWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !IsWordChar(text[at - 1]);
    const size_t end = at + word.size();
    const bool right = end == text.size() || !IsWordChar(text[end]);
    if (left && right) return true;
  }
  return false;
}

// The add_print_statements answer: after each source line the checker examines, a
// print of the line's plain-assigned names (all in one print, the checker reads only
// the next line), or `pass` when such a line without names would otherwise be last.
std::string PrintedSource(std::string_view source, const SourceAnalysis& analysis) {
  std::vector<std::string_view> lines;
  for (std::string_view l : SplitChar(source, '\n')) lines.push_back(l);
  size_t last_non_empty = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].empty()) last_non_empty = i;
  }
  std::string out;
  bool first_non_empty = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (i) out += '\n';
    out += line;
    if (line.empty()) continue;
    const bool is_first = first_non_empty;
    first_non_empty = false;
    if (line.find('=') == std::string_view::npos) continue;
    if (i >= analysis.lines.size() || !analysis.lines[i].parses) continue;
    if (is_first && line.find("def ") != std::string_view::npos) continue;
    if (line.find("return ") != std::string_view::npos) continue;
    const std::string_view indent = line.substr(0, line.find_first_not_of(" \t"));
    std::vector<std::string> args;
    for (const std::string& name : analysis.lines[i].names) {
      if (analysis.HasName(name)) args.push_back(fmt::format("\"{}: \", str({})", name, name));
    }
    if (!args.empty()) {
      out += fmt::format("\n{}print({})", indent, fmt::join(args, ", "));
    } else if (i == last_non_empty) {
      out += fmt::format("\n{}pass", indent);
    }
  }
  return out;
}

StatusOr<std::vector<std::string>> DeriveMapping(uint64_t seed, const Program& p,
                                                 const SourceAnalysis& analysis) {
  Rng rng = Rng(seed).Fork("var-mapping").Fork(p.id);
  std::vector<std::string> names;
  for (const std::string& n : analysis.names) {
    if (IsPyWord(n) && n.size() < 40) names.push_back(n);
  }
  rng.Shuffle(&names);
  const int64_t lo = p.call_based() ? 1 : 2, hi = p.call_based() ? 3 : 4;
  const size_t want = static_cast<size_t>(rng.UniformInt(lo, hi));
  static const std::vector<std::string> kSuffixes = {"var", "val", "new", "renamed", "v2", "item"};
  std::vector<std::string> mapping, taken;
  for (const std::string& old : names) {
    if (mapping.size() == want) break;
    std::string fresh;
    for (int attempt = 0; attempt < 12 && fresh.empty(); ++attempt) {
      std::string c = old + "_" + rng.Pick(kSuffixes);
      if (attempt >= 6) c += std::to_string(attempt);
      if (!HasWord(p.source, c) && std::find(taken.begin(), taken.end(), c) == taken.end()) {
        fresh = c;
      }
    }
    if (fresh.empty()) continue;
    taken.push_back(fresh);
    mapping.push_back(old + ":" + fresh);
  }
  return mapping;
}

std::vector<Renaming> RenamingsOfNames(const std::vector<std::string>& mapping) {
  std::vector<Renaming> out;
  for (const std::string& e : mapping) {
    const size_t colon = e.find(':');
    out.emplace_back(e.substr(0, colon), e.substr(colon + 1));
  }
  return out;
}

// The source with the renamings applied as the checker applies them: plain
// identifiers here, anything else (the reference pastes `old` into a regular
// expression) by Python's re in the sandbox.
StatusOr<std::string> Renamed(PythonPool* pool, const Program& p) {
  const std::vector<Renaming> renamings = RenamingsOfNames(p.var_mapping);
  bool native = true;
  for (const auto& [o, n] : renamings) native = native && IsPyWord(o) && IsPyWord(n);
  if (native) return RenameWholeWords(p.source, renamings);
  ASSIGN_OR_RETURN(nlohmann::json r,
                   pool->RunJob({{"op", "subst"}, {"source", p.source}, {"mapping", p.var_mapping}},
                                10));
  const auto it = r.find("code");
  if (it == r.end() || !it->is_string()) {
    return Status::InvalidArgument(fmt::format(
        "program '{}': var_mapping cannot be applied as the reference applies it: {}", p.id,
        r.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 200)));
  }
  return it->get<std::string>();
}

// ---- generators ------------------------------------------------------------------------

// The programs of the request's split. Errors: there are none.
StatusOr<const ProgramStore*> Programs(const GenerateRequest& request, bool call_based) {
  const ProgramStore* programs = nullptr;
  if (request.sources != nullptr) {
    programs = call_based ? request.sources->functions : request.sources->stdin_programs;
  }
  if (programs == nullptr || programs->empty()) {
    return Status::InvalidArgument(call_based
                                       ? "the Easy code subtasks need functions (none were given)"
                                       : "the Hard code subtasks need stdin programs (none were "
                                         "given)");
  }
  return programs;
}

// Sample `index` draws from program `index` (wrapping around).
StatusOr<Program> GetProgram(const GenerateRequest& request, bool call_based) {
  ASSIGN_OR_RETURN(const ProgramStore* programs, Programs(request, call_based));
  return programs->Get(request.index % programs->size());
}

// MBPP task ids are numbers in the paper's data; keep them numbers.
nlohmann::json TaskId(const Program& p) {
  if (!p.task_id.empty() && p.task_id.size() < 18 &&
      std::all_of(p.task_id.begin(), p.task_id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::stoll(p.task_id);
  }
  return p.task_id;
}

Sample Start(const GenerateRequest& request, std::string_view subtask, const Program& p,
             std::string prompt) {
  Sample s = NewSample(request, "code", subtask, std::move(prompt));
  s.params = nlohmann::json::object();
  s.context = {{"start_tag", kStartTag}, {"end_tag", kEndTag}, {"task_id", TaskId(p)}};
  return s;
}

std::string What(const Program& p) {
  return p.call_based() ? "Python function" : "Python program (it reads standard input)";
}

std::string CodeBlock(std::string_view code) { return fmt::format("```python\n{}\n```", code); }

StatusOr<Sample> AddPrint(const GenerateRequest& request, std::string_view subtask,
                          bool call_based) {
  ASSIGN_OR_RETURN(const Program p, GetProgram(request, call_based));
  if (p.printed_source.empty()) {
    return Status::Internal(fmt::format("program '{}' was not prepared", p.id));
  }
  const std::string prompt = fmt::format(
      "Here is a {}.\n\n{}\n\nAdd print statements to it: directly after every line that "
      "assigns a variable with `=`, insert a new line, with the same indentation, that "
      "prints each variable assigned on that line in the form "
      "`print(\"NAME: \", str(NAME))`, where NAME is the variable's name. When one line "
      "assigns several variables, print all of them in that one new line, e.g. "
      "`print(\"a: \", str(a), \"b: \", str(b))`. Keep every other line of the code "
      "exactly as it is.\n\nWrite the whole modified code, in a ```python code block, "
      "between {} and {}.",
      What(p), CodeBlock(p.source), kStartTag, kEndTag);
  Sample s = Start(request, subtask, p, prompt);
  s.context["source_code"] = p.source;
  s.target = {{"answer", fmt::format("{}\n{}\n{}", kStartTag, CodeBlock(p.printed_source),
                                     kEndTag)}};
  return s;
}

StatusOr<Sample> Rename(const GenerateRequest& request, std::string_view subtask,
                        bool call_based) {
  ASSIGN_OR_RETURN(const Program p, GetProgram(request, call_based));
  if (p.var_mapping.empty() || p.renamed_source.empty()) {
    return Status::Internal(fmt::format("program '{}' has no var_mapping", p.id));
  }
  std::string list;
  for (const auto& [o, n] : RenamingsOfNames(p.var_mapping)) {
    list += fmt::format("- {} -> {}\n", o, n);
  }
  const std::string prompt = fmt::format(
      "Here is a {}.\n\n{}\n\nRename its variables as follows (old name -> new name), "
      "applying the renamings in this order:\n{}\nReplace every occurrence of an old name "
      "as a whole word, except where it follows a dot (an attribute), and change nothing "
      "else.\n\nWrite the whole modified code, in a ```python code block, between {} and "
      "{}.",
      What(p), CodeBlock(p.source), list, kStartTag, kEndTag);
  Sample s = Start(request, subtask, p, prompt);
  s.context["source_code"] = p.source;
  s.context["var_mapping"] = p.var_mapping;
  s.target = {{"answer", fmt::format("{}\n{}\n{}", kStartTag, CodeBlock(p.renamed_source),
                                     kEndTag)}};
  return s;
}

StatusOr<Sample> TestInputs(const GenerateRequest& request, std::string_view subtask,
                            bool call_based) {
  ASSIGN_OR_RETURN(const Program p, GetProgram(request, call_based));
  // Known-good inputs, each once: the prompt asks for different inputs, and a
  // program's inputs may repeat (they are drawn at random).
  std::vector<std::string> usable;
  for (const std::string& in : p.inputs) {
    const bool fits = call_based ? in.find_first_of("\r\n") == std::string::npos
                                 : in.find("<SPLIT>") == std::string::npos && !PyStrip(in).empty();
    const bool repeated = std::any_of(usable.begin(), usable.end(), [&](const std::string& u) {
      return PyStrip(u) == PyStrip(in);
    });
    if (fits && !repeated) usable.push_back(in);
  }
  if (usable.empty()) {
    return Status::InvalidArgument(fmt::format(
        "program '{}': no input can serve as a known-good test input", p.id));
  }
  // Ask for as many as the target can give (the paper's 5 when there are).
  const int gen_n = static_cast<int>(std::min<size_t>(kGenN, usable.size()));
  std::string prompt, answer;
  if (call_based) {
    prompt = fmt::format(
        "Here is a Python function named `{}`.\n\n{}\n\nWrite {} different test inputs for "
        "it on which it runs without raising an error. Write each input on its own line "
        "as a Python list of the arguments of one call (for a function of two arguments: "
        "[first, second]), one line per input and nothing else, all between {} and {}.",
        p.fn_name, CodeBlock(p.source), gen_n, kStartTag, kEndTag);
    for (int i = 0; i < gen_n; ++i) answer += "[" + usable[i] + "]\n";
  } else {
    prompt = fmt::format(
        "Here is a Python program that reads its input from standard input.\n\n{}\n\n"
        "Write {} different inputs for it on which it runs without an error. Write each "
        "input exactly as the program reads it from standard input, separate consecutive "
        "inputs by the marker <SPLIT>, and put all of them between {} and {}.",
        CodeBlock(p.source), gen_n, kStartTag, kEndTag);
    for (int i = 0; i < gen_n; ++i) {
      if (i) answer += "<SPLIT>";
      answer += usable[i];
    }
  }
  Sample s = Start(request, subtask, p, prompt);
  s.context["source_code"] = p.source;
  if (call_based) s.context["fn_name"] = p.fn_name;
  s.context["gen_n"] = gen_n;
  s.context["call_based"] = call_based;
  s.target = {{"answer", fmt::format("{}\n{}{}", kStartTag, answer, kEndTag)}};
  return s;
}

}  // namespace

size_t CodeProgramsForSimulateSamples(size_t samples) {
  return (samples + kBuiltinTestInputs - 1) / kBuiltinTestInputs;
}

Status PrepareCodeProgram(uint64_t seed, PythonPool* pool, Program* program) {
  Program& p = *program;
  ASSIGN_OR_RETURN(const SourceAnalysis analysis, pool->AnalyzeUncached(p.source));
  if (!analysis.parses) {
    return Status::InvalidArgument(fmt::format(
        "program '{}': the source does not parse as Python ({})", p.id, analysis.error));
  }
  p.printed_source = PrintedSource(p.source, analysis);
  if (p.var_mapping.empty()) {
    ASSIGN_OR_RETURN(p.var_mapping, DeriveMapping(seed, p, analysis));
  }
  if (p.var_mapping.empty()) {
    return Status::InvalidArgument(
        fmt::format("program '{}': no variable to rename (no plain assignment)", p.id));
  }
  ASSIGN_OR_RETURN(p.renamed_source, Renamed(pool, p));
  return Status::Ok();
}

namespace code_internal {

StatusOr<Sample> GenerateAddPrintStatements(const GenerateRequest& request) {
  return AddPrint(request, "add_print_statements", true);
}
StatusOr<Sample> GenerateAddPrintStatementsV2(const GenerateRequest& request) {
  return AddPrint(request, "add_print_statements_v2", false);
}
StatusOr<Sample> GenerateReplaceVariables(const GenerateRequest& request) {
  return Rename(request, "replace_variables", true);
}
StatusOr<Sample> GenerateReplaceVariablesV2(const GenerateRequest& request) {
  return Rename(request, "replace_variables_v2", false);
}
StatusOr<Sample> GenerateTestCaseInputsGen(const GenerateRequest& request) {
  return TestInputs(request, "test_case_inputs_gen", true);
}
StatusOr<Sample> GenerateTestCaseInputsGenV2(const GenerateRequest& request) {
  return TestInputs(request, "test_case_inputs_gen_v2", false);
}

// One sample per (function, test input), functions in order: sample `index` is the
// index-th pair, wrapping around.
StatusOr<Sample> GenerateSimulateExecute(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(const ProgramStore* programs, Programs(request, true));
  if (programs->test_pairs() == 0) {
    return Status::InvalidArgument("the functions have no test inputs");
  }
  const auto [i, at] = programs->TestPair(request.index % programs->test_pairs());
  ASSIGN_OR_RETURN(const Program p, programs->Get(i));
  const std::string call = fmt::format("{}({})", p.fn_name, p.inputs[at]);
  const std::string prompt = fmt::format(
      "Here is a Python function.\n\n{}\n\nWhat does the call `{}` return? Work it out "
      "step by step if you like, then write the returned value as a Python literal (as "
      "repr() would show it) between {} and {}, with nothing else between those tags.",
      CodeBlock(p.source), call, kStartTag, kEndTag);
  Sample s = Start(request, "simulate_execute", p, prompt);
  s.context["test_index"] = at;
  s.context["fn_name"] = p.fn_name;
  s.context["inputs"] = p.inputs[at];
  s.context["expected_output"] = p.outputs[at];
  if (at < p.exact_outputs.size() && p.exact_outputs[at] == '1') {
    // What strict compares answers with exactly (types included), without calling
    // the function again for every sample.
    s.context["expected_is_returned"] = true;
  }
  s.context["call_based"] = true;
  s.context["source_code"] = p.source;
  s.target = {{"answer", fmt::format("{}{}{}", kStartTag, p.outputs[at], kEndTag)}};
  return s;
}

StatusOr<Sample> GenerateSimulateExecuteV2(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(const Program p, GetProgram(request, false));
  const std::string prompt = fmt::format(
      "Here is a Python program that reads standard input.\n\n{}\n\nIts standard input "
      "is:\n```\n{}\n```\n\nWhat exactly does it print? Work it out step by step if you "
      "like, then write its exact output between {} and {}, with nothing else between "
      "those tags.",
      CodeBlock(p.source), PyStrip(p.inputs[0]), kStartTag, kEndTag);
  Sample s = Start(request, "simulate_execute_v2", p, prompt);
  s.context["test_index"] = 0;
  s.context["inputs"] = p.inputs[0];
  s.context["expected_output"] = p.outputs[0];
  s.context["call_based"] = false;
  s.context["source_code"] = p.source;
  s.target = {{"answer", fmt::format("{}\n{}\n{}", kStartTag, PyStrip(p.outputs[0]), kEndTag)}};
  return s;
}

}  // namespace code_internal

}  // namespace structtest
