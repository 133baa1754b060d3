// The small template language the built-in generators write their sentences in, and
// the number and date formatting they share. Internal to src/sources.
//
//   {name}        the value of slot `name` (a missing slot is a programmer bug: assert)
//   [a|b|c]       one alternative, picked with the Rng (alternatives may hold slots,
//                 may be empty, and do not nest)
//   x||y||z       at top level: whole variants, one picked with the Rng
//
// Expansion consumes the Rng in a fixed order, so output is a pure function of the
// template, the slots and the Rng state.
#ifndef STRUCTTEST_SOURCES_TEXT_TEMPLATE_H_
#define STRUCTTEST_SOURCES_TEXT_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace structtest::internal {

// Named values for one document or problem. Lookup is linear: a template set uses a
// few dozen slots at most.
class Slots {
 public:
  // Sets or replaces a slot.
  void Set(std::string_view name, std::string value);
  // nullptr when absent.
  const std::string* Find(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Expands `tmpl` (see the file comment) and upper-cases its first character when it
// is an ASCII letter.
std::string ExpandTemplate(std::string_view tmpl, const Slots& slots, Rng* rng);

// 1234567 -> "1,234,567"; negative numbers keep their sign.
std::string FormatThousands(int64_t n);
// English month name, month in 1..12.
std::string_view MonthName(int month);
// "14 March 2024" (style 0) or "March 14, 2024" (style 1).
std::string FormatDate(int day, int month, int year, int style);
// "one" .. "twenty" for 0..20, else the digits.
std::string NumberWord(int64_t n);

}  // namespace structtest::internal

#endif  // STRUCTTEST_SOURCES_TEXT_TEMPLATE_H_
