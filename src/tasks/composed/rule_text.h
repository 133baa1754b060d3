// Small text and parameter helpers the composed rule libraries share: what a check
// quotes, how it counts words, how it reads a rule's parameters.
#ifndef STRUCTTEST_TASKS_COMPOSED_RULE_TEXT_H_
#define STRUCTTEST_TASKS_COMPOSED_RULE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The lines of `response` (a '\r' before a '\n' dropped), blank ones too.
inline std::vector<std::string> LinesOf(std::string_view response) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= response.size()) {
    size_t end = response.find('\n', start);
    if (end == std::string_view::npos) end = response.size();
    std::string_view line = response.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

// The indexes of the lines that are not blank.
inline std::vector<int> NonBlankLines(const std::vector<std::string>& lines) {
  std::vector<int> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!TrimBlanks(lines[i]).empty()) out.push_back(static_cast<int>(i));
  }
  return out;
}

// The JSON object from the first '{' of `response` to its last '}', when that parses as
// one (a JSON envelope rule's answer); a discarded value otherwise.
inline nlohmann::json EnvelopeObject(std::string_view response) {
  const size_t open = response.find('{'), close = response.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || open >= close) {
    return nlohmann::json::value_t::discarded;
  }
  nlohmann::json j = nlohmann::json::parse(response.substr(open, close - open + 1), nullptr, false);
  return j.is_object() ? j : nlohmann::json(nlohmann::json::value_t::discarded);
}

// One of `items`, drawn from `rng`.
template <typename T, size_t N>
const T& PickOf(Rng* rng, const T (&items)[N]) {
  return items[static_cast<size_t>(rng->UniformInt(0, static_cast<int64_t>(N) - 1))];
}

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_RULE_TEXT_H_
