#include "tasks/composed/math_rules.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "tasks/composed/rule_text.h"
#include "tasks/math/arithmetic.h"

namespace structtest::composed {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// ---- Numbers: exact values, words, numerals ----

struct Rational {
  long long num = 0;
  long long den = 1;
};

Rational Reduced(long long num, long long den) {
  if (den < 0) num = -num, den = -den;
  const long long g = std::gcd(num < 0 ? -num : num, den);
  return g > 1 ? Rational{num / g, den / g} : Rational{num, den};
}

// "18", "-3", "2,125", "2.5", "$1,000.50": nullopt when not a plain number.
std::optional<Rational> ParseDecimal(std::string_view s) {
  s = TrimBlanks(s);
  bool negative = false;
  if (!s.empty() && s.front() == '-') negative = true, s.remove_prefix(1);
  if (!s.empty() && s.front() == '$') s.remove_prefix(1);
  long long num = 0, den = 1;
  bool digits = false, point = false;
  for (char c : s) {
    if (c == ',' && !point) continue;
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!IsDigit(c)) return std::nullopt;
    if (num > 100000000000LL || den > 100000000000LL) return std::nullopt;
    num = num * 10 + (c - '0');
    if (point) den *= 10;
    digits = true;
  }
  if (!digits) return std::nullopt;
  return Reduced(negative ? -num : num, den);
}

std::optional<Rational> ParseFraction(std::string_view s) {
  s = TrimBlanks(s);
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto p = ParseDecimal(s.substr(0, slash));
  const auto q = ParseDecimal(s.substr(slash + 1));
  if (!p || !q || p->den != 1 || q->den != 1 || q->num <= 0) return std::nullopt;
  return Reduced(p->num, q->num);
}

constexpr std::string_view kOnes[] = {"zero",    "one",       "two",      "three",    "four",
                                      "five",    "six",       "seven",    "eight",    "nine",
                                      "ten",     "eleven",    "twelve",   "thirteen", "fourteen",
                                      "fifteen", "sixteen",   "seventeen", "eighteen", "nineteen"};
constexpr std::string_view kTens[] = {"",      "",      "twenty",  "thirty", "forty",
                                      "fifty", "sixty", "seventy", "eighty", "ninety"};

std::string BelowThousand(long long n) {
  std::string out;
  if (n >= 100) {
    out = fmt::format("{} hundred", kOnes[n / 100]);
    n %= 100;
    if (n == 0) return out;
    out += ' ';
  }
  if (n < 20) return out + std::string(kOnes[n]);
  out += kTens[n / 10];
  if (n % 10 != 0) out += fmt::format("-{}", kOnes[n % 10]);
  return out;
}

// The value of the answer line's value part, in any of the forms the rules allow.
std::optional<Rational> ValueOf(std::string_view value) {
  value = TrimBlanks(value);
  if (value.size() > 64) return std::nullopt;
  if (auto d = ParseDecimal(value)) return d;
  if (auto f = ParseFraction(value)) return f;
  const long long w = NumberFromWords(value);
  if (w >= 0) return Rational{w, 1};
  return std::nullopt;
}

bool IsPlainInteger(std::string_view gold) {
  const auto r = ParseDecimal(gold);
  return r && r->den == 1 && r->num >= 0 && r->num < 1000000000LL;
}

// ---- The answer line ----

struct AnswerPhrase {
  std::string_view lead, tail;
};
// The answer-phrase rule's styles (the paper's phrases), the default line, and the
// phrase a violation writes.
constexpr AnswerPhrase kAnswerPhrases[] = {
    {"The answer is: ", ""}, {"#### ", ""},       {"Final result: ", ""},
    {"\\boxed{", "}"},       {"The final answer is ", ""}, {"<result>", "</result>"},
};
constexpr int kAnswerPhraseCount = 6;
constexpr AnswerPhrase kDefaultPhrase = {"Answer: ", ""};
constexpr AnswerPhrase kViolatingPhrase = {"The result is ", ""};

const AnswerPhrase& PhraseOf(int style) {
  if (style < 0) return kDefaultPhrase;
  if (style >= kAnswerPhraseCount) return kViolatingPhrase;
  return kAnswerPhrases[style];
}

// The answer line split into lead, value and tail, by the longest known phrase it is
// written in; a line in no known phrase gives its text after the last ':' (or all of
// it) as the value.
struct AnswerParts {
  int style = -2;  // -2: no known phrase
  std::string_view value;
};

AnswerParts SplitAnswerLine(std::string_view line) {
  line = TrimBlanks(line);
  if (!line.empty() && line.back() == '.') line.remove_suffix(1);  // a full stop after it
  AnswerParts best;
  size_t best_len = 0;
  const auto consider = [&](int style, const AnswerPhrase& p) {
    if (line.size() < p.lead.size() + p.tail.size()) return;
    if (!line.starts_with(p.lead) || !line.ends_with(p.tail)) return;
    if (p.lead.size() + p.tail.size() < best_len && best.style != -2) return;
    best_len = p.lead.size() + p.tail.size();
    best.style = style;
    best.value = line.substr(p.lead.size(), line.size() - p.lead.size() - p.tail.size());
  };
  for (int i = 0; i < kAnswerPhraseCount; ++i) consider(i, kAnswerPhrases[i]);
  consider(-1, kDefaultPhrase);
  consider(kAnswerPhraseCount, kViolatingPhrase);
  if (best.style != -2) return best;
  const size_t colon = line.rfind(':');
  best.value = colon == std::string_view::npos ? line : line.substr(colon + 1);
  return best;
}

std::string_view Unbold(std::string_view v) {
  v = TrimBlanks(v);
  if (v.size() >= 4 && v.starts_with("**") && v.ends_with("**")) v = v.substr(2, v.size() - 4);
  return TrimBlanks(v);
}

std::string AnswerValueText(const MathDraft& d) {
  if (!d.answer_override.empty()) return d.answer_override;
  const auto gold = ParseDecimal(d.gold);
  switch (d.value) {
    case MathDraft::Value::kWords:
      if (gold && gold->den == 1 && gold->num >= 0) return NumberInWords(gold->num);
      break;
    case MathDraft::Value::kFraction:
      if (gold) return fmt::format("{}/{}", gold->num * d.fraction_scale, gold->den * d.fraction_scale);
      break;
    case MathDraft::Value::kDigits:
      break;
  }
  return std::string(TrimBlanks(d.gold));
}

// ---- Step labels ----

std::string LabelFor(MathLabels labels, int n) {
  switch (labels) {
    case MathLabels::kNone: return "";
    case MathLabels::kStepColon: return fmt::format("Step {}:", n);
    case MathLabels::kDot: return fmt::format("{}.", n);
    case MathLabels::kParen: return fmt::format("({})", n);
    case MathLabels::kBracket: return fmt::format("[{}]", n);
    case MathLabels::kRoman: return RomanNumeral(n) + ".";
    case MathLabels::kLetter: return fmt::format("({})", static_cast<char>('a' + (n - 1) % 26));
  }
  return "";
}

// A step line without its label, in the shape of `labels` (the number is not looked
// at: the labelling rule checks it).
std::string_view StripLabel(std::string_view line, MathLabels labels) {
  line = TrimBlanks(line);
  size_t end = std::string_view::npos;
  switch (labels) {
    case MathLabels::kNone: return line;
    case MathLabels::kStepColon:
      if (line.starts_with("Step ")) end = line.find(':');
      break;
    case MathLabels::kDot:
    case MathLabels::kRoman: {
      const size_t space = line.find(' ');
      if (space != std::string_view::npos && space > 0 && space <= 8 && line[space - 1] == '.') {
        end = space - 1;
      }
      break;
    }
    case MathLabels::kParen:
    case MathLabels::kLetter:
      if (line.starts_with("(")) end = line.find(')');
      break;
    case MathLabels::kBracket:
      if (line.starts_with("[")) end = line.find(']');
      break;
  }
  if (end == std::string_view::npos || end > 12) return line;
  return TrimBlanks(line.substr(end + 1));
}

MathLabels LabelsNamed(std::string_view name) {
  if (name == "step") return MathLabels::kStepColon;
  if (name == "dot") return MathLabels::kDot;
  if (name == "paren") return MathLabels::kParen;
  if (name == "bracket") return MathLabels::kBracket;
  return MathLabels::kNone;
}

// Which label shape the sample's rules ask for.
MathLabels LabelsOfRules(const nlohmann::json& rules) {
  for (const auto& r : rules) {
    const std::string id = r.value("id", "");
    if (id == "step-labels") return LabelsNamed(r.value("style", ""));
    if (id == "roman-labels") return MathLabels::kRoman;
    if (id == "letter-labels") return MathLabels::kLetter;
  }
  return MathLabels::kNone;
}

// ---- Rendering a draft ----

constexpr std::string_view kPadWords[] = {"and", "this", "value", "is", "carried", "on", "to",
                                          "the", "next", "step"};

std::string StepText(const MathDraft& d, size_t i) {
  std::string text(TrimBlanks(d.steps[i]));
  if (!d.opening.empty() && !(d.opening_skip_first && i == 0)) {
    text = d.opening + ", " + text;
  }
  if (d.full_stops) {
    while (!text.empty() && (text.back() == '.' || text.back() == '!' || text.back() == '?' ||
                             text.back() == ';' || text.back() == ':' || text.back() == ',')) {
      text.pop_back();
    }
    if (!(d.full_stop_missing && i == 0)) text += '.';
  }
  if (i == 0 && d.pad_first_step > 0) {
    std::string pad;
    for (size_t w = 0; w < d.pad_first_step; ++w) {
      pad += ' ';
      pad += kPadWords[w % std::size(kPadWords)];
    }
    const bool stop = !text.empty() && text.back() == '.';
    if (stop) text.pop_back();
    text += pad;
    if (stop) text += '.';
  }
  return text;
}

std::string StepLine(const MathDraft& d, size_t i) {
  int n = static_cast<int>(i) + 1;
  if (d.skip_label >= 0 && static_cast<int>(i) >= d.skip_label) ++n;
  const std::string label = LabelFor(d.labels, n);
  return label.empty() ? StepText(d, i) : label + " " + StepText(d, i);
}

std::string AnswerLine(const MathDraft& d) {
  const AnswerPhrase& p = PhraseOf(d.answer_style);
  std::string value = AnswerValueText(d);
  if (d.bold) value = "**" + value + "**";
  return fmt::format("{}{}{}", p.lead, value, p.tail);
}

// ---- The rules ----

constexpr std::string_view kNone[] = {""};
constexpr std::span<const std::string_view> kNoConflicts(kNone, 0);

// step-count (paper: math_hard's number of steps)
nlohmann::json DrawStepCount(Rng* rng, const MathDraft& d) {
  const int most = static_cast<int>(d.steps.size());
  return {{"n", static_cast<int>(rng->UniformInt(std::min(3, most), most))}};
}
std::string StepCountText(const nlohmann::json& p, int phrasing) {
  const int n = IntParam(p, "n");
  switch (phrasing) {
    case 0: return fmt::format("Use exactly {} steps.", n);
    case 1: return fmt::format("The solution must have exactly {} steps, no more and no fewer.", n);
    default: return fmt::format("Split the work into exactly {} steps.", n);
  }
}
void ApplyStepCount(const nlohmann::json& p, MathDraft* d) {
  const size_t n = static_cast<size_t>(std::max(1, IntParam(p, "n")));
  while (d->steps.size() > n) {
    // Join the adjacent pair that is shortest together.
    size_t best = 0;
    for (size_t i = 1; i + 1 < d->steps.size(); ++i) {
      if (d->steps[i].size() + d->steps[i + 1].size() <
          d->steps[best].size() + d->steps[best + 1].size()) {
        best = i;
      }
    }
    d->steps[best] += " " + d->steps[best + 1];
    d->steps.erase(d->steps.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}
void ViolateStepCount(const nlohmann::json&, MathDraft* d) {
  d->steps.push_back("We check this result once more");
}
RuleCheck CheckStepCount(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  const size_t n = static_cast<size_t>(IntParam(p, "n"));
  if (m.step_lines.size() == n) return RulePass("step-count", fmt::format("{} steps", n));
  return RuleFail("step-count", fmt::format("expected {} steps, found {}", n, m.step_lines.size()));
}

// Labels: step-labels (paper step styles), roman-labels, letter-labels.
RuleCheck CheckLabels(std::string_view id, MathLabels labels, const MathParsed& m) {
  for (size_t i = 0; i < m.step_lines.size(); ++i) {
    const std::string want = LabelFor(labels, static_cast<int>(i) + 1) + " ";
    const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.step_lines[i])]);
    if (!line.starts_with(want) || TrimBlanks(line.substr(want.size())).empty()) {
      return RuleFail(id, fmt::format("step {} does not start with '{}': {}", i + 1,
                                  TrimBlanks(want), QuoteText(line)));
    }
  }
  if (m.step_lines.empty()) return RuleFail(id, "no steps");
  return RulePass(id);
}
constexpr std::string_view kLabelConflicts[] = {"step-labels", "roman-labels", "letter-labels"};
constexpr std::string_view kStepLabelStyles[] = {"step", "dot", "paren", "bracket"};
nlohmann::json DrawStepLabels(Rng* rng, const MathDraft&) {
  return {{"style", std::string(PickOf(rng, kStepLabelStyles))}};
}
std::string StepLabelsText(const nlohmann::json& p, int phrasing) {
  const MathLabels l = LabelsNamed(StrParam(p, "style"));
  const std::string first = LabelFor(l, 1), second = LabelFor(l, 2);
  if (phrasing == 0) {
    return fmt::format("Start each step with its number written as `{}`, `{}`, and so on, "
                       "then a space.", first, second);
  }
  return fmt::format("Label the steps `{}`, `{}`, ... (counting from 1), each label at the start "
                     "of its step's line and followed by a space.", first, second);
}
void ApplyStepLabels(const nlohmann::json& p, MathDraft* d) { d->labels = LabelsNamed(StrParam(p, "style")); }
void ViolateLabels(const nlohmann::json&, MathDraft* d) { d->skip_label = 1; }
RuleCheck CheckStepLabels(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  return CheckLabels("step-labels", LabelsNamed(StrParam(p, "style")), m);
}

std::string RomanLabelsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Number the steps with Roman numerals: start them `I. `, `II. `, `III. `, and so on.";
  return "Begin each step with its number in upper-case Roman numerals and a full stop (`I.`, `II.`, `III.`, ...), then a space.";
}
void ApplyRoman(const nlohmann::json&, MathDraft* d) { d->labels = MathLabels::kRoman; }
RuleCheck CheckRoman(const nlohmann::json&, const MathParsed& m, RuleSet) {
  return CheckLabels("roman-labels", MathLabels::kRoman, m);
}

bool AtMost26Steps(const MathDraft& d) { return d.steps.size() < 26; }
std::string LetterLabelsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Label the steps with lower-case letters in parentheses: `(a) `, `(b) `, `(c) `, and so on.";
  return "Begin each step with a letter in parentheses, `(a)` for the first, `(b)` for the second and so on, then a space.";
}
void ApplyLetters(const nlohmann::json&, MathDraft* d) { d->labels = MathLabels::kLetter; }
RuleCheck CheckLetters(const nlohmann::json&, const MathParsed& m, RuleSet) {
  return CheckLabels("letter-labels", MathLabels::kLetter, m);
}

// step-opening: each step's text opens with a given word.
constexpr std::string_view kOpenings[] = {"Then", "Next", "Now", "Here", "Thus", "Hence"};
nlohmann::json DrawOpening(Rng* rng, const MathDraft& d) {
  // A word no step opens with already, so that leaving it out is a violation.
  std::vector<std::string_view> free;
  for (std::string_view w : kOpenings) {
    const bool used = std::any_of(d.steps.begin(), d.steps.end(), [&](const std::string& s) {
      return TrimBlanks(s).starts_with(w);
    });
    if (!used) free.push_back(w);
  }
  if (free.empty()) free.assign(std::begin(kOpenings), std::end(kOpenings));
  return {{"word", std::string(rng->Pick(free))}};
}
std::string OpeningText(const nlohmann::json& p, int phrasing) {
  const std::string w = StrParam(p, "word");
  if (phrasing == 0) return fmt::format("Open every step with the word \"{}\" followed by a comma (after the step's label, if it has one).", w);
  return fmt::format("The text of each step must begin with \"{},\" (the label, if any, comes before it).", w);
}
void ApplyOpening(const nlohmann::json& p, MathDraft* d) { d->opening = StrParam(p, "word"); }
void ViolateOpening(const nlohmann::json&, MathDraft* d) { d->opening_skip_first = true; }
RuleCheck CheckOpening(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  const std::string want = StrParam(p, "word") + ",";
  for (size_t i = 0; i < m.step_texts.size(); ++i) {
    if (!m.step_texts[i].starts_with(want)) {
      return RuleFail("step-opening", fmt::format("step {} does not open with \"{}\": {}", i + 1,
                                              want, QuoteText(m.step_texts[i])));
    }
  }
  if (m.step_texts.empty()) return RuleFail("step-opening", "no steps");
  return RulePass("step-opening");
}

// step-full-stops
std::string FullStopsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "End every step with a full stop (`.`).";
  return "Each step's line must end with a period.";
}
void ApplyFullStops(const nlohmann::json&, MathDraft* d) { d->full_stops = true; }
void ViolateFullStops(const nlohmann::json&, MathDraft* d) { d->full_stop_missing = true; }
RuleCheck CheckFullStops(const nlohmann::json&, const MathParsed& m, RuleSet) {
  for (size_t i = 0; i < m.step_texts.size(); ++i) {
    if (!m.step_texts[i].ends_with(".")) {
      return RuleFail("step-full-stops", fmt::format("step {} does not end with '.': {}", i + 1,
                                                 QuoteText(m.step_texts[i])));
    }
  }
  if (m.step_texts.empty()) return RuleFail("step-full-stops", "no steps");
  return RulePass("step-full-stops");
}

// step-words: a range of words per step, wide enough for the reference's steps.
nlohmann::json DrawStepWords(Rng* rng, const MathDraft& d) {
  size_t shortest = 1000, longest = 0;
  for (size_t i = 0; i < d.steps.size(); ++i) {
    const size_t n = CountBlankSeparatedWords(StepText(d, i));
    shortest = std::min(shortest, n);
    longest = std::max(longest, n);
  }
  const int lo = static_cast<int>(std::min<size_t>(shortest, rng->UniformInt(2, 3)));
  const int hi = static_cast<int>(std::max<size_t>(longest + static_cast<size_t>(rng->UniformInt(2, 6)), 12));
  return {{"min", lo}, {"max", hi}};
}
std::string StepWordsText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) {
    return fmt::format("Each step must have between {} and {} words (the label not counted).",
                       IntParam(p, "min"), IntParam(p, "max"));
  }
  return fmt::format("Keep every step to at least {} and at most {} words, not counting its "
                     "label; numbers count as words.", IntParam(p, "min"), IntParam(p, "max"));
}
void ViolateStepWords(const nlohmann::json& p, MathDraft* d) {
  d->pad_first_step = 0;
  const size_t n = CountBlankSeparatedWords(StepText(*d, 0));
  const size_t hi = static_cast<size_t>(IntParam(p, "max"));
  d->pad_first_step = hi >= n ? hi - n + 1 : 0;
}
RuleCheck CheckStepWords(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  const size_t lo = static_cast<size_t>(IntParam(p, "min")), hi = static_cast<size_t>(IntParam(p, "max"));
  for (size_t i = 0; i < m.step_texts.size(); ++i) {
    const size_t n = CountBlankSeparatedWords(m.step_texts[i]);
    if (n < lo || n > hi) {
      return RuleFail("step-words", fmt::format("step {} has {} words, not {} to {}", i + 1, n, lo, hi));
    }
  }
  if (m.step_texts.empty()) return RuleFail("step-words", "no steps");
  return RulePass("step-words");
}

// answer-phrase (paper: the answer phrases of math_easy and math_hard)
nlohmann::json DrawAnswerPhrase(Rng* rng, const MathDraft&) {
  return {{"style", static_cast<int>(rng->UniformInt(0, kAnswerPhraseCount - 1))}};
}
std::string AnswerPhraseText(const nlohmann::json& p, int phrasing) {
  const AnswerPhrase& a = PhraseOf(std::clamp(IntParam(p, "style"), 0, kAnswerPhraseCount - 1));
  if (phrasing == 0) return fmt::format("Write the final answer line as `{}N{}`, with N the final answer.", a.lead, a.tail);
  return fmt::format("The final answer's line must read `{}N{}`, N standing for the answer.", a.lead, a.tail);
}
void ApplyAnswerPhrase(const nlohmann::json& p, MathDraft* d) {
  d->answer_style = std::clamp(IntParam(p, "style"), 0, kAnswerPhraseCount - 1);
}
void ViolateAnswerPhrase(const nlohmann::json&, MathDraft* d) { d->answer_style = kAnswerPhraseCount; }
RuleCheck CheckAnswerPhrase(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  if (m.answer_line < 0) return RuleFail("answer-phrase", "no final answer line");
  const int style = std::clamp(IntParam(p, "style"), 0, kAnswerPhraseCount - 1);
  const AnswerPhrase& a = PhraseOf(style);
  const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.answer_line)]);
  const AnswerParts parts = SplitAnswerLine(line);
  if (parts.style != style || TrimBlanks(parts.value).empty()) {
    return RuleFail("answer-phrase", fmt::format("the final answer line is not `{}N{}`: {}", a.lead,
                                             a.tail, QuoteText(line)));
  }
  return RulePass("answer-phrase");
}

// bold-answer
constexpr std::string_view kBoldConflicts[] = {"answer-phrase"};
std::string BoldText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Write the final answer's value in bold Markdown: `**N**`.";
  return "On the final answer line, put the value itself (not the words before it) between double asterisks, like `**N**`.";
}
void ApplyBold(const nlohmann::json&, MathDraft* d) { d->bold = true; }
void ViolateBold(const nlohmann::json&, MathDraft* d) { d->bold = false; }
RuleCheck CheckBold(const nlohmann::json&, const MathParsed& m, RuleSet) {
  if (m.answer_line < 0) return RuleFail("bold-answer", "no final answer line");
  const std::string_view v = TrimBlanks(SplitAnswerLine(m.lines[static_cast<size_t>(m.answer_line)]).value);
  if (v.size() < 5 || !v.starts_with("**") || !v.ends_with("**")) {
    return RuleFail("bold-answer", fmt::format("the answer {} is not in bold", QuoteText(v)));
  }
  return RulePass("bold-answer");
}

// answer-in-words
constexpr std::string_view kWordsConflicts[] = {"answer-fraction"};
bool GoldIsPlainInteger(const MathDraft& d) { return IsPlainInteger(d.gold); }
std::string WordsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Write the final answer in English words, not digits (for example `forty-two`).";
  return "Spell the final answer out in words (such as `one hundred twenty-five`); no digits in it.";
}
void ApplyWords(const nlohmann::json&, MathDraft* d) { d->value = MathDraft::Value::kWords; }
void ViolateToDigits(const nlohmann::json&, MathDraft* d) { d->value = MathDraft::Value::kDigits; }
RuleCheck CheckWords(const nlohmann::json&, const MathParsed& m, RuleSet) {
  if (m.answer_line < 0) return RuleFail("answer-in-words", "no final answer line");
  const std::string_view v = Unbold(SplitAnswerLine(m.lines[static_cast<size_t>(m.answer_line)]).value);
  if (std::any_of(v.begin(), v.end(), IsDigit) || NumberFromWords(v) < 0) {
    return RuleFail("answer-in-words", fmt::format("the answer {} is not a number in words", QuoteText(v)));
  }
  return RulePass("answer-in-words");
}

// answer-fraction
constexpr std::string_view kFractionConflicts[] = {"answer-in-words"};
bool GoldIsNumber(const MathDraft& d) { return ParseDecimal(d.gold).has_value(); }
std::string FractionText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Write the final answer as a fraction `p/q` in lowest terms (a whole number n as `n/1`).";
  return "Give the final answer as a reduced fraction p/q with digits, such as `7/2`, writing a whole number n as `n/1`.";
}
void ApplyFraction(const nlohmann::json&, MathDraft* d) { d->value = MathDraft::Value::kFraction; }
void ViolateFraction(const nlohmann::json&, MathDraft* d) { d->fraction_scale = 2; }
RuleCheck CheckFraction(const nlohmann::json&, const MathParsed& m, RuleSet) {
  if (m.answer_line < 0) return RuleFail("answer-fraction", "no final answer line");
  const std::string_view v = Unbold(SplitAnswerLine(m.lines[static_cast<size_t>(m.answer_line)]).value);
  const size_t slash = v.find('/');
  bool ok = slash != std::string_view::npos && slash > 0 && slash + 1 < v.size();
  for (size_t i = 0; ok && i < v.size(); ++i) {
    ok = i == slash || IsDigit(v[i]) || (i == 0 && v[i] == '-');
  }
  if (!ok) return RuleFail("answer-fraction", fmt::format("the answer {} is not a fraction p/q", QuoteText(v)));
  const auto p = ParseDecimal(v.substr(0, slash));
  const auto q = ParseDecimal(v.substr(slash + 1));
  if (!p || !q || q->num <= 0 ||
      std::gcd(p->num < 0 ? -p->num : p->num, q->num) != 1) {
    return RuleFail("answer-fraction", fmt::format("the fraction {} is not in lowest terms", QuoteText(v)));
  }
  return RulePass("answer-fraction");
}

// title
constexpr std::string_view kEnvelopeOnly[] = {"json-envelope"};
constexpr std::string_view kTitles[] = {"Solution", "Worked solution", "Step-by-step solution",
                                        "How to solve it"};
nlohmann::json DrawTitle(Rng* rng, const MathDraft&) { return {{"title", std::string(PickOf(rng, kTitles))}}; }
std::string TitleText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Begin with the title line `## {}`.", StrParam(p, "title"));
  return fmt::format("The first line must be the Markdown heading `## {}`, exactly.", StrParam(p, "title"));
}
void ApplyTitle(const nlohmann::json& p, MathDraft* d) { d->title = StrParam(p, "title"); }
void ViolateTitle(const nlohmann::json&, MathDraft* d) { d->title_marker = ""; }
RuleCheck CheckTitle(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  const std::string want = "## " + StrParam(p, "title");
  if (m.title_line < 0) return RuleFail("title", "no title line");
  const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.title_line)]);
  if (line != want) return RuleFail("title", fmt::format("the first line is {}, not '{}'", QuoteText(line), want));
  return RulePass("title");
}

// closing-line
constexpr std::string_view kClosings[] = {"End of solution.", "That completes the solution.",
                                          "Done.", "All steps are shown above."};
nlohmann::json DrawClosing(Rng* rng, const MathDraft&) { return {{"text", std::string(PickOf(rng, kClosings))}}; }
std::string ClosingText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("After the final answer line, end with the line `{}`.", StrParam(p, "text"));
  return fmt::format("The very last line must be `{}` (after the final answer).", StrParam(p, "text"));
}
void ApplyClosing(const nlohmann::json& p, MathDraft* d) { d->closing = StrParam(p, "text"); }
void ViolateClosing(const nlohmann::json& p, MathDraft* d) {
  std::string t = StrParam(p, "text");
  if (!t.empty() && t.back() == '.') t.pop_back();
  d->closing = t + "!";
}
RuleCheck CheckClosing(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  const std::string want = StrParam(p, "text");
  if (m.closing_line < 0) return RuleFail("closing-line", "no closing line");
  const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.closing_line)]);
  if (line != want) return RuleFail("closing-line", fmt::format("the last line is {}, not '{}'", QuoteText(line), want));
  return RulePass("closing-line");
}

// blank-lines
std::string BlankLinesText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Separate consecutive steps by exactly one blank line.";
  return "Put one empty line between each step and the next (and no more than one).";
}
void ApplyBlankLines(const nlohmann::json&, MathDraft* d) { d->blank_lines = true; }
void ViolateBlankLines(const nlohmann::json&, MathDraft* d) { d->blank_line_missing = true; }
RuleCheck CheckBlankLines(const nlohmann::json&, const MathParsed& m, RuleSet) {
  for (size_t i = 1; i < m.step_lines.size(); ++i) {
    const int gap = m.step_lines[i] - m.step_lines[i - 1] - 1;
    if (gap != 1) {
      return RuleFail("blank-lines", fmt::format("{} blank lines between steps {} and {}", gap, i, i + 1));
    }
  }
  if (m.step_lines.empty()) return RuleFail("blank-lines", "no steps");
  return RulePass("blank-lines");
}

// json-envelope
constexpr std::string_view kEnvelopeConflicts[] = {"title", "closing-line", "blank-lines"};
constexpr std::pair<std::string_view, std::string_view> kEnvelopeKeys[] = {
    {"steps", "answer"}, {"work", "result"}, {"reasoning", "final_answer"}};
nlohmann::json DrawEnvelope(Rng* rng, const MathDraft&) {
  const auto& [s, a] = PickOf(rng, kEnvelopeKeys);
  return {{"steps_key", std::string(s)}, {"answer_key", std::string(a)}};
}
std::string EnvelopeText(const nlohmann::json& p, int phrasing) {
  const std::string s = StrParam(p, "steps_key"), a = StrParam(p, "answer_key");
  if (phrasing == 0) {
    return fmt::format("Give the whole answer as one JSON object and nothing else (no code fence), "
                       "with exactly two keys: \"{}\", an array of the step lines as strings, and "
                       "\"{}\", the final answer line as a string.", s, a);
  }
  return fmt::format("Reply with a single JSON object only: key \"{}\" holds the steps (an array "
                     "of strings, one per step line) and key \"{}\" holds the final answer line; "
                     "no other keys and no text outside the object.", s, a);
}
void ApplyEnvelope(const nlohmann::json& p, MathDraft* d) {
  d->envelope_steps_key = StrParam(p, "steps_key");
  d->envelope_answer_key = StrParam(p, "answer_key");
}
void ViolateEnvelope(const nlohmann::json&, MathDraft* d) { d->envelope_preamble = true; }
RuleCheck CheckEnvelope(const nlohmann::json& p, const MathParsed& m, RuleSet) {
  const std::string s = StrParam(p, "steps_key"), a = StrParam(p, "answer_key");
  const std::string_view t = TrimBlanks(m.response);
  std::string_view body = t;
  while (!body.empty() && (body.front() == '\n' || body.front() == ' ')) body.remove_prefix(1);
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.remove_suffix(1);
  if (!body.starts_with("{") || !body.ends_with("}")) {
    return RuleFail("json-envelope", "the response is not one JSON object alone (text outside the braces)");
  }
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return RuleFail("json-envelope", "the response is not valid JSON");
  if (j.size() != 2 || !j.contains(s) || !j.contains(a)) {
    std::string keys;
    for (const auto& [k, v] : j.items()) keys += (keys.empty() ? "" : ", ") + k;
    return RuleFail("json-envelope", fmt::format("keys are [{}], not [{}, {}]", keys, s, a));
  }
  if (!j[a].is_string()) return RuleFail("json-envelope", fmt::format("\"{}\" is not a string", a));
  if (!j[s].is_array() || j[s].empty()) return RuleFail("json-envelope", fmt::format("\"{}\" is not an array of steps", s));
  for (const auto& e : j[s]) {
    if (!e.is_string()) return RuleFail("json-envelope", fmt::format("\"{}\" holds a value that is not a string", s));
  }
  return RulePass("json-envelope");
}

constexpr MathRule kMathRules[] = {
    // Structure first: the rules after draw their parameters from what it leaves.
    {"step-count", "exactly N steps", RuleOrigin::kPaper, kNoConflicts, nullptr, &DrawStepCount,
     3, &StepCountText, &ApplyStepCount, &ViolateStepCount, &CheckStepCount},
    {"step-labels", "steps labelled `Step N:`, `N.`, `(N)` or `[N]`", RuleOrigin::kPaper,
     kLabelConflicts, nullptr, &DrawStepLabels, 2, &StepLabelsText, &ApplyStepLabels,
     &ViolateLabels, &CheckStepLabels},
    {"roman-labels", "steps numbered in Roman numerals, `I.`, `II.`, ...", RuleOrigin::kNew,
     kLabelConflicts, nullptr, nullptr, 2, &RomanLabelsText, &ApplyRoman, &ViolateLabels,
     &CheckRoman},
    {"letter-labels", "steps labelled `(a)`, `(b)`, ...", RuleOrigin::kNew, kLabelConflicts,
     &AtMost26Steps, nullptr, 2, &LetterLabelsText, &ApplyLetters, &ViolateLabels, &CheckLetters},
    {"step-opening", "every step opens with a given word and a comma", RuleOrigin::kNew,
     kNoConflicts, nullptr, &DrawOpening, 2, &OpeningText, &ApplyOpening, &ViolateOpening,
     &CheckOpening},
    {"step-full-stops", "every step ends with a full stop", RuleOrigin::kNew, kNoConflicts,
     nullptr, nullptr, 2, &FullStopsText, &ApplyFullStops, &ViolateFullStops, &CheckFullStops},
    {"step-words", "every step has between A and B words", RuleOrigin::kNew, kNoConflicts,
     nullptr, &DrawStepWords, 2, &StepWordsText, nullptr, &ViolateStepWords, &CheckStepWords},
    {"answer-phrase", "the final answer line in a given phrase (`#### N`, `\\boxed{N}`, ...)",
     RuleOrigin::kPaper, kBoldConflicts, nullptr, &DrawAnswerPhrase, 2, &AnswerPhraseText,
     &ApplyAnswerPhrase, &ViolateAnswerPhrase, &CheckAnswerPhrase},
    {"bold-answer", "the final answer's value in bold, `**N**`", RuleOrigin::kNew,
     kBoldConflicts, nullptr, nullptr, 2, &BoldText, &ApplyBold, &ViolateBold, &CheckBold},
    {"answer-in-words", "the final answer in English words", RuleOrigin::kNew, kWordsConflicts,
     &GoldIsPlainInteger, nullptr, 2, &WordsText, &ApplyWords, &ViolateToDigits, &CheckWords},
    {"answer-fraction", "the final answer as a fraction p/q in lowest terms", RuleOrigin::kNew,
     kFractionConflicts, &GoldIsNumber, nullptr, 2, &FractionText, &ApplyFraction,
     &ViolateFraction, &CheckFraction},
    {"title", "a given title line first, `## T`", RuleOrigin::kNew, kEnvelopeOnly, nullptr,
     &DrawTitle, 2, &TitleText, &ApplyTitle, &ViolateTitle, &CheckTitle},
    {"closing-line", "a given closing line last", RuleOrigin::kNew, kEnvelopeOnly, nullptr,
     &DrawClosing, 2, &ClosingText, &ApplyClosing, &ViolateClosing, &CheckClosing},
    {"blank-lines", "one blank line between steps", RuleOrigin::kNew, kEnvelopeOnly, nullptr,
     nullptr, 2, &BlankLinesText, &ApplyBlankLines, &ViolateBlankLines, &CheckBlankLines},
    {"json-envelope", "the answer as a JSON object with two given keys", RuleOrigin::kNew,
     kEnvelopeConflicts, nullptr, &DrawEnvelope, 2, &EnvelopeText, &ApplyEnvelope,
     &ViolateEnvelope, &CheckEnvelope},
};

}  // namespace

std::span<const MathRule> MathRules() {
  // The table above, then the rules of files of their own: built once, on first use.
  static const std::vector<MathRule>* const kAll = [] {
    auto* all = new std::vector<MathRule>(std::begin(kMathRules), std::end(kMathRules));
    all->push_back(StepCapitalsRule());
    return all;
  }();
  return *kAll;
}

const MathRule* FindMathRule(std::string_view id) {
  for (const MathRule& r : MathRules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string NumberInWords(long long n) {
  if (n < 0) return "minus " + NumberInWords(-n);
  if (n < 1000) return BelowThousand(n);
  std::string out;
  if (n >= 1000000) {
    out = BelowThousand(n / 1000000) + " million";
    n %= 1000000;
    if (n == 0) return out;
    out += ' ';
  }
  if (n >= 1000) {
    out += BelowThousand(n / 1000) + " thousand";
    n %= 1000;
    if (n == 0) return out;
    out += ' ';
  }
  return out + BelowThousand(n);
}

long long NumberFromWords(std::string_view text) {
  long long total = 0, group = 0;
  bool any = false;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '-' || text[i] == ',')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '-' && text[i] != ',') ++i;
    if (i == start) break;
    std::string word(text.substr(start, i - start));
    for (char& c : word) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (word == "and") continue;
    bool known = false;
    for (long long k = 0; k < 20; ++k) {
      if (word == kOnes[k]) group += k, known = true;
    }
    for (long long k = 2; k < 10; ++k) {
      if (word == kTens[k]) group += 10 * k, known = true;
    }
    if (word == "hundred") group = (group == 0 ? 1 : group) * 100, known = true;
    if (word == "thousand" || word == "million") {
      total += (group == 0 ? 1 : group) * (word == "thousand" ? 1000 : 1000000);
      group = 0;
      known = true;
    }
    if (!known) return -1;
    any = true;
  }
  return any ? total + group : -1;
}

std::string RomanNumeral(int n) {
  static constexpr std::pair<int, std::string_view> kParts[] = {
      {1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"},
      {40, "XL"},  {10, "X"},   {9, "IX"},  {5, "V"},    {4, "IV"},  {1, "I"}};
  std::string out;
  for (const auto& [value, text] : kParts) {
    while (n >= value) out += text, n -= value;
  }
  return out;
}

std::string RenderMath(const MathDraft& d) {
  if (!d.envelope_steps_key.empty()) {
    std::string out = d.envelope_preamble ? "Here is the JSON object:\n" : "";
    out += "{\n  " + nlohmann::json(d.envelope_steps_key).dump() + ": [";
    for (size_t i = 0; i < d.steps.size(); ++i) {
      out += (i == 0 ? "\n    " : ",\n    ") + nlohmann::json(StepLine(d, i)).dump();
    }
    out += "\n  ],\n  " + nlohmann::json(d.envelope_answer_key).dump() + ": " +
           nlohmann::json(AnswerLine(d)).dump() + "\n}";
    return out;
  }
  std::string out;
  if (!d.title.empty()) out += d.title_marker + d.title + "\n";
  for (size_t i = 0; i < d.steps.size(); ++i) {
    if (i > 0 && d.blank_lines && !(d.blank_line_missing && i == 1)) out += "\n";
    out += StepLine(d, i) + "\n";
  }
  out += AnswerLine(d);
  if (!d.closing.empty()) out += "\n" + d.closing;
  return out;
}

MathParsed ParseMath(std::string_view response, const nlohmann::json& rules, std::string question,
                     std::string gold) {
  MathParsed m;
  m.question = std::move(question);
  m.gold = std::move(gold);
  m.response = std::string(response);
  bool title = false, closing = false;
  std::string steps_key, answer_key;
  for (const auto& r : rules) {
    const std::string id = r.value("id", "");
    title |= id == "title";
    closing |= id == "closing-line";
    if (id == "json-envelope") {
      steps_key = StrParam(r, "steps_key");
      answer_key = StrParam(r, "answer_key");
    }
  }
  if (!steps_key.empty()) {
    if (const nlohmann::json j = EnvelopeObject(response); !j.is_discarded()) {
      const auto s = j.find(steps_key);
      const auto a = j.find(answer_key);
      if (s != j.end() && s->is_array() && a != j.end() && a->is_string()) {
        m.envelope_read = true;
        for (const auto& e : *s) m.lines.push_back(e.is_string() ? e.get<std::string>() : e.dump());
        m.lines.push_back(a->get<std::string>());
      }
    }
  }
  if (!m.envelope_read) m.lines = LinesOf(response);
  const std::vector<int> content = NonBlankLines(m.lines);
  size_t first = 0, last = content.size();
  if (title && first < last) m.title_line = content[first++];
  if (closing && first < last) m.closing_line = content[--last];
  if (first < last) m.answer_line = content[--last];
  const MathLabels labels = LabelsOfRules(rules);
  for (size_t i = first; i < last; ++i) {
    m.step_lines.push_back(content[i]);
    m.step_texts.emplace_back(StripLabel(m.lines[static_cast<size_t>(content[i])], labels));
  }
  return m;
}

RuleCheck CheckMathAnswer(const MathParsed& m, RuleSet) {
  if (m.answer_line < 0) return RuleFail("answer", "no final answer line");
  const std::string_view v = Unbold(SplitAnswerLine(m.lines[static_cast<size_t>(m.answer_line)]).value);
  const auto gold = ParseDecimal(m.gold);
  const auto got = ValueOf(v);
  if (!got) return RuleFail("answer", fmt::format("the final answer {} is not a number", QuoteText(v)));
  if (gold && got->num == gold->num && got->den == gold->den) {
    return RulePass("answer", fmt::format("{} == gold {}", QuoteText(v), m.gold));
  }
  return RuleFail("answer", fmt::format("the final answer {} is not the gold answer {}", QuoteText(v), m.gold));
}

RuleCheck CheckMathWork(const MathParsed& m) {
  if (m.step_texts.empty()) return RuleFail("work", "no steps");
  std::string reasoning;
  bool digit = false;
  for (size_t i = 0; i < m.step_texts.size(); ++i) {
    const std::string& s = m.step_texts[i];
    if (CountBlankSeparatedWords(s) == 0) return RuleFail("work", fmt::format("step {} is empty", i + 1));
    for (size_t j = 0; j < i; ++j) {
      if (m.step_texts[j] == s) return RuleFail("work", fmt::format("step {} repeats step {}", i + 1, j + 1));
    }
    digit |= std::any_of(s.begin(), s.end(), IsDigit);
    reasoning += s;
    reasoning += '\n';
  }
  if (!digit) return RuleFail("work", "no number in the steps: nothing is computed");
  std::string gold;
  if (const auto g = ParseDecimal(m.gold); g && g->den == 1) gold = std::to_string(g->num);
  const math_internal::WorkProblem problem = math_internal::CheckWork(reasoning, m.question, gold);
  if (problem.rule != math_internal::WorkProblem::Rule::kNone) {
    return RuleFail("work", fmt::format("{}: {}",
                                    problem.rule == math_internal::WorkProblem::Rule::kArithmetic
                                        ? "arithmetic"
                                        : "grounded",
                                    problem.detail));
  }
  return RulePass("work");
}

std::string MathBasePrompt(const MathDraft& d, bool answer_phrase_ruled) {
  return fmt::format(
      "Solve the following math word problem.\n\n{}\n\nWrite the solution as steps, one step "
      "per line, then the final answer on a line of its own{}. Unless a rule below says "
      "otherwise, write the answer as a bare number (no units).",
      TrimBlanks(d.question), answer_phrase_ruled ? "" : ", written `Answer: N`");
}

}  // namespace structtest::composed
