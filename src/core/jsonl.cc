#include "core/jsonl.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <stdio.h>

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

bool JsonlReader::ReadLine(std::string* line, bool* too_long) {
  // POSIX getline: returns the true length, so NUL bytes inside a line survive.
  char* buf = nullptr;
  size_t cap = 0;
  errno = 0;
  const ssize_t n = ::getline(&buf, &cap, file_);
  if (n < 0) {
    std::free(buf);
    if (std::ferror(file_)) {
      io_error_ = Status::IoError(fmt::format("{}: read error: {}", path_,
                                              std::strerror(errno)));
    }
    return false;
  }
  ++line_;
  *too_long = static_cast<size_t>(n) > kMaxLineBytes;
  if (*too_long) {
    line->clear();
  } else {
    line->assign(buf, static_cast<size_t>(n));
  }
  std::free(buf);
  return true;
}

JsonlReader::Result JsonlReader::Next(nlohmann::json* record, std::string* problem) {
  std::string line;
  bool too_long;
  while (ReadLine(&line, &too_long)) {
    if (too_long) {
      *problem = fmt::format("{}:{}: line longer than {} bytes", path_, line_,
                             kMaxLineBytes);
      return Result::kBadLine;
    }
    size_t b = 0;
    while (b < line.size() && (line[b] == ' ' || line[b] == '\t' || line[b] == '\r' ||
                               line[b] == '\n')) {
      ++b;
    }
    if (b == line.size()) continue;  // blank line
    *record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record->is_discarded()) {
      // Parse again with exceptions to get the parser's description of the problem.
      std::string what = "not valid JSON";
      try {
        const auto reparsed = nlohmann::json::parse(line);
        (void)reparsed;
      } catch (const nlohmann::json::exception& e) {
        what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
        if (const size_t p = what.find("] "); p != std::string::npos) {
          what = what.substr(p + 2);
        }
      }
      *problem = fmt::format("{}:{}: invalid JSON: {}", path_, line_, what);
      return Result::kBadLine;
    }
    return Result::kRecord;
  }
  return Result::kEnd;
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
    : path_(std::move(path)), file_(f), owned_(owned) {}

JsonlWriter::~JsonlWriter() {
  if (file_ != nullptr && owned_) std::fclose(file_);
}

std::string DumpJsonLine(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status JsonlWriter::Write(const nlohmann::json& record) {
  buffer_ = DumpJsonLine(record);
  buffer_.push_back('\n');
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return Status::IoError(fmt::format("{}: write error: {}", path_, std::strerror(errno)));
  }
  return Status::Ok();
}

Status JsonlWriter::Close() {
  if (file_ == nullptr) return Status::Ok();
  int rc = std::fflush(file_);
  if (owned_ && std::fclose(file_) != 0) rc = EOF;
  file_ = nullptr;
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

}  // namespace

bool AppendJsonString(std::string_view s, std::string* out) {
  const size_t mark = out->size();
  out->reserve(out->size() + s.size() + 2);
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out->resize(mark);
        return false;
      }
      i += n;
      continue;
    }
    out->append(s.data() + run, i - run);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out->append(esc, sizeof esc);
      }
    }
    run = ++i;
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
  return true;
}

}  // namespace structtest

