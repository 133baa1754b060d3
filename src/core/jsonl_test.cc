#include "core/jsonl.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/rng.h"
#include "structtest/sample.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

TEST(JsonlReaderTest, ReportsBadLinesWithFileAndLineAndGoesOn) {
  TempDir dir;
  const std::string path = dir.path() + "/in.jsonl";
  WriteFileOrDie(path, "{\"a\": 1}\n\n{broken\n   \n[1,2]\n{\"b\": \"\xFF\"}\n{\"c\": 3}");
  auto reader = JsonlReader::Open(path);
  ASSERT_TRUE(reader.ok());
  nlohmann::json rec;
  std::string problem;
  ASSERT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kRecord);
  EXPECT_EQ(rec["a"], 1);
  ASSERT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kBadLine);
  EXPECT_EQ(problem.rfind(path + ":3: invalid JSON", 0), 0u) << problem;
  ASSERT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kRecord);
  EXPECT_TRUE(rec.is_array());
  EXPECT_EQ((*reader)->line_number(), 5);
  // Invalid UTF-8 inside a JSON string is a bad line, not a crash.
  ASSERT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kBadLine);
  EXPECT_NE(problem.find(":6:"), std::string::npos);
  ASSERT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kRecord);
  EXPECT_EQ(rec["c"], 3);  // last line without a newline
  EXPECT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kEnd);
  EXPECT_TRUE((*reader)->io_error().ok());
}

TEST(JsonlReaderTest, NulBytesInALineAreKept) {
  TempDir dir;
  const std::string path = dir.path() + "/nul.jsonl";
  WriteFileOrDie(path, std::string("{\"a\": \"x\0y\"}\n{\"a\": \"x\\u0000y\"}\n", 31));
  auto reader = JsonlReader::Open(path);
  ASSERT_TRUE(reader.ok());
  nlohmann::json rec;
  std::string problem;
  // A raw NUL inside a JSON string is invalid JSON (control character), said as such.
  EXPECT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kBadLine);
  EXPECT_EQ(problem, path + ":1: invalid JSON: a NUL byte at column 9 (a binary or damaged "
                            "file?)");
  ASSERT_EQ((*reader)->Next(&rec, &problem), JsonlReader::Result::kRecord);
  EXPECT_EQ(rec["a"].get<std::string>(), std::string("x\0y", 3));
}

TEST(JsonlReaderTest, MissingFileIsAnErrorNamingIt) {
  auto reader = JsonlReader::Open("/nonexistent/dir/x.jsonl");
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("/nonexistent/dir/x.jsonl"), std::string::npos);
}

TEST(JsonlWriterTest, RoundTripsAndReplacesInvalidUtf8) {
  TempDir dir;
  const std::string path = dir.path() + "/out.jsonl";
  auto writer = JsonlWriter::Open(path);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write({{"id", "1"}, {"t", "ok"}}).ok());
  ASSERT_TRUE((*writer)->Write({{"id", "2"}, {"t", "bad\xFF"}}).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(ReadFileOrDie(path),
            "{\"id\":\"1\",\"t\":\"ok\"}\n{\"id\":\"2\",\"t\":\"bad\xEF\xBF\xBD\"}\n");
}

TEST(JsonlWriterTest, UnwritablePathIsAnError) {
  auto writer = JsonlWriter::Open("/nonexistent/dir/out.jsonl");
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("/nonexistent/dir/out.jsonl"), std::string::npos);
}

// The output may not be the input under any of its names: opening it would truncate
// the records before they are read.
TEST(CheckOutputIsNotInputTest, RefusesTheInputUnderAnyNameAndNothingElse) {
  TempDir dir;
  const std::string in = dir.path() + "/in.jsonl";
  WriteFileOrDie(in, "{}\n");
  std::filesystem::create_directory(dir.path() + "/sub");
  std::filesystem::create_symlink(in, dir.path() + "/sym.jsonl");
  std::filesystem::create_hard_link(in, dir.path() + "/hard.jsonl");
  for (const std::string& out : {in, dir.path() + "/sub/../in.jsonl", dir.path() + "/sym.jsonl",
                                 dir.path() + "/hard.jsonl"}) {
    const Status s = CheckOutputIsNotInput(in, out);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << out;
    EXPECT_EQ(s.message().rfind(out + ": the output is the input file " + in, 0), 0u)
        << s.message();
  }
  WriteFileOrDie(dir.path() + "/other.jsonl", "{}\n");
  for (const std::string& out : {dir.path() + "/other.jsonl", dir.path() + "/new.jsonl",
                                 std::string("-"), dir.path() + "/missing/dir/out.jsonl"}) {
    EXPECT_TRUE(CheckOutputIsNotInput(in, out).ok()) << out;
  }
  EXPECT_TRUE(CheckOutputIsNotInput("-", in).ok());  // standard input is no file to lose
  EXPECT_EQ(ReadFileOrDie(in), "{}\n");
}

TEST(RecordFromJsonTest, NamesTheMissingOrMistypedField) {
  auto r = RecordFromJson({{"id", "1"}, {"domain", "math"}, {"subtask", "math_easy"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "missing field 'response'");
  r = RecordFromJson({{"id", "1"}, {"domain", 3}, {"subtask", "x"}, {"response", ""}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "field 'domain' must be a string, found number");
  r = RecordFromJson({{"id", 7}, {"domain", "d"}, {"subtask", "x"}, {"response", "r"},
                      {"params", {{"n", 1}}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sample.id, "7");
  EXPECT_EQ(r->sample.params["n"], 1);
  r = RecordFromJson({{"id", "1"}, {"domain", "d"}, {"subtask", "x"}, {"response", "r"},
                      {"params", "oops"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "field 'params' must be an object, found string");
  EXPECT_FALSE(RecordFromJson(nlohmann::json::array()).ok());
}

TEST(AppendJsonStringTest, WritesWhatNlohmannWritesAndRefusesInvalidUtf8) {
  Rng rng(42);
  const std::string alphabet[] = {"a", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f", "/",
                                  "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ", "\r",
                                  "\b", "\f", std::string(1, '\0'), "plain text run ",
                                  "0123456789abcdef0123456789"};
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s;
    const int len = static_cast<int>(rng.UniformInt(0, 40));
    for (int k = 0; k < len; ++k) s += alphabet[rng.UniformInt(0, std::size(alphabet) - 1)];
    std::string out = "x";
    ASSERT_TRUE(AppendJsonString(s, &out));
    EXPECT_EQ(out, "x" + nlohmann::json(s).dump()) << s;
  }
  // Past the 16-byte steps too: a bad byte at every offset of a long plain run.
  std::vector<std::string> bad = {"\xff", "a\xc3", "\xed\xa0\x80", "\xc0\xaf",
                                  "\xf4\x90\x80\x80", "ok\xe2\x82"};
  for (size_t at = 0; at < 40; ++at) {
    std::string s(40, 'p');
    s[at] = '\xff';
    bad.push_back(s);
  }
  for (const std::string& b : bad) {
    std::string out = "x";
    EXPECT_FALSE(AppendJsonString(b, &out)) << b;
    EXPECT_EQ(out, "x");
    std::string room(JsonStringBound(b.size()), '\0');
    EXPECT_EQ(WriteJsonStringUnsized(b, room.data()), nullptr) << b;
  }
}

// The one-pass writer on random strings: the bytes AppendJsonString writes, within the
// bound (a string of control characters only is the longest).
TEST(WriteJsonStringUnsizedTest, WritesWhatAppendJsonStringWritesWithinTheBound) {
  Rng rng(7);
  const std::string alphabet[] = {"a", "\"", "\\", "\n", "\x01", "\x1f", "\xc3\xa9",
                                  "\xf0\x9f\x98\x80", std::string(1, '\0'), "run of text "};
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s;
    for (int k = static_cast<int>(rng.UniformInt(0, 30)); k > 0; --k) {
      s += alphabet[rng.UniformInt(0, std::size(alphabet) - 1)];
    }
    std::string expected;
    ASSERT_TRUE(AppendJsonString(s, &expected));
    std::string room(JsonStringBound(s.size()) + 1, '#');  // one guard byte
    const char* end = WriteJsonStringUnsized(s, room.data());
    ASSERT_NE(end, nullptr);
    EXPECT_EQ(std::string_view(room.data(), static_cast<size_t>(end - room.data())), expected);
    EXPECT_EQ(room.back(), '#');
  }
  const std::string controls(33, '\x01');
  std::string room(JsonStringBound(controls.size()), '\0');
  EXPECT_EQ(WriteJsonStringUnsized(controls, room.data()), room.data() + room.size());
}

// The 16-byte scan, its overlapping last step and the short strings' padded copy: each
// byte that needs a look, at every offset of strings of every length up to 48.
TEST(AppendJsonStringTest, FindsAnEscapeOrNonAsciiByteAtEveryOffset) {
  const std::string specials[] = {"\"", "\\", "\n", std::string(1, '\0'), "\x1f", "\xc3\xa9",
                                  "\xe2\x82\xac"};
  for (size_t len = 1; len <= 48; ++len) {
    for (size_t at = 0; at < len; ++at) {
      for (const std::string& special : specials) {
        std::string s(len, 'p');
        s.replace(at, 1, special);
        std::string out = "x";
        ASSERT_TRUE(AppendJsonString(s, &out)) << len << " " << at;
        ASSERT_EQ(out, "x" + nlohmann::json(s).dump()) << len << " " << at;
        ASSERT_EQ(JsonStringSize(s), out.size() - 1) << len << " " << at;
        // The one-pass writer, into room for the longest escape, writes the same bytes.
        std::string room(JsonStringBound(s.size()), '\0');
        const char* end = WriteJsonStringUnsized(s, room.data());
        ASSERT_NE(end, nullptr) << len << " " << at;
        ASSERT_EQ(std::string_view(room.data(), static_cast<size_t>(end - room.data())),
                  out.substr(1))
            << len << " " << at;
      }
    }
    // Bytes just outside the ranges looked for pass as they are.
    const std::string plain = std::string(len, ' ') + "\x7f!#[]";
    std::string out;
    ASSERT_TRUE(AppendJsonString(plain, &out));
    EXPECT_EQ(out, "\"" + plain + "\"");
  }
}

// A random JSON value of every type nlohmann has, strings with escapes and invalid UTF-8
// (in keys too), numbers at the edges of their types.
nlohmann::json RandomJson(Rng& rng, int depth) {
  const std::string pieces[] = {"a", "\"", "\\", "\n", "\x01", "\xc3\xa9", "\xf0\x9f\x98\x80",
                                "\xff", "\xc3", "\xed\xa0\x80", std::string(1, '\0'), "key"};
  auto text = [&] {
    std::string s;
    for (int k = static_cast<int>(rng.UniformInt(0, 6)); k > 0; --k) {
      s += pieces[rng.UniformInt(0, std::size(pieces) - 1)];
    }
    return s;
  };
  const double doubles[] = {0.0, -0.0, 0.1, 1e300, -2.5e-308, 3.0, 1.0 / 3, 123456789.125};
  switch (rng.UniformInt(0, depth > 3 ? 6 : 8)) {
    case 0: return nullptr;
    case 1: return rng.Bernoulli(0.5);
    case 2: return static_cast<int64_t>(rng.Next());
    case 3: return rng.Bernoulli(0.5) ? INT64_MIN : INT64_MAX;
    case 4: return rng.Next();  // unsigned, above INT64_MAX half the time
    case 5: return doubles[rng.UniformInt(0, std::size(doubles) - 1)];
    case 6: return text();
    case 7: {
      nlohmann::json a = nlohmann::json::array();
      for (int k = static_cast<int>(rng.UniformInt(0, 4)); k > 0; --k) {
        a.push_back(RandomJson(rng, depth + 1));
      }
      return a;
    }
    default: {
      nlohmann::json o = nlohmann::json::object();
      for (int k = static_cast<int>(rng.UniformInt(0, 4)); k > 0; --k) {
        o[text()] = RandomJson(rng, depth + 1);
      }
      return o;
    }
  }
}

TEST(AppendJsonTest, WritesWhatNlohmannDumpWritesForEveryKindOfValue) {
  Rng rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    const nlohmann::json j = RandomJson(rng, 0);
    std::string out = "x";
    AppendJson(j, &out);
    ASSERT_EQ(out, "x" + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    ASSERT_EQ(DumpJsonLine(j), out.substr(1));
  }
}

}  // namespace
}  // namespace structtest

