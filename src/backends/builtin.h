// The built-in responders: answers made in process, without a model. `oracle` returns
// the reference answer a generator stored in the sample's target (the proof that every
// generated sample is satisfiable); `null` answers nothing; `echo` repeats the prompt.
// They are the floor and ceiling every rule set is tested against.
#ifndef STRUCTTEST_BACKENDS_BUILTIN_H_
#define STRUCTTEST_BACKENDS_BUILTIN_H_

#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// The responder names, in the order `structtest` lists them.
std::vector<std::string_view> BuiltinResponderNames();

// The answer of responder `name` to `sample`. Errors: unknown name (with a
// suggestion), or `oracle` on a sample without target.answer.
StatusOr<std::string> BuiltinRespond(std::string_view name, const Sample& sample);

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_BUILTIN_H_
