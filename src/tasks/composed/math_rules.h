// The math rules of the composed suite: a GSM8K-style word problem solved in steps, one
// line each, then a final answer line, with K format rules drawn from MathRules(). The
// answer as parts (MathDraft) is what the rules change and Render writes; a response
// read back into the same parts (MathParsed, by ParseMath given the sample's rules) is
// what the rules check. Besides the drawn rules every verdict has `answer` (the final
// answer's value is the gold one) and, under strict, `work` (the steps compute it:
// numbers, no step repeated, and the arithmetic and grounding of strict's math rules).
#ifndef STRUCTTEST_TASKS_COMPOSED_MATH_RULES_H_
#define STRUCTTEST_TASKS_COMPOSED_MATH_RULES_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/sample.h"
#include "tasks/composed/rule.h"

namespace structtest::composed {

// How the steps are labelled: not at all, or "Step 1:", "1.", "(1)", "[1]" (the paper's
// step styles), Roman numerals "I.", or letters "(a)".
enum class MathLabels { kNone, kStepColon, kDot, kParen, kBracket, kRoman, kLetter };

struct MathDraft {
  std::string question;
  std::string gold;                // the gold answer as the problem gives it ("18")
  std::string title;               // "" none
  std::string title_marker = "## ";  // written before the title
  std::vector<std::string> steps;  // the content of each step, one line, no label
  MathLabels labels = MathLabels::kNone;
  int skip_label = -1;             // a step whose number is skipped (a violation)
  std::string opening;             // the word every step opens with; "" none
  bool opening_skip_first = false;
  bool full_stops = false;         // every step ends with '.'
  bool full_stop_missing = false;  // ... except the first (a violation)
  size_t pad_first_step = 0;       // filler words added to the first step (a violation)
  enum class Value { kDigits, kWords, kFraction } value = Value::kDigits;
  int fraction_scale = 1;          // numerator and denominator times this
  int answer_style = -1;           // index into the answer phrases; -1: "Answer: N"
  bool bold = false;
  std::string answer_override;     // written instead of the answer's value (cheats)
  std::string closing;             // the last line; "" none
  bool blank_lines = false;        // a blank line between steps
  bool blank_line_missing = false;  // ... except between the first two (a violation)
  std::string envelope_steps_key;  // the JSON object's keys; "" no envelope
  std::string envelope_answer_key;
  bool envelope_preamble = false;  // a line of text before the object (a violation)
};

// A response read into parts, given the rules its sample holds.
struct MathParsed {
  // The text the parts were read from: the response, or the envelope's contents.
  bool envelope_read = false;
  std::string envelope_problem;     // why the envelope is not one ("" when it is)
  std::vector<std::string> lines;   // every line, blank ones too
  int title_line = -1;              // index into lines, -1: none
  int answer_line = -1;
  int closing_line = -1;
  std::vector<int> step_lines;      // the other non-blank lines
  std::vector<std::string> step_texts;  // each step without its label
  std::string question;
  std::string gold;
  std::string response;             // as given, for the envelope check
};

using MathRule = RuleDef<MathDraft, MathParsed>;

// The library, in the order rules are applied: the rules of math_rules.cc, then those
// of files of their own (listed in MathRules()).
std::span<const MathRule> MathRules();

// Rules in files of their own.
const MathRule& StepCapitalsRule();  // math_rule_step_capitals.cc (docs/composed.md)
const MathRule* FindMathRule(std::string_view id);

// The answer the draft describes.
std::string RenderMath(const MathDraft& draft);

// Reads `response` into parts; `rules` are the sample's rules (params.rules: an array of
// objects, each with its "id" and parameters).
MathParsed ParseMath(std::string_view response, const nlohmann::json& rules,
                     std::string question, std::string gold);

// The checks every math verdict has besides the rules: `answer`, and under strict `work`.
RuleCheck CheckMathAnswer(const MathParsed& parsed, RuleSet rules);
RuleCheck CheckMathWork(const MathParsed& parsed);

// The base prompt's instructions (before the rules').
std::string MathBasePrompt(const MathDraft& draft, bool answer_phrase_ruled);

// English words for 0 <= n < 10^9 ("one hundred twenty-three"), and back: nullopt-like
// -1 when `text` is not a number in words.
std::string NumberInWords(long long n);
long long NumberFromWords(std::string_view text);
std::string RomanNumeral(int n);

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_MATH_RULES_H_
