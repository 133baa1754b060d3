// The composed suite's HTML domain (issue 52): html_composed_k1..k8, a page presenting
// listed facts under K format rules drawn from the HTML rule library (html_rules.h).
// composed.cc lists the family with the other domains'; this file holds its generator,
// checkers, cheaters and the rebuilt reference the noisy responder breaks rules of.
#ifndef STRUCTTEST_TASKS_COMPOSED_COMPOSED_HTML_H_
#define STRUCTTEST_TASKS_COMPOSED_COMPOSED_HTML_H_

#include <functional>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

// The family "html" of the composed suite (rules versions paper-c1, strict-c1).
const TaskFamily& ComposedHtmlFamily();

// The reference answer of a composed HTML sample with the rules for which `broken`
// (given a rule id) says true broken, each by its own violation. Errors: a sample
// without the rules, facts or target the answer is rebuilt from.
StatusOr<std::string> HtmlAnswerWithBroken(const Sample& sample,
                                           const std::function<bool(std::string_view)>& broken);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_COMPOSED_COMPOSED_HTML_H_
