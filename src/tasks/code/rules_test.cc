// The code family's pure-text rules, against what the reference's Python does.
#include "tasks/code/rules.h"

#include <gtest/gtest.h>

namespace structtest {
namespace {

TEST(ExtractCodeSpanTest, FirstStartToLastEnd) {
  EXPECT_EQ(ExtractCodeSpan("x <ans> a </ans> b </ans> y", "<ans>", "</ans>"), "a   b");
  EXPECT_EQ(ExtractCodeSpan("no tags\n", "<ans>", "</ans>"), "no tags");
  EXPECT_EQ(ExtractCodeSpan("</ans> a <ans>", "<ans>", "</ans>"), "a");  // end before start
  EXPECT_EQ(ExtractCodeSpan("<ans><ans>x</ans>", "<ans>", "</ans>"), "x");
  EXPECT_EQ(ExtractCodeSpan("<ans>\xC2\xA0 x \n</ans>", "<ans>", "</ans>"), "x");
  EXPECT_EQ(ExtractCodeSpan("", "<ans>", "</ans>"), "");
}

TEST(FirstFencedBlockTest, PythonRegexSemantics) {
  EXPECT_EQ(FirstFencedBlockOrText("a\n```python\nx = 1\n```\nb"), "x = 1");
  EXPECT_EQ(FirstFencedBlockOrText("```\n  y\n```"), "y");
  EXPECT_EQ(FirstFencedBlockOrText("``` python\nx\n```"), "``` python\nx\n```");  // space: no match
  EXPECT_EQ(FirstFencedBlockOrText("````\nz\n```"), "z");  // match starts one later
  EXPECT_EQ(FirstFencedBlockOrText("```py\nno close"), "```py\nno close");
  EXPECT_EQ(FirstFencedBlockOrText("```a\n1```b\n2```"), "1");
  EXPECT_EQ(FirstFencedBlockOrText("```\xC3\xA9t\xC3\xA9\nq\n```"), "q");  // Unicode \w
  EXPECT_EQ(FirstFencedBlockOrText("  plain  "), "plain");
}

TEST(RenameWholeWordsTest, WholeWordsNotAfterADot) {
  const std::vector<Renaming> m = {{"s", "str_var"}, {"i", "idx"}};
  EXPECT_EQ(RenameWholeWords("s[i] = s.i + si(i)", m), "str_var[idx] = str_var.i + si(idx)");
  EXPECT_EQ(RenameWholeWords("x.s s", m), "x.s str_var");
  // Applied in order: a renamed word can be renamed again by a later entry.
  EXPECT_EQ(RenameWholeWords("a b", {{"a", "b"}, {"b", "c"}}), "c c");
  // Unicode letters are word characters, as in Python's re.
  EXPECT_EQ(RenameWholeWords("\xC3\xA9s s\xC3\xA9 s", m), "\xC3\xA9s s\xC3\xA9 str_var");
  EXPECT_EQ(RenameWholeWords("", m), "");
}

TEST(IsPyWordTest, Words) {
  EXPECT_TRUE(IsPyWord("abc_1"));
  EXPECT_TRUE(IsPyWord("\xC3\xA9t\xC3\xA9"));
  EXPECT_FALSE(IsPyWord(""));
  EXPECT_FALSE(IsPyWord("a.b"));
  EXPECT_FALSE(IsPyWord("word.split('_')"));
}

TEST(WhitespaceTest, PythonWhitespace) {
  EXPECT_EQ(RemovePyWhitespace(" a\tb\n c\r\x0b\x0c\xC2\xA0" "d\xE2\x80\x83"), "abcd");
  EXPECT_TRUE(EqualsIgnoringPyWhitespace(" a b\n\xC2\xA0" "c ", "abc"));
  EXPECT_FALSE(EqualsIgnoringPyWhitespace("a b", "abc"));
  EXPECT_FALSE(EqualsIgnoringPyWhitespace("abcd", "abc"));
  EXPECT_TRUE(EqualsIgnoringPyWhitespace("", ""));
}

TEST(ExcerptTest, CutsAndEscapes) {
  EXPECT_EQ(Excerpt("a\nb\tc"), "a\\nb\\tc");
  EXPECT_EQ(Excerpt(std::string(100, 'x'), 10), "xxxxxxxxxx...");
  EXPECT_EQ(Excerpt("\xFF"), "\\xff");
  EXPECT_EQ(FirstDifference("abc", "abd"), 2u);
  EXPECT_EQ(FirstDifference("ab", "abc"), 2u);
  EXPECT_EQ(FirstDifference("ab", "ab"), std::string_view::npos);
}

}  // namespace
}  // namespace structtest
