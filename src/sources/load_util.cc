#include "sources/load_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/file_util.h"
#include "core/pytext.h"

namespace structtest::internal {

StatusOr<std::string> ReadWholeFile(const std::string& path, size_t max_bytes) {
  StatusOr<std::string> data = ReadFileToString(path, max_bytes);
  if (data.ok()) return data;
  const Status& s = data.status();
  // A file that cannot be opened is an IoError here, missing or not.
  return Status(s.code() == StatusCode::kNotFound ? StatusCode::kIoError : s.code(),
                fmt::format("{}: {}", path, s.message()));
}

bool IsValidUtf8(std::string_view s, size_t* bad_offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    uint32_t min = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07, min = 0x10000;
    } else {
      *bad_offset = i;
      return false;
    }
    if (i + len > n) {
      *bad_offset = i;
      return false;
    }
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) {
        *bad_offset = i;
        return false;
      }
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      *bad_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

namespace {

int64_t LineAt(std::string_view value, int64_t line, size_t offset) {
  for (size_t i = 0; i < offset && i < value.size(); ++i) line += value[i] == '\n' ? 1 : 0;
  return line;
}

}  // namespace

Status CheckText(std::string_view value, std::string_view file, int64_t line,
                 std::string_view what) {
  size_t bad = 0;
  if (!IsValidUtf8(value, &bad)) {
    return Status::InvalidArgument(
        fmt::format("{}:{}: {} is not valid UTF-8 (byte 0x{:02x})", file,
                    LineAt(value, line, bad), what, static_cast<unsigned char>(value[bad])));
  }
  if (const size_t nul = value.find('\0'); nul != std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("{}:{}: {} contains a NUL character", file,
                                               LineAt(value, line, nul), what));
  }
  return Status::Ok();
}

std::string NormalizeText(std::string_view s) {
  return ReplaceAll(PyStrip(s), "\r\n", "\n");
}

std::string_view StripBom(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  return s;
}

}  // namespace structtest::internal
