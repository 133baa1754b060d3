#include "tasks/html/strict.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "core/pytext.h"
#include "tasks/html/fast_find.h"
#include "tasks/html/html_tokenizer.h"
#include "tasks/params.h"

namespace structtest::html_internal {

namespace {


// The prompt's tags. Each has exactly one allowed parent, so "how many under each
// parent" is one number per tag (params.no_of_tags).
enum TagId : int { kHtml, kHead, kTitle, kBody, kDiv, kFooter, kH1, kH2, kP, kNumTags };
constexpr int kOther = -1;
constexpr const std::array<std::string_view, kNumTags>& kTagNames = kHtmlTagNames;
constexpr std::array<int, kNumTags> kParent = {-1,    kHtml, kHead, kHtml, kBody,
                                               kBody, kDiv,  kDiv,  kDiv};

// Leaves may hold text ("Elements may be empty": the prompt allows content, it does
// not ask for it); the structural elements hold only their asked children.
bool IsLeaf(int t) { return t == kTitle || t == kFooter || t == kH1 || t == kH2 || t == kP; }

// A per-parent count above this is a malformed sample, not a task: the generator draws
// 2..12 and resamples above 700 tags in all. The bound also keeps the nested totals
// (products of four counts) far inside int64.
constexpr int64_t kMaxPerParent = 1000;

// How much of a stray text or an unknown tag name a reason quotes, in code points.
constexpr size_t kExcerptCodePoints = 40;

// Attribute names a tag may carry without a value (`<div hidden>`): HTML's global
// attributes and the old presentational ones of these elements (`<body bgcolor>`), any
// of which may be written bare (an empty value). A bare word that is none of them, nor
// data-*, aria-*, on* or xml*, is text written inside the tag (`<body Filler text>`).
constexpr std::string_view kAttributeNames[] = {
    "accesskey", "align",      "alink",    "autocapitalize", "autocorrect", "autofocus",
    "background", "bgcolor",   "border",   "class",          "contenteditable", "dir",
    "draggable", "enterkeyhint", "height", "hidden",         "id",          "inert",
    "inputmode", "is",         "itemid",   "itemprop",       "itemref",     "itemscope",
    "itemtype",  "lang",       "link",     "manifest",       "nonce",       "part",
    "popover",   "profile",    "slot",     "spellcheck",     "style",       "tabindex",
    "text",      "title",      "translate", "version",       "vlink",       "width",
    "writingsuggestions"};

bool IsAttributeName(std::string_view raw) {
  std::string name;
  PyLowerTagName(raw, &name);
  for (std::string_view prefix : {"data-", "aria-", "on", "xml"}) {
    if (name.size() > prefix.size() && name.starts_with(prefix)) return true;
  }
  for (std::string_view a : kAttributeNames) {
    if (name == a) return true;
  }
  return false;
}

}  // namespace

// The first bare word in a start tag's interior that is not an attribute name, or "".
// Attributes are `name`, `name=value`, `name="value"`, `name='value'`, separated by
// whitespace or '/'; a name with a value may be anything (the value says what it is).
std::string_view NonAttributeWord(std::string_view interior) {
  size_t i = 0;
  const size_t n = interior.size();
  auto space = [&](size_t k) {
    const char c = interior[k];
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/';
  };
  while (i < n) {
    while (i < n && space(i)) ++i;
    if (i == n) break;
    const size_t b = i;
    while (i < n && !space(i) && interior[i] != '=') ++i;
    const std::string_view name = interior.substr(b, i - b);
    size_t k = i;
    while (k < n && space(k) && interior[k] != '/') ++k;
    if (k < n && interior[k] == '=') {
      k = k + 1;
      while (k < n && space(k) && interior[k] != '/') ++k;
      if (k < n && (interior[k] == '"' || interior[k] == '\'')) {
        const size_t close = interior.find(interior[k], k + 1);
        i = close == std::string_view::npos ? n : close + 1;
      } else {
        while (k < n && !(space(k) && interior[k] != '/')) ++k;
        i = k;
      }
      continue;
    }
    if (!name.empty() && !IsAttributeName(name)) return name;
  }
  return {};
}

// Why HTML (the WHATWG tokenizer) ends a comment elsewhere than html.parser, which ends
// it at the end of `text`: `<!--`, then up to the first `--` followed by optional
// whitespace and `>`. Empty when both end it there. HTML ends a comment only at `-->`
// or `--!>`, and reads `<!-->` and `<!--->` as whole, empty comments.
std::string_view CommentEndsElsewhere(std::string_view text) {
  if (text.size() < 7 || text.substr(0, 4) != "<!--" || text.back() != '>') return {};
  const std::string_view inner = text.substr(4, text.size() - 5);  // without '>'
  const size_t dashes = inner.rfind("--");
  if (dashes == std::string_view::npos) return {};
  if (dashes + 2 != inner.size()) {
    return "HTML does not end a comment at '--' followed by whitespace and '>', so what "
           "follows it is comment text to a browser";
  }
  const std::string_view body = inner.substr(0, dashes);
  if (body.substr(0, 1) == ">" || body.substr(0, 2) == "->") {
    return "HTML reads '<!-->' and '<!--->' as whole, empty comments, so what follows is "
           "markup to a browser";
  }
  if (body.find("--!>") != std::string_view::npos) {
    return "HTML ends a comment at '--!>', so what follows it is markup to a browser";
  }
  return {};
}

namespace {

// What a reason calls a kind of markup.
std::string_view MarkupName(MarkupKind kind) {
  switch (kind) {
    case MarkupKind::kComment:
      return "a comment";
    case MarkupKind::kBogusComment:
      return "malformed markup";
    case MarkupKind::kDeclaration:
      return "a declaration";
    case MarkupKind::kPi:
      return "a processing instruction";
    case MarkupKind::kMarkedSection:
      return "a marked section";
  }
  return "markup";
}

struct Shape {
  std::array<int64_t, kNumTags> per_parent{};  // per_parent[kHtml] == 1
  // Elements of tag t in the whole document: per_parent of t and of its ancestors.
  int64_t Total(int t) const {
    int64_t n = 1;
    for (; t != -1; t = kParent[t]) n *= per_parent[t];
    return n;
  }
};

// The shape of the parsed params, or the error of reading no_of_tags.
StatusOr<Shape> GetShape(const SampleParams& params) {
  ASSIGN_OR_RETURN(const auto per_parent, params.html.no_of_tags.get());
  return Shape{per_parent};
}

// The cheaters parse the params themselves: they run on samples, not through a check.
StatusOr<Shape> GetShape(const Sample& sample) {
  SampleParams params;
  ParseHtmlParams(sample.params, RuleSet::kStrict, &params);
  return GetShape(params);
}

int Lookup(std::string_view raw) {
  if (raw.empty() || raw.size() > 6) return kOther;
  char lower[6];
  for (size_t i = 0; i < raw.size(); ++i) {
    lower[i] = AsciiLower(raw[i]);
  }
  const std::string_view name(lower, raw.size());
  for (int t = 0; t < kNumTags; ++t) {
    if (kTagNames[t] == name) return t;
  }
  return kOther;
}

// A piece of the response for a reason: control characters and runs of whitespace as
// one space, at most kExcerptCodePoints code points, valid UTF-8 (invalid bytes become
// U+FFFD), since reasons end up in JSON and in front of people.
std::string Excerpt(std::string_view text) {
  text = PyStrip(text);
  std::string out;
  size_t shown = 0;
  bool space = false;
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const char32_t c = DecodeUtf8(text, i, &len);
    i += len;
    if (IsPySpace(c) || c < 0x20 || c == 0x7F) {
      space = true;
      continue;
    }
    if (shown == kExcerptCodePoints) {
      out += "...";
      break;
    }
    if (space && !out.empty()) {
      out.push_back(' ');
      ++shown;
    }
    space = false;
    AppendUtf8(c, &out);
    ++shown;
  }
  return out;
}

std::string ShownName(std::string_view raw) {
  std::string lower;
  PyLowerTagName(raw, &lower);
  return Excerpt(lower);
}

// What the model wrote after its reasoning: the text after the last `</think>`; a
// `<think>` never closed hides everything after it. (The paper's off-by-one cut is
// a quirk of the reference, not something a grader would do.)
std::string_view AnswerText(std::string_view response, bool* cut_think) {
  *cut_think = false;
  const size_t close = RFind(response, "</think>");
  if (close != std::string_view::npos) return response.substr(close + 8);
  const size_t open = FindSubstring(response, "<think>");
  if (open == std::string_view::npos) return response;
  *cut_think = true;
  return response.substr(0, open);
}

// Builds the element tree from the tag events and stops at the first rule broken
// (a wrong count of children excepted, see count_problem_).
class TreeChecker : public TagVisitor {
 public:
  // `answer` is the text being scanned.
  TreeChecker(const Shape& shape, std::string_view answer)
      : TagVisitor(/*wants_text=*/true), shape_(shape), answer_(answer) {}

  void OnStartTag(std::string_view name, size_t pos) override {
    if (!problem_.empty() || IsMention(pos)) return;
    const int t = Lookup(name);
    if (state_ == State::kBefore) {
      if (t != kHtml) {
        Fail(fmt::format("outside-html: <{}> before <html>", ShownName(name)));
        return;
      }
      stack_.push_back(Frame{kHtml, 1, {}});
      state_ = State::kIn;
      return;
    }
    if (state_ == State::kAfter) {
      Fail(t == kHtml ? std::string("one-document: a second <html> after </html>")
                      : fmt::format("outside-html: <{}> after </html>", ShownName(name)));
      return;
    }
    if (t == kOther) {
      Fail(fmt::format("no-other-tags: <{}> in {}", ShownName(name), Path()));
      return;
    }
    if (t == kHtml) {
      Fail(fmt::format("one-document: <html> inside {}", Path()));
      return;
    }
    Frame& top = stack_.back();
    if (kParent[t] != top.tag) {
      // When the right parent is open further up, the element in between was most
      // likely left open: say so, it is what the writer has to fix.
      std::string hint;
      for (size_t i = 0; i + 1 < stack_.size(); ++i) {
        if (stack_[i].tag == kParent[t]) {
          hint = fmt::format(" ({} not closed?)", kTagNames[stack_[i + 1].tag]);
        }
      }
      Fail(fmt::format("placement: {} directly under {}, expected under {}{}", kTagNames[t], Path(),
                       kTagNames[kParent[t]], hint));
      return;
    }
    const int64_t index = ++top.children[t];
    stack_.push_back(Frame{t, index, {}});
  }

  void OnEndTag(std::string_view name, size_t pos) override {
    if (!problem_.empty() || IsMention(pos)) return;
    const int t = Lookup(name);
    if (state_ != State::kIn) {
      Fail(fmt::format("outside-html: </{}> {}", ShownName(name),
                       state_ == State::kBefore ? "before <html>" : "after </html>"));
      return;
    }
    if (t == kOther) {
      Fail(fmt::format("no-other-tags: </{}> in {}", ShownName(name), Path()));
      return;
    }
    const Frame& top = stack_.back();
    if (t != top.tag) {
      bool open = false;
      for (const Frame& f : stack_) open = open || f.tag == t;
      Fail(open ? fmt::format("well-formed: </{}> while {} is still open", kTagNames[t], Path())
                : fmt::format("well-formed: </{}> in {}, where no {} is open", kTagNames[t], Path(),
                              kTagNames[t]));
      return;
    }
    for (int c = kHead; c < kNumTags && count_problem_.empty(); ++c) {
      if (kParent[c] != t || top.children[c] == shape_.per_parent[c]) continue;
      count_problem_ = fmt::format("children-count: {} has {} {}, expected {}", Path(),
                                   top.children[c], kTagNames[c], shape_.per_parent[c]);
    }
    stack_.pop_back();
    if (stack_.empty()) state_ = State::kAfter;
  }

  // Inside the document only comments are harmless: a doctype, processing instruction,
  // CDATA section or malformed markup there is no part of the asked structure (HTML
  // parses every one of them as an error), and hides what it holds from the reader.
  // A comment is harmless only where HTML ends it where html.parser does (strict-3,
  // anywhere in the response): else the elements counted here are comment text in the
  // document a browser reads, or what a browser reads as markup was skipped here.
  void OnMarkup(MarkupKind kind, std::string_view text, size_t pos) override {
    if (!problem_.empty()) return;
    if (kind == MarkupKind::kComment) {
      const std::string_view why = CommentEndsElsewhere(text);
      if (why.empty() || IsMention(pos)) return;
      Fail(fmt::format("comment-end: the comment '{}' {}: {}", Excerpt(text),
                       state_ == State::kIn       ? "in " + Path()
                       : state_ == State::kBefore ? std::string("before <html>")
                                                  : std::string("after </html>"),
                       why));
      return;
    }
    if (state_ != State::kIn) return;
    Fail(fmt::format("no-other-markup: {} '{}' in {}", MarkupName(kind), Excerpt(text), Path()));
  }

  // A tag of the document holds its name and attributes only: text written inside a
  // tag (`<body Filler text>`, `</div note>`) is not part of the structure either.
  void OnTagInterior(std::string_view name, std::string_view interior, size_t pos) override {
    if (!problem_.empty() || state_ != State::kIn || IsMention(pos)) return;
    const int t = Lookup(name);
    if (t == kOther || stack_.back().tag != t) return;  // OnStartTag / OnEndTag report it
    const bool end = pos + 1 < answer_.size() && answer_[pos + 1] == '/';
    if (end) {
      Fail(fmt::format("tag-text: '{}' inside the end tag of {}", Excerpt(interior), Path()));
      return;
    }
    const std::string_view word = NonAttributeWord(interior);
    if (!word.empty()) {
      Fail(fmt::format("tag-text: '{}' inside the start tag of {} is not an attribute",
                       Excerpt(word), Path()));
    }
  }

  void OnText(std::string_view text, size_t) override {
    if (!problem_.empty() || state_ != State::kIn || IsLeaf(stack_.back().tag)) return;
    if (PyStrip(text).empty()) return;
    Fail(fmt::format("stray-text: '{}' directly inside {}", Excerpt(text), Path()));
  }

  // The verdict once the scan is over. `cut_think`: an unclosed <think> hid the rest
  // of the response.
  Verdict Finish(const ScanResult& scan, bool cut_think) const {
    Verdict v;
    if (!problem_.empty()) {
      v.reason = problem_;
      // The scan stopped at its first problem, but an <html> element it met before
      // decides the document rule: it holds.
      if (state_ != State::kBefore) v.checks.push_back({"document", RuleCheck::Result::kPass, ""});
      return v;
    }
    std::string stopped;
    if (scan.end != ScanResult::End::kComplete) {
      stopped = fmt::format(" (the markup breaks off at byte {} of the answer: {})", scan.stop_pos,
                            scan.what);
    }
    if (state_ == State::kBefore) {
      v.reason = "document: no <html> element in the response" +
                 std::string(cut_think ? " outside its unclosed <think> block" : "") + stopped;
      return v;
    }
    if (state_ == State::kIn) {
      v.checks.push_back({"document", RuleCheck::Result::kPass, ""});
      v.reason = fmt::format("well-formed: the answer ends with {} still open{}", Path(), stopped);
      return v;
    }
    if (!count_problem_.empty()) {
      v.reason = count_problem_;
      return v;
    }
    v.pass = true;
    const auto& n = shape_.per_parent;
    v.reason = fmt::format(
        "the asked tree: html with {} head ({} title each) and {} body ({} div, {} footer "
        "each), each div {} h1, {} h2, {} p",
        n[kHead], n[kTitle], n[kBody], n[kDiv], n[kFooter], n[kH1], n[kH2], n[kP]);
    return v;
  }

 private:
  enum class State { kBefore, kIn, kAfter };
  struct Frame {
    int tag;
    int64_t index;  // 1-based among the parent's children of the same tag
    std::array<int64_t, kNumTags> children;
  };

  // "body 2 > div 1": where the innermost open element sits; "html" at the top.
  std::string Path() const {
    if (stack_.size() <= 1) return "html";
    std::string out;
    for (size_t i = 1; i < stack_.size(); ++i) {
      if (i > 1) out += " > ";
      fmt::format_to(std::back_inserter(out), "{} {}", kTagNames[stack_[i].tag], stack_[i].index);
    }
    return out;
  }
  void Fail(std::string reason) { problem_ = std::move(reason); }

  // Outside the document, a tag right after a backtick is prose naming a tag in an
  // inline code span ("each `<div>` holds ..."), not markup. Inside it, a backtick is
  // stray text anyway.
  bool IsMention(size_t pos) const {
    return state_ != State::kIn && pos > 0 && pos <= answer_.size() && answer_[pos - 1] == '`';
  }

  const Shape& shape_;
  const std::string_view answer_;
  State state_ = State::kBefore;
  // The open elements. Only the asked parent-child pairs are pushed, so it never
  // grows past html > body > div > leaf.
  std::vector<Frame> stack_;
  // The first rule broken, as a reason; the scan ignores everything after it.
  std::string problem_;
  // The first wrong count of children. The scan goes on, and any other problem found
  // is reported instead: a wrong count is often only the consequence of a misplaced or
  // unclosed element, and the misplacement is what the writer has to fix.
  std::string count_problem_;
};

// The asked tree, written out; `divs_per_body` (one entry per body) and `filler`
// (text written directly inside each structural element) make the skeleton's
// misplacements.
std::string RenderTree(const Shape& shape, const std::vector<int64_t>& divs_per_body,
                       std::string_view filler) {
  const auto& n = shape.per_parent;
  std::string s = "<html>\n";
  auto leaf = [&s](std::string_view indent, std::string_view tag, int64_t count) {
    for (int64_t k = 0; k < count; ++k)
      fmt::format_to(std::back_inserter(s), "{}<{}></{}>\n", indent, tag, tag);
  };
  if (!filler.empty()) fmt::format_to(std::back_inserter(s), "{}\n", filler);
  for (int64_t i = 0; i < n[kHead]; ++i) {
    s += "  <head>\n";
    if (!filler.empty()) fmt::format_to(std::back_inserter(s), "    {}\n", filler);
    leaf("    ", "title", n[kTitle]);
    s += "  </head>\n";
  }
  for (int64_t i = 0; i < n[kBody]; ++i) {
    s += "  <body>\n";
    if (!filler.empty()) fmt::format_to(std::back_inserter(s), "    {}\n", filler);
    for (int64_t j = 0; j < divs_per_body[i]; ++j) {
      s += "    <div>\n";
      if (!filler.empty()) fmt::format_to(std::back_inserter(s), "      {}\n", filler);
      leaf("      ", "h1", n[kH1]);
      leaf("      ", "h2", n[kH2]);
      leaf("      ", "p", n[kP]);
      s += "    </div>\n";
    }
    leaf("    ", "footer", n[kFooter]);
    s += "  </body>\n";
  }
  return s + "</html>";
}

// The asked tags in the asked order and numbers, each closed at once: nothing nested.
std::string RenderFlat(const Shape& shape) {
  const auto& n = shape.per_parent;
  std::string s = "<html>\n";
  auto leaf = [&s](std::string_view tag, int64_t count) {
    for (int64_t k = 0; k < count; ++k)
      fmt::format_to(std::back_inserter(s), "<{}></{}>\n", tag, tag);
  };
  for (int64_t i = 0; i < n[kHead]; ++i) {
    leaf("head", 1);
    leaf("title", n[kTitle]);
  }
  for (int64_t i = 0; i < n[kBody]; ++i) {
    leaf("body", 1);
    for (int64_t j = 0; j < n[kDiv]; ++j) {
      leaf("div", 1);
      leaf("h1", n[kH1]);
      leaf("h2", n[kH2]);
      leaf("p", n[kP]);
    }
    leaf("footer", n[kFooter]);
  }
  return s + "</html>";
}

// FNV-1a: a stable choice per sample on every machine (std::hash is not).
uint64_t StableHash(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

StatusOr<std::array<int64_t, kHtmlTagNames.size()>> ReadNoOfTags(const nlohmann::json& counts,
                                                                 const nlohmann::json& params) {
  if (!counts.is_object()) {
    return Status::InvalidArgument(fmt::format(
        "params.no_of_tags: expected an object of tag counts, found {}", counts.type_name()));
  }
  Shape shape;
  shape.per_parent[kHtml] = 1;
  if (counts.contains("html")) {
    ASSIGN_OR_RETURN(shape.per_parent[kHtml],
                     GetIntInRange(counts, "params.no_of_tags", "html", 1, 1));
  }
  for (int t = kHead; t < kNumTags; ++t) {
    ASSIGN_OR_RETURN(shape.per_parent[t],
                     GetIntInRange(counts, "params.no_of_tags", kTagNames[t], 0, kMaxPerParent));
  }
  // The paper scores against ground_truth; a sample whose two descriptions differ
  // cannot be scored the same way by both rule sets.
  if (params.contains("ground_truth")) {
    ASSIGN_OR_RETURN(const nlohmann::json* gt, GetField(params, "params", "ground_truth"));
    if (!gt->is_object()) {
      return Status::InvalidArgument(fmt::format(
          "params.ground_truth: expected an object of tag counts, found {}", gt->type_name()));
    }
    for (int t = kHtml; t < kNumTags; ++t) {
      if (!gt->contains(kTagNames[t])) continue;
      ASSIGN_OR_RETURN(
          int64_t n, GetIntInRange(*gt, "params.ground_truth", kTagNames[t], 0, int64_t{1} << 50));
      if (n != shape.Total(t)) {
        return Status::InvalidArgument(
            fmt::format("params: ground_truth.{} is {}, but no_of_tags makes {}", kTagNames[t], n,
                        shape.Total(t)));
      }
    }
  }
  return shape.per_parent;
}

StatusOr<Verdict> CheckHtmlStrict(const Sample&, const SampleParams& params,
                                  std::string_view response, const CheckEnv&) {
  ASSIGN_OR_RETURN(const Shape shape, GetShape(params));
  bool cut_think;
  const std::string_view answer = AnswerText(response, &cut_think);
  TreeChecker checker(shape, answer);
  const ScanResult scan = ScanTags(answer, &checker);
  return checker.Finish(scan, cut_think);
}

StatusOr<std::string> HtmlSkeleton(const Sample& sample) {
  ASSIGN_OR_RETURN(const Shape shape, GetShape(sample));
  const auto& n = shape.per_parent;
  std::vector<int64_t> divs(static_cast<size_t>(n[kBody]), n[kDiv]);
  switch (StableHash(sample.id) % 3) {
    case 0:
      return RenderFlat(shape);
    case 1:
      // All divs in the first body: every total right, the counts per body wrong.
      // With one body (or no divs) that would be the asked tree, so go flat.
      if (n[kBody] < 2 || n[kDiv] == 0) return RenderFlat(shape);
      divs.assign(divs.size(), 0);
      divs[0] = n[kBody] * n[kDiv];
      return RenderTree(shape, divs, "");
    default:
      return RenderTree(shape, divs, "Filler text for this section.");
  }
}

StatusOr<std::string> HtmlLoophole(const Sample& sample) {
  // The paper checks only the names that occur: the one with the smallest total,
  // as that many self-closed tags, is the shortest answer it passes. In every
  // generated sample that is html itself (total 1): <html><html/></html>.
  ASSIGN_OR_RETURN(const Shape shape, GetShape(sample));
  int best = kHtml;
  for (int t = kHead; t < kNumTags; ++t) {
    if (shape.Total(t) > 0 && shape.Total(t) < shape.Total(best)) best = t;
  }
  std::string s = "<html>";
  for (int64_t k = 0; k < shape.Total(best); ++k)
    fmt::format_to(std::back_inserter(s), "<{}/>", kTagNames[best]);
  return s + "</html>";
}

}  // namespace structtest::html_internal
