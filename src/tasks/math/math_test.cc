// The paper math rules: the seven easy answer styles and the twenty hard formats
// (five step styles x four answer phrases), with format and accuracy scored apart.
#include "tasks/math/family.h"
#include "tasks/math/math_test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "testing/test_support.h"

namespace structtest {
namespace {

Verdict CheckMath(std::string_view format, std::string_view response,
                  std::string_view gold = "18") {
  const Sample s = MathSample(format, gold);
  const auto v =
      MathFamily().Check(MathFamily().subtasks[0], RuleSet::kPaper, s, response, CheckEnv{});
  EXPECT_TRUE(v.ok()) << v.status().message();
  if (!v.ok()) return Verdict{};
  EXPECT_TRUE(v->format.has_value());
  EXPECT_TRUE(v->accuracy.has_value());
  EXPECT_EQ(v->pass, v->format.value_or(false) && v->accuracy.value_or(false));
  return *v;
}

// "FA": format and accuracy as two letters, lower case when false.
std::string Fa(const Verdict& v) {
  return std::string(v.format.value_or(false) ? "F" : "f") +
         (v.accuracy.value_or(false) ? "A" : "a");
}

TEST(MathFamilyTest, Descriptor) {
  const TaskFamily& f = MathFamily();
  EXPECT_EQ(f.domain, "math");
  EXPECT_FALSE(f.rules_version.empty());
  ASSERT_EQ(f.subtasks.size(), 2u);
  EXPECT_EQ(f.subtasks[0].name, "math_easy");
  EXPECT_EQ(f.subtasks[0].split, Split::kEasy);
  EXPECT_EQ(f.subtasks[1].name, "math_hard");
  EXPECT_EQ(f.subtasks[1].split, Split::kHard);
}

TEST(MathEasyTest, TextPhrases) {
  EXPECT_EQ(Fa(CheckMath(Easy(1), "So...\nThe answer is: 18.")), "FA");
  // Everything after the phrase is the answer, also further lines.
  EXPECT_EQ(Fa(CheckMath(Easy(1), "The answer is: 18\nThanks!")), "fa");
  EXPECT_EQ(Fa(CheckMath(Easy(1), "The answer is: 18 dollars")), "Fa");
  EXPECT_EQ(Fa(CheckMath(Easy(1), "18")), "fa");
  EXPECT_EQ(Fa(CheckMath(Easy(2), "work\n#### 18")), "FA");  // last "###" is inside "####"
  EXPECT_EQ(Fa(CheckMath(Easy(3), "The final answer is 18.  \n\n")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(4), "Result: 18..")), "Fa");  // only one dot is dropped
  EXPECT_EQ(Fa(CheckMath(Easy(4), "  Result:\t18\t")), "FA");
}

TEST(MathEasyTest, Reasons) {
  EXPECT_EQ(CheckMath(Easy(1), "So 18.").reason,
            "format: last line 'So 18.' does not contain 'The answer is:'; accuracy: "
            "'The answer is:' not in the response");
  EXPECT_EQ(CheckMath(Easy(1), "x\nThe answer is: 18 dollars").reason,
            "format: last line has 'The answer is:'; accuracy: answer '18 dollars' != "
            "gold '18'");
  EXPECT_EQ(CheckMath(Easy(1), "The answer is: 18").reason,
            "format: last line has 'The answer is:'; accuracy: answer '18' == gold '18'");
}

TEST(MathEasyTest, Boxed) {
  EXPECT_EQ(Fa(CheckMath(Easy(5), "so \\boxed{18}")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(5), "\\boxed{17} then \\boxed{ 18}")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(5), "\\boxed{18 }")), "Fa");  // stripped before, not after
  EXPECT_EQ(Fa(CheckMath(Easy(5), "\\boxed{18")), "Fa");    // no '}': empty answer
  EXPECT_EQ(Fa(CheckMath(Easy(5), "\\boxed{}", "")), "FA");
}

TEST(MathEasyTest, DollarResult) {
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $18$")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $18$.")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $ 18 $")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(6), "x\n Result: $18$")), "fA");  // the line must start with it
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $18")), "fA");       // ...and end with '$'
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $$18$$")), "FA");    // display math
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $$18$")), "Fa");     // no closing "$$"
  EXPECT_EQ(Fa(CheckMath(Easy(6), "Result: $18$$")), "Fa");     // "$$" after inline
  EXPECT_EQ(Fa(CheckMath(Easy(6), "\\$$31$", "31")), "fa");
}

TEST(MathEasyTest, ResultTag) {
  EXPECT_EQ(Fa(CheckMath(Easy(7), "work\n<result>18</result>")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(7), "<result> 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Easy(7), "<result>18</result>\nbye")), "fA");
}

// Style A: "### N" chunks separated by blank lines.
TEST(MathHardTest, HashHeaders) {
  const std::string three = "### 1. a\nx\n\n### 2\nb\n\n\n### 3 c\n\n";
  EXPECT_EQ(Fa(CheckMath(Hard(1), three + "The answer is: 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(2), three + "#### 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(3), three + "Final result: 18.")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(4), three + "\\boxed{18}")), "FA");
  EXPECT_EQ(CheckMath(Hard(1), three + "The answer is: 18").reason,
            "format: 3 '### N' steps; accuracy: answer '18' == gold '18'");
  // Steps that are not separated by blank lines are one chunk: 1 step.
  const Verdict joined = CheckMath(Hard(1), "### 1\na\n### 2\nb\n### 3\nc\nThe answer is: 18");
  EXPECT_EQ(Fa(joined), "fA");
  EXPECT_EQ(joined.reason,
            "format: 1 '### N' step (3 to 10 asked); accuracy: answer '18' == gold '18'");
  // Out of sequence: both fail.
  const Verdict skip = CheckMath(Hard(1), "### 1\n\n### 3\n\n### 4\n\nThe answer is: 18");
  EXPECT_EQ(Fa(skip), "fa");
  EXPECT_EQ(skip.reason,
            "format and accuracy: '### N' steps expected; step 2 is numbered 3: '### 3'");
  // "###1", "#### 2" and "### Step 1" do not start steps.
  EXPECT_EQ(Fa(CheckMath(Hard(1), "###1\n\n#### 2\n\n### Step 1\n\nThe answer is: 18")), "fA");
  // Unicode digits are Python's \d, so they start a step, but the sequence test is a
  // prefix test against "### N": '### \u0661' is out of sequence, '### 12' is step 1.
  EXPECT_EQ(Fa(CheckMath(Hard(1), "### \u0661\n\n### 2\n\n### 3\n\nThe answer is: 18")), "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(1), "### 1\n\n### 2\n\n### 3\uff13\n\nThe answer is: 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(1), "### 12\n\n### 2\n\n### 3\n\nThe answer is: 18")), "FA");
}

TEST(MathHardTest, StepCountBounds) {
  auto steps = [](int n) {
    std::string s;
    for (int i = 1; i <= n; ++i) s += "### " + std::to_string(i) + "\n\n";
    return s + "The answer is: 18";
  };
  EXPECT_EQ(Fa(CheckMath(Hard(1), steps(2))), "fA");
  EXPECT_EQ(Fa(CheckMath(Hard(1), steps(3))), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(1), steps(10))), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(1), steps(11))), "fA");
}

// Style B: "N. " chunks.
TEST(MathHardTest, NumberedLines) {
  const std::string three = "Intro\n\n1. a\n\n2. b\n- more\n\nnote\n\n3. c";
  EXPECT_EQ(Fa(CheckMath(Hard(5), three + "\n\nThe answer is: 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(8), three + "\n\nso \\boxed{18}")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(5), "1. a\n\n2. b\n\n3.\n\nThe answer is: 18")), "fA");
  EXPECT_EQ(Fa(CheckMath(Hard(5), "1. a\n\n2. b\n\n3. \n\nThe answer is: 18")), "fA");
  EXPECT_EQ(Fa(CheckMath(Hard(5), "1. a\n\n2. b\n\n1. c\n\nThe answer is: 18")), "fa");
}

// '^\d+\.\s' takes any one whitespace after the dot, but the sequence test wants
// 'N. ' with a space: '1.' and a line break starts a step that is out of sequence.
TEST(MathHardTest, RegressionNumberedStepDotLineBreakIsOutOfSequence) {
  const Verdict v = CheckMath(Hard(5), "1.\na\n\n2. b\n\n3. c\n\nThe answer is: 18");
  EXPECT_EQ(Fa(v), "fa");
  EXPECT_EQ(v.reason,
            "format and accuracy: 'N. ' steps expected; step 1 does not start with '1. ': "
            "'1.\\na'");
  EXPECT_EQ(Fa(CheckMath(Hard(5), "1. a\n\n2.\u00a0b\n\n3. c\n\nThe answer is: 18")), "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(5), "\u0661. a\n\n2. b\n\n3. c\n\nThe answer is: 18")), "fa");
}

// Style C: "**Step N** " chunks.
TEST(MathHardTest, BoldSteps) {
  const std::string three = " **Step 1** a\n\n**Step 2** b\n\n**Step 3** c";
  EXPECT_EQ(Fa(CheckMath(Hard(9), three + "\n\nThe answer is: 18")), "FA");
  // "**Step 1**:" and "**Step 1: x**" are not steps (so no steps at all here).
  EXPECT_EQ(Fa(CheckMath(Hard(9), "**Step 1**: a\n\n**Step 2: b**\n\nThe answer is: 18")), "fA");
  // ...but a matching chunk out of order still fails both.
  EXPECT_EQ(Fa(CheckMath(Hard(9), "**Step 1**: a\n\n**Step 2** b\n\nThe answer is: 18")), "fa");
}

// The reference's '\*\*Step \d+\*\*\s+' takes one or more whitespace characters, a
// line break too: '**Step 1**' on a line of its own starts a step.
TEST(MathHardTest, RegressionBoldStepFollowedByLineBreak) {
  const Verdict v = CheckMath(Hard(12),
                              "**Step 1**\na\n\n**Step 2**\n\tb\n\n**Step 3**\r\nc\n\n"
                              "\\boxed{18}");
  EXPECT_EQ(Fa(v), "FA");
  EXPECT_EQ(v.reason, "format: 3 '**Step N**' steps; accuracy: answer '18' == gold '18'");
  // The whitespace must be inside the stripped chunk: a bare header is no step.
  EXPECT_EQ(Fa(CheckMath(Hard(9),
                         "**Step 1** a\n\n**Step 2** b\n\n**Step 3**\n\n"
                         "The answer is: 18")),
            "fA");
}

// Style D: a ```json list of strings.
TEST(MathHardTest, JsonList) {
  const std::string list = "```json\n[\"a\", \"b\", \"c\"]\n```\n";
  EXPECT_EQ(Fa(CheckMath(Hard(13), list + "The answer is: 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(14), list + "#### 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(16), "```json\n[\"a\", \"b\", \"so \\\\boxed{18}\"]\n```")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(13), "```json\n[\"a\", \"b\"]\n```\nThe answer is: 18")), "fA");
  const Verdict none = CheckMath(Hard(13), "[\"a\", \"b\", \"c\"]\nThe answer is: 18");
  EXPECT_EQ(Fa(none), "fa");
  EXPECT_EQ(none.reason,
            "format and accuracy: ```json list steps expected; no ```json block");
  EXPECT_EQ(Fa(CheckMath(Hard(13), "```json\n[\"a\", \"b\", 3]\n```\nThe answer is: 18")), "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(13), "```json\n[\"a\", \"b\", \"c\",]\n```\nThe answer is: 18")),
            "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(13), "```json\n[\"a\", \"b\", \"c\"]\nThe answer is: 18")), "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(13), "```JSON\n[\"a\", \"b\", \"c\"]\n```\nThe answer is: 18")),
            "fa");
  // The first block counts, and it ends at the next ``` (even one opening a block).
  EXPECT_EQ(Fa(CheckMath(Hard(13),
                         "```json\n[\"a\", \"b\", \"c\"]```json\n[1]```\nThe answer "
                         "is: 18")),
            "FA");
}

// Style E: a ```json object with keys 1..n.
TEST(MathHardTest, JsonObject) {
  const std::string obj = "```json\n{\"1\": \"a\", \"2\": \"b\", \"3\": \"c\"}\n```\n";
  EXPECT_EQ(Fa(CheckMath(Hard(17), obj + "The answer is: 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(19), obj + "Final result: 18")), "FA");
  EXPECT_EQ(Fa(CheckMath(Hard(17),
                         "```json\n{\"1\": \"a\", \"3\": \"b\", \"2\": \"c\"}\n```\n"
                         "The answer is: 18")),
            "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(17), "```json\n[\"a\", \"b\", \"c\"]\n```\nThe answer is: 18")),
            "fa");
  EXPECT_EQ(Fa(CheckMath(Hard(17),
                         "```json\n{\"1\": \"a\", \"2\": \"b\", \"3\": NaN}\n```\n"
                         "The answer is: 18")),
            "fa");
}

TEST(MathCheckTest, BadParamsAreErrorsNamingTheField) {
  const auto check = [](const Sample& s, std::string_view response, const CheckEnv& env) {
    return MathFamily().Check(MathFamily().subtasks[1], RuleSet::kPaper, s, response, env);
  };
  Sample s = MathSample(Hard(1));
  s.params.erase("math_format_name");
  auto v = check(s, "x", CheckEnv{});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "params.math_format_name: missing");
  for (const char* bad : {"Suffix8PhrasesMathFormat", "Suffix0PhrasesMathFormat",
                          "BulletPoints21MathFormat", "BulletPoints01MathFormat",
                          "SuffixPhrasesMathFormat", "bulletpoints1mathformat", ""}) {
    s = MathSample(bad);
    v = check(s, "x", CheckEnv{});
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_TRUE(
        v.status().message().starts_with("params.math_format_name: unknown format"))
        << v.status().message();
  }
  s = MathSample(Easy(1));
  s.context.erase("gold_answer");
  v = check(s, "x", CheckEnv{});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "context.gold_answer: missing");
  s = MathSample(Easy(1));
  s.context["gold_answer"] = 18;
  EXPECT_FALSE(check(s, "x", CheckEnv{}).ok());
}

TEST(MathCheckTest, HostileResponsesFailWithoutCrashing) {
  for (int n = 1; n <= 27; ++n) {
    const std::string format = n <= 7 ? Easy(n) : Hard(n - 7);
    std::string big(10 << 20, 'x');
    for (const std::string& r :
         {std::string(), std::string(" \n\t "), big, std::string("\0\xff\xfe\n\n\0", 6),
          std::string(1000000, '\n'), std::string(2000000, '#'),
          "```json\n" + std::string(100000, '[') + "\n```",
          "```json\n{" + std::string(100000, '{') + "\n```"}) {
      const Verdict v = CheckMath(format, r);
      EXPECT_FALSE(v.pass) << format;
    }
  }
  // Reasons stay valid UTF-8 even when the response is not.
  const Verdict v = CheckMath(Easy(1), "The answer is: \xff\xc3");
  EXPECT_EQ(v.reason,
            "format: last line has 'The answer is:'; accuracy: answer '\uFFFD\uFFFD' != "
            "gold '18'");
}

}  // namespace
}  // namespace structtest
