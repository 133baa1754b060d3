#include "tasks/composed/html_rules.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "tasks/composed/rule_text.h"
#include "tasks/composed/source_text.h"
#include "tasks/html/html_tokenizer.h"
#include "tasks/html/strict.h"
#include "tasks/summarization/strict.h"

namespace structtest::composed {

// The composed library is a unity build: this file's helpers have a namespace of their
// own so as not to meet the other domains'.
namespace html_rules_internal {

using html_internal::MarkupKind;
using html_internal::ScanResult;

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

// `s` without ASCII whitespace (newlines too) at either end.
std::string_view Trimmed(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Elements that have no end tag in HTML.
bool IsVoid(std::string_view name) {
  static constexpr std::string_view kVoid[] = {"area", "base", "br",   "col",   "embed", "hr",   "img",
                                               "input", "link", "meta", "source", "track", "wbr"};
  return std::find(std::begin(kVoid), std::end(kVoid), name) != std::end(kVoid);
}

// The attributes of a start tag's interior: `name`, `name=value`, `name="value"`,
// `name='value'`, separated by whitespace or '/'.
std::vector<HtmlAttribute> ReadAttributes(std::string_view s) {
  std::vector<HtmlAttribute> out;
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/'; };
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    while (i < n && space(s[i])) ++i;
    if (i == n) break;
    const size_t b = i;
    while (i < n && !space(s[i]) && s[i] != '=') ++i;
    HtmlAttribute a;
    a.name = LowerAscii(s.substr(b, i - b));
    a.quote = 'b';
    size_t k = i;
    while (k < n && space(s[k]) && s[k] != '/') ++k;
    if (k < n && s[k] == '=') {
      ++k;
      while (k < n && space(s[k]) && s[k] != '/') ++k;
      if (k < n && (s[k] == '"' || s[k] == '\'')) {
        a.quote = s[k];
        const size_t close = s.find(s[k], k + 1);
        const size_t end = close == std::string_view::npos ? n : close;
        a.value = std::string(s.substr(k + 1, end - k - 1));
        i = end == n ? n : end + 1;
      } else {
        a.quote = 0;
        const size_t v = k;
        while (k < n && !(space(s[k]) && s[k] != '/')) ++k;
        a.value = std::string(s.substr(v, k - v));
        i = k;
      }
    }
    if (i == b) ++i;  // a lone '=': skip it
    if (!a.name.empty()) out.push_back(std::move(a));
  }
  return out;
}

// Builds the element tree of the first <html> element and notes the first problem of
// well-formedness (paper and strict) and of strict's loopholes.
class TreeBuilder : public html_internal::TagVisitor {
 public:
  TreeBuilder(std::string_view text, HtmlParsed* out) : TagVisitor(/*wants_text=*/true), text_(text), out_(out) {}

  void OnStartTag(std::string_view raw, size_t pos) override {
    std::string name = LowerAscii(raw);
    NoteCase(raw, name);
    last_start_ = -1;
    if (state_ == State::kBefore && name != "html") {
      Strict(fmt::format("<{}> before <html>", name));
      return;
    }
    if (state_ == State::kAfter) {
      Strict(name == "html" ? std::string("a second <html> after </html>") : fmt::format("<{}> after </html>", name));
      return;
    }
    if (state_ == State::kIn && name == "html") Strict("an <html> inside the document");
    HtmlElement e;
    e.name = std::move(name);
    if (!stack_.empty()) {
      e.parent = stack_.back();
      e.depth = out_->elements[static_cast<size_t>(e.parent)].depth + 1;
    }
    out_->elements.push_back(std::move(e));
    last_start_ = static_cast<int>(out_->elements.size()) - 1;
    if (state_ == State::kBefore) {
      state_ = State::kIn;
      out_->html_line = static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<ptrdiff_t>(pos), '\n'));
    }
    if (!IsVoid(out_->elements.back().name)) stack_.push_back(last_start_);
  }

  void OnEndTag(std::string_view raw, size_t) override {
    const std::string name = LowerAscii(raw);
    NoteCase(raw, name);
    last_start_ = -1;
    if (IsVoid(name)) return;  // `<br/>`, or a stray `</br>` HTML reads as <br>
    if (state_ != State::kIn) {
      Strict(fmt::format("</{}> {}", name, state_ == State::kBefore ? "before <html>" : "after </html>"));
      return;
    }
    const std::string& open = out_->elements[static_cast<size_t>(stack_.back())].name;
    if (name != open) {
      const bool anywhere = std::any_of(stack_.begin(), stack_.end(), [&](int i) {
        return out_->elements[static_cast<size_t>(i)].name == name;
      });
      Paper(anywhere ? fmt::format("</{}> while <{}> is still open", name, open)
                     : fmt::format("</{}> where no <{}> is open", name, name));
      if (!anywhere) return;
      while (out_->elements[static_cast<size_t>(stack_.back())].name != name) stack_.pop_back();
    }
    stack_.pop_back();
    if (stack_.empty()) state_ = State::kAfter;
  }

  void OnText(std::string_view text, size_t) override {
    last_start_ = -1;
    if (state_ != State::kIn) return;
    out_->elements[static_cast<size_t>(stack_.back())].own_text += text;
    for (int i : stack_) {
      std::string& t = out_->elements[static_cast<size_t>(i)].text;
      t += text;
    }
  }

  void OnMarkup(MarkupKind kind, std::string_view text, size_t) override {
    last_start_ = -1;
    if (kind == MarkupKind::kComment) {
      const std::string_view why = html_internal::CommentEndsElsewhere(text);
      if (!why.empty()) Strict(fmt::format("the comment {} {}", QuoteText(text), why));
      return;
    }
    if (state_ == State::kIn) Strict(fmt::format("markup other than a comment, {}, inside the document", QuoteText(text)));
  }

  void OnTagInterior(std::string_view, std::string_view interior, size_t pos) override {
    const bool end_tag = pos + 1 < text_.size() && text_[pos + 1] == '/';
    if (end_tag) {
      if (state_ == State::kIn) Strict(fmt::format("text inside an end tag: {}", QuoteText(Trimmed(interior))));
      return;
    }
    if (last_start_ < 0) return;
    out_->elements[static_cast<size_t>(last_start_)].attributes = ReadAttributes(interior);
    const std::string_view word = html_internal::NonAttributeWord(interior);
    if (!word.empty()) {
      Strict(fmt::format("{} inside the start tag <{}> is not an attribute", QuoteText(word),
                         out_->elements[static_cast<size_t>(last_start_)].name));
    }
  }

  void Finish(const ScanResult& scan) {
    if (scan.end != ScanResult::End::kComplete) {
      Paper(fmt::format("the markup breaks off at byte {}: {}", scan.stop_pos, scan.what));
    }
    if (state_ == State::kBefore) Paper("no <html> element");
    if (state_ == State::kIn) {
      Paper(fmt::format("<{}> is never closed", out_->elements[static_cast<size_t>(stack_.back())].name));
    }
  }

 private:
  enum class State { kBefore, kIn, kAfter };
  void Paper(std::string problem) {
    if (out_->problem.empty()) out_->problem = std::move(problem);
  }
  void Strict(std::string problem) {
    if (out_->strict_problem.empty()) out_->strict_problem = std::move(problem);
  }
  void NoteCase(std::string_view raw, std::string_view lower) {
    if (out_->any_upper_case_tag || lower == raw) return;
    out_->any_upper_case_tag = true;
    out_->upper_case_tag = std::string(raw);
  }

  std::string_view text_;
  HtmlParsed* out_;
  State state_ = State::kBefore;
  std::vector<int> stack_;
  int last_start_ = -1;  // the element whose start tag was the last event
};

// ---- Rendering ----

std::string Heading(const HtmlDraft& d, size_t i) {
  const std::string& h = d.sections[i].heading;
  if (d.heading_prefix.empty() || (d.heading_prefix_skip_first && i == 0)) return h;
  return d.heading_prefix + ": " + h;
}

std::string FirstParagraph(const HtmlDraft& d, std::string text) {
  for (int k = 0; k < d.wrap_first_p; ++k) text = "<span>" + text + "</span>";
  for (int k = 0; k < d.breaks_first_p; ++k) text += "<br>";
  return text;
}

// ---- The rules ----

constexpr std::string_view kNoConflict[] = {""};
constexpr std::span<const std::string_view> kCompatibleWithAll(kNoConflict, 0);

template <typename Pred>
int CountOf(const HtmlParsed& m, Pred pred) {
  return static_cast<int>(std::count_if(m.elements.begin(), m.elements.end(), pred));
}
int CountNamed(const HtmlParsed& m, std::string_view name) {
  return CountOf(m, [&](const HtmlElement& e) { return e.name == name; });
}
std::string_view ParentName(const HtmlParsed& m, const HtmlElement& e) {
  return e.parent < 0 ? std::string_view("nothing") : std::string_view(m.elements[static_cast<size_t>(e.parent)].name);
}

// div-count (paper: the exact count of a tag)
nlohmann::json DrawDivCount(Rng* rng, const HtmlDraft& d) {
  const int most = static_cast<int>(d.sections.size());
  return {{"n", static_cast<int>(rng->UniformInt(std::min(3, most), most))}};
}
std::string DivCountText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Present exactly {} facts: the page has exactly {} <div> elements, one per section.", IntParam(p, "n"), IntParam(p, "n"));
  return fmt::format("Use exactly {} sections, so exactly {} <div> elements in the whole document.", IntParam(p, "n"), IntParam(p, "n"));
}
void ApplyDivCount(const nlohmann::json& p, HtmlDraft* d) {
  const size_t n = static_cast<size_t>(std::max(1, IntParam(p, "n")));
  if (d->sections.size() > n) d->sections.resize(n);
}
void ViolateDivCount(const nlohmann::json&, HtmlDraft* d) { d->sections.push_back(d->spare); }
RuleCheck CheckDivCount(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const int n = IntParam(p, "n"), found = CountNamed(m, "div");
  if (found == n) return RulePass("div-count");
  return RuleFail("div-count", fmt::format("expected {} <div> elements, found {}", n, found));
}

// nesting (paper: the nesting of tags)
std::string NestingText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Nest strictly: every <h2> and every <p> directly inside a <div>, and every <div> directly inside the <body>.";
  return "Each <div> must be a child of <body>, and each <h2> and <p> a child of a <div> (not deeper, not elsewhere).";
}
void ViolateNesting(const nlohmann::json&, HtmlDraft* d) { d->p_outside_first = true; }
RuleCheck CheckNesting(const nlohmann::json&, const HtmlParsed& m, RuleSet) {
  for (const HtmlElement& e : m.elements) {
    const bool leaf = e.name == "h2" || e.name == "p";
    if (!leaf && e.name != "div") continue;
    const std::string_view want = leaf ? "div" : "body";
    if (ParentName(m, e) != want) {
      return RuleFail("nesting", fmt::format("a <{}> directly inside <{}>, not <{}>", e.name, ParentName(m, e), want));
    }
  }
  return RulePass("nesting");
}

// footer-count (paper: the exact count of a tag)
nlohmann::json DrawFooterCount(Rng* rng, const HtmlDraft&) { return {{"n", static_cast<int>(rng->UniformInt(1, 3))}}; }
std::string FooterCountText(const nlohmann::json& p, int phrasing) {
  const int n = IntParam(p, "n");
  if (phrasing == 0) return fmt::format("End the <body> with exactly {} <footer> element{}, each holding a short note.", n, n == 1 ? "" : "s");
  return fmt::format("After the sections, write {} <footer> element{} (no more, no fewer) with a line of text in each.", n, n == 1 ? "" : "s");
}
void ApplyFooterCount(const nlohmann::json& p, HtmlDraft* d) {
  d->footers.clear();
  for (int i = 1; i <= IntParam(p, "n"); ++i) d->footers.push_back(fmt::format("Note {}: compiled from the listed facts.", i));
}
void ViolateFooterCount(const nlohmann::json&, HtmlDraft* d) { d->footers.push_back("One more note on the facts."); }
RuleCheck CheckFooterCount(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const int n = IntParam(p, "n"), found = CountNamed(m, "footer");
  if (found == n) return RulePass("footer-count");
  return RuleFail("footer-count", fmt::format("expected {} <footer> elements, found {}", n, found));
}

// doctype
std::string DoctypeText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "The first line of the answer must be `<!DOCTYPE html>`.";
  return "Open the document with the line `<!DOCTYPE html>`, before anything else.";
}
void ApplyDoctype(const nlohmann::json&, HtmlDraft* d) { d->doctype = true; }
void ViolateDoctype(const nlohmann::json&, HtmlDraft* d) { d->doctype = false; }
RuleCheck CheckDoctype(const nlohmann::json&, const HtmlParsed& m, RuleSet) {
  for (const std::string& line : m.lines) {
    const std::string_view t = Trimmed(line);
    if (t.empty()) continue;
    if (LowerAscii(t) == "<!doctype html>") return RulePass("doctype");
    return RuleFail("doctype", fmt::format("the first line is {}", QuoteText(t)));
  }
  return RuleFail("doctype", "the answer is empty");
}

// top-comment
constexpr std::string_view kComments[] = {"Fact sheet", "Generated page", "Draft for review", "Built from the list"};
nlohmann::json DrawComment(Rng* rng, const HtmlDraft&) { return {{"text", std::string(PickOf(rng, kComments))}}; }
std::string CommentText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Put the comment `<!-- {} -->` on a line of its own, directly before the <html> start tag.", StrParam(p, "text"));
  return fmt::format("The line right before `<html>` must be the comment `<!-- {} -->` and nothing else.", StrParam(p, "text"));
}
void ApplyComment(const nlohmann::json& p, HtmlDraft* d) { d->comment = StrParam(p, "text"); }
void ViolateComment(const nlohmann::json&, HtmlDraft* d) { d->comment.clear(); }
RuleCheck CheckComment(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  if (m.html_line < 0) return RuleFail("top-comment", "no <html> element");
  const std::string& at = m.lines[static_cast<size_t>(m.html_line)];
  const size_t open = LowerAscii(at).find("<html");
  if (open != std::string::npos && !Trimmed(std::string_view(at).substr(0, open)).empty()) {
    return RuleFail("top-comment", "<html> does not start its line");
  }
  for (int i = m.html_line - 1; i >= 0; --i) {
    const std::string_view t = Trimmed(m.lines[static_cast<size_t>(i)]);
    if (t.empty()) continue;
    if (t.starts_with("<!--") && t.ends_with("-->") && t.size() >= 7 &&
        Trimmed(t.substr(4, t.size() - 7)) == StrParam(p, "text")) {
      return RulePass("top-comment");
    }
    return RuleFail("top-comment", fmt::format("the line before <html> is {}", QuoteText(t)));
  }
  return RuleFail("top-comment", "no line before <html>");
}

// title-text
constexpr std::string_view kTitles[] = {"Fact Sheet", "Key Facts", "What the Record Shows", "Notes on the Facts"};
nlohmann::json DrawTitle(Rng* rng, const HtmlDraft&) { return {{"title", std::string(PickOf(rng, kTitles))}}; }
std::string TitleText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("The page's <title> must read exactly `{}`.", StrParam(p, "title"));
  return fmt::format("Title the page `{}`: that text, and only it, inside <title>.", StrParam(p, "title"));
}
void ApplyTitle(const nlohmann::json& p, HtmlDraft* d) { d->title = StrParam(p, "title"); }
void ViolateTitle(const nlohmann::json& p, HtmlDraft* d) { d->title = StrParam(p, "title") + " (draft)"; }
RuleCheck CheckTitle(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const auto it = std::find_if(m.elements.begin(), m.elements.end(), [](const HtmlElement& e) { return e.name == "title"; });
  if (it == m.elements.end()) return RuleFail("title-text", "no <title> element");
  const std::string_view t = Trimmed(it->text);
  if (t == StrParam(p, "title")) return RulePass("title-text");
  return RuleFail("title-text", fmt::format("the title is {}, not '{}'", QuoteText(t), StrParam(p, "title")));
}

// lang-attribute
constexpr std::string_view kLangs[] = {"en", "en-GB", "en-US"};
nlohmann::json DrawLang(Rng* rng, const HtmlDraft&) { return {{"lang", std::string(PickOf(rng, kLangs))}}; }
std::string LangText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Give the <html> element the attribute lang=\"{}\".", StrParam(p, "lang"));
  return fmt::format("Declare the page's language on its root: `<html lang=\"{}\">`.", StrParam(p, "lang"));
}
void ApplyLang(const nlohmann::json& p, HtmlDraft* d) { d->lang = StrParam(p, "lang"); }
void ViolateLang(const nlohmann::json&, HtmlDraft* d) { d->lang.clear(); }
RuleCheck CheckLang(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  if (m.elements.empty()) return RuleFail("lang-attribute", "no <html> element");
  const HtmlAttribute* a = FindAttribute(m.elements.front(), "lang");
  if (a == nullptr) return RuleFail("lang-attribute", "<html> has no lang attribute");
  if (a->value != StrParam(p, "lang")) return RuleFail("lang-attribute", fmt::format("lang is {}, not '{}'", QuoteText(a->value), StrParam(p, "lang")));
  return RulePass("lang-attribute");
}

// div-class
constexpr std::string_view kClasses[] = {"section", "fact", "card", "entry"};
nlohmann::json DrawDivClass(Rng* rng, const HtmlDraft&) { return {{"class", std::string(PickOf(rng, kClasses))}}; }
std::string DivClassText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Every <div> carries the class `{}` (class=\"{}\").", StrParam(p, "class"), StrParam(p, "class"));
  return fmt::format("Mark each section: each <div> must have `{}` among its classes.", StrParam(p, "class"));
}
void ApplyDivClass(const nlohmann::json& p, HtmlDraft* d) { d->div_class = StrParam(p, "class"); }
void ViolateDivClass(const nlohmann::json&, HtmlDraft* d) { d->div_class_skip_first = true; }
RuleCheck CheckDivClass(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const std::string want = StrParam(p, "class");
  int index = 0;
  for (const HtmlElement& e : m.elements) {
    if (e.name != "div") continue;
    ++index;
    const HtmlAttribute* a = FindAttribute(e, "class");
    const std::vector<std::string> classes = [&] {
      std::vector<std::string> out;
      if (a == nullptr) return out;
      std::string c;
      for (char ch : a->value + " ") {
        if (ch == ' ' || ch == '\t' || ch == '\n') {
          if (!c.empty()) out.push_back(std::move(c));
          c.clear();
        } else {
          c += ch;
        }
      }
      return out;
    }();
    if (std::find(classes.begin(), classes.end(), want) == classes.end()) {
      return RuleFail("div-class", fmt::format("<div> {} does not have the class '{}'", index, want));
    }
  }
  if (index == 0) return RuleFail("div-class", "no <div> elements");
  return RulePass("div-class");
}

// heading-ids (unique ids)
std::string IdsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Give every <h2> an id attribute; no two ids in the document may be the same.";
  return "Each <h2> needs an id, and every id in the page must be unique.";
}
void ApplyIds(const nlohmann::json&, HtmlDraft* d) { d->h2_ids = true; }
void ViolateIds(const nlohmann::json&, HtmlDraft* d) { d->h2_id_repeat = true; }
RuleCheck CheckIds(const nlohmann::json&, const HtmlParsed& m, RuleSet) {
  std::set<std::string> seen;
  int h2 = 0;
  for (const HtmlElement& e : m.elements) {
    const HtmlAttribute* a = FindAttribute(e, "id");
    if (e.name == "h2") {
      ++h2;
      if (a == nullptr || Trimmed(a->value).empty()) return RuleFail("heading-ids", fmt::format("<h2> {} has no id", h2));
    }
    if (a != nullptr && !seen.insert(a->value).second) {
      return RuleFail("heading-ids", fmt::format("the id {} is used twice", QuoteText(a->value)));
    }
  }
  if (h2 == 0) return RuleFail("heading-ids", "no <h2> elements");
  return RulePass("heading-ids");
}

// heading-prefix
constexpr std::string_view kPrefixes[] = {"Topic", "Fact", "Note", "Point"};
nlohmann::json DrawPrefix(Rng* rng, const HtmlDraft&) { return {{"word", std::string(PickOf(rng, kPrefixes))}}; }
std::string PrefixText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Start the text of every <h2> with `{}: ` (the word, a colon, a space).", StrParam(p, "word"));
  return fmt::format("Each heading <h2> opens with \"{}: \" followed by its words.", StrParam(p, "word"));
}
void ApplyPrefix(const nlohmann::json& p, HtmlDraft* d) { d->heading_prefix = StrParam(p, "word"); }
void ViolatePrefix(const nlohmann::json&, HtmlDraft* d) { d->heading_prefix_skip_first = true; }
RuleCheck CheckPrefix(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const std::string want = StrParam(p, "word") + ": ";
  int h2 = 0;
  for (const HtmlElement& e : m.elements) {
    if (e.name != "h2") continue;
    ++h2;
    const std::string_view t = Trimmed(e.text);
    if (!t.starts_with(want) || Trimmed(t.substr(want.size())).empty()) {
      return RuleFail("heading-prefix", fmt::format("<h2> {} does not start with \"{}\": {}", h2, want, QuoteText(t)));
    }
  }
  if (h2 == 0) return RuleFail("heading-prefix", "no <h2> elements");
  return RulePass("heading-prefix");
}

// lower-case-tags
std::string LowerText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Write every tag name in lower case (`<p>`, not `<P>`); the doctype line, if any, is not a tag.";
  return "No capital letters in tag names: start and end tags all in lower case.";
}
void ViolateLower(const nlohmann::json&, HtmlDraft* d) { d->upper_first_p = true; }
RuleCheck CheckLower(const nlohmann::json&, const HtmlParsed& m, RuleSet) {
  if (m.any_upper_case_tag) return RuleFail("lower-case-tags", fmt::format("the tag name {} has capitals", QuoteText(m.upper_case_tag)));
  return RulePass("lower-case-tags");
}

// double-quotes
std::string QuotesText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Write every attribute value in double quotes (`class=\"x\"`, never `class='x'` or `class=x`).";
  return "Attribute values, wherever you use attributes, must be enclosed in double quotes.";
}
void ViolateQuotes(const nlohmann::json&, HtmlDraft* d) { d->body_single_quoted = true; }
RuleCheck CheckQuotes(const nlohmann::json&, const HtmlParsed& m, RuleSet) {
  for (const HtmlElement& e : m.elements) {
    for (const HtmlAttribute& a : e.attributes) {
      if (a.quote == '"' || a.quote == 'b') continue;
      return RuleFail("double-quotes", fmt::format("<{} {}=...> has its value {}", e.name, a.name,
                                                   a.quote == '\'' ? "in single quotes" : "unquoted"));
    }
  }
  return RulePass("double-quotes");
}

// image-alt
std::string ImageText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Each section's <div> holds an <img> with a src and a non-empty alt text describing it.";
  return "Put an <img> in every <div> section; every <img> must have a src attribute and an alt attribute that is not empty.";
}
void ApplyImage(const nlohmann::json&, HtmlDraft* d) { d->images = true; }
void ViolateImage(const nlohmann::json&, HtmlDraft* d) { d->image_alt_empty_first = true; }
RuleCheck CheckImage(const nlohmann::json&, const HtmlParsed& m, RuleSet) {
  std::vector<bool> holds_img(m.elements.size(), false);
  for (const HtmlElement& e : m.elements) {
    if (e.name != "img") continue;
    const HtmlAttribute* src = FindAttribute(e, "src");
    const HtmlAttribute* alt = FindAttribute(e, "alt");
    if (src == nullptr || Trimmed(src->value).empty()) return RuleFail("image-alt", "an <img> without a src");
    if (alt == nullptr || Trimmed(alt->value).empty()) return RuleFail("image-alt", fmt::format("the <img> {} has no alt text", QuoteText(src->value)));
    for (int a = e.parent; a >= 0 && !holds_img[static_cast<size_t>(a)]; a = m.elements[static_cast<size_t>(a)].parent) {
      holds_img[static_cast<size_t>(a)] = true;
    }
  }
  int divs = 0;
  for (size_t i = 0; i < m.elements.size(); ++i) {
    if (m.elements[i].name != "div") continue;
    ++divs;
    if (!holds_img[i]) return RuleFail("image-alt", fmt::format("<div> {} holds no <img>", divs));
  }
  if (divs == 0) return RuleFail("image-alt", "no <div> sections");
  return RulePass("image-alt");
}

// max-depth
nlohmann::json DrawDepth(Rng* rng, const HtmlDraft&) { return {{"depth", static_cast<int>(rng->UniformInt(5, 7))}}; }
std::string DepthText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Nest elements at most {} levels deep, counting <html> as level 1.", IntParam(p, "depth"));
  return fmt::format("No element may sit deeper than level {} (<html> is level 1, <body> level 2, ...).", IntParam(p, "depth"));
}
// The first paragraph is at level 4, or 3 when nesting's violation moved it into the
// body: D - 2 nested spans go deeper than D either way.
void ViolateDepth(const nlohmann::json& p, HtmlDraft* d) { d->wrap_first_p = IntParam(p, "depth") - 2; }
RuleCheck CheckDepth(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const int most = IntParam(p, "depth");
  for (const HtmlElement& e : m.elements) {
    if (e.depth > most) return RuleFail("max-depth", fmt::format("a <{}> at level {}, deeper than {}", e.name, e.depth, most));
  }
  return RulePass("max-depth");
}

// element-range: drawn last, wide enough for the others' violations (a section more:
// 4 elements; a footer more; max-depth's nested spans: at most 5).
// The elements RenderHtml writes: html, head, title, body; a div, h2, p (and img) per
// section; the first paragraph's spans and breaks; the footers.
int CountElements(const HtmlDraft& d) {
  const size_t per_section = d.images ? 4 : 3;
  size_t n = 4 + d.sections.size() * per_section + d.footers.size();
  if (!d.sections.empty()) n += static_cast<size_t>(d.wrap_first_p + d.breaks_first_p);
  return static_cast<int>(n);
}

nlohmann::json DrawRange(Rng* rng, const HtmlDraft& d) {
  const int n = CountElements(d);
  return {{"min", std::max(1, n - static_cast<int>(rng->UniformInt(0, 3)))},
          {"max", n + 12 + static_cast<int>(rng->UniformInt(0, 6))}};
}
std::string RangeText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("The document holds between {} and {} elements in all (<html> included).", IntParam(p, "min"), IntParam(p, "max"));
  return fmt::format("Count the elements: at least {} and at most {}, counting <html> and every element inside it.", IntParam(p, "min"), IntParam(p, "max"));
}
void ViolateRange(const nlohmann::json& p, HtmlDraft* d) {
  d->breaks_first_p = 0;
  const int n = CountElements(*d);
  d->breaks_first_p = std::max(0, IntParam(p, "max") - n + 1);
}
RuleCheck CheckRange(const nlohmann::json& p, const HtmlParsed& m, RuleSet) {
  const int n = static_cast<int>(m.elements.size()), lo = IntParam(p, "min"), hi = IntParam(p, "max");
  if (n >= lo && n <= hi) return RulePass("element-range");
  return RuleFail("element-range", fmt::format("{} elements, not {} to {}", n, lo, hi));
}

constexpr HtmlRule kHtmlRules[] = {
    {"div-count", "exactly N <div> sections", RuleOrigin::kPaper, kCompatibleWithAll, nullptr,
     &DrawDivCount, 2, &DivCountText, &ApplyDivCount, &ViolateDivCount, &CheckDivCount},
    {"nesting", "<h2> and <p> directly in a <div>, each <div> directly in <body>", RuleOrigin::kPaper,
     kCompatibleWithAll, nullptr, nullptr, 2, &NestingText, nullptr, &ViolateNesting, &CheckNesting},
    {"footer-count", "exactly N <footer> elements", RuleOrigin::kPaper, kCompatibleWithAll, nullptr,
     &DrawFooterCount, 2, &FooterCountText, &ApplyFooterCount, &ViolateFooterCount, &CheckFooterCount},
    {"doctype", "`<!DOCTYPE html>` as the first line", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     nullptr, 2, &DoctypeText, &ApplyDoctype, &ViolateDoctype, &CheckDoctype},
    {"top-comment", "a given comment on the line before <html>", RuleOrigin::kNew, kCompatibleWithAll,
     nullptr, &DrawComment, 2, &CommentText, &ApplyComment, &ViolateComment, &CheckComment},
    {"title-text", "a given <title>", RuleOrigin::kNew, kCompatibleWithAll, nullptr, &DrawTitle, 2,
     &TitleText, &ApplyTitle, &ViolateTitle, &CheckTitle},
    {"lang-attribute", "<html lang=\"L\"> with a given language", RuleOrigin::kNew, kCompatibleWithAll,
     nullptr, &DrawLang, 2, &LangText, &ApplyLang, &ViolateLang, &CheckLang},
    {"div-class", "a given class on every <div>", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     &DrawDivClass, 2, &DivClassText, &ApplyDivClass, &ViolateDivClass, &CheckDivClass},
    {"heading-ids", "an id on every <h2>, no id used twice", RuleOrigin::kNew, kCompatibleWithAll,
     nullptr, nullptr, 2, &IdsText, &ApplyIds, &ViolateIds, &CheckIds},
    {"heading-prefix", "every <h2> starts with a given word and a colon", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, &DrawPrefix, 2, &PrefixText, &ApplyPrefix, &ViolatePrefix, &CheckPrefix},
    {"lower-case-tags", "every tag name in lower case", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     nullptr, 2, &LowerText, nullptr, &ViolateLower, &CheckLower},
    {"double-quotes", "every attribute value in double quotes", RuleOrigin::kNew, kCompatibleWithAll,
     nullptr, nullptr, 2, &QuotesText, nullptr, &ViolateQuotes, &CheckQuotes},
    {"image-alt", "an <img> with src and non-empty alt in every section", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, nullptr, 2, &ImageText, &ApplyImage, &ViolateImage, &CheckImage},
    {"max-depth", "elements nested at most D levels deep", RuleOrigin::kNew, kCompatibleWithAll,
     nullptr, &DrawDepth, 2, &DepthText, nullptr, &ViolateDepth, &CheckDepth},
    {"element-range", "between A and B elements in all", RuleOrigin::kNew, kCompatibleWithAll, nullptr,
     &DrawRange, 2, &RangeText, nullptr, &ViolateRange, &CheckRange},
};

}  // namespace html_rules_internal

const HtmlAttribute* FindAttribute(const HtmlElement& e, std::string_view name) {
  for (const HtmlAttribute& a : e.attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::span<const HtmlRule> HtmlRules() { return html_rules_internal::kHtmlRules; }

const HtmlRule* FindHtmlRule(std::string_view id) {
  for (const HtmlRule& r : html_rules_internal::kHtmlRules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string RenderHtml(const HtmlDraft& d) {
  using namespace html_rules_internal;
  std::string out;
  if (d.doctype) out += "<!DOCTYPE html>\n";
  if (!d.comment.empty()) out += "<!-- " + d.comment + " -->\n";
  out += d.lang.empty() ? "<html>\n" : "<html lang=\"" + d.lang + "\">\n";
  out += "  <head>\n    <title>" + d.title + "</title>\n  </head>\n";
  out += d.body_single_quoted ? "  <body class='page'>\n" : "  <body>\n";
  for (size_t i = 0; i < d.sections.size(); ++i) {
    const bool skip_class = d.div_class.empty() || (d.div_class_skip_first && i == 0);
    out += skip_class ? "    <div>\n" : "    <div class=\"" + d.div_class + "\">\n";
    std::string id;
    if (d.h2_ids) id = fmt::format(" id=\"section-{}\"", d.h2_id_repeat && i == 1 ? 1 : i + 1);
    out += "      <h2" + id + ">" + Heading(d, i) + "</h2>\n";
    const std::string p_tag = d.upper_first_p && i == 0 ? "P" : "p";
    std::string text = d.sections[i].text;
    if (i == 0) text = FirstParagraph(d, std::move(text));
    const std::string p = "<" + p_tag + ">" + text + "</" + p_tag + ">\n";
    if (!(d.p_outside_first && i == 0)) out += "      " + p;
    if (d.images) {
      const bool empty = d.image_alt_empty_first && i == 0;
      out += fmt::format("      <img src=\"section-{}.png\" alt=\"{}\">\n", i + 1,
                         empty ? "" : "An illustration of " + d.sections[i].heading);
    }
    out += "    </div>\n";
    if (d.p_outside_first && i == 0) out += "    " + p;
  }
  for (const std::string& f : d.footers) out += "    <footer>" + f + "</footer>\n";
  return out + "  </body>\n</html>";
}

HtmlParsed ParseHtml(std::string_view response, std::vector<std::string> facts) {
  using namespace html_rules_internal;
  HtmlParsed m;
  m.facts = std::move(facts);
  // Reasoning is not the answer: after the last </think>; an unclosed <think> hides the rest.
  if (const size_t close = response.rfind("</think>"); close != std::string_view::npos) {
    response = response.substr(close + 8);
  } else if (const size_t open = response.find("<think>"); open != std::string_view::npos) {
    response = response.substr(0, open);
  }
  // A code fence around the document is no part of it.
  std::vector<std::string> lines = LinesOf(response);
  const std::vector<int> content = NonBlankLines(lines);
  if (content.size() >= 2 && TrimBlanks(lines[static_cast<size_t>(content.front())]).starts_with("```") &&
      TrimBlanks(lines[static_cast<size_t>(content.back())]) == "```") {
    lines.erase(lines.begin() + content.back());
    lines.erase(lines.begin() + content.front());
  }
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += (i == 0 ? "" : "\n") + lines[i];
  m.lines = std::move(lines);
  TreeBuilder builder(text, &m);
  const ScanResult scan = html_internal::ScanTags(text, &builder);
  builder.Finish(scan);
  return m;
}

RuleCheck CheckHtmlWellFormed(const HtmlParsed& m, RuleSet rules) {
  if (!m.problem.empty()) return RuleFail("well-formed", m.problem);
  if (rules == RuleSet::kStrict && !m.strict_problem.empty()) return RuleFail("well-formed", m.strict_problem);
  return RulePass("well-formed");
}

// Strict: the title and every heading hold words, every paragraph states a listed fact
// (most of its words are the facts'), no paragraph repeats another (even reworded: most
// distinct words of the shorter one are the other's), and no text lies loose in a
// structural element.
RuleCheck CheckHtmlContent(const HtmlParsed& m) {
  using namespace html_rules_internal;
  constexpr double kMinFactShare = 0.6;
  constexpr size_t kMinWords = 4;
  constexpr double kRepeatShare = 0.8;
  std::string listed;
  for (const std::string& f : m.facts) (listed += f) += '\n';
  const SourceText source(listed, "the listed facts");
  std::vector<std::string> paragraphs;
  std::vector<std::vector<std::string>> seen;
  bool title = false;
  int h2 = 0;
  for (const HtmlElement& e : m.elements) {
    if ((e.name == "html" || e.name == "head" || e.name == "body" || e.name == "div") && !Trimmed(e.own_text).empty()) {
      return RuleFail("content", fmt::format("the text {} lies directly inside <{}>", QuoteText(Trimmed(e.own_text)), e.name));
    }
    if (e.name == "title") {
      if (SourceWords(e.text).empty()) return RuleFail("content", "the <title> is empty");
      title = true;
    }
    if (e.name == "h2" && SourceWords(e.text).empty()) return RuleFail("content", fmt::format("<h2> {} is empty", h2 + 1));
    h2 += e.name == "h2";
    if (e.name != "p") continue;
    std::vector<std::string> words = SourceWords(e.text);
    const size_t n = seen.size() + 1;
    if (words.size() < kMinWords) return RuleFail("content", fmt::format("<p> {} has {} words: it states no fact", n, words.size()));
    size_t in_facts = 0;
    for (const std::string& w : words) in_facts += source.Has(w);
    if (static_cast<double>(in_facts) < kMinFactShare * static_cast<double>(words.size())) {
      return RuleFail("content", fmt::format("<p> {} states none of the listed facts: {} of its {} words are theirs", n, in_facts, words.size()));
    }
    if (std::string problem = source.Problem(e.text, fmt::format("<p> {}", n)); !problem.empty()) {
      return RuleFail("content", std::move(problem));
    }
    paragraphs.push_back(e.text);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    for (size_t j = 0; j < seen.size(); ++j) {
      // A fact stated again, reworded: most words of the shorter one are the other's.
      std::vector<std::string> common;
      std::set_intersection(words.begin(), words.end(), seen[j].begin(), seen[j].end(), std::back_inserter(common));
      if (static_cast<double>(common.size()) >= kRepeatShare * static_cast<double>(std::min(words.size(), seen[j].size()))) {
        return RuleFail("content", fmt::format("<p> {} repeats <p> {}: {} of its words are the same", n, j + 1, common.size()));
      }
    }
    seen.push_back(std::move(words));
  }
  if (!title) return RuleFail("content", "no <title>");
  if (seen.empty()) return RuleFail("content", "no <p> stating a fact");
  // Strict summarization's judgement of items, the listed facts as the document: each
  // paragraph says something, together they are about the facts, and they read as English.
  if (std::string problem = summarization_internal::PointsContentProblem(paragraphs, listed, kMinWords);
      !problem.empty()) {
    return RuleFail("content", std::move(problem));
  }
  return RulePass("content");
}

std::string HtmlBasePrompt(const HtmlDraft& d) {
  std::string facts;
  for (const std::string& f : d.facts) facts += "\n- " + f;
  return fmt::format(
      "Write an HTML page that presents facts from the list below. The page is one <html> "
      "element holding a <head> with a <title> and a <body>; in the body, one section per "
      "fact presented, each a <div> holding an <h2> heading (a few words naming the fact's "
      "subject) and then a <p> stating the fact. Present each fact at most once. Close every "
      "element you open.\n\nFacts:{}",
      facts);
}

}  // namespace structtest::composed
