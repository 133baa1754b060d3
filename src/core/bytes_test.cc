#include "core/bytes.h"

#include <string>

#include <gtest/gtest.h>

namespace structtest {
namespace {

// Every length the word loads cover (and the memcmp beyond), with the strings equal
// and with one byte changed at each offset.
TEST(SameBytesTest, AgreesWithStringEquality) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'k');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
    const std::string b = a;
    EXPECT_TRUE(SameBytes(a, b)) << n;
    EXPECT_FALSE(SameBytes(a, b + "x")) << n;
    EXPECT_FALSE(SameBytes(a + "x", b)) << n;
    for (size_t at = 0; at < n; ++at) {
      std::string c = b;
      c[at] = static_cast<char>(c[at] ^ 0x40);
      EXPECT_FALSE(SameBytes(a, c)) << n << " " << at;
      EXPECT_FALSE(SameBytes(c, a)) << n << " " << at;
    }
  }
  EXPECT_TRUE(SameBytes(std::string_view("a\0b", 3), std::string_view("a\0b", 3)));
  EXPECT_FALSE(SameBytes(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
}

TEST(AssignBytesTest, ReplacesTheContentsWhateverTheirSizes) {
  std::string s = "a longer string than the next one, on the heap";
  AssignBytes(&s, "short");
  EXPECT_EQ(s, "short");
  AssignBytes(&s, std::string(1000, 'z'));
  EXPECT_EQ(s, std::string(1000, 'z'));
  AssignBytes(&s, "");
  EXPECT_EQ(s, "");
}

}  // namespace
}  // namespace structtest
