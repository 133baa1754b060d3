// The math family: GSM8K word problems whose answer must come in a given format.
// math_easy asks for one of seven answer phrases (Suffix1..7PhrasesMathFormat);
// math_hard for numbered steps in one of five styles followed by one of four answer
// phrases (BulletPoints1..20MathFormat). The paper scores format and answer accuracy
// separately; a sample passes when both hold.
#ifndef STRUCTTEST_TASKS_MATH_FAMILY_H_
#define STRUCTTEST_TASKS_MATH_FAMILY_H_

#include "tasks/task.h"

namespace structtest {

const TaskFamily& MathFamily();

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_MATH_FAMILY_H_
