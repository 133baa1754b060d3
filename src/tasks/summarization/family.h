// The summarization family: summaries of a document under length, bullet, numbering,
// question and nesting constraints (StructTest's seven summarization subtasks).
#ifndef STRUCTTEST_TASKS_SUMMARIZATION_FAMILY_H_
#define STRUCTTEST_TASKS_SUMMARIZATION_FAMILY_H_

#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

const TaskFamily& SummarizationFamily();

// The paper's answer extraction for summaries: the span between the first start tag
// and the last end tag (else the whole response), leftover tags replaced by a space,
// runs of spaces collapsed, stripped, runs of newlines collapsed and empty lines
// dropped. Exposed for tests and for the strict rule set.
std::string ExtractSummary(std::string_view response, std::string_view start_tag,
                           std::string_view end_tag);

// The five questions of the `questions` subtask, in order.
inline constexpr std::string_view kSummaryQuestions[] = {
    "What is the main point?", "Why is it happening?", "Who is involved?",
    "When is the action happening?", "Where is the action happening?"};

namespace summarization_internal {

// The answer tags of a sample: context.start_tag / context.end_tag, each defaulting to
// the paper's <summary> pair. Errors: a tag that is not a string, or empty.
struct SummaryTags {
  std::string_view start = "<summary>";
  std::string_view end = "</summary>";
};
StatusOr<SummaryTags> GetSummaryTags(const Sample& sample);

// The family's TaskFamily::parse_params.
void ParseSummarizationParams(const nlohmann::json& params, RuleSet rules, SampleParams* out);

}  // namespace summarization_internal

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_SUMMARIZATION_FAMILY_H_
