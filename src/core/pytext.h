// Text primitives with Python's semantics. The reference scorer is Python: it works
// on code points, strips with str.strip() (Unicode whitespace) and tests characters
// with str.isnumeric() / str.isalnum(). Our text is UTF-8 bytes; these helpers give the
// same answers on it. Invalid UTF-8 is never an error: each bad byte decodes as one
// code point U+FFFD-like value (kInvalidCodePoint) so counts stay well defined.
#ifndef STRUCTTEST_CORE_PYTEXT_H_
#define STRUCTTEST_CORE_PYTEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace structtest {

// Returned for a byte that does not start a valid UTF-8 sequence.
inline constexpr char32_t kInvalidCodePoint = 0xFFFD;

// Decodes the code point starting at s[pos]; sets *len to its byte length (>= 1).
// REQUIRES: pos < s.size().
char32_t DecodeUtf8(std::string_view s, size_t pos, size_t* len);

// Byte offset of the start of the code point that ends at s[end-1]. REQUIRES: end > 0.
size_t PrevCodePointStart(std::string_view s, size_t end);

// Appends c as UTF-8.
void AppendUtf8(char32_t c, std::string* out);

// '0' to '9', the only digits JSON numbers and Python's int() of an ASCII string take.
inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// Python str.isspace() for one code point (also what `\s` matches in a str regex).
bool IsPySpace(char32_t c);
// Python str.isnumeric() for one code point.
bool IsPyNumeric(char32_t c);
// Python str.isdecimal() for one code point (what int() accepts as a digit).
bool IsPyDecimal(char32_t c);
// Python str.isalnum() for one code point; `\w` in a str regex is this or '_'.
bool IsPyAlnum(char32_t c);
// Python str.isalpha().
bool IsPyAlpha(char32_t c);
// Python str.lower() / str.upper() first-character checks used by Punkt.
bool IsPyLower(char32_t c);
bool IsPyUpper(char32_t c);

// Python str.strip() / lstrip() / rstrip() with no argument.
std::string_view PyStrip(std::string_view s);
std::string_view PyLStrip(std::string_view s);
std::string_view PyRStrip(std::string_view s);

// Python str.split(sep) for a one-byte separator: always at least one piece.
std::vector<std::string_view> SplitChar(std::string_view s, char sep);

// Python str.lower() (full Unicode case mapping as ICU gives it).
std::string PyLower(std::string_view s);

// Number of code points (invalid bytes count one each).
size_t CodePointCount(std::string_view s);

// haystack.rfind(needle), without libstdc++'s memcmp at every position: memrchr
// finds candidates for the first byte. npos when absent; an empty needle is found at
// the end.
size_t RFind(std::string_view haystack, std::string_view needle);

// Replaces every occurrence of `from` by `to`.
std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to);

}  // namespace structtest

#endif  // STRUCTTEST_CORE_PYTEXT_H_
