// Streaming JSON Lines input and output. Records are read one at a time, so memory
// stays flat in the number of records. A malformed line does not stop the stream: it is
// reported as "FILE:LINE: problem" and the reader moves on.
#ifndef STRUCTTEST_CORE_JSONL_H_
#define STRUCTTEST_CORE_JSONL_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "structtest/status.h"

namespace structtest {

class JsonlReader {
 public:
  // Opens `path` ("-" is standard input). Errors name the file.
  static StatusOr<std::unique_ptr<JsonlReader>> Open(const std::string& path);
  ~JsonlReader();

  enum class Result { kRecord, kBadLine, kEnd };
  // Reads the next non-blank line. kRecord: *record holds it. kBadLine: *problem is
  // "FILE:LINE: what is wrong" and the line is skipped. kEnd: no more lines, or a read
  // error (then io_error() is set).
  Result Next(nlohmann::json* record, std::string* problem);

  // The next non-blank line as it is, without its newline: valid until the next call,
  // with at least kLinePadding readable bytes after it (what simdjson needs to parse
  // it in place). kBadLine only for a line longer than kMaxLineBytes.
  Result NextLine(std::string_view* line, std::string* problem);
  static constexpr size_t kLinePadding = 64;

  // "FILE:LINE: invalid JSON: what nlohmann's parser says", for the line last
  // returned, which nlohmann refuses.
  std::string InvalidJsonProblem(std::string_view line) const;

  // 1-based number of the line last returned.
  int64_t line_number() const { return line_; }
  const std::string& path() const { return path_; }
  // Set when reading stopped on an I/O error rather than end of file.
  const Status& io_error() const { return io_error_; }

  // Longest accepted line; longer lines are reported as bad and skipped.
  static constexpr size_t kMaxLineBytes = size_t{256} << 20;

 private:
  JsonlReader(std::string path, FILE* f, bool owned);
  // The next line (blank ones too) in *line; false at the end or on a read error.
  bool ReadLine(std::string_view* line, bool* too_long);
  // Reads more of the file into buf_; false at the end or on an error.
  bool Fill();

  std::string path_;
  FILE* file_;
  bool owned_;
  int64_t line_ = 0;
  Status io_error_;
  // buf_[begin_, end_) is read and not yet returned; buf_ keeps kLinePadding bytes
  // beyond end_.
  std::string buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
};

// InvalidArgument when `output` is the file `input` (the same path, a link to it, or
// another name for it): opening the output truncates it, and with it what was to be
// read. "-" (standard input or output) and an output that does not exist yet pass.
Status CheckOutputIsNotInput(const std::string& input, const std::string& output);

// Writes one JSON value per line. Invalid UTF-8 in strings is replaced by U+FFFD
// rather than failing the whole output.
class JsonlWriter {
 public:
  // Creates/truncates `path` ("-" is standard output).
  static StatusOr<std::unique_ptr<JsonlWriter>> Open(const std::string& path);
  ~JsonlWriter();
  Status Write(const nlohmann::json& record);
  // Writes `line`, which must end in a newline, as it is (buffered).
  Status WriteLine(std::string_view line);
  // Or lines appended in place here, ending in newlines, then FlushIfFull(): without
  // the copy of each line.
  std::string* buffer() { return &buffer_; }
  Status FlushIfFull() { return buffer_.size() >= kFlushAt ? Flush() : Status::Ok(); }
  // Flushes and closes; reports a write error (disk full) naming the file.
  Status Close();

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;  // buffered bytes
  JsonlWriter(std::string path, FILE* f, bool owned);
  Status Flush();
  std::string path_;
  FILE* file_;
  bool owned_;
  std::string buffer_;
};

// What is wrong with `text`, which is not JSON: where a NUL byte is, else nlohmann's
// description ("parse error at line 1, column 5: ...").
std::string DescribeInvalidJson(std::string_view text);

// JSON text of `j` on one line, invalid UTF-8 replaced.
std::string DumpJsonLine(const nlohmann::json& j);
// Appends DumpJsonLine(j) to `*out`, byte for byte, without nlohmann's serializer for
// the strings and structure (the strings go through AppendJsonString).
void AppendJson(const nlohmann::json& j, std::string* out);

// Appends `s` to `*out` as a quoted JSON string, byte for byte what nlohmann's dump()
// writes for it (no ASCII escaping), but without building a json value: the hot path
// of request bodies. Returns false, appending nothing, when `s` is not valid UTF-8;
// the caller then goes through nlohmann with its replacement handler.
bool AppendJsonString(std::string_view s, std::string* out);
// AppendJsonString in two steps, for writers that size a whole line first: the size
// of `s` as a JSON string, quotes included (0 when `s` is not valid UTF-8); and the
// writing of those `size` bytes at `p`, which returns their end.
size_t JsonStringSize(std::string_view s);
char* WriteJsonString(std::string_view s, size_t size, char* p);
// Or in one pass, where room for the longest escape is cheap to give: writes `s` as a
// JSON string at p, which has room for JsonStringBound(s.size()) bytes; returns the
// end, or nullptr (what was written is garbage then) when `s` is not valid UTF-8.
constexpr size_t JsonStringBound(size_t n) { return 6 * n + 2; }
char* WriteJsonStringUnsized(std::string_view s, char* p);

}  // namespace structtest

#endif  // STRUCTTEST_CORE_JSONL_H_
