// ASCII text: lower-casing that leaves every byte outside A-Z as it is (UTF-8 stays
// intact), for names that are ASCII by definition (HTTP headers, file extensions,
// option values). Text that may hold non-ASCII letters goes through core/pytext.h.
#ifndef STRUCTTEST_CORE_ASCII_H_
#define STRUCTTEST_CORE_ASCII_H_

#include <string>
#include <string_view>

namespace structtest {

constexpr char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

}  // namespace structtest

#endif  // STRUCTTEST_CORE_ASCII_H_
