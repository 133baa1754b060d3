#include "tasks/math/py_json.h"

#include <fmt/format.h>
#include <unicode/uchar.h>

#include <unordered_map>
#include <vector>

#include "core/pytext.h"
#include "tasks/math/fast_scan.h"

namespace structtest::math_internal {

namespace {

constexpr size_t kMaxIntDigits = 4300;  // sys.get_int_max_str_digits() default

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

enum class Kind { kString, kOther, kArray, kObject };

struct Entry {
  std::string key;  // decoded (lone surrogates as 3-byte sequences)
  bool value_is_string;
  std::string value;  // decoded, when collecting and value_is_string
};

// What the top-level value was, with the details the step styles look at.
struct TopLevel {
  Kind kind = Kind::kOther;
  size_t elements = 0;              // array
  size_t first_non_string = std::string_view::npos;  // array: index of the first non-string
  std::vector<Entry> entries;       // object, in dict order
  // Set by the caller: decode the top-level strings (array elements into `strings`,
  // object values into Entry::value). The paper checkers only need the shape.
  bool collect = false;
  std::vector<std::string> strings;  // array, when collecting
  // Lookup only (never iterated), once entries is large.
  std::unordered_map<std::string, size_t> index;
};

// A recursive-descent copy of CPython's Modules/_json.c scanner.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s), n_(s.size()) {}

  // json.loads(s). False (with error()) when Python would raise.
  bool Parse(TopLevel* top) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") return Fail("Unexpected UTF-8 BOM", 0);
    SkipSpaces();
    if (!Value(0, top)) return false;
    SkipSpaces();
    if (p_ != n_) return Fail("Extra data", p_);
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string_view what, size_t at) {
    if (error_.empty()) {
      error_.append(what);
      error_.append(" at byte ");
      error_.append(std::to_string(at));
    }
    return false;
  }
  void SkipSpaces() {
    while (p_ < n_ && IsJsonSpace(s_[p_])) ++p_;
  }
  bool Literal(std::string_view word) {
    if (s_.compare(p_, word.size(), word) != 0) return Fail("Expecting value", p_);
    p_ += word.size();
    return true;
  }

  // The value at p_. `top` is non-null for the document's top-level value only.
  // `str`: where a string value is decoded to, or null.
  bool Value(int depth, TopLevel* top, Kind* kind = nullptr, std::string* str = nullptr) {
    Kind k = Kind::kOther;
    if (p_ >= n_) return Fail("Expecting value", p_);
    bool ok;
    switch (s_[p_]) {
      case '"':
        ++p_;
        ok = String(str);
        k = Kind::kString;
        break;
      case '{':
      case '[':
        if (depth >= kMaxJsonDepth) {
          return Fail("RecursionError: maximum recursion depth exceeded", p_);
        }
        k = s_[p_] == '{' ? Kind::kObject : Kind::kArray;
        ok = k == Kind::kObject ? Object(depth + 1, top) : Array(depth + 1, top);
        break;
      case 'n':
        ok = Literal("null");
        break;
      case 't':
        ok = Literal("true");
        break;
      case 'f':
        ok = Literal("false");
        break;
      case 'N':
        ok = Literal("NaN");
        break;
      case 'I':
        ok = Literal("Infinity");
        break;
      case '-':
        if (s_.compare(p_, 9, "-Infinity") == 0) {
          p_ += 9;
          ok = true;
          break;
        }
        [[fallthrough]];
      default:
        ok = Number();
    }
    if (top != nullptr) top->kind = k;
    if (kind != nullptr) *kind = k;
    return ok;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? ; anything after it is the
  // caller's problem, as in Python.
  bool Number() {
    const size_t start = p_;
    if (p_ < n_ && s_[p_] == '-') ++p_;
    if (p_ < n_ && s_[p_] >= '1' && s_[p_] <= '9') {
      while (p_ < n_ && IsAsciiDigit(s_[p_])) ++p_;
    } else if (p_ < n_ && s_[p_] == '0') {
      ++p_;
    } else {
      return Fail("Expecting value", start);
    }
    bool is_float = false;
    const size_t int_digits = p_ - start - (s_[start] == '-' ? 1 : 0);
    if (p_ + 1 < n_ && s_[p_] == '.' && IsAsciiDigit(s_[p_ + 1])) {
      is_float = true;
      p_ += 2;
      while (p_ < n_ && IsAsciiDigit(s_[p_])) ++p_;
    }
    if (p_ + 1 < n_ && (s_[p_] == 'e' || s_[p_] == 'E')) {
      size_t q = p_ + 1;
      if (q < n_ && (s_[q] == '-' || s_[q] == '+')) ++q;
      const size_t digits = q;
      while (q < n_ && IsAsciiDigit(s_[q])) ++q;
      if (q > digits) {
        is_float = true;
        p_ = q;
      }
    }
    if (!is_float && int_digits > kMaxIntDigits) {
      return Fail("ValueError: integer of more than 4300 digits", start);
    }
    return true;
  }

  // A string body after its opening quote. Decodes into *out when non-null.
  bool String(std::string* out) {
    const size_t start = p_ - 1;
    for (;;) {
      const size_t q = FindJsonStringSpecial(s_, p_);
      if (out != nullptr) out->append(s_.substr(p_, q - p_));
      p_ = q;
      if (p_ >= n_) return Fail("Unterminated string starting", start);
      const char c = s_[p_];
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c != '\\') return Fail("Invalid control character", p_);
      if (p_ + 1 >= n_) return Fail("Unterminated string starting", start);
      const char e = s_[p_ + 1];
      if (e != 'u') {
        char decoded;
        switch (e) {
          case '"':
            decoded = '"';
            break;
          case '\\':
            decoded = '\\';
            break;
          case '/':
            decoded = '/';
            break;
          case 'b':
            decoded = '\b';
            break;
          case 'f':
            decoded = '\f';
            break;
          case 'n':
            decoded = '\n';
            break;
          case 'r':
            decoded = '\r';
            break;
          case 't':
            decoded = '\t';
            break;
          default:
            return Fail("Invalid \\escape", p_);
        }
        if (out != nullptr) out->push_back(decoded);
        p_ += 2;
        continue;
      }
      char32_t u;
      if (!Hex4(p_ + 2, &u)) return Fail("Invalid \\uXXXX escape", p_);
      p_ += 6;
      if (u >= 0xD800 && u <= 0xDBFF && s_.compare(p_, 2, "\\u") == 0) {
        char32_t low;
        if (!Hex4(p_ + 2, &low)) return Fail("Invalid \\uXXXX escape", p_);
        if (low >= 0xDC00 && low <= 0xDFFF) {
          u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
          p_ += 6;
        }
      }
      if (out != nullptr) AppendUtf8(u, out);
    }
  }

  bool Hex4(size_t at, char32_t* u) const {
    if (at + 4 > n_) return false;
    char32_t v = 0;
    for (size_t i = at; i < at + 4; ++i) {
      const int h = HexValue(s_[i]);
      if (h < 0) return false;
      v = v * 16 + static_cast<char32_t>(h);
    }
    *u = v;
    return true;
  }

  bool Array(int depth, TopLevel* top) {
    ++p_;  // '['
    SkipSpaces();
    if (p_ < n_ && s_[p_] == ']') {
      ++p_;
      return true;
    }
    std::string element;
    const bool collect = top != nullptr && top->collect;
    for (size_t i = 0;; ++i) {
      Kind k;
      element.clear();
      if (!Value(depth, nullptr, &k, collect ? &element : nullptr)) return false;
      if (top != nullptr) {
        ++top->elements;
        if (k != Kind::kString && top->first_non_string == std::string_view::npos)
          top->first_non_string = i;
        if (collect) top->strings.push_back(k == Kind::kString ? element : std::string());
      }
      SkipSpaces();
      if (p_ < n_ && s_[p_] == ']') {
        ++p_;
        return true;
      }
      if (p_ >= n_ || s_[p_] != ',') return Fail("Expecting ',' delimiter", p_);
      ++p_;
      SkipSpaces();
    }
  }

  bool Object(int depth, TopLevel* top) {
    ++p_;  // '{'
    SkipSpaces();
    if (p_ < n_ && s_[p_] == '}') {
      ++p_;
      return true;
    }
    std::string key, value;
    const bool collect = top != nullptr && top->collect;
    if (top != nullptr) top->entries.reserve(16);
    for (;;) {
      if (p_ >= n_ || s_[p_] != '"') {
        return Fail("Expecting property name enclosed in double quotes", p_);
      }
      ++p_;
      key.clear();
      if (!String(top != nullptr ? &key : nullptr)) return false;
      SkipSpaces();
      if (p_ >= n_ || s_[p_] != ':') return Fail("Expecting ':' delimiter", p_);
      ++p_;
      SkipSpaces();
      Kind k;
      value.clear();
      if (!Value(depth, nullptr, &k, collect ? &value : nullptr)) return false;
      if (top != nullptr) Store(top, key, k == Kind::kString, std::move(value));
      SkipSpaces();
      if (p_ < n_ && s_[p_] == '}') {
        ++p_;
        return true;
      }
      if (p_ >= n_ || s_[p_] != ',') return Fail("Expecting ',' delimiter", p_);
      ++p_;
      SkipSpaces();
    }
  }

  // dict[key] = value: a repeated key keeps its place and takes the new value.
  static void Store(TopLevel* top, const std::string& key, bool is_string,
                    std::string value) {
    constexpr size_t kLinearLimit = 16;
    auto& entries = top->entries;
    if (entries.size() <= kLinearLimit) {
      for (Entry& e : entries) {
        if (e.key == key) {
          e.value_is_string = is_string;
          e.value = std::move(value);
          return;
        }
      }
    } else if (const auto it = top->index.find(key); it != top->index.end()) {
      entries[it->second].value_is_string = is_string;
      entries[it->second].value = std::move(value);
      return;
    }
    entries.push_back(Entry{key, is_string, std::move(value)});
    if (entries.size() > kLinearLimit) {
      if (top->index.empty()) {
        for (size_t i = 0; i < entries.size(); ++i) top->index.emplace(entries[i].key, i);
      } else {
        top->index.emplace(key, entries.size() - 1);
      }
    }
  }

  const std::string_view s_;
  const size_t n_;
  size_t p_ = 0;
  std::string error_;
};

// A key for a reason: quoted, at most 20 code points, valid UTF-8.
std::string QuoteKey(std::string_view key) {
  std::string out = "'";
  size_t shown = 0;
  for (size_t i = 0; i < key.size();) {
    if (shown == 20) {
      out += "...";
      break;
    }
    size_t len;
    const char32_t c = DecodeUtf8(key, i, &len);
    if (c == '\n') {
      out += "\\n";
    } else {
      AppendUtf8(c, &out);
    }
    i += len;
    ++shown;
  }
  out += "'";
  return out;
}

}  // namespace

JsonSteps ParseJsonStepList(std::string_view text, std::vector<std::string>* texts) {
  JsonSteps r;
  TopLevel top;
  top.collect = texts != nullptr;
  Parser parser(text);
  if (!parser.Parse(&top)) {
    r.problem = "not valid JSON to Python's json.loads (" + parser.error() + ")";
    return r;
  }
  if (top.kind != Kind::kArray) {
    r.problem = top.kind == Kind::kObject ? "the JSON is an object, not a list"
                                          : "the JSON is not a list";
    return r;
  }
  if (top.first_non_string != std::string_view::npos) {
    r.problem = fmt::format("list element {} is not a string", top.first_non_string + 1);
    return r;
  }
  r.ok = true;
  r.steps = top.elements;
  if (texts != nullptr) *texts = std::move(top.strings);
  return r;
}

JsonSteps ParseJsonStepObject(std::string_view text, std::vector<std::string>* texts) {
  JsonSteps r;
  TopLevel top;
  top.collect = texts != nullptr;
  Parser parser(text);
  if (!parser.Parse(&top)) {
    r.problem = "not valid JSON to Python's json.loads (" + parser.error() + ")";
    return r;
  }
  if (top.kind != Kind::kObject) {
    r.problem = top.kind == Kind::kArray ? "the JSON is a list, not an object"
                                         : "the JSON is not an object";
    return r;
  }
  for (size_t i = 0; i < top.entries.size(); ++i) {
    int64_t v;
    if (!PyIntFromString(top.entries[i].key, &v)) {
      r.problem = fmt::format("key {} is not an integer", QuoteKey(top.entries[i].key));
      return r;
    }
    if (v != static_cast<int64_t>(i) + 1) {
      r.problem = fmt::format("key {} is number {}: keys must be 1..{} in order",
                              QuoteKey(top.entries[i].key), i + 1, top.entries.size());
      return r;
    }
  }
  for (const Entry& e : top.entries) {
    if (!e.value_is_string) {
      r.problem = fmt::format("the value of key {} is not a string", QuoteKey(e.key));
      return r;
    }
  }
  r.ok = true;
  r.steps = top.entries.size();
  if (texts != nullptr) {
    texts->clear();
    for (Entry& e : top.entries) texts->push_back(std::move(e.value));
  }
  return r;
}

bool PyIntFromString(std::string_view s, int64_t* value) {
  // _PyUnicode_TransformDecimalAndSpaceToASCII, then PyLong_FromString(base 10).
  // ASCII stays as it is (so \x1c-\x1f are not spaces here); other whitespace
  // becomes ' ', other decimal digits their ASCII digit, anything else is invalid.
  size_t i = 0;
  auto next = [&](char* out) {
    const unsigned char b = s[i];
    if (b < 0x80) {
      *out = static_cast<char>(b);
      ++i;
      return;
    }
    size_t len;
    const char32_t c = DecodeUtf8(s, i, &len);
    i += len;
    if (c != kInvalidCodePoint && IsPySpace(c)) {
      *out = ' ';
    } else if (c != kInvalidCodePoint && IsPyDecimal(c)) {
      *out = static_cast<char>('0' + u_charDigitValue(static_cast<UChar32>(c)));
    } else {
      *out = '?';
    }
  };
  auto is_space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  char c = 0;
  bool have = false;
  auto peek = [&]() {
    if (!have && i < s.size()) {
      next(&c);
      have = true;
    }
    return have;
  };
  auto take = [&]() { have = false; };
  while (peek() && is_space(c)) take();
  bool negative = false;
  if (peek() && (c == '+' || c == '-')) {
    negative = c == '-';
    take();
  }
  int64_t v = 0;
  size_t digits = 0;
  bool after_underscore = false;
  while (peek()) {
    if (IsAsciiDigit(c)) {
      v = v >= kIntSaturation ? kIntSaturation : v * 10 + (c - '0');
      if (v > kIntSaturation) v = kIntSaturation;
      ++digits;
      after_underscore = false;
    } else if (c == '_' && digits > 0 && !after_underscore) {
      after_underscore = true;
    } else {
      break;
    }
    take();
  }
  if (digits == 0 || after_underscore || digits > kMaxIntDigits) return false;
  while (peek() && is_space(c)) take();
  if (peek()) return false;  // trailing garbage
  *value = negative ? -v : v;
  return true;
}

}  // namespace structtest::math_internal
