#include "core/jsonl.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <stdio.h>
#include <unistd.h>

#include <fmt/format.h>

namespace structtest {

StatusOr<std::unique_ptr<JsonlReader>> JsonlReader::Open(const std::string& path) {
  if (path == "-") {
    return std::unique_ptr<JsonlReader>(new JsonlReader("<stdin>", stdin, false));
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Status::IoError(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  return std::unique_ptr<JsonlReader>(new JsonlReader(path, f, true));
}

JsonlReader::JsonlReader(std::string path, FILE* f, bool owned)
    : path_(std::move(path)), file_(f), owned_(owned) {}

JsonlReader::~JsonlReader() {
  if (owned_) std::fclose(file_);
}

bool JsonlReader::Fill() {
  if (eof_) return false;
  constexpr size_t kChunk = size_t{1} << 20;
  if (begin_ > 0) {  // keep the unread tail at the front
    // Moved within the buffer, which keeps its size: shrinking it and growing it back
    // would zero a chunk's worth of bytes on every read.
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() < end_ + kChunk + kLinePadding) buf_.resize(end_ + kChunk + kLinePadding);
  // read(2), not fread: a pipe's records are taken as they come.
  ssize_t n;
  do {
    n = ::read(fileno(file_), buf_.data() + end_, kChunk);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    if (n < 0) {
      io_error_ = Status::IoError(fmt::format("{}: read error: {}", path_,
                                              std::strerror(errno)));
    }
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(n);
  return true;
}

bool JsonlReader::ReadLine(std::string_view* line, bool* too_long) {
  // Lines are found with memchr, so NUL bytes inside a line survive.
  *too_long = false;
  size_t scanned = begin_;
  for (;;) {
    const char* nl = static_cast<const char*>(
        std::memchr(buf_.data() + scanned, '\n', end_ - scanned));
    if (nl != nullptr) {
      const size_t e = static_cast<size_t>(nl - buf_.data());
      ++line_;
      *line = std::string_view(buf_.data() + begin_, e - begin_);
      begin_ = e + 1;
      if (*too_long) *line = {};
      return true;
    }
    if (end_ - begin_ > kMaxLineBytes) {
      // Drop what was read of the long line and go on to its end.
      *too_long = true;
      begin_ = end_ = 0;
    }
    const size_t unread = end_ - begin_;
    if (!Fill()) {
      if (end_ == begin_ && !*too_long) return false;
      ++line_;  // a last line without a newline
      *line = *too_long ? std::string_view() : std::string_view(buf_.data() + begin_, end_ - begin_);
      begin_ = end_;
      return true;
    }
    scanned = unread;  // Fill() moved the unread bytes to the front
  }
}

JsonlReader::Result JsonlReader::NextLine(std::string_view* line, std::string* problem) {
  bool too_long;
  while (ReadLine(line, &too_long)) {
    if (too_long) {
      *problem = fmt::format("{}:{}: line longer than {} bytes", path_, line_,
                             kMaxLineBytes);
      return Result::kBadLine;
    }
    size_t b = 0;
    while (b < line->size() && ((*line)[b] == ' ' || (*line)[b] == '\t' ||
                                (*line)[b] == '\r' || (*line)[b] == '\n')) {
      ++b;
    }
    if (b == line->size()) continue;  // blank line
    return Result::kRecord;
  }
  return Result::kEnd;
}

std::string DescribeInvalidJson(std::string_view text) {
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return fmt::format("a NUL byte at column {}", nul + 1);
  }
  // Parse again with exceptions to get the parser's description of the problem.
  std::string what = "not valid JSON";
  try {
    const auto reparsed = nlohmann::json::parse(text);
    (void)reparsed;
  } catch (const nlohmann::json::exception& e) {
    what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    if (const size_t p = what.find("] "); p != std::string::npos) {
      what = what.substr(p + 2);
    }
  }
  return what;
}

std::string JsonlReader::InvalidJsonProblem(std::string_view line) const {
  // NUL bytes (a file cut short by a crash, or a binary file) say so, and where.
  const bool nul = line.find('\0') != std::string_view::npos;
  return fmt::format("{}:{}: invalid JSON: {}{}", path_, line_, DescribeInvalidJson(line),
                     nul ? " (a binary or damaged file?)" : "");
}

JsonlReader::Result JsonlReader::Next(nlohmann::json* record, std::string* problem) {
  std::string_view line;
  const Result r = NextLine(&line, problem);
  if (r != Result::kRecord) return r;
  *record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (record->is_discarded()) {
    *problem = InvalidJsonProblem(line);
    return Result::kBadLine;
  }
  return Result::kRecord;
}

Status CheckOutputIsNotInput(const std::string& input, const std::string& output) {
  if (input == "-" || output == "-") return Status::Ok();
  std::error_code ec;  // an output that cannot be looked at is Open's to report
  if (!std::filesystem::equivalent(input, output, ec) || ec) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{}: the output is the input file {}: writing it would destroy it before it is "
      "read; write the output to another file",
      output, input));
}

StatusOr<std::unique_ptr<JsonlWriter>> JsonlWriter::Open(const std::string& path) {
  if (path == "-") {
    return std::unique_ptr<JsonlWriter>(new JsonlWriter("<stdout>", stdout, false));
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Status::IoError(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  return std::unique_ptr<JsonlWriter>(new JsonlWriter(path, f, true));
}

JsonlWriter::JsonlWriter(std::string path, FILE* f, bool owned)
    : path_(std::move(path)), file_(f), owned_(owned) {
  buffer_.reserve(kFlushAt + (size_t{64} << 10));  // most lines are far shorter
}

JsonlWriter::~JsonlWriter() {
  if (file_ == nullptr) return;
  (void)Flush();  // Close() reports errors; a writer dropped without it writes what it has
  if (owned_) std::fclose(file_);
}

std::string DumpJsonLine(const nlohmann::json& j) {
  std::string out;
  AppendJson(j, &out);
  return out;
}

void AppendJson(const nlohmann::json& j, std::string* out) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (const auto& [key, value] : j.items()) {
        if (!first) out->push_back(',');
        first = false;
        if (!AppendJsonString(key, out)) {
          *out += nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
        out->push_back(':');
        AppendJson(value, out);
      }
      out->push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out->push_back('[');
      for (size_t i = 0; i < j.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJson(j[i], out);
      }
      out->push_back(']');
      return;
    }
    case nlohmann::json::value_t::string:
      if (AppendJsonString(j.get_ref<const std::string&>(), out)) return;
      break;
    case nlohmann::json::value_t::boolean:
      out->append(j.get<bool>() ? "true" : "false");
      return;
    case nlohmann::json::value_t::null:
      out->append("null");
      return;
    case nlohmann::json::value_t::number_integer:
      fmt::format_to(std::back_inserter(*out), "{}", j.get<int64_t>());
      return;
    case nlohmann::json::value_t::number_unsigned:
      fmt::format_to(std::back_inserter(*out), "{}", j.get<uint64_t>());
      return;
    default:  // floats (nlohmann's own shortest form), binary, discarded
      break;
  }
  *out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status JsonlWriter::Write(const nlohmann::json& record) {
  buffer_ += DumpJsonLine(record);
  buffer_.push_back('\n');
  return FlushIfFull();
}

Status JsonlWriter::WriteLine(std::string_view line) {
  buffer_.append(line);
  return FlushIfFull();
}

Status JsonlWriter::Flush() {
  const size_t n = buffer_.size();
  const size_t written = std::fwrite(buffer_.data(), 1, n, file_);
  buffer_.clear();
  if (written != n) {
    return Status::IoError(fmt::format("{}: write error: {}", path_, std::strerror(errno)));
  }
  return Status::Ok();
}

Status JsonlWriter::Close() {
  if (file_ == nullptr) return Status::Ok();
  const Status flushed = Flush();
  int rc = std::fflush(file_);
  if (owned_ && std::fclose(file_) != 0) rc = EOF;
  file_ = nullptr;
  if (!flushed.ok()) return flushed;
  if (rc != 0) {
    return Status::IoError(fmt::format("{}: write error: {}", path_, std::strerror(errno)));
  }
  return Status::Ok();
}

namespace {

// The length of the valid UTF-8 sequence at s[i] (a lead byte >= 0x80), or 0.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

// The bytes the escape of ASCII byte `c` adds to it: 1 for \" \\ \b \f \n \r \t, 5 for
// \u00XX, 0 when it needs none.
inline size_t EscapeExtra(unsigned char c) {
  if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
    return 1;
  }
  return c < 0x20 ? 5 : 0;
}

// Whether byte `c` is one an escape replaces (a control character, '"' or '\\') or
// one of a multi-byte UTF-8 sequence.
inline bool IsSpecial(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

// Writes the escape of ASCII byte `c` (one that needs one) at p; returns the end.
inline char* WriteEscape(unsigned char c, char* p) {
  *p++ = '\\';
  switch (c) {
    case '"': *p++ = '"'; break;
    case '\\': *p++ = '\\'; break;
    case '\b': *p++ = 'b'; break;
    case '\f': *p++ = 'f'; break;
    case '\n': *p++ = 'n'; break;
    case '\r': *p++ = 'r'; break;
    case '\t': *p++ = 't'; break;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      *p++ = 'u';
      *p++ = '0';
      *p++ = '0';
      *p++ = kHex[c >> 4];
      *p++ = kHex[c & 15];
    }
  }
  return p;
}

// The index of the first byte from `i` that IsSpecial, or s.size(): most text has
// none, and is looked at 16 bytes at a time.
inline size_t FindSpecial(std::string_view s, size_t i) {
  const char* p = s.data();
  const size_t n = s.size();
#if defined(__SSE2__)
  const auto mask = [](const char* at) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // A signed compare: bytes >= 0x80 are negative, so "< 0x20" takes them too.
    const __m128i control = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
    const __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))));
  };
  for (; i + 16 <= n; i += 16) {
    if (const unsigned m = mask(p + i); m != 0) return i + static_cast<size_t>(__builtin_ctz(m));
  }
  if (i < n && n >= 16) {  // the last 16 bytes, overlapping the ones looked at
    const size_t from = n - 16;
    const unsigned m = mask(p + from) >> (i - from);
    return m != 0 ? i + static_cast<size_t>(__builtin_ctz(m)) : n;
  }
  if (i < n) {  // a string shorter than 16 bytes: looked at in a copy padded with 'a'
    char padded[16];
    std::memset(padded, 'a', sizeof padded);
    std::memcpy(padded, p + i, n - i);
    const unsigned m = mask(padded);
    return m != 0 ? i + static_cast<size_t>(__builtin_ctz(m)) : n;
  }
#endif
  for (; i < n; ++i) {
    if (IsSpecial(static_cast<unsigned char>(p[i]))) return i;
  }
  return n;
}

}  // namespace

size_t JsonStringSize(std::string_view s) {
  size_t extra = 0;
  for (size_t i = 0; i < s.size();) {
    i = FindSpecial(s, i);  // most text needs no escaping
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(s, i);
      if (n == 0) return 0;
      i += n;
      continue;
    }
    extra += EscapeExtra(c);
    ++i;
  }
  return s.size() + extra + 2;
}

char* WriteJsonString(std::string_view s, size_t size, char* p) {
  // With something to escape, the one-pass writer: JsonStringSize found s valid UTF-8.
  if (size != s.size() + 2) return WriteJsonStringUnsized(s, p);
  *p++ = '"';
  std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '"';
  return p;
}

char* WriteJsonStringUnsized(std::string_view s, char* p) {
  *p++ = '"';
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size();) {
    i = FindSpecial(s, i);
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(s, i);
      if (n == 0) return nullptr;
      i += n;  // copied with the run
      continue;
    }
    std::memcpy(p, s.data() + run, i - run);
    p += i - run;
    p = WriteEscape(c, p);
    run = ++i;
  }
  std::memcpy(p, s.data() + run, s.size() - run);
  p += s.size() - run;
  *p++ = '"';
  return p;
}

bool AppendJsonString(std::string_view s, std::string* out) {
  // The length of the result first, which also checks the UTF-8; then the bytes,
  // written in place: one resize instead of a call per piece.
  const size_t size = JsonStringSize(s);
  if (size == 0) return false;
  const size_t at = out->size();
  out->resize(at + size);
  WriteJsonString(s, size, out->data() + at);
  return true;
}

}  // namespace structtest

