#include "sources/gsm8k_loader.h"

#include <string>

#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

class Gsm8kLoaderTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& contents) {
    const std::string path = dir_.path() + "/gsm8k.jsonl";
    WriteFileOrDie(path, contents);
    return path;
  }
  std::string Error(const std::string& contents) {
    const auto r = LoadGsm8k(Write(contents));
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    std::string m = r.status().message();
    m.replace(0, dir_.path().size(), "DIR");
    return m;
  }
  TempDir dir_;
};

TEST(StripCalculatorAnnotationsTest, DropsEverySpan) {
  EXPECT_EQ(StripCalculatorAnnotations("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs."),
            "Janet sells 16 - 3 - 4 = 9 eggs.");
  EXPECT_EQ(StripCalculatorAnnotations("<<1+1=2>>2 and <<2*3=6>>6"), "2 and 6");
  EXPECT_EQ(StripCalculatorAnnotations("a << b"), "a << b");
}

TEST_F(Gsm8kLoaderTest, ReadsQuestionStepsAndGoldAnswer) {
  const auto r = LoadGsm8k(Write(
      "{\"question\": \"How many?\", \"answer\": \"Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 "
      "duck eggs a day.\\nShe makes 9 * 2 = $<<9*2=18>>18 every day.\\n#### 18\"}\n"
      "\n"
      "{\"question\": \"Big?\", \"answer\": \"A.\\nB.\\nC.\\nD.\\n####  2,125 \"}\n"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  const MathProblem& p = (*r)[0];
  EXPECT_EQ(p.id, "0");
  EXPECT_EQ(p.question, "How many?");
  EXPECT_EQ(p.answer, "18");
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(p.steps[0], "Janet sells 16 - 3 - 4 = 9 duck eggs a day.");
  EXPECT_EQ(p.steps[1], "She makes 9 * 2 = $18 every day.");
  EXPECT_EQ(p.steps[2], "Therefore the value asked for is 18.");
  EXPECT_NE(p.solution.find("<<9*2=18>>"), std::string::npos) << "solution kept as written";
  // The gold answer keeps GSM8K's own formatting.
  EXPECT_EQ((*r)[1].id, "1");
  EXPECT_EQ((*r)[1].answer, "2,125");
  EXPECT_EQ((*r)[1].steps.size(), 4u);
}

TEST_F(Gsm8kLoaderTest, UsesTheLastMarker) {
  const auto r = LoadGsm8k(Write("{\"question\": \"Q?\", \"answer\": \"x #### 1\\ny\\nz\\n#### 2\"}\n"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].answer, "2");
}

TEST_F(Gsm8kLoaderTest, ErrorsNameFileLineAndField) {
  EXPECT_EQ(Error("{\"question\": \"Q?\"}\n"), "DIR/gsm8k.jsonl:1: field 'answer' missing");
  EXPECT_EQ(Error("{\"question\": \"Q?\", \"answer\": \"a\\n#### 1\"}\n{\"answer\": \"#### 2\"}\n"),
            "DIR/gsm8k.jsonl:2: field 'question' missing");
  EXPECT_EQ(Error("{\"question\": 5, \"answer\": \"#### 2\"}\n"),
            "DIR/gsm8k.jsonl:1: field 'question' is not a string (found number)");
  EXPECT_EQ(Error("{\"question\": \"Q?\", \"answer\": \"no marker\"}\n"),
            "DIR/gsm8k.jsonl:1: field 'answer' has no '####' final answer");
  EXPECT_EQ(Error("{\"question\": \"Q?\", \"answer\": \"a\\n####  \"}\n"),
            "DIR/gsm8k.jsonl:1: field 'answer' has nothing after its last '####'");
  EXPECT_EQ(Error("{\"question\": \" \", \"answer\": \"#### 1\"}\n"),
            "DIR/gsm8k.jsonl:1: field 'question' is empty");
  EXPECT_EQ(Error("\"just a string\"\n"), "DIR/gsm8k.jsonl:1: expected a JSON object, found string");
  EXPECT_EQ(Error("{\"question\": \"a\\u0000\", \"answer\": \"#### 1\"}\n"),
            "DIR/gsm8k.jsonl:1: field 'question' contains a NUL character");
  EXPECT_EQ(Error(""), "DIR/gsm8k.jsonl: no problems");
  const std::string m = Error("{\"question\": \"Q?\", \"answer\": \"#### 1\"}\n{oops\n");
  EXPECT_EQ(m.rfind("DIR/gsm8k.jsonl:2: invalid JSON", 0), 0u) << m;
}

TEST(Gsm8kRealFileTest, LoadsTheGsm8kTestSplit) {
  SKIP_WITHOUT_SHARED();
  const auto r = LoadGsm8k(testing::SharedDir() + "/conformance/data/gsm8k_test.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1319u);
  EXPECT_EQ((*r)[0].answer, "18");
  EXPECT_EQ((*r)[0].steps[0], "Janet sells 16 - 3 - 4 = 9 duck eggs a day.");
  EXPECT_EQ((*r)[1318].id, "1318");
  size_t with_comma = 0;
  for (const MathProblem& p : *r) {
    SCOPED_TRACE(p.id);
    EXPECT_GE(p.steps.size(), kMinMathSteps);
    EXPECT_LE(p.steps.size(), kMaxMathSteps);
    for (const std::string& s : p.steps) {
      EXPECT_FALSE(s.empty());
      EXPECT_EQ(s.find('\n'), std::string::npos);
      EXPECT_EQ(s.find("<<"), std::string::npos) << s;
      EXPECT_EQ(s.find("####"), std::string::npos) << s;
    }
    if (p.answer.find(',') != std::string::npos) ++with_comma;
  }
  EXPECT_EQ(with_comma, 14u);  // kept as written: the paper compares these strings
}

}  // namespace
}  // namespace structtest
