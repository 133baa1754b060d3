#include "core/pytext.h"

#include "core/ascii.h"
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/ustring.h>

namespace structtest {

char32_t DecodeUtf8(std::string_view s, size_t pos, size_t* len) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + pos;
  const size_t avail = s.size() - pos;
  const unsigned char b0 = p[0];
  *len = 1;
  if (b0 < 0x80) return b0;
  int need;
  char32_t c;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1, c = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2, c = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3, c = b0 & 0x07, min = 0x10000;
  } else {
    return kInvalidCodePoint;
  }
  if (avail < static_cast<size_t>(need) + 1) return kInvalidCodePoint;
  for (int i = 1; i <= need; ++i) {
    if ((p[i] & 0xC0) != 0x80) return kInvalidCodePoint;
    c = (c << 6) | (p[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
    return kInvalidCodePoint;
  }
  *len = need + 1;
  return c;
}

size_t PrevCodePointStart(std::string_view s, size_t end) {
  // Walk back over at most three continuation bytes, then check that the sequence
  // found really spans up to `end`; otherwise the last byte stands alone.
  size_t start = end - 1;
  int steps = 0;
  while (start > 0 && steps < 3 &&
         (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) {
    --start;
    ++steps;
  }
  size_t len;
  DecodeUtf8(s, start, &len);
  if (start + len == end) return start;
  return end - 1;
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool IsPySpace(char32_t c) {
  // CPython's _PyUnicode_IsWhitespace table (bidi class WS, B or S, or category Zs).
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  switch (c) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool IsPyNumeric(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_NUMERIC_TYPE) !=
         U_NT_NONE;
}

bool IsPyDecimal(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_NUMERIC_TYPE) ==
         U_NT_DECIMAL;
}

bool IsPyAlpha(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  const int8_t t = u_charType(static_cast<UChar32>(c));
  return t == U_UPPERCASE_LETTER || t == U_LOWERCASE_LETTER ||
         t == U_TITLECASE_LETTER || t == U_MODIFIER_LETTER || t == U_OTHER_LETTER;
}

bool IsPyAlnum(char32_t c) { return IsPyAlpha(c) || IsPyNumeric(c); }

bool IsPyLower(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z';
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_LOWERCASE);
}

bool IsPyUpper(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_UPPERCASE);
}

namespace {

// ASCII whitespace per str.isspace(): \t-\r and \x1c-\x20.
inline bool IsAsciiPySpace(unsigned char c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
}

}  // namespace

std::string_view PyLStrip(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (!IsAsciiPySpace(c)) break;
      ++i;
      continue;
    }
    size_t len;
    if (!IsPySpace(DecodeUtf8(s, i, &len))) break;
    i += len;
  }
  return s.substr(i);
}

std::string_view PyRStrip(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    const unsigned char c = static_cast<unsigned char>(s[end - 1]);
    if (c < 0x80) {
      if (!IsAsciiPySpace(c)) break;
      --end;
      continue;
    }
    const size_t start = PrevCodePointStart(s, end);
    size_t len;
    if (!IsPySpace(DecodeUtf8(s, start, &len))) break;
    end = start;
  }
  return s.substr(0, end);
}

std::string_view PyStrip(std::string_view s) { return PyRStrip(PyLStrip(s)); }

std::vector<std::string_view> SplitChar(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

std::string PyLower(std::string_view s) {
  bool ascii = true;
  for (char ch : s) {
    if (static_cast<unsigned char>(ch) >= 0x80) {
      ascii = false;
      break;
    }
  }
  std::string out;
  out.reserve(s.size());
  if (ascii) {
    for (char ch : s) out.push_back(AsciiLower(ch));
    return out;
  }
  // Per code point full lower-casing; invalid bytes are kept as they are.
  for (size_t i = 0; i < s.size();) {
    size_t len;
    const char32_t c = DecodeUtf8(s, i, &len);
    if (c == kInvalidCodePoint && len == 1) {
      out.push_back(s[i]);
    } else if (c < 0x80) {
      out.push_back(AsciiLower(static_cast<char>(c)));
    } else {
      UChar src[2];
      int32_t src_len = 0;
      U16_APPEND_UNSAFE(src, src_len, static_cast<UChar32>(c));
      UChar dst[8];
      UErrorCode err = U_ZERO_ERROR;
      const int32_t n = u_strToLower(dst, 8, src, src_len, "", &err);
      if (U_FAILURE(err)) {
        AppendUtf8(c, &out);
      } else {
        for (int32_t k = 0; k < n;) {
          UChar32 d;
          U16_NEXT(dst, k, n, d);
          AppendUtf8(static_cast<char32_t>(d), &out);
        }
      }
    }
    i += len;
  }
  return out;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) {
    size_t len;
    DecodeUtf8(s, i, &len);
    i += len;
  }
  return n;
}

size_t RFind(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return haystack.size();
  if (needle.size() > haystack.size()) return std::string_view::npos;
  // Candidates start at or before the last position where the needle still fits.
  size_t limit = haystack.size() - needle.size() + 1;
  while (limit > 0) {
    const void* hit = memrchr(haystack.data(), needle[0], limit);
    if (hit == nullptr) return std::string_view::npos;
    const size_t pos = static_cast<const char*>(hit) - haystack.data();
    if (haystack.compare(pos, needle.size(), needle) == 0) return pos;
    limit = pos;
  }
  return std::string_view::npos;
}

std::string ReplaceAll(std::string_view s, std::string_view from,
                       std::string_view to) {
  std::string out;
  if (from.empty()) return std::string(s);
  out.reserve(s.size());
  size_t start = 0;
  while (true) {
    const size_t p = s.find(from, start);
    if (p == std::string_view::npos) break;
    out.append(s.substr(start, p - start));
    out.append(to);
    start = p + from.size();
  }
  out.append(s.substr(start));
  return out;
}

}  // namespace structtest
