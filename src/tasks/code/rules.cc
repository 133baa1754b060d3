#include "tasks/code/rules.h"

#include <fmt/format.h>

#include "core/pytext.h"

namespace structtest {

namespace {

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

}  // namespace

std::string ExtractCodeSpan(std::string_view response, std::string_view start_tag,
                            std::string_view end_tag) {
  std::string_view span = response;
  const size_t s = response.find(start_tag);
  const size_t e = response.rfind(end_tag);
  if (s != std::string_view::npos && e != std::string_view::npos && e > s) {
    const size_t from = s + start_tag.size();
    span = from <= e ? response.substr(from, e - from) : std::string_view();
  }
  if (span.find(start_tag) == std::string_view::npos &&
      span.find(end_tag) == std::string_view::npos) {
    return std::string(PyStrip(span));
  }
  const std::string replaced = ReplaceAll(ReplaceAll(span, start_tag, " "), end_tag, " ");
  return std::string(PyStrip(replaced));
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

std::string RemovePyWhitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (!IsPySpace(b)) out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    size_t len;
    if (!IsPySpace(DecodeUtf8(s, i, &len))) out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

bool EqualsIgnoringPyWhitespace(std::string_view s, std::string_view without_space) {
  size_t j = 0;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    size_t len = 1;
    if (b < 0x80) {
      if (IsPySpace(b)) {
        ++i;
        continue;
      }
    } else if (IsPySpace(DecodeUtf8(s, i, &len))) {
      i += len;
      continue;
    }
    if (j + len > without_space.size() ||
        s.compare(i, len, without_space, j, len) != 0) {
      return false;
    }
    i += len;
    j += len;
  }
  return j == without_space.size();
}

size_t FirstDifference(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return i;
  }
  return a.size() == b.size() ? std::string_view::npos : n;
}

std::string Excerpt(std::string_view s, size_t max) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < max) {
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
