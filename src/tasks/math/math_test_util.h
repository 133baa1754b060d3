// Test helpers shared by the math checkers' tests: a sample of a format, and the
// formats' names by number.
#ifndef STRUCTTEST_TASKS_MATH_MATH_TEST_UTIL_H_
#define STRUCTTEST_TASKS_MATH_MATH_TEST_UTIL_H_

#include <string>
#include <string_view>

#include "structtest/sample.h"

namespace structtest {

// A math sample of `format` ("Suffix1PhrasesMathFormat" is math_easy, the rest
// math_hard) whose gold answer is `gold`.
inline Sample MathSample(std::string_view format, std::string_view gold = "18") {
  Sample s;
  s.id = "t";
  s.domain = "math";
  s.subtask = format.starts_with("Suffix") ? "math_easy" : "math_hard";
  s.params = {{"math_format_name", format}};
  s.context = {{"gsm8k_index", 0}, {"question", "q"}, {"gold_answer", gold}};
  return s;
}

// The easy answer style n (1-7) and the hard format n (1-20).
inline std::string Easy(int n) { return "Suffix" + std::to_string(n) + "PhrasesMathFormat"; }
inline std::string Hard(int n) { return "BulletPoints" + std::to_string(n) + "MathFormat"; }

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_MATH_MATH_TEST_UTIL_H_
