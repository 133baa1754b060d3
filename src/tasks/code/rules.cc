#include "tasks/code/rules.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "core/pytext.h"

namespace structtest {

namespace {

inline bool IsAsciiPySpace(unsigned char b) {
  return (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x20);
}

bool IsWordCodePoint(char32_t c) {
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
  }
  return IsPyAlnum(c);
}

// Length of the maximal \w run starting at s[pos] (0 when s[pos] is not \w).
size_t WordRunLength(std::string_view s, size_t pos) {
  size_t i = pos;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (!IsWordCodePoint(b)) break;
      ++i;
      continue;
    }
    size_t len;
    if (!IsWordCodePoint(DecodeUtf8(s, i, &len))) break;
    i += len;
  }
  return i - pos;
}

// string_view::rfind compares at every position from the end; responses often carry
// a long explanation after the answer, so look for the first byte with memrchr.
size_t LastOccurrence(std::string_view hay, std::string_view needle) {
  if (needle.empty() || needle.size() > hay.size()) return hay.rfind(needle);
  size_t limit = hay.size() - needle.size() + 1;  // candidate starts are [0, limit)
  while (limit > 0) {
    const void* p = memrchr(hay.data(), needle[0], limit);
    if (p == nullptr) return std::string_view::npos;
    const size_t at = static_cast<const char*>(p) - hay.data();
    if (hay.compare(at, needle.size(), needle) == 0) return at;
    limit = at;
  }
  return std::string_view::npos;
}

}  // namespace

std::string_view ExtractCodeSpan(std::string_view response, std::string_view start_tag,
                                 std::string_view end_tag, std::string* storage) {
  std::string_view span = response;
  const size_t s = response.find(start_tag);
  const size_t e = LastOccurrence(response, end_tag);
  if (s != std::string_view::npos && e != std::string_view::npos && e > s) {
    const size_t from = s + start_tag.size();
    span = from <= e ? response.substr(from, e - from) : std::string_view();
  }
  bool leftover;
  if (start_tag[0] == end_tag[0]) {  // "<ans>", "</ans>": one pass over the span
    leftover = false;
    for (const char* p = span.data(); !leftover;) {
      const size_t rest = span.size() - (p - span.data());
      p = static_cast<const char*>(std::memchr(p, start_tag[0], rest));
      if (p == nullptr) break;
      const std::string_view at(p, span.size() - (p - span.data()));
      leftover = at.starts_with(start_tag) || at.starts_with(end_tag);
      ++p;
    }
  } else {
    leftover = span.find(start_tag) != std::string_view::npos ||
               span.find(end_tag) != std::string_view::npos;
  }
  if (!leftover) return PyStrip(span);
  *storage = ReplaceAll(ReplaceAll(span, start_tag, " "), end_tag, " ");
  return PyStrip(*storage);
}

std::string_view FirstFencedBlockOrText(std::string_view text) {
  // re.search tries every start position; a match needs ``` then \w* then a newline,
  // and ends at the next ``` after that newline (lazy, DOTALL).
  for (size_t at = text.find("```"); at != std::string_view::npos;
       at = text.find("```", at + 1)) {
    size_t i = at + 3;
    i += WordRunLength(text, i);
    if (i >= text.size() || text[i] != '\n') continue;
    const size_t body = i + 1;
    const size_t close = text.find("```", body);
    if (close == std::string_view::npos) return PyStrip(text);  // no later start can close either
    return PyStrip(text.substr(body, close - body));
  }
  return PyStrip(text);
}

bool IsPyWord(std::string_view s) { return !s.empty() && WordRunLength(s, 0) == s.size(); }

std::string RenameWholeWords(std::string_view source, const std::vector<Renaming>& renamings) {
  std::string out;
  out.reserve(source.size() + source.size() / 4);
  size_t i = 0;
  while (i < source.size()) {
    const size_t run = WordRunLength(source, i);
    if (run == 0) {
      // Copy one code point (or byte) that is not \w.
      size_t len = 1;
      if (static_cast<unsigned char>(source[i]) >= 0x80) DecodeUtf8(source, i, &len);
      out.append(source.substr(i, len));
      i += len;
      continue;
    }
    std::string_view word = source.substr(i, run);
    if (i == 0 || source[i - 1] != '.') {
      for (const auto& [old_name, new_name] : renamings) {
        if (word == old_name) word = new_name;
      }
    }
    out.append(word);
    i += run;
  }
  return out;
}

std::string RemovePyWhitespace(std::string_view s, size_t max_out) {
  // Room for max_out bytes and the rest of the last code point.
  std::string out(max_out < s.size() ? std::min(s.size(), max_out + 4) : s.size(), '\0');
  size_t o = 0;
  size_t i = 0;
  // Safe: o never passes i, and while o < max_out a code point (at most 4 bytes) fits.
  while (i < s.size() && o < max_out) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out[o] = static_cast<char>(b);
      o += !IsAsciiPySpace(b);
      ++i;
      continue;
    }
    size_t len;
    if (!IsPySpace(DecodeUtf8(s, i, &len))) {
      s.copy(&out[o], len, i);
      o += len;
    }
    i += len;
  }
  out.resize(o);
  return out;
}

size_t MismatchIgnoringPyWhitespace(std::string_view s, std::string_view without_space,
                                    size_t* s_offset) {
  size_t j = 0;
  size_t i = 0;
  const size_t n = s.size();
  const size_t m = without_space.size();
  while (i < n) {
    // Eight bytes at a time while they hold no space and no non-ASCII byte (the lowest
    // such byte is found exactly; bytes above it may be flagged wrongly, and are not
    // used).
    if (i + 8 <= n && j + 8 <= m) {
      uint64_t a, b;
      std::memcpy(&a, s.data() + i, 8);
      std::memcpy(&b, without_space.data() + j, 8);
      const uint64_t special = ((a - 0x2121212121212121ULL) | a) & 0x8080808080808080ULL;
      const int plain = special == 0 ? 8 : __builtin_ctzll(special) / 8;
      if (plain > 0) {
        const uint64_t keep = plain == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * plain)) - 1;
        const uint64_t diff = (a ^ b) & keep;
        if (diff != 0) {
          const int k = __builtin_ctzll(diff) / 8;
          i += k;
          j += k;
          break;
        }
        i += plain;
        j += plain;
        continue;
      }
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (IsAsciiPySpace(c)) {
        ++i;
        continue;
      }
      if (j == m || without_space[j] != static_cast<char>(c)) break;
      ++i;
      ++j;
      continue;
    }
    size_t len;
    if (IsPySpace(DecodeUtf8(s, i, &len))) {
      i += len;
      continue;
    }
    if (j + len > m || s.compare(i, len, without_space, j, len) != 0) break;
    i += len;
    j += len;
  }
  *s_offset = i;
  if (i == n && j == m) return std::string_view::npos;
  return j;
}

size_t FirstDifference(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return i;
  }
  return a.size() == b.size() ? std::string_view::npos : n;
}

std::string Excerpt(std::string_view s, size_t max) {
  size_t i = 0;
  while (i < s.size() && i < max && s[i] >= 0x20 && s[i] < 0x7F) ++i;
  std::string out(s.substr(0, i));
  while (i < s.size() && out.size() < max) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x7F) {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    size_t len;
    const char32_t c = DecodeUtf8(s, i, &len);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
    } else if (c == kInvalidCodePoint && len == 1) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  if (i < s.size()) out += "...";
  return out;
}

}  // namespace structtest
