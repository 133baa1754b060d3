// The fast path of the JSONL records structtest reads and writes in bulk. A record is
// parsed once, by simdjson's DOM parser (fully validating, so it refuses exactly what
// is not JSON), and its fields are taken straight from the parse; a line simdjson
// refuses that nlohmann still reads (a byte-order mark, an integer beyond 64 bits) is
// read through nlohmann instead, so every line is accepted, refused and read exactly
// as JsonlReader::Next + RecordFromJson / SampleFromJson read it, with the same
// messages. Verdict lines are written straight into a buffer, byte for byte what
// DumpJsonLine(VerdictToJson(...)) writes.
#ifndef STRUCTTEST_CORE_RECORD_IO_H_
#define STRUCTTEST_CORE_RECORD_IO_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/jsonl.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// Thread-safety: one reader per thread.
class RecordReader {
 public:
  // Opens `path` ("-" is standard input). Errors name the file.
  static StatusOr<std::unique_ptr<RecordReader>> Open(const std::string& path);
  ~RecordReader();

  using Result = JsonlReader::Result;
  // The next record in the score format (a sample plus "response" and, optionally,
  // "reasoning"). kBadLine: *problem is "FILE:LINE: what is wrong" (not JSON, or a
  // field missing or of the wrong type) and the line is skipped. kEnd: no more lines
  // or a read error (io_error()).
  Result NextRecord(ScoredRecord* record, std::string* problem);
  // The next sample in the format `structtest generate` writes (no response needed).
  // *line is the record's JSON text, valid until the next call.
  Result NextSample(Sample* sample, std::string_view* line, std::string* problem);

  int64_t line_number() const { return lines_->line_number(); }
  const std::string& path() const { return lines_->path(); }
  const Status& io_error() const { return lines_->io_error(); }

 private:
  class Parser;
  RecordReader(std::unique_ptr<JsonlReader> lines);
  std::unique_ptr<JsonlReader> lines_;
  std::unique_ptr<Parser> parser_;
};

// A JSON object holding an array of records in the score format under `key` (the body
// of a `structtest serve` request), read in one parse as RecordReader reads a line
// (simdjson; nlohmann where simdjson refuses the text): each record the same, refused
// with the same message. *members gets the object's other members. Errors
// (InvalidArgument): "not JSON: ..." (DescribeInvalidJson), not an object, `key`
// missing or not an array, "KEY[i]: ..." naming the first record that is not one.
Status RecordsFromJsonText(std::string_view text, std::string_view key,
                           std::vector<ScoredRecord>* records, nlohmann::json* members);

// Parses one JSON text the way RecordReader does (simdjson, nlohmann when simdjson
// refuses it) into the nlohmann value nlohmann's own parser gives; false when it is
// not JSON. For tests that compare the two paths.
bool ParseJsonLikeNlohmann(std::string_view text, nlohmann::json* out);


// Appends the messages as SampleToJson holds them, [{"content":...,"role":...},...]
// (nlohmann's key order and bytes), and returns true; false, with *out as it was, when
// a string is not valid UTF-8 (nlohmann writes U+FFFD for it instead).
bool AppendMessagesJson(std::span<const Message> messages, std::string* out);


// Appends the sample's head: its JSON without the messages and the target (what
// SampleFromJsonText reads with with_prompt = false), in the same key order and bytes.
void AppendSampleHeadJson(const Sample& sample, std::string* out);

// Appends DumpJsonLine(VerdictToJson(sample, verdict)) and a newline to *out.
void AppendVerdictLine(const Sample& sample, const Verdict& verdict, std::string* out);

// Appends the line `structtest score` writes for a record that could not be scored:
// {"domain", "error", "id", "rules", "subtask"} and a newline.
void AppendScoreErrorLine(const Sample& sample, std::string_view error, RuleSet rules,
                          std::string* out);

}  // namespace structtest

#endif  // STRUCTTEST_CORE_RECORD_IO_H_
