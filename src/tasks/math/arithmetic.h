// The work of a math answer, read and checked (strict-3's `arithmetic` and `grounded`,
// docs/strict.md). Every arithmetic statement the reasoning makes ("16 - 3 - 4 = 9",
// "25% of 80 is 20", "$10 * 40" on one line and "= $400" on the next, "\frac{1}{2}
// \times 30 = 15", "half of 80 is 40") is evaluated in exact fractions; one that does
// not hold, allowing for rounding to the decimals the result is written with and for a
// unit conversion across the '=', fails `arithmetic`. The numbers a statement computes
// with must be ones the reasoning has a right to: the problem's (digits, number words,
// fractions and percentages, and a percentage's 1 +/- p), a short list of constants
// (units of time, percent, dozens, ...), the results of earlier statements and values
// the reasoning stated ("x = 40"), or a number stated earlier that is one operation
// away from those (a result worked out in the head); else `grounded` fails. And the
// final answer must be one of the reasoning's results: computed, or stated as the value
// of a computation or an equation.
//
// Only what can be read is judged: a statement with a letter in it ("2x + 3 = 11"), a
// range ("3-4 hours"), a ratio, or anything else that does not parse as arithmetic is
// skipped, and a reasoning with no readable statement at all is left to the rules that
// existed before (`computation`). Work is linear in the text, with caps on the
// statements judged and on the values kept (kMaxStatements, kMaxKnown).
#ifndef STRUCTTEST_TASKS_MATH_ARITHMETIC_H_
#define STRUCTTEST_TASKS_MATH_ARITHMETIC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace structtest::math_internal {

// The longest reasoning whose work is read (10 times the longest real answer of the dev
// corpus, 3,256 bytes); a longer one fails `grounded`, as work that cannot be checked.
inline constexpr size_t kMaxWorkBytes = 32 * 1024;
// The part of a line that is read (4 times the longest line of a real answer, 453).
inline constexpr size_t kMaxLineBytes = 2048;
// Statements judged per response; past it the rest is not read.
inline constexpr size_t kMaxStatements = 400;
// Words that may stand between a number and the operator after it as what the number
// counts ("450 calories from eggs + 240 calories from cheese"): more end the statement.
inline constexpr size_t kMaxDescriptionWords = 4;
// Words that may stand between the parts of an operation said in words ("divide the 180
// minutes by 30", "subtract the crates sold (65) from his target of 120").
inline constexpr size_t kMaxVerbalGap = 8;
// Tries per answer of whether a number stated in prose was worked out in the head from
// known values (each try is up to 120 x 120 operations); past it none is.
inline constexpr size_t kMaxMentalChecks = 200;
// Values kept as known (problem numbers, constants, results); past it no more are added.
inline constexpr size_t kMaxKnown = 600;

struct WorkProblem {
  enum class Rule { kNone, kArithmetic, kGrounded };
  Rule rule = Rule::kNone;
  std::string statement;  // the statement's text (the line it is on), for a quote
  std::string detail;     // what is wrong, without the quote: "16 - 3 is 13, not 12"
};

// Checks the arithmetic of `reasoning` (the text before the final answer, or the steps)
// against `question`. `final_answer` is the final answer, normalized as a bare number
// ("18", "-2.5"), or "" when it is not one (then the final answer is not looked for).
WorkProblem CheckWork(std::string_view reasoning, std::string_view question,
                      std::string_view final_answer);

// The value of an English number word, in any case: "zero" to "ninety" (its value), or a
// scale, "hundred", "thousand", "million" (its multiplier); -1 for any other word. One
// table for the work reader and strict's number rules.
int64_t NumberWordValue(std::string_view word);

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_ARITHMETIC_H_
