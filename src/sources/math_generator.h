// The built-in math source: GSM8K-style grade-school word problems (shopping, rates,
// sharing, percentages, ages, unit conversions, wages, savings, ...), drawn from
// templates with names, items and numbers from the seed. Every problem takes 2-8
// arithmetic operations on whole numbers, all intermediate results are non-negative
// integers and every division is exact; the answer is computed, never guessed, and
// each step states its computation as "A op B = C" so tests can recompute it. Needs
// no files. A pure function of (seed, index), byte-identical on every machine.
#ifndef STRUCTTEST_SOURCES_MATH_GENERATOR_H_
#define STRUCTTEST_SOURCES_MATH_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sources/math_problem.h"
#include "sources/split.h"

namespace structtest {

// Problem `index` of the stream for `seed`; id "math-" followed by the index with at
// least four digits. Steps: 3..7, each starting with a letter; answer: a plain
// non-negative integer; solution: the steps, then "#### ANSWER". Thread-safe.
// In the train split (sources/split.h): its own stream, names and "train-math-" ids.
MathProblem GenerateMathProblem(uint64_t seed, size_t index,
                                SourceSplit split = SourceSplit::kEval);

// Problems 0..count-1 of the stream for `seed` (the first k do not depend on count).
std::vector<MathProblem> GenerateMathProblems(uint64_t seed, size_t count);

// Number of problem templates. For tests and reports.
size_t MathTemplateCount();

// Problem `index` of `seed` drawn from template `template_index` only (for tests that
// cover every template). REQUIRES: template_index < MathTemplateCount().
MathProblem GenerateMathProblemFromTemplate(uint64_t seed, size_t index, size_t template_index,
                                            SourceSplit split = SourceSplit::kEval);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_MATH_GENERATOR_H_
