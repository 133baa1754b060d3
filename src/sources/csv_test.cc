#include "sources/csv.h"

#include <gtest/gtest.h>

namespace structtest::internal {
namespace {

std::vector<std::vector<std::string>> Fields(const std::vector<CsvRecord>& records) {
  std::vector<std::vector<std::string>> out;
  for (const CsvRecord& r : records) out.push_back(r.fields);
  return out;
}

TEST(CsvTest, Rfc4180Basics) {
  const auto r = ParseCsv("a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\r\n", "f.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  using V = std::vector<std::vector<std::string>>;
  EXPECT_EQ(Fields(*r), (V{{"a", "b", "c"}, {"1", "x,y", "say \"hi\""}}));
}

TEST(CsvTest, EmptyFieldsAndLineEndings) {
  const auto r = ParseCsv("a,,\r1,\"\",3\n,\n", "f.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  using V = std::vector<std::vector<std::string>>;
  EXPECT_EQ(Fields(*r), (V{{"a", "", ""}, {"1", "", "3"}, {"", ""}}));
}

TEST(CsvTest, QuotedLineBreaksKeepLineNumbers) {
  const auto r = ParseCsv("h\n\"one\ntwo\nthree\"\n\nlast\n", "f.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[1].fields[0], "one\ntwo\nthree");
  EXPECT_EQ((*r)[1].line, 2);
  EXPECT_EQ((*r)[2].line, 6);
}

TEST(CsvTest, QuoteInsideUnquotedFieldIsKept) {
  const auto r = ParseCsv("a 5\" screen,b\n", "f.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].fields[0], "a 5\" screen");
}

TEST(CsvTest, Errors) {
  EXPECT_EQ(ParseCsv("a,\"open\n", "f.csv").status().message(),
            "f.csv:2: unterminated quoted field (its opening quote is on line 1)");
  EXPECT_EQ(ParseCsv("\"a\"b\n", "f.csv").status().message(),
            "f.csv:1: unexpected character after the closing quote of field 1");
}

TEST(CsvTest, ByteOrderMarkAndEmptyInput) {
  const auto r = ParseCsv("\xEF\xBB\xBFtext\n", "f.csv");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].fields[0], "text");
  EXPECT_TRUE(ParseCsv("", "f.csv")->empty());
}

}  // namespace
}  // namespace structtest::internal
