// Math problems from a GSM8K-format JSON Lines file: one object per line with string
// fields "question" and "answer", the answer being the worked solution ending in
// "#### FINAL". MathProblem::answer is the text after the last "####", stripped and
// otherwise unchanged (the paper's gold); steps are the solution lines before it,
// stripped, empty ones dropped, <<...>> calculator annotations removed, then brought
// to 3..10 steps with FitSteps. Ids are the 0-based record index ("0", "1", ...), the
// way the reference and the conformance corpus number GSM8K problems.
// Errors name the file, the line and the field:
//   "gsm8k.jsonl:3: field 'answer' missing"
//   "gsm8k.jsonl:9: field 'answer' has no '####' final answer"
#ifndef STRUCTTEST_SOURCES_GSM8K_LOADER_H_
#define STRUCTTEST_SOURCES_GSM8K_LOADER_H_

#include <string>
#include <string_view>
#include <vector>

#include "sources/math_problem.h"
#include "structtest/status.h"

namespace structtest {

StatusOr<std::vector<MathProblem>> LoadGsm8k(const std::string& path);

// Removes every "<<...>>" span (GSM8K's calculator annotations); an unclosed "<<" is
// kept as text.
std::string StripCalculatorAnnotations(std::string_view line);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_GSM8K_LOADER_H_
