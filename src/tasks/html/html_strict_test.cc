// The strict HTML rule set beyond the golden cases (testdata/golden_strict.jsonl):
// the tokenizer's text events it relies on, the cheats on generated samples, params
// errors, and answers too big for a golden line.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tasks/html/family.h"
#include "tasks/html/generator.h"
#include "tasks/html/html_tokenizer.h"
#include "tasks/html/strict.h"

namespace structtest::html_internal {
namespace {

// The strict checker on `answer`, the sample's params parsed as scoring parses them.
StatusOr<Verdict> Strict(const Sample& s, std::string_view answer) {
  return HtmlFamily().Check(HtmlFamily().subtasks[0], RuleSet::kStrict, s, answer, CheckEnv{});
}

class TextRecorder : public TagVisitor {
 public:
  TextRecorder() : TagVisitor(/*wants_text=*/true) {}
  void OnStartTag(std::string_view name, size_t) override { out += "S:" + std::string(name) + " "; }
  void OnEndTag(std::string_view name, size_t) override { out += "E:" + std::string(name) + " "; }
  void OnText(std::string_view text, size_t pos) override {
    out += "T" + std::to_string(pos) + ":[" + std::string(text) + "] ";
  }
  std::string out;
};

std::string TextEvents(std::string_view html) {
  TextRecorder r;
  ScanTags(html, &r);
  return r.out;
}

TEST(HtmlTokenizerTextTest, TextBetweenMarkupComesWithItsOffset) {
  EXPECT_EQ(TextEvents("a<p>b</p>c"), "T0:[a] S:p T4:[b] E:p T9:[c] ");
  // Comments and declarations are not text; a lone '<' is.
  EXPECT_EQ(TextEvents("<!DOCTYPE html><!-- x --><p>1 < 2</p>"),
            "S:p T28:[1 ] T30:[<] T31:[ 2] E:p ");
  // A start tag Python's parser takes as text (a NUL ends the name, then nothing fits).
  EXPECT_EQ(TextEvents(std::string("<p\0>", 4)), "T0:[<p] T2:[" + std::string(1, '\0') + ">] ");
  // Raw text of <script>, then nothing after an unterminated comment.
  EXPECT_EQ(TextEvents("<script><p></script>x<!-- y"), "S:script T8:[<p>] E:script T20:[x] ");
}

TEST(HtmlTokenizerTextTest, OnlyVisitorsThatAskGetText) {
  class NoText : public TagVisitor {
   public:
    void OnStartTag(std::string_view, size_t) override {}
    void OnEndTag(std::string_view, size_t) override {}
    void OnText(std::string_view, size_t) override { ++texts; }
    int texts = 0;
  } v;
  ScanTags("a<p>b</p>c", &v);
  EXPECT_EQ(v.texts, 0);
}

Sample Generated(bool hard, size_t index) {
  GenerateRequest request;
  request.seed = 5;
  request.index = index;
  auto s = hard ? GenerateHtmlHard(request) : GenerateHtmlEasy(request);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : Sample{};
}

std::string RuleOf(const Verdict& v) { return v.reason.substr(0, v.reason.find(':')); }

TEST(HtmlStrictTest, CheatsPassPaperAndFailStrictWithTheRuleTheyBreak) {
  const SubtaskSpec& spec = HtmlFamily().subtasks[0];
  std::set<std::string> skeleton_rules;
  for (bool hard : {false, true}) {
    for (size_t i = 0; i < 60; ++i) {
      const Sample s = Generated(hard, i);
      for (CheatFn cheat : {&HtmlSkeleton, &HtmlLoophole}) {
        auto answer = cheat(s);
        ASSERT_TRUE(answer.ok()) << answer.status().message();
        auto paper = HtmlFamily().Check(spec, RuleSet::kPaper, s, *answer, CheckEnv{});
        auto strict = Strict(s, *answer);
        ASSERT_TRUE(paper.ok() && strict.ok());
        EXPECT_TRUE(paper->pass) << paper->reason << "\n" << *answer;
        EXPECT_FALSE(strict->pass) << *answer;
        if (cheat == &HtmlSkeleton) skeleton_rules.insert(RuleOf(*strict));
      }
      auto oracle = Strict(s, s.target["answer"].get<std::string>());
      ASSERT_TRUE(oracle.ok());
      EXPECT_TRUE(oracle->pass) << oracle->reason;
    }
  }
  // Every kind of skeleton shows up: flat, divs in one body, filler text.
  EXPECT_EQ(skeleton_rules, (std::set<std::string>{"placement", "children-count", "stray-text"}));
}

TEST(HtmlStrictTest, LoopholeIsTheEmptyHtmlPair) {
  auto answer = HtmlLoophole(Generated(false, 0));
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(*answer, "<html><html/></html>");
}

Sample Small() {
  Sample s;
  s.id = "t";
  s.domain = "html";
  s.subtask = "html_easy";
  s.params = {{"no_of_tags",
               {{"html", 1},
                {"head", 1},
                {"title", 1},
                {"body", 1},
                {"div", 1},
                {"footer", 1},
                {"h1", 1},
                {"h2", 1},
                {"p", 1}}},
              {"ground_truth",
               {{"html", 1},
                {"head", 1},
                {"title", 1},
                {"body", 1},
                {"div", 1},
                {"footer", 1},
                {"h1", 1},
                {"h2", 1},
                {"p", 1}}}};
  return s;
}

constexpr std::string_view kSmallTree =
    "<html><head><title></title></head><body><div><h1></h1><h2></h2><p></p></div>"
    "<footer></footer></body></html>";

TEST(HtmlStrictTest, BadParamsAreErrorsNamingTheField) {
  Sample s = Small();
  s.params.erase("no_of_tags");
  auto v = Strict(s, kSmallTree);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "params.no_of_tags: missing");

  s = Small();
  s.params["no_of_tags"].erase("p");
  v = Strict(s, kSmallTree);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("params.no_of_tags.p"), std::string::npos)
      << v.status().message();

  s = Small();
  s.params["no_of_tags"]["html"] = 2;
  EXPECT_FALSE(Strict(s, kSmallTree).ok());

  s = Small();
  s.params["ground_truth"]["p"] = 2;
  v = Strict(s, kSmallTree);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "params: ground_truth.p is 2, but no_of_tags makes 1");

  s = Small();  // without ground_truth the per-parent counts are enough
  s.params.erase("ground_truth");
  v = Strict(s, kSmallTree);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->pass) << v->reason;
}

TEST(HtmlStrictTest, BigAnswersAreJudgedWhole) {
  const Sample s = Small();
  // A megabyte of words inside a p, and of blank lines between the elements: fine.
  std::string words = std::string(kSmallTree);
  words.insert(words.find("<p>") + 3, std::string(1 << 20, 'w'));
  auto v = Strict(s, words);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->pass) << v->reason.substr(0, 200);
  std::string blank = std::string(kSmallTree);
  blank.insert(blank.find("<body>"), std::string(1 << 20, '\n'));
  v = Strict(s, blank);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->pass) << v->reason.substr(0, 200);
  // A megabyte of text directly in the body is quoted short.
  std::string stray = std::string(kSmallTree);
  stray.insert(stray.find("<div>"), std::string(1 << 20, 'x'));
  v = Strict(s, stray);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->reason, "stray-text: '" + std::string(40, 'x') + "...' directly inside body 1");
  // 100k divs in the body: the first wrong count is named, after the whole scan.
  std::string many = "<html><head><title></title></head><body>";
  for (int i = 0; i < 100000; ++i) many += "<div><h1></h1><h2></h2><p></p></div>";
  many += "<footer></footer></body></html>";
  v = Strict(s, many);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->reason, "children-count: body 1 has 100000 div, expected 1");
}

TEST(HtmlStrictTest, ThinkBlocksAreNotTheAnswer) {
  const Sample s = Small();
  auto v = Strict(s, "<think>a</think><think>b <html></think>\n" + std::string(kSmallTree));
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->pass) << v->reason;
  v = Strict(s, std::string(kSmallTree) + "\n<think>checking");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->pass) << v->reason;
}

}  // namespace
}  // namespace structtest::html_internal
