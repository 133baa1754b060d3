#include "tasks/html/html_tokenizer.h"

#include <cstddef>
#include <cstring>

#include "core/pytext.h"
#include "tasks/html/fast_find.h"

// Each function below mirrors the CPython 3.11 function or regex named in its
// comment (Lib/html/parser.py, Lib/_markupbase.py). Positions are byte offsets into
// UTF-8; Python works on code points, which only matters where a regex class can
// match a non-ASCII character (`\s`, negated classes), and there we step whole code
// points.

namespace structtest::html_internal {
namespace {

constexpr size_t kNpos = std::string_view::npos;
// Parse results besides an end offset (Python's -1, and an AssertionError).
constexpr ptrdiff_t kIncomplete = -1;
constexpr ptrdiff_t kRaised = -2;

bool IsAsciiAlpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

// The characters that end a tag name: [^\t\n\r\f />\x00].
bool EndsTagName(unsigned char c) {
  return c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ' ' || c == '/' ||
         c == '>' || c == '\0';
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x += 32;
    if (y >= 'A' && y <= 'Z') y += 32;
    if (x != y) return false;
  }
  return true;
}

class Scanner {
 public:
  Scanner(std::string_view s, TagVisitor* visitor)
      : s_(s), n_(s.size()), visitor_(visitor) {}

  ScanResult Run();

 private:
  // Byte length of the code point at p if Python's `\s` matches it, else 0.
  size_t SpaceLen(size_t p) const {
    const unsigned char b = s_[p];
    if (b < 0x80) return ((b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x20)) ? 1 : 0;
    size_t len;
    return IsPySpace(DecodeUtf8(s_, p, &len)) ? len : 0;
  }
  size_t CodePointLen(size_t p) const {
    if (static_cast<unsigned char>(s_[p]) < 0x80) return 1;
    size_t len;
    DecodeUtf8(s_, p, &len);
    return len;
  }
  // \s*
  size_t SkipSpaces(size_t p) const {
    while (p < n_) {
      const size_t len = SpaceLen(p);
      if (len == 0) break;
      p += len;
    }
    return p;
  }
  // (?:\s|/(?!>))*
  size_t SkipSpacesAndSlashes(size_t p) const {
    while (p < n_) {
      if (s_[p] == '/') {
        if (p + 1 < n_ && s_[p + 1] == '>') break;
        ++p;
        continue;
      }
      const size_t len = SpaceLen(p);
      if (len == 0) break;
      p += len;
    }
    return p;
  }
  // [^>\s]*
  size_t SkipBareValue(size_t p) const {
    while (p < n_ && s_[p] != '>') {
      if (SpaceLen(p) != 0) break;
      p += CodePointLen(p);
    }
    return p;
  }
  // The lookbehind (?<=['"\s/]) at p.
  bool AfterQuoteSlashOrSpace(size_t p) const {
    if (p == 0) return false;
    const unsigned char b = s_[p - 1];
    if (b < 0x80) {
      return b == '\'' || b == '"' || b == '/' || (b >= 0x09 && b <= 0x0D) ||
             (b >= 0x1C && b <= 0x20);
    }
    const size_t start = PrevCodePointStart(s_, p);
    return SpaceLen(start) == p - start;
  }
  // From the tag-name letter at p: [a-zA-Z][^\t\n\r\f />\x00]*
  size_t TagNameEnd(size_t p) const {
    ++p;
    while (p < n_ && !EndsTagName(static_cast<unsigned char>(s_[p]))) ++p;
    return p;
  }

  void Text(size_t from, size_t to) {
    if (to > from && visitor_->wants_text()) visitor_->OnText(s_.substr(from, to - from), from);
  }
  // OnTagInterior for [from, to) when it holds more than whitespace.
  void Interior(std::string_view name, size_t from, size_t to, size_t pos) {
    if (!visitor_->wants_text() || to <= from) return;
    const std::string_view interior = s_.substr(from, to - from);
    if (!PyStrip(interior).empty()) visitor_->OnTagInterior(name, interior, pos);
  }

  // handle_starttag, which also enters raw-text mode for <script> and <style>.
  void StartTag(std::string_view name, size_t pos) {
    visitor_->OnStartTag(name, pos);
    if ((name.size() == 6 || name.size() == 5) && (name[0] | 0x20) == 's') {
      if (EqualsIgnoreAsciiCase(name, "script")) cdata_elem_ = "script";
      if (EqualsIgnoreAsciiCase(name, "style")) cdata_elem_ = "style";
    }
  }
  size_t FindQuote(char quote, size_t from);
  bool MatchValueAlternatives(size_t r, size_t* end);
  bool MatchValue(size_t q, size_t* end);
  bool MatchAttribute(size_t p, size_t* end);

  ptrdiff_t CheckForWholeStartTag(size_t i);
  ptrdiff_t ParseStartTag(size_t i);
  ptrdiff_t ParseEndTag(size_t i);
  ptrdiff_t ParseComment(size_t i);
  ptrdiff_t ParseBogusComment(size_t i);
  ptrdiff_t ParsePi(size_t i);
  ptrdiff_t ParseHtmlDeclaration(size_t i);
  ptrdiff_t ParseMarkedSection(size_t i);
  size_t FindCdataEnd(size_t i) const;

  const std::string_view s_;
  const size_t n_;
  TagVisitor* const visitor_;
  std::string_view cdata_elem_;  // "script" or "style" while in raw-text mode
  // Set by the Parse* function that read a comment, declaration, processing instruction
  // or marked section: what Run reports with OnMarkup.
  MarkupKind markup_ = MarkupKind::kComment;
  bool has_markup_ = false;
  void Markup(MarkupKind kind) {
    markup_ = kind;
    has_markup_ = true;
  }
  std::string_view raised_;      // the AssertionError Python would raise
  // FindQuote memo, per quote character: the last search's start and result.
  size_t quote_from_[2] = {kNpos, kNpos};
  size_t quote_at_[2] = {kNpos, kNpos};
};

// s_.find(quote, from), memoized: Python re-runs the same search for every tag that
// opens an unterminated quoted value, which would make us quadratic.
size_t Scanner::FindQuote(char quote, size_t from) {
  const int k = quote == '"';
  if (quote_from_[k] != kNpos && from >= quote_from_[k] &&
      (quote_at_[k] == kNpos || from <= quote_at_[k])) {
    return quote_at_[k];
  }
  quote_from_[k] = from;
  quote_at_[k] = s_.find(quote, from);
  return quote_at_[k];
}

// ('[^']*'|"[^"]*"|(?!['"])[^>\s]*) at r. Fails only on an unterminated quote.
bool Scanner::MatchValueAlternatives(size_t r, size_t* end) {
  if (r < n_ && (s_[r] == '\'' || s_[r] == '"')) {
    const size_t close = FindQuote(s_[r], r + 1);
    if (close == kNpos) return false;
    *end = close + 1;
    return true;
  }
  *end = SkipBareValue(r);
  return true;
}

// The optional value part (\s*=+\s*(ALTERNATIVES)) after an attribute name ending at
// q, including what the regex engine finds by backtracking when the alternatives
// fail at an unterminated quote: a shorter `\s*` before it leaves an empty bare value
// at the last space; a shorter `=+` makes the last '=' the start of a bare value.
bool Scanner::MatchValue(size_t q, size_t* end) {
  size_t p = SkipSpaces(q);
  if (p >= n_ || s_[p] != '=') return false;
  const size_t equals = p;
  while (p < n_ && s_[p] == '=') ++p;
  const size_t after_equals = p;
  const size_t r = SkipSpaces(p);
  if (MatchValueAlternatives(r, end)) return true;
  if (r > after_equals) {
    *end = PrevCodePointStart(s_, r);
    return true;
  }
  if (after_equals - equals > 1) {
    *end = SkipBareValue(after_equals - 1);
    return true;
  }
  return false;
}

// One attribute of attrfind_tolerant / locatestarttagend_tolerant at p:
// (?<=['"\s/])[^\s/>][^\s/=>]*(VALUE)?(?:\s|/(?!>))*
// The trailing \s* that locatestarttagend puts inside VALUE is covered by the last
// part, so both regexes end at the same place.
bool Scanner::MatchAttribute(size_t p, size_t* end) {
  if (p >= n_ || !AfterQuoteSlashOrSpace(p)) return false;
  if (s_[p] == '/' || s_[p] == '>' || SpaceLen(p) != 0) return false;
  size_t q = p + CodePointLen(p);
  while (q < n_) {
    const char c = s_[q];
    if (c == '/' || c == '=' || c == '>' || SpaceLen(q) != 0) break;
    q += CodePointLen(q);
  }
  size_t value_end;
  if (MatchValue(q, &value_end)) q = value_end;
  *end = SkipSpacesAndSlashes(q);
  return true;
}

// HTMLParser.check_for_whole_start_tag with locatestarttagend_tolerant.
ptrdiff_t Scanner::CheckForWholeStartTag(size_t i) {
  size_t g = TagNameEnd(i + 1);
  // (?:[\s/]*(?:ATTRIBUTE)*)?\s*
  while (g < n_) {
    if (s_[g] == '/') {
      ++g;
      continue;
    }
    const size_t len = SpaceLen(g);
    if (len == 0) break;
    g += len;
  }
  size_t attr_end;
  while (MatchAttribute(g, &attr_end)) g = attr_end;
  const size_t j = SkipSpaces(g);
  if (j >= n_) return kIncomplete;
  const unsigned char next = s_[j];
  if (next == '>') return static_cast<ptrdiff_t>(j + 1);
  if (next == '/') {
    if (j + 1 < n_ && s_[j + 1] == '>') return static_cast<ptrdiff_t>(j + 2);
    return kIncomplete;
  }
  if (IsAsciiAlpha(next) || next == '=') return kIncomplete;
  return static_cast<ptrdiff_t>(j > i ? j : i + 1);
}

// HTMLParser.parse_starttag.
ptrdiff_t Scanner::ParseStartTag(size_t i) {
  const size_t name_end = TagNameEnd(i + 1);
  // Fast paths for "<name>" and "<name/>", which every regex above treats alike.
  if (name_end < n_ && s_[name_end] == '>') {
    StartTag(s_.substr(i + 1, name_end - (i + 1)), i);
    return static_cast<ptrdiff_t>(name_end + 1);
  }
  if (name_end + 1 < n_ && s_[name_end] == '/' && s_[name_end + 1] == '>') {
    const std::string_view name = s_.substr(i + 1, name_end - (i + 1));
    visitor_->OnStartTag(name, i);
    visitor_->OnEndTag(name, i);
    return static_cast<ptrdiff_t>(name_end + 2);
  }
  const ptrdiff_t endpos = CheckForWholeStartTag(i);
  if (endpos < 0) return endpos;
  size_t k = SkipSpacesAndSlashes(name_end);  // tagfind_tolerant
  size_t attr_end;
  while (k < static_cast<size_t>(endpos) && MatchAttribute(k, &attr_end)) k = attr_end;
  std::string_view rest;
  if (k + 1 == static_cast<size_t>(endpos) && s_[k] == '>') {
    rest = ">";  // the usual case, without the general strip
  } else if (k < static_cast<size_t>(endpos)) {
    rest = PyStrip(s_.substr(k, endpos - k));
  }
  const std::string_view name = s_.substr(i + 1, name_end - (i + 1));
  // The interior: up to the closing '>' or '/>' (endpos is just past the '>').
  size_t interior_end = static_cast<size_t>(endpos) - 1;
  if (rest == "/>") interior_end = s_.rfind('/', interior_end);
  if (rest == ">") {
    StartTag(name, i);
    Interior(name, name_end, interior_end, i);
  } else if (rest == "/>") {
    visitor_->OnStartTag(name, i);
    Interior(name, name_end, interior_end, i);
    visitor_->OnEndTag(name, i);
  } else {
    Text(i, static_cast<size_t>(endpos));  // anything else is text to Python (handle_data)
  }
  return endpos;
}

// HTMLParser.parse_endtag.
ptrdiff_t Scanner::ParseEndTag(size_t i) {
  // endtagfind: </\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>  Its '>' is the first one after
  // i+1 (the endendtag search), so that search is only needed when it fails.
  size_t p = SkipSpaces(i + 2);
  if (p < n_ && IsAsciiAlpha(s_[p])) {
    const size_t name_begin = p++;
    while (p < n_) {
      const unsigned char c = s_[p];
      if (!(IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-' || c == '.' || c == ':' ||
            c == '_')) {
        break;
      }
      ++p;
    }
    const std::string_view name = s_.substr(name_begin, p - name_begin);
    p = SkipSpaces(p);
    if (p < n_ && s_[p] == '>') {
      const auto gtpos = static_cast<ptrdiff_t>(p + 1);
      if (!cdata_elem_.empty() && !EqualsIgnoreAsciiCase(name, cdata_elem_)) return gtpos;
      visitor_->OnEndTag(name, i);
      cdata_elem_ = {};
      return gtpos;
    }
  }
  const size_t gt = FindByte(s_, '>', i + 1);
  if (gt == kNpos) return kIncomplete;
  const auto gtpos = static_cast<ptrdiff_t>(gt + 1);
  if (!cdata_elem_.empty()) return gtpos;  // text inside <script>/<style>
  // tagfind_tolerant at i+2 (no spaces allowed before the name here)
  if (i + 2 < n_ && IsAsciiAlpha(s_[i + 2])) {
    const size_t name_end = TagNameEnd(i + 2);
    const size_t close = s_.find('>', SkipSpacesAndSlashes(name_end));
    const std::string_view name = s_.substr(i + 2, name_end - (i + 2));
    Interior(name, name_end, close, i);
    visitor_->OnEndTag(name, i);
    return static_cast<ptrdiff_t>(close + 1);
  }
  if (s_.compare(i, 3, "</>") == 0) {
    Markup(MarkupKind::kBogusComment);
    return static_cast<ptrdiff_t>(i + 3);
  }
  return ParseBogusComment(i);
}

// ParserBase.parse_comment: `<!--` up to the first match of --\s*>.
ptrdiff_t Scanner::ParseComment(size_t i) {
  size_t p = i + 4;
  for (;;) {
    const size_t dashes = s_.find("--", p);
    if (dashes == kNpos) return kIncomplete;
    // Inside a run of dashes only its last "--" can be followed by \s*>.
    size_t e = dashes + 2;
    while (e < n_ && s_[e] == '-') ++e;
    const size_t q = SkipSpaces(e);
    if (q < n_ && s_[q] == '>') {
      Markup(MarkupKind::kComment);
      return static_cast<ptrdiff_t>(q + 1);
    }
    p = e;
  }
}

// HTMLParser.parse_bogus_comment.
ptrdiff_t Scanner::ParseBogusComment(size_t i) {
  const size_t gt = s_.find('>', i + 2);
  if (gt == kNpos) return kIncomplete;
  Markup(MarkupKind::kBogusComment);
  return static_cast<ptrdiff_t>(gt + 1);
}

// HTMLParser.parse_pi.
ptrdiff_t Scanner::ParsePi(size_t i) {
  const size_t gt = s_.find('>', i + 2);
  if (gt == kNpos) return kIncomplete;
  Markup(MarkupKind::kPi);
  return static_cast<ptrdiff_t>(gt + 1);
}

// HTMLParser.parse_html_declaration (`<!--` was taken by the caller).
ptrdiff_t Scanner::ParseHtmlDeclaration(size_t i) {
  if (s_.compare(i, 3, "<![") == 0) return ParseMarkedSection(i);
  if (n_ - i >= 9 && EqualsIgnoreAsciiCase(s_.substr(i, 9), "<!doctype")) {
    const size_t gt = s_.find('>', i + 9);
    if (gt == kNpos) return kIncomplete;
    Markup(MarkupKind::kDeclaration);
    return static_cast<ptrdiff_t>(gt + 1);
  }
  return ParseBogusComment(i);
}

// ParserBase.parse_marked_section with _scan_name.
ptrdiff_t Scanner::ParseMarkedSection(size_t i) {
  const size_t p = i + 3;
  if (p == n_) return kIncomplete;
  if (!IsAsciiAlpha(s_[p])) {
    raised_ = "'<![' not followed by a name (Python's parser raises AssertionError)";
    return kRaised;
  }
  size_t e = p + 1;
  while (e < n_) {
    const unsigned char c = s_[e];
    if (!(IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-' || c == '_' || c == '.')) break;
    ++e;
  }
  if (SkipSpaces(e) == n_) return kIncomplete;
  const std::string_view name = s_.substr(p, e - p);
  bool double_bracket;  // ]\s*]\s*> rather than ]\s*>
  if (EqualsIgnoreAsciiCase(name, "temp") || EqualsIgnoreAsciiCase(name, "cdata") ||
      EqualsIgnoreAsciiCase(name, "ignore") || EqualsIgnoreAsciiCase(name, "include") ||
      EqualsIgnoreAsciiCase(name, "rcdata")) {
    double_bracket = true;
  } else if (EqualsIgnoreAsciiCase(name, "if") || EqualsIgnoreAsciiCase(name, "else") ||
             EqualsIgnoreAsciiCase(name, "endif")) {
    double_bracket = false;
  } else {
    raised_ =
        "unknown keyword in a '<![' marked section (Python's parser raises "
        "AssertionError)";
    return kRaised;
  }
  size_t from = p;
  for (;;) {
    const size_t b = s_.find(']', from);
    if (b == kNpos) return kIncomplete;
    size_t q = SkipSpaces(b + 1);
    if (double_bracket) {
      if (q < n_ && s_[q] == ']') {
        q = SkipSpaces(q + 1);
        if (q < n_ && s_[q] == '>') {
          Markup(MarkupKind::kMarkedSection);
          return static_cast<ptrdiff_t>(q + 1);
        }
      }
    } else if (q < n_ && s_[q] == '>') {
      Markup(MarkupKind::kMarkedSection);
      return static_cast<ptrdiff_t>(q + 1);
    }
    from = b + 1;
  }
}

// The `interesting` regex of raw-text mode: </\s*script\s*> (re.I). Python's
// IGNORECASE also matches a few non-ASCII look-alikes (U+017F for 's'), but
// parse_endtag then treats them as text, so skipping them here is the same.
size_t Scanner::FindCdataEnd(size_t i) const {
  for (size_t p = i;;) {
    const size_t lt = s_.find("</", p);
    if (lt == kNpos) return kNpos;
    size_t q = SkipSpaces(lt + 2);
    if (n_ - q >= cdata_elem_.size() &&
        EqualsIgnoreAsciiCase(s_.substr(q, cdata_elem_.size()), cdata_elem_)) {
      q = SkipSpaces(q + cdata_elem_.size());
      if (q < n_ && s_[q] == '>') return lt;
    }
    p = lt + 2;
  }
}

// HTMLParser.goahead(end=False) with convert_charrefs=True.
ScanResult Scanner::Run() {
  ScanResult result;
  size_t i = 0;
  while (i < n_) {
    size_t j;
    if (cdata_elem_.empty()) {
      j = FindByte(s_, '<', i);
      if (j == kNpos) {
        Text(i, n_);
        break;
      }
    } else {
      j = FindCdataEnd(i);
      if (j == kNpos) {
        result.end = ScanResult::End::kIncomplete;
        result.stop_pos = i;
        result.what = cdata_elem_ == "script" ? "<script> without </script>"
                                              : "<style> without </style>";
        return result;
      }
    }
    Text(i, j);
    i = j;
    ptrdiff_t k;
    std::string_view what;
    has_markup_ = false;
    if (i + 1 < n_ && IsAsciiAlpha(s_[i + 1])) {
      k = ParseStartTag(i);
      what = "unterminated start tag";
    } else if (s_.compare(i, 2, "</") == 0) {
      k = ParseEndTag(i);
      what = "unterminated end tag";
    } else if (s_.compare(i, 4, "<!--") == 0) {
      k = ParseComment(i);
      what = "unterminated comment";
    } else if (s_.compare(i, 2, "<?") == 0) {
      k = ParsePi(i);
      what = "unterminated processing instruction";
    } else if (s_.compare(i, 2, "<!") == 0) {
      k = ParseHtmlDeclaration(i);
      what = "unterminated declaration";
    } else if (i + 1 < n_) {
      k = static_cast<ptrdiff_t>(i + 1);  // a lone '<' is text
      Text(i, i + 1);
    } else {
      break;  // a '<' at the very end: Python waits for more input
    }
    if (k == kRaised) {
      result.end = ScanResult::End::kError;
      result.stop_pos = i;
      result.what = raised_;
      return result;
    }
    if (k < 0) {
      result.end = ScanResult::End::kIncomplete;
      result.stop_pos = i;
      result.what = what;
      return result;
    }
    if (has_markup_ && visitor_->wants_text()) {
      visitor_->OnMarkup(markup_, s_.substr(i, static_cast<size_t>(k) - i), i);
    }
    i = static_cast<size_t>(k);
  }
  return result;
}

}  // namespace

ScanResult ScanTags(std::string_view html, TagVisitor* visitor) {
  return Scanner(html, visitor).Run();
}

void PyLowerTagName(std::string_view name, std::string* out) {
  for (const char c : name) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      *out = PyLower(name);
      return;
    }
  }
  out->assign(name);
  for (char& c : *out) {
    if (c >= 'A' && c <= 'Z') c += 32;
  }
}

}  // namespace structtest::html_internal
