// The code family's pure-text rules, against what the reference's Python does.
#include "tasks/code/rules.h"

#include <gtest/gtest.h>

namespace structtest {
namespace {

std::string Span(std::string_view response) {
  std::string storage;
  return std::string(ExtractCodeSpan(response, "<ans>", "</ans>", &storage));
}

TEST(ExtractCodeSpanTest, FirstStartToLastEnd) {
  EXPECT_EQ(Span("x <ans> a </ans> b </ans> y"), "a   b");
  EXPECT_EQ(Span("no tags\n"), "no tags");
  EXPECT_EQ(Span("</ans> a <ans>"), "a");  // end before start
  EXPECT_EQ(Span("<ans><ans>x</ans>"), "x");
  EXPECT_EQ(Span("<ans>\xC2\xA0 x \n</ans>"), "x");
  EXPECT_EQ(Span(""), "");
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
  size_t at;
  EXPECT_EQ(MismatchIgnoringPyWhitespace(" a b\n\xC2\xA0" "c ", "abc", &at), std::string_view::npos);
  EXPECT_EQ(MismatchIgnoringPyWhitespace("a b", "abc", &at), 2u);
  EXPECT_EQ(at, 3u);
  EXPECT_EQ(MismatchIgnoringPyWhitespace("a bcd", "abc", &at), 3u);
  EXPECT_EQ(at, 4u);
  EXPECT_EQ(MismatchIgnoringPyWhitespace("a x", "abc", &at), 1u);
  EXPECT_EQ(at, 2u);
  EXPECT_EQ(MismatchIgnoringPyWhitespace("", "", &at), std::string_view::npos);
}

// The word-at-a-time comparison against the obvious one, on random texts.
TEST(WhitespaceTest, MismatchAgreesWithRemovingWhitespace) {
  const std::vector<std::string> pieces = {"a", "b", "x_1", " ", "\t", "\n", "  ", "\x1c",
                                           "\x01", "\xC2\xA0", "\xC3\xA9", "\xE2\x80\x83", "(",
                                           "\xFF", "=", "abcdefghij"};
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (int round = 0; round < 20000; ++round) {
    std::string s, t;
    const int len = static_cast<int>(next(40));
    for (int k = 0; k < len; ++k) s += pieces[next(pieces.size())];
    t = RemovePyWhitespace(s);
    // Mutate the expected text now and then.
    if (next(2) == 0 && !t.empty()) {
      const size_t at = next(t.size());
      if (next(2) == 0) {
        t[at] = static_cast<char>('a' + next(26));
      } else {
        t.erase(at, 1);
      }
    }
    const std::string r = RemovePyWhitespace(s);
    size_t s_at;
    const size_t got = MismatchIgnoringPyWhitespace(s, t, &s_at);
    const size_t want = FirstDifference(t, r);
    // Equal, or both find the difference (at the same byte, or at the start of the code
    // point in which the bytes differ).
    if (want == std::string_view::npos) {
      ASSERT_EQ(got, want) << "s='" << s << "' t='" << t << "'";
    } else {
      ASSERT_NE(got, std::string_view::npos) << "s='" << s << "' t='" << t << "'";
      ASSERT_LE(got, want);
      ASSERT_LT(want - got, 4u);
    }
    if (got != std::string_view::npos) {
      // Everything before s_at has the same non-space text as t before `got`.
      ASSERT_EQ(RemovePyWhitespace(std::string_view(s).substr(0, s_at)), t.substr(0, got));
    }
  }
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
