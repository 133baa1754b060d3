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

}  // namespace structtest
