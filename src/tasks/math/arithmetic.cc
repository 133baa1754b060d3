#include "tasks/math/arithmetic.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/pytext.h"

namespace structtest::math_internal {

// Named, not anonymous: the family's files share one unity translation unit.
namespace work_reader {

constexpr size_t kNpos = std::string_view::npos;

// ---------------------------------------------------------------------------------
// Exact fractions. An operation whose result does not fit 64 bits gives nullopt, and
// the statement is then not judged.

struct Q {
  int64_t n = 0;
  int64_t d = 1;
  bool operator==(const Q& o) const { return n == o.n && d == o.d; }
};

std::optional<Q> MakeQ(__int128 n, __int128 d) {
  if (d == 0) return std::nullopt;
  if (d < 0) {
    n = -n;
    d = -d;
  }
  if (d == 1) {
    if (n > INT64_MAX || n < -INT64_MAX) return std::nullopt;
    return Q{static_cast<int64_t>(n), 1};
  }
  if (n >= -INT64_MAX && n <= INT64_MAX && d <= INT64_MAX) {
    // the common case in 64 bits, where a division is one instruction
    const uint64_t g = std::gcd(static_cast<uint64_t>(n < 0 ? -n : n), static_cast<uint64_t>(d));
    return Q{static_cast<int64_t>(n) / static_cast<int64_t>(g),
             static_cast<int64_t>(d) / static_cast<int64_t>(g)};
  }
  __int128 a = n < 0 ? -n : n, b = d;
  while (b != 0) {
    const __int128 t = a % b;
    a = b;
    b = t;
  }
  if (a > 1) {
    n /= a;
    d /= a;
  }
  if (n > INT64_MAX || n < -INT64_MAX || d > INT64_MAX) return std::nullopt;
  return Q{static_cast<int64_t>(n), static_cast<int64_t>(d)};
}

std::optional<Q> Add(Q a, Q b) {
  return MakeQ(static_cast<__int128>(a.n) * b.d + static_cast<__int128>(b.n) * a.d,
               static_cast<__int128>(a.d) * b.d);
}
std::optional<Q> Sub(Q a, Q b) { return Add(a, Q{-b.n, b.d}); }
std::optional<Q> Mul(Q a, Q b) {
  return MakeQ(static_cast<__int128>(a.n) * b.n, static_cast<__int128>(a.d) * b.d);
}
std::optional<Q> Div(Q a, Q b) {
  if (b.n == 0) return std::nullopt;
  return MakeQ(static_cast<__int128>(a.n) * b.d, static_cast<__int128>(a.d) * b.n);
}
Q Abs(Q a) { return Q{a.n < 0 ? -a.n : a.n, a.d}; }
Q Int(int64_t v) { return Q{v, 1}; }

// floor(a * 10^decimals) and ceil of it, as fractions with denominator 10^decimals.
bool RoundsTo(Q computed, Q stated, int decimals) {
  if (decimals > 12) return computed == stated;
  __int128 scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  const __int128 num = static_cast<__int128>(computed.n) * scale;
  __int128 fl = num / computed.d;
  if (num % computed.d != 0 && num < 0) --fl;
  // exact at these decimals: only itself; else rounded down or up
  const bool exact = num % computed.d == 0;
  for (__int128 r : {fl, fl + 1}) {
    const auto q = MakeQ(r, scale);
    if (q && *q == stated) return true;
    if (exact) break;
  }
  return false;
}

// A number as written: digits with thousands separators (',' before groups of three)
// and a decimal part. Sets the value and the count of decimals; false when it does not
// fit.
bool ParseNumber(std::string_view s, Q* value, int* decimals) {
  __int128 n = 0, d = 1;
  int digits = 0, dec = 0;
  bool frac = false;
  for (char c : s) {
    if (c == ',') continue;
    if (c == '.') {
      frac = true;
      continue;
    }
    if (++digits > 18) return false;
    n = n * 10 + (c - '0');
    if (frac) {
      d *= 10;
      ++dec;
    }
  }
  const auto q = MakeQ(n, d);
  if (!q) return false;
  *value = *q;
  *decimals = dec;
  return true;
}

// ---------------------------------------------------------------------------------
// Words

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The words the reader gives a meaning, each looked up once per token (Lookup) rather
// than compared against lists wherever the token is looked at.
enum class Lex : uint8_t {
  kOther, kOf, kBy, kPer, kWhich, kMultiplied, kDivided, kTwice, kDouble, kTriple, kThrice,
  kDivide, kDividing, kMultiply, kMultiplying, kSubtract, kSubtracting, kAdd, kAdding, kFrom,
  kAnd, kTo, kGet, kGets, kObtain, kAre, kBe
};
constexpr std::pair<std::string_view, Lex> kNamedWords[] = {
    {"of", Lex::kOf},         {"by", Lex::kBy},
    {"per", Lex::kPer},       {"which", Lex::kWhich},
    {"multiplied", Lex::kMultiplied}, {"divided", Lex::kDivided},
    {"twice", Lex::kTwice},   {"double", Lex::kDouble},
    {"triple", Lex::kTriple}, {"thrice", Lex::kThrice},
    {"divide", Lex::kDivide}, {"dividing", Lex::kDividing},
    {"multiply", Lex::kMultiply}, {"multiplying", Lex::kMultiplying},
    {"subtract", Lex::kSubtract}, {"subtracting", Lex::kSubtracting},
    {"add", Lex::kAdd},       {"adding", Lex::kAdding},
    {"from", Lex::kFrom},     {"and", Lex::kAnd},
    {"to", Lex::kTo},         {"get", Lex::kGet},
    {"gets", Lex::kGets},     {"obtain", Lex::kObtain},
    {"are", Lex::kAre},       {"be", Lex::kBe}};

// Words that join two numbers as an operation ("5 times 3", "3 x 4", "8 plus 2").
constexpr std::pair<std::string_view, char> kOperatorWords[] = {
    {"x", '*'}, {"times", '*'}, {"plus", '+'}, {"minus", '-'}, {"over", '/'}};

// Words that state a result between two numbers ("half of 80 is 40").
constexpr std::string_view kResultWords[] = {"is", "equals", "gives", "makes", "leaves"};
// Words that never are a number's unit.
constexpr std::string_view kNotUnits[] = {"of",     "by",   "per", "and", "or",     "to",
                                          "for",    "from", "is",  "equals", "gives", "makes",
                                          "leaves", "are",  "was", "x",   "times",  "plus",
                                          "minus",  "over", "multiplied", "divided", "equal",
                                          "in",     "at",   "on",  "with", "each",  "then"};

// The values number words stand for in a problem: "half" 1/2, "twice" 2, "dozen" 12,
// "third" 1/3 (and its 3), ...
struct ImpliedValue {
  int64_t n = 0, d = 0;  // d == 0: none
};
constexpr std::pair<std::string_view, ImpliedValue> kImplied[] = {
    {"half", {1, 2}},     {"halves", {1, 2}},   {"twice", {2, 1}},   {"double", {2, 1}},
    {"doubled", {2, 1}},  {"triple", {3, 1}},   {"tripled", {3, 1}}, {"thrice", {3, 1}},
    {"quarter", {1, 4}},  {"quarters", {1, 4}}, {"dozen", {12, 1}},  {"dozens", {12, 1}},
    {"third", {1, 3}},    {"thirds", {1, 3}},   {"fourth", {1, 4}},  {"fourths", {1, 4}},
    {"fifth", {1, 5}},    {"fifths", {1, 5}},   {"sixth", {1, 6}},   {"seventh", {1, 7}},
    {"eighth", {1, 8}},   {"ninth", {1, 9}},    {"tenth", {1, 10}},  {"pair", {2, 1}},
    {"pairs", {2, 1}},    {"once", {1, 1}},     {"percent", {1, 100}}, {"score", {20, 1}}};

constexpr std::pair<std::string_view, int64_t> kNumberWords[] = {
    {"zero", 0},       {"one", 1},        {"two", 2},        {"three", 3},
    {"four", 4},       {"five", 5},       {"six", 6},        {"seven", 7},
    {"eight", 8},      {"nine", 9},       {"ten", 10},       {"eleven", 11},
    {"twelve", 12},    {"thirteen", 13},  {"fourteen", 14},  {"fifteen", 15},
    {"sixteen", 16},   {"seventeen", 17}, {"eighteen", 18},  {"nineteen", 19},
    {"twenty", 20},    {"thirty", 30},    {"forty", 40},     {"fifty", 50},
    {"sixty", 60},     {"seventy", 70},   {"eighty", 80},    {"ninety", 90}};

constexpr std::pair<std::string_view, int64_t> kScaleWords[] = {
    {"hundred", 100}, {"thousand", 1000}, {"million", 1000000}};

// The table below holds every word of the lists, lower case, of at most 11 letters.
template <typename List>
constexpr bool Fits(const List& list, size_t longest) {
  for (const auto& entry : list) {
    std::string_view w;
    if constexpr (std::is_same_v<std::decay_t<decltype(entry)>, std::string_view>) {
      w = entry;
    } else {
      w = entry.first;
    }
    if (w.empty() || w.size() > longest) return false;
    for (char c : w) {
      if (c < 'a' || c > 'z') return false;
    }
  }
  return true;
}
constexpr size_t kListedWords = std::size(kNamedWords) + std::size(kOperatorWords) +
                                std::size(kResultWords) + std::size(kNotUnits) +
                                std::size(kImplied) + std::size(kNumberWords) +
                                std::size(kScaleWords);

// What a word means to the reader: every list above that has it.
struct WordInfo {
  std::string_view word;  // lower case
  Lex lex = Lex::kOther;
  char op = 0;            // an operator word
  bool result = false;    // a result word
  bool not_unit = false;  // never a number's unit
  int64_t number = -1;    // a number word's value
  int64_t scale = -1;     // "hundred", "thousand", "million"
  ImpliedValue implied;   // a word of kImplied
};

// The words above in an open-addressing table keyed by their lower-case spelling.
class WordTable {
 public:
  static constexpr size_t kLongest = 11;  // "multiplying", "subtracting"

  WordTable() {
    for (const auto& [w, lex] : kNamedWords) Entry(w)->lex = lex;
    for (const auto& [w, op] : kOperatorWords) Entry(w)->op = op;
    for (std::string_view w : kResultWords) Entry(w)->result = true;
    for (std::string_view w : kNotUnits) Entry(w)->not_unit = true;
    for (const auto& [w, v] : kImplied) Entry(w)->implied = v;
    for (const auto& [w, v] : kNumberWords) Entry(w)->number = v;
    for (const auto& [w, v] : kScaleWords) Entry(w)->scale = v;
  }

  // The meaning of `w` (any case), or nullptr when it has none. Most words of a text
  // have none, and their slot is empty: the hash reads only the length and the first
  // and last letters.
  const WordInfo* Find(std::string_view w) const {
    if (w.empty() || w.size() > kLongest) return nullptr;
    for (size_t slot = Hash(w);; slot = (slot + 1) % kSlots) {
      const int16_t at = slots_[slot];
      if (at < 0) return nullptr;
      const std::string_view word = infos_[at].word;
      if (word.size() == w.size() &&
          std::equal(word.begin(), word.end(), w.begin(), [](char lower, char c) {
            return lower == Lower(c);
          })) {
        return &infos_[at];
      }
    }
  }

 private:
  static constexpr size_t kSlots = 512;  // at least twice the words: probes stay short
  static constexpr size_t kMaxWords = kListedWords;  // an upper bound (words repeat)
  static_assert(2 * kMaxWords <= kSlots);
  static_assert(Fits(kNamedWords, kLongest) && Fits(kOperatorWords, kLongest) &&
                Fits(kResultWords, kLongest) && Fits(kNotUnits, kLongest) &&
                Fits(kImplied, kLongest) && Fits(kNumberWords, kLongest) &&
                Fits(kScaleWords, kLongest));

  static size_t Hash(std::string_view w) {
    const uint32_t first = static_cast<unsigned char>(Lower(w.front()));
    const uint32_t last = static_cast<unsigned char>(Lower(w.back()));
    const uint32_t h = (static_cast<uint32_t>(w.size()) * 0x9E3779B1u) ^ (first * 0x85EBCA6Bu) ^
                       (last * 0xC2B2AE35u);
    return (h >> 16) % kSlots;
  }

  WordInfo* Entry(std::string_view w) {
    for (size_t slot = Hash(w);; slot = (slot + 1) % kSlots) {
      if (slots_[slot] < 0) {
        // at most kMaxWords new words: the lists have that many
        slots_[slot] = static_cast<int16_t>(count_);
        infos_[count_].word = w;
        return &infos_[count_++];
      }
      if (infos_[slots_[slot]].word == w) return &infos_[slots_[slot]];
    }
  }

  std::array<int16_t, kSlots> slots_ = [] {
    std::array<int16_t, kSlots> s{};
    s.fill(-1);
    return s;
  }();
  std::array<WordInfo, kMaxWords> infos_{};
  size_t count_ = 0;
};

const WordInfo* Lookup(std::string_view w) {
  static const WordTable table;
  return table.Find(w);
}

bool Is(const WordInfo* w, Lex lex) { return w != nullptr && w->lex == lex; }
char OperatorWord(const WordInfo* w) { return w != nullptr ? w->op : 0; }
bool IsResultWord(const WordInfo* w) { return w != nullptr && w->result; }
bool IsNotUnit(const WordInfo* w) { return w != nullptr && w->not_unit; }
int64_t NumberWord(const WordInfo* w) { return w != nullptr ? w->number : -1; }
int64_t ScaleWord(const WordInfo* w) { return w != nullptr ? w->scale : -1; }
const ImpliedValue* Implied(const WordInfo* w) {
  return w != nullptr && w->implied.d != 0 ? &w->implied : nullptr;
}

// Constants a solution may compute with besides the problem's numbers: units of time,
// weeks and months, percent, dozens, ounces, coins, halves and quarters.
constexpr Q kConstants[] = {
    {0, 1},   {1, 1},    {2, 1},   {3, 1},    {4, 1},    {5, 1},   {7, 1},    {8, 1},
    {10, 1},  {12, 1},   {16, 1},  {24, 1},   {28, 1},   {30, 1},  {31, 1},   {52, 1},
    {60, 1},  {100, 1},  {360, 1}, {365, 1},  {366, 1},  {1000, 1}, {1440, 1}, {3600, 1},
    {1, 2},   {1, 4},    {3, 4},   {1, 10},   {1, 20},   {1, 100}};

// Factors a value may change by across '=' when the units on the two sides differ
// ("1/2 hour = 30 minutes", "2 dozen = 24 eggs").
constexpr int64_t kConversions[] = {60, 24, 7, 12, 100, 1000, 16, 3, 8, 4, 2, 52, 365, 30, 3600, 10};

// ---------------------------------------------------------------------------------
// A line as items

struct Item {
  enum Kind : uint8_t { kNum, kOp, kEq, kLParen, kRParen, kWord, kPunct };
  // (largest members first: items are copied in bulk)
  Q value;                 // kNum
  std::string_view text;   // kWord: the word
  std::string_view units[2];
  const WordInfo* word = nullptr;  // kWord: what it means to the reader, if anything
  int decimals = 0;        // kNum: as written (plus 2 for a percentage)
  uint8_t unit_count = 0;
  Kind kind = kPunct;
  char op = 0;             // kOp: + - * / ^
  bool percent = false;    // kNum: "25%" (value 1/4)
  bool algebra = false;    // kNum: "2x", "/ x", or a number inside prose ("3 women wearing 4")
  bool word_number = false;  // kNum: "half", "twice" read as a number
  bool coefficient = false;  // kNum: "19c", "2x": an algebra coefficient
  bool lenient = false;      // kEq: ", which is": a value that may not be this one's
  bool hyphenated = false;   // kWord: "one-third"
};

bool IsBulletLine(std::string_view line, size_t* skip) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  size_t k = i;
  if (k < line.size() && (line[k] == '-' || line[k] == '*' || line[k] == '+')) {
    ++k;
  } else if (std::string_view(line).substr(k).starts_with("\u2022")) {
    k += 3;
  } else {
    while (k < line.size() && IsAsciiDigit(line[k])) ++k;
    if (k == i || k >= line.size() || (line[k] != '.' && line[k] != ')')) return false;
    ++k;
  }
  if (k >= line.size() || (line[k] != ' ' && line[k] != '\t')) return false;
  *skip = k;
  return true;
}

// LaTeX as plain arithmetic: \frac{a}{b} as ((a)/(b)); \(, \), \[, \], \text{,
// \left, \right and spacing commands dropped. Returns `line` itself when it has no '\'.
std::string_view Delatex(std::string_view line, std::string* storage) {
  if (line.find('\\') == kNpos) return line;
  // First "\text{ (first 6 hours)}", "\boxed{75}": the braces' content, without them
  // (so a fraction's braces are its own: "\frac{15 \text{ miles}}{3}").
  std::string s;
  s.reserve(line.size() + 8);
  for (size_t i = 0; i < line.size();) {
    bool unwrapped = false;
    if (line[i] == '\\') {
      for (std::string_view d : {"\\text{", "\\mathrm{", "\\textbf{", "\\mathbf{", "\\boxed{"}) {
        if (!line.substr(i).starts_with(d)) continue;
        const size_t k = i + d.size();
        int depth = 1;
        size_t close = kNpos;
        for (size_t m = k; m < line.size() && m < k + 4096; ++m) {  // bounded
          if (line[m] == '{') ++depth;
          if (line[m] == '}' && --depth == 0) {
            close = m;
            break;
          }
        }
        if (close == kNpos) break;
        s.push_back(' ');
        s.append(line.substr(k, close - k));
        s.push_back(' ');
        i = close + 1;
        unwrapped = true;
        break;
      }
    }
    if (!unwrapped) s.push_back(line[i++]);
  }
  for (int pass = 0; pass < 3; ++pass) {
    size_t at = s.find("frac");
    bool changed = false;
    while (at != std::string::npos) {
      size_t b = at;
      while (b > 0 && IsLetter(s[b - 1])) --b;  // \frac, \dfrac, \tfrac
      if (b == 0 || s[b - 1] != '\\') {
        at = s.find("frac", at + 4);
        continue;
      }
      size_t i = at + 4;
      while (i < s.size() && s[i] == ' ') ++i;
      const size_t o1 = i;
      const size_t c1 = o1 < s.size() && s[o1] == '{' ? s.find_first_of("{}", o1 + 1) : std::string::npos;
      if (c1 == std::string::npos || s[c1] != '}') {
        at = s.find("frac", at + 4);
        continue;
      }
      size_t o2 = c1 + 1;
      while (o2 < s.size() && s[o2] == ' ') ++o2;
      const size_t c2 = o2 < s.size() && s[o2] == '{' ? s.find_first_of("{}", o2 + 1) : std::string::npos;
      if (c2 == std::string::npos || s[c2] != '}') {
        at = s.find("frac", at + 4);
        continue;
      }
      const std::string rep = " ((" + s.substr(o1 + 1, c1 - o1 - 1) + ")/(" +
                              s.substr(o2 + 1, c2 - o2 - 1) + ")) ";
      s.replace(b - 1, c2 + 1 - (b - 1), rep);
      changed = true;
      at = s.find("frac", b - 1 + rep.size());
    }
    if (!changed) break;
  }
  storage->clear();
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\\') {
      const std::string_view rest = std::string_view(s).substr(i);
      if (rest.starts_with("\\$")) {
        storage->push_back('$');
        i += 2;
        continue;
      }
      bool dropped = false;
      for (std::string_view d : {"\\(", "\\)", "\\[", "\\]", "\\text{", "\\mathrm{", "\\left",
                                 "\\right", "\\,", "\\;", "\\!", "\\quad", "\\qquad", "\\%"}) {
        if (rest.starts_with(d)) {
          storage->push_back(d == "\\%" ? '%' : ' ');
          i += d.size();
          dropped = true;
          break;
        }
      }
      if (dropped) continue;
    }
    storage->push_back(s[i++]);
  }
  return *storage;
}

// The length of the operator at s[i], and which it is; 0 when none.
size_t OperatorAt(std::string_view s, size_t i, char* op) {
  const char c = s[i];
  if (c == '+' || c == '-' || c == '*' || c == '/' || c == '^') {
    *op = c;
    return 1;
  }
  const std::string_view rest = s.substr(i);
  struct Spelled {
    std::string_view text;
    char op;
  };
  static constexpr Spelled kSpelled[] = {{"\u00D7", '*'}, {"\u00F7", '/'}, {"\u00B7", '*'},
                                         {"\u2212", '-'}, {"\u2013", '-'}, {"\u22C5", '*'},
                                         {"\\times", '*'}, {"\\cdot", '*'}, {"\\div", '/'}};
  for (const Spelled& sp : kSpelled) {
    if (rest.starts_with(sp.text)) {
      *op = sp.op;
      return sp.text.size();
    }
  }
  return 0;
}

size_t EqualsAt(std::string_view s, size_t i) {
  if (s[i] == '=') return 1;
  const std::string_view rest = s.substr(i);
  if (rest.starts_with("\u2248")) return 3;
  if (rest.starts_with("\\approx")) return 7;
  return 0;
}

// A raw token of a line.
struct Token {
  enum Kind : uint8_t { kNum, kOp, kEq, kLParen, kRParen, kPct, kWord, kCur, kOther };
  Kind kind;
  char op = 0;
  std::string_view text;
  const WordInfo* word = nullptr;  // kWord: what it means to the reader, if anything
  bool glued = false;  // no space before it
  bool hyphenated = false;  // kWord: "twenty-five", "roll-ups"
};

// The first byte of a token, for Tokenize's dispatch. Operators and signs spelled with
// more than one byte (UTF-8, LaTeX) start with kSlow bytes.
enum class Lead : uint8_t { kOther, kSpace, kDigit, kDot, kLetter, kEquals, kOp, kOpen, kClose,
                            kPercent, kDollar, kSlow };
constexpr std::array<Lead, 256> kLead = [] {
  std::array<Lead, 256> t{};
  for (int c = 0; c < 256; ++c) {
    Lead l = Lead::kOther;
    if (c == ' ' || c == '\t') l = Lead::kSpace;
    else if (c >= '0' && c <= '9') l = Lead::kDigit;
    else if (c == '.') l = Lead::kDot;
    else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) l = Lead::kLetter;
    else if (c == '=') l = Lead::kEquals;
    else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '^') l = Lead::kOp;
    else if (c == '(' || c == '[' || c == '{') l = Lead::kOpen;
    else if (c == ')' || c == ']' || c == '}') l = Lead::kClose;
    else if (c == '%') l = Lead::kPercent;
    else if (c == '$') l = Lead::kDollar;
    else if (c == '\\' || c >= 0x80) l = Lead::kSlow;
    t[c] = l;
  }
  return t;
}();

// The digits of a number at s[i]: "12", "1,250" (',' then exactly three digits, only
// after 1-3 digits), "3.75", ".5". Returns its end.
size_t NumberEnd(std::string_view s, size_t i) {
  size_t k = i;
  while (k < s.size() && IsAsciiDigit(s[k])) ++k;
  if (k - i <= 3) {
    while (k + 3 < s.size() && s[k] == ',' && IsAsciiDigit(s[k + 1]) && IsAsciiDigit(s[k + 2]) &&
           IsAsciiDigit(s[k + 3]) && (k + 4 == s.size() || !IsAsciiDigit(s[k + 4]))) {
      k += 4;
    }
  }
  if (k + 1 < s.size() && s[k] == '.' && IsAsciiDigit(s[k + 1])) {
    ++k;
    while (k < s.size() && IsAsciiDigit(s[k])) ++k;
  }
  return k;
}

void Tokenize(std::string_view s, std::vector<Token>* out) {
  out->clear();
  size_t i = 0;
  size_t prev_end = kNpos;
  while (i < s.size()) {
    const char c = s[i];
    const Lead lead = kLead[static_cast<unsigned char>(c)];
    if (lead == Lead::kSpace) {
      ++i;
      continue;
    }
    Token& t = out->emplace_back();
    t.glued = i == prev_end;
    const size_t begin = i;
    size_t len;
    switch (lead) {
      case Lead::kDigit:
        t.kind = Token::kNum;
        i = NumberEnd(s, i);
        break;
      case Lead::kLetter: {
        size_t k = i;
        while (true) {
          while (k < s.size() && kLead[static_cast<unsigned char>(s[k])] == Lead::kLetter) ++k;
          // hyphenated and possessive words are one word: "roll-ups", "Jim's"
          if (k + 1 < s.size() && (s[k] == '-' || s[k] == '\'') && IsLetter(s[k + 1])) {
            t.hyphenated = t.hyphenated || s[k] == '-';
            ++k;
            continue;
          }
          break;
        }
        t.kind = Token::kWord;
        t.word = Lookup(s.substr(i, k - i));
        i = k;
        break;
      }
      case Lead::kEquals:
        t.kind = Token::kEq;
        ++i;
        break;
      case Lead::kOp:
        t.kind = Token::kOp;
        t.op = c;
        ++i;
        break;
      case Lead::kOpen:
        t.kind = Token::kLParen;
        ++i;
        break;
      case Lead::kClose:
        t.kind = Token::kRParen;
        ++i;
        break;
      case Lead::kPercent:
        t.kind = Token::kPct;
        ++i;
        break;
      case Lead::kDollar:
        t.kind = Token::kCur;
        ++i;
        break;
      case Lead::kDot:
        if (i + 1 < s.size() && IsAsciiDigit(s[i + 1])) {
          t.kind = Token::kNum;
          i = NumberEnd(s, i);
        } else {
          t.kind = Token::kOther;
          ++i;
        }
        break;
      case Lead::kSlow: {
        char op = 0;
        const std::string_view rest = s.substr(i);
        if ((len = EqualsAt(s, i)) > 0) {
          t.kind = Token::kEq;
          i += len;
        } else if ((len = OperatorAt(s, i, &op)) > 0) {
          t.kind = Token::kOp;
          t.op = op;
          i += len;
        } else if (rest.starts_with("\u20AC") || rest.starts_with("\u00A3")) {
          t.kind = Token::kCur;
          i += rest.starts_with("\u20AC") ? 3 : 2;
        } else {
          t.kind = Token::kOther;
          size_t l = 1;
          if (static_cast<unsigned char>(c) >= 0x80) DecodeUtf8(s, i, &l);
          i += l;
        }
        break;
      }
      case Lead::kSpace:
      case Lead::kOther:
        t.kind = Token::kOther;
        ++i;
        break;
    }
    t.text = s.substr(begin, i - begin);
    prev_end = i;
  }
}

bool IsOp(const Item& it, char op) { return it.kind == Item::kOp && it.op == op; }

bool SingleLetter(std::string_view w) { return w.size() == 1 && IsLetter(w[0]); }

// Tokens to items: a number takes its '%' and up to two unit words ("80 miles",
// "$2/egg", "4 cups per day"); operator and result words between numbers become
// operators and '='; "half of", "twice", "25% of", "1/3 of" become arithmetic.
void ToItems(const std::vector<Token>& toks, std::vector<Item>* out, std::vector<Item>* scratch) {
  out->clear();
  std::vector<size_t> skip_close;  // the ')' of "(12 - 7 = 5)"
  for (size_t i = 0; i < toks.size();) {
    const Token& t = toks[i];
    Item it;
    switch (t.kind) {
      case Token::kNum: {
        it.kind = Item::kNum;
        if (!ParseNumber(t.text, &it.value, &it.decimals)) it.algebra = true;
        size_t j = i + 1;
        if (j < toks.size() && toks[j].kind == Token::kPct) {
          it.percent = true;
          it.decimals += 2;
          if (auto q = Div(it.value, Int(100))) it.value = *q;
          ++j;
        }
        if (j < toks.size() && toks[j].kind == Token::kWord && toks[j].glued) {
          it.algebra = true;  // 2x, 3Tr
          it.coefficient = true;
          ++j;
        }
        while (j < toks.size() && it.unit_count < 2 && !it.algebra) {
          const Token& u = toks[j];
          if (u.kind == Token::kWord && !IsNotUnit(u.word)) {
            it.units[it.unit_count++] = u.text;
            ++j;
          } else if (((u.kind == Token::kWord && Is(u.word, Lex::kPer)) ||
                      (u.kind == Token::kOp && u.op == '/')) &&
                     j + 1 < toks.size() && toks[j + 1].kind == Token::kWord) {
            if (SingleLetter(toks[j + 1].text)) it.algebra = true;  // "96 / x"
            it.units[it.unit_count++] = toks[j + 1].text;
            j += 2;
          } else {
            break;
          }
        }
        // "3 women wearing 4 inch heels": numbers inside prose
        if (it.unit_count > 0 && j < toks.size() && toks[j].kind == Token::kNum) it.algebra = true;
        out->push_back(it);
        i = j;
        continue;
      }
      case Token::kOp:
        it.kind = Item::kOp;
        it.op = t.op;
        break;
      case Token::kEq:
        it.kind = Item::kEq;
        break;
      case Token::kLParen: {
        // "5 (12 - 7 = 5)": a statement in parentheses is read as one, without them
        {
          int depth = 0;
          size_t close = kNpos;
          bool has_eq = false;
          // bounded look-ahead: a line of a million '(' stays linear
          for (size_t m = i; m < toks.size() && m < i + 64; ++m) {
            if (toks[m].kind == Token::kLParen) ++depth;
            if (toks[m].kind == Token::kRParen && --depth == 0) {
              close = m;
              break;
            }
            has_eq = has_eq || (depth == 1 && toks[m].kind == Token::kEq);
          }
          if (close != kNpos && has_eq) {
            Item sep;
            sep.kind = Item::kPunct;
            out->push_back(sep);
            skip_close.push_back(close);
            ++i;
            continue;
          }
        }
        // "(Seattle)", "(intermission)": a note in words, not arithmetic
        size_t k = i + 1;
        bool words = false;
        while (k < toks.size() && (toks[k].kind == Token::kWord || toks[k].kind == Token::kOther)) {
          words = words || toks[k].kind == Token::kWord;
          ++k;
        }
        if (words && k < toks.size() && toks[k].kind == Token::kRParen) {
          i = k + 1;
          continue;
        }
        // "180 minutes (3 hours)": the same quantity in other units, after a number
        if (!t.glued && !out->empty() && out->back().kind == Item::kNum) {
          size_t m = i + 1;
          int numbers = 0;
          while (m < toks.size() && (toks[m].kind == Token::kNum || toks[m].kind == Token::kWord ||
                                     toks[m].kind == Token::kCur || toks[m].kind == Token::kPct)) {
            numbers += toks[m].kind == Token::kNum;
            ++m;
          }
          if (numbers == 1 && m < toks.size() && toks[m].kind == Token::kRParen) {
            i = m + 1;
            continue;
          }
        }
      }
        // "2(38)": a product
        if (t.glued && t.text == "(" && !out->empty() &&
            (out->back().kind == Item::kNum || out->back().kind == Item::kRParen)) {
          Item times;
          times.kind = Item::kOp;
          times.op = '*';
          out->push_back(times);
        }
        it.kind = Item::kLParen;
        break;
      case Token::kRParen:
        if (std::find(skip_close.begin(), skip_close.end(), i) != skip_close.end()) {
          it.kind = Item::kPunct;
          break;
        }
        it.kind = Item::kRParen;
        if (i + 1 < toks.size() && toks[i + 1].kind == Token::kWord && toks[i + 1].glued) {
          // "(3/4)x": algebra; the number before it is marked
          for (Item& prev : *out) prev.algebra = prev.algebra || prev.kind == Item::kNum;
        }
        break;
      case Token::kPct:
        it.kind = Item::kPunct;
        break;
      case Token::kWord:
        it.kind = Item::kWord;
        it.text = t.text;
        it.word = t.word;
        it.hyphenated = t.hyphenated;
        break;
      case Token::kCur:
        ++i;
        continue;
      case Token::kOther:
        it.kind = Item::kPunct;
        it.text = t.text;
        break;
    }
    out->push_back(it);
    ++i;
  }
  // Words between numbers.
  std::vector<Item>& res = *scratch;
  res.clear();
  for (size_t k = 0; k < out->size(); ++k) {
    const Item& it = (*out)[k];
    if (it.kind != Item::kWord) {
      res.push_back(it);
      continue;
    }
    const Item* prev = res.empty() ? nullptr : &res.back();
    // "450 calories from eggs + 240 calories from cheese": a few words naming what a
    // number counts, between it and an operator, '=' or an operator or result word
    // that a number follows, are the number's description.
    if (prev != nullptr && prev->kind == Item::kNum && !prev->algebra) {
      // "of" makes a product after "25%", "half" or "1/3"; elsewhere it describes
      const bool of_multiplies = prev->percent || prev->word_number ||
                                 (res.size() >= 3 && IsOp(res[res.size() - 2], '/'));
      size_t m = k;
      while (m < out->size() && m - k < kMaxDescriptionWords + 1 &&
             (*out)[m].kind == Item::kWord && OperatorWord((*out)[m].word) == 0 &&
             !IsResultWord((*out)[m].word) && !Is((*out)[m].word, Lex::kMultiplied) &&
             !Is((*out)[m].word, Lex::kDivided) && !Is((*out)[m].word, Lex::kWhich) &&
             !(of_multiplies && Is((*out)[m].word, Lex::kOf)) && !SingleLetter((*out)[m].text)) {
        ++m;
      }
      if (m > k && m - k <= kMaxDescriptionWords && m + 1 < out->size()) {
        const Item& after = (*out)[m];
        const Item& then = (*out)[m + 1];
        const bool joins = after.kind == Item::kOp || after.kind == Item::kEq ||
                           (after.kind == Item::kWord && (OperatorWord(after.word) != 0 ||
                                                          IsResultWord(after.word)));
        // "1 bolt of white fiber, which equals 3"
        const bool which = after.kind == Item::kPunct && after.text == "," &&
                           then.kind == Item::kWord && Is(then.word, Lex::kWhich) &&
                           m + 2 < out->size() && (*out)[m + 2].kind == Item::kWord &&
                           IsResultWord((*out)[m + 2].word);
        if (joins && (then.kind == Item::kNum || then.kind == Item::kLParen)) {
          k = m - 1;
          continue;
        }
        if (which && m + 3 < out->size() && (*out)[m + 3].kind == Item::kNum) {
          // read as '=', but loosely: prose may mean the whole sentence by "which"
          Item eq;
          eq.kind = Item::kEq;
          eq.lenient = true;
          res.push_back(eq);
          k = m + 2;
          continue;
        }
      }
    }
    // "one-third of 3 = 1", "two thirds of 9": a number word and a fraction word
    if (const size_t dash = it.hyphenated ? it.text.find('-') : kNpos; dash != kNpos) {
      const int64_t hv = NumberWord(Lookup(it.text.substr(0, dash)));
      const ImpliedValue* imp = Implied(Lookup(it.text.substr(dash + 1)));
      if (hv > 0 && imp != nullptr && imp->n < imp->d && k + 2 < out->size() &&
          (*out)[k + 1].kind == Item::kWord && Is((*out)[k + 1].word, Lex::kOf) &&
          (*out)[k + 2].kind == Item::kNum) {
        if (auto q = MakeQ(static_cast<__int128>(hv) * imp->n, imp->d)) {
          Item rep;
          rep.kind = Item::kNum;
          rep.value = *q;
          rep.word_number = true;
          res.push_back(rep);
          continue;
        }
      }
    }
    const Item* next = k + 1 < out->size() ? &(*out)[k + 1] : nullptr;
    const bool prev_value = prev && (prev->kind == Item::kNum || prev->kind == Item::kRParen);
    const bool next_value = next && (next->kind == Item::kNum || next->kind == Item::kLParen);
    Item rep;
    if (const char op = OperatorWord(it.word); op != 0 && prev_value && next_value) {
      rep.kind = Item::kOp;
      rep.op = op;
      res.push_back(rep);
      continue;
    }
    if ((Is(it.word, Lex::kMultiplied) || Is(it.word, Lex::kDivided)) && prev_value && next &&
        next->kind == Item::kWord && Is(next->word, Lex::kBy)) {
      rep.kind = Item::kOp;
      rep.op = Is(it.word, Lex::kMultiplied) ? '*' : '/';
      res.push_back(rep);
      ++k;
      continue;
    }
    if (IsResultWord(it.word) && prev && prev->kind == Item::kNum && next &&
        next->kind == Item::kNum) {
      rep.kind = Item::kEq;
      res.push_back(rep);
      continue;
    }
    if (Is(it.word, Lex::kOf) && prev && prev->kind == Item::kNum && next &&
        next->kind == Item::kNum &&
        (prev->percent || prev->word_number ||
         (res.size() >= 3 && IsOp(res[res.size() - 2], '/')))) {
      rep.kind = Item::kOp;
      rep.op = '*';
      res.push_back(rep);
      continue;
    }
    if (const ImpliedValue* imp = Implied(it.word); imp != nullptr && next) {
      // "half of 80", "twice 9"
      const bool fraction_of = imp->n < imp->d && next->kind == Item::kWord &&
                               Is(next->word, Lex::kOf) && k + 2 < out->size() &&
                               (*out)[k + 2].kind == Item::kNum;
      const bool times = imp->d == 1 && imp->n > 1 && next->kind == Item::kNum &&
                         (Is(it.word, Lex::kTwice) || Is(it.word, Lex::kDouble) ||
                          Is(it.word, Lex::kTriple) || Is(it.word, Lex::kThrice));
      if (fraction_of || times) {
        rep.kind = Item::kNum;
        rep.value = Q{imp->n, imp->d};
        if (fraction_of && !res.empty() && res.back().kind == Item::kWord) {
          // "two thirds of 9", "a third of 9"
          const int64_t hv = NumberWord(res.back().word);
          if (hv > 0) {
            if (auto q = MakeQ(static_cast<__int128>(hv) * imp->n, imp->d)) rep.value = *q;
            res.pop_back();
          }
        }
        rep.word_number = true;  // "of" after it is a product
        res.push_back(rep);
        if (times) {
          Item mul;
          mul.kind = Item::kOp;
          mul.op = '*';
          res.push_back(mul);
        }
        continue;
      }
    }
    res.push_back(it);
  }
  out->swap(res);
}

// ---------------------------------------------------------------------------------
// Expressions

struct Segment {
  size_t begin = 0, end = 0;  // items [begin, end)
  bool readable = true;
  bool after_word = false;    // the first segment of its chain follows a word
  bool lenient = false;       // the '=' before it is a loose one (", which is")
  bool HasOp(const std::vector<Item>& items) const {
    for (size_t i = begin; i < end; ++i) {
      if (items[i].kind == Item::kOp) return true;
    }
    return false;
  }
};

// The value of items [begin, end) as arithmetic, with its operands and intermediate
// results; nullopt when it is not an expression of numbers.
class Evaluator {
 public:
  Evaluator(const std::vector<Item>& items, size_t begin, size_t end)
      : items_(items), pos_(begin), end_(end) {}

  std::optional<Q> Run(std::vector<Q>* operands, std::vector<Q>* intermediates) {
    operands_ = operands;
    intermediates_ = intermediates;
    auto v = Sum(0);
    if (!v || pos_ != end_) return std::nullopt;
    return v;
  }

 private:
  const Item* Peek() const { return pos_ < end_ ? &items_[pos_] : nullptr; }

  std::optional<Q> Atom(int depth) {
    const Item* t = Peek();
    if (t == nullptr || depth > 32) return std::nullopt;
    if (IsOp(*t, '-')) {
      ++pos_;
      auto v = Atom(depth + 1);
      if (!v) return std::nullopt;
      return Q{-v->n, v->d};
    }
    if (t->kind == Item::kLParen) {
      ++pos_;
      auto v = Sum(depth + 1);
      const Item* c = Peek();
      if (!v || c == nullptr || c->kind != Item::kRParen) return std::nullopt;
      ++pos_;
      intermediates_->push_back(*v);
      return v;
    }
    if (t->kind == Item::kNum && !t->algebra) {
      ++pos_;
      operands_->push_back(t->value);
      return t->value;
    }
    return std::nullopt;
  }

  std::optional<Q> Power(int depth) {
    auto v = Atom(depth);
    const Item* t = Peek();
    if (!v || t == nullptr || !IsOp(*t, '^')) return v;
    ++pos_;
    auto e = Atom(depth + 1);
    if (!e || e->d != 1 || e->n < 0 || e->n > 12) return std::nullopt;
    Q r = Int(1);
    for (int64_t i = 0; i < e->n; ++i) {
      auto m = Mul(r, *v);
      if (!m) return std::nullopt;
      r = *m;
    }
    intermediates_->push_back(r);
    return r;
  }

  std::optional<Q> Product(int depth) {
    auto v = Power(depth);
    while (v) {
      const Item* t = Peek();
      if (t == nullptr || !(IsOp(*t, '*') || IsOp(*t, '/'))) return v;
      ++pos_;
      auto r = Power(depth);
      if (!r) return std::nullopt;
      v = t->op == '*' ? Mul(*v, *r) : Div(*v, *r);
      if (v) intermediates_->push_back(*v);
    }
    return v;
  }

  std::optional<Q> Sum(int depth) {
    auto v = Product(depth);
    while (v) {
      const Item* t = Peek();
      if (t == nullptr || !(IsOp(*t, '+') || IsOp(*t, '-'))) return v;
      ++pos_;
      auto r = Product(depth);
      if (!r) return std::nullopt;
      v = t->op == '+' ? Add(*v, *r) : Sub(*v, *r);
      if (v) intermediates_->push_back(*v);
    }
    return v;
  }

  const std::vector<Item>& items_;
  size_t pos_, end_;
  std::vector<Q>* operands_ = nullptr;
  std::vector<Q>* intermediates_ = nullptr;
};

// Chains of segments joined by '=': "a + b = c = d". A word, a punctuation mark or two
// numbers side by side end a chain; a chain of nothing (between two words) is not kept.
// A chain is `count` segments from `first` in the line's segment list (one flat list, so
// reading a line allocates nothing once the lists have grown).
struct Chain {
  size_t first = 0, count = 0;
};

void ToChains(const std::vector<Item>& items, std::vector<Segment>* segments,
              std::vector<Chain>* chains) {
  chains->clear();
  segments->clear();
  Chain chain;
  Segment cur;
  bool open = false;  // cur has items
  Item::Kind prev = Item::kPunct;
  bool prev_is_start = true;
  auto close_segment = [&]() {
    if (!open) {
      cur.begin = cur.end = 0;
      cur.readable = false;
    }
    segments->push_back(cur);
    ++chain.count;
    cur = Segment();
    open = false;
  };
  auto close_chain = [&]() {
    const bool empty = !open && chain.count == 0;
    close_segment();
    if (empty) {
      // between two words: a chain of nothing, which Check would only skip
      segments->pop_back();
    } else {
      chains->push_back(chain);
    }
    chain = Chain{segments->size(), 0};
  };
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    switch (it.kind) {
      case Item::kNum:
      case Item::kOp:
      case Item::kLParen:
      case Item::kRParen: {
        if ((it.kind == Item::kNum || it.kind == Item::kLParen) && open &&
            (items[cur.end - 1].kind == Item::kNum || items[cur.end - 1].kind == Item::kRParen)) {
          close_chain();  // two numbers side by side
        }
        if (!open) {
          cur.begin = i;
          cur.end = i;
          cur.after_word = chain.count == 0 && prev == Item::kWord;
          open = true;
          // a segment may open with a minus sign only where a value is expected
          if (it.kind == Item::kOp &&
              !(it.op == '-' && (prev_is_start || prev == Item::kEq || prev == Item::kLParen ||
                                 prev == Item::kOp))) {
            cur.readable = false;
          }
        }
        if (it.kind == Item::kNum && it.algebra) cur.readable = false;
        cur.end = i + 1;
        break;
      }
      case Item::kEq:
        close_segment();
        cur.lenient = it.lenient;
        break;
      case Item::kWord:
      case Item::kPunct:
        if (it.kind == Item::kWord && open && items[cur.end - 1].kind == Item::kOp) {
          cur.readable = false;  // "5 + x"
        }
        close_chain();
        break;
    }
    prev = it.kind;
    prev_is_start = false;
  }
  close_chain();
}

bool Decimals(const std::vector<Item>& items, const Segment& s, int* decimals, bool* percent) {
  if (s.end != s.begin + 1 || items[s.begin].kind != Item::kNum) return false;
  *decimals = items[s.begin].decimals;
  *percent = items[s.begin].percent;
  return true;
}

// Does the stated segment (a single number) hold the computed value: equal, or the
// value rounded (either way) to the decimals it is written with; a percentage may
// state the value times 100 ("(25 / 100) x 100 = 25%").
bool Holds(Q computed, const std::vector<Item>& items, const Segment& stated, Q value) {
  if (computed == value) return true;
  int decimals;
  bool percent;
  if (!Decimals(items, stated, &decimals, &percent)) return false;
  if (RoundsTo(computed, value, decimals)) return true;
  if (percent) {
    auto v100 = Mul(value, Int(100));
    if (v100 && (*v100 == computed || RoundsTo(computed, *v100, decimals - 2))) return true;
  }
  return false;
}

bool UnitsCompatible(const std::vector<Item>& items, const Segment& a, const Segment& b) {
  auto last_units = [&](const Segment& s) -> const Item* {
    for (size_t i = s.end; i > s.begin; --i) {
      if (items[i - 1].kind == Item::kNum) return &items[i - 1];
    }
    return nullptr;
  };
  const Item* x = last_units(a);
  const Item* y = last_units(b);
  if (x == nullptr || y == nullptr || x->unit_count == 0 || y->unit_count == 0) return true;
  auto stem = [](std::string_view w) {
    return w.size() > 1 && (w.back() == 's' || w.back() == 'S') ? w.substr(0, w.size() - 1) : w;
  };
  for (int i = 0; i < x->unit_count; ++i) {
    for (int j = 0; j < y->unit_count; ++j) {
      const std::string_view u = stem(x->units[i]), v = stem(y->units[j]);
      if (u.size() == v.size() && std::equal(u.begin(), u.end(), v.begin(), [](char p, char q) {
            return Lower(p) == Lower(q);
          })) {
        return true;
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------
// The known values

// The values in the order they were added (OneOpAway reads the first ones), with an
// open-addressing index of them for the exact lookups (an answer may hold hundreds).
class Known {
 public:
  void Add(Q v) {
    v = Abs(v);
    if (values_.size() >= kMaxKnown) return;
    if (Find(v)) return;
    if (2 * (values_.size() + 1) > slots_.size()) {
      // most answers know fewer than 32 values: one allocation of each list, not six
      if (values_.empty()) values_.reserve(32);
      Rehash(std::max<size_t>(64, 2 * slots_.size()));
    }
    Insert(v, static_cast<int16_t>(values_.size()));
    values_.push_back(v);
  }
  // v is known, or a known value rounded (either way) to the decimals v is written with.
  bool Has(Q v, int decimals) const {
    v = Abs(v);
    if (Find(v)) return true;
    // rounded: an exact value (an integer, at any decimals) only equals itself
    for (const Q& k : values_) {
      if (k.d != 1 && RoundsTo(k, v, decimals)) return true;
    }
    return false;
  }
  // v is one operation away from two known values (a result worked out in the head).
  bool OneOpAway(Q v) const {
    v = Abs(v);
    const size_t n = std::min<size_t>(values_.size(), 120);
    for (size_t i = 0; i < n; ++i) {
      const Q a = values_[i];
      if (a.n == 0) continue;
      for (size_t j = 0; j < n; ++j) {
        const Q b = values_[j];
        if (b.n == 0) continue;
        for (auto r : {work_reader::Add(a, b), Sub(a, b), Mul(a, b), Div(a, b)}) {
          if (r && Abs(*r) == v) return true;
        }
      }
    }
    return false;
  }
  // v is a known value in other units ("2 hours" computed with as 120 minutes).
  bool ConvertedTo(Q v) const {
    v = Abs(v);
    for (const Q& k : values_) {
      for (int64_t c : kConversions) {
        auto m = Mul(k, Int(c));
        auto d = Div(k, Int(c));
        if ((m && *m == v) || (d && *d == v)) return true;
      }
    }
    return false;
  }
  const std::vector<Q>& values() const { return values_; }
  // Empty, keeping the lists' memory (for values reused from one answer to the next).
  void Clear() {
    values_.clear();
    std::fill(slots_.begin(), slots_.end(), int16_t{-1});
  }

 private:
  static_assert(kMaxKnown < 32768, "indexes are int16_t");

  static size_t Hash(Q v) {
    const uint64_t h = static_cast<uint64_t>(v.n) * 0x9E3779B97F4A7C15ull ^
                       static_cast<uint64_t>(v.d) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  bool Find(Q v) const {
    if (slots_.empty()) return false;
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(v) & mask;; i = (i + 1) & mask) {
      if (slots_[i] < 0) return false;
      if (values_[static_cast<size_t>(slots_[i])] == v) return true;
    }
  }
  void Insert(Q v, int16_t index) {
    const size_t mask = slots_.size() - 1;
    size_t i = Hash(v) & mask;
    while (slots_[i] >= 0) i = (i + 1) & mask;
    slots_[i] = index;
  }
  void Rehash(size_t size) {  // a power of two, more than twice the values
    slots_.assign(size, -1);
    for (size_t k = 0; k < values_.size(); ++k) Insert(values_[k], static_cast<int16_t>(k));
  }

  std::vector<Q> values_;
  std::vector<int16_t> slots_;  // -1: empty; else an index into values_
};

// The numbers of the problem: digits (a percentage also as its fraction, and 1 +/- it),
// "400 000" as 400000, fractions "3/4", number words ("twenty-five", "three hundred"),
// and the words of kImplied.
void ProblemNumbers(std::string_view question, Known* known) {
  // (the lists keep their memory from one question to the next)
  thread_local std::vector<Q> found;
  thread_local std::vector<Token> toks;
  thread_local std::string storage;
  found.clear();
  Tokenize(Delatex(question, &storage), &toks);
  int64_t words_total = -1;
  auto flush_words = [&]() {
    if (words_total >= 0) found.push_back(Int(words_total));
    words_total = -1;
  };
  for (size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.kind == Token::kNum) {
      flush_words();
      Q v;
      int dec;
      if (!ParseNumber(t.text, &v, &dec)) continue;
      found.push_back(v);
      if (auto p = Div(v, Int(100))) found.push_back(*p);
      // "400 000"
      if (i + 1 < toks.size() && toks[i + 1].kind == Token::kNum && toks[i + 1].text.size() == 3 &&
          t.text.size() <= 3) {
        Q w;
        if (ParseNumber(std::string(t.text) + std::string(toks[i + 1].text), &w, &dec)) {
          found.push_back(w);
        }
      }
      // "3/4"
      if (i + 2 < toks.size() && toks[i + 1].kind == Token::kOp && toks[i + 1].op == '/' &&
          toks[i + 2].kind == Token::kNum) {
        Q d;
        if (ParseNumber(toks[i + 2].text, &d, &dec)) {
          if (auto f = Div(v, d)) found.push_back(*f);
        }
      }
      continue;
    }
    if (t.kind != Token::kWord) {
      flush_words();
      continue;
    }
    // A hyphenated word: "twenty-five", "two-thirds", "one-eighth".
    std::string_view w = t.text;
    std::string_view head = w, tail;
    if (const size_t dash = t.hyphenated ? w.find('-') : kNpos; dash != kNpos) {
      head = w.substr(0, dash);
      tail = w.substr(dash + 1);
    }
    const WordInfo* head_word = tail.empty() ? t.word : Lookup(head);
    const WordInfo* tail_word = tail.empty() ? nullptr : Lookup(tail);
    const int64_t hv = NumberWord(head_word);
    if (!tail.empty()) {
      const int64_t tv = NumberWord(tail_word);
      if (hv >= 0 && tv >= 0) {
        words_total = std::max<int64_t>(words_total, 0) + hv + tv;
        continue;
      }
    }
    if (const ImpliedValue* imp = Implied(tail.empty() ? head_word : tail_word)) {
      flush_words();
      found.push_back(Q{imp->n, imp->d});
      if (imp->n == 1) found.push_back(Int(imp->d));
      if (!tail.empty() && hv > 0) {
        if (auto q = MakeQ(static_cast<__int128>(hv) * imp->n, imp->d)) found.push_back(*q);
      }
      continue;
    }
    if (hv >= 0 && tail.empty()) {
      words_total = std::max<int64_t>(words_total, 0) + hv;
      continue;
    }
    if (const int64_t sc = ScaleWord(t.word); sc > 0) {
      found.push_back(Int(sc));
      if (words_total >= 0) {
        words_total *= sc;
        continue;
      }
      continue;
    }
    flush_words();
  }
  flush_words();
  for (const Q& v : found) {
    known->Add(v);
    if (v.n > 0 && v.n < v.d) {
      // a percentage or a fraction: what remains, and the increased amount
      if (auto r = Sub(Int(1), v)) known->Add(*r);
      if (auto r = Add(Int(1), v)) known->Add(*r);
    }
  }
}

// ---------------------------------------------------------------------------------
// The check

std::string Trimmed(std::string_view line) { return std::string(PyStrip(line)); }

std::string Show(Q v) {
  if (v.d == 1) return std::to_string(v.n);
  // at most four decimals, trailing zeros dropped
  const long double x = static_cast<long double>(v.n) / static_cast<long double>(v.d);
  std::string s = fmt::format("{:.4f}", static_cast<double>(x));
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string SegmentText(const std::vector<Item>& items, const Segment& s) {
  std::string out;
  for (size_t i = s.begin; i < s.end; ++i) {
    const Item& it = items[i];
    if (!out.empty()) out += ' ';
    switch (it.kind) {
      case Item::kNum:
        out += Show(it.percent ? Q{it.value.n * 100 / std::gcd<int64_t>(100, it.value.d),
                                   it.value.d / std::gcd<int64_t>(100, it.value.d)}
                               : it.value);
        if (it.percent) out += '%';
        break;
      case Item::kOp:
        out += it.op;
        break;
      case Item::kLParen:
        out += '(';
        break;
      case Item::kRParen:
        out += ')';
        break;
      default:
        break;
    }
  }
  return out;
}

struct LineState {
  std::vector<Token> tokens;
  std::vector<Item> items;
  std::vector<Segment> segments;
  std::vector<Chain> chains;
  std::vector<Item> scratch;
  std::string storage;
};

void ReadLine(std::string_view line, LineState* st) {
  size_t skip = 0;
  if (IsBulletLine(line, &skip)) line.remove_prefix(skip);
  Tokenize(Delatex(line, &st->storage), &st->tokens);
  ToItems(st->tokens, &st->items, &st->scratch);
  ToChains(st->items, &st->segments, &st->chains);
}

struct Evaluated {
  bool ok = false;
  Q value;
  std::vector<Q> operands, intermediates;
};

// Evaluates segment `s` into `e`, reusing its lists' memory.
void Evaluate(const std::vector<Item>& items, const Segment& s, Evaluated* e) {
  e->ok = false;
  e->operands.clear();
  e->intermediates.clear();
  if (!s.readable || s.end <= s.begin) return;
  Evaluator ev(items, s.begin, s.end);
  if (auto v = ev.Run(&e->operands, &e->intermediates)) {
    e->ok = true;
    e->value = *v;
  }
}

bool IsNumberSegment(const std::vector<Item>& items, const Segment& s) {
  return s.end == s.begin + 1 && items[s.begin].kind == Item::kNum;
}

// "divide 180 by 30, which gives us 6", "we subtract the crates sold (65) from his
// target of 120": operations said in words. Adds their values to `computed`: all when
// no value is stated after them, and when one is, only if it holds (prose is read too
// loosely to fail anything on).
void VerbalOps(const std::vector<Token>& toks, std::vector<Q>* computed) {
  const auto ends_clause = [](const Token& t) {
    return t.kind == Token::kEq || t.kind == Token::kOp ||
           (t.kind == Token::kOther && (t.text == "." || t.text == ";" || t.text == ":" ||
                                        t.text == "!" || t.text == "?"));
  };
  // The next number at or after j within kMaxVerbalGap tokens of the clause.
  const auto next_number = [&](size_t j, Q* v, size_t* at) {
    for (size_t n = 0; j < toks.size() && n <= kMaxVerbalGap; ++j, ++n) {
      if (ends_clause(toks[j])) return false;
      if (toks[j].kind == Token::kNum) {
        int decimals;
        if (!ParseNumber(toks[j].text, v, &decimals)) return false;
        if (j + 1 < toks.size() && toks[j + 1].kind == Token::kPct) {
          auto p = Div(*v, Int(100));
          if (!p) return false;
          *v = *p;
        } else if (j + 2 < toks.size() && toks[j + 1].kind == Token::kOp &&
                   toks[j + 1].op == '/' && toks[j + 2].kind == Token::kNum) {
          Q d;  // "by 3/4"
          if (!ParseNumber(toks[j + 2].text, &d, &decimals)) return false;
          auto f = Div(*v, d);
          if (!f) return false;
          *v = *f;
          j += 2;
        }
        *at = j;
        return true;
      }
    }
    return false;
  };
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i].kind != Token::kWord) continue;
    const WordInfo* w = toks[i].word;
    char op = 0;
    if (Is(w, Lex::kDivide) || Is(w, Lex::kDividing)) op = '/';
    if (Is(w, Lex::kMultiply) || Is(w, Lex::kMultiplying)) op = '*';
    if (Is(w, Lex::kSubtract) || Is(w, Lex::kSubtracting)) op = '-';
    if (Is(w, Lex::kAdd) || Is(w, Lex::kAdding)) op = '+';
    if (op == 0) continue;
    Q a, b;
    size_t at_a, at_b;
    if (!next_number(i + 1, &a, &at_a)) continue;
    // the preposition joining the operands, then the second
    size_t j = at_a + 1;
    bool joined = false;
    for (size_t n = 0; j < toks.size() && n <= kMaxVerbalGap && !ends_clause(toks[j]); ++j, ++n) {
      if (toks[j].kind == Token::kNum) break;
      if (toks[j].kind != Token::kWord) continue;
      const WordInfo* p = toks[j].word;
      if ((op == '/' || op == '*') ? Is(p, Lex::kBy)
          : op == '-'              ? Is(p, Lex::kFrom)
                                   : (Is(p, Lex::kAnd) || Is(p, Lex::kTo))) {
        joined = true;
        break;
      }
    }
    if (!joined || !next_number(j + 1, &b, &at_b)) continue;
    std::optional<Q> v = op == '/' ? Div(a, b)
                       : op == '*' ? Mul(a, b)
                       : op == '-' ? Sub(b, a)
                                   : work_reader::Add(a, b);
    if (!v) continue;
    // A value stated after it: "..., which gives us 6", "... to get 55", "... = 6".
    size_t k = at_b + 1;
    bool result_word = false;
    for (size_t n = 0; k < toks.size() && n <= kMaxDescriptionWords + 3; ++k, ++n) {
      const Token& t = toks[k];
      if (t.kind == Token::kEq ||
          (t.kind == Token::kWord && (IsResultWord(t.word) || Is(t.word, Lex::kGet) ||
                                      Is(t.word, Lex::kGets) || Is(t.word, Lex::kObtain)))) {
        result_word = true;
        break;
      }
      if (t.kind == Token::kNum || ends_clause(t)) break;
    }
    Q c;
    size_t at_c;
    if (result_word && next_number(k + 1, &c, &at_c)) {
      int decimals = 0;
      ParseNumber(toks[at_c].text, &c, &decimals);
      if (!(Abs(*v) == Abs(c)) && !RoundsTo(*v, c, decimals)) continue;
    }
    computed->push_back(*v);
    i = at_b;
  }
}

// Units a final answer may be given in when the work ends in another, where the two
// are one number written two ways: $0.25 and 25 cents, 0.7 and 70 (percent). The
// factor and a word of each side. A conversion that is a computation (300 minutes to
// 5 hours, 18000 meters to 18 km) is work: it must be shown.
struct UnitPair {
  int64_t factor;
  std::string_view small[3], large[3];
  bool both_ways;  // else only the answer in the small unit (70 for a result of 0.7)
};
constexpr UnitPair kAnswerConversions[] = {
    {100, {"cent", "cents", ""}, {"dollar", "dollars", "$"}, true},
    {100, {"percent", "%", "percentage"}, {"rate", "fraction", "of"}, false},
};

// Does `text` (lower case) have one of `words` as a word ("%" and "$" as characters)?
bool MentionsAny(std::string_view text, const std::string_view (&words)[3]) {
  for (std::string_view w : words) {
    if (w.empty()) continue;
    if (w == "%" || w == "$") {
      if (text.find(w) != kNpos) return true;
      continue;
    }
    for (size_t at = text.find(w); at != kNpos; at = text.find(w, at + 1)) {
      const bool before = at == 0 || !IsLetter(text[at - 1]);
      const bool after = at + w.size() >= text.size() || !IsLetter(text[at + w.size()]);
      if (before && after) return true;
    }
  }
  return false;
}

WorkProblem Check(std::string_view reasoning, std::string_view question,
                  std::string_view final_answer) {
  WorkProblem problem;
  // Work too long to read is not taken on trust: padding would hide it.
  if (reasoning.size() > kMaxWorkBytes) {
    problem.rule = WorkProblem::Rule::kGrounded;
    problem.detail = fmt::format(
        "the reasoning is {} bytes, more than the {} whose work is read (the longest real "
        "answer of the dev corpus has 3,256)",
        reasoning.size(), kMaxWorkBytes);
    return problem;
  }
  // "30 + 60 = \boxed{90}", "... which equals \boxed{3}": the reasoning ends in a
  // computation whose value is the final answer; read it with the answer in place.
  std::string completed;
  if (!final_answer.empty()) {
    size_t e = reasoning.size();
    while (e > 0 && std::strchr(" \t\r\n$*([{\\:", reasoning[e - 1]) != nullptr) --e;
    size_t b = e;
    while (b > 0 && IsLetter(reasoning[b - 1])) --b;
    const std::string_view last_word = reasoning.substr(b, e - b);
    const WordInfo* last = Lookup(last_word);
    if ((e > 0 && reasoning[e - 1] == '=') || IsResultWord(last) || Is(last, Lex::kAre) ||
        Is(last, Lex::kGet) || Is(last, Lex::kBe)) {
      completed.reserve(e + final_answer.size() + 1);
      completed.append(reasoning.substr(0, e)).append(" ").append(final_answer);
      reasoning = completed;
    }
  }
  // known: what may be computed with; results: what the reasoning computed or stated
  // as a computation's value; base: the problem's numbers and the results, which
  // may also be used in other units.
  //
  // The problem's numbers are read when the first operands are checked (most answers
  // never get there). `known` and `base` begin with them: they are put in front of what
  // was added before, as if they had been there from the start.
  //
  // The lists keep their memory from one answer to the next (thread_local; emptied here).
  thread_local Known results, known, base, stated, with_problem, new_base;
  for (Known* k : {&results, &known, &base, &stated}) k->Clear();
  bool problem_read = false;
  const auto read_problem = [&]() {
    if (problem_read) return;
    problem_read = true;
    with_problem.Clear();
    ProblemNumbers(question, &with_problem);
    new_base = with_problem;
    for (const Q& c : kConstants) with_problem.Add(c);
    for (const Q& v : known.values()) with_problem.Add(v);
    for (const Q& v : base.values()) new_base.Add(v);
    std::swap(known, with_problem);
    std::swap(base, new_base);
  };
  // stated: numbers written on earlier lines
  size_t judged = 0;
  bool any_result = false;

  // "label = expression" on the previous line, waiting for "label = value" on this one
  struct Pending {
    std::string label;
    Q value;
    std::string line;
    bool set = false;
  } pending;
  bool prev_line_had_equation = false;

  // (its lists keep their memory from one answer to the next: ReadLine refills them)
  thread_local LineState st;
  thread_local std::vector<Q> verbal;  // (cleared before each use)
  // The values of a chain's segments (`vals`), or of a lone segment (`single`); their
  // lists keep their memory from one statement (and answer) to the next: Evaluate
  // empties them before it writes.
  thread_local std::vector<Evaluated> vals;
  thread_local Evaluated single;
  size_t mental_checks = 0;
  // A number stated in prose and computed with: worked out in the head from known values
  // ("Adrian will be 66" for 63 + 3), also in two steps where the step between is
  // stated too ("Adrian is 63" for 21 * 3). Tried only for such an operand, at most
  // kMaxMentalChecks times an answer.
  const auto one_op_away = [&](const Known& from, Q v) {
    return mental_checks++ < kMaxMentalChecks && from.OneOpAway(v);
  };
  const auto in_the_head = [&](Q o) {
    if (one_op_away(known, o)) return true;
    Known widened = known;
    for (const Q& v : stated.values()) {
      if (!known.Has(v, 0) && one_op_away(known, v)) widened.Add(v);
    }
    return one_op_away(widened, o);
  };
  auto fail = [&](WorkProblem::Rule rule, std::string_view line, std::string detail) {
    problem.rule = rule;
    problem.statement = Trimmed(line);
    problem.detail = std::move(detail);
  };

  size_t ls = 0;
  while (ls <= reasoning.size() && judged < kMaxStatements) {
    size_t le = reasoning.find('\n', ls);
    if (le == kNpos) le = reasoning.size();
    std::string_view line = reasoning.substr(ls, le - ls);
    // A line is read up to kMaxLineBytes, cut at a space (not inside a number).
    if (line.size() > kMaxLineBytes) {
      size_t cut = line.rfind(' ', kMaxLineBytes);
      line = line.substr(0, cut == kNpos ? 0 : cut);
    }
    ls = le + 1;
    if (PyStrip(line).empty()) {
      if (le >= reasoning.size()) break;
      continue;
    }
    // A line with no '=' and fewer than two numbers computes nothing (a statement, said
    // with symbols or words, joins two numbers): it only states its number, if any.
    if (line.find('=') == kNpos && line.find('\\') == kNpos) {
      size_t runs = 0, run_at = 0, i = 0;
      while (i < line.size() && runs < 2) {
        if (IsAsciiDigit(line[i])) {
          run_at = i;
          ++runs;
          // one number: digits with separators and a decimal part
          while (i < line.size() && (IsAsciiDigit(line[i]) ||
                                     ((line[i] == ',' || line[i] == '.') && i + 1 < line.size() &&
                                      IsAsciiDigit(line[i + 1])))) {
            ++i;
          }
        } else {
          ++i;
        }
      }
      if (runs < 2) {
        if (runs == 1) {
          size_t e = run_at;
          while (e < line.size() && (IsAsciiDigit(line[e]) || line[e] == ',' || line[e] == '.')) ++e;
          while (e > run_at && (line[e - 1] == ',' || line[e - 1] == '.')) --e;
          Q v;
          int decimals;
          const bool glued = e < line.size() && (IsLetter(line[e]) || line[e] == '%');
          if (!glued && ParseNumber(line.substr(run_at, e - run_at), &v, &decimals)) stated.Add(v);
        }
        pending = Pending();
        prev_line_had_equation = false;
        if (le >= reasoning.size()) break;
        continue;
      }
    }
    ReadLine(line, &st);
    const std::vector<Item>& items = st.items;
    const size_t eq_pos = line.find('=');
    std::string label;
    if (eq_pos != kNpos) {
      label.reserve(eq_pos);
      for (char c : PyStrip(line.substr(0, eq_pos))) {
        if (c == ' ' || c == '\t') {
          if (!label.empty() && label.back() != ' ') label.push_back(' ');
        } else {
          label.push_back(Lower(c));
        }
      }
      while (!label.empty() && label.back() == ' ') label.pop_back();
    }
    // The line that completes the previous one: "Total = $40 + $24" / "Total = $64".
    bool line_has_equation = false;
    Pending next_pending;
    const std::string_view label_view = label;
    const bool label_is_marker = label_view.find_first_not_of("-*+ ") == kNpos;
    const Chain* previous = nullptr;
    const auto segments_of = [&](const Chain& c) {
      return std::span<const Segment>(st.segments.data() + c.first, c.count);
    };
    for (const Chain& chain : st.chains) {
      // numbers written earlier on the line are stated too ("he is 18 years old. In 3
      // years, 18 + 3 = 21")
      if (previous != nullptr) {
        for (const Segment& s : segments_of(*previous)) {
          for (size_t i = s.begin; i < s.end; ++i) {
            if (items[i].kind == Item::kNum && !items[i].algebra) stated.Add(items[i].value);
          }
        }
      }
      previous = &chain;
      const std::span<const Segment> segs = segments_of(chain);
      if (segs.size() >= 2) line_has_equation = true;
      // Every segment but the last empty: "Total = $10 * 40" (an expression whose value
      // is a result), or "Total = $400" (a stated value).
      bool only_last = true;
      for (size_t k = 0; k + 1 < segs.size(); ++k) only_last = only_last && segs[k].end == segs[k].begin && !segs[k].readable;
      if (segs.size() == 1 || only_last) {
        const Segment& s = segs.back();
        Evaluated& e = single;
        Evaluate(items, s, &e);
        if (!e.ok) continue;
        if (s.HasOp(items)) {
          for (const Q& q : e.intermediates) known.Add(q);
          known.Add(e.value);
          results.Add(e.value);
          base.Add(e.value);
          any_result = true;
          if (segs.size() >= 2 && std::count(line.begin(), line.end(), '=') == 1) {
            next_pending = {label, e.value, Trimmed(line), true};
          }
        } else if (segs.size() >= 2) {
          // a stated value; the continuation of the previous line when labels agree
          if (pending.set && (label == pending.label || label_is_marker) &&
              std::count(line.begin(), line.end(), '=') == 1) {
            ++judged;
            if (!Holds(pending.value, items, s, e.value)) {
              fail(WorkProblem::Rule::kArithmetic, pending.line + " / " + Trimmed(line),
                   fmt::format("it is {}, not {}", Show(pending.value), Show(e.value)));
              return problem;
            }
          }
          if (!items[s.begin].algebra) {
            known.Add(e.value);
            // "x = 16" solves for an unknown named by a letter
            const bool unknown = label.size() == 1 && IsLetter(label[0]);
            if (prev_line_had_equation || pending.set || unknown) {
              results.Add(e.value);
              base.Add(e.value);
            }
            any_result = any_result || pending.set;
          }
        }
        // "Total = $40 + $24" after "Total = (8 x $5) + (8 x $3)": a running
        // computation across lines, checked like one on a line
        if (s.HasOp(items) && pending.set && (label == pending.label || label_is_marker) &&
            segs.size() >= 2 && items[s.begin].kind == Item::kNum) {
          ++judged;
          if (!(pending.value == e.value)) {
            Evaluated first;
            first.value = items[s.begin].value;
            if (!(Abs(first.value) == Abs(pending.value))) {
              fail(WorkProblem::Rule::kArithmetic, pending.line + " / " + Trimmed(line),
                   fmt::format("the first is {}, the second {}", Show(pending.value),
                               Show(e.value)));
              return problem;
            }
          }
        }
        continue;
      }
      if (vals.size() < segs.size()) vals.resize(segs.size());
      for (size_t k = 0; k < segs.size(); ++k) Evaluate(items, segs[k], &vals[k]);
      for (size_t a = 0; a + 1 < segs.size() && judged < kMaxStatements; ++a) {
        const size_t b = a + 1;
        if (!vals[a].ok || !vals[b].ok) continue;
        const Segment& sa = segs[a];
        const Segment& sb = segs[b];
        const bool op_a = sa.HasOp(items), op_b = sb.HasOp(items);
        if (!op_a && !op_b) continue;
        const Q va = vals[a].value, vb = vals[b].value;
        bool ok = Holds(va, items, sb, vb) || Holds(vb, items, sa, va);
        bool running = false;
        // A running computation: "16 - 3 = 13 - 4 = 9", "2 hours = 120 minutes - 10".
        if (!ok && op_b && items[sb.begin].kind == Item::kNum) {
          const Segment first{sb.begin, sb.begin + 1};
          const Q f = items[sb.begin].value;
          ok = Holds(va, items, first, f);
          for (int64_t c : kConversions) {
            if (ok) break;
            auto m = Mul(va, Int(c));
            auto d = Div(va, Int(c));
            ok = (m && Holds(*m, items, first, f)) || (d && Holds(*d, items, first, f));
          }
          running = ok;
        }
        // A unit conversion across '=': "1/2 hour = 30 minutes".
        if (!ok && !UnitsCompatible(items, sa, sb)) {
          for (int64_t c : kConversions) {
            auto m = Mul(va, Int(c));
            auto d = Div(va, Int(c));
            if ((m && Holds(*m, items, sb, vb)) || (d && Holds(*d, items, sb, vb))) ok = true;
          }
        }
        if (!ok && sb.lenient) continue;
        if (!ok && a == 0) {
          // "price of 2 x 4 boards = $10 x 1.5 = $15": a first segment the next link
          // contradicts, where that link holds, names a thing; so does a number inside
          // a name ("the first 40 hours = $10 * 40")
          if (b + 1 < segs.size() && vals[b + 1].ok &&
              (Holds(vb, items, segs[b + 1], vals[b + 1].value) ||
               Holds(vals[b + 1].value, items, sb, vb))) {
            continue;
          }
          if (!op_a && sa.after_word) continue;
        }
        ++judged;
        if (!ok) {
          const Segment& computed = op_a ? sa : sb;
          const Q cv = op_a ? va : vb;
          const Q sv = op_a ? vb : va;
          fail(WorkProblem::Rule::kArithmetic, line,
               fmt::format("{} is {}, not {}", SegmentText(items, computed), Show(cv), Show(sv)));
          return problem;
        }
        // The numbers computed with: the problem's, constants, earlier results.
        auto check_operands = [&](const Evaluated& e, const Segment& s, bool skip_first) -> bool {
          read_problem();
          size_t idx = 0;
          for (const Q& o : e.operands) {
            if (skip_first && idx++ == 0) continue;
            int decimals = 0;
            for (size_t i = s.begin; i < s.end; ++i) {
              if (items[i].kind == Item::kNum && items[i].value == o) {
                decimals = items[i].decimals;
                break;
              }
            }
            if (known.Has(o, decimals)) continue;
            if (stated.Has(o, decimals) && in_the_head(o)) continue;
            if (base.ConvertedTo(o)) continue;
            fail(WorkProblem::Rule::kGrounded, line,
                 fmt::format("it computes with {}, which is not a number of the problem, a "
                             "constant or a result of the reasoning",
                             Show(Abs(o))));
            return false;
          }
          for (const Q& q : e.intermediates) known.Add(q);
          return true;
        };
        if (op_a && !check_operands(vals[a], sa, false)) return problem;
        known.Add(va);
        // "10 * (2/3) = 20/3": the right side only writes the result another way
        if (op_b && (running || !op_a) && !check_operands(vals[b], sb, running)) return problem;
        known.Add(vb);
        results.Add(va);
        results.Add(vb);
        base.Add(va);
        base.Add(vb);
        any_result = true;
      }
      // "$99 + $5 = Cost of the boots": an expression with no value beside it; its value
      // is a result all the same (a later line or the answer may state it).
      for (size_t k = 0; k < segs.size(); ++k) {
        if (!vals[k].ok || !segs[k].HasOp(items)) continue;
        if ((k > 0 && vals[k - 1].ok) || (k + 1 < segs.size() && vals[k + 1].ok)) continue;
        for (const Q& q : vals[k].intermediates) known.Add(q);
        known.Add(vals[k].value);
        results.Add(vals[k].value);
        base.Add(vals[k].value);
        any_result = true;
      }
      // "2x = 64", "x = 32": a value stated after '=' where the other side is algebra
      bool algebra = false;
      for (const Segment& s : segs) algebra = algebra || (!s.readable && s.end > s.begin);
      for (size_t k = 1; k < segs.size(); ++k) {
        if (!vals[k].ok || !IsNumberSegment(items, segs[k]) || vals[k - 1].ok) continue;
        known.Add(vals[k].value);
        if (algebra || prev_line_had_equation) {
          results.Add(vals[k].value);
          base.Add(vals[k].value);
        }
      }
    }
    // "12 = x": the value of an unknown named by a letter
    if (eq_pos != kNpos) {
      std::string_view right = PyStrip(line.substr(eq_pos + 1));
      while (!right.empty() && (right.back() == '.' || right.back() == '"' || right.back() == ',')) {
        right.remove_suffix(1);
      }
      if (right.size() == 1 && IsLetter(right[0])) {
        // the number right before the '=' ("we get 104 = B")
        std::string_view left = PyStrip(line.substr(0, eq_pos));
        size_t b = left.size();
        while (b > 0 && (IsAsciiDigit(left[b - 1]) || left[b - 1] == '.' || left[b - 1] == ',')) --b;
        Q v;
        int decimals;
        if (b < left.size() && ParseNumber(left.substr(b), &v, &decimals)) {
          known.Add(v);
          results.Add(v);
          base.Add(v);
        }
      }
    }
    verbal.clear();
    VerbalOps(st.tokens, &verbal);
    for (const Q& v : verbal) {
      known.Add(v);
      results.Add(v);
      base.Add(v);
    }
    // "x = 40", "Total = $400": values the line states become known from the next line on;
    // so does an algebra coefficient ("19c - 10").
    for (const Item& it : items) {
      if (it.kind != Item::kNum) continue;
      if (it.coefficient) known.Add(it.value);
      if (!it.algebra) stated.Add(it.value);
    }
    pending = next_pending;
    prev_line_had_equation = line_has_equation || eq_pos != kNpos;
    if (le >= reasoning.size()) break;
  }

  if (!any_result || final_answer.empty()) return problem;
  Q f;
  int decimals;
  std::string_view digits = final_answer;
  const bool negative = digits.starts_with('-');
  if (negative) digits.remove_prefix(1);
  if (!ParseNumber(digits, &f, &decimals)) return problem;
  // A result of the work. Not a number the problem gives merely because it is one: in a
  // generated suite the answer is one of the problem's numbers by coincidence about
  // once in twenty (4 friends, 4 cupcakes each), and work that stops short would pass.
  if (results.Has(f, decimals)) return problem;
  // The work may end in the answer written another way: $0.25 for 25 cents, 0.7 for a
  // rate of 70 (percent). Only where the question or the reasoning names both: elsewhere
  // 600 is not the result 6.
  std::string text;
  text.reserve(question.size() + reasoning.size() + 1);
  for (char c : question) text.push_back(Lower(c));
  text.push_back('\n');
  for (char c : reasoning) text.push_back(Lower(c));
  for (const UnitPair& u : kAnswerConversions) {
    if (!MentionsAny(text, u.small) || !MentionsAny(text, u.large)) continue;
    auto smaller = Div(f, Int(u.factor));
    auto larger = Mul(f, Int(u.factor));
    if ((smaller && results.Has(*smaller, decimals + 2)) ||
        (u.both_ways && larger && results.Has(*larger, 0))) {
      return problem;
    }
  }
  problem.rule = WorkProblem::Rule::kGrounded;
  problem.statement.clear();
  problem.detail = fmt::format("the final answer {} is not a result of the reasoning's arithmetic",
                               final_answer);
  return problem;
}

}  // namespace work_reader

int64_t NumberWordValue(std::string_view word) {
  const work_reader::WordInfo* info = work_reader::Lookup(word);
  const int64_t number = work_reader::NumberWord(info);
  return number >= 0 ? number : work_reader::ScaleWord(info);
}

WorkProblem CheckWork(std::string_view reasoning, std::string_view question,
                      std::string_view final_answer) {
  return work_reader::Check(reasoning, question, final_answer);
}

}  // namespace structtest::math_internal
