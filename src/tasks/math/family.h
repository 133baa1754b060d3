// The math family: GSM8K word problems whose answer must come in a given format.
// math_easy asks for one of seven answer phrases (Suffix1..7PhrasesMathFormat);
// math_hard for numbered steps in one of five styles followed by one of four answer
// phrases (BulletPoints1..20MathFormat). The paper scores format and answer accuracy
// separately; a sample passes when both hold.
#ifndef STRUCTTEST_TASKS_MATH_FAMILY_H_
#define STRUCTTEST_TASKS_MATH_FAMILY_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "tasks/task.h"

namespace structtest {

const TaskFamily& MathFamily();

// The steps of `text` (an answer or a target) as the paper's math_hard checker counts
// them, in the step style of `format_name` (a math_hard "BulletPoints<N>MathFormat").
// nullopt when the name is not a math_hard format or the steps cannot be read (the
// checker's format failure). The HTML report plots errors against the target's count.
std::optional<int64_t> MathHardStepCount(std::string_view format_name, std::string_view text);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_MATH_FAMILY_H_
