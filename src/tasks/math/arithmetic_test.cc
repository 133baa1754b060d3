// CheckWork (strict-3's `arithmetic` and `grounded`): what it reads as a statement, what
// holds, what the work may compute with, and that the final answer must come out of it.
#include "tasks/math/arithmetic.h"

#include <string>

#include <gtest/gtest.h>

namespace structtest::math_internal {
namespace {

constexpr std::string_view kEggs =
    "Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and "
    "bakes muffins for her friends every day with four. She sells the remainder at the "
    "farmers' market daily for $2 per fresh duck egg. How much in dollars does she make?";

std::string RuleOf(std::string_view reasoning, std::string_view final_answer = "18",
                   std::string_view question = kEggs) {
  const WorkProblem w = CheckWork(reasoning, question, final_answer);
  switch (w.rule) {
    case WorkProblem::Rule::kNone: return "none";
    case WorkProblem::Rule::kArithmetic: return "arithmetic";
    case WorkProblem::Rule::kGrounded: return "grounded";
  }
  return "?";
}

TEST(MathWorkTest, StatementsThatHoldPass) {
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs are left.\nShe makes 9 * $2 = $18."), "none");
  EXPECT_EQ(RuleOf("She sells 16 - 3 - 4 = 9 eggs at $2 each: 9 \u00D7 2 = 18 dollars."), "none");
  // a running computation, LaTeX with units, and a statement split over two lines
  EXPECT_EQ(RuleOf("16 - 3 = 13 - 4 = 9, and 9 * 2 = 18"), "none");
  EXPECT_EQ(RuleOf("\\[ 16 - 3 - 4 = 9 \\text{ eggs} \\]\n"
                   "\\[ 9 \\text{ eggs} \\times \\$2 = \\$18 \\]"),
            "none");
  EXPECT_EQ(RuleOf("Eggs left = 16 - 3 - 4\nEggs left = 9\nMoney = 9 * 2 = 18"), "none");
}

// Words are read in any case, and a word's meaning is the whole word's: "Twice" and
// "HALF OF" compute, "Halfway" and "twicer" do not.
TEST(MathWorkTest, WordsAreReadInAnyCaseAndWhole) {
  EXPECT_EQ(RuleOf("TWICE 9 = 18", "18"), "none");
  EXPECT_EQ(RuleOf("Twice 9 = 19", "19"), "arithmetic");
  EXPECT_EQ(RuleOf("HALF OF 36 IS 18", "18"), "none");
  EXPECT_EQ(RuleOf("Half of 36 is 17", "17"), "arithmetic");
  EXPECT_EQ(RuleOf("9 TIMES 2 = 18", "18"), "none");
  EXPECT_EQ(RuleOf("9 Times 2 = 17", "17"), "arithmetic");
  // not operator words: nothing is computed, so nothing fails
  EXPECT_EQ(RuleOf("twicer 9 = 19", "19"), "none");
  EXPECT_EQ(RuleOf("9 timesx 2 = 17", "17"), "none");
  // a number word of the problem, hyphenated, in capitals
  EXPECT_EQ(RuleOf("It costs 25 * 2 = 50", "50", "He buys TWENTY-FIVE pens at $2 each."), "none");
  EXPECT_EQ(RuleOf("It costs 26 * 2 = 52", "52", "He buys TWENTY-FIVE pens at $2 each."),
            "grounded");
}

TEST(MathWorkTest, AStatementThatDoesNotHoldFails) {
  const WorkProblem w = CheckWork("16 - 3 - 4 = 10 eggs.\n10 * 2 = 18", kEggs, "18");
  EXPECT_EQ(w.rule, WorkProblem::Rule::kArithmetic);
  EXPECT_EQ(w.detail, "16 - 3 - 4 is 9, not 10");
  // an exact result is not "rounded" to the next integer
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs.\n9 * 2 = 19"), "arithmetic");
  // rounding to the decimals written is not a mistake
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9, 9 * 2 = 18, and 18 / 7 = 2.57 a day of the week"),
            "none");
}

TEST(MathWorkTest, TheWorkUsesTheProblemsNumbersAndReachesTheAnswer) {
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs.\n11 * 13 = 143, and 9 * 2 = 18"), "grounded");
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs are left to sell."), "grounded");
  // the answer given where an equation ends: "= \boxed{18}" leaves "=" before it
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs, so 9 * 2 ="), "none");
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs, so she makes 9 * 2 which equals"), "none");
  // an operation said in words
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs. Multiply 9 by 2, which gives us 18."), "none");
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs. We multiply 9 by the price of 2 dollars."), "none");
  // the answer in another unit only where it is the same number written another way
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs, and 9 * 0.02 = 0.18 dollars", "18",
                   std::string(kEggs) + " Answer in cents."),
            "none");
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 eggs, 9 * 2 = 18 and 18 * 100 = 1800 minutes", "30"),
            "grounded");
}

TEST(MathWorkTest, WhatCannotBeReadIsNotJudged) {
  // algebra, ranges, prose without statements
  EXPECT_EQ(RuleOf("Let x be the eggs sold: x + 7 = 16, so x = 9 and 2x = 18"), "none");
  EXPECT_EQ(RuleOf("She sells the rest, nine eggs, at two dollars."), "none");
  EXPECT_EQ(RuleOf(""), "none");
}

TEST(MathWorkTest, HostileInputStaysBounded) {
  // Longer than kMaxWorkBytes: not read, and not taken on trust.
  std::string big;
  while (big.size() < 2 * 1024 * 1024) big += "((\\frac{1}{2} = ";
  const WorkProblem w = CheckWork(big, kEggs, "18");
  EXPECT_EQ(w.rule, WorkProblem::Rule::kGrounded);
  EXPECT_NE(w.detail.find("more than the 32768 whose work is read"), std::string::npos) << w.detail;
  // Up to it, read; past kMaxStatements statements the rest is not judged.
  std::string many;
  while (many.size() + 10 <= kMaxWorkBytes) many += "1 + 1 = 2\n";
  EXPECT_EQ(RuleOf(many, "2", "1 and 1"), "none");
  // A line past kMaxLineBytes is read up to a space before it: no number is cut in two.
  std::string long_line;
  while (long_line.size() < kMaxLineBytes - 8) long_line += "a ";
  EXPECT_EQ(RuleOf(long_line + "1 + 19 = 20\n1 + 1 = 2", "2", "1 and 19"), "none");
  // NUL bytes and invalid UTF-8 are characters like any other.
  EXPECT_EQ(RuleOf(std::string("16 - 3 - 4 = 9\0 eggs\n9 * 2 = 18", 31)), "none");
  EXPECT_EQ(RuleOf("16 - 3 - 4 = 9 \xFF\xFE eggs; 9 * 2 = 18"), "none");
}

}  // namespace
}  // namespace structtest::math_internal
