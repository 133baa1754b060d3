#include "sources/text_template.h"

#include <cassert>
#include <cstdio>

namespace structtest::internal {

namespace {

// Top-level occurrences of "||" (outside [...]) split `tmpl` into whole variants.
std::vector<std::string_view> SplitVariants(std::string_view tmpl) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    const char c = tmpl[i];
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth == 0 && c == '|' && i + 1 < tmpl.size() && tmpl[i + 1] == '|') {
      out.push_back(tmpl.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  out.push_back(tmpl.substr(start));
  return out;
}

void ExpandSlots(std::string_view text, const Slots& slots, std::string* out) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('{', i);
    if (open == std::string_view::npos) {
      out->append(text.substr(i));
      return;
    }
    out->append(text.substr(i, open - i));
    const size_t close = text.find('}', open);
    assert(close != std::string_view::npos && "unclosed { in a template");
    const std::string_view name = text.substr(open + 1, close - open - 1);
    const std::string* value = slots.Find(name);
    assert(value != nullptr && "template names a slot that is not set");
    if (value != nullptr) out->append(*value);
    i = close + 1;
  }
}

}  // namespace

void Slots::Set(std::string_view name, std::string value) {
  for (auto& [key, v] : entries_) {
    if (key == name) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::string(name), std::move(value));
}

const std::string* Slots::Find(std::string_view name) const {
  for (const auto& [key, v] : entries_) {
    if (key == name) return &v;
  }
  return nullptr;
}

std::string ExpandTemplate(std::string_view tmpl, const Slots& slots, Rng* rng) {
  const std::vector<std::string_view> variants = SplitVariants(tmpl);
  std::string_view body = variants.size() == 1 ? variants[0] : rng->Pick(variants);
  std::string out;
  out.reserve(body.size() + 64);
  size_t i = 0;
  while (i < body.size()) {
    const size_t open = body.find('[', i);
    if (open == std::string_view::npos) {
      ExpandSlots(body.substr(i), slots, &out);
      break;
    }
    ExpandSlots(body.substr(i, open - i), slots, &out);
    const size_t close = body.find(']', open);
    assert(close != std::string_view::npos && "unclosed [ in a template");
    const std::string_view inner = body.substr(open + 1, close - open - 1);
    std::vector<std::string_view> options;
    size_t s = 0;
    for (size_t k = 0; k <= inner.size(); ++k) {
      if (k == inner.size() || inner[k] == '|') {
        options.push_back(inner.substr(s, k - s));
        s = k + 1;
      }
    }
    ExpandSlots(rng->Pick(options), slots, &out);
    i = close + 1;
  }
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::string FormatThousands(int64_t n) {
  const bool negative = n < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(u);
  std::string out;
  const size_t lead = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out.append(digits, 0, lead);
  for (size_t i = lead; i < digits.size(); i += 3) {
    out.push_back(',');
    out.append(digits, i, 3);
  }
  return negative ? "-" + out : out;
}

std::string_view MonthName(int month) {
  static constexpr std::string_view kMonths[] = {
      "January", "February", "March",     "April",   "May",      "June",
      "July",    "August",   "September", "October", "November", "December"};
  assert(month >= 1 && month <= 12);
  return kMonths[month - 1];
}

std::string FormatDate(int day, int month, int year, int style) {
  const std::string m(MonthName(month));
  if (style == 0) return std::to_string(day) + " " + m + " " + std::to_string(year);
  return m + " " + std::to_string(day) + ", " + std::to_string(year);
}

std::string NumberWord(int64_t n) {
  static constexpr std::string_view kWords[] = {
      "zero",    "one",     "two",       "three",    "four",     "five",    "six",
      "seven",   "eight",   "nine",      "ten",      "eleven",   "twelve",  "thirteen",
      "fourteen", "fifteen", "sixteen",  "seventeen", "eighteen", "nineteen", "twenty"};
  if (n >= 0 && n <= 20) return std::string(kWords[n]);
  return std::to_string(n);
}

}  // namespace structtest::internal
