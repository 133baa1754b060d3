#include "tasks/math/family.h"

#include <fmt/format.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <utility>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "tasks/math/fast_scan.h"
#include "tasks/math/formats.h"
#include "tasks/math/generator.h"
#include "tasks/math/py_json.h"
#include "tasks/math/strict.h"
#include "tasks/params.h"

// Scoring runs at millions of samples per second, so the hot paths scan the
// response in place (mostly from the end) and never copy it.

namespace structtest {

namespace {

constexpr size_t kNpos = std::string_view::npos;

using math_internal::AnswerKind;
using math_internal::AnswerPhrase;
using math_internal::kMaxSteps;
using math_internal::kMinSteps;
using math_internal::kStepPrefixes;
using math_internal::kStyleNames;
using math_internal::MathFormat;
using math_internal::ParseFormatName;
using math_internal::StepStyle;

// Reasons are written into a fixed buffer and copied out once: one allocation per
// verdict. Big enough for any reason below (quotes are capped at 60 code points).
class ReasonBuffer {
 public:
  void append(std::string_view s) {
    const size_t k = std::min(s.size(), sizeof(buf_) - n_);
    std::memcpy(buf_ + n_, s.data(), k);
    n_ += k;
  }
  void append(const char* p, size_t len) { append(std::string_view(p, len)); }
  void push_back(char c) {
    if (n_ < sizeof(buf_)) buf_[n_++] = c;
  }
  std::string str() const { return std::string(buf_, n_); }

 private:
  char buf_[2048];
  size_t n_ = 0;
};

// Appends `s` quoted, at most `max` code points, always valid UTF-8, newlines shown
// as \n: model text goes into reasons and reasons go into JSON.
void AppendQuoted(std::string_view s, size_t max, ReasonBuffer* out) {
  out->push_back('\'');
  const size_t n = s.size();
  size_t i = 0, shown = 0;
  while (i < n && shown < max) {
    // A run of printable ASCII (one code point per byte) goes in one piece.
    const size_t end =
        math_internal::FindNonPrintable(s, i, std::min(n, i + (max - shown)));
    out->append(s.data() + i, end - i);
    shown += end - i;
    i = end;
    if (i == n || shown == max) break;
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == '\n') {
      out->append("\\n");
      ++i;
    } else if (b < 0x80) {
      out->push_back(static_cast<char>(b));
      ++i;
    } else {
      size_t len;
      if (DecodeUtf8(s, i, &len) == kInvalidCodePoint && len == 1) {
        out->append("\uFFFD");  // not UTF-8
      } else {
        out->append(s.data() + i, len);
      }
      i += len;
    }
    ++shown;
  }
  if (i < n) out->append("...");
  out->push_back('\'');
}

void AppendNumber(int64_t n, ReasonBuffer* out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), n);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

bool IsAsciiPySpace(unsigned char b) {
  return (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x20);
}

// PyLStrip / PyRStrip with an inline ASCII fast path.
std::string_view LStrip(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = s[i];
    if (b >= 0x80) return PyLStrip(s.substr(i));
    if (!IsAsciiPySpace(b)) break;
    ++i;
  }
  return s.substr(i);
}

std::string_view RStrip(std::string_view s) {
  size_t e = s.size();
  while (e > 0) {
    const unsigned char b = s[e - 1];
    if (b >= 0x80) return PyRStrip(s.substr(0, e));
    if (!IsAsciiPySpace(b)) break;
    --e;
  }
  return s.substr(0, e);
}

std::string_view Strip(std::string_view s) { return RStrip(LStrip(s)); }

// Last occurrence of `needle` (non-empty) in `hay`.
// memrchr on the first byte is faster here than a 16-byte SSE2 scan: glibc's is
// wider, and the phrases start with bytes that are rare near the end of an answer.
size_t RFind(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return kNpos;
  size_t limit = hay.size() - needle.size() + 1;  // candidate starts are [0, limit)
  while (limit > 0) {
    const void* hit = memrchr(hay.data(), needle[0], limit);
    if (hit == nullptr) return kNpos;
    const size_t i = static_cast<size_t>(static_cast<const char*>(hit) - hay.data());
    if (std::memcmp(hay.data() + i + 1, needle.data() + 1, needle.size() - 1) == 0) {
      return i;
    }
    limit = i;
  }
  return kNpos;
}

// The last line of the stripped response (Python: response.strip().split('\n')[-1]).
std::string_view LastLine(std::string_view response) {
  const std::string_view r = RStrip(response);
  const void* nl = r.empty() ? nullptr : memrchr(r.data(), '\n', r.size());
  if (nl == nullptr) return LStrip(r);
  return r.substr(static_cast<size_t>(static_cast<const char*>(nl) - r.data()) + 1);
}

struct Answer {
  bool found = false;
  std::string_view text;     // when found
  std::string_view why_not;  // when not found
};

// `at`: where the phrase last occurs in the response (RFind), or npos.
Answer ExtractAnswerAt(std::string_view response, const AnswerPhrase& phrase, size_t at) {
  Answer a;
  if (at == kNpos) {
    a.why_not = "not in the response";
    return a;
  }
  std::string_view t = Strip(response.substr(at + phrase.text.size()));
  switch (phrase.kind) {
    case AnswerKind::kText:
      if (!t.empty() && t.back() == '.') t.remove_suffix(1);
      break;
    case AnswerKind::kBoxed: {
      const size_t close = t.find('}');
      t = close == kNpos ? std::string_view() : t.substr(0, close);
      break;
    }
    case AnswerKind::kDollar:
      // "$$x$$" (display math): the text between the first '$' and the next "$$";
      // "x$" (inline): the text before the next '$', where "$$" is not allowed.
      if (t.starts_with('$')) {
        const size_t close = t.find("$$", 1);
        if (close == kNpos) {
          a.why_not = "is followed by '$' but no closing '$$'";
          return a;
        }
        t = t.substr(1, close - 1);
      } else {
        if (t.find("$$") != kNpos) {
          a.why_not = "is followed by text with '$$'";
          return a;
        }
        t = Strip(t.substr(0, t.find('$')));
      }
      break;
    case AnswerKind::kTagged:
      t = Strip(t.substr(0, t.find("</result>")));
      break;
  }
  a.found = true;
  a.text = t;
  return a;
}

Answer ExtractAnswer(std::string_view response, const AnswerPhrase& phrase) {
  return ExtractAnswerAt(response, phrase, RFind(response, phrase.text));
}

void AppendAccuracy(const Answer& a, const AnswerPhrase& phrase, std::string_view gold,
                    bool accurate, ReasonBuffer* out) {
  out->append("accuracy: ");
  if (!a.found) {
    AppendQuoted(phrase.text, 40, out);
    out->push_back(' ');
    out->append(a.why_not);
    return;
  }
  out->append("answer ");
  AppendQuoted(a.text, 60, out);
  out->append(accurate ? " == gold " : " != gold ");
  AppendQuoted(gold, 60, out);
}

Verdict MakeVerdict(bool format, bool accuracy, std::string reason) {
  Verdict v;
  v.pass = format && accuracy;
  v.format = format;
  v.accuracy = accuracy;
  v.reason = std::move(reason);
  return v;
}

// math_easy: the phrase in the last line, the answer after its last occurrence.
Verdict ScoreEasy(const MathFormat& f, std::string_view gold, std::string_view response) {
  const std::string_view last = LastLine(response);
  const size_t at = RFind(response, f.phrase.text);
  bool format;
  if (f.phrase.kind == AnswerKind::kDollar) {
    format =
        last.starts_with(f.phrase.text) && (last.ends_with('$') || last.ends_with("$."));
  } else {
    // The phrase never ends in whitespace, so if the last line holds an occurrence,
    // the last occurrence in the response is in the last line.
    format = at != kNpos && at >= static_cast<size_t>(last.data() - response.data());
  }
  const Answer a = ExtractAnswerAt(response, f.phrase, at);
  const bool accuracy = a.found && a.text == gold;

  ReasonBuffer reason;
  reason.append("format: last line ");
  if (format) {
    if (f.phrase.kind == AnswerKind::kDollar) {
      reason.append("is 'Result: $...$'");
    } else {
      reason.append("has ");
      AppendQuoted(f.phrase.text, 40, &reason);
    }
  } else {
    AppendQuoted(last, 60, &reason);
    if (f.phrase.kind == AnswerKind::kDollar) {
      reason.append(" is not 'Result: $...$'");
    } else {
      reason.append(" does not contain ");
      AppendQuoted(f.phrase.text, 40, &reason);
    }
  }
  reason.append("; ");
  AppendAccuracy(a, f.phrase, gold, accuracy, &reason);
  return MakeVerdict(format, accuracy, reason.str());
}

// A run of Python `\d` (Unicode decimal digits) at t[*p]; its int() value, saturated.
bool MatchDigits(std::string_view t, size_t* p, int64_t* value) {
  constexpr int64_t kCap = int64_t{1} << 40;
  int64_t v = 0;
  size_t i = *p;
  bool any = false;
  while (i < t.size()) {
    const unsigned char b = t[i];
    int d;
    size_t len = 1;
    if (b >= '0' && b <= '9') {
      d = b - '0';
    } else if (b >= 0x80) {
      const char32_t c = DecodeUtf8(t, i, &len);
      if (c == kInvalidCodePoint || !IsPyDecimal(c)) break;
      d = u_charDigitValue(static_cast<UChar32>(c));
    } else {
      break;
    }
    v = v >= kCap ? kCap : v * 10 + d;
    any = true;
    i += len;
  }
  if (!any) return false;
  *p = i;
  *value = v;
  return true;
}

// One Python `\s` character at t[p] that the chunk, stripped, still holds (so not
// its trailing whitespace); sets *p past it.
bool MatchInnerSpace(std::string_view t, size_t stripped_size, size_t* p) {
  if (*p >= stripped_size) return false;
  size_t len = 1;
  const unsigned char b = t[*p];
  const bool space = b < 0x80 ? IsAsciiPySpace(b) : IsPySpace(DecodeUtf8(t, *p, &len));
  if (!space) return false;
  *p += len;
  return true;
}

// Does the chunk, stripped, start a step? Python's re.match of the reference's
// patterns: A '^### \d+', B '^\d+\.\s', C '^\*\*Step \d+\*\*\s+' (`\d`, `\s` Unicode).
// Sets *number to the int() of the digits, for the reason. `t` is the chunk with
// leading whitespace removed; a `\s` the pattern needs must lie inside the stripped
// chunk.
bool MatchStepStart(std::string_view t, StepStyle style, int64_t* number) {
  size_t p = 0;
  switch (style) {
    case StepStyle::kHashHeaders:
      if (!t.starts_with("### ")) return false;
      p = 4;
      return MatchDigits(t, &p, number);
    case StepStyle::kNumberedLines:
      if (!MatchDigits(t, &p, number) || t.substr(p, 1) != ".") return false;
      ++p;
      return MatchInnerSpace(t, RStrip(t).size(), &p);
    case StepStyle::kBoldSteps:
      if (!t.starts_with("**Step ")) return false;
      p = 7;
      if (!MatchDigits(t, &p, number) || t.substr(p, 2) != "**") return false;
      p += 2;
      return MatchInnerSpace(t, RStrip(t).size(), &p);
    default:
      return false;
  }
}

// The reference's sequence test once a chunk starts a step: a plain prefix test of
// the stripped chunk against '### N', 'N. ' (a literal space) or '**Step N**'. So
// '### 12' passes as step 1, and '1.' followed by a line break is out of sequence.
bool StartsWithStep(std::string_view t, StepStyle style, int64_t n) {
  char buf[32];
  const char* digits_end = std::to_chars(buf, buf + sizeof(buf), n).ptr;
  const std::string_view digits(buf, static_cast<size_t>(digits_end - buf));
  switch (style) {
    case StepStyle::kHashHeaders:
      return t.starts_with("### ") && t.substr(4).starts_with(digits);
    case StepStyle::kNumberedLines:
      return t.starts_with(digits) && t.substr(digits.size()).starts_with(". ");
    case StepStyle::kBoldSteps:
      return t.starts_with("**Step ") && t.substr(7).starts_with(digits) &&
             t.substr(7 + digits.size()).starts_with("**");
    default:
      return false;
  }
}

struct Steps {
  bool ok = false;  // false: format and accuracy both fail
  int64_t count = 0;
  std::string problem;
};

// Styles A-C: the response split on "\n\n"; a stripped chunk that starts like a step
// must carry the next number; other chunks join the step before (or are preamble).
Steps ScanChunkSteps(std::string_view response, StepStyle style) {
  Steps s;
  size_t pos = 0;
  for (;;) {
    const size_t sep = math_internal::FindBlankLine(response, pos);
    const size_t end = sep == kNpos ? response.size() : sep;
    const std::string_view chunk = LStrip(response.substr(pos, end - pos));
    int64_t number;
    if (MatchStepStart(chunk, style, &number)) {
      if (!StartsWithStep(chunk, style, s.count + 1)) {
        ReasonBuffer problem;
        problem.append("step ");
        AppendNumber(s.count + 1, &problem);
        if (number != s.count + 1) {
          problem.append(" is numbered ");
          AppendNumber(number, &problem);
        } else {
          problem.append(" does not start with '");
          problem.append(kStepPrefixes[static_cast<int>(style)].first);
          AppendNumber(number, &problem);
          problem.append(kStepPrefixes[static_cast<int>(style)].second);
          problem.append("'");
        }
        problem.append(": ");
        AppendQuoted(RStrip(chunk), 40, &problem);
        s.problem = problem.str();
        return s;
      }
      ++s.count;
    }
    if (sep == kNpos) break;
    pos = sep + 2;
  }
  s.ok = true;
  return s;
}

// Styles D and E: the first ```json ... ``` block, as Python's json.loads sees it.
Steps ScanJsonSteps(std::string_view response, StepStyle style) {
  Steps s;
  const size_t open = response.find("```json");
  if (open == kNpos) {
    s.problem = "no ```json block";
    return s;
  }
  const size_t body = open + 7;
  const size_t close = response.find("```", body);
  if (close == kNpos) {
    s.problem = "the ```json block is not closed";
    return s;
  }
  const std::string_view json = response.substr(body, close - body);
  math_internal::JsonSteps js = style == StepStyle::kJsonList
                                    ? math_internal::ParseJsonStepList(json)
                                    : math_internal::ParseJsonStepObject(json);
  if (!js.ok) {
    s.problem = std::move(js.problem);
    return s;
  }
  s.ok = true;
  s.count = static_cast<int64_t>(js.steps);
  return s;
}

// math_hard: the steps, then the answer after the last answer phrase anywhere.
Verdict ScoreHard(const MathFormat& f, std::string_view gold, std::string_view response) {
  const Steps steps = f.style == StepStyle::kJsonList || f.style == StepStyle::kJsonObject
                          ? ScanJsonSteps(response, f.style)
                          : ScanChunkSteps(response, f.style);
  const std::string_view style_name = kStyleNames[static_cast<int>(f.style)];
  if (!steps.ok) {
    ReasonBuffer reason;
    reason.append("format and accuracy: ");
    reason.append(style_name);
    reason.append(" steps expected; ");
    reason.append(steps.problem);
    return MakeVerdict(false, false, reason.str());
  }
  const bool format = steps.count >= kMinSteps && steps.count <= kMaxSteps;
  const Answer a = ExtractAnswer(response, f.phrase);
  const bool accuracy = a.found && a.text == gold;
  ReasonBuffer reason;
  reason.append("format: ");
  AppendNumber(steps.count, &reason);
  reason.push_back(' ');
  reason.append(style_name);
  reason.append(steps.count == 1 ? " step" : " steps");
  if (!format) reason.append(" (3 to 10 asked)");
  reason.append("; ");
  AppendAccuracy(a, f.phrase, gold, accuracy, &reason);
  return MakeVerdict(format, accuracy, reason.str());
}

// obj[key] when it is a string, else null. The hot path: GetString (which words the
// error) only runs when this fails.
const std::string* FindString(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  // The smallest key is one pointer away (std::map keeps its leftmost node), a tree
  // walk is several: gold_answer is the smallest key of the recorded contexts.
  if (const auto first = obj.begin(); first != obj.end() && first.key() == key) {
    return first->is_string() ? first->get_ptr<const std::string*>() : nullptr;
  }
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

StatusOr<const std::string*> GetStringFast(const nlohmann::json& obj,
                                           std::string_view where, std::string_view key) {
  if (const std::string* s = FindString(obj, key)) return s;
  return GetString(obj, where, key);
}

StatusOr<Verdict> CheckMathPaper(const Sample& sample, const SampleParams& params,
                                 std::string_view response, const CheckEnv&) {
  // Both formats start at the end of the response: have it on its way while the
  // sample is looked at.
  if (response.size() >= 1) __builtin_prefetch(response.data() + response.size() - 1);
  if (response.size() >= 65) __builtin_prefetch(response.data() + response.size() - 65);
  const MathParams& p = params.math;
  if (!p.format_name.ok()) return p.format_name.status();
  const MathFormat* f = p.format;
  if (f == nullptr) {
    ReasonBuffer quoted;
    AppendQuoted(p.format_name.value(), 60, &quoted);
    return Status::InvalidArgument(
        fmt::format("params.math_format_name: unknown format {} (expected "
                    "Suffix1..7PhrasesMathFormat or BulletPoints1..20MathFormat)",
                    quoted.str()));
  }
  ASSIGN_OR_RETURN(const std::string* gold,
                   GetStringFast(sample.context, "context", "gold_answer"));
  return f->hard ? ScoreHard(*f, *gold, response) : ScoreEasy(*f, *gold, response);
}

// The rules each checker lists (RuleSpec): the paper's format and accuracy, each decided
// on its own; strict's the rules of docs/strict.md, in the order they are checked.
constexpr RuleSpec kPaperRules[] = {{"format", 0}, {"accuracy", 0}};
constexpr RuleSpec kStrictEasy[] = {{"answer-line", 0}, {"one-final-answer", 1},
                                    {"reasoning", 2},   {"computation", 3},
                                    {"answer-value", 4}, {"arithmetic", 5},
                                    {"grounded", 6}};
constexpr RuleSpec kStrictHard[] = {
    {"step-format", 0},      {"step-sequence", 1}, {"step-content", 2},
    {"steps-distinct", 3},   {"step-count", 4},    {"answer-line", 5},
    {"one-final-answer", 6}, {"computation", 7},   {"answer-value", 8},
    {"arithmetic", 9},       {"grounded", 10}};

constexpr SubtaskSpec kSubtasks[] = {
    {"math_easy", Split::kEasy,
     "a GSM8K answer ending in one of seven answer phrases (format and answer scored)",
     "math_format_name (Suffix1..7PhrasesMathFormat); context: gold_answer",
     &CheckMathPaper, false, &math_internal::GenerateMathEasy, nullptr,
     &math_internal::CheckMathStrict, &math_internal::MathSkeleton,
     &math_internal::MathLoophole, kPaperRules, kStrictEasy},
    {"math_hard", Split::kHard,
     "a GSM8K answer in 3-10 numbered steps of one of five styles, then an answer "
     "phrase (format and answer scored)",
     "math_format_name (BulletPoints1..20MathFormat); context: gold_answer",
     &CheckMathPaper, false, &math_internal::GenerateMathHard, nullptr,
     &math_internal::CheckMathStrict, &math_internal::MathSkeleton,
     &math_internal::MathLoophole, kPaperRules, kStrictHard},
};

constexpr TaskFamily kFamily{
    "math",
    "GSM8K word problems answered in a prescribed format",
    "paper-2",
    kSubtasks,
    math_internal::kStrictRulesVersion,
    /*needs_python=*/false,
    &math_internal::ParseMathParams,
};

}  // namespace

const TaskFamily& MathFamily() { return kFamily; }

void math_internal::ParseMathParams(const nlohmann::json& params, RuleSet, SampleParams* out) {
  MathParams& p = out->math;
  if (!params.is_object()) {
    p.format_name.SetNotObject();
    return;
  }
  const auto it = params.find("math_format_name");
  if (it == params.end()) return;
  p.format_name.Set(StringParam(*it, "math_format_name"));
  if (p.format_name.ok()) p.format = ParseFormatName(p.format_name.value());
}

std::optional<int64_t> MathHardStepCount(std::string_view format_name, std::string_view text) {
  const MathFormat* f = math_internal::ParseFormatName(format_name);
  if (f == nullptr || !f->hard) return std::nullopt;
  const Steps steps = f->style == StepStyle::kJsonList || f->style == StepStyle::kJsonObject
                          ? ScanJsonSteps(text, f->style)
                          : ScanChunkSteps(text, f->style);
  if (!steps.ok) return std::nullopt;
  return steps.count;
}

}  // namespace structtest
