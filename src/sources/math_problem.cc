#include "sources/math_problem.h"

#include <cstddef>
#include <string>

namespace structtest {

namespace {

// Offset just after the '.' of the first ". X" boundary (X upper case), or npos.
size_t SentenceBreak(const std::string& s) {
  for (size_t i = 1; i + 2 < s.size(); ++i) {
    if (s[i] == '.' && s[i + 1] == ' ' && s[i + 2] >= 'A' && s[i + 2] <= 'Z') {
      // Not after a one-letter word ("J. Smith") or a leading number ("1. Add").
      const char prev = s[i - 1];
      const bool letter = (prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z');
      const bool one_letter = letter && (i < 2 || s[i - 2] == ' ');
      const bool all_digits = s.find_first_not_of("0123456789") >= i;
      if (one_letter || all_digits) continue;
      return i + 1;
    }
  }
  return std::string::npos;
}

}  // namespace

std::vector<std::string> FitSteps(std::vector<std::string> steps, std::string_view answer) {
  while (steps.size() > kMaxMathSteps) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < steps.size(); ++i) {
      if (steps[i].size() + steps[i + 1].size() < steps[best].size() + steps[best + 1].size()) {
        best = i;
      }
    }
    steps[best] += " " + steps[best + 1];
    steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  for (size_t i = 0; i < steps.size() && steps.size() < kMinMathSteps;) {
    const size_t cut = SentenceBreak(steps[i]);
    if (cut == std::string::npos) {
      ++i;
      continue;
    }
    std::string rest = steps[i].substr(cut + 1);
    steps[i].resize(cut);
    steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(rest));
  }
  static constexpr std::string_view kOpening[] = {
      "We start from the quantities given in the question.",
      "Next we combine them step by step.",
  };
  if (steps.size() < kMinMathSteps) {
    const size_t missing = kMinMathSteps - steps.size();
    // Openings go first (they read naturally there); the restatement closes.
    for (size_t k = 1; k < missing; ++k) {
      steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(k - 1), std::string(kOpening[k - 1]));
    }
    steps.push_back("Therefore the value asked for is " + std::string(answer) + ".");
  }
  return steps;
}

}  // namespace structtest
