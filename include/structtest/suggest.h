// "Did you mean...?": the known name nearest to a mistyped one (a subtask, a command,
// a flag).
#ifndef STRUCTTEST_SUGGEST_H_
#define STRUCTTEST_SUGGEST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace structtest {

// Levenshtein distance between a and b, in bytes.
size_t EditDistance(std::string_view a, std::string_view b);

// The name of `known` nearest to `name` by edit distance, or "" when none is within
// max(3, |name| / 3) edits. The first of equally near names wins.
std::string NearestName(std::string_view name, const std::vector<std::string_view>& known);
std::string NearestName(std::string_view name, const std::vector<std::string>& known);

}  // namespace structtest

#endif  // STRUCTTEST_SUGGEST_H_
