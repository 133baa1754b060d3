// The one table of task families, and lookups over it. `structtest tasks`, the score
// command and the docs all read this table; nothing registers itself at start-up.
#ifndef STRUCTTEST_TASKS_REGISTRY_H_
#define STRUCTTEST_TASKS_REGISTRY_H_

#include <span>
#include <string>
#include <string_view>

#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {

struct SubtaskRef {
  const TaskFamily* family;
  const SubtaskSpec* spec;
};

// Every family, in the paper's order (summarization, code, html, math).
std::span<const TaskFamily* const> Families();

// Finds a subtask by its domain and name. Unknown names are NotFound with a "did you
// mean" suggestion when one is close; a known subtask filed under another domain is
// InvalidArgument naming the right one.
StatusOr<SubtaskRef> FindSubtask(std::string_view domain, std::string_view subtask);

// Finds a family by domain name, with a suggestion on a typo.
StatusOr<const TaskFamily*> FindFamily(std::string_view domain);

std::string_view SplitName(Split split);

// " (did you mean 'x'?)" for the subtask or domain name closest to `name`, or "" when
// none is close.
std::string DidYouMean(std::string_view name);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_REGISTRY_H_
