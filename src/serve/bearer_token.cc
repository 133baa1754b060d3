#include "serve/bearer_token.h"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace structtest {

namespace {

constexpr size_t kMaxTokenFileBytes = 4096;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

// Closes a descriptor on every path out of ReadTokenFile.
class TokenFd {
 public:
  explicit TokenFd(int fd) : fd_(fd) {}
  ~TokenFd() {
    if (fd_ >= 0) close(fd_);
  }
  TokenFd(const TokenFd&) = delete;
  TokenFd& operator=(const TokenFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

StatusOr<std::string> CleanToken(std::string_view text, std::string_view where) {
  const std::string_view token = TrimBlanks(text);
  if (token.empty()) return Status::InvalidArgument(fmt::format("{}: the token is empty", where));
  if (token.size() > kMaxTokenFileBytes) {
    return Status::InvalidArgument(
        fmt::format("{}: the token is over {} bytes", where, kMaxTokenFileBytes));
  }
  for (const char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return Status::InvalidArgument(fmt::format(
          "{}: the token holds a space, a control or a non-ASCII character: a token is one "
          "word of visible ASCII characters (e.g. `openssl rand -hex 32`)",
          where));
    }
  }
  return std::string(token);
}

StatusOr<std::string> ReadTokenFile(const std::string& path) {
  const std::string where = fmt::format("token file {}", path);
  // O_NONBLOCK: a FIFO named by mistake must not hang the start; it is refused below.
  TokenFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return Status::IoError(fmt::format("{}: {}", where, std::strerror(errno)));
  // The checks are of the file opened, not of whatever the path names a moment later.
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) {
    return Status::IoError(fmt::format("{}: {}", where, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(fmt::format("{}: not a regular file", where));
  }
  if ((st.st_mode & 077) != 0) {
    return Status::InvalidArgument(fmt::format(
        "{}: mode {:04o} lets users other than its owner read or write it; `chmod 600 {}` "
        "(or pass the token in $STRUCTTEST_SERVE_TOKEN)",
        where, st.st_mode & 07777, path));
  }
  if (static_cast<size_t>(st.st_size) > kMaxTokenFileBytes) {
    return Status::InvalidArgument(
        fmt::format("{}: {} bytes; a token file holds one token of at most {} bytes", where,
                    st.st_size, kMaxTokenFileBytes));
  }
  std::string text(kMaxTokenFileBytes + 1, '\0');
  size_t size = 0;
  while (size < text.size()) {
    const ssize_t n = read(fd.get(), text.data() + size, text.size() - size);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(fmt::format("{}: {}", where, std::strerror(errno)));
    }
    size += static_cast<size_t>(n);
  }
  if (size > kMaxTokenFileBytes) {
    return Status::InvalidArgument(fmt::format(
        "{}: over {} bytes; a token file holds one token", where, kMaxTokenFileBytes));
  }
  if (TrimBlanks(std::string_view(text.data(), size)).empty()) {
    return Status::InvalidArgument(fmt::format("{}: the file is empty (or only blanks)", where));
  }
  return CleanToken(std::string_view(text.data(), size), where);
}

bool BearerMatches(const char* authorization, std::string_view token) {
  assert(!token.empty() && "BearerMatches with an empty token");
  if (authorization == nullptr) return false;
  std::string_view value = TrimBlanks(authorization);
  constexpr std::string_view kScheme = "Bearer";
  if (value.size() <= kScheme.size() ||
      strncasecmp(value.data(), kScheme.data(), kScheme.size()) != 0 ||
      !IsBlank(value[kScheme.size()])) {
    return false;
  }
  const std::string_view presented = TrimBlanks(value.substr(kScheme.size()));
  // Every byte presented is compared, whatever the earlier ones were: no early exit, and
  // a length that differs is folded into the same result.
  unsigned diff = presented.size() == token.size() ? 0u : 1u;
  for (size_t i = 0; i < presented.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i]) ^
            static_cast<unsigned char>(token[i % token.size()]);
  }
  return diff == 0;
}

}  // namespace structtest
