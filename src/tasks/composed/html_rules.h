// The HTML rules of the composed suite: a page presenting facts from a given list, one
// section (a <div> holding an <h2> heading and a <p> stating the fact) per fact, under K
// format rules drawn from HtmlRules(). As for math (math_rules.h), the page as parts
// (HtmlDraft) is what the rules change and RenderHtml writes; a response read into an
// element tree with the project's html_tokenizer (HtmlParsed, by ParseHtml) is what they
// check. Besides the drawn rules every verdict has `well-formed` (one <html> element,
// every element closed in order; void elements such as <img> and <br> need no end tag)
// and, under strict, `content` (the title and headings hold text, each paragraph states
// a listed fact, no paragraph repeats another, no text loose in a structural element).
// Strict's `well-formed` also carries the HTML family's loophole closing over
// (tasks/html/strict.h): no tag outside the document, one document, comments that HTML
// ends where html.parser does, no other markup inside, no text inside a tag.
#ifndef STRUCTTEST_TASKS_COMPOSED_HTML_RULES_H_
#define STRUCTTEST_TASKS_COMPOSED_HTML_RULES_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/sample.h"
#include "tasks/composed/rule.h"

namespace structtest::composed {

struct HtmlSection {
  std::string heading;  // without any prefix a rule asks for
  std::string text;     // the fact the paragraph states
};

struct HtmlDraft {
  std::vector<std::string> facts;      // the facts the prompt lists
  std::vector<HtmlSection> sections;
  HtmlSection spare;                   // a listed fact no section states
  std::string title = "Facts";
  bool doctype = false;
  std::string comment;                 // the comment line before <html>; "" none
  std::string lang;                    // <html lang>; "" none
  std::string div_class;               // every <div>'s class; "" none
  bool div_class_skip_first = false;
  bool h2_ids = false;                 // id="section-N" on every <h2>
  bool h2_id_repeat = false;           // ... the second repeating the first's (a violation)
  std::string heading_prefix;          // "Topic" makes "Topic: heading"; "" none
  bool heading_prefix_skip_first = false;
  bool upper_first_p = false;          // <P>...</P> (a violation)
  bool body_single_quoted = false;     // <body class='page'> (a violation)
  bool images = false;                 // an <img src alt> in every section
  bool image_alt_empty_first = false;
  std::vector<std::string> footers;    // the texts of the <footer>s after the sections
  bool p_outside_first = false;        // the first <p> after its </div> (a violation)
  int wrap_first_p = 0;                // nested <span>s around the first <p>'s text
  int breaks_first_p = 0;              // <br>s at the end of the first <p>
};

struct HtmlAttribute {
  std::string name;   // lower-cased
  std::string value;
  char quote = 0;     // '"', '\'', 0 unquoted; 'b' bare (no value)
};

struct HtmlElement {
  std::string name;  // lower-cased
  std::vector<HtmlAttribute> attributes;
  int parent = -1;   // index into elements
  int depth = 1;     // <html> is 1
  std::string text;  // the text inside it, its descendants' too, runs joined by a space
  std::string own_text;  // the text directly inside it
};

struct HtmlParsed {
  std::vector<std::string> lines;         // the answer's lines (fence and reasoning cut)
  int html_line = -1;                     // the line of the first <html> start tag
  std::vector<HtmlElement> elements;      // in document order, of the first <html> element
  std::string problem;                    // the first well-formedness problem, "" none
  std::string strict_problem;             // the first of strict's loopholes, "" none
  std::vector<std::string> facts;         // the facts the prompt listed
  bool any_upper_case_tag = false;        // a tag name (start or end) with a capital
  std::string upper_case_tag;             // the first such, as written
};

// The attribute `name` (lower case) of `e`, or null.
const HtmlAttribute* FindAttribute(const HtmlElement& e, std::string_view name);

using HtmlRule = RuleDef<HtmlDraft, HtmlParsed>;

std::span<const HtmlRule> HtmlRules();
const HtmlRule* FindHtmlRule(std::string_view id);

std::string RenderHtml(const HtmlDraft& draft);
HtmlParsed ParseHtml(std::string_view response, std::vector<std::string> facts);

// The checks every HTML verdict has: `well-formed` (stricter under strict), and under
// strict `content`.
RuleCheck CheckHtmlWellFormed(const HtmlParsed& parsed, RuleSet rules);
RuleCheck CheckHtmlContent(const HtmlParsed& parsed);

std::string HtmlBasePrompt(const HtmlDraft& draft);

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_HTML_RULES_H_
