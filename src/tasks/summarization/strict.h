// The strict rule set of the summarization family (docs/strict.md): one
// checker per subtask that judges what the prompt asked the way a careful grader
// would (items, not symbols; items that say something, none repeating another; a
// summary about its document), and the two built-in cheating answers the checkers are
// tested against. Internal to the family: family.cc puts these in its subtask table.
#ifndef STRUCTTEST_TASKS_SUMMARIZATION_STRICT_H_
#define STRUCTTEST_TASKS_SUMMARIZATION_STRICT_H_

#include <span>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest::summarization_internal {

// The strict checkers' rules version: changes whenever a strict verdict may change.
inline constexpr std::string_view kStrictRulesVersion = "strict-3";

// The instruction of the generated `length` prompt that asks for prose. The strict
// `prose` rule applies when the sample's prompt carries it (records without a prompt,
// such as the conformance corpus, were asked under the paper's wording, which did not).
inline constexpr std::string_view kProseInstruction = "written as plain prose (no list)";
// The same for the `symbol-elsewhere` rule: the generated bullet prompts say "Use that
// symbol nowhere else"; the paper's wording did not, and there bold text ("**key**")
// is harmless emphasis.
inline constexpr std::string_view kSymbolOnlyInstruction = "Use that symbol nowhere else";

StatusOr<Verdict> StrictLength(const Sample& sample, const SampleParams& params,
                               std::string_view response, const CheckEnv& env);
StatusOr<Verdict> StrictBulletPoints(const Sample& sample, const SampleParams& params,
                                     std::string_view response, const CheckEnv& env);
StatusOr<Verdict> StrictNumberedPoints(const Sample& sample, const SampleParams& params,
                                       std::string_view response, const CheckEnv& env);
StatusOr<Verdict> StrictQuestions(const Sample& sample, const SampleParams& params,
                                  std::string_view response, const CheckEnv& env);
StatusOr<Verdict> StrictBulletPointsLength(const Sample& sample, const SampleParams& params,
                                           std::string_view response, const CheckEnv& env);
StatusOr<Verdict> StrictNumberedPointsLength(const Sample& sample, const SampleParams& params,
                                             std::string_view response, const CheckEnv& env);
StatusOr<Verdict> StrictIndentedBulletPoints(const Sample& sample, const SampleParams& params,
                                             std::string_view response, const CheckEnv& env);

// The strict content judgement of points (one per entry) against `document`, the one the
// strict checkers give each item: every point says something (at least `min_words`
// words, one of them a content word), none repeats another exactly or nearly, together
// they are about the document, and they read as English (`language`). "" when they
// pass, else the first problem ("language: ..."). The composed suite's `content` check
// (src/tasks/composed) judges its points with it.
std::string PointsContentProblem(std::span<const std::string> points,
                                 std::string_view document, size_t min_words);

// `builtin/skeleton`: the target answer line by line with its markers (symbols,
// numbers, bracketed questions, indentation) kept and every sentence replaced by a
// distinct filler sentence that is not about the document. Errors: no target.answer.
StatusOr<std::string> SkeletonAnswer(const Sample& sample);

// `builtin/loophole`: per subtask the cheapest answer the paper checker passes (the
// symbol N times on one line, "1.\n2.\n...", the five questions with no answers, "Yes."
// as every sentence, ...). Errors: params missing or out of range.
StatusOr<std::string> LoopholeAnswer(const Sample& sample);

}  // namespace structtest::summarization_internal

#endif  // STRUCTTEST_TASKS_SUMMARIZATION_STRICT_H_
