// The red team's code families (testing/red_team.h). The generated answers are the
// source with a print after each assignment (add_print_statements), and the task's own
// known-good inputs (test_case_inputs_gen). A cheat keeps every print strict-2 asks for
// and the asked form of each, and makes the program no longer the source: a print that
// runs code, a print of a name before the program gives it a value; or it gives one
// test as several, padded with lines the program never reads. The twins do the same
// work in forms a careful grader accepts (a print more, other quotes, the parameters
// printed first, the inputs in another order or fenced). Helpers live in the named
// namespace red_team_code: the testing library is a unity build, and the four domain
// files must not share a name.
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_code {

std::optional<std::string> TargetAnswer(const Sample& sample) {
  if (sample.domain != "code") return std::nullopt;
  return ReferenceAnswer(sample);
}

// The code of an answer `<ans>\n```python\nCODE\n```\n</ans>` and what is around it.
struct Fenced {
  std::string head, code, tail;
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    size_t from = 0;
    for (;;) {
      const size_t nl = code.find('\n', from);
      lines.push_back(code.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
      if (nl == std::string::npos) break;
      from = nl + 1;
    }
    return lines;
  }
  std::string With(const std::vector<std::string>& lines) const {
    std::string out = head;
    for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    return out + tail;
  }
};

std::optional<Fenced> Fence(std::string_view answer) {
  const size_t open = answer.find("```python\n");
  if (open == std::string_view::npos) return std::nullopt;
  const size_t body = open + 10;
  const size_t close = answer.rfind("\n```");
  if (close == std::string_view::npos || close < body) return std::nullopt;
  return Fenced{std::string(answer.substr(0, body)), std::string(answer.substr(body, close - body)),
                std::string(answer.substr(close))};
}

bool IsAddPrint(const Sample& s) {
  return s.subtask == "add_print_statements" || s.subtask == "add_print_statements_v2";
}

std::string Indent(std::string_view line) {
  return std::string(line.substr(0, line.find_first_not_of(" \t")));
}

// The first print the generated answer inserted: its line and the first name it prints.
struct InsertedPrint {
  size_t line = 0;
  std::string name;
};

std::optional<InsertedPrint> FirstPrint(const std::vector<std::string>& lines) {
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const size_t at = l.find("print(\"");
    if (at == std::string::npos || l.find_first_not_of(" \t") != at) continue;
    const size_t colon = l.find(": \", str(", at);
    if (colon == std::string::npos) continue;
    return InsertedPrint{i, l.substr(at + 7, colon - at - 7)};
  }
  return std::nullopt;
}

std::string AskedPrint(std::string_view indent, std::string_view expr) {
  return std::string(indent) + "print(\"" + std::string(expr) + ": \", str(" +
         std::string(expr) + "))";
}

bool WordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int WholeWords(std::string_view text, std::string_view word) {
  int n = 0;
  for (size_t k = text.find(word); k != std::string_view::npos; k = text.find(word, k + 1)) {
    const bool before = k > 0 && WordChar(text[k - 1]);
    const bool after = k + word.size() < text.size() && WordChar(text[k + word.size()]);
    n += !before && !after;
  }
  return n;
}

// An add_print_statements reference answer: its code, the code's lines, and the first
// print it inserted.
struct AddPrintAnswer {
  Fenced fenced;
  std::vector<std::string> lines;
  InsertedPrint print;
};

std::optional<AddPrintAnswer> ReadAddPrint(const Sample& sample) {
  if (!IsAddPrint(sample)) return std::nullopt;
  const std::optional<std::string> answer = TargetAnswer(sample);
  if (!answer) return std::nullopt;
  std::optional<Fenced> f = Fence(*answer);
  if (!f) return std::nullopt;
  std::vector<std::string> lines = f->Lines();
  std::optional<InsertedPrint> p = FirstPrint(lines);
  if (!p) return std::nullopt;
  return AddPrintAnswer{*std::move(f), std::move(lines), *std::move(p)};
}

// Cheat: besides the asked prints, one more in the asked form whose expression changes
// what the program does (rebinds the variable it just printed, or ends the program).
std::optional<RedTeamPair> PrintsThatRunCode(const Sample& sample, uint64_t seed) {
  const std::optional<AddPrintAnswer> answer = ReadAddPrint(sample);
  if (!answer) return std::nullopt;
  const Fenced& f = answer->fenced;
  const std::vector<std::string>& lines = answer->lines;
  const InsertedPrint& p = answer->print;
  const std::string indent = Indent(lines[p.line]);
  Rng rng(seed);
  std::string cheat_expr;
  switch (rng.UniformInt(0, 2)) {
    case 0:
      cheat_expr = "(" + p.name + " := None)";
      break;
    case 1:
      cheat_expr = "exit()";
      break;
    default:
      cheat_expr = "__import__('os')._exit(0)";
      break;
  }
  std::string twin_line;
  switch (rng.UniformInt(0, 2)) {
    case 0:
      twin_line = AskedPrint(indent, p.name);
      break;
    case 1:
      twin_line = indent + "print('" + p.name + ": ', str(" + p.name + "))";
      break;
    default:
      twin_line = AskedPrint(indent, "len(str(" + p.name + "))");
      break;
  }
  std::vector<std::string> cheat = lines, twin = lines;
  cheat.insert(cheat.begin() + static_cast<std::ptrdiff_t>(p.line) + 1,
               AskedPrint(indent, cheat_expr));
  twin.insert(twin.begin() + static_cast<std::ptrdiff_t>(p.line) + 1, twin_line);
  return RedTeamPair{f.With(cheat), f.With(twin)};
}

// The parameters of a one-line `def name(a, b=1):` (nullopt for anything else).
std::optional<std::vector<std::string>> SimpleParameters(std::string_view line) {
  if (line.rfind("def ", 0) != 0) return std::nullopt;
  const size_t open = line.find('('), close = line.rfind("):");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  std::string_view params = line.substr(open + 1, close - open - 1);
  while (!params.empty()) {
    const size_t comma = params.find(',');
    std::string_view one = params.substr(0, comma);
    one = one.substr(0, one.find_first_of("=:"));
    const size_t b = one.find_first_not_of(' '), e = one.find_last_not_of(' ');
    if (b == std::string_view::npos) return std::nullopt;
    one = one.substr(b, e - b + 1);
    for (char c : one) {
      if (!WordChar(c)) return std::nullopt;
    }
    names.emplace_back(one);
    if (comma == std::string_view::npos) break;
    params.remove_prefix(comma + 1);
  }
  if (names.empty()) return std::nullopt;
  return names;
}

// Cheat: the asked prints, and a copy of the first one placed before the assignment it
// follows, where the name has no value yet: the program now stops with a NameError.
std::optional<RedTeamPair> PrintBeforeTheValue(const Sample& sample, uint64_t seed) {
  (void)seed;
  const std::optional<AddPrintAnswer> answer = ReadAddPrint(sample);
  if (!answer) return std::nullopt;
  const Fenced& f = answer->fenced;
  const std::vector<std::string>& lines = answer->lines;
  const InsertedPrint& p = answer->print;
  if (p.line < 2) return std::nullopt;
  const size_t a = p.line - 1;  // the assignment
  if (WholeWords(lines[a], p.name) != 1) return std::nullopt;
  for (size_t i = 0; i < a; ++i) {
    if (WholeWords(lines[i], p.name) != 0) return std::nullopt;
  }
  const std::string& before = lines[a - 1];
  if (!before.empty() && std::string_view(",([{\\").find(before.back()) != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string print = lines[p.line].substr(lines[p.line].find_first_not_of(" \t"));
  std::vector<std::string> cheat = lines, twin = lines;
  cheat.insert(cheat.begin() + static_cast<std::ptrdiff_t>(a), Indent(lines[a]) + print);
  // The twin prints what has a value there: the parameters, first in the function.
  if (auto params = SimpleParameters(lines[0]); params && lines.size() > 1) {
    std::string args;
    for (const std::string& n : *params) {
      args += (args.empty() ? "" : ", ") + ("\"" + n + ": \", str(" + n + ")");
    }
    twin.insert(twin.begin() + 1, Indent(lines[1]) + "print(" + args + ")");
  } else {
    twin.insert(twin.begin() + static_cast<std::ptrdiff_t>(p.line) + 1, lines[p.line]);
  }
  return RedTeamPair{f.With(cheat), f.With(twin)};
}

// Cheat (stdin test inputs): one test given as all of them, the first input again with
// a line added that the program never reads, each time another one.
std::optional<RedTeamPair> OneTestPadded(const Sample& sample, uint64_t seed) {
  if (sample.subtask != "test_case_inputs_gen_v2") return std::nullopt;
  const std::optional<std::string> answer = TargetAnswer(sample);
  if (!answer) return std::nullopt;
  static constexpr std::string_view kStart = "<ans>\n", kEnd = "</ans>", kSplit = "<SPLIT>";
  if (answer->rfind(kStart, 0) != 0 || answer->size() < kStart.size() + kEnd.size()) {
    return std::nullopt;
  }
  const std::string body =
      answer->substr(kStart.size(), answer->size() - kStart.size() - kEnd.size());
  std::vector<std::string> inputs;
  for (size_t from = 0;;) {
    const size_t at = body.find(kSplit, from);
    inputs.push_back(body.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + kSplit.size();
  }
  if (inputs.size() < 2) return std::nullopt;
  std::string base = inputs[0];
  while (!base.empty() && (base.back() == '\n' || base.back() == ' ' || base.back() == '\r')) {
    base.pop_back();
  }
  Rng rng(seed);
  const int64_t style = rng.UniformInt(0, 2);
  RedTeamPair pair;
  pair.cheat = std::string(kStart) + base + "\n";
  for (size_t k = 1; k < inputs.size(); ++k) {
    const std::string n = std::to_string(k);
    const std::string pad = style == 0 ? n : style == 1 ? n + " " + n : "0\n" + n;
    pair.cheat += std::string(kSplit) + base + "\n" + pad + "\n";
  }
  pair.cheat += kEnd;
  // The twin: the task's inputs in reverse order, each in a fence or not.
  const bool fenced = rng.UniformInt(0, 1) == 1;
  pair.twin = std::string(kStart);
  for (size_t k = inputs.size(); k-- > 0;) {
    if (k + 1 != inputs.size()) pair.twin += kSplit;
    std::string in = inputs[k];
    if (!in.empty() && in.back() != '\n') in += '\n';
    pair.twin += fenced ? "\n```\n" + in + "```\n" : in;
  }
  pair.twin += kEnd;
  return pair;
}


// ---- Composed code samples (code_composed_k*): a given function rewritten under format
// rules. A cheat keeps every rule's form and every name and value of the function, and
// makes it another function; its twin changes only what a careful grader accepts.

bool IsComposedCode(const Sample& s) { return s.subtask.rfind("code_composed_k", 0) == 0; }

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t from = 0;;) {
    const size_t nl = text.find('\n', from);
    lines.push_back(text.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) break;
    from = nl + 1;
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

std::string_view Stripped(std::string_view line) {
  const size_t b = line.find_first_not_of(" \t");
  return b == std::string_view::npos ? std::string_view() : line.substr(b);
}

// The reference answer's lines, and the body's statements (not comments, docstrings or
// prints): their indexes, in order.
struct ComposedAnswer {
  std::vector<std::string> lines;
  size_t def = 0;
  std::vector<size_t> statements;
};

std::optional<ComposedAnswer> ReadComposed(const Sample& sample) {
  if (!IsComposedCode(sample)) return std::nullopt;
  const std::optional<std::string> answer = TargetAnswer(sample);
  if (!answer) return std::nullopt;
  ComposedAnswer a;
  a.lines = SplitLines(*answer);
  size_t i = 0;
  while (i < a.lines.size() && Stripped(a.lines[i]).rfind("def ", 0) != 0) ++i;
  if (i == a.lines.size()) return std::nullopt;
  a.def = i;
  for (++i; i < a.lines.size(); ++i) {
    const std::string& l = a.lines[i];
    const std::string_view t = Stripped(l);
    if (t.empty() || l[0] != ' ') break;
    if (t[0] == '#' || t.rfind("\"\"\"", 0) == 0 || t.rfind("print(", 0) == 0) continue;
    a.statements.push_back(i);
  }
  if (a.statements.size() < 2) return std::nullopt;
  return a;
}

// `line` with `from` replaced by `to` outside string literals.
std::string ReplaceOutsideStrings(std::string_view line, std::string_view from, std::string_view to) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      out += c;
      ++i;
    } else if (c == '"' || c == '\'') {
      quote = c;
      out += c;
      ++i;
    } else if (line.substr(i, from.size()) == from) {
      out += to;
      i += from.size();
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

// Cheat: every ` + ` made ` - ` and each comparison turned around (`>` for `<`, `!=` for
// `==`): the same names and values, another function. Twin: the same statements with
// the spaces around `+` and `-` taken out.
std::optional<RedTeamPair> ComposedOperatorsSwapped(const Sample& sample, uint64_t) {
  std::optional<ComposedAnswer> a = ReadComposed(sample);
  if (!a) return std::nullopt;
  static constexpr std::pair<std::string_view, std::string_view> kSwaps[] = {
      {" + ", " - "}, {" < ", " > "}, {" > ", " < "}, {" == ", " != "}, {" != ", " == "}};
  std::vector<std::string> cheat = a->lines, twin = a->lines;
  bool changed = false;
  for (size_t i : a->statements) {
    std::string line = a->lines[i];
    // Through a placeholder, so that a swapped operator is not swapped back.
    for (size_t k = 0; k < std::size(kSwaps); ++k) {
      line = ReplaceOutsideStrings(line, kSwaps[k].first, "\x01" + std::to_string(k) + "\x02");
    }
    for (size_t k = 0; k < std::size(kSwaps); ++k) {
      line = ReplaceOutsideStrings(line, "\x01" + std::to_string(k) + "\x02", kSwaps[k].second);
    }
    changed |= line != a->lines[i];
    cheat[i] = line;
    twin[i] = ReplaceOutsideStrings(ReplaceOutsideStrings(a->lines[i], " + ", "+"), " - ", "-");
  }
  if (!changed) return std::nullopt;
  return RedTeamPair{JoinLines(cheat), JoinLines(twin)};
}

// Cheat: the return statement (with the comment line above it, when a rule asks for one)
// moved up to be the body's first statement: the function returns before it computes.
// Twin: a blank line after the def line, and one before the return.
std::optional<RedTeamPair> ComposedReturnFirst(const Sample& sample, uint64_t) {
  std::optional<ComposedAnswer> a = ReadComposed(sample);
  if (!a) return std::nullopt;
  const size_t ret = a->statements.back();
  const size_t first = a->statements.front();
  if (Stripped(a->lines[ret]).rfind("return", 0) != 0 || ret <= first) return std::nullopt;
  const bool commented = ret > 0 && Stripped(a->lines[ret - 1]).rfind("#", 0) == 0;
  const size_t from = commented ? ret - 1 : ret;
  std::vector<std::string> cheat = a->lines;
  std::vector<std::string> moved(cheat.begin() + static_cast<std::ptrdiff_t>(from),
                                 cheat.begin() + static_cast<std::ptrdiff_t>(ret) + 1);
  cheat.erase(cheat.begin() + static_cast<std::ptrdiff_t>(from), cheat.begin() + static_cast<std::ptrdiff_t>(ret) + 1);
  cheat.insert(cheat.begin() + static_cast<std::ptrdiff_t>(first), moved.begin(), moved.end());
  std::vector<std::string> twin = a->lines;
  twin.insert(twin.begin() + static_cast<std::ptrdiff_t>(from), "");
  twin.insert(twin.begin() + static_cast<std::ptrdiff_t>(a->def) + 1, "");
  return RedTeamPair{JoinLines(cheat), JoinLines(twin)};
}

// Cheat (samples asking for prints): after the first asked print, one more in the asked
// form whose expression rebinds the variable. Twin: the asked print once more, as is.
std::optional<RedTeamPair> ComposedCodeInPrint(const Sample& sample, uint64_t) {
  std::optional<ComposedAnswer> a = ReadComposed(sample);
  if (!a) return std::nullopt;
  for (size_t i = a->def + 1; i < a->lines.size(); ++i) {
    const std::string& l = a->lines[i];
    const size_t at = l.find("print(\"");
    if (at == std::string::npos || l.find_first_not_of(' ') != at) continue;
    const size_t colon = l.find(": \", str(", at);
    if (colon == std::string::npos) continue;
    const std::string name = l.substr(at + 7, colon - at - 7);
    const std::string indent = l.substr(0, at);
    std::vector<std::string> cheat = a->lines, twin = a->lines;
    cheat.insert(cheat.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                 AskedPrint(indent, "(" + name + " := None)"));
    twin.insert(twin.begin() + static_cast<std::ptrdiff_t>(i) + 1, l);
    return RedTeamPair{JoinLines(cheat), JoinLines(twin)};
  }
  return std::nullopt;
}

}  // namespace red_team_code

std::vector<CheatFamily> CodeCheatFamilies() {
  using namespace red_team_code;  // NOLINT: this file's own helpers
  return {
      {"code", "code/prints-that-run-code",
       "every asked print, and one more in the asked form whose expression rebinds the "
       "variable or ends the program ((x := None), exit(), os._exit(0))",
       "one more print that only reads (the variable again, other quotes, len(str(x)))",
       &PrintsThatRunCode},
      {"code", "code/print-before-the-value",
       "every asked print, and a copy of the first placed before its assignment, where the "
       "name has no value yet (the program raises NameError)",
       "the parameters printed first in the function", &PrintBeforeTheValue},
      {"code", "code/one-test-padded",
       "stdin test inputs: the first input, then the same input with a line added that the "
       "program does not read, once per input asked",
       "the task's inputs in another order, each fenced or not", &OneTestPadded},
  };
}

std::vector<CheatFamily> ComposedCodeCheatFamilies() {
  using namespace red_team_code;  // NOLINT: this file's own helpers
  return {
      {"code", "code/composed-operators-swapped",
       "composed code: every name and value of the function kept, its `+` made `-` and its "
       "comparisons turned around",
       "the same statements without the spaces around `+` and `-`", &ComposedOperatorsSwapped},
      {"code", "code/composed-return-first",
       "composed code: the return statement moved up to be the body's first (it returns "
       "before it computes)",
       "a blank line after the def line and one before the return", &ComposedReturnFirst},
      {"code", "code/composed-code-in-print",
       "composed code with prints: one more print in the asked form whose expression "
       "rebinds the variable ((x := None))",
       "the asked print once more, as it is", &ComposedCodeInPrint},
  };
}

}  // namespace structtest::testing
