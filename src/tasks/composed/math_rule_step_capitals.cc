// The worked example of docs/composed.md, "Adding a rule": a math rule in one file.
// Every step's text (after its label) must begin with a capital letter. It is listed in
// the library's table (math_rules.cc) and has golden cases in testdata/math_golden.jsonl.
#include <string>

#include <fmt/format.h>

#include "tasks/composed/math_rules.h"

namespace structtest::composed {

namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

// Drawn only when every step starts with a letter: a step starting "3 * 4" cannot be
// given a capital.
bool EveryStepStartsWithALetter(const MathDraft& draft) {
  for (const std::string& step : draft.steps) {
    if (step.empty() || !(IsLower(step[0]) || IsUpper(step[0]))) return false;
  }
  return true;
}

std::string Instruction(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Begin the text of every step with a capital letter.";
  return "Each step's text, after its label if it has one, must start with an upper-case letter.";
}

void Apply(const nlohmann::json&, MathDraft* draft) {
  for (std::string& step : draft->steps) {
    if (IsLower(step[0])) step[0] = static_cast<char>(step[0] - 'a' + 'A');
  }
}

void Violate(const nlohmann::json&, MathDraft* draft) {
  std::string& first = draft->steps[0];
  if (IsUpper(first[0])) first[0] = static_cast<char>(first[0] - 'A' + 'a');
}

RuleCheck Check(const nlohmann::json&, const MathParsed& parsed, RuleSet) {
  for (size_t i = 0; i < parsed.step_texts.size(); ++i) {
    const std::string& text = parsed.step_texts[i];
    if (text.empty() || !IsUpper(text[0])) {
      return {"step-capitals", RuleCheck::Result::kFail,
              fmt::format("step {} does not begin with a capital letter", i + 1)};
    }
  }
  if (parsed.step_texts.empty()) return {"step-capitals", RuleCheck::Result::kFail, "no steps"};
  return {"step-capitals", RuleCheck::Result::kPass, ""};
}

// Its opening word would come before the step's own first letter.
constexpr std::string_view kConflicts[] = {"step-opening"};

}  // namespace

const MathRule& StepCapitalsRule() {
  static constexpr MathRule kRule = {
      "step-capitals", "every step's text begins with a capital letter", RuleOrigin::kNew,
      kConflicts, &EveryStepStartsWithALetter, /*draw=*/nullptr, /*phrasings=*/2,
      &Instruction, &Apply, &Violate, &Check};
  return kRule;
}

}  // namespace structtest::composed
