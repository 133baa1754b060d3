#include "testing/serve_testing.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>
#include <gnutls/gnutls.h>

#include "core/status_macros.h"

extern char** environ;

namespace structtest {

struct ServeClient::Tls {
  gnutls_certificate_credentials_t credentials = nullptr;
  gnutls_session_t session = nullptr;  // of the open connection
  ~Tls() {
    if (session != nullptr) gnutls_deinit(session);
    if (credentials != nullptr) gnutls_certificate_free_credentials(credentials);
  }
};

namespace {

// GnuTLS writes with send(2) through this, so that a server that hung up makes the
// write fail instead of raising SIGPIPE.
ssize_t PushNoSignal(gnutls_transport_ptr_t fd, const void* data, size_t size) {
  return send(static_cast<int>(reinterpret_cast<intptr_t>(fd)), data, size, MSG_NOSIGNAL);
}

}  // namespace

ServeClient::ServeClient(std::string host, int port) : host_(std::move(host)), port_(port) {}

Status ServeClient::UseTls(const std::string& ca_file) {
  auto tls = std::make_unique<Tls>();
  if (int rc = gnutls_certificate_allocate_credentials(&tls->credentials); rc < 0) {
    return Status::Internal(fmt::format("gnutls: {}", gnutls_strerror(rc)));
  }
  const int n = gnutls_certificate_set_x509_trust_file(tls->credentials, ca_file.c_str(),
                                                      GNUTLS_X509_FMT_PEM);
  if (n <= 0) {
    return Status::InvalidArgument(fmt::format("{}: no certificate ({})", ca_file,
                                               n < 0 ? gnutls_strerror(n) : "none found"));
  }
  Close();
  tls_ = std::move(tls);
  return Status::Ok();
}

std::string HttpReply::Header(std::string_view name) const {
  size_t start = 0;
  while (start < headers.size()) {
    size_t end = headers.find("\r\n", start);
    if (end == std::string::npos) end = headers.size();
    const std::string_view line(headers.data() + start, end - start);
    if (const size_t colon = line.find(':');
        colon == name.size() && strncasecmp(line.data(), name.data(), name.size()) == 0) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      return std::string(value);
    }
    start = end + 2;
  }
  return "";
}

ServeClient::~ServeClient() { Close(); }

void ServeClient::Close() {
  if (tls_ != nullptr && tls_->session != nullptr) {
    gnutls_deinit(tls_->session);
    tls_->session = nullptr;
  }
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Status ServeClient::Connect() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host_.c_str(), std::to_string(port_).c_str(), &hints, &found); rc != 0) {
    return Status::Unavailable(fmt::format("{}:{}: {}", host_, port_, gai_strerror(rc)));
  }
  std::string error = "no address";
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    fd_ = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ >= 0 && connect(fd_, a->ai_addr, a->ai_addrlen) != 0) {
      error = std::strerror(errno);
      Close();
    }
  }
  freeaddrinfo(found);
  if (fd_ < 0) return Status::Unavailable(fmt::format("{}:{}: {}", host_, port_, error));
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (tls_ == nullptr) return Status::Ok();
  gnutls_session_t& session = tls_->session;
  int rc = gnutls_init(&session, GNUTLS_CLIENT);
  if (rc >= 0) rc = gnutls_set_default_priority(session);
  if (rc >= 0) rc = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, tls_->credentials);
  if (rc >= 0) {
    gnutls_session_set_verify_cert(session, host_.c_str(), 0);
    gnutls_transport_set_int(session, fd_);
    gnutls_transport_set_push_function(session, &PushNoSignal);
    do {
      rc = gnutls_handshake(session);
    } while (rc < 0 && gnutls_error_is_fatal(rc) == 0);
  }
  if (rc < 0) {
    Close();
    return Status::Unavailable(
        fmt::format("{}:{}: TLS handshake: {}", host_, port_, gnutls_strerror(rc)));
  }
  return Status::Ok();
}

ssize_t ServeClient::Receive(char* buf, size_t size) {
  if (tls_ == nullptr) return recv(fd_, buf, size, 0);
  for (;;) {
    const ssize_t n = gnutls_record_recv(tls_->session, buf, size);
    if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) continue;
    if (n == GNUTLS_E_PREMATURE_TERMINATION) return 0;  // closed without close_notify
    if (n < 0) {
      errno = ECONNRESET;
      return -1;
    }
    return n;
  }
}

StatusOr<HttpReply> ServeClient::Post(std::string_view path, std::string_view body) {
  std::string request = fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}\r\n{}Content-Type: application/json\r\nContent-Length: "
      "{}\r\n\r\n",
      path, host_, headers_, body.size());
  request += body;
  return Exchange(request, /*retry=*/true);
}

StatusOr<HttpReply> ServeClient::Get(std::string_view path) {
  return Exchange(fmt::format("GET {} HTTP/1.1\r\nHost: {}\r\n{}\r\n", path, host_, headers_),
                  /*retry=*/true);
}

StatusOr<HttpReply> ServeClient::SendRaw(std::string_view request,
                                         std::chrono::milliseconds pause, std::string_view rest) {
  Close();
  RETURN_IF_ERROR(Connect());
  Send(request);
  if (pause.count() > 0) std::this_thread::sleep_for(pause);
  Send(rest);
  return Read(request, /*reused=*/false, /*retry=*/false);
}

Status ServeClient::SendAndHangUp(std::string_view bytes) {
  Close();
  RETURN_IF_ERROR(Connect());
  Send(bytes);
  Close();
  return Status::Ok();
}

StatusOr<HttpReply> ServeClient::Exchange(std::string_view request, bool retry) {
  const bool reused = fd_ >= 0;
  if (!reused) RETURN_IF_ERROR(Connect());
  Send(request);
  return Read(request, reused, retry);
}

// A server may stop reading a body it refuses and reply at once: a failed send is not
// an error until no reply can be read.
void ServeClient::Send(std::string_view bytes) {
  for (size_t sent = 0; sent < bytes.size();) {
    ssize_t n;
    if (tls_ != nullptr) {
      n = gnutls_record_send(tls_->session, bytes.data() + sent, bytes.size() - sent);
      if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) continue;
    } else {
      n = send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    }
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

// One reply; when the connection was `reused` and closes before a byte of it, the
// request is sent again on a new one (once, with `retry`).
StatusOr<HttpReply> ServeClient::Read(std::string_view request, bool reused, bool retry) {
  std::string in;
  char buf[1 << 16];
  size_t header_end = std::string::npos;
  size_t body_size = std::string::npos;  // npos: until the connection closes
  for (;;) {
    if (header_end == std::string::npos) {
      header_end = in.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        HttpReply head;
        head.headers = in.substr(0, header_end);
        if (const std::string length = head.Header("Content-Length"); !length.empty()) {
          body_size = std::strtoull(length.c_str(), nullptr, 10);
        }
      }
    }
    if (header_end != std::string::npos && body_size != std::string::npos &&
        in.size() >= header_end + 4 + body_size) {
      break;
    }
    const ssize_t n = Receive(buf, sizeof buf);
    if (n > 0) {
      in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (header_end != std::string::npos && body_size == std::string::npos) break;
    Close();
    if (in.empty() && reused && retry) return Exchange(request, /*retry=*/false);
    return Status::Unavailable(fmt::format("{}:{}: connection closed after {} bytes of the "
                                           "reply",
                                           host_, port_, in.size()));
  }
  HttpReply reply;
  const size_t line_end = in.find("\r\n");
  if (in.compare(0, 9, "HTTP/1.1 ") != 0 && in.compare(0, 9, "HTTP/1.0 ") != 0) {
    Close();
    return Status::Internal("reply does not start with an HTTP status line");
  }
  reply.status = std::atoi(in.c_str() + 9);
  reply.headers = in.substr(line_end + 2, header_end - line_end - 2);
  reply.body = in.substr(header_end + 4, body_size);
  if (body_size == std::string::npos ||
      strcasecmp(reply.Header("Connection").c_str(), "close") == 0) {
    Close();
  }
  return reply;
}

ServeProcess::ServeProcess(const std::string& binary, const std::vector<std::string>& args,
                           const std::vector<std::string>& env) {
  std::vector<std::string> argv = {binary, "serve", "--port", "0"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> child_env = env;
  for (char** e = environ; *e != nullptr; ++e) child_env.emplace_back(*e);
  std::vector<char*> cenv;
  for (std::string& e : child_env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) {
    err_ = fmt::format("pipe: {}", std::strerror(errno));
    return;
  }
  // fork and exec rather than posix_spawn: the child is killed with the thread that
  // started it, so that a test killed on a timeout leaves no server behind. Between
  // the two, only async-signal-safe calls.
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(err[1], 2);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  if (pid_ < 0) err_ = fmt::format("fork: {}", std::strerror(errno));
  close(err[1]);
  err_fd_ = err[0];
  reader_ = std::thread([this] {
    char buf[4096];
    for (ssize_t n; (n = read(err_fd_, buf, sizeof buf)) > 0;) {
      MutexLock lock(&mu_);
      err_.append(buf, static_cast<size_t>(n));
      cv_.SignalAll();
    }
    MutexLock lock(&mu_);
    eof_ = true;
    cv_.SignalAll();
  });
  // "serving on http://HOST:PORT", https:// too, or [V6] for HOST.
  const std::string marker = "serving on http";
  MutexLock lock(&mu_);
  const auto whole_line = [&]() REQUIRES(mu_) {
    const size_t at = err_.find(marker);
    return at != std::string::npos && err_.find('\n', at) != std::string::npos;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!eof_ && !whole_line() && cv_.WaitUntil(&mu_, deadline)) {
  }
  if (!whole_line()) return;
  const size_t at = err_.find(marker);
  const size_t colon = err_.find_first_of(" (\n", err_.find("://", at) + 3);
  const size_t port_at = err_.rfind(':', colon);
  if (port_at != std::string::npos) port_ = std::atoi(err_.c_str() + port_at + 1);
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGKILL);
    Wait();
  }
  if (reader_.joinable()) reader_.join();
  if (err_fd_ >= 0) close(err_fd_);
}

void ServeProcess::Signal(int sig) {
  if (pid_ > 0 && !exited_) kill(pid_, sig);
}

int ServeProcess::Wait() {
  if (pid_ <= 0) return -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exited_ = true;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ServeProcess::err() {
  MutexLock lock(&mu_);
  return err_;
}

}  // namespace structtest
