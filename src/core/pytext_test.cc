#include "core/pytext.h"

#include <string>

#include <gtest/gtest.h>

namespace structtest {
namespace {

TEST(PyTextTest, StripMatchesPythonWhitespace) {
  EXPECT_EQ(PyStrip("  a b \t\n"), "a b");
  // U+00A0, U+3000 and U+2028 are whitespace for str.strip(); U+200B is not.
  EXPECT_EQ(PyStrip("\xC2\xA0x\xE3\x80\x80"), "x");
  EXPECT_EQ(PyStrip("\xE2\x80\xA8x"), "x");
  EXPECT_EQ(PyStrip("\xE2\x80\x8Bx"), "\xE2\x80\x8Bx");
  // \x1c-\x1f count; NUL does not.
  EXPECT_EQ(PyStrip("\x1c" "a\x1f"), "a");
  EXPECT_EQ(PyStrip(std::string("\0a", 2)), std::string("\0a", 2));
  EXPECT_EQ(PyStrip(""), "");
  EXPECT_EQ(PyStrip(" \n "), "");
  EXPECT_EQ(PyLStrip("  a "), "a ");
  EXPECT_EQ(PyRStrip("  a "), "  a");
}

TEST(PyTextTest, InvalidUtf8IsNotWhitespaceAndNeverCrashes) {
  EXPECT_EQ(PyStrip("\xFF a \xC2"), "\xFF a \xC2");
  EXPECT_EQ(PyRStrip("a\x80\x80\x80\x80 "), "a\x80\x80\x80\x80");
  EXPECT_EQ(CodePointCount("\xE2\x82"), 2u);  // truncated sequence: two bad bytes
  EXPECT_EQ(CodePointCount("\xE2\x82\xAC"), 1u);
  EXPECT_EQ(CodePointCount("\xED\xA0\x80"), 3u);  // surrogate: invalid
}

TEST(PyTextTest, NumericFollowsStrIsnumeric) {
  EXPECT_TRUE(IsPyNumeric('7'));
  EXPECT_FALSE(IsPyNumeric('a'));
  EXPECT_TRUE(IsPyNumeric(0x00BD));   // ½: numeric, not decimal
  EXPECT_FALSE(IsPyDecimal(0x00BD));
  EXPECT_TRUE(IsPyNumeric(0x0663));   // Arabic-Indic three: decimal
  EXPECT_TRUE(IsPyDecimal(0x0663));
  EXPECT_TRUE(IsPyNumeric(0x2460));   // ①
  EXPECT_FALSE(IsPyDecimal(0x2460));
  EXPECT_TRUE(IsPyNumeric(0x4E09));   // 三
}

TEST(PyTextTest, AlphaAndCase) {
  EXPECT_TRUE(IsPyAlpha(0x00E9));
  EXPECT_TRUE(IsPyAlnum('5'));
  EXPECT_FALSE(IsPyAlnum('_'));
  EXPECT_TRUE(IsPyLower(0x00E9));
  EXPECT_TRUE(IsPyUpper(0x00C9));
  EXPECT_EQ(PyLower("Ab\xC3\x89"), "ab\xC3\xA9");
  EXPECT_EQ(PyLower("A\xFF"), "a\xFF");
}

TEST(PyTextTest, SplitCharKeepsEmptyPieces) {
  const auto parts = SplitChar("a\n\nb\n", '\n');
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(parts[3], "");
  EXPECT_EQ(SplitChar("", '\n').size(), 1u);
}

TEST(PyTextTest, RFindMatchesStdRfind) {
  const std::string hay = "ab</s>cd</s>ef</s";
  for (std::string_view needle : {"</s>", "<", "f</s", "zz", "", "ab</s>cd</s>ef</s", "ab</s>cd</s>ef</s>"}) {
    EXPECT_EQ(RFind(hay, needle), std::string_view(hay).rfind(needle)) << needle;
  }
  EXPECT_EQ(RFind("", "a"), std::string_view::npos);
  EXPECT_EQ(RFind("aaa", "aa"), 1u);
}

TEST(PyTextTest, ReplaceAll) {
  EXPECT_EQ(ReplaceAll("a<b>c<b>", "<b>", " "), "a c ");
  EXPECT_EQ(ReplaceAll("abc", "", "x"), "abc");
}

}  // namespace
}  // namespace structtest
