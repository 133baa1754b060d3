#include "testing/fake_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

namespace structtest::testing {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string_view Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

}  // namespace

std::string FakeHttpRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

FakeHttpServer::FakeHttpServer(FakeHandler handler) : handler_(std::move(handler)) {}

FakeHttpServer::~FakeHttpServer() { Stop(); }

std::string FakeHttpServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::vector<FakeHttpRequest> FakeHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

Status FakeHttpServer::Start() {
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) return Status::IoError("fake server: pipe");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::IoError("fake server: socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 256) != 0) {
    return Status::IoError(std::string("fake server: bind: ") + std::strerror(errno));
  }
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void FakeHttpServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_ || listen_fd_ < 0) {
      stopped_ = true;
      return;
    }
    stopped_ = true;
  }
  const char c = 'x';
  (void)!::write(stop_pipe_[1], &c, 1);
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(conn_threads_);
  }
  for (std::thread& t : threads) t.join();
  ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  listen_fd_ = -1;
}

bool FakeHttpServer::WaitReadable(int fd, int ms) const {
  pollfd p[2] = {{fd, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
  for (;;) {
    const int n = ::poll(p, 2, ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (p[1].revents) return false;
    return true;
  }
}

void FakeHttpServer::Pause(int ms) const {
  if (ms <= 0) return;
  pollfd p{stop_pipe_[0], POLLIN, 0};
  ::poll(&p, 1, ms);
}

void FakeHttpServer::AcceptLoop() {
  for (;;) {
    if (!WaitReadable(listen_fd_, -1)) return;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    conn_threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void FakeHttpServer::Serve(int fd) {
  std::string buf;
  char chunk[65536];
  auto fill = [&]() -> bool {
    if (!WaitReadable(fd, -1)) return false;
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buf.append(chunk, static_cast<size_t>(n));
    return true;
  };
  for (;;) {
    size_t end;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) {
        ::close(fd);
        return;
      }
    }
    FakeHttpRequest req;
    std::string_view head(buf.data(), end);
    const size_t line_end = head.find("\r\n");
    const std::string_view request_line = head.substr(0, line_end);
    const size_t sp1 = request_line.find(' ');
    const size_t sp2 = request_line.find(' ', sp1 + 1);
    req.method = std::string(request_line.substr(0, sp1));
    req.path = std::string(request_line.substr(sp1 + 1, sp2 - sp1 - 1));
    size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string_view::npos) e = head.size();
      const std::string_view line = head.substr(pos, e - pos);
      const size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        req.headers.emplace_back(Lower(std::string(line.substr(0, colon))),
                                 std::string(Trim(line.substr(colon + 1))));
      }
      pos = e + 2;
    }
    const size_t content_length = static_cast<size_t>(
        std::strtoull(req.Header("content-length").c_str(), nullptr, 10));
    buf.erase(0, end + 4);
    if (Lower(req.Header("expect")) == "100-continue" && buf.size() < content_length) {
      if (!SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")) break;
    }
    while (buf.size() < content_length) {
      if (!fill()) {
        ::close(fd);
        return;
      }
    }
    req.body = buf.substr(0, content_length);
    buf.erase(0, content_length);
    const bool close_after = Lower(req.Header("connection")) == "close";
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
    }
    const FakeHttpReply reply = handler_(req);
    Pause(static_cast<int>(reply.latency.count()));
    if (reply.fault == FakeFault::kReset) {
      const linger lg{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
      break;
    }
    if (reply.fault == FakeFault::kNeverAnswer) {
      // Silent until Stop(), or until the client gives up and closes.
      while (WaitReadable(fd, -1)) {
        if (::recv(fd, chunk, sizeof(chunk), 0) <= 0) break;
      }
      break;
    }
    std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " +
                      std::string(Reason(reply.status)) + "\r\n";
    out += "Content-Type: application/json\r\n";
    out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
    for (const std::string& h : reply.headers) out += h + "\r\n";
    if (close_after || reply.fault == FakeFault::kTruncate) out += "Connection: close\r\n";
    out += "\r\n";
    if (reply.fault == FakeFault::kStall) {
      out += std::string_view(reply.body).substr(0, reply.body.size() / 2);
      if (!SendAll(fd, out)) break;
      while (WaitReadable(fd, -1)) {
        if (::recv(fd, chunk, sizeof(chunk), 0) <= 0) break;
      }
      break;
    }
    if (reply.fault == FakeFault::kTruncate) {
      out += std::string_view(reply.body).substr(0, reply.body.size() / 2);
      SendAll(fd, out);
      break;
    }
    out += reply.body;
    if (!SendAll(fd, out) || close_after) break;
  }
  ::close(fd);
}

std::string OpenAiCompletionBody(std::string_view content, std::string_view finish) {
  nlohmann::json j = {
      {"id", "chatcmpl-fake"},
      {"object", "chat.completion"},
      {"choices", nlohmann::json::array({{{"index", 0},
                                          {"message", {{"role", "assistant"},
                                                       {"content", content}}},
                                          {"finish_reason", finish}}})},
      {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}}};
  return j.dump();
}

std::string AnthropicMessageBody(std::string_view text, std::string_view stop) {
  nlohmann::json j = {{"type", "message"},
                      {"role", "assistant"},
                      {"content", nlohmann::json::array({{{"type", "text"}, {"text", text}}})},
                      {"stop_reason", stop},
                      {"usage", {{"input_tokens", 10}, {"output_tokens", 5}}}};
  return j.dump();
}

std::string GeminiBody(std::string_view text, std::string_view finish) {
  nlohmann::json j = {
      {"candidates",
       nlohmann::json::array({{{"content", {{"role", "model"},
                                            {"parts", nlohmann::json::array({{{"text", text}}})}}},
                               {"finishReason", finish}}})},
      {"usageMetadata", {{"promptTokenCount", 10}, {"candidatesTokenCount", 5}}}};
  return j.dump();
}

}  // namespace structtest::testing
