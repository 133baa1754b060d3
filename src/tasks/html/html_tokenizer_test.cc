// The tag scanner against what CPython 3.11's HTMLParser.feed() reports. Every
// expected string below was produced by python3's html.parser on the same input; a
// random differential run against python3 (200k generated inputs) agreed too.
#include "tasks/html/html_tokenizer.h"

#include <gtest/gtest.h>

#include <string>

namespace structtest::html_internal {
namespace {

class Recorder : public TagVisitor {
 public:
  void OnStartTag(std::string_view name, size_t) override { Add("S:", name); }
  void OnEndTag(std::string_view name, size_t) override { Add("E:", name); }
  std::string events;
  int count = 0;

 private:
  void Add(std::string_view kind, std::string_view name) {
    std::string lower;
    PyLowerTagName(name, &lower);
    if (!events.empty()) events += ' ';
    events += kind;
    events += lower;
    ++count;
  }
};

// "S:p E:p", with " INCOMPLETE" / " RAISED" appended when the parser stops early.
std::string Events(std::string_view html) {
  Recorder r;
  const ScanResult result = ScanTags(html, &r);
  std::string out = r.events;
  if (result.end == ScanResult::End::kIncomplete) out += " INCOMPLETE";
  if (result.end == ScanResult::End::kError) out += " RAISED";
  return out;
}

TEST(HtmlTokenizerTest, StartAndEndTagsAreLowerCased) {
  EXPECT_EQ(Events("<p></p>"), "S:p E:p");
  EXPECT_EQ(Events("<P>x</P>"), "S:p E:p");
  EXPECT_EQ(Events("<DİV></dİv>"), "S:di̇v E:di̇v");  // Python's full lower()
}

TEST(HtmlTokenizerTest, SelfClosingIsStartAndEnd) {
  EXPECT_EQ(Events("<br/>"), "S:br E:br");
  EXPECT_EQ(Events("<p/ >"), "S:p");
  // The bare value "b/" takes the slash: a start tag only.
  EXPECT_EQ(Events("<h1 class=\"a\" id=b/>"), "S:h1");
  EXPECT_EQ(Events("<script/><p>"), "S:script E:script S:p");
}

TEST(HtmlTokenizerTest, OddTagNames) {
  EXPECT_EQ(Events("<a<b>"), "S:a<b");
  EXPECT_EQ(Events("< p>"), "");
  EXPECT_EQ(Events(std::string_view("<p\0>", 4)), "");
  EXPECT_EQ(Events("<p\u00a0>"), "S:p\u00a0");  // a name ends only at ASCII space etc.
  EXPECT_EQ(Events("<p\x0b>"), "S:p\x0b");
  EXPECT_EQ(Events("<a b='1'c>"), "S:a");
}

TEST(HtmlTokenizerTest, EndTags) {
  EXPECT_EQ(Events("</>"), "");
  EXPECT_EQ(Events("</p x=1>"), "E:p");
  EXPECT_EQ(Events("</ p>"), "E:p");
  EXPECT_EQ(Events("</p\u00a0>"), "E:p");
  EXPECT_EQ(Events("</p"), " INCOMPLETE");
}

TEST(HtmlTokenizerTest, CommentsDeclarationsAndInstructionsHideTags) {
  EXPECT_EQ(Events("<!-- <p> -->"), "");
  EXPECT_EQ(Events("<p><!-- x --><p>"), "S:p S:p");
  EXPECT_EQ(Events("<!--->--><p>"), "S:p");
  EXPECT_EQ(Events("<!DOCTYPE html><p>"), "S:p");
  EXPECT_EQ(Events("<?xml version?><p>"), "S:p");
  EXPECT_EQ(Events("<!x><p>"), "S:p");
  EXPECT_EQ(Events("<![CDATA[<p>]]><p>"), "S:p");
  EXPECT_EQ(Events("<![CDATA[ x ] ] ><p>"), "S:p");
  EXPECT_EQ(Events("<![if x]><p><![endif]>"), "S:p");
}

TEST(HtmlTokenizerTest, UnterminatedConstructsStopTheParser) {
  EXPECT_EQ(Events("<!-- <p>"), " INCOMPLETE");
  EXPECT_EQ(Events("<p"), " INCOMPLETE");
  EXPECT_EQ(Events("<!doctype"), " INCOMPLETE");
  // An unterminated quoted value: Python's feed() never gets past it.
  EXPECT_EQ(Events("<div class='x>y</div>"), " INCOMPLETE");
  // ...unless the regex backtracks to an empty or '='-started bare value.
  EXPECT_EQ(Events("<div class= 'x>y</div>"), "S:div E:div");
  EXPECT_EQ(Events("<div class=='x>y</div>"), "S:div E:div");
  EXPECT_EQ(Events("<div class='x'>y</div>"), "S:div E:div");
}

TEST(HtmlTokenizerTest, UnknownMarkedSectionRaises) {
  EXPECT_EQ(Events("<p><![foo[x]]>"), "S:p RAISED");
  EXPECT_EQ(Events("<![ x]]>"), " RAISED");
}

TEST(HtmlTokenizerTest, ScriptAndStyleContentIsText) {
  EXPECT_EQ(Events("<script><p></p></script>"), "S:script E:script");
  EXPECT_EQ(Events("<style>a</STYLE >b<p>"), "S:style E:style S:p");
  EXPECT_EQ(Events("<SCRIPT>x</script\u00a0><p>"), "S:script E:script S:p");
  EXPECT_EQ(Events("<script></style><p>"), "S:script INCOMPLETE");
}

TEST(HtmlTokenizerTest, EntitiesAreText) {
  EXPECT_EQ(Events("<p>&amp;</p>"), "S:p E:p");
  EXPECT_EQ(Events("<p>x&</p>"), "S:p E:p");
}

// Inputs on which a naive port of the regexes is quadratic (hours at these sizes).
TEST(HtmlTokenizerTest, HostileInputsStayLinear) {
  auto check = [](const std::string& s) {
    Recorder r;
    ScanTags(s, &r);
    return r.count;
  };
  // 100k nested tags.
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "<div>";
  for (int i = 0; i < 100000; ++i) nested += "</div>";
  EXPECT_EQ(check(nested), 200000);
  // Unterminated quotes that the regex backtracks over, again and again.
  std::string quotes;
  for (int i = 0; i < 100000; ++i) quotes += "<a b= \"x>";
  EXPECT_GT(check(quotes), 0);
  // Dashes and spaces without a comment end; brackets without a section end.
  EXPECT_EQ(check("<!--" + std::string(1 << 20, '-') + std::string(1 << 20, ' ')), 0);
  EXPECT_EQ(check("<![CDATA[" + std::string(1 << 20, ']') + std::string(1 << 20, ' ')),
            0);
  std::string brackets = "<![CDATA[";
  for (int i = 0; i < 200000; ++i) brackets += "] ";
  EXPECT_EQ(check(brackets), 0);
  // Raw text with many near-miss end tags.
  std::string script = "<script>";
  for (int i = 0; i < 200000; ++i) script += "</scrip ";
  EXPECT_EQ(check(script), 1);
  // Invalid UTF-8 and NUL bytes everywhere.
  std::string junk;
  for (int i = 0; i < 1 << 20; ++i) junk.push_back(static_cast<char>((i * 7919) & 0xFF));
  check(junk);
}

}  // namespace
}  // namespace structtest::html_internal
