// The built-in responders: answers made in process, without a model. `oracle` returns
// the reference answer a generator stored in the sample's target (the proof that every
// generated sample is satisfiable); `null` answers nothing; `echo` repeats the prompt;
// `skeleton` keeps the target's structure with its content replaced by filler;
// `loophole` gives, per subtask, the cheapest answer that passes the paper rules
// without doing the task. They are the floor and ceiling every rule set is tested
// against: the strict rules must pass the oracle and (nearly) none of the others.
// `noisy-P` (0 <= P <= 1, e.g. noisy-0.1) answers composed samples only: the reference
// answer with each of the sample's format rules broken with probability P, seeded by
// the sample; its accuracy at K rules per sample is (1 - P)^K. It is not among the
// names below (which every suite is run against) since it answers no paper subtask.
#ifndef STRUCTTEST_TASKS_RESPONDERS_H_
#define STRUCTTEST_TASKS_RESPONDERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// The responder names, in the order `structtest` lists them.
std::vector<std::string_view> BuiltinResponderNames();

// Whether `name` is a built-in responder: one of BuiltinResponderNames() or noisy-P.
bool IsBuiltinResponder(std::string_view name);

// The answer of responder `name` to `sample`. Errors: unknown name (with a
// suggestion), unknown subtask, or a sample without what the responder needs
// (`oracle` and `skeleton` need target.answer).
StatusOr<std::string> BuiltinRespond(std::string_view name, const Sample& sample);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_RESPONDERS_H_
