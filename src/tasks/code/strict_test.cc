// The strict code answer extraction (no Python needed) and the built-in cheating
// answers' shape. The strict verdicts themselves are covered by
// testdata/golden_strict.jsonl and the contract test.
#include "tasks/code/strict.h"

#include <string>

#include <gtest/gtest.h>

namespace structtest {
namespace {

Sample CodeSample() {
  Sample s;
  s.id = "t";
  s.domain = "code";
  s.subtask = "add_print_statements";
  s.context = {{"start_tag", "<ans>"}, {"end_tag", "</ans>"}};
  return s;
}

// The answer, or "FAIL " and the reason.
std::string Extract(std::string_view response, bool fenced = true) {
  std::string answer, reason;
  if (!code_internal::StrictAnswer(CodeSample(), response, fenced, &answer, &reason)) {
    return "FAIL " + reason;
  }
  return answer;
}

TEST(StrictAnswerTest, OnePairOfTags) {
  EXPECT_EQ(Extract("Sure:\n<ans>\nx = 1\n</ans>\nDone."), "x = 1");
  EXPECT_EQ(Extract("no tags"), "FAIL answer-tags: no <ans> in the response");
  EXPECT_EQ(Extract("<ans> x"), "FAIL answer-tags: no </ans> after <ans>");
  EXPECT_EQ(Extract("</ans> x <ans>"), "FAIL answer-tags: no </ans> after <ans>");
  EXPECT_EQ(Extract("<ans>a</ans> <ans>a</ans>"),
            "FAIL one-answer: 2 answers between <ans> and </ans>, one was asked for");
  // A stray end tag after the answer is text outside it.
  EXPECT_EQ(Extract("<ans>a</ans> more </ans>"), "a");
  EXPECT_EQ(Extract("<ans> \n\t</ans>"), "FAIL answer-empty: nothing between <ans> and </ans>");
}

TEST(StrictAnswerTest, LayoutIsHarmless) {
  // Windows line endings; blank lines around; the first line keeps its indentation.
  EXPECT_EQ(Extract("<ans>\r\n\r\n    if x:\r\n        y\r\n</ans>"), "    if x:\n        y");
  EXPECT_EQ(Extract("<ans>\nHere:\n```python\ndef f():\n    pass\n```\n</ans>"),
            "def f():\n    pass");
  EXPECT_EQ(Extract("<ans>```\nx\n```</ans>"), "x");
  EXPECT_EQ(Extract("<ans>```py  \nx\n</ans>"), "x");  // an unclosed fence
  EXPECT_EQ(Extract("<ans>```a\nx\n```\n```b\ny\n```</ans>"),
            "FAIL one-answer: more than one code block between <ans> and </ans>");
  EXPECT_EQ(Extract("<ans>```\nx\n```</ans>", /*fenced=*/false), "```\nx\n```");
}

TEST(StrictAnswerTest, HugeAnswerIsRejectedByItsSize) {
  const std::string big = "<ans>" + std::string(kMaxStrictAnswerBytes + 1, 'x') + "</ans>";
  EXPECT_EQ(Extract(big), "FAIL answer-size: the answer has 1048577 bytes, more than the "
                         "1048576 a code answer may have");
  const std::string fits = "<ans>" + std::string(kMaxStrictAnswerBytes, 'x') + "</ans>";
  EXPECT_EQ(Extract(fits).size(), kMaxStrictAnswerBytes);
}

TEST(CheatTest, LoopholesKeepWhatThePaperReads) {
  Sample s = CodeSample();
  s.target = {{"answer",
               "<ans>\n```python\ndef f(a):\n    b = a\n    print(\"b: \", str(b))\n    "
               "return b\n```\n</ans>"}};
  auto loophole = code_internal::LoopholeAddPrint(s);
  ASSERT_TRUE(loophole.ok());
  EXPECT_EQ(*loophole,
            "<ans>\n```python\npass\n    b = a\n    print(\"b: \", str(b))\n    pass\n```\n</ans>");
  auto skeleton = code_internal::SkeletonAddPrint(s);
  ASSERT_TRUE(skeleton.ok());
  EXPECT_EQ(*skeleton, "<ans>\n```python\ndef f(a):\n    pass\n    print(\"b: \", str(b))\n    "
                       "pass\n```\n</ans>");
  s.subtask = "replace_variables";
  auto flat = code_internal::LoopholeReplaceVariables(s);
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(*flat, "<ans>deff(a):b=aprint(\"b:\",str(b))returnb</ans>");
}

TEST(CheatTest, SimulateLoopholeCallsTheFunction) {
  Sample s = CodeSample();
  s.subtask = "simulate_execute";
  s.context["source_code"] = "def f(x):\n    return \"a\\\\b\" * x";
  s.context["fn_name"] = "f";
  s.context["inputs"] = "2";
  s.context["call_based"] = true;
  auto loophole = code_internal::LoopholeSimulate(s);
  ASSERT_TRUE(loophole.ok());
  EXPECT_EQ(*loophole,
            "<ans>(lambda g: (exec(\"def f(x):\\n    return \\\"a\\\\\\\\b\\\" * x\", g), "
            "g[\"f\"](2))[1])({})</ans>");
}

}  // namespace
}  // namespace structtest
