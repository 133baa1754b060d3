#include "tasks/code/strict.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "sandbox/python_pool.h"
#include "tasks/code/common.h"
#include "tasks/code/family.h"
#include "tasks/code/rules.h"
#include "tasks/params.h"

namespace structtest {
namespace code_internal {

namespace {

Verdict Fail(std::string_view rule, std::string_view what) {
  return MakeVerdict(false, fmt::format("{}: {}", rule, what));
}

std::string ContextString(const Sample& sample, const char* key, std::string_view fallback) {
  if (!sample.context.is_object()) return std::string(fallback);
  const auto it = sample.context.find(key);
  if (it == sample.context.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return std::string(fallback);
  }
  return it->get<std::string>();
}

// A strict job's reply as a verdict: {"pass", "rule", "detail"}; task data the job
// could not use is an error; a job that gave no result fails under `rule`.
StatusOr<Verdict> JobVerdict(const nlohmann::json& r, std::string_view rule,
                             std::string_view what) {
  if (JsonHas(r, "bad_source")) {
    return Status::InvalidArgument(fmt::format(
        "context.source_code does not parse as Python ({})", JsonString(r, "bad_source")));
  }
  if (JsonHas(r, "bad_expected")) {
    return Status::InvalidArgument(fmt::format("context: the expected answer is not usable ({})",
                                               JsonString(r, "bad_expected")));
  }
  if (JsonHas(r, "load_error")) {
    return Fail(rule, fmt::format("the task's code does not load: {}", JsonString(r, "load_error")));
  }
  if (!JsonHas(r, "pass")) return Fail(rule, SandboxProblem(r, what));
  if (JsonTrue(r, "pass")) return Pass(JsonString(r, "detail"));
  return Fail(JsonString(r, "rule"), JsonString(r, "detail"));
}

bool IsFenceWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '+' || c == '-';
}

// The next opening fence in text[from..]: ``` and an optional word, then a newline.
// Returns the offset of the body (after the newline), npos when there is none.
size_t NextFenceBody(std::string_view text, size_t from) {
  for (size_t at = text.find("```", from); at != std::string_view::npos;
       at = text.find("```", at + 3)) {
    size_t i = at + 3;
    while (i < text.size() && IsFenceWordByte(text[i])) ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == '\n') return i + 1;
  }
  return std::string_view::npos;
}

// The first '\n'-separated line of `s` that is not blank, and everything after it,
// with trailing whitespace removed: code keeps the indentation of its first line.
std::string_view TrimBlankLines(std::string_view s) {
  s = PyRStrip(s);
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      start = i + 1;
    } else if (!(s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) {
      break;
    }
  }
  return s.substr(std::min(start, s.size()));
}

}  // namespace

bool StrictAnswer(const Sample& sample, std::string_view response, bool fenced,
                  std::string* answer, std::string* reason) {
  const std::string start_tag = ContextString(sample, "start_tag", "<ans>");
  const std::string end_tag = ContextString(sample, "end_tag", "</ans>");
  std::string normalized;
  if (response.find('\r') != std::string_view::npos) {
    normalized = ReplaceAll(response, "\r\n", "\n");
    response = normalized;
  }
  std::string_view span;
  int pairs = 0;
  for (size_t pos = 0;;) {
    const size_t s = response.find(start_tag, pos);
    if (s == std::string_view::npos) break;
    const size_t e = response.find(end_tag, s + start_tag.size());
    if (e == std::string_view::npos) break;
    if (++pairs == 1) span = response.substr(s + start_tag.size(), e - s - start_tag.size());
    pos = e + end_tag.size();
  }
  if (pairs == 0) {
    *reason = response.find(start_tag) == std::string_view::npos
                  ? fmt::format("answer-tags: no {} in the response", start_tag)
                  : fmt::format("answer-tags: no {} after {}", end_tag, start_tag);
    return false;
  }
  if (pairs > 1) {
    *reason = fmt::format("one-answer: {} answers between {} and {}, one was asked for", pairs,
                          start_tag, end_tag);
    return false;
  }
  if (span.size() > kMaxStrictAnswerBytes) {
    *reason = fmt::format("answer-size: the answer has {} bytes, more than the {} a code answer "
                          "may have",
                          span.size(), kMaxStrictAnswerBytes);
    return false;
  }
  if (fenced) {
    const size_t body = NextFenceBody(span, 0);
    if (body != std::string_view::npos) {
      const size_t close = span.find("```", body);
      const std::string_view inside =
          span.substr(body, close == std::string_view::npos ? std::string_view::npos : close - body);
      if (close != std::string_view::npos &&
          NextFenceBody(span, close + 3) != std::string_view::npos) {
        *reason = fmt::format("one-answer: more than one code block between {} and {}",
                              start_tag, end_tag);
        return false;
      }
      span = inside;
    }
  }
  span = TrimBlankLines(span);
  if (PyStrip(span).empty()) {
    *reason = fmt::format("answer-empty: nothing between {} and {}", start_tag, end_tag);
    return false;
  }
  answer->assign(span);
  return true;
}

// ---- add_print_statements ------------------------------------------------------------

StatusOr<Verdict> CheckAddPrintStatementsStrict(const Sample& sample, const SampleParams&,
                                                std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  std::string answer, reason;
  if (!StrictAnswer(sample, response, true, &answer, &reason)) {
    return MakeVerdict(false, std::move(reason));
  }
  ASSIGN_OR_RETURN(nlohmann::json r,
                   pool->RunJob({{"op", "strict_add_print"}, {"source", source}, {"answer", answer}},
                                kCodeEvalSeconds));
  return JobVerdict(r, "answer-parses", "comparing the answer with the source");
}

// ---- replace_variables ---------------------------------------------------------------

// The source with the renamings applied (the paper's rule), once per distinct (source,
// mapping); unlike the paper's, its whitespace is kept, to be parsed.
StatusOr<const std::string*> RenamedSource(PythonPool* pool, std::string_view source,
                                           const nlohmann::json& mapping,
                                           std::vector<Renaming>* renamings) {
  std::string key = "strict_rename\n";
  for (const auto& m : mapping) {
    if (!m.is_string()) {
      return Status::InvalidArgument("context.var_mapping: expected a list of \"old:new\"");
    }
    const std::string& e = m.get_ref<const std::string&>();
    const size_t colon = e.find(':');
    if (colon == std::string::npos || e.find(':', colon + 1) != std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("context.var_mapping: '{}' is not of the form old:new (one colon)", e));
    }
    renamings->emplace_back(e.substr(0, colon), e.substr(colon + 1));
    key += e;
    key += '\n';
  }
  key += source;
  return pool->Memo(key, [&]() -> StatusOr<std::string> {
    bool native = true;
    for (const auto& [o, n] : *renamings) native = native && IsPyWord(o) && IsPyWord(n);
    if (native) return RenameWholeWords(source, *renamings);
    ASSIGN_OR_RETURN(nlohmann::json r,
                     pool->RunJob({{"op", "subst"}, {"source", source}, {"mapping", mapping}},
                                  kCodeEvalSeconds));
    if (!JsonHas(r, "code")) {
      return Status::InvalidArgument(fmt::format(
          "context.var_mapping: not usable as the reference's regular expression: {}",
          JsonHas(r, "bad_mapping") ? JsonString(r, "bad_mapping")
                                    : SandboxProblem(r, "renaming the source")));
    }
    return JsonString(r, "code");
  });
}

StatusOr<Verdict> CheckReplaceVariablesStrict(const Sample& sample, const SampleParams&,
                                              std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  ASSIGN_OR_RETURN(const nlohmann::json* mapping,
                   GetField(sample.context, "context", "var_mapping"));
  if (!mapping->is_array()) {
    return Status::InvalidArgument("context.var_mapping: expected a list of \"old:new\"");
  }
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  std::vector<Renaming> renamings;
  ASSIGN_OR_RETURN(const std::string* expected,
                   RenamedSource(pool, source, *mapping, &renamings));
  std::string answer, reason;
  if (!StrictAnswer(sample, response, true, &answer, &reason)) {
    return MakeVerdict(false, std::move(reason));
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [o, n] : renamings) list.push_back(o + ":" + n);
  ASSIGN_OR_RETURN(nlohmann::json r, pool->RunJob({{"op", "strict_rename"},
                                                   {"source", source},
                                                   {"expected", *expected},
                                                   {"mapping", list},
                                                   {"answer", answer}},
                                                  kCodeEvalSeconds));
  return JobVerdict(r, "answer-parses", "comparing the answer with the renamed source");
}

// ---- test_case_inputs_gen ------------------------------------------------------------

namespace {

// Python's str.split() with no argument: the runs of non-whitespace of `line`.
std::vector<std::string_view> WhitespaceTokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t start = std::string_view::npos;
  for (size_t i = 0; i < line.size();) {
    size_t len;
    const bool space = IsPySpace(DecodeUtf8(line, i, &len));
    if (space && start != std::string_view::npos) {
      tokens.push_back(line.substr(start, i - start));
      start = std::string_view::npos;
    } else if (!space && start == std::string_view::npos) {
      start = i;
    }
    i += len;
  }
  if (start != std::string_view::npos) tokens.push_back(line.substr(start));
  return tokens;
}

// An integer token as a program that parses it reads it: "+5", "05" and "5" are 5,
// "-0" is 0. Other tokens as they are.
std::string CanonicalToken(std::string_view token) {
  std::string_view digits = token;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), IsAsciiDigit)) {
    return std::string(token);
  }
  const size_t nz = digits.find_first_not_of('0');
  if (nz == std::string_view::npos) return "0";
  return (negative ? "-" : "") + std::string(digits.substr(nz));
}

// A stdin input as strict compares it: Windows line endings are gone already; blank
// lines around it do not count; each line is its whitespace-separated tokens, integers
// as their value. "1 2", " 1  2 " and "01 +2" are one input to a program that reads
// numbers, and a grader sees the same test in them.
std::string StdinKey(std::string_view item) {
  std::string out;
  for (std::string_view line : SplitChar(TrimBlankLines(item), '\n')) {
    bool first = true;
    for (std::string_view token : WhitespaceTokens(line)) {
      if (!first) out += ' ';
      out += CanonicalToken(token);
      first = false;
    }
    out += '\n';
  }
  return out;
}

// Whether the input of `longer` key (StdinKey) is the input of `shorter` key with more
// after it: more tokens on its last line, or more lines.
bool ExtendsInput(std::string_view longer, std::string_view shorter) {
  if (shorter.empty() || longer.size() <= shorter.size()) return false;
  const std::string_view stem = shorter.substr(0, shorter.size() - 1);  // without its '\n'
  return longer.substr(0, stem.size()) == stem &&
         (longer[stem.size()] == ' ' || longer[stem.size()] == '\n');
}

// A stdin input as strict feeds it to the program: without the blank lines before it
// (the line break after <ans> or <SPLIT> is layout, and would be the program's first
// line), ending in a newline; what follows its last line is kept (a program may read
// an empty last line).
std::string StdinFeed(std::string_view item) {
  size_t start = 0;
  for (size_t i = 0; i < item.size(); ++i) {
    if (item[i] == '\n') {
      start = i + 1;
    } else if (!(item[i] == ' ' || item[i] == '\t' || item[i] == '\f' || item[i] == '\v')) {
      break;
    }
  }
  std::string out(item.substr(std::min(start, item.size())));
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

StatusOr<Verdict> CheckStdinInputsStrict(const Sample& sample, std::string_view answer,
                                         PythonPool* pool, int64_t n) {
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  std::vector<std::string> inputs, keys;
  size_t start = 0;
  for (;;) {
    const size_t at = answer.find(kSplitMarker, start);
    std::string_view item =
        answer.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    // A fence around one input is presentation, as around the whole answer.
    if (const size_t body = NextFenceBody(item, 0); body != std::string_view::npos) {
      const size_t close = item.find("```", body);
      item = item.substr(body, close == std::string_view::npos ? std::string_view::npos
                                                               : close - body);
    }
    if (!PyStrip(item).empty()) {
      if (static_cast<int64_t>(inputs.size()) > n) break;  // the count fails anyway
      inputs.push_back(StdinFeed(item));
      keys.push_back(StdinKey(item));
    }
    if (at == std::string_view::npos) break;
    start = at + kSplitMarker.size();
  }
  if (static_cast<int64_t>(inputs.size()) != n) {
    return Fail("input-count",
                fmt::format("expected {} separated by {}, found {}",
                            Plural(n, "non-empty input"), kSplitMarker,
                            static_cast<int64_t>(inputs.size()) > n
                                ? fmt::format("more than {}", n)
                                : std::to_string(inputs.size())));
  }
  for (size_t k = 1; k < inputs.size(); ++k) {
    for (size_t j = 0; j < k; ++j) {
      if (keys[k] == keys[j]) {
        const bool same_text = PyStrip(inputs[k]) == PyStrip(inputs[j]);
        return Fail("inputs-distinct",
                    fmt::format("input {} {} repeats input {}{}", k + 1,
                                Quote(PyStrip(inputs[k]), 40), j + 1,
                                same_text ? "" : " (the same tokens, spaced or written "
                                                 "differently)"));
      }
    }
  }
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& in : inputs) list.push_back(in);
  ASSIGN_OR_RETURN(nlohmann::json r,
                   pool->RunJob({{"op", "stdin"},
                                 {"source", source},
                                 {"inputs", list},
                                 {"timeout", kCodeInputSeconds}},
                                static_cast<double>(n * kCodeInputSeconds + kJobMarginSeconds)));
  if (JsonHas(r, "load_error")) {
    return Fail("input-runs",
                fmt::format("the task's code does not load: {}", JsonString(r, "load_error")));
  }
  const auto it = r.find("results");
  if (it == r.end() || !it->is_array() || static_cast<int64_t>(it->size()) > n) {
    return Fail("input-runs", SandboxProblem(r, "running the program on the inputs"));
  }
  for (size_t k = 0; k < it->size(); ++k) {
    const nlohmann::json& res = (*it)[k];
    if (JsonTrue(res, "ok")) continue;
    const std::string what = fmt::format("input {} {}", k + 1, Quote(PyStrip(inputs[k]), 40));
    if (JsonTrue(res, "timeout")) {
      return Fail("input-runs", fmt::format("{}: the program did not finish within {} s", what,
                                            kCodeInputSeconds));
    }
    return Fail("input-runs",
                fmt::format("{}: the program failed: {}", what, JsonString(res, "error")));
  }
  if (static_cast<int64_t>(it->size()) != n) {
    return Fail("input-runs", SandboxProblem(r, "running the program on the inputs"));
  }
  // One test given as two: an input, and the same input with more after it (lines, or
  // tokens on its last line) that change nothing the program prints. A grader sees the
  // program read the same data twice (strict-3).
  for (size_t k = 0; k < inputs.size(); ++k) {
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (j == k || !ExtendsInput(keys[k], keys[j])) continue;
      const std::string out_k = JsonString((*it)[k], "out"), out_j = JsonString((*it)[j], "out");
      if (out_k.empty() || out_k != out_j) continue;
      return Fail("inputs-distinct",
                  fmt::format("input {} {} is input {} with more after it, which changes "
                              "nothing the program prints (the same test)",
                              k + 1, Quote(PyStrip(inputs[k]), 40), j + 1));
    }
  }
  return Pass(fmt::format("{} distinct inputs, and the program runs on each", n));
}

}  // namespace

StatusOr<Verdict> CheckTestCaseInputsGenStrict(const Sample& sample, const SampleParams&,
                                               std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(int64_t n, GenN(sample));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  std::string answer, reason;
  // Stdin inputs look for fences per input (CheckStdinInputsStrict).
  if (!StrictAnswer(sample, response, call_based, &answer, &reason)) {
    return MakeVerdict(false, std::move(reason));
  }
  if (!call_based) return CheckStdinInputsStrict(sample, answer, pool, n);
  ASSIGN_OR_RETURN(const std::string* fn_name, GetString(sample.context, "context", "fn_name"));
  ASSIGN_OR_RETURN(PythonInfo info, pool->Info());
  if (info.numpy.empty()) {
    return Status::Unavailable(fmt::format(
        "test_case_inputs_gen runs code after the reference's preamble, which imports "
        "numpy, and {} cannot import it ({}): install numpy for it (Debian: "
        "python3-numpy) or set STRUCTTEST_PYTHON to an interpreter that has it",
        info.executable.empty() ? info.python : info.executable, info.numpy_error));
  }
  ASSIGN_OR_RETURN(nlohmann::json r,
                   pool->RunJob({{"op", "strict_calls"},
                                 {"source", source},
                                 {"fn_name", *fn_name},
                                 {"answer", answer},
                                 {"gen_n", n},
                                 {"timeout", kCodeInputSeconds}},
                                static_cast<double>(n * kCodeInputSeconds + kJobMarginSeconds)));
  return JobVerdict(r, "input-runs", "checking and running the inputs");
}

// ---- simulate_execute ----------------------------------------------------------------

namespace {

// What the task's function returns for its inputs, as the worker's "returned" job
// reports it, kept per task by the pool: "=" and the value as a Python literal when it
// is the expected output; "-" when it is not (the verdict is then the one without the
// function); "?" when the value is no literal or the job gave no answer (the function
// is then sent with every answer, and the job's own result counts).
StatusOr<const std::string*> ReturnedValue(PythonPool* pool, const nlohmann::json& function,
                                           const std::string& expected) {
  std::string key = "returned";  // each text after its length: no two tasks share a key
  for (const std::string* text : {&function["source"].get_ref<const std::string&>(),
                                  &function["fn_name"].get_ref<const std::string&>(),
                                  &function["inputs"].get_ref<const std::string&>(), &expected}) {
    key += fmt::format(" {}:", text->size());
    key += *text;
  }
  return pool->Memo(key, [&]() -> StatusOr<std::string> {
    nlohmann::json request = function;
    request["op"] = "returned";
    request["expected"] = expected;
    request["timeout"] = kCodeInputSeconds;
    ASSIGN_OR_RETURN(nlohmann::json r,
                     pool->RunJob(std::move(request), kCodeEvalSeconds + kCodeInputSeconds));
    const auto exact = r.find("exact");
    if (exact != r.end() && exact->is_string()) return "=" + exact->get<std::string>();
    if (exact != r.end() && exact->is_null()) return std::string("-");
    return std::string("?");
  });
}

// Lines of a program's output as strict compares them: trailing whitespace of each
// line and blank lines before and after the output do not count.
std::vector<std::string_view> OutputLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::string_view line : SplitChar(TrimBlankLines(text), '\n')) {
    lines.push_back(PyRStrip(line));
  }
  if (lines.size() == 1 && lines[0].empty()) lines.clear();
  return lines;
}

}  // namespace

StatusOr<Verdict> CheckSimulateExecuteStrict(const Sample& sample, const SampleParams&,
                                             std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(const std::string* expected_text,
                   GetString(sample.context, "context", "expected_output"));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  std::string answer, reason;
  if (!StrictAnswer(sample, response, true, &answer, &reason)) {
    return MakeVerdict(false, std::move(reason));
  }
  if (!call_based) {
    std::string expected_norm;
    std::string_view expected = *expected_text;
    if (expected.find('\r') != std::string_view::npos) {
      expected_norm = ReplaceAll(expected, "\r\n", "\n");
      expected = expected_norm;
    }
    const std::vector<std::string_view> want = OutputLines(expected);
    const std::vector<std::string_view> got = OutputLines(answer);
    for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
      if (want[i] != got[i]) {
        return Fail("output-matches", fmt::format("line {}: expected {}, found {}", i + 1,
                                                  Quote(want[i]), Quote(got[i])));
      }
    }
    if (want.size() != got.size()) {
      return Fail("output-matches",
                  fmt::format("expected {}, found {}",
                              Plural(static_cast<int64_t>(want.size()), "line"),
                              got.size() > want.size()
                                  ? fmt::format("{} (line {} {} is extra)", got.size(),
                                                want.size() + 1, Quote(got[want.size()]))
                                  : std::to_string(got.size())));
    }
    return Pass(fmt::format("the answer is the program's output ({})",
                            Plural(static_cast<int64_t>(want.size()), "line")));
  }
  // Inline code marks around the value are presentation.
  std::string_view value = PyStrip(answer);
  if (value.size() >= 2 && value.front() == '`' && value.back() == '`') {
    value = PyStrip(value.substr(1, value.size() - 2));
  }
  ASSIGN_OR_RETURN(PythonPool * pool, Pool(env));
  nlohmann::json request = {{"op", "strict_simulate"},
                            {"answer", value},
                            {"expected", *expected_text},
                            {"timeout", kCodeInputSeconds}};
  // The task's function and inputs, when the sample has them, give the returned
  // value's exact types (an expected output from a test assertion may not).
  nlohmann::json function = nlohmann::json::object();
  for (const char* key : {"source_code", "fn_name", "inputs"}) {
    const auto it = sample.context.find(key);
    if (it != sample.context.end() && it->is_string()) {
      function[std::string_view(key) == "source_code" ? "source" : key] = *it;
    }
  }
  const auto known = sample.context.find("expected_is_returned");
  if (known != sample.context.end() && known->is_boolean() && known->get<bool>()) {
    // The generator ran the function: the expected output is its very value.
    request["exact"] = true;
  } else if (function.size() == 3) {
    // The function runs once per task (the worker's "returned" job); each answer is
    // then compared with its value alone, which the worker does without a child.
    ASSIGN_OR_RETURN(const std::string* returned, ReturnedValue(pool, function, *expected_text));
    if (returned->front() == '=') {
      request["expected"] = returned->substr(1);
      request["exact"] = true;
    } else if (returned->front() == '?') {
      request.update(function);
    }
  } else {
    request.update(function);
  }
  ASSIGN_OR_RETURN(nlohmann::json r, pool->RunJob(std::move(request),
                                                  kCodeEvalSeconds + kCodeInputSeconds));
  return JobVerdict(r, "answer-literal", "parsing the answer");
}

// ---- built-in cheating answers -------------------------------------------------------

namespace {

StatusOr<std::string> TargetAnswer(const Sample& sample) {
  const auto it = sample.target.is_object() ? sample.target.find("answer") : sample.target.end();
  if (!sample.target.is_object() || it == sample.target.end() || !it->is_string()) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': no target.answer to build the cheating answer from", sample.id));
  }
  return it->get<std::string>();
}

// The code of a target "<ans>\n```python\nCODE\n```\n</ans>": CODE.
StatusOr<std::string> TargetCode(const Sample& sample) {
  ASSIGN_OR_RETURN(std::string target, TargetAnswer(sample));
  const size_t body = NextFenceBody(target, 0);
  if (body == std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': target.answer has no code block", sample.id));
  }
  const size_t close = target.find("\n```", body);
  return target.substr(body, close == std::string::npos ? std::string::npos : close - body);
}

std::string Wrap(std::string_view code) {
  return fmt::format("<ans>\n```python\n{}\n```\n</ans>", code);
}

std::string_view Indent(std::string_view line) {
  return line.substr(0, std::min(line.size(), line.find_first_not_of(" \t")));
}

}  // namespace

StatusOr<std::string> SkeletonAddPrint(const Sample& sample) {
  // The prints and the block headers stay; every other line becomes `pass`.
  ASSIGN_OR_RETURN(std::string code, TargetCode(sample));
  std::string out;
  bool any = false;
  for (std::string_view line : SplitChar(code, '\n')) {
    const std::string_view s = PyStrip(line);
    if (any) out += '\n';
    any = true;
    if (s.empty() || s.starts_with("print(") || s.ends_with(":")) {
      out.append(line);
    } else {
      out.append(Indent(line)).append("pass");
    }
  }
  return Wrap(out);
}

StatusOr<std::string> SkeletonReplaceVariables(const Sample& sample) {
  // The new names, each assigned once in a program of its own.
  if (!sample.context.is_object() || !sample.context.contains("var_mapping") ||
      !sample.context["var_mapping"].is_array()) {
    return Status::InvalidArgument(fmt::format("sample '{}': no context.var_mapping", sample.id));
  }
  std::string code = "def renamed():\n";
  std::string last = "None";
  for (const auto& m : sample.context["var_mapping"]) {
    if (!m.is_string()) continue;
    const std::string& e = m.get_ref<const std::string&>();
    const size_t colon = e.find(':');
    if (colon == std::string::npos) continue;
    last = e.substr(colon + 1);
    code += fmt::format("    {} = None\n", last);
  }
  code += fmt::format("    return {}", last);
  return Wrap(code);
}

StatusOr<std::string> SkeletonTestInputs(const Sample& sample) {
  // Five copies of one placeholder input.
  ASSIGN_OR_RETURN(int64_t n, GenN(sample));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  std::string out = "<ans>\n";
  for (int64_t i = 0; i < n; ++i) {
    if (call_based) {
      out += "[0]\n";
    } else {
      out += i + 1 < n ? "0\n<SPLIT>\n" : "0\n";
    }
  }
  return out + "</ans>";
}

StatusOr<std::string> SkeletonSimulate(const Sample& sample) {
  ASSIGN_OR_RETURN(const std::string* expected,
                   GetString(sample.context, "context", "expected_output"));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  if (!call_based) {
    // The output's shape (lines of words) with every word replaced by `x`.
    std::string out;
    for (std::string_view line : SplitChar(PyStrip(*expected), '\n')) {
      if (!out.empty()) out += '\n';
      bool first = true;
      for (std::string_view word : SplitChar(PyStrip(line), ' ')) {
        if (word.empty()) continue;
        out += first ? "x" : " x";
        first = false;
      }
    }
    return fmt::format("<ans>\n{}\n</ans>", out);
  }
  // A placeholder literal of the expected value's kind, with filler for content (a
  // bool or None has no filler that is not a possible answer: `None` and 'None').
  const std::string_view e = PyStrip(*expected);
  std::string_view placeholder = "123456789";
  if (e.empty() || e == "True" || e == "False") {
    placeholder = "None";
  } else if (e == "None") {
    placeholder = "'None'";
  } else if (e[0] == '\'' || e[0] == '"') {
    placeholder = "'placeholder'";
  } else if (e[0] == '[') {
    placeholder = "['placeholder']";
  } else if (e[0] == '(') {
    placeholder = "('placeholder',)";
  } else if (e[0] == '{') {
    placeholder = "{'placeholder': None}";
  } else if (e.find_first_of(".eE") != std::string_view::npos) {
    placeholder = "0.123456789";
  }
  return fmt::format("<ans>{}</ans>", placeholder);
}

StatusOr<std::string> LoopholeAddPrint(const Sample& sample) {
  // The paper reads only the source lines with `=` (not a first `def ` line, not a
  // `return ` line) and the line after each: keep those and the prints, and replace
  // every other line by `pass`, which deletes the program's logic.
  ASSIGN_OR_RETURN(std::string code, TargetCode(sample));
  std::string out;
  bool first = true;
  bool any = false;
  for (std::string_view line : SplitChar(code, '\n')) {
    const std::string_view s = PyStrip(line);
    if (any) out += '\n';
    any = true;
    const bool is_first = first && !s.empty();
    if (!s.empty()) first = false;
    const bool checked = line.find('=') != std::string_view::npos &&
                         line.find("return ") == std::string_view::npos &&
                         !(is_first && line.find("def ") != std::string_view::npos);
    if (s.empty() || s.starts_with("print(") || checked) {
      out.append(line);
    } else {
      out.append(Indent(line)).append("pass");
    }
  }
  return Wrap(out);
}

StatusOr<std::string> LoopholeReplaceVariables(const Sample& sample) {
  // The paper deletes all whitespace before comparing: so does this answer, which no
  // longer is a program.
  ASSIGN_OR_RETURN(std::string code, TargetCode(sample));
  return fmt::format("<ans>{}</ans>", RemovePyWhitespace(code));
}

StatusOr<std::string> LoopholeTestInputs(const Sample& sample) {
  // The target's first input, gen_n times: the paper does not ask for distinct ones.
  ASSIGN_OR_RETURN(std::string target, TargetAnswer(sample));
  ASSIGN_OR_RETURN(int64_t n, GenN(sample));
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  std::string tags_storage;
  const std::string_view body = ExtractCodeSpan(target, "<ans>", "</ans>", &tags_storage);
  std::string first;
  if (call_based) {
    first = std::string(PyStrip(SplitChar(body, '\n')[0]));
  } else {
    const size_t split = body.find(kSplitMarker);
    first = std::string(body.substr(0, split));
  }
  std::string out = "<ans>\n";
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0 && !call_based) out += kSplitMarker;
    out += first;
    if (call_based) out += '\n';
  }
  return out + (call_based ? "</ans>" : "\n</ans>");
}

StatusOr<std::string> LoopholeSimulate(const Sample& sample) {
  ASSIGN_OR_RETURN(bool call_based, IsCallBased(sample));
  if (!call_based) {
    // The paper compares the stripped text with the output exactly: no answer passes
    // it without the output. The cheapest near miss: the program's input as its
    // output (right whenever the program echoes).
    ASSIGN_OR_RETURN(const std::string* input, GetString(sample.context, "context", "inputs"));
    return fmt::format("<ans>\n{}\n</ans>", PyStrip(*input));
  }
  // The paper evaluates the answer as Python: an expression that defines the function
  // and calls it makes the scorer compute the result.
  ASSIGN_OR_RETURN(std::string_view source, Source(sample));
  ASSIGN_OR_RETURN(const std::string* fn_name, GetString(sample.context, "context", "fn_name"));
  ASSIGN_OR_RETURN(const std::string* inputs, GetString(sample.context, "context", "inputs"));
  // A JSON string is a Python string literal (nlohmann writes UTF-8 as is, never \/).
  const std::string literal =
      nlohmann::json(std::string(source)).dump(-1, ' ', false,
                                               nlohmann::json::error_handler_t::replace);
  return fmt::format("<ans>(lambda g: (exec({}, g), g[{}]({}))[1])({{}})</ans>", literal,
                     nlohmann::json(*fn_name).dump(), *inputs);
}

}  // namespace code_internal
}  // namespace structtest
