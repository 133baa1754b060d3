// The fast record path must read, refuse and write exactly what the nlohmann path
// does: every line below (valid, hostile, and thousands of random mutations of valid
// records) goes through both, and the results are compared field for field and
// message for message.
#include "core/record_io.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/rng.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::MutateJson;
using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

// What one path made of a line: the record as JSON, or the problem.
struct Outcome {
  JsonlReader::Result result;
  std::string text;  // the record (SampleToJson + response + reasoning), or the problem
  bool operator==(const Outcome&) const = default;
};

std::string Described(const ScoredRecord& r) {
  nlohmann::json j = SampleToJson(r.sample);
  j["response"] = r.response.text;
  j["reasoning"] = r.response.reasoning;
  // dump() distinguishes 5 from 5.0, so number types are compared too.
  return DumpJsonLine(j);
}

std::vector<Outcome> SlowPath(const std::string& path) {
  auto reader = JsonlReader::Open(path);
  EXPECT_TRUE(reader.ok());
  std::vector<Outcome> out;
  nlohmann::json j;
  std::string problem;
  for (;;) {
    const auto r = (*reader)->Next(&j, &problem);
    if (r == JsonlReader::Result::kEnd) break;
    if (r == JsonlReader::Result::kBadLine) {
      out.push_back({r, problem});
      continue;
    }
    auto record = RecordFromJson(j);
    if (!record.ok()) {
      out.push_back({JsonlReader::Result::kBadLine,
                     fmt::format("{}:{}: {}", path, (*reader)->line_number(),
                                 record.status().message())});
      continue;
    }
    out.push_back({r, Described(*record)});
  }
  return out;
}

std::vector<Outcome> FastPath(const std::string& path) {
  auto reader = RecordReader::Open(path);
  EXPECT_TRUE(reader.ok());
  std::vector<Outcome> out;
  ScoredRecord record;
  std::string problem;
  for (;;) {
    const auto r = (*reader)->NextRecord(&record, &problem);
    if (r == JsonlReader::Result::kEnd) break;
    out.push_back({r, r == JsonlReader::Result::kBadLine ? problem : Described(record)});
  }
  return out;
}

void ExpectSamePaths(const std::string& contents) {
  TempDir dir;
  const std::string path = dir.path() + "/in.jsonl";
  WriteFileOrDie(path, contents);
  const auto slow = SlowPath(path);
  const auto fast = FastPath(path);
  ASSERT_EQ(slow.size(), fast.size());
  for (size_t i = 0; i < slow.size(); ++i) {
    EXPECT_EQ(static_cast<int>(slow[i].result), static_cast<int>(fast[i].result))
        << "record " << i << ": " << slow[i].text << " / " << fast[i].text;
    EXPECT_EQ(slow[i].text, fast[i].text) << "record " << i;
  }
}

const char* const kValid[] = {
    R"({"id": "17", "domain": "summarization", "subtask": "bullet_points", "params": {"n_points": 5, "symbol": "*"}, "context": {"start_tag": "<summary>", "end_tag": "</summary>"}, "response": "<summary>\n* a</summary>"})",
    R"({"id": 3, "domain": "math", "subtask": "math_easy", "params": {"math_format_name": "Suffix1PhrasesMathFormat"}, "context": {"gold_answer": "18", "gsm8k_index": 0, "question": "q \u00e9\u4e2d\ud83d\ude00"}, "response": "The answer is: 18", "reasoning": "think", "reference": {"result": 1}})",
    R"({"id": "h", "domain": "html", "subtask": "html_easy", "params": {"ground_truth": {"body": 1, "p": 2.0, "x": -3, "y": 1e3, "z": 18446744073709551615}, "mode": "nested"}, "context": null, "messages": [{"role": "user", "content": "make <html>"}], "target": {"answer": "<html></html>", "n": [1, 2.5, true, null]}, "response": ""})",
};

TEST(RecordReaderTest, ValidAndHostileLinesReadAsTheNlohmannPathReadsThem) {
  std::string lines;
  for (const char* v : kValid) lines += std::string(v) + "\n";
  const char* const hostile[] = {
      "", "   ", "\t\r", "{broken", "[1,2]", "\"a string\"", "42", "null",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","id":"2"})",  // last key wins
      R"({"id":"1","domain":"d","subtask":"s","response":"r","params":{"a":1,"a":"b"}})",
      R"({"id":123456789012345678901234567890,"domain":"d","subtask":"s","response":"r"})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","params":{"n":123456789012345678901234567890}})",
      "\xEF\xBB\xBF{\"id\":\"1\",\"domain\":\"d\",\"subtask\":\"s\",\"response\":\"r\"}",  // BOM
      R"({"id":-5,"domain":"d","subtask":"s","response":"r"})",
      R"({"id":1.5,"domain":"d","subtask":"s","response":"r"})",
      R"({"id":true,"domain":"d","subtask":"s","response":"r"})",
      R"({"id":null,"domain":"d","subtask":"s","response":"r"})",
      R"({"domain":"d","subtask":"s","response":"r"})",
      R"({"id":"1","domain":"d","subtask":"s"})",
      R"({"id":"1","domain":"d","subtask":"s","response":null})",
      R"({"id":"1","domain":"d","subtask":"s","response":5})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","reasoning":7})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","params":[1]})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","context":"x"})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","messages":{}})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","messages":[1]})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","messages":[{"role":"user"}]})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","messages":[{"role":"u","content":1}]})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","messages":null,"target":null})",
      R"({"id":"1","domain":"d","subtask":"s","response":"x\u0000y\ud800"})",
      R"({"id":"1","domain":"d","subtask":"s","response":"\udc00"})",
      "{\"id\":\"1\",\"domain\":\"d\",\"subtask\":\"s\",\"response\":\"\xFF\"}",
      "{\"id\":\"1\",\"domain\":\"d\",\"subtask\":\"s\",\"response\":\"a\x01" "b\"}",
      "{\"id\":\"1\",\"domain\":\"d\",\"subtask\":\"s\",\"response\":\"a\x7F" "b\"}",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","params":{"a":1e400}})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r","params":{"a":-0,"b":-0.0,"c":0.1}})",
      R"({"id":"1","domain":"d","subtask":"s","response":"r"} trailing)",
      R"({"id":"1","domain":"d","subtask":"s","response":"r",})",
  };
  for (const char* h : hostile) lines += std::string(h) + "\n";
  lines += std::string(100000, '[') + "\n";  // deeper than simdjson goes
  lines += "{\"id\":\"1\",\"domain\":\"d\",\"subtask\":\"s\",\"response\":\"" +
           std::string(3 << 20, 'x') + "\"}\n";  // longer than a read chunk
  lines += std::string("{\"id\":\"nul\",\"domain\":\"d\",\"subtask\":\"s\",\"response\":\"\0\"}\n", 55);
  lines += kValid[0];  // the last line has no newline
  ExpectSamePaths(lines);
}

// The reader fills one record's objects from the last one's where their keys agree:
// keys that come, go, repeat or change type from one line to the next, at the top and
// nested, must leave each record as its own line has it.
TEST(RecordReaderTest, ObjectsChangingShapeFromLineToLineReadAsTheirOwnLine) {
  const char* const params[] = {
      R"({"a":1,"b":"x"})", R"({"a":2,"b":"y"})", R"({"a":1,"a":2})", R"({"b":"z"})",
      R"({"a":1,"b":2,"c":3})", R"({})", R"({"c":[1,2],"a":{"n":1,"m":2}})",
      R"({"c":[3],"a":{"m":5}})", R"({"c":null,"a":{"m":5,"m":6,"n":7}})", R"({"a":"s"})",
      R"({"b":"x","a":1})", R"({"b":"x","b":"y","a":1})",
  };
  std::string lines;
  for (const char* p : params) {
    lines += fmt::format(
        R"({{"id":"1","domain":"d","subtask":"s","response":"r","params":{},"context":{}}})",
        p, p) + "\n";
  }
  std::string many = "{";  // more members than a mask has bits
  for (int i = 0; i < 70; ++i) many += fmt::format("{}\"k{}\":{}", i ? "," : "", i, i);
  many += "}";
  for (int round = 0; round < 2; ++round) {
    lines += fmt::format(
        R"({{"id":"1","domain":"d","subtask":"s","response":"r","params":{}}})", many) + "\n";
    lines += fmt::format(
        R"({{"id":"1","domain":"d","subtask":"s","response":"r","params":{}}})", params[0]) + "\n";
  }
  ExpectSamePaths(lines);
}

TEST(RecordReaderTest, RandomMutationsOfValidRecordsReadTheSame) {
  Rng rng(20261201);
  std::string lines;
  for (int i = 0; i < 3000; ++i) {
    const std::string line = MutateJson(rng, kValid[rng.UniformInt(0, 2)]);
    lines += line + "\n";
  }
  ExpectSamePaths(lines);
}

// RecordsFromJsonText against nlohmann's parse of the same body and RecordFromJson of
// each of its records.
void ExpectRecordsReadAsNlohmann(const std::string& body) {
  std::vector<ScoredRecord> records;
  nlohmann::json members;
  const Status s = RecordsFromJsonText(body, "records", &records, &members);
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    EXPECT_EQ(s.message().rfind("not JSON: ", 0), 0u) << s.message() << "\n" << body;
    return;
  }
  if (!j.is_object() || !j.contains("records") || !j["records"].is_array()) {
    EXPECT_FALSE(s.ok()) << body;
    return;
  }
  std::vector<std::string> expected;
  for (size_t i = 0; i < j["records"].size(); ++i) {
    auto record = RecordFromJson(j["records"][i]);
    if (!record.ok()) {
      EXPECT_EQ(s.message(), fmt::format("records[{}]: {}", i, record.status().message()))
          << body;
      return;
    }
    expected.push_back(Described(*record));
  }
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << body;
  ASSERT_EQ(records.size(), expected.size()) << body;
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(Described(records[i]), expected[i]) << body;
  }
  j.erase("records");
  EXPECT_EQ(members, j) << body;
}

TEST(RecordsFromJsonTextTest, ReadsEachRecordAsNlohmannAndRecordFromJsonDo) {
  Rng rng(20261204);
  for (int i = 0; i < 1000; ++i) {
    std::string body = R"({"rules": "strict", "records": [)";
    for (int n = static_cast<int>(rng.UniformInt(1, 3)), k = 0; k < n; ++k) {
      body += (k > 0 ? ", " : "") + MutateJson(rng, kValid[rng.UniformInt(0, 2)]);
    }
    ExpectRecordsReadAsNlohmann(body + "]}");
  }
  // What simdjson refuses and nlohmann reads: a byte-order mark, an integer past 64 bits.
  ExpectRecordsReadAsNlohmann("\xef\xbb\xbf{\"records\": [" + std::string(kValid[0]) + "]}");
  ExpectRecordsReadAsNlohmann(R"({"n": 123456789012345678901234567890, "records": [)" +
                              std::string(kValid[1]) + "]}");
  for (const char* body : {"[]", "3", "{}", R"({"records": null})", R"({"records": {}})",
                           R"({"records": [], "records": [1]})", R"({"records": [5]})"}) {
    ExpectRecordsReadAsNlohmann(body);
  }
  std::vector<ScoredRecord> records;
  nlohmann::json members;
  EXPECT_EQ(RecordsFromJsonText(R"({"records": {}})", "records", &records, &members).message(),
            "records: expected an array of records, found object");
  EXPECT_EQ(RecordsFromJsonText("[]", "records", &records, &members).message(),
            "expected a JSON object with \"records\", found array");
}

TEST(RecordReaderTest, SamplesKeepTheirLine) {
  TempDir dir;
  const std::string path = dir.path() + "/s.jsonl";
  WriteFileOrDie(path, std::string(kValid[2]) + "\n\n{\"id\": 1}\n");
  auto reader = RecordReader::Open(path);
  ASSERT_TRUE(reader.ok());
  Sample s;
  std::string_view line;
  std::string problem;
  ASSERT_EQ((*reader)->NextSample(&s, &line, &problem), JsonlReader::Result::kRecord);
  EXPECT_EQ(line, kValid[2]);
  EXPECT_EQ(DumpJsonLine(SampleToJson(s)),
            DumpJsonLine(SampleToJson(*SampleFromJson(nlohmann::json::parse(kValid[2])))));
  ASSERT_EQ((*reader)->NextSample(&s, &line, &problem), JsonlReader::Result::kBadLine);
  EXPECT_EQ(problem, path + ":3: missing field 'domain'");
  EXPECT_EQ((*reader)->NextSample(&s, &line, &problem), JsonlReader::Result::kEnd);
}

// Up to `max_pieces` pieces of text that escape, of UTF-8 and of invalid UTF-8.
std::string RandomText(Rng& rng, int max_pieces) {
  static const std::string pieces[] = {"a", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f", "é",
                                       "\xF0\x9F\x98\x80", "\xFF", "\xED\xA0\x80", " ", "'"};
  std::string s;
  const int n = static_cast<int>(rng.UniformInt(0, max_pieces));
  for (int i = 0; i < n; ++i) s += pieces[static_cast<size_t>(rng.UniformInt(0, 13))];
  return s;
}

TEST(VerdictLineTest, SameBytesAsNlohmann) {
  Rng rng(7);
  auto random_text = [&] { return RandomText(rng, 12); };
  for (int i = 0; i < 3000; ++i) {
    Sample s;
    s.id = random_text();
    s.domain = i % 7 == 0 ? random_text() : "math";
    s.subtask = "math_easy";
    const std::string reason = random_text();
    Verdict v;
    v.pass = rng.UniformInt(0, 1) == 1;
    v.reason = reason;
    v.rules_version = "paper-2";
    if (rng.UniformInt(0, 1) == 1) v.format = rng.UniformInt(0, 1) == 1;
    if (rng.UniformInt(0, 1) == 1) v.accuracy = rng.UniformInt(0, 1) == 1;
    // Rules with any text (scores of every fraction up to 1/7), or none.
    const int rules = static_cast<int>(rng.UniformInt(0, 7));
    for (int k = 0; k < rules; ++k) {
      v.checks.push_back({i % 5 == 0 ? random_text() : "rule-" + std::to_string(k),
                          static_cast<RuleCheck::Result>(rng.UniformInt(0, 2)), random_text()});
    }
    std::string fast = "earlier line\n";  // appended, as to a writer's buffer
    AppendVerdictLine(s, v, &fast);
    EXPECT_EQ(fast, "earlier line\n" + DumpJsonLine(VerdictToJson(s, v)) + "\n") << i;

    std::string error_line;
    AppendScoreErrorLine(s, reason, RuleSet::kStrict, &error_line);
    const nlohmann::json j = {{"id", s.id},
                              {"domain", s.domain},
                              {"subtask", s.subtask},
                              {"error", reason},
                              {"rules", "strict"}};
    EXPECT_EQ(error_line, DumpJsonLine(j) + "\n") << i;
  }
}

// A sample's JSON and its head are the same bytes as nlohmann writes them, invalid
// UTF-8 included (U+FFFD), and the head reads back as the sample without its prompt.
TEST(SampleJsonTest, WholeAndHeadAreNlohmannBytes) {
  Rng rng(11);
  auto random_text = [&] { return RandomText(rng, 10); };
  for (int i = 0; i < 2000; ++i) {
    Sample s;
    s.id = random_text();
    s.domain = i % 5 == 0 ? random_text() : "summarization";
    s.subtask = "length";
    s.params = {{"n_sentences", i % 9}, {"ratio", 0.5 * i}};
    s.context = {{"document_id", i}, {"start_tag", "<summary>"}};
    s.messages = {{"user", random_text()}, {"assistant", random_text()}};
    s.target = i % 3 == 0 ? nlohmann::json() : nlohmann::json({{"answer", "x"}});
    nlohmann::json whole = SampleToJson(s);
    std::string fast;
    AppendSampleJson(s, &fast);
    EXPECT_EQ(fast, DumpJsonLine(whole)) << i;

    nlohmann::json head = whole;
    head.erase("messages");
    head.erase("target");
    std::string fast_head;
    AppendSampleHeadJson(s, &fast_head);
    EXPECT_EQ(fast_head, DumpJsonLine(head)) << i;
    auto back = SampleFromJsonText(fast_head, nullptr, /*with_prompt=*/false);
    ASSERT_TRUE(back.ok()) << back.status().message();
    auto whole_back = SampleFromJsonText(fast, nullptr, /*with_prompt=*/false);
    ASSERT_TRUE(whole_back.ok()) << whole_back.status().message();
    EXPECT_EQ(DumpJsonLine(SampleToJson(*back)), DumpJsonLine(SampleToJson(*whole_back))) << i;
  }
}

}  // namespace
}  // namespace structtest
