// FakeHttpServer: a loopback HTTP/1.1 server the tests start themselves, answering each
// request from a script: a status, headers and body after a latency, or a fault (a
// reset connection, a truncated body, a server that never answers). It binds
// 127.0.0.1 on an ephemeral port, so tests run in parallel without a network.
#ifndef STRUCTTEST_TESTING_FAKE_SERVER_H_
#define STRUCTTEST_TESTING_FAKE_SERVER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "structtest/status.h"

namespace structtest::testing {

struct FakeHttpRequest {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  // The value of header `name` (lower case), or "" when absent.
  std::string Header(std::string_view name) const;
};

enum class FakeFault {
  kNone,
  kReset,        // read the request, then reset the connection without a reply
  kTruncate,     // send the headers and half the body, then close
  kNeverAnswer,  // read the request and keep the connection open, silent, until Stop()
  kStall,        // send the headers and half the body, then fall silent until Stop()
};

struct FakeHttpReply {
  int status = 200;
  std::vector<std::string> headers;  // extra "Name: value" lines
  std::string body;
  std::chrono::milliseconds latency{0};  // before anything is sent
  FakeFault fault = FakeFault::kNone;
};

// Called once per request, concurrently from the connection threads: it must be
// thread-safe.
using FakeHandler = std::function<FakeHttpReply(const FakeHttpRequest&)>;

class FakeHttpServer {
 public:
  explicit FakeHttpServer(FakeHandler handler);
  ~FakeHttpServer();  // Stop()
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  // Binds 127.0.0.1:0 and starts accepting.
  Status Start();
  // Closes every connection (silent ones included) and joins the threads. Idempotent.
  void Stop();

  int port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:PORT"
  size_t connections_accepted() const { return connections_.load(); }
  // Every request read so far, in arrival order.
  std::vector<FakeHttpRequest> requests() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  // Waits up to `ms` (forever when < 0) for `fd` to be readable; false on stop/timeout.
  bool WaitReadable(int fd, int ms) const;
  // Sleeps `ms` unless stopped first.
  void Pause(int ms) const;

  FakeHandler handler_;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};  // readable once Stop() has been called
  int port_ = 0;
  std::atomic<size_t> connections_{0};
  std::thread accept_thread_;
  mutable std::mutex mu_;
  std::vector<std::thread> conn_threads_;  // GUARDED_BY(mu_)
  std::vector<FakeHttpRequest> requests_;  // GUARDED_BY(mu_)
  bool stopped_ = false;                   // GUARDED_BY(mu_)
};

// Reply bodies in each provider's success format, for scripts.
std::string OpenAiCompletionBody(std::string_view content, std::string_view finish = "stop");
std::string AnthropicMessageBody(std::string_view text, std::string_view stop = "end_turn");
std::string GeminiBody(std::string_view text, std::string_view finish = "STOP");

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_FAKE_SERVER_H_
