// The tag events Python's html.parser.HTMLParser (CPython 3.11) reports for a text
// given to it in one feed() call and never close()d, which is how the StructTest
// reference scores HTML. Only what decides those events is modelled: start tags,
// `<x/>` (a start and an end), end tags, and the constructs that hide or swallow
// tags: comments, bogus comments, doctype and other declarations, processing
// instructions, marked sections (`<![CDATA[...]]>`), and the raw-text content of
// <script> and <style>. Text, entities and attributes produce no events.
//
// The reference's quirks are kept on purpose:
//  - a construct that is not terminated (`<!-- ...` without `-->`, `<div class='x`
//    without a closing quote, `</p` without `>`) stops the parser: feed() keeps the
//    rest in its buffer and nothing after it is ever reported;
//  - `<![foo` (a marked section with an unknown keyword) raises AssertionError in
//    Python; we report it as kError and the events seen before it;
//  - regex `\s` means Unicode whitespace (str.isspace), tag names end only at
//    `\t \n \r \f space / > NUL`, `<a<b>` is one start tag named "a<b".
//
// Everything is a linear scan: no input makes it quadratic (the quoted-value search
// that Python repeats for every tag is memoized).
#ifndef STRUCTTEST_TASKS_HTML_HTML_TOKENIZER_H_
#define STRUCTTEST_TASKS_HTML_HTML_TOKENIZER_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace structtest::html_internal {

// What html.parser skips besides tags and text (OnMarkup).
enum class MarkupKind {
  kComment,        // <!-- ... -->
  kBogusComment,   // <!x ...>, </ x>, </>: markup HTML parses only as an error
  kDeclaration,    // <!DOCTYPE ...>
  kPi,             // <? ... >
  kMarkedSection,  // <![CDATA[ ... ]]> and the other <![keyword[ sections
};

// Receives the tag events in document order. Names are as written (not lower-cased;
// see PyLowerTagName) and point into the scanned text.
class TagVisitor {
 public:
  // wants_text: also report text (OnText). The paper counter does not need it, so the
  // scan skips those calls for it.
  explicit TagVisitor(bool wants_text = false) : wants_text_(wants_text) {}
  virtual ~TagVisitor() = default;
  virtual void OnStartTag(std::string_view name, size_t pos) = 0;
  virtual void OnEndTag(std::string_view name, size_t pos) = 0;
  // A run of text between markup, as Python's handle_data would see it apart from
  // entity handling and the chunking of data: what lies outside tags, comments,
  // declarations and processing instructions, a lone '<', a start tag Python treats
  // as text, and the raw content of <script> / <style>. Never empty. Text after the
  // point where an incomplete scan stops is not reported. Only when wants_text.
  virtual void OnText(std::string_view /*text*/, size_t /*pos*/) {}
  // Only when wants_text: a comment, declaration, processing instruction or marked
  // section, `text` the whole construct.
  virtual void OnMarkup(MarkupKind /*kind*/, std::string_view /*text*/, size_t /*pos*/) {}
  // Only when wants_text, and only when it holds more than whitespace: what a tag holds
  // between its name and its closing '>' (or '/>'): attributes, or text in an end tag
  // (`</div junk>`, which Python ignores). Reported right after OnStartTag of a start
  // tag (before the OnEndTag of `<x .../>`), right before OnEndTag of an end tag.
  virtual void OnTagInterior(std::string_view /*name*/, std::string_view /*interior*/,
                             size_t /*pos*/) {}
  bool wants_text() const { return wants_text_; }

 private:
  const bool wants_text_;
};

struct ScanResult {
  enum class End {
    kComplete,    // the whole text was parsed
    kIncomplete,  // stopped at `stop_pos`: an unterminated construct (see above)
    kError,       // Python's parser would raise AssertionError at `stop_pos`
  };
  End end = End::kComplete;
  size_t stop_pos = 0;
  std::string_view what;  // for kIncomplete / kError: the construct, for messages
};

ScanResult ScanTags(std::string_view html, TagVisitor* visitor);

// Python str.lower() of a tag name (ASCII fast path), into *out.
void PyLowerTagName(std::string_view name, std::string* out);

}  // namespace structtest::html_internal

#endif  // STRUCTTEST_TASKS_HTML_HTML_TOKENIZER_H_
