// Grade-school math word problems for the math_easy / math_hard subtasks, from the
// built-in generator (math_generator.h) or a GSM8K file (gsm8k_loader.h), in one shape:
// the question, a worked solution in GSM8K's format, the gold answer the checkers
// compare against, and the solution as 3..10 one-line steps for the oracle.
#ifndef STRUCTTEST_SOURCES_MATH_PROBLEM_H_
#define STRUCTTEST_SOURCES_MATH_PROBLEM_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace structtest {

inline constexpr size_t kMinMathSteps = 3;
inline constexpr size_t kMaxMathSteps = 10;

struct MathProblem {
  std::string id;
  std::string question;
  // GSM8K-style: the reasoning lines, then "#### ANSWER" on the last line. For loaded
  // problems, the file's answer text unchanged.
  std::string solution;
  // The gold answer: the text after the last "####" of the solution, stripped, exactly
  // as GSM8K writes it ("18", "-3", and in a few real problems "2,125"). Generated
  // problems always give a plain non-negative integer ("18").
  std::string answer;
  // kMinMathSteps..kMaxMathSteps steps, each one line (no '\n'), non-empty, stripped,
  // without GSM8K's <<...>> calculator annotations.
  std::vector<std::string> steps;
};

// Brings solution lines to kMinMathSteps..kMaxMathSteps steps: too many, and the
// shortest adjacent pair is joined (with a space) until they fit; too few, and a step
// holding two sentences is split at ". " before an upper-case letter, then a closing
// step restating the answer is added ("Therefore the value asked for is 18."). The
// added wording avoids every answer phrase the math checkers look for.
std::vector<std::string> FitSteps(std::vector<std::string> steps, std::string_view answer);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_MATH_PROBLEM_H_
