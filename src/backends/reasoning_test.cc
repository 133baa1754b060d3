#include "structtest/sample.h"

#include <gtest/gtest.h>

namespace structtest {
namespace {

TEST(SplitThinkingTest, PlainTextIsUntouched) {
  const Response r = SplitThinking("  hello\n");
  EXPECT_EQ(r.text, "  hello\n");
  EXPECT_EQ(r.reasoning, "");
}

TEST(SplitThinkingTest, LeadingThinkBlock) {
  const Response r = SplitThinking("\n<think>\nplan it\n</think>\n\n- a\n- b");
  EXPECT_EQ(r.text, "- a\n- b");
  EXPECT_EQ(r.reasoning, "plan it");
}

TEST(SplitThinkingTest, LoneClosingTagWhenTemplateOpenedTheBlock) {
  const Response r = SplitThinking("plan it</think>answer");
  EXPECT_EQ(r.text, "answer");
  EXPECT_EQ(r.reasoning, "plan it");
  const Response leading = SplitThinking("</think>\nanswer");
  EXPECT_EQ(leading.text, "answer");
  EXPECT_EQ(leading.reasoning, "");
}

TEST(SplitThinkingTest, UnclosedBlockIsAllReasoning) {
  const Response r = SplitThinking("<think>still thinking when the limit hit");
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.reasoning, "still thinking when the limit hit");
}

TEST(SplitThinkingTest, TagsInsideTheAnswerAreKept) {
  const Response r = SplitThinking("The tag <think>x</think> is literal");
  EXPECT_EQ(r.text, "The tag <think>x</think> is literal");
  EXPECT_EQ(r.reasoning, "");
}

}  // namespace
}  // namespace structtest
