#include "tasks/composed/code_rules.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "tasks/composed/rule_text.h"

namespace structtest::composed {

// The composed library is a unity build: this file's helpers have a namespace of their
// own so as not to meet the other libraries'.
namespace code_internal_rules {

using Kind = CodeToken::Kind;

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsNameChar(char c) { return IsNameStart(c) || IsDigitChar(c); }

constexpr std::string_view kOps3[] = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::string_view kOps2[] = {"**", "//", "==", "!=", "<=", ">=", "->", "+=", "-=",
                                      "*=", "/=", "%=", "&=", "|=", "^=", ":=", "<<", ">>",
                                      "@="};

// The end of the string literal whose quote is at `q` (past its closing quote, or the
// end of the line / text when it is not closed); *newlines counts the lines it spans.
size_t StringEnd(std::string_view code, size_t q, int* newlines) {
  const char quote = code[q];
  const bool triple = code.substr(q, 3) == std::string(3, quote);
  size_t i = q + (triple ? 3 : 1);
  while (i < code.size()) {
    const char c = code[i];
    if (c == '\\' && i + 1 < code.size()) {
      if (code[i + 1] == '\n') ++*newlines;
      i += 2;
      continue;
    }
    if (c == '\n') {
      if (!triple) return i;
      ++*newlines;
    }
    if (c == quote) {
      if (!triple) return i + 1;
      if (code.substr(i, 3) == std::string(3, quote)) return i + 3;
    }
    ++i;
  }
  return i;
}

std::vector<CodeLine> LogicalLines(std::string_view code) {
  std::vector<CodeLine> out;
  CodeLine cur;
  bool have = false;
  int line = 0, brackets = 0;
  size_t i = 0;
  const size_t n = code.size();
  const auto finish = [&] {
    if (have && !cur.tokens.empty()) out.push_back(std::move(cur));
    cur = CodeLine{};
    have = false;
  };
  while (i < n) {
    if (!have) {
      size_t j = i;
      while (j < n && (code[j] == ' ' || code[j] == '\t' || code[j] == '\f')) ++j;
      if (j >= n) break;
      if (code[j] == '\n' || code[j] == '\r' || code[j] == '#') {
        while (j < n && code[j] != '\n') ++j;
        if (j < n) ++j, ++line;
        i = j;
        continue;
      }
      cur.line = line;
      cur.indent = std::string(code.substr(i, j - i));
      have = true;
      i = j;
      continue;
    }
    const char c = code[i];
    if (c == '\n') {
      ++line;
      ++i;
      if (brackets == 0) finish();
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < n && code[i] != '\n') ++i;
      continue;
    }
    if (c == '\\' && i + 1 < n && code[i + 1] == '\n') {
      i += 2;
      ++line;
      continue;
    }
    size_t p = i;
    while (p < n && p - i < 2 && std::strchr("rRbBuUfF", code[p]) != nullptr && code[p] != '\0') ++p;
    if (p < n && (code[p] == '"' || code[p] == '\'')) {
      int newlines = 0;
      const size_t end = StringEnd(code, p, &newlines);
      cur.tokens.push_back({Kind::kString, std::string(code.substr(i, end - i)), i});
      line += newlines;
      i = end;
      continue;
    }
    if (IsNameStart(c)) {
      size_t j = i;
      while (j < n && IsNameChar(code[j])) ++j;
      cur.tokens.push_back({Kind::kName, std::string(code.substr(i, j - i)), i});
      i = j;
      continue;
    }
    if (IsDigitChar(c) || (c == '.' && i + 1 < n && IsDigitChar(code[i + 1]))) {
      size_t j = i;
      while (j < n && (IsNameChar(code[j]) || code[j] == '.' ||
                       ((code[j] == '+' || code[j] == '-') && (code[j - 1] == 'e' || code[j - 1] == 'E')))) {
        ++j;
      }
      cur.tokens.push_back({Kind::kNumber, std::string(code.substr(i, j - i)), i});
      i = j;
      continue;
    }
    size_t len = 1;
    for (std::string_view op : kOps3) {
      if (code.substr(i, 3) == op) len = 3;
    }
    if (len == 1) {
      for (std::string_view op : kOps2) {
        if (code.substr(i, 2) == op) len = 2;
      }
    }
    if (c == '(' || c == '[' || c == '{') ++brackets;
    if ((c == ')' || c == ']' || c == '}') && brackets > 0) --brackets;
    cur.tokens.push_back({Kind::kOp, std::string(code.substr(i, len)), i});
    i += len;
  }
  finish();
  return out;
}

bool IsOp(const CodeToken& t, std::string_view text) { return t.kind == Kind::kOp && t.text == text; }
bool IsName(const CodeToken& t, std::string_view text) { return t.kind == Kind::kName && t.text == text; }

// A string token's value and quote: prefix letters, then the quotes.
struct StringParts {
  std::string_view prefix, quote, value;
};
StringParts SplitString(std::string_view s) {
  StringParts p;
  size_t i = 0;
  while (i < s.size() && s[i] != '"' && s[i] != '\'') ++i;
  p.prefix = s.substr(0, i);
  if (i >= s.size()) return p;
  const char q = s[i];
  const size_t ql = s.substr(i, 3) == std::string(3, q) && s.size() >= i + 6 ? 3 : 1;
  p.quote = s.substr(i, ql);
  const size_t start = i + ql;
  size_t end = s.size();
  if (end >= start + ql && s.substr(end - ql) == p.quote) end -= ql;
  p.value = s.substr(start, end > start ? end - start : 0);
  return p;
}

bool HasLetter(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

// The plain names a statement assigns with `=`: `a = ...`, `a, b = ...`; none for
// anything else (`d[k] = ...`, `a += 1`, `if a == b:`).
std::vector<std::string> AssignedNames(const std::vector<CodeToken>& t) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < t.size() && t[i].kind == Kind::kName) {
    names.push_back(t[i].text);
    ++i;
    if (i < t.size() && IsOp(t[i], "=")) {
      static constexpr std::string_view kKeywords[] = {"def", "for", "if", "while", "return",
                                                       "elif", "else", "print", "lambda"};
      for (const std::string& n : names) {
        if (std::find(std::begin(kKeywords), std::end(kKeywords), n) != std::end(kKeywords)) return {};
      }
      return names;
    }
    if (i < t.size() && IsOp(t[i], ",")) {
      ++i;
      continue;
    }
    break;
  }
  return {};
}

std::string AskedPrint(const std::vector<std::string>& names, char quote) {
  std::string out = "print(";
  for (size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("{}{}{}: {}, str({})", i ? ", " : "", quote, names[i], quote, names[i]);
  }
  return out + ")";
}

// Whether a statement is a print that only reads: print( of strings, names and
// str(name), separated by commas ).
bool IsReadingPrint(const std::vector<CodeToken>& t) {
  if (t.size() < 3 || !IsName(t[0], "print") || !IsOp(t[1], "(") || !IsOp(t.back(), ")")) return false;
  size_t i = 2;
  const size_t end = t.size() - 1;
  while (i < end) {
    if (t[i].kind == Kind::kString || t[i].kind == Kind::kName) {
      if (t[i].kind == Kind::kName && i + 1 < end && IsOp(t[i + 1], "(")) {
        if (!(t[i].text == "str" && i + 3 < end + 1 && t[i + 2].kind == Kind::kName && IsOp(t[i + 3], ")"))) {
          return false;
        }
        i += 4;
      } else {
        ++i;
      }
    } else {
      return false;
    }
    if (i < end) {
      if (!IsOp(t[i], ",")) return false;
      ++i;
    }
  }
  return true;
}

bool IsGuard(const CodeLine& l) {
  const auto& t = l.tokens;
  if (t.size() != 5 || !IsName(t[0], "if") || !IsOp(t[4], ":")) return false;
  const auto main = [](const CodeToken& x) { return x.kind == Kind::kString && SplitString(x.text).value == "__main__" && SplitString(x.text).prefix.empty(); };
  return IsOp(t[2], "==") && ((IsName(t[1], "__name__") && main(t[3])) || (main(t[1]) && IsName(t[3], "__name__")));
}

// Indentation width, tabs to the next multiple of 8 as Python reads them.
size_t IndentWidth(std::string_view indent) {
  size_t w = 0;
  for (char c : indent) w = c == '\t' ? (w / 8 + 1) * 8 : w + 1;
  return w;
}

// The nesting depth of each logical line, by the stack of indentations.
std::vector<int> Depths(const std::vector<CodeLine>& lines) {
  std::vector<int> out;
  std::vector<size_t> stack = {0};
  for (const CodeLine& l : lines) {
    const size_t w = IndentWidth(l.indent);
    if (w > stack.back()) {
      stack.push_back(w);
    } else {
      while (stack.size() > 1 && w < stack.back()) stack.pop_back();
    }
    out.push_back(static_cast<int>(stack.size()) - 1);
  }
  return out;
}

// A def line's tokens without its annotations: `def f(a: int, b=1) -> str:` becomes
// `def f(a, b=1):`.
std::vector<CodeToken> WithoutAnnotations(const std::vector<CodeToken>& t) {
  std::vector<CodeToken> out;
  int depth = 0;
  bool skipping = false;
  size_t i = 0;
  for (; i < t.size(); ++i) {
    const CodeToken& x = t[i];
    if (x.kind == Kind::kOp && (x.text == "(" || x.text == "[" || x.text == "{")) {
      ++depth;
      if (depth == 1 && x.text == "(") {
        out.push_back(x);
        continue;
      }
    }
    if (x.kind == Kind::kOp && (x.text == ")" || x.text == "]" || x.text == "}")) {
      if (depth == 1) {
        skipping = false;
        out.push_back(x);
        --depth;
        ++i;
        break;
      }
      --depth;
    }
    if (depth == 1 && IsOp(x, ":")) {
      skipping = true;
      continue;
    }
    if (depth == 1 && (IsOp(x, ",") || IsOp(x, "="))) skipping = false;
    if (!skipping) out.push_back(x);
  }
  // After the parameters: `-> T` up to the final ':'.
  if (i < t.size() && IsOp(t[i], "->")) {
    while (i < t.size() && !(IsOp(t[i], ":") && i + 1 == t.size())) ++i;
  }
  for (; i < t.size(); ++i) out.push_back(t[i]);
  return out;
}

struct NormLine {
  int depth = 0;
  int line = 0;
  std::vector<std::string> tokens;
};

// The lines `program` and `statements` compare: docstrings and other lone strings,
// the `__main__` guard's block, prints (all of them, or those that only read) and
// annotations set aside; renamed names back to the given ones; strings by value.
std::vector<NormLine> Normalized(const std::vector<CodeLine>& lines,
                                 const std::vector<std::pair<std::string, std::string>>& renames,
                                 bool every_print) {
  std::vector<NormLine> out;
  const std::vector<int> depths = Depths(lines);
  bool in_guard = false;
  for (size_t k = 0; k < lines.size(); ++k) {
    const CodeLine& l = lines[k];
    if (in_guard && depths[k] > 0) continue;
    in_guard = false;
    if (depths[k] == 0 && IsGuard(l)) {
      in_guard = true;
      continue;
    }
    if (l.tokens.size() == 1 && l.tokens[0].kind == Kind::kString) continue;
    if (!l.tokens.empty() && IsName(l.tokens[0], "print") &&
        (every_print ? l.tokens.size() > 1 && IsOp(l.tokens[1], "(") : IsReadingPrint(l.tokens))) {
      continue;
    }
    const std::vector<CodeToken> tokens =
        !l.tokens.empty() && IsName(l.tokens[0], "def") ? WithoutAnnotations(l.tokens) : l.tokens;
    NormLine n;
    n.depth = depths[k];
    n.line = l.line;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const CodeToken& x = tokens[i];
      if (x.kind == Kind::kString) {
        n.tokens.push_back("'" + std::string(SplitString(x.text).value) + "'");
      } else if (x.kind == Kind::kName && !(i > 0 && IsOp(tokens[i - 1], "."))) {
        std::string name = x.text;
        for (const auto& [fresh, given] : renames) {
          if (name == fresh) {
            name = given;
            break;
          }
        }
        n.tokens.push_back(std::move(name));
      } else {
        n.tokens.push_back(x.text);
      }
    }
    out.push_back(std::move(n));
  }
  return out;
}

bool IsValueToken(std::string_view t) {
  return !t.empty() && (IsNameStart(t[0]) || IsDigitChar(t[0]) || t[0] == '\'' ||
                        (t[0] == '.' && t.size() > 1 && IsDigitChar(t[1])));
}

// ---- Rendering ----

std::string Indent(const CodeDraft& d, int depth) {
  return std::string(static_cast<size_t>(d.indent * depth), ' ');
}

std::string FunctionName(const CodeDraft& d) {
  return d.new_fn_name.empty() || d.fn_name_kept ? d.fn_name : d.new_fn_name;
}

std::string RenamedName(const CodeDraft& d, const std::string& name) {
  if (d.rename_prefix.empty() || name == d.rename_skipped) return name;
  if (std::find(d.renamed.begin(), d.renamed.end(), name) == d.renamed.end()) return name;
  return d.rename_prefix + name;
}

struct RenderState {
  bool first_string = true;
};

std::string SwappedOperator(std::string_view op) {
  static constexpr std::pair<std::string_view, std::string_view> kSwaps[] = {
      {"+", "-"}, {"-", "+"}, {"<", ">"}, {">", "<"}, {"<=", ">="}, {">=", "<="},
      {"==", "!="}, {"!=", "=="}, {"*", "/"}, {"/", "*"}};
  for (const auto& [from, to] : kSwaps) {
    if (op == from) return std::string(to);
  }
  return std::string(op);
}

// One line of code with the rules' token changes: names renamed, quotes, operators.
std::string Transformed(const CodeDraft& d, std::string_view text, RenderState* st, bool swap) {
  std::vector<CodeLine> lines = LogicalLines(text);
  if (lines.empty()) return std::string(text);
  std::string out;
  size_t at = 0;
  const std::vector<CodeToken>& t = lines[0].tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    const CodeToken& x = t[i];
    std::string text_of = x.text;
    if (x.kind == Kind::kName && !(i > 0 && IsOp(t[i - 1], "."))) {
      text_of = RenamedName(d, x.text);
      if (x.text == d.fn_name) text_of = FunctionName(d);
    } else if (x.kind == Kind::kString && d.single_quotes) {
      const StringParts p = SplitString(x.text);
      const bool skip = d.single_quote_missing_first && st->first_string;
      st->first_string = false;
      if (!skip && p.quote == "\"" && p.value.find_first_of("'\\") == std::string_view::npos) {
        text_of = std::string(p.prefix) + "'" + std::string(p.value) + "'";
      }
    } else if (x.kind == Kind::kOp && swap) {
      text_of = SwappedOperator(x.text);
    }
    out += text.substr(at, x.pos - at);
    out += text_of;
    at = x.pos + x.text.size();
  }
  out += text.substr(std::min(at, text.size()));
  return out;
}

std::vector<std::string> CodeLines(const CodeDraft& d) {
  std::vector<std::string> code;
  RenderState st;
  if (!d.header.empty()) code.push_back("# " + d.header);
  if (d.long_comment > 2) code.push_back("# " + std::string(d.long_comment - 2, '-'));
  std::string params;
  for (size_t i = 0; i < d.params.size(); ++i) {
    params += (i ? ", " : "") + RenamedName(d, d.params[i]);
    if (i < d.param_types.size() && !d.param_types[i].empty() && !(i == 0 && d.hint_missing_first)) {
      params += ": " + d.param_types[i];
    }
  }
  code.push_back(fmt::format("def {}({}):{}", FunctionName(d), params, d.trailing_space ? "  " : ""));
  if (!d.docstring.empty() && !d.docstring_missing) {
    code.push_back(Indent(d, 1) + "\"\"\"" + d.docstring + "\"\"\"");
  }
  if (d.stub) {
    code.push_back(Indent(d, 1) + "pass");
  } else {
    bool first_print = true;
    for (const auto& [depth, text] : d.body) {
      const std::string line = Transformed(d, text, &st, d.swap_operators);
      const std::vector<CodeLine> parsed = LogicalLines(line);
      const bool is_return = !parsed.empty() && IsName(parsed[0].tokens[0], "return");
      if (is_return && !d.return_comment.empty() && !d.return_comment_missing) {
        code.push_back(Indent(d, depth) + "# " + d.return_comment);
      }
      code.push_back(Indent(d, depth) + line);
      if (d.prints && !parsed.empty()) {
        const std::vector<std::string> names = AssignedNames(parsed[0].tokens);
        if (!names.empty()) {
          if (!(first_print && d.print_missing_first)) {
            code.push_back(Indent(d, depth) + AskedPrint(names, '"'));
          }
          first_print = false;
        }
      }
    }
  }
  if (d.guard) {
    code.push_back("");
    code.push_back("");
    code.push_back(Transformed(d, "if __name__ == \"__main__\":", &st, false));
    code.push_back(Indent(d, 1) + "print(" + FunctionName(d) + "(" +
                   Transformed(d, d.call_args, &st, false) + "))");
  }
  return code;
}

size_t LongestLine(const std::vector<std::string>& lines) {
  size_t most = 0;
  for (const std::string& l : lines) most = std::max(most, l.size());
  return most;
}

// ---- Reading a response's parts ----

bool HasRule(const nlohmann::json& rules, std::string_view id) {
  for (const auto& r : rules) {
    if (r.is_object() && r.value("id", "") == id) return true;
  }
  return false;
}

// The name tokens of the code not after a '.', with the line of each.
std::vector<std::pair<std::string, int>> NamesOf(const CodeParsed& m) {
  std::vector<std::pair<std::string, int>> out;
  for (const CodeLine& l : m.logical) {
    for (size_t i = 0; i < l.tokens.size(); ++i) {
      if (l.tokens[i].kind == Kind::kName && !(i > 0 && IsOp(l.tokens[i - 1], "."))) {
        out.emplace_back(l.tokens[i].text, l.line);
      }
    }
  }
  return out;
}

const CodeLine* FirstDef(const CodeParsed& m) {
  for (const CodeLine& l : m.logical) {
    if (l.tokens.size() >= 2 && IsName(l.tokens[0], "def") && l.tokens[1].kind == Kind::kName) return &l;
  }
  return nullptr;
}

// The parameters of a def line: each one's tokens.
std::vector<std::vector<CodeToken>> DefParameters(const std::vector<CodeToken>& t) {
  std::vector<std::vector<CodeToken>> out;
  int depth = 0;
  std::vector<CodeToken> cur;
  for (const CodeToken& x : t) {
    if (x.kind == Kind::kOp && (x.text == "(" || x.text == "[" || x.text == "{")) {
      if (++depth == 1 && x.text == "(") continue;
    }
    if (x.kind == Kind::kOp && (x.text == ")" || x.text == "]" || x.text == "}")) {
      if (--depth == 0) {
        if (!cur.empty()) out.push_back(std::move(cur));
        return out;
      }
    }
    if (depth == 0) continue;
    if (depth == 1 && IsOp(x, ",")) {
      out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur.push_back(x);
  }
  return out;
}

// A line of the code (a view into `m`), "" when out of range.
std::string_view LineText(const CodeParsed& m, int code_line) {
  if (code_line < 0 || static_cast<size_t>(code_line) >= m.code.size()) return {};
  return m.code[static_cast<size_t>(code_line)];
}

// ---- The rules ----

constexpr std::string_view kNoConflict[] = {""};
constexpr std::span<const std::string_view> kCompatibleWithAll(kNoConflict, 0);

// print-after-assign (paper: add_print_statements)
constexpr std::string_view kPrintConflicts[] = {"single-quotes"};
constexpr std::string_view kQuoteConflicts[] = {"print-after-assign"};
bool HasAssignment(const CodeDraft& d) {
  for (const auto& [depth, text] : d.body) {
    const std::vector<CodeLine> l = LogicalLines(text);
    if (!l.empty() && !AssignedNames(l[0].tokens).empty()) return true;
  }
  return false;
}
std::string PrintText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) {
    return "Directly after every line that assigns one or more plain variables with `=` "
           "(not `==`, not an item such as `d[k] = ...`), add a line with the same indentation "
           "that prints each of them as `print(\"NAME: \", str(NAME))`; for `a, b = ...` write "
           "`print(\"a: \", str(a), \"b: \", str(b))`.";
  }
  return "Follow each assignment to plain names (`x = ...` or `x, y = ...`, but not `x[i] = ...`) "
         "with a print line, indented like it, of the form `print(\"x: \", str(x))`, one "
         "`\"NAME: \", str(NAME)` pair per assigned name, in order.";
}
void ApplyPrint(const nlohmann::json&, CodeDraft* d) { d->prints = true; }
void ViolatePrint(const nlohmann::json&, CodeDraft* d) { d->print_missing_first = true; }
RuleCheck CheckPrint(const nlohmann::json&, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "print-after-assign";
  size_t asked = 0;
  for (size_t k = 0; k < m.logical.size(); ++k) {
    const std::vector<std::string> names = AssignedNames(m.logical[k].tokens);
    if (names.empty()) continue;
    ++asked;
    const std::string want = AskedPrint(names, '"');
    const CodeLine* next = k + 1 < m.logical.size() ? &m.logical[k + 1] : nullptr;
    bool ok = next != nullptr && next->indent == m.logical[k].indent;
    if (ok && rules == RuleSet::kPaper) {
      ok = TrimBlanks(LineText(m, next->line)) == want;
    } else if (ok) {
      // Strict: the same tokens, strings by value (either quote, any spacing).
      const std::vector<CodeLine> w = LogicalLines(want);
      ok = next->tokens.size() == w[0].tokens.size();
      for (size_t i = 0; ok && i < w[0].tokens.size(); ++i) {
        const CodeToken& a = next->tokens[i];
        const CodeToken& b = w[0].tokens[i];
        ok = a.kind == b.kind && (a.kind == Kind::kString ? SplitString(a.text).value == SplitString(b.text).value
                                                           : a.text == b.text);
      }
    }
    if (!ok) {
      return RuleFail(id, fmt::format("line {} assigns {} and is not followed by {}", m.logical[k].line + 1,
                                      fmt::join(names, ", "), QuoteText(want)));
    }
  }
  if (asked == 0) return RuleFail(id, "no assignment to print after");
  return RulePass(id, fmt::format("{} assignments, each printed", asked));
}

// rename-prefix (paper: replace_variables)
constexpr std::string_view kPrefixes[] = {"v_", "my_", "local_", "tmp_"};
std::vector<std::string> VariablesOf(const CodeDraft& d) {
  std::vector<std::string> out = d.params;
  const auto add = [&](const std::string& n) {
    if (n != d.fn_name && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  for (const auto& [depth, text] : d.body) {
    const std::vector<CodeLine> l = LogicalLines(text);
    if (l.empty()) continue;
    const auto& t = l[0].tokens;
    for (const std::string& n : AssignedNames(t)) add(n);
    if (!t.empty() && IsName(t[0], "for")) {
      for (size_t i = 1; i < t.size() && !IsName(t[i], "in"); ++i) {
        if (t[i].kind == Kind::kName) add(t[i].text);
      }
    }
  }
  return out;
}
std::vector<std::string> IdentifiersOf(const CodeDraft& d) {
  std::vector<std::string> out = {d.fn_name};
  for (const std::string& p : d.params) out.push_back(p);
  for (const auto& [depth, text] : d.body) {
    for (const CodeLine& l : LogicalLines(text)) {
      for (const CodeToken& t : l.tokens) {
        if (t.kind == Kind::kName) out.push_back(t.text);
      }
    }
  }
  return out;
}
bool HasVariable(const CodeDraft& d) { return !VariablesOf(d).empty(); }
nlohmann::json DrawRename(Rng* rng, const CodeDraft& d) {
  std::vector<std::string> vars = VariablesOf(d);
  const std::vector<std::string> ids = IdentifiersOf(d);
  rng->Shuffle(&vars);
  const size_t want = static_cast<size_t>(rng->UniformInt(1, 3));
  std::vector<std::string> prefixes(std::begin(kPrefixes), std::end(kPrefixes));
  rng->Shuffle(&prefixes);
  for (const std::string& prefix : prefixes) {
    std::vector<std::string> names;
    for (const std::string& v : vars) {
      if (names.size() == want) break;
      if (std::find(ids.begin(), ids.end(), prefix + v) == ids.end()) names.push_back(v);
    }
    if (!names.empty()) {
      // In the function's order, which the instruction lists them in.
      std::vector<std::string> ordered;
      for (const std::string& v : VariablesOf(d)) {
        if (std::find(names.begin(), names.end(), v) != names.end()) ordered.push_back(v);
      }
      return {{"prefix", prefix}, {"names", ordered}};
    }
  }
  return {{"prefix", "v_"}, {"names", nlohmann::json::array()}};
}
std::vector<std::string> NamesParam(const nlohmann::json& p) {
  std::vector<std::string> out;
  const auto it = p.find("names");
  if (it == p.end() || !it->is_array()) return out;
  for (const auto& n : *it) {
    if (n.is_string()) out.push_back(n.get<std::string>());
  }
  return out;
}
std::string Backticked(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + fmt::format("`{}`", names[i]);
  }
  return out;
}
std::string RenameText(const nlohmann::json& p, int phrasing) {
  const std::vector<std::string> names = NamesParam(p);
  const std::string prefix = StrParam(p, "prefix");
  const std::string example = names.empty() ? "" : names[0];
  if (phrasing == 0) {
    return fmt::format("Rename the variable{} {} by putting `{}` in front of the name (`{}` becomes "
                       "`{}{}`), everywhere it is used; rename nothing else.",
                       names.size() > 1 ? "s" : "", Backticked(names), prefix, example, prefix, example);
  }
  return fmt::format("Give {} the prefix `{}` (so `{}` is renamed `{}{}`) at every use; every other "
                     "name stays as it is.",
                     Backticked(names), prefix, example, prefix, example);
}
void ApplyRename(const nlohmann::json& p, CodeDraft* d) {
  d->rename_prefix = StrParam(p, "prefix");
  d->renamed = NamesParam(p);
}
void ViolateRename(const nlohmann::json& p, CodeDraft* d) {
  const std::vector<std::string> names = NamesParam(p);
  if (!names.empty()) d->rename_skipped = names.back();
}
RuleCheck CheckRename(const nlohmann::json& p, const CodeParsed& m, RuleSet) {
  constexpr std::string_view id = "rename-prefix";
  const std::string prefix = StrParam(p, "prefix");
  const std::vector<std::string> names = NamesParam(p);
  const auto used = NamesOf(m);
  for (const std::string& n : names) {
    for (const auto& [name, line] : used) {
      if (name == n) return RuleFail(id, fmt::format("`{}` is still used (line {})", n, line + 1));
    }
    const bool renamed = std::any_of(used.begin(), used.end(), [&](const auto& u) { return u.first == prefix + n; });
    if (!renamed) return RuleFail(id, fmt::format("`{}{}` is not used", prefix, n));
  }
  if (names.empty()) return RuleFail(id, "no names to rename");
  return RulePass(id);
}

// function-name
constexpr std::string_view kFunctionNames[] = {"solve", "compute", "transform", "evaluate",
                                               "run_task", "process"};
nlohmann::json DrawFunctionName(Rng* rng, const CodeDraft& d) {
  const std::vector<std::string> ids = IdentifiersOf(d);
  std::vector<std::string> names(std::begin(kFunctionNames), std::end(kFunctionNames));
  rng->Shuffle(&names);
  for (const std::string& n : names) {
    if (std::find(ids.begin(), ids.end(), n) == ids.end()) return {{"name", n}};
  }
  return {{"name", "rewritten_function"}};
}
std::string FunctionNameText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Rename the function itself to `{}` (and every call of it).", StrParam(p, "name"));
  return fmt::format("The function must be called `{}`: change its name in the `def` line and wherever it is called.",
                     StrParam(p, "name"));
}
void ApplyFunctionName(const nlohmann::json& p, CodeDraft* d) { d->new_fn_name = StrParam(p, "name"); }
void ViolateFunctionName(const nlohmann::json&, CodeDraft* d) { d->fn_name_kept = true; }
RuleCheck CheckFunctionName(const nlohmann::json& p, const CodeParsed& m, RuleSet) {
  constexpr std::string_view id = "function-name";
  const CodeLine* def = FirstDef(m);
  if (def == nullptr) return RuleFail(id, "no `def` line");
  if (def->tokens[1].text != StrParam(p, "name")) {
    return RuleFail(id, fmt::format("the function is `{}`, not `{}`", def->tokens[1].text, StrParam(p, "name")));
  }
  return RulePass(id);
}

// type-hints
// The type of each argument of `args` ("[1, 2], 3, \"x\""): list, int, str, ...; empty
// when an argument is of no simple type.
std::vector<std::string> ArgumentTypes(std::string_view args) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  const auto flush = [&] {
    const std::string_view a = TrimBlanks(cur);
    std::string type;
    if (a.starts_with("[")) type = "list";
    else if (a.starts_with("(")) type = "tuple";
    else if (a.starts_with("{")) type = "dict";
    else if (a.starts_with("\"") || a.starts_with("'")) type = "str";
    else if (a == "True" || a == "False") type = "bool";
    else if (!a.empty() && (IsDigitChar(a[0]) || a[0] == '-')) type = a.find('.') != std::string_view::npos ? "float" : "int";
    out.push_back(type);
    cur.clear();
  };
  char in_string = 0;
  for (char c : args) {
    if (in_string != 0) {
      if (c == in_string) in_string = 0;
    } else if (c == '"' || c == '\'') {
      in_string = c;
    } else if (c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if (c == ']' || c == ')' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      flush();
      continue;
    }
    cur += c;
  }
  if (!TrimBlanks(cur).empty()) flush();
  return out;
}
bool TypesKnown(const CodeDraft& d) {
  const std::vector<std::string> types = ArgumentTypes(d.call_args);
  return !d.params.empty() && types.size() == d.params.size() &&
         std::none_of(types.begin(), types.end(), [](const std::string& t) { return t.empty(); });
}
nlohmann::json DrawHints(Rng*, const CodeDraft& d) { return {{"types", ArgumentTypes(d.call_args)}}; }
std::string HintsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Give every parameter of the function a type annotation (`name: type`).";
  return "Annotate each function parameter with its type, as in `def f(items: list, n: int):`.";
}
void ApplyHints(const nlohmann::json& p, CodeDraft* d) {
  d->param_types.clear();
  const auto it = p.find("types");
  if (it == p.end() || !it->is_array()) return;
  for (const auto& t : *it) d->param_types.push_back(t.is_string() ? t.get<std::string>() : "");
}
void ViolateHints(const nlohmann::json&, CodeDraft* d) { d->hint_missing_first = true; }
RuleCheck CheckHints(const nlohmann::json&, const CodeParsed& m, RuleSet) {
  constexpr std::string_view id = "type-hints";
  size_t defs = 0;
  for (const CodeLine& l : m.logical) {
    if (l.tokens.empty() || !IsName(l.tokens[0], "def")) continue;
    ++defs;
    for (const std::vector<CodeToken>& param : DefParameters(l.tokens)) {
      if (param.empty() || param[0].kind != Kind::kName) continue;  // `*`, `/`
      const bool annotated = param.size() >= 3 && IsOp(param[1], ":") && !IsOp(param[2], "=");
      if (!annotated) {
        return RuleFail(id, fmt::format("parameter `{}` (line {}) has no type annotation", param[0].text, l.line + 1));
      }
    }
  }
  if (defs == 0) return RuleFail(id, "no `def` line");
  return RulePass(id);
}

// docstrings
constexpr std::string_view kDocstring = "Compute and return the result.";
std::string DocstringText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Give every function a docstring: a one-line `\"\"\"...\"\"\"` string as the first statement of its body.";
  return "The first statement of each function's body must be a one-line docstring in triple double quotes.";
}
void ApplyDocstring(const nlohmann::json&, CodeDraft* d) { d->docstring = std::string(kDocstring); }
void ViolateDocstring(const nlohmann::json&, CodeDraft* d) { d->docstring_missing = true; }
RuleCheck CheckDocstring(const nlohmann::json&, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "docstrings";
  size_t defs = 0;
  for (size_t k = 0; k < m.logical.size(); ++k) {
    const CodeLine& l = m.logical[k];
    if (l.tokens.size() < 2 || !IsName(l.tokens[0], "def")) continue;
    ++defs;
    const CodeLine* first = k + 1 < m.logical.size() ? &m.logical[k + 1] : nullptr;
    const bool deeper = first != nullptr && IndentWidth(first->indent) > IndentWidth(l.indent);
    if (!deeper || first->tokens.size() != 1 || first->tokens[0].kind != Kind::kString) {
      return RuleFail(id, fmt::format("function `{}` has no docstring", l.tokens[1].text));
    }
    const std::string& s = first->tokens[0].text;
    const StringParts p = SplitString(s);
    bool ok = HasLetter(p.value);
    if (rules == RuleSet::kPaper) {
      ok = ok && p.prefix.empty() && p.quote == "\"\"\"" && s.find('\n') == std::string::npos;
    } else {
      ok = ok && p.prefix.find_first_of("bBfF") == std::string_view::npos;
    }
    if (!ok) return RuleFail(id, fmt::format("function `{}`: {} is not a one-line docstring", l.tokens[1].text, QuoteText(s)));
  }
  if (defs == 0) return RuleFail(id, "no `def` line");
  return RulePass(id);
}

// header-comment
constexpr std::string_view kHeaders[] = {"Rewritten for review", "Checked against the style guide",
                                         "Formatted for the code base", "Reviewed and reformatted"};
std::string WithoutLastWord(std::string_view s) {
  const size_t space = s.rfind(' ');
  return std::string(space == std::string_view::npos ? s.substr(0, s.size() / 2) : s.substr(0, space));
}
nlohmann::json DrawHeader(Rng* rng, const CodeDraft&) { return {{"text", std::string(PickOf(rng, kHeaders))}}; }
std::string HeaderText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("The code's first line must be the comment `# {}`.", StrParam(p, "text"));
  return fmt::format("Start the code with this comment line, exactly: `# {}`.", StrParam(p, "text"));
}
void ApplyHeader(const nlohmann::json& p, CodeDraft* d) { d->header = StrParam(p, "text"); }
void ViolateHeader(const nlohmann::json& p, CodeDraft* d) { d->header = WithoutLastWord(StrParam(p, "text")); }
RuleCheck CheckHeader(const nlohmann::json& p, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "header-comment";
  const std::string want = "# " + StrParam(p, "text");
  for (const std::string& line : m.code) {
    if (TrimBlanks(line).empty()) continue;
    bool ok = line == want;
    if (rules == RuleSet::kStrict) {
      const std::string_view t = TrimBlanks(line);
      ok = t.starts_with("#") && TrimBlanks(t.substr(1)) == StrParam(p, "text");
    }
    if (!ok) return RuleFail(id, fmt::format("the code's first line is {}, not '{}'", QuoteText(line), want));
    return RulePass(id);
  }
  return RuleFail(id, "no code");
}

// indent-width
nlohmann::json DrawIndent(Rng* rng, const CodeDraft&) { return {{"width", rng->Bernoulli(0.5) ? 2 : 4}}; }
std::string IndentText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Indent with spaces only, exactly {} spaces per level (no tabs).", IntParam(p, "width"));
  return fmt::format("Every indentation level is {} spaces: never a tab, never another width.", IntParam(p, "width"));
}
void ApplyIndent(const nlohmann::json& p, CodeDraft* d) { d->indent = std::max(1, IntParam(p, "width")); }
void ViolateIndent(const nlohmann::json& p, CodeDraft* d) { d->indent = IntParam(p, "width") == 4 ? 2 : 4; }
RuleCheck CheckIndent(const nlohmann::json& p, const CodeParsed& m, RuleSet) {
  constexpr std::string_view id = "indent-width";
  const size_t w = static_cast<size_t>(std::max(1, IntParam(p, "width")));
  for (size_t k = 0; k < m.logical.size(); ++k) {
    const CodeLine& l = m.logical[k];
    if (l.indent.find_first_not_of(' ') != std::string::npos) {
      return RuleFail(id, fmt::format("line {} is indented with a tab", l.line + 1));
    }
    if (l.indent.size() % w != 0) {
      return RuleFail(id, fmt::format("line {} is indented {} spaces, not a multiple of {}", l.line + 1, l.indent.size(), w));
    }
    if (k > 0 && IsOp(m.logical[k - 1].tokens.back(), ":") && l.indent.size() != m.logical[k - 1].indent.size() + w) {
      return RuleFail(id, fmt::format("line {} is indented {} spaces more than its block's opening line, not {}",
                                      l.line + 1, l.indent.size() - std::min(l.indent.size(), m.logical[k - 1].indent.size()), w));
    }
  }
  if (m.logical.empty()) return RuleFail(id, "no code");
  return RulePass(id);
}

// no-trailing-whitespace
std::string TrailingText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "No line may end with a space or a tab.";
  return "Leave no trailing whitespace at the end of any line.";
}
void ViolateTrailing(const nlohmann::json&, CodeDraft* d) { d->trailing_space = true; }
RuleCheck CheckTrailing(const nlohmann::json&, const CodeParsed& m, RuleSet) {
  constexpr std::string_view id = "no-trailing-whitespace";
  for (size_t i = 0; i < m.lines.size(); ++i) {
    const std::string& l = m.lines[i];
    if (!l.empty() && (l.back() == ' ' || l.back() == '\t')) {
      return RuleFail(id, fmt::format("line {} ends with whitespace", i + 1));
    }
  }
  return RulePass(id);
}

// main-guard
bool HasCallArgs(const CodeDraft& d) { return !d.call_args.empty() && d.call_args.find('\n') == std::string::npos; }
nlohmann::json DrawGuard(Rng*, const CodeDraft& d) { return {{"args", d.call_args}}; }
std::string GuardText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) {
    return fmt::format("End the code with an `if __name__ == \"__main__\":` block that prints the "
                       "function's result for the arguments `{}`.", StrParam(p, "args"));
  }
  return fmt::format("Add, after the function, a main guard (`if __name__ == \"__main__\":`) whose "
                     "body prints what the function returns when called with `{}`.", StrParam(p, "args"));
}
void ApplyGuard(const nlohmann::json&, CodeDraft* d) { d->guard = true; }
void ViolateGuard(const nlohmann::json&, CodeDraft* d) { d->guard = false; }
bool SameTokens(const std::vector<CodeToken>& a, size_t from, size_t to, const std::vector<CodeToken>& b) {
  if (to - from != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    const CodeToken& x = a[from + i];
    if (x.kind != b[i].kind) return false;
    if (x.kind == Kind::kString ? SplitString(x.text).value != SplitString(b[i].text).value : x.text != b[i].text) {
      return false;
    }
  }
  return true;
}
RuleCheck CheckGuard(const nlohmann::json& p, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "main-guard";
  const CodeLine* def = FirstDef(m);
  if (def == nullptr) return RuleFail(id, "no `def` line");
  const std::string fn = def->tokens[1].text;
  std::vector<CodeToken> args;
  if (const std::vector<CodeLine> a = LogicalLines(StrParam(p, "args")); !a.empty()) args = a[0].tokens;
  for (size_t k = 0; k < m.logical.size(); ++k) {
    const CodeLine& g = m.logical[k];
    if (!g.indent.empty() || !IsGuard(g) || g.line < def->line) continue;
    if (rules == RuleSet::kPaper) {
      const std::string_view text = TrimBlanks(LineText(m, g.line));
      if (text != "if __name__ == \"__main__\":" && text != "if __name__ == '__main__':") {
        return RuleFail(id, fmt::format("the guard line is {}", QuoteText(text)));
      }
    }
    for (size_t j = k + 1; j < m.logical.size() && !m.logical[j].indent.empty(); ++j) {
      const auto& t = m.logical[j].tokens;
      // print ( fn ( args ) )
      if (t.size() >= 6 && IsName(t[0], "print") && IsOp(t[1], "(") && IsName(t[2], fn) && IsOp(t[3], "(") &&
          IsOp(t[t.size() - 2], ")") && IsOp(t.back(), ")") && SameTokens(t, 4, t.size() - 2, args)) {
        return RulePass(id);
      }
    }
    return RuleFail(id, fmt::format("the guard's block does not print `{}({})`", fn, StrParam(p, "args")));
  }
  return RuleFail(id, "no `if __name__ == \"__main__\":` line after the function");
}

// fenced-block
std::string FenceText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Put the code in one fenced code block opened with ```python.";
  return "Write the code inside a single Markdown code fence tagged `python` (```python ... ```), and no prose outside it.";
}
void ApplyFence(const nlohmann::json&, CodeDraft* d) { d->fenced = true; }
void ViolateFence(const nlohmann::json&, CodeDraft* d) { d->fence_tag.clear(); }
RuleCheck CheckFence(const nlohmann::json&, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "fenced-block";
  if (m.fence_lines.size() != 2) return RuleFail(id, fmt::format("{} fence lines, not 2 (one block)", m.fence_lines.size()));
  const std::string& open = m.lines[static_cast<size_t>(m.fence_lines[0])];
  bool tagged = open == "```python";
  if (rules == RuleSet::kStrict) {
    std::string tag(TrimBlanks(std::string_view(open).substr(open.find("```") + 3)));
    for (char& c : tag) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    tagged = TrimBlanks(open).starts_with("```") && (tag == "python" || tag == "py" || tag == "python3");
  }
  if (!tagged) return RuleFail(id, fmt::format("the block opens with {}, not '```python'", QuoteText(open)));
  for (size_t i = 0; i < m.lines.size(); ++i) {
    const int at = static_cast<int>(i);
    if (at >= m.fence_lines[0] && at <= m.fence_lines[1]) continue;
    if (at == m.closing_line || TrimBlanks(m.lines[i]).empty()) continue;
    return RuleFail(id, fmt::format("line {} is outside the block: {}", i + 1, QuoteText(m.lines[i])));
  }
  return RulePass(id);
}

// closing-line
constexpr std::string_view kClosings[] = {"End of the rewritten code.", "That is the whole function.",
                                          "The rewrite is complete."};
nlohmann::json DrawClosing(Rng* rng, const CodeDraft&) { return {{"text", std::string(PickOf(rng, kClosings))}}; }
std::string ClosingText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("After the code, end the response with the line `{}`.", StrParam(p, "text"));
  return fmt::format("The response's last line, after all of the code, must read exactly: {}", StrParam(p, "text"));
}
void ApplyClosing(const nlohmann::json& p, CodeDraft* d) { d->closing = StrParam(p, "text"); }
void ViolateClosing(const nlohmann::json& p, CodeDraft* d) { d->closing = WithoutLastWord(StrParam(p, "text")); }
RuleCheck CheckClosing(const nlohmann::json& p, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "closing-line";
  if (m.closing_line < 0) return RuleFail(id, "no line after the code");
  const std::string& line = m.lines[static_cast<size_t>(m.closing_line)];
  const bool ok = rules == RuleSet::kPaper ? line == StrParam(p, "text") : TrimBlanks(line) == StrParam(p, "text");
  if (!ok) return RuleFail(id, fmt::format("the last line is {}, not '{}'", QuoteText(line), StrParam(p, "text")));
  return RulePass(id);
}

// single-quotes
// A string in the body (which the violation leaves in double quotes), and every string
// of the body and the call convertible.
bool HasConvertibleStrings(const CodeDraft& d) {
  size_t in_body = 0;
  std::vector<std::string> texts = {d.call_args};
  for (const auto& [depth, text] : d.body) texts.push_back(text);
  for (size_t i = 0; i < texts.size(); ++i) {
    for (const CodeLine& l : LogicalLines(texts[i])) {
      for (const CodeToken& t : l.tokens) {
        if (t.kind != Kind::kString) continue;
        const StringParts p = SplitString(t.text);
        if (p.quote != "\"" || p.value.find_first_of("'\\") != std::string_view::npos) return false;
        in_body += i > 0;
      }
    }
  }
  return in_body > 0;
}
std::string QuotesText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Write every string literal in single quotes ('...'), docstrings excepted.";
  return "Use single quotes, not double quotes, for all strings in the code (docstrings may keep triple double quotes).";
}
void ApplyQuotes(const nlohmann::json&, CodeDraft* d) { d->single_quotes = true; }
void ViolateQuotes(const nlohmann::json&, CodeDraft* d) { d->single_quote_missing_first = true; }
RuleCheck CheckQuotes(const nlohmann::json&, const CodeParsed& m, RuleSet) {
  constexpr std::string_view id = "single-quotes";
  for (const CodeLine& l : m.logical) {
    if (l.tokens.size() == 1 && l.tokens[0].kind == Kind::kString) continue;  // a docstring
    for (const CodeToken& t : l.tokens) {
      if (t.kind == Kind::kString && !SplitString(t.text).quote.starts_with("'")) {
        return RuleFail(id, fmt::format("line {} has the string {}", l.line + 1, QuoteText(t.text)));
      }
    }
  }
  return RulePass(id);
}

// return-comment
constexpr std::string_view kReturnComments[] = {"the result", "hand back the result", "done"};
bool HasReturn(const CodeDraft& d) {
  return std::any_of(d.body.begin(), d.body.end(), [](const auto& l) {
    const std::vector<CodeLine> parsed = LogicalLines(l.second);
    return !parsed.empty() && IsName(parsed[0].tokens[0], "return");
  });
}
nlohmann::json DrawReturnComment(Rng* rng, const CodeDraft&) { return {{"text", std::string(PickOf(rng, kReturnComments))}}; }
std::string ReturnCommentText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Put the comment line `# {}` directly above every `return` statement, indented like it.", StrParam(p, "text"));
  return fmt::format("Each `return` line must have, on the line right above it and at the same indentation, the comment `# {}`.", StrParam(p, "text"));
}
void ApplyReturnComment(const nlohmann::json& p, CodeDraft* d) { d->return_comment = StrParam(p, "text"); }
void ViolateReturnComment(const nlohmann::json&, CodeDraft* d) { d->return_comment_missing = true; }
RuleCheck CheckReturnComment(const nlohmann::json& p, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "return-comment";
  const std::string text = StrParam(p, "text");
  size_t returns = 0;
  for (const CodeLine& l : m.logical) {
    if (!IsName(l.tokens[0], "return")) continue;
    ++returns;
    const std::string_view above = LineText(m, l.line - 1);
    bool ok = above == l.indent + "# " + text;
    if (rules == RuleSet::kStrict) {
      const std::string_view t = TrimBlanks(above);
      ok = t.starts_with("#") && TrimBlanks(t.substr(1)) == text;
    }
    if (!ok) return RuleFail(id, fmt::format("the line above the return on line {} is {}", l.line + 1, QuoteText(above)));
  }
  if (returns == 0) return RuleFail(id, "no return statement");
  return RulePass(id);
}

// max-line-length: last in the table, so that it is drawn after every other rule has
// changed the draft, wide enough for their violations (a longer function name kept, the
// other indentation width, trailing spaces).
nlohmann::json DrawLineLength(Rng* rng, const CodeDraft& draft) {
  CodeDraft worst = draft;
  worst.indent = std::max(4, draft.indent);
  worst.trailing_space = true;
  if (!worst.new_fn_name.empty() && worst.fn_name.size() > worst.new_fn_name.size()) worst.fn_name_kept = true;
  const size_t longest = LongestLine(CodeLines(worst));
  return {{"max", static_cast<int>(longest + static_cast<size_t>(rng->UniformInt(3, 12)))}};
}
std::string LineLengthText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("No line of the code may be longer than {} characters.", IntParam(p, "max"));
  return fmt::format("Keep every line of code to at most {} characters.", IntParam(p, "max"));
}
void ViolateLineLength(const nlohmann::json& p, CodeDraft* d) {
  d->long_comment = static_cast<size_t>(IntParam(p, "max")) + 5;
}
size_t CodePoints(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
RuleCheck CheckLineLength(const nlohmann::json& p, const CodeParsed& m, RuleSet rules) {
  constexpr std::string_view id = "max-line-length";
  const size_t most = static_cast<size_t>(IntParam(p, "max"));
  for (size_t i = 0; i < m.code.size(); ++i) {
    const size_t n = rules == RuleSet::kPaper ? m.code[i].size() : CodePoints(m.code[i]);
    if (n > most) return RuleFail(id, fmt::format("line {} of the code has {} characters, more than {}", i + 1, n, most));
  }
  if (m.code.empty()) return RuleFail(id, "no code");
  return RulePass(id);
}

constexpr CodeRule kCodeRules[] = {
    {"print-after-assign", "a print of the assigned names after every assignment", RuleOrigin::kPaper,
     kPrintConflicts, &HasAssignment, nullptr, 2, &PrintText, &ApplyPrint, &ViolatePrint, &CheckPrint},
    {"rename-prefix", "given variables renamed with a given prefix", RuleOrigin::kPaper, kCompatibleWithAll,
     &HasVariable, &DrawRename, 2, &RenameText, &ApplyRename, &ViolateRename, &CheckRename},
    {"function-name", "the function renamed to a given name", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     &DrawFunctionName, 2, &FunctionNameText, &ApplyFunctionName, &ViolateFunctionName, &CheckFunctionName},
    {"type-hints", "a type annotation on every parameter", RuleOrigin::kNew, kCompatibleWithAll, &TypesKnown,
     &DrawHints, 2, &HintsText, &ApplyHints, &ViolateHints, &CheckHints},
    {"docstrings", "a one-line docstring in every function", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     nullptr, 2, &DocstringText, &ApplyDocstring, &ViolateDocstring, &CheckDocstring},
    {"header-comment", "a given comment as the code's first line", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     &DrawHeader, 2, &HeaderText, &ApplyHeader, &ViolateHeader, &CheckHeader},
    {"return-comment", "a given comment line above every `return`", RuleOrigin::kNew, kCompatibleWithAll,
     &HasReturn, &DrawReturnComment, 2, &ReturnCommentText, &ApplyReturnComment, &ViolateReturnComment,
     &CheckReturnComment},
    {"main-guard", "an `if __name__ == \"__main__\":` block printing a given call", RuleOrigin::kNew,
     kCompatibleWithAll, &HasCallArgs, &DrawGuard, 2, &GuardText, &ApplyGuard, &ViolateGuard, &CheckGuard},
    {"single-quotes", "every string literal in single quotes", RuleOrigin::kNew, kQuoteConflicts,
     &HasConvertibleStrings, nullptr, 2, &QuotesText, &ApplyQuotes, &ViolateQuotes, &CheckQuotes},
    {"indent-width", "indentation of exactly 2 or 4 spaces a level, no tabs", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, &DrawIndent, 2, &IndentText, &ApplyIndent, &ViolateIndent, &CheckIndent},
    {"no-trailing-whitespace", "no line ends with a space or a tab", RuleOrigin::kNew, kCompatibleWithAll,
     nullptr, nullptr, 2, &TrailingText, nullptr, &ViolateTrailing, &CheckTrailing},
    {"fenced-block", "the code in one fenced block tagged python, nothing outside it", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, nullptr, 2, &FenceText, &ApplyFence, &ViolateFence, &CheckFence},
    {"closing-line", "a given line after the code", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     &DrawClosing, 2, &ClosingText, &ApplyClosing, &ViolateClosing, &CheckClosing},
    {"max-line-length", "no line of the code longer than N characters", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, &DrawLineLength, 2, &LineLengthText, nullptr, &ViolateLineLength,
     &CheckLineLength},
};

}  // namespace code_internal_rules

std::span<const CodeRule> CodeRules() { return code_internal_rules::kCodeRules; }

const CodeRule* FindCodeRule(std::string_view id) {
  for (const CodeRule& r : code_internal_rules::kCodeRules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::vector<CodeLine> CodeLogicalLines(std::string_view code) {
  return code_internal_rules::LogicalLines(code);
}

StatusOr<CodeDraft> CodeDraftOf(const Program& program) {
  using namespace code_internal_rules;
  const auto refuse = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format(
        "program '{}': the composed code suite rewrites one-function programs like the built-in "
        "ones, and this one {} (leave out `mbpp`)",
        program.id, why));
  };
  const std::vector<std::string> lines = LinesOf(program.source);
  if (lines.empty()) return refuse("is empty");
  CodeDraft d;
  d.fn_name = program.fn_name;
  const std::vector<CodeLine> def = LogicalLines(lines[0]);
  if (def.size() != 1 || def[0].tokens.size() < 5 || !IsName(def[0].tokens[0], "def") ||
      def[0].tokens[1].text != program.fn_name || !def[0].indent.empty() ||
      !IsOp(def[0].tokens.back(), ":") || !IsOp(def[0].tokens[def[0].tokens.size() - 2], ")")) {
    return refuse("does not open with a one-line `def` of its function");
  }
  for (const std::vector<CodeToken>& p : DefParameters(def[0].tokens)) {
    if (p.size() != 1 || p[0].kind != Kind::kName) return refuse("has a parameter that is not a plain name");
    d.params.push_back(p[0].text);
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const size_t spaces = l.find_first_not_of(' ');
    if (spaces == std::string::npos) return refuse("has a blank line");
    const std::vector<CodeLine> parsed = LogicalLines(l);
    if (parsed.size() != 1 || l.find('#') != std::string::npos || l.find('\t') != std::string::npos ||
        spaces == 0 || spaces % 4 != 0 || l.back() == ' ' ||
        (parsed[0].tokens.size() == 1 && parsed[0].tokens[0].kind == Kind::kString) ||
        IsName(parsed[0].tokens[0], "print") || IsName(parsed[0].tokens[0], "def") ||
        l.find("\"\"\"") != std::string::npos || l.find("'''") != std::string::npos) {
      return refuse(fmt::format("has line {} that is not one plain statement indented by fours", i + 1));
    }
    d.body.emplace_back(static_cast<int>(spaces / 4), l.substr(spaces));
  }
  if (d.body.empty()) return refuse("has no body");
  if (!program.inputs.empty()) d.call_args = program.inputs[0];
  return d;
}

std::string RenderCode(const CodeDraft& d) {
  using namespace code_internal_rules;
  const std::vector<std::string> code = CodeLines(d);
  std::string out;
  if (d.fenced) out += "```" + d.fence_tag + "\n";
  for (size_t i = 0; i < code.size(); ++i) out += (i ? "\n" : "") + code[i];
  if (d.fenced) out += "\n```";
  if (!d.closing.empty()) out += "\n\n" + d.closing;
  return out;
}

CodeParsed ParseCode(std::string_view response, const nlohmann::json& rules, std::string_view source,
                     std::string_view fn_name) {
  using namespace code_internal_rules;
  CodeParsed m;
  m.response = std::string(response);
  m.lines = LinesOf(response);
  const std::vector<int> content = NonBlankLines(m.lines);
  if (HasRule(rules, "closing-line") && !content.empty()) m.closing_line = content.back();
  for (size_t i = 0; i < m.lines.size(); ++i) {
    if (TrimBlanks(m.lines[i]).starts_with("```")) m.fence_lines.push_back(static_cast<int>(i));
  }
  int from = 0, to = static_cast<int>(m.lines.size());
  if (m.fence_lines.size() >= 2) {
    from = m.fence_lines[0] + 1;
    to = m.fence_lines[1];
    if (m.closing_line >= 0 && m.closing_line <= m.fence_lines[1]) m.closing_line = -1;
  } else if (m.closing_line >= 0) {
    to = m.closing_line;
  }
  std::string code;
  for (int i = from; i < to; ++i) {
    m.code.push_back(m.lines[static_cast<size_t>(i)]);
    code += m.lines[static_cast<size_t>(i)] + "\n";
  }
  m.logical = LogicalLines(code);
  m.source = LogicalLines(source);
  for (const auto& r : rules) {
    if (!r.is_object()) continue;
    const std::string id = r.value("id", "");
    if (id == "rename-prefix") {
      for (const std::string& n : NamesParam(r)) m.renames.emplace_back(StrParam(r, "prefix") + n, n);
    }
    if (id == "function-name") m.renames.emplace_back(StrParam(r, "name"), std::string(fn_name));
  }
  return m;
}

RuleCheck CheckCodeProgram(const CodeParsed& m) {
  using namespace code_internal_rules;
  const auto values = [](const std::vector<NormLine>& lines) {
    std::vector<std::string> out;
    for (const NormLine& l : lines) {
      for (const std::string& t : l.tokens) {
        if (IsValueToken(t)) out.push_back(t);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<std::string> want = values(Normalized(m.source, {}, true));
  const std::vector<std::string> got = values(Normalized(m.logical, m.renames, true));
  if (got.empty()) return RuleFail("program", "no code");
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  if (!missing.empty()) {
    return RuleFail("program", fmt::format("the given function's {} is missing ({} of its names and values are)",
                                           QuoteText(missing[0]), missing.size()));
  }
  if (!extra.empty()) {
    return RuleFail("program", fmt::format("{} is not the given function's ({} names and values more)",
                                           QuoteText(extra[0]), extra.size()));
  }
  return RulePass("program", fmt::format("its {} names and values", want.size()));
}

RuleCheck CheckCodeStatements(const CodeParsed& m) {
  using namespace code_internal_rules;
  const std::vector<NormLine> want = Normalized(m.source, {}, false);
  const std::vector<NormLine> got = Normalized(m.logical, m.renames, false);
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    if (want[i].depth != got[i].depth || want[i].tokens != got[i].tokens) {
      return RuleFail("statements", fmt::format("statement {} (line {}) is {} at depth {}, not the given {} at depth {}",
                                                i + 1, got[i].line + 1, QuoteText(fmt::format("{}", fmt::join(got[i].tokens, " "))),
                                                got[i].depth, QuoteText(fmt::format("{}", fmt::join(want[i].tokens, " "))),
                                                want[i].depth));
    }
  }
  if (got.size() != want.size()) {
    return RuleFail("statements", fmt::format("{} statements, not the given function's {}", got.size(), want.size()));
  }
  return RulePass("statements", fmt::format("the given function's {} statements", want.size()));
}

// The function between tags, not in a fenced block: a response that only repeats the
// prompt then has no block whose body reads as the function.
std::string CodeBasePrompt(std::string_view source) {
  return fmt::format(
      "Here is a Python function, between <function> and </function>:\n\n<function>\n{}\n"
      "</function>\n\nRewrite it without changing what it does: keep every statement, name "
      "and value as it is, except for the changes the rules below ask for. Write the whole "
      "rewritten function (without the tags).",
      source);
}

}  // namespace structtest::composed
