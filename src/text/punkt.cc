#include "text/punkt.h"

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "core/file_util.h"
#include "core/pytext.h"
#include "structtest/sentences.h"
#include "text/punkt_model.h"
#include "text/string_table.h"

namespace structtest {
namespace internal {

// The four word lists of a trained Punkt model (NLTK's PunktParameters). Every key is
// a word "type": the lower-cased token, or ##number## for a number.
struct PunktModel {
  StringTable abbrev_types;
  StringTable collocations;        // "first\tsecond"
  StringTable collocation_firsts;  // the first words alone: most pairs need no key
  StringTable sent_starters;
  StringTable ortho_context;  // type -> kOrtho* flags
};

}  // namespace internal

namespace {

using internal::PunktModel;

constexpr size_t kNone = static_cast<size_t>(-1);

// In which orthographic contexts the training data showed a type: at the beginning
// of a sentence, in the middle, or at an unknown position; upper or lower case.
constexpr int32_t kOrthoBegUc = 1 << 1;
constexpr int32_t kOrthoMidUc = 1 << 2;
constexpr int32_t kOrthoUnkUc = 1 << 3;
constexpr int32_t kOrthoBegLc = 1 << 4;
constexpr int32_t kOrthoMidLc = 1 << 5;
constexpr int32_t kOrthoUnkLc = 1 << 6;
constexpr int32_t kOrthoUc = kOrthoBegUc | kOrthoMidUc | kOrthoUnkUc;
constexpr int32_t kOrthoLc = kOrthoBegLc | kOrthoMidLc | kOrthoUnkLc;

constexpr std::string_view kNumberType = "##number##";

// Byte classes. Every character the Punkt patterns name is ASCII, so one table
// lookup decides them; bytes >= 0x80 only need Python's whitespace test.
enum : uint8_t {
  kSpace = 1 << 0,        // ASCII matched by Python's \s
  kNonWord = 1 << 1,      // ends a word: ) " ; } ] * : @ ' ( { [ ! ?
  kNoWordStart = 1 << 2,  // cannot start a word: ( " ` { [ : ; & # * @ ) } ] - ,
  kCloser = 1 << 3,       // moved back onto the previous sentence: " ' ) ] }
  kStdSpace = 1 << 4,     // Python's string.whitespace (ASCII only)
  kPlain = 1 << 5,        // ASCII that never ends a word (none of the above, nor . - ,)
  kSentEnd = 1 << 6,      // . ? !
};

struct ClassTable {
  uint8_t bits[256] = {};
  constexpr ClassTable() {
    for (char b : std::string_view("\t\n\v\f\r\x1C\x1D\x1E\x1F ")) {
      bits[static_cast<unsigned char>(b)] |= kSpace;
    }
    for (char b : std::string_view(")\";}]*:@'({[!?")) {
      bits[static_cast<unsigned char>(b)] |= kNonWord;
    }
    for (char b : std::string_view("(\"`{[:;&#*@)}]-,")) {
      bits[static_cast<unsigned char>(b)] |= kNoWordStart;
    }
    for (char b : std::string_view("\"')]}")) bits[static_cast<unsigned char>(b)] |= kCloser;
    for (char b : std::string_view(" \t\n\r\v\f")) bits[static_cast<unsigned char>(b)] |= kStdSpace;
    for (char b : std::string_view(".?!")) bits[static_cast<unsigned char>(b)] |= kSentEnd;
    for (int b = 0; b < 0x80; ++b) {
      if (!(bits[b] & (kSpace | kNonWord)) && b != '.' && b != '-' && b != ',') bits[b] |= kPlain;
    }
  }
};
constexpr ClassTable kClasses;

inline uint8_t ClassOf(char c) { return kClasses.bits[static_cast<unsigned char>(c)]; }

// A lower-cased copy of a token, as Python's str.lower() gives it. ASCII tokens
// (nearly all of them) are lowered into the inline buffer.
class LowerBuf {
 public:
  std::string_view Lower(std::string_view s) {
    if (s.size() <= sizeof(small_)) {
      size_t i = 0;
      for (; i < s.size(); ++i) {
        const unsigned char b = s[i];
        if (b >= 0x80) break;
        small_[i] = AsciiLower(static_cast<char>(b));
      }
      if (i == s.size()) return std::string_view(small_, i);
    }
    big_ = PyLower(s);
    return big_;
  }

 private:
  char small_[128];
  std::string big_;
};

// Whether `table` has the key "first\tsecond".
bool ContainsPair(const internal::StringTable& table, std::string_view first,
                  std::string_view second) {
  const size_t size = first.size() + 1 + second.size();
  if (size > table.max_key_size()) return false;
  char small[128];
  std::string large;
  char* key = small;
  if (size > sizeof(small)) {
    large.resize(size);
    key = large.data();
  }
  std::memcpy(key, first.data(), first.size());
  key[first.size()] = '\t';
  if (!second.empty()) std::memcpy(key + first.size() + 1, second.data(), second.size());
  return table.Contains(std::string_view(key, size));
}

// One word token of a candidate context, with its first-pass annotations.
struct Token {
  size_t b = 0;
  size_t e = 0;
  bool sentbreak = false;
  bool abbr = false;
  bool ellipsis = false;
};

// What the orthographic heuristic says about a word starting a sentence.
enum class Ortho { kNo, kYes, kUnknown };

// A possible sentence end: the . ? or ! at p, the start of the word before it (as
// NLTK finds it, see Run) and the end of the lookahead that made it a candidate.
struct Candidate {
  size_t p = 0;
  size_t word_start = 0;
  size_t after_end = 0;
  size_t next_tok = kNone;  // start of the token after the whitespace, if any
};

// One run of the splitter over one text. Spans go to `sink(begin, end)`.
class PunktRun {
 public:
  PunktRun(const PunktModel& model, std::string_view text) : m_(model), t_(text) {}

  template <typename Sink>
  void Run(Sink& sink);

 private:
  // Whitespace test of the code point at i (Python's \s); *len is its byte length.
  bool SpaceAt(size_t i, size_t* len) const {
    const unsigned char b = t_[i];
    if (b < 0x80) {
      *len = 1;
      return kClasses.bits[b] & kSpace;
    }
    return IsPySpace(DecodeUtf8(t_, i, len));
  }
  char32_t FirstChar(const Token& k) const {
    size_t len;
    return DecodeUtf8(t_, k.b, &len);
  }

  size_t FindSentEnd(size_t from) const;
  bool MatchContext(size_t p, Candidate* c) const;
  size_t LastStdSpace(size_t from, size_t to) const;

  size_t MultiCharLen(size_t i, size_t end) const;
  bool AsciiWordEndsAt(size_t j, size_t end) const;
  bool NextToken(size_t i, size_t end, Token* k) const;

  bool ContainsSentBreak(size_t b, size_t e) const;
  void FirstPass(Token* k) const;
  bool IsAbbreviation(size_t b, size_t e) const;
  bool IsNumber(const Token& k) const;
  bool IsInitial(const Token& k) const;
  std::string_view Type(const Token& k, LowerBuf* buf) const;
  std::string_view TypeNoPeriod(const Token& k, LowerBuf* buf) const;
  void SecondPass(Token* k1, const Token& k2) const;
  Ortho OrthoHeuristic(const Token& k, std::string_view type) const;

  bool MatchCloserRun(size_t b, size_t e, size_t* closers, size_t* match_end) const;

  const PunktModel& m_;
  const std::string_view t_;
};

// Sentence-end characters are rare, so look at eight bytes at a time: a byte of
// (w ^ c) is zero where w has c, and the classic has-zero-byte test flags it (its
// lowest flag is exact, which is the one used).
size_t PunktRun::FindSentEnd(size_t from) const {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighs = 0x8080808080808080ull;
  auto zero_bytes = [](uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  const size_t n = t_.size();
  const char* s = t_.data();
  size_t i = from;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, s + i, 8);
    const uint64_t hits = zero_bytes(w ^ (kOnes * '.')) | zero_bytes(w ^ (kOnes * '?')) |
                          zero_bytes(w ^ (kOnes * '!'));
    if (hits != 0) {
      if constexpr (std::endian::native == std::endian::little) {
        return i + static_cast<size_t>(std::countr_zero(hits)) / 8;
      }
      break;
    }
  }
  for (; i < n; ++i) {
    if (ClassOf(s[i]) & kSentEnd) return i;
  }
  return n;
}

// The period-context pattern: a sentence-end character followed either by a
// non-word character, or by whitespace and then a token (kept as next_tok).
bool PunktRun::MatchContext(size_t p, Candidate* c) const {
  const size_t n = t_.size();
  size_t q = p + 1;
  if (q >= n) return false;
  if (ClassOf(t_[q]) & kNonWord) {
    c->p = p;
    c->after_end = q + 1;
    c->next_tok = kNone;
    return true;
  }
  size_t len;
  if (!SpaceAt(q, &len)) return false;
  q += len;
  while (q < n && SpaceAt(q, &len)) q += len;
  if (q >= n) return false;
  c->p = p;
  c->next_tok = q;
  while (q < n && !SpaceAt(q, &len)) q += len;
  c->after_end = q;
  return true;
}

// Position of the last string.whitespace byte in [from, to), or kNone.
size_t PunktRun::LastStdSpace(size_t from, size_t to) const {
  for (size_t i = to; i > from; --i) {
    if (ClassOf(t_[i - 1]) & kStdSpace) return i - 1;
  }
  return kNone;
}

// Length of the multi-character punctuation at i ("--", "..", ". . .") or 0. The
// reference splits the text into lines first, so the whitespace between spaced dots
// is never a newline.
size_t PunktRun::MultiCharLen(size_t i, size_t end) const {
  if (i + 1 >= end) return 0;
  const char c = t_[i];
  if (c == '-' || (c == '.' && t_[i + 1] == '.')) {
    if (t_[i + 1] != c) return 0;
    size_t j = i + 2;
    while (j < end && t_[j] == c) ++j;
    return j - i;
  }
  if (c != '.') return 0;
  size_t q = i;
  size_t pairs = 0;
  size_t last_dot = i;
  while (q + 1 < end && t_[q] == '.' && t_[q + 1] != '\n') {
    size_t len;
    if (!SpaceAt(q + 1, &len)) break;
    last_dot = q;
    ++pairs;
    q += 1 + len;
  }
  if (pairs < 2) return 0;
  if (q < end && t_[q] == '.') return q + 1 - i;
  // Greedy repetition gives back one dot-space pair and ends on its dot.
  if (pairs >= 3) return last_dot + 1 - i;
  return 0;
}

// The end-of-word lookahead at an ASCII byte j < end that is not kPlain.
bool PunktRun::AsciiWordEndsAt(size_t j, size_t end) const {
  const uint8_t cls = ClassOf(t_[j]);
  if (cls & (kSpace | kNonWord)) return true;
  if (t_[j] == ',') {
    // A comma ends a word only when what follows could not continue it.
    const size_t k = j + 1;
    if (k >= end) return true;
    size_t len;
    if (SpaceAt(k, &len) || (ClassOf(t_[k]) & kNonWord)) return true;
    return MultiCharLen(k, end) != 0;
  }
  return MultiCharLen(j, end) != 0;  // '.' or '-'
}

// The word-tokenizer pattern, applied from i within the context [.., end): skips
// whitespace and returns the next token, which is multi-character punctuation, a
// word (shortest run of non-space that the end-of-word lookahead accepts), or one
// non-space character that cannot start a word.
bool PunktRun::NextToken(size_t i, size_t end, Token* k) const {
  while (i < end) {
    size_t len;
    if (SpaceAt(i, &len)) {
      i += len;
      continue;
    }
    *k = Token();
    k->b = i;
    const char c = t_[i];
    if (c == '.' || c == '-') {
      if (size_t m = MultiCharLen(i, end)) {
        k->e = i + m;
        return true;
      }
    }
    if (ClassOf(c) & kNoWordStart) {
      k->e = i + 1;
      return true;
    }
    size_t j = i + len;
    while (j < end) {
      const unsigned char b = t_[j];
      const uint8_t cls = kClasses.bits[b];
      if (cls & kPlain) {
        ++j;
      } else if (b >= 0x80) {
        size_t l;
        if (IsPySpace(DecodeUtf8(t_, j, &l))) break;
        j += l;
      } else if (AsciiWordEndsAt(j, end)) {
        break;
      } else {
        ++j;
      }
    }
    k->e = j;
    return true;
  }
  return false;
}

// Whether annotating the context's tokens marks a sentence break on any token but
// the last (NLTK's text_contains_sentbreak).
bool PunktRun::ContainsSentBreak(size_t b, size_t e) const {
  Token prev;
  Token cur;
  bool have_prev = false;
  size_t i = b;
  while (NextToken(i, e, &cur)) {
    FirstPass(&cur);
    if (have_prev) {
      SecondPass(&prev, cur);
      if (prev.sentbreak) return true;
    }
    prev = cur;
    have_prev = true;
    i = cur.e;
  }
  return false;
}

// First pass: decisions from the token alone.
void PunktRun::FirstPass(Token* k) const {
  const size_t n = k->e - k->b;
  const char last = t_[k->e - 1];
  if (n == 1 && (ClassOf(last) & kSentEnd)) {
    k->sentbreak = true;
    return;
  }
  if (last != '.') return;
  if (n >= 2 && t_[k->e - 2] == '.') {
    bool all_dots = true;
    for (size_t i = k->b; i < k->e; ++i) all_dots &= t_[i] == '.';
    k->ellipsis = all_dots;
    return;
  }
  if (IsAbbreviation(k->b, k->e - 1)) {
    k->abbr = true;
  } else {
    k->sentbreak = true;
  }
}

// The token without its final period is a known abbreviation, or its part after
// the last hyphen is.
bool PunktRun::IsAbbreviation(size_t b, size_t e) const {
  LowerBuf buf;
  const std::string_view w = buf.Lower(t_.substr(b, e - b));
  if (m_.abbrev_types.Contains(w)) return true;
  const size_t dash = w.rfind('-');
  return dash != std::string_view::npos && m_.abbrev_types.Contains(w.substr(dash + 1));
}

// -?[.,]?\d[\d,.-]*\.? over the whole token, \d being any Unicode decimal digit.
bool PunktRun::IsNumber(const Token& k) const {
  size_t i = k.b;
  if (t_[i] == '-') ++i;
  if (i < k.e && (t_[i] == '.' || t_[i] == ',')) ++i;
  bool seen_digit = false;
  while (i < k.e) {
    const unsigned char b = t_[i];
    size_t len = 1;
    bool digit;
    if (b < 0x80) {
      digit = b >= '0' && b <= '9';
      if (!digit && (!seen_digit || (b != ',' && b != '.' && b != '-'))) return false;
    } else {
      digit = IsPyDecimal(DecodeUtf8(t_, i, &len));
      if (!digit) return false;
    }
    seen_digit |= digit;
    i += len;
  }
  return seen_digit;
}

// [^\W\d]\. : one word character that is not a decimal digit, then a period.
bool PunktRun::IsInitial(const Token& k) const {
  if (t_[k.e - 1] != '.') return false;
  size_t len;
  const char32_t c = DecodeUtf8(t_, k.b, &len);
  if (k.b + len + 1 != k.e) return false;
  return c == '_' || (IsPyAlnum(c) && !IsPyDecimal(c));
}

std::string_view PunktRun::Type(const Token& k, LowerBuf* buf) const {
  if (IsNumber(k)) return kNumberType;
  return buf->Lower(t_.substr(k.b, k.e - k.b));
}

std::string_view PunktRun::TypeNoPeriod(const Token& k, LowerBuf* buf) const {
  std::string_view type = Type(k, buf);
  if (type.size() > 1 && type.back() == '.') type.remove_suffix(1);
  return type;
}

// Second pass: revises the decision on k1, which ends in a period, from the token
// that follows it (collocations, orthographic evidence, frequent sentence starters,
// initials and ordinal numbers).
void PunktRun::SecondPass(Token* k1, const Token& k2) const {
  if (t_[k1->e - 1] != '.') return;
  LowerBuf typ_buf;
  LowerBuf next_buf;
  const std::string_view typ = TypeNoPeriod(*k1, &typ_buf);
  std::string_view next_typ;
  bool have_next_typ = false;
  auto next = [&]() {
    if (!have_next_typ) {
      next_typ = k2.sentbreak ? TypeNoPeriod(k2, &next_buf) : Type(k2, &next_buf);
      have_next_typ = true;
    }
    return next_typ;
  };
  const bool initial = IsInitial(*k1);

  if (m_.collocation_firsts.Contains(typ) && ContainsPair(m_.collocations, typ, next())) {
    k1->sentbreak = false;
    k1->abbr = true;
    return;
  }

  if ((k1->abbr || k1->ellipsis) && !initial) {
    if (OrthoHeuristic(k2, next()) == Ortho::kYes) {
      k1->sentbreak = true;
      return;
    }
    if (IsPyUpper(FirstChar(k2)) && m_.sent_starters.Contains(next())) {
      k1->sentbreak = true;
      return;
    }
  }

  if (initial || typ == kNumberType) {
    const Ortho ortho = OrthoHeuristic(k2, next());
    if (ortho == Ortho::kNo) {
      k1->sentbreak = false;
      k1->abbr = true;
      return;
    }
    // An initial before a word the model never saw in lower case (J. Bach).
    if (ortho == Ortho::kUnknown && initial && IsPyUpper(FirstChar(k2)) &&
        !(m_.ortho_context.ValueOr(next(), 0) & kOrthoLc)) {
      k1->sentbreak = false;
      k1->abbr = true;
    }
  }
}

Ortho PunktRun::OrthoHeuristic(const Token& k, std::string_view type) const {
  if (k.e - k.b == 1) {
    const char c = t_[k.b];
    if (c == ';' || c == ':' || c == ',' || c == '.' || c == '!' || c == '?') return Ortho::kNo;
  }
  const int32_t context = m_.ortho_context.ValueOr(type, 0);
  const char32_t first = FirstChar(k);
  if (IsPyUpper(first) && (context & kOrthoLc) && !(context & kOrthoMidUc)) return Ortho::kYes;
  if (IsPyLower(first) && ((context & kOrthoUc) || !(context & kOrthoBegLc))) return Ortho::kNo;
  return Ortho::kUnknown;
}

// ["')\]}]+? followed by whitespace, "--" or the end, matched at the start of the
// sentence [b, e). *closers is the number of closing characters, *match_end where
// the match (closers and whitespace) ends.
bool PunktRun::MatchCloserRun(size_t b, size_t e, size_t* closers, size_t* match_end) const {
  size_t q = b;
  while (q < e && (ClassOf(t_[q]) & kCloser)) {
    ++q;
    size_t len;
    if (q == e) {
      *closers = q - b;
      *match_end = q;
      return true;
    }
    if (SpaceAt(q, &len)) {
      *closers = q - b;
      q += len;
      while (q < e && SpaceAt(q, &len)) q += len;
      *match_end = q;
      return true;
    }
    if (q + 1 < e && t_[q] == '-' && t_[q + 1] == '-') {
      *closers = q - b;
      *match_end = q;
      return true;
    }
  }
  return false;
}

// NLTK's span_tokenize: _match_potential_end_contexts, _slices_from_text and
// _realign_boundaries, streamed.
template <typename Sink>
void PunktRun::Run(Sink& sink) {
  // Realignment: closing punctuation at the start of a sentence moves to the end of
  // the previous one; a sentence left empty by that is dropped.
  bool have_slice = false;
  size_t slice_b = 0;
  size_t slice_e = 0;
  size_t realign = 0;
  auto add_slice = [&](size_t b, size_t e) {
    if (!have_slice) {
      have_slice = true;
    } else {
      const size_t start = slice_b + realign;
      size_t closers;
      size_t match_end;
      if (MatchCloserRun(b, e, &closers, &match_end)) {
        sink(start, b + closers);
        realign = match_end - b;
      } else {
        realign = 0;
        if (start < slice_e) sink(start, slice_e);
      }
    }
    slice_b = b;
    slice_e = e;
  };

  size_t last_break = 0;
  auto decide = [&](const Candidate& c) {
    if (!ContainsSentBreak(c.word_start, c.after_end)) return;
    add_slice(last_break, c.p + 1);
    last_break = c.next_tok != kNone ? c.next_tok : c.p + 1;
  };

  // The word before a candidate starts after the last ASCII whitespace between the
  // previous candidate and this one. When there is none (or, for the first
  // candidate, only at offset 0) it extends back to the previous candidate's word,
  // and the previous candidate is dropped unless that word was empty: a run like
  // "a!!!" is decided once, at its last character.
  const size_t n = t_.size();
  bool have_prev = false;
  Candidate prev;
  for (size_t p = FindSentEnd(0); p < n; p = FindSentEnd(p + 1)) {
    Candidate c;
    if (!MatchContext(p, &c)) continue;
    const size_t prev_stop = have_prev ? prev.p : 0;
    const size_t prev_start = have_prev ? prev.word_start : 0;
    const size_t space = LastStdSpace(prev_stop, p);
    c.word_start = (space != kNone && space != prev_stop) ? space + 1 : prev_start;
    if (have_prev && prev_stop <= c.word_start) decide(prev);
    prev = c;
    have_prev = true;
  }
  if (have_prev) decide(prev);
  add_slice(last_break, PyRStrip(t_).size());

  const size_t start = slice_b + realign;
  if (start < slice_e) sink(start, slice_e);
}

// ---- model files

// The bytes of the model file at `path`.
Status ReadModelFile(const std::string& path, std::string* data) {
  StatusOr<std::string> read = ReadFileToString(path);
  if (!read.ok()) {
    const Status& s = read.status();
    if (s.message().starts_with("read error")) return Status::IoError(path + ": read error");
    return Status(s.code(), path + ": cannot open: " + s.message());
  }
  *data = std::move(*read);
  return Status::Ok();
}

// The lines of model file `path` (named in errors) holding `data`, as Python's text
// mode reads them (universal newlines).
Status SplitModelLines(const std::string& path, std::string_view data,
                       std::vector<std::string>* lines) {
  lines->clear();
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find_first_of("\r\n", start);
    size_t next;
    if (end == std::string::npos) {
      end = next = data.size();
    } else if (data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n') {
      next = end + 2;
    } else {
      next = end + 1;
    }
    std::string_view line(data.data() + start, end - start);
    for (size_t i = 0; i < line.size();) {
      size_t len;
      if (DecodeUtf8(line, i, &len) == kInvalidCodePoint && len == 1) {
        return Status::InvalidArgument(path + ":" + std::to_string(lines->size() + 1) +
                                       ": invalid UTF-8");
      }
      i += len;
    }
    lines->emplace_back(line);
    start = next;
  }
  return Status::Ok();
}

// The four model files, from a folder or from the binary. `Lines` names the file in
// errors as FOLDER/NAME.
class ModelFiles {
 public:
  // dir empty: the built-in model.
  explicit ModelFiles(std::string dir) : dir_(std::move(dir)) {}

  Status Lines(internal::PunktFile file, std::string_view name, std::string* path,
               std::vector<std::string>* lines) const {
    if (dir_.empty()) {
      *path = "built-in punkt_tab/english/" + std::string(name);
      return SplitModelLines(*path, internal::BuiltinPunktFile(file), lines);
    }
    *path = dir_ + "/" + std::string(name);
    std::string data;
    RETURN_IF_ERROR(ReadModelFile(*path, &data));
    return SplitModelLines(*path, data, lines);
  }

 private:
  std::string dir_;
};

std::string LineRef(const std::string& path, size_t index) {
  return path + ":" + std::to_string(index + 1);
}

// Python's int() on an ASCII decimal string (surrounding blanks and one sign
// allowed). Only the low bits matter, so the value wraps like two's complement.
bool ParseFlags(std::string_view s, int32_t* out) {
  while (!s.empty() && (ClassOf(s.front()) & kSpace)) s.remove_prefix(1);
  while (!s.empty() && (ClassOf(s.back()) & kSpace)) s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (negative) v = ~v + 1;
  *out = static_cast<int32_t>(static_cast<uint32_t>(v));
  return true;
}

Status LoadModel(const ModelFiles& files, PunktModel* model) {
  std::vector<std::string> lines;
  std::string path;
  RETURN_IF_ERROR(
      files.Lines(internal::PunktFile::kAbbrevTypes, "abbrev_types.txt", &path, &lines));
  for (const std::string& line : lines) model->abbrev_types.Insert(line, 1);

  RETURN_IF_ERROR(
      files.Lines(internal::PunktFile::kSentStarters, "sent_starters.txt", &path, &lines));
  for (const std::string& line : lines) model->sent_starters.Insert(line, 1);

  RETURN_IF_ERROR(
      files.Lines(internal::PunktFile::kCollocations, "collocations.tab", &path, &lines));
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t tab = lines[i].find('\t');
    if (tab == std::string::npos || lines[i].find('\t', tab + 1) != std::string::npos) {
      return Status::InvalidArgument(LineRef(path, i) +
                                     ": expected two words separated by one tab");
    }
    model->collocations.Insert(lines[i], 1);
    model->collocation_firsts.Insert(std::string_view(lines[i]).substr(0, tab), 1);
  }

  RETURN_IF_ERROR(
      files.Lines(internal::PunktFile::kOrthoContext, "ortho_context.tab", &path, &lines));
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || line.find('\t', tab + 1) != std::string::npos) {
      return Status::InvalidArgument(LineRef(path, i) +
                                     ": expected a word, a tab and a number");
    }
    int32_t flags;
    if (!ParseFlags(line.substr(tab + 1), &flags)) {
      return Status::InvalidArgument(LineRef(path, i) + ": bad number '" +
                                     std::string(line.substr(tab + 1)) + "'");
    }
    model->ortho_context.Insert(line.substr(0, tab), flags);
  }
  return Status::Ok();
}

constexpr std::string_view kModelSubdir = "tokenizers/punkt_tab/english";

}  // namespace

SentenceSplitter::SentenceSplitter(std::string source,
                                   std::unique_ptr<const internal::PunktModel> model)
    : source_(std::move(source)), model_(std::move(model)) {}

SentenceSplitter::~SentenceSplitter() = default;

StatusOr<std::unique_ptr<SentenceSplitter>> SentenceSplitter::LoadFromModelDir(
    std::string_view english_dir) {
  auto model = std::make_unique<internal::PunktModel>();
  std::string dir(english_dir);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  RETURN_IF_ERROR(LoadModel(ModelFiles(dir), model.get()).WithContext("punkt model"));
  return std::unique_ptr<SentenceSplitter>(new SentenceSplitter(std::move(dir), std::move(model)));
}

StatusOr<std::unique_ptr<SentenceSplitter>> SentenceSplitter::LoadBuiltin() {
  auto model = std::make_unique<internal::PunktModel>();
  RETURN_IF_ERROR(LoadModel(ModelFiles(""), model.get()).WithContext("punkt model"));
  return std::unique_ptr<SentenceSplitter>(
      new SentenceSplitter(std::string(kBuiltinSource), std::move(model)));
}

StatusOr<std::unique_ptr<SentenceSplitter>> SentenceSplitter::Load(std::string_view nltk_data_dir) {
  const auto model_dir = [](std::string_view root) {
    std::string dir(root);
    if (dir.back() != '/') dir.push_back('/');
    return dir.append(kModelSubdir);
  };
  if (!nltk_data_dir.empty()) {
    const std::string dir = model_dir(nltk_data_dir);
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) return LoadFromModelDir(dir);
    return Status::NotFound("punkt model: " + dir +
                            ": no such folder (a folder given for the Punkt model must "
                            "hold tokenizers/punkt_tab/english/)");
  }
  if (const char* env = std::getenv("NLTK_DATA")) {
    std::string_view list(env);
    while (true) {
      const size_t colon = list.find(':');
      const std::string_view entry = list.substr(0, colon);
      if (!entry.empty()) {
        const std::string dir = model_dir(entry);
        std::error_code ec;
        if (std::filesystem::is_directory(dir, ec)) return LoadFromModelDir(dir);
      }
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  return LoadBuiltin();
}

std::vector<SentenceSplitter::Span> SentenceSplitter::Split(std::string_view text) const {
  std::vector<Span> spans;
  auto sink = [&spans](size_t b, size_t e) { spans.push_back(Span{b, e}); };
  PunktRun(*model_, text).Run(sink);
  return spans;
}

size_t SentenceSplitter::Count(std::string_view text) const {
  size_t count = 0;
  auto sink = [&count](size_t, size_t) { ++count; };
  PunktRun(*model_, text).Run(sink);
  return count;
}

StatusOr<std::shared_ptr<const SentenceSplitter>> LoadSentenceModel(std::string_view nltk_data) {
  auto loaded = SentenceSplitter::Load(nltk_data);
  if (!loaded.ok()) {
    return loaded.status().WithContext(
        nltk_data.empty() ? std::string("$NLTK_DATA") : "--nltk-data " + std::string(nltk_data));
  }
  return std::shared_ptr<const SentenceSplitter>(std::move(loaded).value());
}

}  // namespace structtest
