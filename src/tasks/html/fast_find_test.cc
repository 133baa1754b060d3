// The SSE2 substring search and the short-range byte search against std::string_view.
#include "tasks/html/fast_find.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace structtest::html_internal {
namespace {

TEST(FastFindTest, MatchesStringViewFind) {
  std::mt19937 rng(7);
  const std::string_view alphabet = "<>/htmlik ";
  const std::string_view needles[] = {"<html>", "</html>", "<think>", "</think>",
                                      "<a",     "m",       "<ans>",   "kk"};
  for (int t = 0; t < 20000; ++t) {
    std::uniform_int_distribution<size_t> len(0, 120);
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    std::string s(len(rng), ' ');
    for (char& c : s) c = alphabet[pick(rng)];
    // Plant a needle now and then.
    const std::string_view planted = needles[t % std::size(needles)];
    if (t % 3 == 0 && s.size() >= planted.size()) {
      s.replace(s.size() / 2, planted.size(), planted);
    }
    const std::string_view v(s);
    for (const std::string_view n : needles) {
      for (size_t from = 0; from <= s.size() + 1; from += 13) {
        ASSERT_EQ(FindSubstring(v, n, from), v.find(n, from)) << s << " / " << n;
      }
    }
    for (size_t from = 0; from <= s.size(); from += 5) {
      ASSERT_EQ(FindByte(v, '<', from), v.find('<', from));
      ASSERT_EQ(FindByte(v, 'k', from), v.find('k', from));
    }
  }
}

}  // namespace
}  // namespace structtest::html_internal
