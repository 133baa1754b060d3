#include "tasks/math/strict.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/ascii.h"
#include "core/pytext.h"
#include "core/status_macros.h"
#include "tasks/math/arithmetic.h"
#include "tasks/math/fast_scan.h"
#include "tasks/math/formats.h"
#include "tasks/math/py_json.h"
#include "tasks/params.h"

// Every scan below is linear in the response: occurrences of the answer phrase are
// found left to right without overlap, and what is looked at past each one is capped
// (kAnswerScanBytes) or ends at the next occurrence.

namespace structtest::math_internal {

namespace {

constexpr size_t kNpos = std::string_view::npos;

bool IsHSpace(char c) { return c == ' ' || c == '\t'; }
bool IsAsciiAlnum(unsigned char c) {
  return IsAsciiDigit(static_cast<char>(c)) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
// Model text for a reason: at most `max` code points, valid UTF-8 (a bad byte shows
// as U+FFFD), newlines as \n, other control characters as U+FFFD.
std::string Quote(std::string_view s, size_t max = kQuoteCodePoints) {
  std::string out = "'";
  size_t i = 0, shown = 0;
  while (i < s.size() && shown < max) {
    size_t len;
    const char32_t c = DecodeUtf8(s, i, &len);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      AppendUtf8(kInvalidCodePoint, &out);
    } else {
      AppendUtf8(c, &out);
    }
    i += len;
    ++shown;
  }
  if (i < s.size()) out += "...";
  out += "'";
  return out;
}

// A word is a run of letters and digits (Python's str.isalnum, so any script).
// Calls f(word) for each; f returns false to stop.
template <typename F>
void ForEachWord(std::string_view s, F&& f) {
  size_t start = kNpos;
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = 1;
    bool alnum;
    if (b < 0x80) {
      alnum = IsAsciiAlnum(b);
    } else {
      const char32_t c = DecodeUtf8(s, i, &len);
      alnum = c != kInvalidCodePoint && IsPyAlnum(c);
    }
    if (alnum) {
      if (start == kNpos) start = i;
    } else if (start != kNpos) {
      if (!f(s.substr(start, i - start))) return;
      start = kNpos;
    }
    i += len;
  }
  if (start != kNpos) f(s.substr(start));
}


// The words, lower-cased (ASCII), one space apart: what two steps are compared by.
std::string NormalizedWords(std::string_view s) {
  std::string out;
  ForEachWord(s, [&](std::string_view w) {
    if (!out.empty()) out.push_back(' ');
    for (char c : w) out.push_back(AsciiLower(c));
    return true;
  });
  return out;
}

std::string_view Strip(std::string_view s) { return PyStrip(s); }

size_t LineEnd(std::string_view t, size_t pos) {
  const size_t e = t.find('\n', pos);
  return e == kNpos ? t.size() : e;
}

// The end of the line at `pos`, looking no further than `cap` bytes (so that many
// lookups on one huge line stay linear): min(LineEnd, pos + cap).
size_t LineEndWithin(std::string_view t, size_t pos, size_t cap) {
  const size_t limit = std::min(t.size(), pos + cap);
  if (pos >= limit) return limit;
  const void* nl = std::memchr(t.data() + pos, '\n', limit - pos);
  return nl == nullptr ? limit : static_cast<size_t>(static_cast<const char*>(nl) - t.data());
}

size_t LineStart(std::string_view t, size_t pos) {
  if (pos == 0) return 0;
  const size_t nl = t.rfind('\n', pos - 1);
  return nl == kNpos ? 0 : nl + 1;
}

// "\r\n" and a lone "\r" become "\n": Windows line endings are harmless.
std::string_view NormalizeNewlines(std::string_view r, std::string* storage) {
  if (r.find('\r') == kNpos) return r;
  storage->reserve(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == '\r') {
      storage->push_back('\n');
      if (i + 1 < r.size() && r[i + 1] == '\n') ++i;
    } else {
      storage->push_back(r[i]);
    }
  }
  return *storage;
}

// The answer form as the prompt shows it: 'The answer is: N', '\boxed{N}', ...
std::string AnswerForm(const AnswerPhrase& p) {
  switch (p.kind) {
    case AnswerKind::kText:
      return fmt::format("{} N", p.text);
    case AnswerKind::kBoxed:
      return fmt::format("{}N}}", p.text);
    case AnswerKind::kDollar:
      return fmt::format("{}N$", p.text);
    case AnswerKind::kTagged:
      return fmt::format("{}N</result>", p.text);
  }
  return std::string(p.text);
}

std::string AnswerLine(const AnswerPhrase& p, std::string_view value) {
  std::string form = AnswerForm(p);
  const size_t n = form.rfind('N');
  return form.replace(n, 1, value);
}

bool IsHashPhrase(const AnswerPhrase& p) { return p.text.starts_with('#'); }

// ---------------------------------------------------------------------------------
// Bare numbers

// A bare number: an optional sign, digits with optional thousands separators (',',
// LaTeX '{,}' or '\,', groups of three), an optional decimal part, written plain or
// inside math delimiters ($18$, \(18\), \[18\]), a box (\boxed{18}) or markdown bold:
// all of these show the reader the number and nothing else. Sets *normalized to the
// canonical decimal (no leading or trailing zeros, "-" only for non-zero) and *shown to
// the number as written, without its wrapping.
bool ParseBareNumber(std::string_view s, std::string* normalized, std::string_view* shown) {
  s = Strip(s);
  for (int unwrap = 0; unwrap < 4; ++unwrap) {
    std::string_view inner;
    if (s.size() >= 4 && s.starts_with("$$") && s.ends_with("$$")) {
      inner = s.substr(2, s.size() - 4);
    } else if (s.size() >= 2 && s.front() == '$' && s.back() == '$') {
      inner = s.substr(1, s.size() - 2);
    } else if (s.size() >= 4 && (s.starts_with("\\(") && s.ends_with("\\)"))) {
      inner = s.substr(2, s.size() - 4);
    } else if (s.size() >= 4 && (s.starts_with("\\[") && s.ends_with("\\]"))) {
      inner = s.substr(2, s.size() - 4);
    } else if (s.size() >= 8 && s.starts_with("\\boxed{") && s.ends_with('}')) {
      inner = s.substr(7, s.size() - 8);
    } else if (s.size() >= 4 && s.starts_with("**") && s.ends_with("**")) {
      inner = s.substr(2, s.size() - 4);
    } else {
      break;
    }
    s = Strip(inner);
  }
  *shown = s;
  size_t i = 0;
  bool negative = false;
  if (s.starts_with("-") || s.starts_with("+")) {
    negative = s[0] == '-';
    i = 1;
  } else if (s.starts_with("\u2212")) {  // the minus sign
    negative = true;
    i = 3;
  }
  std::string int_digits, frac_digits;
  std::vector<size_t> groups(1, 0);
  while (i < s.size()) {
    if (IsAsciiDigit(s[i])) {
      int_digits.push_back(s[i]);
      ++groups.back();
      ++i;
      continue;
    }
    size_t sep = 0;
    if (s[i] == ',') sep = 1;
    if (s.substr(i).starts_with("{,}")) sep = 3;
    if (s.substr(i).starts_with("\\,")) sep = 2;
    if (sep == 0 || groups.back() == 0 || i + sep >= s.size() || !IsAsciiDigit(s[i + sep])) break;
    groups.push_back(0);
    i += sep;
  }
  if (groups.size() > 1) {
    if (groups[0] > 3) return false;
    for (size_t g = 1; g < groups.size(); ++g) {
      if (groups[g] != 3) return false;
    }
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsAsciiDigit(s[i])) frac_digits.push_back(s[i++]);
  }
  if (i != s.size() || (int_digits.empty() && frac_digits.empty())) return false;
  const size_t nz = int_digits.find_first_not_of('0');
  int_digits = nz == kNpos ? "0" : int_digits.substr(nz);
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.pop_back();
  const bool zero = int_digits == "0" && frac_digits.empty();
  *normalized = (negative && !zero ? "-" : "") + int_digits +
                (frac_digits.empty() ? "" : "." + frac_digits);
  return true;
}

// Why a value is not a bare number, for the reason.
std::string_view NotBareWhy(std::string_view v) {
  if (v.find('$') != kNpos || v.find("\u20AC") != kNpos || v.find("\u00A3") != kNpos ||
      v.find("\u00A5") != kNpos) {
    return "a currency sign where a bare number was asked";
  }
  if (!v.empty() && v.find_first_not_of("0123456789,.+-") == kNpos) {
    return "not a well-formed number (thousands go in groups of three)";
  }
  if (!v.empty() && (IsAsciiDigit(v[0]) || ((v[0] == '-' || v[0] == '+') && v.size() > 1 &&
                                       IsAsciiDigit(v[1])))) {
    return "more than a bare number (units or words)";
  }
  return "not a number";
}

// ---------------------------------------------------------------------------------
// Answer statements

struct Occurrence {
  size_t at = 0;   // where the phrase starts
  size_t end = 0;  // just past it (past the whole run of '#' for the hash phrases)
};

// Every occurrence of the phrase, case-insensitively (`lower` is the response with
// ASCII lower-cased), left to right, not overlapping. The hash phrases match a run of
// at least that many '#': "#### 18" answers "### N" as a markdown reader sees it.
std::vector<Occurrence> FindOccurrences(std::string_view lower, const AnswerPhrase& p) {
  const std::string needle = AsciiLower(p.text);
  std::vector<Occurrence> out;
  size_t from = 0;
  while (from < lower.size() && !needle.empty()) {
    // glibc's memmem (two-way, skipping on rare bytes) is several times faster here than
    // string_view::find, which tries every place the needle's first letter occurs
    const void* hit = memmem(lower.data() + from, lower.size() - from, needle.data(),
                             needle.size());
    if (hit == nullptr) break;
    const size_t at = static_cast<size_t>(static_cast<const char*>(hit) - lower.data());
    size_t end = at + needle.size();
    // The search starts past the previous run, so `at` starts a run of '#'.
    if (IsHashPhrase(p)) {
      while (end < lower.size() && lower[end] == '#') ++end;
    }
    out.push_back({at, end});
    from = end;
  }
  return out;
}

// Does a number follow, as the first word after `pos` on its line (LaTeX command
// names such as \boxed skipped)? Looks at most kAnswerScanBytes ahead.
bool NumberFollows(std::string_view t, size_t pos) {
  const size_t limit = LineEndWithin(t, pos, kAnswerScanBytes);
  const std::string_view window = t.substr(pos, limit - pos);
  bool number = false;
  ForEachWord(window, [&](std::string_view w) {
    const size_t off = static_cast<size_t>(w.data() - window.data());
    if (off > 0 && window[off - 1] == '\\') return true;  // a LaTeX command
    number = IsAsciiDigit(w[0]);
    return false;
  });
  return number;
}

bool IsQuoteAt(std::string_view t, size_t i) {
  if (i >= t.size()) return false;
  const char c = t[i];
  if (c == '"' || c == '\'' || c == '`') return true;
  const std::string_view rest = t.substr(i);
  return rest.starts_with("\u201D") || rest.starts_with("\u2019") ||
         rest.starts_with("\u201C");
}

// Is this occurrence (not the final one) an answer, to be counted against the one
// final answer? The boxed, dollar and tag forms always carry one. A phrase ending in
// ':' does when anything but a closing quote follows on its line (`the phrase
// "Result:"` mentions it). The hash phrases and "The final answer is" do when a number
// follows and the rest of the line is short (kMaxAnswerWords): "#### 70", not a
// header "### 1. Calculate the total" or an empty "####" separator.
bool IsAnswerStatement(std::string_view t, const AnswerPhrase& p, const Occurrence& o) {
  if (p.kind != AnswerKind::kText) return true;
  if (p.text.ends_with(':')) {
    size_t i = o.end;
    while (i < t.size() && IsHSpace(t[i])) ++i;
    return i < t.size() && t[i] != '\n' && !IsQuoteAt(t, i);
  }
  if (!NumberFollows(t, o.end)) return false;
  const size_t limit = LineEndWithin(t, o.end, kAnswerScanBytes);
  return CountWords(t.substr(o.end, limit - o.end), kMaxAnswerWords + 1) <= kMaxAnswerWords;
}

// The final answer statement: the last occurrence of the phrase, read to its end.
struct Statement {
  bool found = false;      // the phrase occurs
  Occurrence occ;
  std::string problem;     // set when the form is not closed ('\boxed{' without '}')
  std::string_view value;  // the answer as written, cleaned (text forms)
  size_t end = 0;          // just past the statement: its closer, or its value's line
  std::string_view trailing;  // closed forms: the rest of the line after the closer
};

// A text-form value: surrounding whitespace, markdown emphasis, one sentence-ending
// period and a colon after a phrase without one ("The final answer is: 18") dropped.
std::string_view CleanTextValue(std::string_view v) {
  for (int k = 0; k < 4; ++k) {
    const std::string_view before = v;
    v = Strip(v);
    if (v.ends_with('.') && !(v.size() >= 2 && v[v.size() - 2] == '.')) v.remove_suffix(1);
    if (v.starts_with(':')) v.remove_prefix(1);
    while (!v.empty() && (v.front() == '*' || v.front() == '_')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '*' || v.back() == '_')) v.remove_suffix(1);
    v = Strip(v);
    if (v == before) break;
  }
  return v;
}

Statement ReadStatement(std::string_view t, std::string_view lower, const AnswerPhrase& p,
                        const Occurrence& o) {
  Statement s;
  s.found = true;
  s.occ = o;
  const size_t eol = LineEnd(t, o.end);
  switch (p.kind) {
    case AnswerKind::kText: {
      std::string_view v = CleanTextValue(t.substr(o.end, eol - o.end));
      s.end = eol;
      // "####" alone on its line and the number on the next: one statement.
      if (v.empty() && eol < t.size()) {
        const size_t next_end = LineEnd(t, eol + 1);
        v = CleanTextValue(t.substr(eol + 1, next_end - eol - 1));
        s.end = next_end;
      }
      s.value = v;
      return s;
    }
    case AnswerKind::kBoxed: {
      int depth = 1;
      size_t i = o.end;
      for (; i < t.size(); ++i) {
        if (t[i] == '{') ++depth;
        if (t[i] == '}' && --depth == 0) break;
      }
      if (i >= t.size()) {
        s.problem = fmt::format("{} is not closed by '}}'", Quote(p.text));
        return s;
      }
      s.value = Strip(t.substr(o.end, i - o.end));
      s.end = i + 1;
      break;
    }
    case AnswerKind::kDollar: {
      const bool display = o.end < eol && t[o.end] == '$';
      const size_t from = display ? o.end + 1 : o.end;
      const std::string_view closer = display ? "$$" : "$";
      const size_t close = t.substr(0, eol).find(closer, from);
      if (close == kNpos) {
        s.problem = fmt::format("'Result: $' is not closed by '{}' on its line", closer);
        return s;
      }
      s.value = Strip(t.substr(from, close - from));
      s.end = close + closer.size();
      break;
    }
    case AnswerKind::kTagged: {
      const size_t close = lower.substr(0, eol).find("</result>", o.end);
      if (close == kNpos) {
        s.problem = "'<result>' is not closed by '</result>' on its line";
        return s;
      }
      s.value = Strip(t.substr(o.end, close - o.end));
      s.end = close + 9;
      break;
    }
  }
  s.trailing = Strip(t.substr(s.end, LineEnd(t, s.end) - s.end));
  return s;
}

// ---------------------------------------------------------------------------------
// Steps (math_hard)

struct StepSpan {
  int64_t number = 0;
  size_t begin = 0;  // its text: after the marker
  size_t end = 0;    // up to the next step or the answer
};

// Digits at t[*i] (ASCII), at most 9; their value.
bool ReadNumber(std::string_view t, size_t* i, int64_t* value) {
  size_t k = *i;
  int64_t v = 0;
  while (k < t.size() && IsAsciiDigit(t[k]) && k - *i < 9) v = v * 10 + (t[k++] - '0');
  if (k == *i || (k < t.size() && IsAsciiDigit(t[k]))) return false;
  *i = k;
  *value = v;
  return true;
}

// Does the line at [ls, le) start a step in the style (up to three spaces of
// indentation, as markdown allows)? Sets the number and where the step's text begins.
// A '### N' header, 'N.' followed by a space or the end of the line, or a bold
// '**Step N**' (also '**Step N:**' / '**Step N.**', the colon inside the bold).
bool StepMarker(std::string_view t, size_t ls, size_t le, StepStyle style, int64_t* number,
                size_t* text_begin) {
  size_t i = ls;
  while (i < le && i - ls < 3 && t[i] == ' ') ++i;
  const std::string_view line = t.substr(i, le - i);
  size_t k = 0;
  switch (style) {
    case StepStyle::kHashHeaders:
      if (!line.starts_with("### ")) return false;
      k = 4;
      while (k < line.size() && IsHSpace(line[k])) ++k;
      if (!ReadNumber(line, &k, number)) return false;
      break;
    case StepStyle::kNumberedLines:
      if (!ReadNumber(line, &k, number) || k >= line.size() || line[k] != '.') return false;
      ++k;
      if (k < line.size() && !IsHSpace(line[k])) return false;
      break;
    case StepStyle::kBoldSteps:
      if (!line.starts_with("**Step ")) return false;
      k = 7;
      if (!ReadNumber(line, &k, number)) return false;
      if (k < line.size() && (line[k] == ':' || line[k] == '.')) ++k;
      if (line.substr(k, 2) != "**") return false;
      k += 2;
      break;
    default:
      return false;
  }
  *text_begin = i + k;
  return true;
}

struct Steps {
  std::string problem;  // step-format / step-sequence failure, with its rule name
  std::vector<std::string> json_texts;       // styles D, E
  std::vector<std::string_view> texts;       // every step's text
};

// Styles A-C: a line that starts like a step starts the next one (steps need not be
// separated by blank lines: markdown shows them the same); it must carry the next
// number. Text before the first step is a preamble. `region` ends where the final
// answer starts (the whole response when there is none).
Steps ScanMarkedSteps(std::string_view region, StepStyle style) {
  Steps s;
  std::vector<StepSpan> spans;
  for (size_t ls = 0; ls <= region.size();) {
    const size_t le = LineEnd(region, ls);
    int64_t number;
    size_t text_begin;
    if (StepMarker(region, ls, le, style, &number, &text_begin)) {
      const int64_t expected = static_cast<int64_t>(spans.size()) + 1;
      if (number != expected) {
        s.problem = fmt::format("step-sequence: step {} is numbered {}: {}", expected, number,
                                Quote(Strip(region.substr(ls, le - ls))));
        return s;
      }
      if (!spans.empty()) spans.back().end = ls;
      spans.push_back({number, text_begin, region.size()});
    }
    if (le >= region.size()) break;
    ls = le + 1;
  }
  if (spans.empty()) {
    s.problem = fmt::format("step-format: no {} steps found", kStyleNames[static_cast<int>(style)]);
    return s;
  }
  for (const StepSpan& sp : spans) s.texts.push_back(region.substr(sp.begin, sp.end - sp.begin));
  return s;
}

// Styles D, E: the first ```json block before the answer, as Python's json.loads reads
// it (strict: the prompt asks for JSON, so JSON that Python rejects is not JSON).
// `whole`: the response, of which `region` is the start.
Steps ScanJsonSteps(std::string_view whole, std::string_view region,
                    std::string_view lower_region, StepStyle style) {
  Steps s;
  const size_t open = lower_region.find("```json");
  if (open == kNpos) {
    s.problem = "step-format: no ```json block before the answer";
    return s;
  }
  const size_t body = open + 7;
  const size_t close = region.find("```", body);
  if (close == kNpos) {
    // The answer phrase inside the steps, and no answer after them.
    s.problem = region.size() < whole.size() && whole.find("```", body) != kNpos
                    ? "answer-line: the final answer is inside the ```json block, not on its "
                      "own line after it"
                    : "step-format: the ```json block is not closed";
    return s;
  }
  const std::string_view json = region.substr(body, close - body);
  const JsonSteps js = style == StepStyle::kJsonList ? ParseJsonStepList(json, &s.json_texts)
                                                     : ParseJsonStepObject(json, &s.json_texts);
  if (!js.ok) {
    s.problem = fmt::format("step-format: {} expected; {}", kStyleNames[static_cast<int>(style)],
                            js.problem);
    return s;
  }
  for (const std::string& text : s.json_texts) s.texts.push_back(text);
  return s;
}

// A computation stated as an equation ("3y = 18", "P = 70."): content, however few
// its words.
bool IsEquation(std::string_view text) {
  const size_t eq = text.find('=');
  return eq != kNpos && std::any_of(text.begin() + static_cast<std::ptrdiff_t>(eq), text.end(),
                                    [](char c) { return IsAsciiDigit(c); });
}

// A step that only stands in for one: an empty template or a filler word.
bool IsPlaceholder(std::string_view normalized) {
  static constexpr std::string_view kPlaceholders[] = {
      "todo",          "tbd",         "tba",          "n a",           "none",
      "null",          "placeholder", "filler",       "step",          "text",
      "content",       "details",     "explanation",  "step text",     "step content",
      "your step here", "step here",  "step goes here", "insert step here", "text here",
      "xxx",           "etc",         "blank",        "empty",         "nothing",
      "same as above", "see above",   "see below",    "to be filled",  "to be determined",
      "lorem ipsum"};
  for (std::string_view p : kPlaceholders) {
    if (normalized == p) return true;
  }
  if (normalized.starts_with("lorem ipsum")) return true;
  // "step 3", "step 3 here"
  if (normalized.starts_with("step ")) {
    size_t i = 5;
    while (i < normalized.size() && IsAsciiDigit(normalized[i])) ++i;
    if (i > 5 && (i == normalized.size() || normalized.substr(i) == " here")) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------
// Numbers and computations

bool HasDigit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return IsAsciiDigit(c); });
}

// Numbers as written: ASCII digits, thousands separators (',' before a group of three)
// and a decimal part. Calls f(normalized, begin, end) for each, left to right; the
// normalized form has no separators, leading zeros or trailing decimal zeros, so
// "1,290", "1290" and "1290.00" are one number.
template <typename F>
void ForEachNumber(std::string_view s, F&& f) {
  size_t i = 0;
  while (i < s.size()) {
    if (!IsAsciiDigit(s[i])) {
      ++i;
      continue;
    }
    const size_t begin = i;
    std::string digits, frac;
    while (i < s.size() && IsAsciiDigit(s[i])) digits.push_back(s[i++]);
    while (i + 4 <= s.size() && s[i] == ',' && IsAsciiDigit(s[i + 1]) && IsAsciiDigit(s[i + 2]) &&
           IsAsciiDigit(s[i + 3]) && (i + 4 == s.size() || !IsAsciiDigit(s[i + 4]))) {
      digits.append(s.substr(i + 1, 3));
      i += 4;
    }
    if (i + 1 < s.size() && s[i] == '.' && IsAsciiDigit(s[i + 1])) {
      ++i;
      while (i < s.size() && IsAsciiDigit(s[i])) frac.push_back(s[i++]);
    }
    const size_t nz = digits.find_first_not_of('0');
    digits = nz == kNpos ? "0" : digits.substr(nz);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    f(frac.empty() ? digits : digits + "." + frac, begin, i);
  }
}

// A number that counts steps or list items, not a quantity: "Step 2", or the "1." /
// "2)" / "3:" that opens a line, or the number of a "### 3" header line.
bool IsEnumeration(std::string_view s, size_t begin, size_t end) {
  size_t k = begin;
  while (k > 0 && IsHSpace(s[k - 1])) --k;
  if (k < begin && k >= 4 && AsciiLower(s.substr(k - 4, 4)) == "step" &&
      (k == 4 || !IsAsciiAlnum(static_cast<unsigned char>(s[k - 5])))) {
    return true;
  }
  bool header = false;
  for (size_t j = LineStart(s, begin); j < begin; ++j) {
    if (s[j] == '#' || s[j] == '*') {
      header = true;
    } else if (!IsHSpace(s[j])) {
      return false;
    }
  }
  if (end == s.size() || s[end] == '\n') return header;
  return (s[end] == '.' || s[end] == ')' || s[end] == ':') &&
         (end + 1 == s.size() || IsHSpace(s[end + 1]) || s[end + 1] == '\n' ||
          s[end + 1] == '*');
}

// The length of the arithmetic operator at s[i] ('=', '+', '-', '*', '/', '^', '×',
// '÷', '−', LaTeX \times, \cdot, \div), 0 if there is none.
size_t OperatorAt(std::string_view s, size_t i) {
  const char c = s[i];
  if (c == '=' || c == '+' || c == '-' || c == '*' || c == '/' || c == '^') return 1;
  // the others start with a byte past ASCII or a backslash
  if (static_cast<unsigned char>(c) < 0x80 && c != '\\') return 0;
  const std::string_view rest = s.substr(i);
  for (std::string_view op : {"\u00D7", "\u00F7", "\u2212", "\\times", "\\cdot", "\\div"}) {
    if (rest.starts_with(op)) return op.size();
  }
  return 0;
}

// Is there arithmetic with a number: an operator between two numbers ("16 - 3",
// "9 \times 2"), or an equals sign next to a number ("= 18", "x = 9")? Spaces,
// parentheses and currency signs may stand between.
bool HasArithmetic(std::string_view s) {
  auto skip_back = [&](size_t k) {  // the character before s[k], past fillers
    while (k > 0 && (IsHSpace(s[k - 1]) || s[k - 1] == ')' || s[k - 1] == '$')) --k;
    return k;
  };
  auto skip_forward = [&](size_t k) {
    while (k < s.size() && (IsHSpace(s[k]) || s[k] == '(' || s[k] == '$')) ++k;
    return k;
  };
  // the bytes that can start an operator (OperatorAt): most bytes start none
  static constexpr std::array<bool, 256> kMayStart = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : std::string_view("=+-*/^\\")) t[c] = true;
    for (int c = 0x80; c < 256; ++c) t[c] = true;
    return t;
  }();
  for (size_t i = 0; i < s.size(); ++i) {
    if (!kMayStart[static_cast<unsigned char>(s[i])]) continue;
    const size_t len = OperatorAt(s, i);
    if (len == 0) continue;
    const size_t before = skip_back(i);
    const size_t after = skip_forward(i + len);
    const bool left = before > 0 && IsAsciiDigit(s[before - 1]);
    const bool right = after < s.size() && IsAsciiDigit(s[after]);
    if ((left && right) || (s[i] == '=' && (left || right))) return true;
    i += len - 1;
  }
  return false;
}

// The value of a number word ("seven" 7, "twenty" 20, "hundred" a multiplier of 100),
// -1 if it is none. "one" is left out, as it is as often a pronoun ("one of them"), and
// so is "zero" (as strict-2 did).
int64_t CountingWordValue(std::string_view w) {
  if (w == "one" || w == "zero") return -1;
  return NumberWordValue(w);
}

// Numbers written in words, as decimal strings: "twenty-five" 25, "three hundred" 300,
// "half" 0.5. Calls f(value) for each run of number words (joined by spaces or hyphens).
template <typename F>
void ForEachNumberInWords(std::string_view s, F&& f) {
  int64_t total = 0, current = 0;
  bool in_run = false;
  size_t last_end = 0;
  auto flush = [&]() {
    if (in_run) f(std::to_string(total + current));
    total = current = 0;
    in_run = false;
  };
  ForEachWord(s, [&](std::string_view raw) {
    const size_t at = static_cast<size_t>(raw.data() - s.data());
    const std::string w = AsciiLower(raw);
    const int64_t v = CountingWordValue(w);
    const bool joined = in_run && s.substr(last_end, at - last_end).find_first_not_of(" -") ==
                                      std::string_view::npos;
    if (v < 0 || !joined) flush();
    if (v < 0) {
      if (w == "half") f("0.5");
    } else if (v == 100) {
      current = std::max<int64_t>(current, 1) * 100;
    } else if (v >= 1000) {
      total += std::max<int64_t>(current, 1) * v;
      current = 0;
    } else {
      current += v;
    }
    in_run = v >= 0;
    last_end = at + raw.size();
    return true;
  });
  flush();
}

// Does the text name an arithmetic operation ("multiplied", "minus", "increases by")
// that the question does not? `question_lower` is the question, lower-cased (ASCII).
bool NamesOperation(std::string_view text, std::string_view question_lower) {
  static constexpr std::string_view kOperations[] = {
      "plus",     "minus",     "times",       "multiply",   "multiplied", "multiplying",
      "divide",   "divided",   "dividing",    "equals",     "equal",      "add",
      "adds",     "added",     "adding",      "subtract",   "subtracts",  "subtracted",
      "subtracting", "increase", "increases", "increased",  "decrease",   "decreases",
      "decreased", "sum",      "product",     "difference"};
  bool named = false;
  ForEachWord(text, [&](std::string_view raw) {
    const std::string w = AsciiLower(raw);
    for (std::string_view op : kOperations) {
      if (w != op) continue;
      // As a whole word of the question: a restated question names it already.
      bool in_question = false;
      ForEachWord(question_lower, [&](std::string_view q) {
        in_question = q == op;
        return !in_question;
      });
      named = !in_question;
    }
    return !named;
  });
  return named;
}

// `computation`: the reasoning (math_easy) or the steps (math_hard) must compute
// something. They fail when they hold no number at all (digits or words; step and
// list numbers do not count), and when they restate the question: at least
// kRestatedShare of their words are the question's, with no arithmetic, no number
// the question does not have and no operation it does not name ("increases by 6").
// "" or the failure's reason.
std::string ComputationProblem(std::string_view text, std::string_view question,
                               bool steps) {
  const std::string_view what = steps ? "steps" : "reasoning";
  if (HasArithmetic(text)) return "";
  std::vector<std::string> asked;
  auto note = [&](const std::string& n) {
    if (std::find(asked.begin(), asked.end(), n) == asked.end()) asked.push_back(n);
  };
  ForEachNumber(question, [&](const std::string& n, size_t, size_t) { note(n); });
  ForEachNumberInWords(question, note);
  bool any = false, computed = false;
  auto seen = [&](const std::string& n) {
    any = true;
    computed = computed || std::find(asked.begin(), asked.end(), n) == asked.end();
  };
  ForEachNumber(text, [&](const std::string& n, size_t b, size_t e) {
    if (!IsEnumeration(text, b, e)) seen(n);
  });
  ForEachNumberInWords(text, seen);
  if (!any) return fmt::format("computation: no number in the {}: nothing is computed", what);
  const std::string question_lower = AsciiLower(question);
  if (computed || NamesOperation(text, question_lower)) return "";
  std::vector<std::string> question_words;
  ForEachWord(question_lower, [&](std::string_view w) {
    question_words.emplace_back(w);
    return true;
  });
  std::sort(question_words.begin(), question_words.end());
  size_t words = 0, restated = 0;
  ForEachWord(text, [&](std::string_view w) {
    ++words;
    restated += std::binary_search(question_words.begin(), question_words.end(),
                                   AsciiLower(w));
    return true;
  });
  if (static_cast<double>(restated) < kRestatedShare * static_cast<double>(words)) return "";
  return fmt::format("computation: the {} {} the question ({} of {} words are its words) "
                     "and {} nothing",
                     what, steps ? "restate" : "restates", restated, words,
                     steps ? "compute" : "computes");
}

// Words of a step that are not the names of a formula. A word next to an arithmetic
// operator (spaces and parentheses between) is an operand, added to *operands; a '-'
// is an operator only with a space beside it ("a - b", not "well-known").
size_t ProseWords(std::string_view text, std::vector<std::string_view>* operands) {
  auto is_operator = [&](size_t k) {
    if (OperatorAt(text, k) == 0) return false;
    if (text[k] != '-') return true;
    return (k > 0 && IsHSpace(text[k - 1])) || (k + 1 < text.size() && IsHSpace(text[k + 1]));
  };
  size_t prose = 0;
  ForEachWord(text, [&](std::string_view w) {
    size_t b = static_cast<size_t>(w.data() - text.data());
    size_t e = b + w.size();
    while (b > 0 && (IsHSpace(text[b - 1]) || text[b - 1] == '(' || text[b - 1] == ')')) --b;
    while (e < text.size() && (IsHSpace(text[e]) || text[e] == '(' || text[e] == ')')) ++e;
    bool operand = e < text.size() && is_operator(e);
    // The operator before the word: its last byte is at b - 1 (a multi-byte one ends there).
    for (size_t len = 1; !operand && len <= 6 && len <= b; ++len) {
      operand = OperatorAt(text, b - len) == len && is_operator(b - len);
    }
    prose += !operand;
    if (operand) operands->push_back(w);
    return true;
  });
  return prose;
}

// `step-content` for a step without a number: it needs kMinStepWords words besides the
// names of a formula, or a formula that names a quantity of the question ("money =
// eggs sold * price"). "a + b = c" and "total = cost + tax" do neither: placeholder
// formulas, filler around an answer. `question_words`: sorted, lower-cased.
bool IsPlaceholderFormula(std::string_view text, const std::vector<std::string>& question_words) {
  if (HasDigit(text)) return false;
  std::vector<std::string_view> operands;
  if (ProseWords(text, &operands) >= kMinStepWords) return false;
  return std::none_of(operands.begin(), operands.end(), [&](std::string_view w) {
    return w.size() > 1 && std::binary_search(question_words.begin(), question_words.end(),
                                              AsciiLower(w));
  });
}

// ---------------------------------------------------------------------------------
// The checker

Verdict Fail(std::string reason, bool format, bool accuracy) {
  Verdict v;
  v.pass = false;
  v.format = format;
  v.accuracy = accuracy;
  v.reason = std::move(reason);
  return v;
}

struct Parsed {
  const MathFormat* format = nullptr;
  const std::string* gold = nullptr;
  std::string_view question;  // context.question, when the sample has it
};

StatusOr<Parsed> ParseSample(const Sample& sample, const MathParams& params) {
  Parsed p;
  ASSIGN_OR_RETURN(const std::string_view name, params.format_name.get());
  p.format = params.format;
  if (p.format == nullptr) {
    return Status::InvalidArgument(
        fmt::format("params.math_format_name: unknown format {} (expected "
                    "Suffix1..7PhrasesMathFormat or BulletPoints1..20MathFormat)",
                    Quote(name, 60)));
  }
  ASSIGN_OR_RETURN(p.gold, GetString(sample.context, "context", "gold_answer"));
  if (sample.context.is_object()) {
    const auto it = sample.context.find("question");
    if (it != sample.context.end() && it->is_string()) {
      p.question = it->get_ref<const std::string&>();
    }
  }
  return p;
}

// The cheaters parse the params themselves: they run on samples, not through a check.
StatusOr<Parsed> ParseSample(const Sample& sample) {
  SampleParams params;
  ParseMathParams(sample.params, RuleSet::kStrict, &params);
  return ParseSample(sample, params.math);
}

// Text after a closed answer form is prose outside the answer ("\boxed{50} miles in
// 7 hours"), unless it offers another answer: "or" followed by a number ("\boxed{18}
// (or 20)").
bool IsHedge(std::string_view trailing) {
  bool after_or = false, hedge = false;
  ForEachWord(trailing, [&](std::string_view w) {
    if (after_or && IsAsciiDigit(w[0])) {
      hedge = true;
      return false;
    }
    if (w.size() == 2 && AsciiLower(w[0]) == 'o' && AsciiLower(w[1]) == 'r') after_or = true;
    return true;
  });
  return hedge;
}

// The text before the final answer on its line is a lead-in ("Therefore, the answer
// is: 18"), unless it gives another answer: a number other than the final one right
// before an "or" ("The total is 19 or the answer is: 18"), or after the word "answer"
// or "result" ("the answer is 19. The answer is: 18"). `final` is the final answer,
// normalized ("" when it is not a bare number). Returns the other answer, quoted, or "".
std::string LeadInAnswer(std::string_view lead_in, std::string_view final) {
  struct Num {
    std::string value;
    size_t begin, end;
  };
  std::vector<Num> numbers;
  ForEachNumber(lead_in, [&](const std::string& n, size_t b, size_t e) {
    numbers.push_back({n, b, e});
  });
  if (numbers.empty()) return "";
  std::string found;
  ForEachWord(lead_in, [&](std::string_view w) {
    const size_t at = static_cast<size_t>(w.data() - lead_in.data());
    const std::string word = AsciiLower(w);
    if (word == "or") {
      const Num* last = nullptr;
      for (const Num& n : numbers) {
        if (n.end <= at) last = &n;
      }
      if (last != nullptr && last->value != final) {
        found = Quote(lead_in.substr(last->begin, at + 2 - last->begin));
      }
    } else if (word == "answer" || word == "result") {
      // "answer is 19", "answer: 19", "result would be 19"
      size_t k = at + w.size();
      for (bool more = true; more;) {
        more = false;
        while (k < lead_in.size() && (IsHSpace(lead_in[k]) || lead_in[k] == ':' ||
                                      lead_in[k] == '=')) {
          ++k;
        }
        for (std::string_view link : {"is", "was", "would", "will", "should", "be", "equals"}) {
          const std::string_view rest = lead_in.substr(k);
          if (rest.size() > link.size() && AsciiLower(rest.substr(0, link.size())) == link &&
              !IsAsciiAlnum(static_cast<unsigned char>(rest[link.size()]))) {
            k += link.size();
            more = true;
          }
        }
      }
      for (const Num& n : numbers) {
        if (n.begin == k && n.value != final) {
          found = Quote(lead_in.substr(at, n.end - at));
        }
      }
    }
    return found.empty();
  });
  return found;
}

// Rules on the final answer shared by both subtasks, in order: answer-line,
// one-final-answer, then (after the caller's own rules) answer-value.
struct AnswerCheck {
  std::string failure;  // the first failing answer-line / one-final-answer rule
  bool accurate = false;
  bool bare = false;
  std::string value_failure;  // answer-value
  std::string shown;          // the number as written, when bare
  std::string normalized;     // the number as a canonical decimal, when bare
};

AnswerCheck CheckAnswer(std::string_view t, const std::vector<Occurrence>& occs,
                        const Statement& st, const AnswerPhrase& p, std::string_view gold) {
  AnswerCheck a;
  const std::string form = AnswerForm(p);
  const size_t last_line = LineStart(t, t.size());
  if (!st.found) {
    a.failure = fmt::format("answer-line: no {} line; the last line is {}", Quote(form),
                            Quote(Strip(t.substr(last_line))));
    return a;
  }
  if (!st.problem.empty()) {
    a.failure = "answer-line: " + st.problem;
    return a;
  }
  // answer-value first, for the accuracy field, whether or not the form holds.
  std::string normalized, gold_normalized;
  std::string_view shown, gold_shown;
  a.bare = ParseBareNumber(st.value, &normalized, &shown);
  if (st.value.empty()) {
    a.value_failure = fmt::format("answer-value: no number in {}", Quote(form));
  } else if (!a.bare) {
    a.value_failure = fmt::format("answer-value: found {}, {}", Quote(st.value),
                                  NotBareWhy(st.value));
  } else {
    a.shown = std::string(shown);
    a.normalized = normalized;
    a.accurate = ParseBareNumber(gold, &gold_normalized, &gold_shown)
                     ? normalized == gold_normalized
                     : Strip(st.value) == Strip(gold);
    if (!a.accurate) {
      a.value_failure = fmt::format("answer-value: found {}, expected {}", Quote(shown),
                                    Quote(gold));
    }
  }
  if (st.end < t.size() && LineEnd(t, st.end) < t.size()) {
    const size_t next = LineEnd(t, st.end) + 1;
    a.failure = fmt::format("answer-line: the final {} is followed by {}",
                            Quote(form), Quote(Strip(t.substr(next))));
    return a;
  }
  size_t others = 0;
  const Occurrence* first = nullptr;
  for (size_t k = 0; k + 1 < occs.size(); ++k) {
    if (IsAnswerStatement(t, p, occs[k])) {
      if (first == nullptr) first = &occs[k];
      ++others;
    }
  }
  if (others > 0) {
    const size_t le = LineEnd(t, first->end);
    a.failure = fmt::format("one-final-answer: the answer phrase occurs {} times, first as {}",
                            others + 1, Quote(Strip(t.substr(first->at, le - first->at))));
    return a;
  }
  if (IsHedge(st.trailing)) {
    a.failure = fmt::format("one-final-answer: a second answer follows the final one: {}",
                            Quote(st.trailing));
    return a;
  }
  const std::string other =
      LeadInAnswer(t.substr(LineStart(t, st.occ.at), st.occ.at - LineStart(t, st.occ.at)),
                   a.bare && normalized.starts_with('-') ? normalized.substr(1)
                   : a.bare                              ? normalized
                                                         : std::string());
  if (!other.empty()) {
    a.failure = fmt::format("one-final-answer: another answer comes before the final one on "
                            "its line: {}",
                            other);
    return a;
  }
  return a;
}

// `arithmetic` and `grounded` (strict-3): the work the reasoning shows (tasks/math/
// arithmetic.h). "" or the failure's reason.
// A wrong final answer is named as such (answer-value) rather than as work that does
// not lead to it: the work is read only under a right one.
std::string WorkFailure(std::string_view reasoning, std::string_view question,
                        const AnswerCheck& a) {
  if (!a.value_failure.empty()) return "";
  const WorkProblem w = CheckWork(reasoning, question, a.bare ? a.normalized : "");
  switch (w.rule) {
    case WorkProblem::Rule::kNone:
      return "";
    case WorkProblem::Rule::kArithmetic:
      return fmt::format("arithmetic: {} does not hold: {}", Quote(w.statement), w.detail);
    case WorkProblem::Rule::kGrounded:
      if (w.statement.empty()) return "grounded: " + w.detail;
      return fmt::format("grounded: {}: {}", Quote(w.statement), w.detail);
  }
  return "";
}

Verdict Finish(const AnswerCheck& a, std::string_view form, std::string prefix) {
  if (!a.value_failure.empty()) return Fail(a.value_failure, a.bare, a.accurate);
  Verdict v;
  v.pass = true;
  v.format = true;
  v.accuracy = true;
  v.reason = fmt::format("{}one final answer {} in {}", prefix, a.shown, Quote(form));
  return v;
}

Verdict ScoreEasyStrict(const MathFormat& f, std::string_view gold, std::string_view question,
                        std::string_view t, std::string_view lower) {
  const std::vector<Occurrence> occs = FindOccurrences(lower, f.phrase);
  Statement st;
  if (!occs.empty()) st = ReadStatement(t, lower, f.phrase, occs.back());
  const AnswerCheck a = CheckAnswer(t, occs, st, f.phrase, gold);
  if (!a.failure.empty()) return Fail(a.failure, false, a.accurate);
  const size_t words = CountWords(t.substr(0, st.occ.at));
  if (words < kMinReasoningWords) {
    return Fail(fmt::format("reasoning: {} word{} before the answer (at least {} asked: the "
                            "prompt asks to show the reasoning)",
                            words, words == 1 ? "" : "s", kMinReasoningWords),
                false, a.accurate);
  }
  const std::string computation =
      ComputationProblem(t.substr(0, st.occ.at), question, /*steps=*/false);
  if (!computation.empty()) return Fail(computation, false, a.accurate);
  const std::string work = WorkFailure(t.substr(0, st.occ.at), question, a);
  if (!work.empty()) return Fail(work, false, a.accurate);
  return Finish(a, AnswerForm(f.phrase), fmt::format("{} words of reasoning, ", words));
}

Verdict ScoreHardStrict(const MathFormat& f, std::string_view gold, std::string_view question,
                        std::string_view t, std::string_view lower) {
  const std::vector<Occurrence> occs = FindOccurrences(lower, f.phrase);
  Statement st;
  if (!occs.empty()) st = ReadStatement(t, lower, f.phrase, occs.back());
  const AnswerCheck a = CheckAnswer(t, occs, st, f.phrase, gold);
  // The steps come before the final answer; a lead-in on its line ("**Step 4** So
  // the total is \boxed{84}") belongs to the last step.
  const size_t region_end = st.found ? st.occ.at : t.size();
  const std::string_view region = t.substr(0, region_end);
  const bool json = f.style == StepStyle::kJsonList || f.style == StepStyle::kJsonObject;
  Steps steps = json ? ScanJsonSteps(t, region, lower.substr(0, region_end), f.style)
                     : ScanMarkedSteps(region, f.style);
  if (!steps.problem.empty()) return Fail(steps.problem, false, a.accurate);
  // The final answer written as a last step of its own ("### 4\nThe answer is: 18",
  // "### 4. Final result\n\boxed{8}", "**Step 3** \boxed{6}") is the answer, not a
  // step: dropped when at most a short label (fewer than kMinStepWords words, not an
  // equation) stands between the step's marker and the answer. Steps that say
  // nothing before it still fail: they are counted and checked on their own.
  if (!json && st.found && steps.texts.size() > 1) {
    const std::string_view last = steps.texts.back();
    if (CountWords(last, kMinStepWords) < kMinStepWords && !IsEquation(last)) {
      steps.texts.pop_back();
    }
  }
  const size_t n = steps.texts.size();
  const std::string_view style_name = kStyleNames[static_cast<int>(f.style)];
  // Content first (what an empty skeleton fails), over at most kMaxSteps steps so
  // that the pairwise comparison stays small; then the count.
  const size_t checked = std::min(n, static_cast<size_t>(kMaxSteps));
  std::vector<std::string> question_words;
  ForEachWord(question, [&](std::string_view w) {
    question_words.push_back(AsciiLower(w));
    return true;
  });
  std::sort(question_words.begin(), question_words.end());
  std::vector<std::string> normalized(checked);
  for (size_t i = 0; i < checked; ++i) {
    const std::string_view text = steps.texts[i];
    const size_t words = CountWords(text, kMinStepWords);
    if (words == 0) {
      return Fail(fmt::format("step-content: step {} is empty", i + 1), false, a.accurate);
    }
    normalized[i] = NormalizedWords(text);
    if (IsPlaceholder(normalized[i])) {
      return Fail(fmt::format("step-content: step {} is a placeholder ({})", i + 1,
                              Quote(Strip(text))),
                  false, a.accurate);
    }
    if (words < kMinStepWords && !IsEquation(text)) {
      return Fail(fmt::format("step-content: step {} has {} word{} (at least {} asked): {}",
                              i + 1, words, words == 1 ? "" : "s", kMinStepWords,
                              Quote(Strip(text))),
                  false, a.accurate);
    }
    if (IsPlaceholderFormula(text, question_words)) {
      return Fail(fmt::format("step-content: step {} is a formula of placeholder names, with no "
                              "number and no quantity of the question: {}",
                              i + 1, Quote(Strip(text))),
                  false, a.accurate);
    }
    for (size_t j = 0; j < i; ++j) {
      if (normalized[j] == normalized[i]) {
        return Fail(fmt::format("steps-distinct: step {} repeats step {}: {}", i + 1, j + 1,
                                Quote(Strip(text))),
                    false, a.accurate);
      }
    }
  }
  if (n < static_cast<size_t>(kMinSteps) || n > static_cast<size_t>(kMaxSteps)) {
    return Fail(fmt::format("step-count: {} {} step{} ({} to {} asked)", n, style_name,
                            n == 1 ? "" : "s", kMinSteps, kMaxSteps),
                false, a.accurate);
  }
  if (!a.failure.empty()) return Fail(a.failure, false, a.accurate);
  std::string all_steps;
  for (const std::string_view text : steps.texts) (all_steps += text) += '\n';
  const std::string computation = ComputationProblem(all_steps, question, /*steps=*/true);
  if (!computation.empty()) return Fail(computation, false, a.accurate);
  // The work: the steps, and a lead-in on the answer's line ("So 9 * 2 = 18. \boxed{18}").
  const size_t answer_line = LineStart(t, st.occ.at);
  all_steps += t.substr(answer_line, st.occ.at - answer_line);
  const std::string work = WorkFailure(all_steps, question, a);
  if (!work.empty()) return Fail(work, false, a.accurate);
  return Finish(a, AnswerForm(f.phrase), fmt::format("{} {} steps, ", n, style_name));
}

// ---------------------------------------------------------------------------------
// Cheaters

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

StatusOr<std::string> TargetAnswer(const Sample& sample, std::string_view who) {
  if (sample.target.is_object()) {
    const auto it = sample.target.find("answer");
    if (it != sample.target.end() && it->is_string()) return it->get<std::string>();
  }
  return Status::InvalidArgument(
      fmt::format("sample '{}': no target.answer for the {}", sample.id, who));
}

// The steps written in a style, then a blank line and the answer line.
std::string RenderHard(StepStyle style, const std::vector<std::string>& texts,
                       std::string_view answer_line) {
  std::string out;
  switch (style) {
    case StepStyle::kHashHeaders:
    case StepStyle::kNumberedLines:
    case StepStyle::kBoldSteps:
      for (size_t i = 0; i < texts.size(); ++i) {
        if (i > 0) out += "\n\n";
        if (style == StepStyle::kHashHeaders) {
          out += fmt::format("### {}", i + 1);
          if (!texts[i].empty()) out += "\n" + texts[i];
        } else if (style == StepStyle::kNumberedLines) {
          out += fmt::format("{}. {}", i + 1, texts[i]);
        } else {
          out += fmt::format("**Step {}** {}", i + 1, texts[i]);
        }
      }
      break;
    case StepStyle::kJsonList:
      out = "```json\n" + nlohmann::json(texts).dump(2) + "\n```";
      break;
    case StepStyle::kJsonObject: {
      nlohmann::ordered_json obj = nlohmann::ordered_json::object();
      for (size_t i = 0; i < texts.size(); ++i) obj[std::to_string(i + 1)] = texts[i];
      out = "```json\n" + obj.dump(2) + "\n```";
      break;
    }
  }
  return out + "\n\n" + std::string(answer_line);
}

// How many steps the target has, read the strict way.
size_t TargetSteps(const MathFormat& f, std::string_view answer) {
  const std::string lower = AsciiLower(answer);
  const std::vector<Occurrence> occs = FindOccurrences(lower, f.phrase);
  const size_t end = occs.empty() ? answer.size() : occs.back().at;
  const bool json = f.style == StepStyle::kJsonList || f.style == StepStyle::kJsonObject;
  const Steps s = json ? ScanJsonSteps(answer, answer.substr(0, end),
                                       std::string_view(lower).substr(0, end), f.style)
                       : ScanMarkedSteps(answer.substr(0, end), f.style);
  return std::max<size_t>(s.texts.size(), static_cast<size_t>(kMinSteps));
}

// What the skeleton writes for every reasoning line and step, and for the answer.
constexpr std::string_view kFiller = "Filler text stands in for this part of the solution.";
constexpr std::string_view kPlaceholderAnswer = "N";

// A wrong number near the gold one, for the hedged loophole.
std::string WrongGuess(std::string_view gold) {
  std::string normalized;
  std::string_view shown;
  if (ParseBareNumber(gold, &normalized, &shown) && normalized.find('.') == kNpos &&
      normalized.size() < 18) {
    return std::to_string(std::stoll(normalized) + 1);
  }
  return gold == "0" ? "1" : "0";
}

}  // namespace

StatusOr<Verdict> CheckMathStrict(const Sample& sample, const SampleParams& params,
                                  std::string_view response, const CheckEnv&) {
  ASSIGN_OR_RETURN(const Parsed p, ParseSample(sample, params.math));
  std::string storage;
  const std::string_view t = Strip(NormalizeNewlines(response, &storage));
  const std::string lower = AsciiLower(t);
  return p.format->hard ? ScoreHardStrict(*p.format, *p.gold, p.question, t, lower)
                        : ScoreEasyStrict(*p.format, *p.gold, p.question, t, lower);
}

StatusOr<std::string> MathSkeleton(const Sample& sample) {
  ASSIGN_OR_RETURN(const Parsed p, ParseSample(sample));
  ASSIGN_OR_RETURN(const std::string answer, TargetAnswer(sample, "skeleton"));
  const std::string answer_line = AnswerLine(p.format->phrase, kPlaceholderAnswer);
  if (p.format->hard) {
    const std::vector<std::string> steps(TargetSteps(*p.format, answer), std::string(kFiller));
    return RenderHard(p.format->style, steps, answer_line);
  }
  // math_easy: one filler line per reasoning line of the target.
  const std::string_view body = Strip(answer);
  const size_t lines = static_cast<size_t>(std::count(body.begin(), body.end(), '\n'));
  std::string out;
  for (size_t i = 0; i < std::max<size_t>(lines, 1); ++i) out += std::string(kFiller) + "\n";
  return out + answer_line;
}

StatusOr<std::string> MathLoophole(const Sample& sample) {
  ASSIGN_OR_RETURN(const Parsed p, ParseSample(sample));
  const std::string gold(Strip(*p.gold));
  const bool variant = Fnv1a(sample.id) % 2 == 1;
  const AnswerPhrase& phrase = p.format->phrase;
  if (!p.format->hard) {
    // The bare answer line; or a wrong guess first, the paper reading the last one.
    if (!variant) return AnswerLine(phrase, gold);
    return AnswerLine(phrase, WrongGuess(gold)) + "\n" + AnswerLine(phrase, gold);
  }
  // Three steps that say nothing: empty ('N. ' and '**Step N** ' need a character
  // after the space to start a step under the paper rules), or all the same.
  std::string text;
  if (variant) {
    text = "See the problem above.";
  } else if (p.format->style == StepStyle::kNumberedLines ||
             p.format->style == StepStyle::kBoldSteps) {
    text = ".";
  }
  const std::vector<std::string> steps(static_cast<size_t>(kMinSteps), text);
  return RenderHard(p.format->style, steps, AnswerLine(phrase, gold));
}

}  // namespace structtest::math_internal
