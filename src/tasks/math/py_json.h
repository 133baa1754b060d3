// Python's json.loads() (CPython 3.11, C scanner, strict=True), reduced to what the
// JSON step styles of math_hard need: is the text valid JSON to Python, and is its
// top-level value a list of strings (style D) or an object whose keys, converted
// with int() in dict order, are 1..n and whose values are strings (style E)?
//
// Python's json differs from RFC 8259 parsers such as nlohmann's in ways a model
// answer can hit: NaN, Infinity and -Infinity are accepted; lone surrogate escapes
// (\ud800) are accepted; duplicate keys keep the first key's position and the last
// value; only space, \t, \n and \r count as whitespace; a UTF-8 BOM is an error;
// integers of more than 4300 digits raise ValueError; nesting deeper than the
// recursion limit raises RecursionError (we stop at kMaxJsonDepth, an estimate: the
// reference's own call depth is unknown). Any exception counts as a failed parse.
//
// Python's int() on a key: surrounding whitespace (ASCII \t\n\v\f\r and space, and
// any non-ASCII str.isspace() character), a sign, underscores between digits, and
// any Unicode decimal digit are accepted.
#ifndef STRUCTTEST_TASKS_MATH_PY_JSON_H_
#define STRUCTTEST_TASKS_MATH_PY_JSON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace structtest::math_internal {

inline constexpr int kMaxJsonDepth = 990;

struct JsonSteps {
  bool ok = false;      // valid JSON with the asked shape
  size_t steps = 0;     // list length / number of keys, when ok
  std::string problem;  // when !ok, for a verdict reason ("element 3 is not a string")
};

// Style D: a list of strings. `texts`, when non-null, receives the decoded strings
// when ok (the strict checker reads the steps; the paper one only counts them).
JsonSteps ParseJsonStepList(std::string_view text,
                            std::vector<std::string>* texts = nullptr);
// Style E: an object with keys 1..n (as int(), in order) and string values; `texts`
// receives the values in key order when ok.
JsonSteps ParseJsonStepObject(std::string_view text,
                              std::vector<std::string>* texts = nullptr);

// Python int(s) for a str given as UTF-8. False when Python raises ValueError.
// *value saturates at kIntSaturation (the caller only compares small numbers).
inline constexpr int64_t kIntSaturation = int64_t{1} << 53;
bool PyIntFromString(std::string_view s, int64_t* value);

}  // namespace structtest::math_internal

#endif  // STRUCTTEST_TASKS_MATH_PY_JSON_H_
