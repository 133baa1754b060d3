// Python json.loads() and int() semantics for the JSON step styles.
#include "tasks/math/py_json.h"

#include <gtest/gtest.h>

#include <string>

namespace structtest::math_internal {
namespace {

TEST(PyJsonTest, ListOfStrings) {
  const JsonSteps r = ParseJsonStepList("\n[\"a\", \"b\\n\", \"\\u00e9\"]\n");
  EXPECT_TRUE(r.ok) << r.problem;
  EXPECT_EQ(r.steps, 3u);
  EXPECT_TRUE(ParseJsonStepList("[]").ok);
  EXPECT_EQ(ParseJsonStepList("[\"a\", 1]").problem, "list element 2 is not a string");
  EXPECT_EQ(ParseJsonStepList("{\"1\": \"a\"}").problem,
            "the JSON is an object, not a list");
  EXPECT_EQ(ParseJsonStepList("\"a\"").problem, "the JSON is not a list");
}

TEST(PyJsonTest, PythonAcceptsWhatRfcParsersReject) {
  EXPECT_TRUE(ParseJsonStepList("[\"a\", [NaN, Infinity, -Infinity, 1e5, -0.5, null]]")
                  .problem.starts_with("list element 2"));
  EXPECT_TRUE(ParseJsonStepList("[\"\\ud800\", \"\\udc00x\", \"\\ud83d\\ude00\"]").ok);
  EXPECT_TRUE(ParseJsonStepList("[\"\x7f\", \"\xc3\xa9\"]").ok);
}

TEST(PyJsonTest, PythonRejects) {
  for (const char* bad : {
           "",
           " ",
           "[",
           "[\"a\",]",
           "[\"a\" \"b\"]",
           "[01]",
           "[1.]",
           "[.5]",
           "[+1]",
           "[\"a\"] x",
           "[\"\t\"]",
           "[\"\\x\"]",
           "[\"\\u12\"]",
           "[\"\\ud800\\u12zz\"]",
           "\xEF\xBB\xBF[]",
           "[\"a]",
           "[nul]",
           "[True]",
           "\v[]",
           "[\"a\"]\xc2\xa0",
           "{\"1\" \"a\"}",
           "{\"1\": \"a\",}",
           "{1: \"a\"}",
           "['a']",
           "[1e]",
           "[-]",
       }) {
    const JsonSteps r = ParseJsonStepList(bad);
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_TRUE(r.problem.starts_with("not valid JSON") ||
                r.problem.starts_with("the JSON is"))
        << bad << ": " << r.problem;
  }
  EXPECT_EQ(ParseJsonStepList("[\"a\",]").problem,
            "not valid JSON to Python's json.loads (Expecting value at byte 5)");
}

TEST(PyJsonTest, HugeIntegersAndDeepNestingRaiseInPython) {
  EXPECT_FALSE(
      ParseJsonStepObject("{\"1\": " + std::string(4301, '7') + ", \"1\": \"a\"}").ok);
  EXPECT_TRUE(
      ParseJsonStepObject("{\"1\": " + std::string(4300, '7') + ", \"1\": \"a\"}").ok);
  const std::string deep =
      std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_FALSE(ParseJsonStepObject("{\"1\": " + deep + ", \"1\": \"a\"}").ok);
  const std::string ok =
      std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']');
  EXPECT_TRUE(ParseJsonStepObject("{\"1\": " + ok + ", \"1\": \"a\"}").ok);
  // 100k levels: no stack overflow.
  const std::string very = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(ParseJsonStepList(very).ok);
}

TEST(PyJsonTest, NumberedObject) {
  JsonSteps r = ParseJsonStepObject("{\"1\": \"a\", \"2\": \"b\", \"3\": \"c\"}");
  EXPECT_TRUE(r.ok) << r.problem;
  EXPECT_EQ(r.steps, 3u);
  EXPECT_TRUE(ParseJsonStepObject("{}").ok);
  // int() accepts all of these as 1, 2, 3.
  r = ParseJsonStepObject("{\" 1 \": \"a\", \"+2\": \"b\", \"\\u0663\": \"c\"}");
  EXPECT_TRUE(r.ok) << r.problem;
  EXPECT_EQ(ParseJsonStepObject("{\"2\": \"a\", \"1\": \"b\"}").problem,
            "key '2' is number 1: keys must be 1..2 in order");
  EXPECT_EQ(ParseJsonStepObject("{\"1\": \"a\", \"x\": \"b\"}").problem,
            "key 'x' is not an integer");
  EXPECT_EQ(ParseJsonStepObject("{\"1\": \"a\", \"2\": 2}").problem,
            "the value of key '2' is not a string");
  EXPECT_EQ(ParseJsonStepObject("[\"a\"]").problem, "the JSON is a list, not an object");
}

TEST(PyJsonTest, DuplicateKeysKeepPlaceTakeLastValue) {
  JsonSteps r = ParseJsonStepObject("{\"1\": 5, \"2\": \"b\", \"1\": \"a\"}");
  EXPECT_TRUE(r.ok) << r.problem;
  EXPECT_EQ(r.steps, 2u);
  r = ParseJsonStepObject("{\"1\": \"a\", \"\\u0031\": 5}");  // same key, escaped
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.problem, "the value of key '1' is not a string");
  // Different strings with the same int() are two keys: 1, 1.
  EXPECT_FALSE(ParseJsonStepObject("{\"1\": \"a\", \"01\": \"b\"}").ok);
  // Many keys (the hash index).
  std::string many = "{";
  for (int i = 1; i <= 1000; ++i) {
    many += (i > 1 ? ", \"" : "\"") + std::to_string(i) + "\": \"s\"";
  }
  many += ", \"500\": \"t\"}";
  r = ParseJsonStepObject(many);
  EXPECT_TRUE(r.ok) << r.problem;
  EXPECT_EQ(r.steps, 1000u);
}

TEST(PyIntTest, PythonIntSemantics) {
  auto int_of = [](std::string_view s) -> std::optional<int64_t> {
    int64_t v;
    if (!PyIntFromString(s, &v)) return std::nullopt;
    return v;
  };
  EXPECT_EQ(int_of("12"), 12);
  EXPECT_EQ(int_of(" \t12\n"), 12);
  EXPECT_EQ(int_of("\v12\f\r"), 12);
  EXPECT_EQ(int_of("+1"), 1);
  EXPECT_EQ(int_of("-3"), -3);
  EXPECT_EQ(int_of("007"), 7);
  EXPECT_EQ(int_of("1_000"), 1000);
  EXPECT_EQ(int_of("\u0661\u0662"), 12);  // Arabic-Indic digits
  EXPECT_EQ(int_of("\uff13"), 3);         // fullwidth 3
  EXPECT_EQ(int_of("\u00a03\u2003"), 3);  // non-ASCII spaces
  EXPECT_EQ(int_of("\u3000"
                   "1"),
            1);
  EXPECT_EQ(int_of(std::string(30, '9')), kIntSaturation);
  for (const char* bad : {"", " ", "+", "1 2", "_1", "1_", "1__0", "0x1", "1.0",
                          "\x1c"
                          "1",
                          "1\x1f", "\xc2\xb2", "\xe2\x85\xa0", "1\xff", "--1",
                          "\x00"
                          "1"}) {
    EXPECT_EQ(int_of(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(int_of(std::string("1\0", 2)), std::nullopt);
  EXPECT_EQ(int_of(std::string(4301, '1')), std::nullopt);
}

}  // namespace
}  // namespace structtest::math_internal
