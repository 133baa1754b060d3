// The answer formats of the math family, shared by its paper and strict checkers and
// its built-in cheaters: the seven easy answer phrases, the four hard ones, the five
// step styles, and the format names of the recorded runs
// (Suffix1..7PhrasesMathFormat, BulletPoints1..20MathFormat).
#ifndef STRUCTTEST_TASKS_MATH_FORMATS_H_
#define STRUCTTEST_TASKS_MATH_FORMATS_H_

#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>

#include "structtest/sample.h"
#include "tasks/params.h"

namespace structtest::math_internal {

enum class AnswerKind {
  kText,    // after the phrase, stripped, one trailing '.' dropped
  kBoxed,   // after the phrase, stripped, up to the first '}'
  kDollar,  // Result: $...$ (see ExtractAnswer)
  kTagged,  // <result>...</result>
};

struct AnswerPhrase {
  std::string_view text;
  AnswerKind kind;
};

inline constexpr AnswerPhrase kEasyPhrases[] = {
    {"The answer is:", AnswerKind::kText},      {"###", AnswerKind::kText},
    {"The final answer is", AnswerKind::kText}, {"Result:", AnswerKind::kText},
    {"\\boxed{", AnswerKind::kBoxed},           {"Result: $", AnswerKind::kDollar},
    {"<result>", AnswerKind::kTagged},
};

inline constexpr AnswerPhrase kHardPhrases[] = {
    {"The answer is:", AnswerKind::kText},
    {"####", AnswerKind::kText},
    {"Final result:", AnswerKind::kText},
    {"\\boxed{", AnswerKind::kBoxed},
};

// math_hard formats 1-4 use style A, 5-8 B, and so on.
enum class StepStyle { kHashHeaders, kNumberedLines, kBoldSteps, kJsonList, kJsonObject };

inline constexpr std::string_view kStyleNames[] = {"'### N'", "'N. '", "'**Step N**'",
                                            "```json list", "```json object"};
// What a step's chunk must start with, around its number (styles A-C).
inline constexpr std::pair<std::string_view, std::string_view> kStepPrefixes[] = {
    {"### ", ""}, {"", ". "}, {"**Step ", "**"}};

inline constexpr int64_t kMinSteps = 3;
inline constexpr int64_t kMaxSteps = 10;

struct MathFormat {
  bool hard;
  AnswerPhrase phrase;
  StepStyle style;  // hard only
};

constexpr MathFormat EasyFormat(int n) {
  return {false, kEasyPhrases[n - 1], StepStyle::kHashHeaders};
}
constexpr MathFormat HardFormat(int n) {
  return {true, kHardPhrases[(n - 1) % 4], static_cast<StepStyle>((n - 1) / 4)};
}

inline constexpr MathFormat kEasyFormats[] = {EasyFormat(1), EasyFormat(2), EasyFormat(3),
                                       EasyFormat(4), EasyFormat(5), EasyFormat(6),
                                       EasyFormat(7)};
inline constexpr MathFormat kHardFormats[] = {
    HardFormat(1),  HardFormat(2),  HardFormat(3),  HardFormat(4),  HardFormat(5),
    HardFormat(6),  HardFormat(7),  HardFormat(8),  HardFormat(9),  HardFormat(10),
    HardFormat(11), HardFormat(12), HardFormat(13), HardFormat(14), HardFormat(15),
    HardFormat(16), HardFormat(17), HardFormat(18), HardFormat(19), HardFormat(20)};

// "Suffix<1..7>PhrasesMathFormat" or "BulletPoints<1..20>MathFormat"; null if neither.
inline const MathFormat* ParseFormatName(std::string_view name) {
  constexpr std::string_view kEasyPrefix = "Suffix", kEasySuffix = "PhrasesMathFormat";
  constexpr std::string_view kHardPrefix = "BulletPoints", kHardSuffix = "MathFormat";
  std::string_view digits;
  bool hard;
  if (name.starts_with(kEasyPrefix) && name.ends_with(kEasySuffix) &&
      name.size() > kEasyPrefix.size() + kEasySuffix.size()) {
    hard = false;
    digits = name.substr(kEasyPrefix.size(),
                         name.size() - kEasyPrefix.size() - kEasySuffix.size());
  } else if (name.starts_with(kHardPrefix) && name.ends_with(kHardSuffix) &&
             name.size() > kHardPrefix.size() + kHardSuffix.size()) {
    hard = true;
    digits = name.substr(kHardPrefix.size(),
                         name.size() - kHardPrefix.size() - kHardSuffix.size());
  } else {
    return nullptr;
  }
  if (digits.size() > 2 || digits[0] < '1' || digits[0] > '9') return nullptr;
  int n = digits[0] - '0';
  if (digits.size() == 2) {
    if (digits[1] < '0' || digits[1] > '9') return nullptr;
    n = n * 10 + (digits[1] - '0');
  }
  if (hard) return n <= 20 ? &kHardFormats[n - 1] : nullptr;
  return n <= 7 ? &kEasyFormats[n - 1] : nullptr;
}

// The family's TaskFamily::parse_params: math_format_name and the format it names.
void ParseMathParams(const nlohmann::json& params, RuleSet rules, SampleParams* out);

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_FORMATS_H_
