// The HTML family: the model writes an HTML skeleton with a given number of tags at
// each level (StructTest's nested HTML encoding, easy and hard). The paper rule set
// tokenizes the answer like Python's html.parser and checks, for every tag name that
// occurs, that it is balanced and matched as often as ground_truth says; the strict
// rule set (strict.h) checks the element tree parent by parent.
#ifndef STRUCTTEST_TASKS_HTML_FAMILY_H_
#define STRUCTTEST_TASKS_HTML_FAMILY_H_

#include <optional>
#include <string>
#include <string_view>

#include "tasks/task.h"

namespace structtest {

const TaskFamily& HtmlFamily();

// The paper's answer extraction: with both `<think>` and `</think>` present, the
// text from len(start_tag) code points after the first `<think>` up to the first
// `</think>` is deleted everywhere it occurs (the reference's off-by-one keeps the
// `>` of `<think>`); then the text strictly between the first start_tag and the first
// end_tag, stripped, runs of newlines collapsed, blank lines dropped. nullopt when
// either tag is missing. Exposed for tests and for the strict rule set.
std::optional<std::string> ExtractHtmlAnswer(std::string_view response,
                                             std::string_view start_tag = "<html>",
                                             std::string_view end_tag = "</html>");

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_HTML_FAMILY_H_
