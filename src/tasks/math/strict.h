// The strict rule set of the math family (docs/strict.md) and its built-in
// cheating answers. Strict judges what the prompt asked: math_easy, reasoning and then
// one final answer, a bare number, in the asked style, at the end; math_hard, 3 to 10
// steps in the asked style, each saying something of its own, then that one final
// answer. Numerically equal answers pass (`18.00`, `1,290`), and so do Windows line
// endings, markdown emphasis around the answer and a lead-in on the answer line.
// Internal to the family: the registry reaches these through MathFamily().
#ifndef STRUCTTEST_TASKS_MATH_STRICT_H_
#define STRUCTTEST_TASKS_MATH_STRICT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest::math_internal {

// The strict rules version of the family; changes with any rule or constant below.
inline constexpr std::string_view kStrictRulesVersion = "strict-3";

// math_easy asks to "show your reasoning" before the answer line. Fewer words than
// this before the final answer show none: a computation with its operands, result
// and a word of what they are ("9 eggs * 2 dollars = 18") has five; the real answers
// in the conformance corpus that both rule sets pass have at least 21.
inline constexpr size_t kMinReasoningWords = 5;

// A math_hard step must say something: "9 * 2 = 18" has three words (numbers count);
// an empty header, "Step", "Compute" or "..." has fewer. An equation with a number
// ("3y = 18", "P = 70.") counts as content whatever its words. A step with no number
// needs this many words that are not the names of a formula: "a + b = c" has none.
inline constexpr size_t kMinStepWords = 3;

// Reasoning or steps that compute nothing new (no arithmetic, no number the question
// does not have, no operation it does not name) and of whose words at least this share
// are the question's restate the question (`computation`). The question copied
// sentence by sentence scores 1.0.
inline constexpr double kRestatedShare = 0.8;

// An occurrence of "###", "####" or "The final answer is" is read as an answer (and
// counted against the one final answer) only when a number follows it and the rest
// of its line has at most this many words: "#### 70", "### 18 eggs". A markdown
// header ("### 1. Calculate the total") or a sentence ("the final answer is the sum
// of ...") is not an answer.
inline constexpr size_t kMaxAnswerWords = 3;

// How far past such an occurrence we look for that number and count those words, so
// that a line of a million hashes costs linear time.
inline constexpr size_t kAnswerScanBytes = 64;

// Model text quoted in a reason is cut to this many code points.
inline constexpr size_t kQuoteCodePoints = 40;

StatusOr<Verdict> CheckMathStrict(const Sample& sample, const SampleParams& params,
                                  std::string_view response, const CheckEnv& env);

// builtin/skeleton: the target's structure (reasoning lines or steps, answer line)
// with every line or step replaced by the same filler and the answer by `N`.
StatusOr<std::string> MathSkeleton(const Sample& sample);

// builtin/loophole: answers that pass the paper rules without doing the task, from
// context.gold_answer (a model that guessed right and wrote nothing else). math_easy:
// the bare answer line, or a wrong answer line followed by the right one; math_hard:
// empty steps, or the same step repeated, then the answer line. The variant is a
// hash of the sample id.
StatusOr<std::string> MathLoophole(const Sample& sample);

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_STRICT_H_
