// The paper HTML rule: answer extraction (with the <think> quirk), then balance and
// counts per tag name that occurs.
#include "tasks/html/family.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "testing/test_support.h"

namespace structtest {
namespace {

Sample HtmlSample(nlohmann::json ground_truth) {
  Sample s;
  s.id = "t";
  s.domain = "html";
  s.subtask = "html_easy";
  s.params = {{"ground_truth", std::move(ground_truth)},
              {"mode", "nested"},
              {"config", "nested"},
              {"no_of_tags", nlohmann::json::object()}};
  s.context = {{"start_tag", "<html>"}, {"end_tag", "</html>"}};
  return s;
}

const nlohmann::json kTwoP = {{"html", 1}, {"body", 1}, {"p", 2}};

Verdict CheckHtml(const Sample& s, std::string_view response) {
  const auto v =
      HtmlFamily().Check(HtmlFamily().subtasks[0], RuleSet::kPaper, s, response, CheckEnv{});
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : Verdict{};
}

TEST(HtmlFamilyTest, Descriptor) {
  const TaskFamily& f = HtmlFamily();
  EXPECT_EQ(f.domain, "html");
  EXPECT_FALSE(f.rules_version.empty());
  ASSERT_EQ(f.subtasks.size(), 2u);
  EXPECT_EQ(f.subtasks[0].name, "html_easy");
  EXPECT_EQ(f.subtasks[0].split, Split::kEasy);
  EXPECT_EQ(f.subtasks[1].name, "html_hard");
  EXPECT_EQ(f.subtasks[1].split, Split::kHard);
  for (const auto& st : f.subtasks) {
    EXPECT_NE(st.check_paper, nullptr);
    EXPECT_FALSE(st.needs_sentences);
  }
}

TEST(HtmlExtractTest, SpanBetweenFirstTagsCleanedUp) {
  EXPECT_EQ(ExtractHtmlAnswer("x<html>\n\n <p>\n\n\n</p>  \n</html>y<html>z</html>"),
            "<p>\n</p>");
  EXPECT_EQ(ExtractHtmlAnswer("<html>a"), std::nullopt);
  EXPECT_EQ(ExtractHtmlAnswer("a</html>"), std::nullopt);
  EXPECT_EQ(ExtractHtmlAnswer("</html><html>"), "");  // end before start: empty
  EXPECT_EQ(ExtractHtmlAnswer("<HTML>a</HTML>"), std::nullopt);  // exact, lower case
}

TEST(HtmlExtractTest, ThinkQuirkKeepsTheAngleBracket) {
  // From 6 characters after "<think>" (len("<html>")): the span ">plan <html>x</html>"
  // is cut, leaving "<think</think>".
  EXPECT_EQ(ExtractHtmlAnswer("<think>plan <html>x</html></think><html><p></p></html>"),
            "<p></p>");
  // The cut text is removed everywhere it occurs.
  EXPECT_EQ(ExtractHtmlAnswer("<html>>a</html><think>>a</think>"), std::nullopt);
  // Only with both think tags.
  EXPECT_EQ(ExtractHtmlAnswer("<think><html>a</html>"), "a");
}

TEST(HtmlCheckTest, PassesWhenBalancedAndCounted) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><body><p></p><p></p></body></html>");
  EXPECT_TRUE(v.pass) << v.reason;
  EXPECT_EQ(v.reason, "balanced, and as many as expected: 1 <body> 2 <p>");
}

TEST(HtmlCheckTest, CountMismatch) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><body><p></p></body></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "expected 2 <p> tags, found 1");
}

TEST(HtmlCheckTest, ClosedMoreThanOpened) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><body><p></p><p></p></p></body></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "<p> closed 1 time more than opened");
}

TEST(HtmlCheckTest, NeverClosed) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><body><p><p></p></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason,
            "<body> opened 1 time more than closed (and 1 more tag name wrong)");
}

TEST(HtmlCheckTest, ClosedBeforeOpened) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html></p><body><p></p><p></body></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "</p> comes before its <p> is opened (once)");
}

TEST(HtmlCheckTest, UnexpectedTag) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><body><p></p><p></p><br/></body></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "<br> is not one of the expected tags");
}

TEST(HtmlCheckTest, MissingTagNamesAreNotChecked) {
  // Paper quirk: only names that occur are checked (body is absent, still a pass).
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><p></p><p></p></html>");
  EXPECT_TRUE(v.pass) << v.reason;
}

// The reference returns 0 for an answer in which its parser sees no start or end
// tag: text only, a comment only, a doctype only.
TEST(HtmlCheckTest, RegressionAnswerWithoutTagsFails) {
  const std::string reason =
      "no start or end tag in the answer (the reference fails an answer in which its "
      "parser sees no tag)";
  for (const char* response : {"<html>just text</html>", "<html><!-- p p --></html>",
                               "<html><!DOCTYPE html></html>", "<html>a < b</html>"}) {
    const Verdict v = CheckHtml(HtmlSample(kTwoP), response);
    EXPECT_FALSE(v.pass) << response;
    EXPECT_EQ(v.reason, reason) << response;
  }
}

TEST(HtmlCheckTest, NestingIsNotChecked) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><p><body></p><p></body></p></html>");
  EXPECT_TRUE(v.pass) << v.reason;
}

TEST(HtmlCheckTest, MissingOrEmptyAnswerFails) {
  EXPECT_EQ(CheckHtml(HtmlSample(kTwoP), "<body><p></p><p></p></body>").reason,
            "no <html> ... </html> in the response");
  EXPECT_EQ(CheckHtml(HtmlSample(kTwoP), "<html> \n\n </html>").reason,
            "nothing between <html> and </html>");
}

TEST(HtmlCheckTest, UnterminatedCommentHidesTheRest) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><body><p></p><!-- <p></p></body></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason,
            "<body> opened 1 time more than closed (and 1 more tag name wrong) (parsing "
            "stopped at byte 13 of the answer: unterminated comment; as in the "
            "reference, nothing after it counts)");
}

TEST(HtmlCheckTest, ParserErrorFails) {
  const Verdict v = CheckHtml(HtmlSample(kTwoP), "<html><![x[ ]]></html>");
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("AssertionError"), std::string::npos) << v.reason;
}

TEST(HtmlCheckTest, TagsComeFromContext) {
  Sample s = HtmlSample(kTwoP);
  s.context = {{"start_tag", "<ans>"}, {"end_tag", "</ans>"}};
  EXPECT_TRUE(CheckHtml(s, "<ans><p></p><p></p></ans>").pass);
  s.context = nlohmann::json::object();  // defaults to <html>
  EXPECT_TRUE(CheckHtml(s, "<html><p></p><p></p></html>").pass);
}

TEST(HtmlCheckTest, BadParamsAreErrorsNamingTheField) {
  const auto check = [](const Sample& s, std::string_view response, const CheckEnv& env) {
    return HtmlFamily().Check(HtmlFamily().subtasks[1], RuleSet::kPaper, s, response, env);
  };
  Sample s = HtmlSample(kTwoP);
  s.params.erase("ground_truth");
  auto v = check(s, "<html></html>", CheckEnv{});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "params.ground_truth: missing");

  s = HtmlSample({{"p", "two"}});
  v = check(s, "<html></html>", CheckEnv{});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("params.ground_truth.p"), std::string::npos);

  s = HtmlSample({{"p", -1}});
  EXPECT_FALSE(check(s, "<html></html>", CheckEnv{}).ok());

  s = HtmlSample(kTwoP);
  s.params["ground_truth"] = nlohmann::json::array();
  EXPECT_FALSE(check(s, "<html></html>", CheckEnv{}).ok());

  s = HtmlSample(kTwoP);
  s.params["mode"] = "nested_eval";
  v = check(s, "<html></html>", CheckEnv{});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kUnimplemented);

  s = HtmlSample(kTwoP);
  s.context["start_tag"] = 3;
  v = check(s, "<html></html>", CheckEnv{});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("context.start_tag"), std::string::npos);
}

TEST(HtmlCheckTest, HostileResponsesFailWithoutCrashing) {
  const Sample s = HtmlSample(kTwoP);
  EXPECT_FALSE(CheckHtml(s, "").pass);
  EXPECT_FALSE(CheckHtml(s, " \n\t ").pass);
  EXPECT_FALSE(CheckHtml(s, std::string(10 << 20, 'x')).pass);
  constexpr char kJunk[] = "<html>\0<p>\xff\xfe</p>\0</html>";
  EXPECT_FALSE(CheckHtml(s, std::string(kJunk, sizeof(kJunk) - 1)).pass);
  std::string nested = "<html>";
  for (int i = 0; i < 100000; ++i) nested += "<p>";
  for (int i = 0; i < 100000; ++i) nested += "</p>";
  nested += "</html>";
  EXPECT_EQ(CheckHtml(s, nested).reason, "expected 2 <p> tags, found 100000");
  std::string many = "<html>";
  for (int i = 0; i < 100000; ++i) many += "<t" + std::to_string(i) + ">";
  many += "</html>";
  const Verdict v = CheckHtml(s, many);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason,
            "<t0> is not one of the expected tags (and 99999 more tag names wrong)");
  std::string blank = "<html>";
  for (int i = 0; i < 1000000; ++i) blank += "\n\n";
  blank += "</html>";
  EXPECT_FALSE(CheckHtml(s, blank).pass);
}

}  // namespace
}  // namespace structtest
