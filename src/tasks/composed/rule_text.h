// Small text and parameter helpers the composed rule libraries share: what a check
// quotes, how it counts words, how it reads a rule's parameters.
#ifndef STRUCTTEST_TASKS_COMPOSED_RULE_TEXT_H_
#define STRUCTTEST_TASKS_COMPOSED_RULE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "tasks/composed/rule.h"

namespace structtest::composed {

// `s` without spaces, tabs and carriage returns at either end.
inline std::string_view TrimBlanks(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

inline bool IsAsciiLetterOrDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Words: tokens between spaces and tabs with a letter or digit in them.
inline size_t CountBlankSeparatedWords(std::string_view s) {
  size_t n = 0;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t start = i;
    bool word = false;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') word |= IsAsciiLetterOrDigit(s[i++]);
    if (i > start && word) ++n;
  }
  return n;
}

// 's' in quotes, cut after 40 bytes (at a character's start) with "...".
inline std::string QuoteText(std::string_view s) {
  constexpr size_t kMax = 40;
  if (s.size() <= kMax) return fmt::format("'{}'", s);
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("'{}...'", s.substr(0, cut));
}

inline RuleCheck RulePass(std::string_view id, std::string detail = "") {
  return {std::string(id), RuleCheck::Result::kPass, std::move(detail)};
}
inline RuleCheck RuleFail(std::string_view id, std::string detail) {
  return {std::string(id), RuleCheck::Result::kFail, std::move(detail)};
}

// A rule's parameter `key`: 0 or "" when it is missing or of another type.
inline int IntParam(const nlohmann::json& p, const char* key) {
  const auto it = p.find(key);
  return it != p.end() && it->is_number_integer() ? it->get<int>() : 0;
}
inline std::string StrParam(const nlohmann::json& p, const char* key) {
  const auto it = p.find(key);
  return it != p.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One of `items`, drawn from `rng`.
template <typename T, size_t N>
const T& PickOf(Rng* rng, const T (&items)[N]) {
  return items[static_cast<size_t>(rng->UniformInt(0, static_cast<int64_t>(N) - 1))];
}

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_RULE_TEXT_H_
