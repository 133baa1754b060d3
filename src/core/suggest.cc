#include "structtest/suggest.h"

#include <algorithm>

namespace structtest {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view name, const std::vector<std::string_view>& known) {
  std::string_view best;
  size_t best_d = std::max<size_t>(3, name.size() / 3) + 1;
  for (std::string_view k : known) {
    const size_t d = EditDistance(name, k);
    if (d < best_d) {
      best_d = d;
      best = k;
    }
  }
  return std::string(best);
}

std::string NearestName(std::string_view name, const std::vector<std::string>& known) {
  return NearestName(name, std::vector<std::string_view>(known.begin(), known.end()));
}

}  // namespace structtest
