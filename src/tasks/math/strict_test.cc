// The strict math rules: one final answer, a bare number, in the asked style at the
// end; reasoning for math_easy; 3-10 distinct steps with content for math_hard; and
// the built-in cheaters failing them while passing the paper rules.
#include "tasks/math/strict.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "tasks/math/family.h"
#include "tasks/math/math_test_util.h"

namespace structtest {
namespace {

// The strict checker on `response`, the sample's params parsed as scoring parses them.
StatusOr<Verdict> CheckStrict(const Sample& s, std::string_view response) {
  return MathFamily().Check(MathFamily().subtasks[0], RuleSet::kStrict, s, response, CheckEnv{});
}

Verdict Strict(std::string_view format, std::string_view response,
               std::string_view gold = "18") {
  const auto v = CheckStrict(MathSample(format, gold), response);
  EXPECT_TRUE(v.ok()) << v.status().message();
  if (!v.ok()) return Verdict{};
  EXPECT_EQ(v->pass, v->format.value_or(false) && v->accuracy.value_or(false)) << v->reason;
  return *v;
}

// The rule a failing verdict names ("answer-value"), or "pass".
std::string Rule(const Verdict& v) {
  if (v.pass) return "pass";
  return v.reason.substr(0, v.reason.find(':'));
}

constexpr std::string_view kWork = "Janet has 16 eggs, eats 7 and sells 9 at 2 dollars each.\n";

TEST(MathStrictEasyTest, NumericallyEqualAnswersPass) {
  for (std::string_view a : {"18", "18.", "18.00", "**18**", "$18$", "\\(18\\)", "+18", "18.0."}) {
    // (fmt, not string +, which GCC 12's -Warray-bounds misreads once inlined)
    EXPECT_EQ(Rule(Strict(Easy(1), fmt::format("{}The answer is: {}", kWork, a))), "pass") << a;
  }
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: 1,290", "1290")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: 1290", "1,290")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(5), std::string(kWork) + "\\boxed{1{,}290}", "1290")), "pass");
}

TEST(MathStrictEasyTest, MinusSign) {
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: \xE2\x88\x92" "10", "-10")),
            "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: -10", "-10")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: 10", "-10")),
            "answer-value");
}

TEST(MathStrictEasyTest, UnitsAndCurrencyFail) {
  const Verdict dollars = Strict(Easy(1), std::string(kWork) + "The answer is: $18");
  EXPECT_EQ(dollars.reason,
            "answer-value: found '$18', a currency sign where a bare number was asked");
  EXPECT_FALSE(dollars.format.value_or(true));
  EXPECT_EQ(Strict(Easy(1), std::string(kWork) + "The answer is: 18 dollars").reason,
            "answer-value: found '18 dollars', more than a bare number (units or words)");
  EXPECT_EQ(Rule(Strict(Easy(4), std::string(kWork) + "Result: 18%")), "answer-value");
  EXPECT_EQ(Rule(Strict(Easy(5), std::string(kWork) + "\\boxed{\\$18}")), "answer-value");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: 1,29", "129")),
            "answer-value");
  const Verdict wrong = Strict(Easy(1), std::string(kWork) + "The answer is: 18.5");
  EXPECT_EQ(wrong.reason, "answer-value: found '18.5', expected '18'");
  EXPECT_TRUE(wrong.format.value_or(false));
  EXPECT_FALSE(wrong.accuracy.value_or(true));
}

TEST(MathStrictEasyTest, OneFinalAnswerAtTheEnd) {
  EXPECT_EQ(Strict(Easy(1), std::string(kWork) + "The answer is: 17\nThe answer is: 18").reason,
            "one-final-answer: the answer phrase occurs 2 times, first as 'The answer is: 17'");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "The answer is: 18\nThe answer is: 18")),
            "one-final-answer");
  EXPECT_EQ(Rule(Strict(Easy(5), std::string(kWork) + "9 * 2 = \\boxed{18}\n\\boxed{18}")),
            "one-final-answer");
  EXPECT_EQ(Rule(Strict(Easy(5), std::string(kWork) + "\\boxed{18} (or 20)")),
            "one-final-answer");
  EXPECT_EQ(Strict(Easy(1), std::string(kWork) + "The answer is: 18\nHope this helps").reason,
            "answer-line: the final 'The answer is: N' is followed by 'Hope this helps'");
  EXPECT_EQ(Strict(Easy(1), std::string(kWork) + "So 18.").reason,
            "answer-line: no 'The answer is: N' line; the last line is 'So 18.'");
  // A quoted mention of the phrase is not an answer.
  EXPECT_EQ(Rule(Strict(Easy(4), std::string(kWork) + "I end with the phrase \"Result:\".\n"
                                                       "Result: 18")),
            "pass");
  // Markdown headers are not answers of the '### N' style; '#### 18' is one.
  EXPECT_EQ(Rule(Strict(Easy(2), "### Step 1: eggs\n16 - 7 = 9 eggs are sold.\n"
                                 "### 1. Compute the money\n9 * 2 = 18\n#### 18")),
            "pass");
  EXPECT_EQ(Rule(Strict(Easy(2), std::string(kWork) + "### 17\n### 18")), "one-final-answer");
}

TEST(MathStrictEasyTest, HarmlessVariationsPass) {
  EXPECT_EQ(Rule(Strict(Easy(1), "Janet has 16 eggs.\r\nShe sells 9 for 2 each.\r\n"
                                 "The answer is: 18\r\n")),
            "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "**The answer is: 18**")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "**The answer is:** 18")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), std::string(kWork) + "Therefore, the answer is: 18.")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(3), std::string(kWork) + "The final answer is: $\\boxed{18}$")),
            "pass");
  EXPECT_EQ(Rule(Strict(Easy(5), std::string(kWork) + "So she makes \\boxed{18} dollars.")),
            "pass");
  EXPECT_EQ(Rule(Strict(Easy(5), std::string(kWork) + "Rosie runs \\boxed{18} miles in 7 hours.")),
            "pass");
  EXPECT_EQ(Rule(Strict(Easy(6), std::string(kWork) + "Result: $18$.")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(6), std::string(kWork) + "Result: $$18$$")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(7), std::string(kWork) + "<result>18</result>")), "pass");
  EXPECT_EQ(Rule(Strict(Easy(1), "Janet sells 9 eggs at 2 dollars: 9 * 2 = 18. The answer is: 18")),
            "pass");
}

TEST(MathStrictEasyTest, FormsMustBeClosed) {
  EXPECT_EQ(Strict(Easy(6), std::string(kWork) + "Result: $18").reason,
            "answer-line: 'Result: $' is not closed by '$' on its line");
  EXPECT_EQ(Strict(Easy(5), std::string(kWork) + "\\boxed{18").reason,
            "answer-line: '\\boxed{' is not closed by '}'");
  EXPECT_EQ(Rule(Strict(Easy(7), std::string(kWork) + "<result>18")), "answer-line");
}

TEST(MathStrictEasyTest, ReasoningIsAsked) {
  EXPECT_EQ(Strict(Easy(1), "The answer is: 18").reason,
            "reasoning: 0 words before the answer (at least 5 asked: the prompt asks to "
            "show the reasoning)");
  EXPECT_EQ(Rule(Strict(Easy(1), "9 * 2 = 18\nThe answer is: 18")), "reasoning");
  // five words; the work holds and computes with the problem's numbers (strict-3)
  EXPECT_EQ(Rule(Strict(Easy(1), "(16 - 7) eggs * 2 dollars = 18\nThe answer is: 18")), "pass");
}

TEST(MathStrictHardTest, StepsInEachStyle) {
  const std::string steps_a = "### 1\nJanet's ducks lay 16 eggs.\n\n### 2\nShe uses 3 + 4 = 7.\n\n"
                              "### 3\nShe sells 16 - 7 = 9 eggs for 9 * 2 = 18 dollars.";
  EXPECT_EQ(Strict(Hard(1), steps_a + "\n\nThe answer is: 18").reason,
            "3 '### N' steps, one final answer 18 in 'The answer is: N'");
  EXPECT_EQ(Rule(Strict(Hard(5), "1. Ducks lay 16 eggs.\n2. She uses 3 + 4 = 7.\n"
                                 "3. She sells 16 - 7 = 9 for 9 * 2 = 18.\nThe answer is: 18")),
            "pass");
  EXPECT_EQ(Rule(Strict(Hard(9), "**Step 1:** Ducks lay 16 eggs.\n\n**Step 2** She uses 7.\n\n"
                                 "**Step 3** She sells 16 - 7 = 9 for 9 * 2 = 18.\n\nThe answer is: 18")),
            "pass");
  EXPECT_EQ(Rule(Strict(Hard(13), "```json\n[\"Ducks lay 16 eggs.\", \"She uses 3 + 4 = 7.\", "
                                  "\"She sells 16 - 7 = 9 for 9 * 2 = 18.\"]\n```\nThe answer is: 18")),
            "pass");
  EXPECT_EQ(Rule(Strict(Hard(17), "```json\n{\"1\": \"Ducks lay 16 eggs.\", \"2\": \"She uses "
                                  "3 + 4 = 7.\", \"3\": \"She sells 16 - 7 = 9 for 9 * 2 = 18.\"}\n```\n"
                                  "The answer is: 18")),
            "pass");
  // The answer under a step marker of its own is the answer, not a step.
  EXPECT_EQ(Strict(Hard(1), steps_a + "\n\n### 4\nThe answer is: 18").reason,
            "3 '### N' steps, one final answer 18 in 'The answer is: N'");
  EXPECT_EQ(Strict(Hard(4), steps_a + "\n\n### 4. Final result\n\\boxed{18}").reason,
            "3 '### N' steps, one final answer 18 in '\\boxed{N}'");
  // A terse equation is a step with content.
  EXPECT_EQ(Rule(Strict(Hard(1), steps_a + "\n\n### 4\n2x = 36\n\nThe answer is: 18")), "pass");
}

TEST(MathStrictHardTest, StepRules) {
  EXPECT_EQ(Strict(Hard(1), "### 1\n\n### 2\n\n### 3\n\nThe answer is: 18").reason,
            "step-content: step 1 is empty");
  EXPECT_EQ(Strict(Hard(5), "1. Ducks lay 16 eggs.\n\n3. She uses 7.\n\nThe answer is: 18").reason,
            "step-sequence: step 2 is numbered 3: '3. She uses 7.'");
  EXPECT_EQ(Strict(Hard(5), "1. Ducks lay 16 eggs.\n\n2. She uses 7 eggs.\n\nThe answer is: 18")
                .reason,
            "step-count: 2 'N. ' steps (3 to 10 asked)");
  EXPECT_EQ(Strict(Hard(1), "### 1\nTODO\n\n### 2\nShe uses 7.\n\n### 3\nShe sells 9.\n\n"
                            "The answer is: 18")
                .reason,
            "step-content: step 1 is a placeholder ('TODO')");
  EXPECT_EQ(Strict(Hard(1), "### 1\nDucks lay eggs.\n\n### 2\nShe uses.\n\n### 3\nShe sells 9.\n\n"
                            "The answer is: 18")
                .reason,
            "step-content: step 2 has 2 words (at least 3 asked): 'She uses.'");
  EXPECT_EQ(Strict(Hard(1), "### 1\nSee the problem.\n\n### 2\nSee the problem.\n\n### 3\n"
                            "see the  problem!\n\nThe answer is: 18")
                .reason,
            "steps-distinct: step 2 repeats step 1: 'See the problem.'");
  EXPECT_EQ(Rule(Strict(Hard(13), "```json\n[\"Ducks lay 16 eggs.\", \"\", \"She sells 18.\"]\n"
                                  "```\nThe answer is: 18")),
            "step-content");
  EXPECT_EQ(Strict(Hard(13), "no steps\nThe answer is: 18").reason,
            "step-format: no ```json block before the answer");
  EXPECT_EQ(Rule(Strict(Hard(1), "The answer is: 18")), "step-format");
}

TEST(MathStrictHardTest, AnswerRules) {
  const std::string steps = "### 1\nDucks lay 16 eggs.\n\n### 2\nShe uses 3 + 4 = 7.\n\n"
                            "### 3\nShe sells 16 - 7 = 9 for 9 * 2 = 18.";
  EXPECT_EQ(Rule(Strict(Hard(2), steps + "\n\n#### 9\n#### 18")), "one-final-answer");
  EXPECT_EQ(Rule(Strict(Hard(2), steps + "\n\n####\n18")), "pass");
  EXPECT_EQ(Rule(Strict(Hard(3), steps + "\n\n### Final result: 18")), "pass");
  EXPECT_EQ(Rule(Strict(Hard(4), steps + "\n\n\\boxed{18 \\text{ dollars}}")), "answer-value");
  EXPECT_EQ(Rule(Strict(Hard(13), "```json\n[\"Ducks lay 16 eggs.\", \"She uses 7 eggs.\", "
                                  "\"The answer is: 18\"]\n```\nThe answer is: 18")),
            "one-final-answer");
  EXPECT_EQ(Strict(Hard(16), "```json\n[\"Ducks lay 16 eggs.\", \"She uses 7 eggs.\", "
                             "\"So she makes \\\\boxed{18}.\"]\n```").reason,
            "answer-line: the final answer is inside the ```json block, not on its own line "
            "after it");
}

TEST(MathStrictCheatTest, CheatersPassPaperFailStrict) {
  for (int n = 1; n <= 27; ++n) {
    const bool hard = n > 7;
    const std::string format = hard ? Hard(n - 7) : Easy(n);
    for (std::string_view id : {"a", "b", "c", "d"}) {
      Sample s = MathSample(format, "1,600");
      s.id = std::string(id);
      s.target = {{"answer", hard ? "### 1\nx y z\n\n### 2\nx y w\n\n### 3\nx y v\n\n### 4\nq r s"
                                  : "a b c\nd e f\nThe answer is: 1,600"}};
      const auto loophole = math_internal::MathLoophole(s);
      ASSERT_TRUE(loophole.ok());
      const auto paper =
          MathFamily().Check(MathFamily().subtasks[0], RuleSet::kPaper, s, *loophole, CheckEnv{});
      ASSERT_TRUE(paper.ok());
      EXPECT_TRUE(paper->pass) << format << " " << id << ": " << paper->reason << "\n" << *loophole;
      const auto strict = CheckStrict(s, *loophole);
      ASSERT_TRUE(strict.ok());
      EXPECT_FALSE(strict->pass) << format << ": " << *loophole;
      const auto skeleton = math_internal::MathSkeleton(s);
      ASSERT_TRUE(skeleton.ok());
      const auto sk = CheckStrict(s, *skeleton);
      ASSERT_TRUE(sk.ok());
      EXPECT_FALSE(sk->pass) << format << ": " << *skeleton;
    }
  }
}

TEST(MathStrictCheckTest, HostileInputsFailFast) {
  const std::string big(1 << 20, '#');
  EXPECT_FALSE(Strict(Easy(2), big).pass);
  std::string lines;
  for (int i = 0; i < 100000; ++i) lines += "### 1 ### 2 \\boxed{ ";
  EXPECT_FALSE(Strict(Easy(2), lines).pass);
  EXPECT_FALSE(Strict(Easy(5), lines).pass);
  EXPECT_FALSE(Strict(Hard(1), lines).pass);
  std::string nul("The answer is: 18\0\xff\xfe", 21);
  const Verdict v = Strict(Easy(1), nul);
  EXPECT_FALSE(v.pass);
  EXPECT_FALSE(v.reason.empty());
  std::string nested = "```json\n" + std::string(100000, '[') + "\n```\nThe answer is: 18";
  EXPECT_EQ(Rule(Strict(Hard(13), nested)), "step-format");
}

}  // namespace
}  // namespace structtest
