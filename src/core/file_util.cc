#include "core/file_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace structtest {

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return Status::IoError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  }
  const bool written = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = !written ? write_errno : errno;
    std::remove(tmp.c_str());
    return Status::IoError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
  }
  return Status::Ok();
}

StatusOr<std::string> ReadFileToString(const std::string& path, size_t max_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    return err == ENOENT ? Status::NotFound(std::strerror(err)) : Status::IoError(std::strerror(err));
  }
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (data.size() + n > max_bytes) {
      std::fclose(f);
      return Status::InvalidArgument(fmt::format("file is larger than {} bytes", max_bytes));
    }
    data.append(buf, n);
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) return Status::IoError(fmt::format("read error: {}", std::strerror(err)));
  return data;
}

}  // namespace structtest
