// What the tests and the benchmark of `structtest serve` share: the binary started as
// a child on an ephemeral port (ServeProcess), and a minimal blocking HTTP/1.1 client
// over one keep-alive connection (ServeClient) that sends any bytes, hostile framing
// included, and reads one reply framed by Content-Length or by the end of the
// connection; over TLS (GnuTLS) when asked.
#ifndef STRUCTTEST_TESTING_SERVE_TESTING_H_
#define STRUCTTEST_TESTING_SERVE_TESTING_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "structtest/status.h"

namespace structtest {

struct HttpReply {
  int status = 0;
  std::string headers;  // the header lines, as sent
  std::string body;
  // The value of header `name` (case-insensitive), or "" when absent.
  std::string Header(std::string_view name) const;
};

class ServeClient {
 public:
  ServeClient(std::string host, int port);
  ~ServeClient();
  ServeClient(const ServeClient&) = delete;
  ServeClient& operator=(const ServeClient&) = delete;

  // Connections from now on speak TLS, trusting the PEM certificates of `ca_file` and
  // checking that the server's certificate is for the host (a name, or an IP address
  // in its subjectAltName). Errors: `ca_file` holds no certificate. A handshake that
  // fails makes the request fail, saying why.
  Status UseTls(const std::string& ca_file);

  // A header line ("Authorization: Bearer x") sent with every Post and Get from now on.
  void AddHeader(std::string line) { headers_ += line + "\r\n"; }

  // POST `path` with `body` (Content-Length framing), on the open connection or a new
  // one; reconnects once when a kept-alive connection turns out closed before any reply
  // byte came back.
  StatusOr<HttpReply> Post(std::string_view path, std::string_view body);
  StatusOr<HttpReply> Get(std::string_view path);
  // Sends `request` as it is (a whole request, framing and all) on a new connection
  // and reads one reply; with `pause`, sends `rest` that much later (a slow client).
  StatusOr<HttpReply> SendRaw(std::string_view request,
                              std::chrono::milliseconds pause = std::chrono::milliseconds(0),
                              std::string_view rest = "");
  // Sends `bytes` on a new connection and closes it without reading anything.
  Status SendAndHangUp(std::string_view bytes);

 private:
  StatusOr<HttpReply> Exchange(std::string_view request, bool retry);
  void Send(std::string_view bytes);
  StatusOr<HttpReply> Read(std::string_view request, bool reused, bool retry);
  Status Connect();
  void Close();
  ssize_t Receive(char* buf, size_t size);

  struct Tls;  // GnuTLS's credentials and the connection's session
  std::string host_;
  int port_;
  std::unique_ptr<Tls> tls_;
  std::string headers_;  // AddHeader's lines, each ending "\r\n"
  int fd_ = -1;
};

// `BINARY serve --port 0 ARGS...` as a child process, its stderr collected as it comes.
// The child is killed (SIGKILL) when the thread that made this object ends, so that a
// test killed on a timeout leaves no server behind.
class ServeProcess {
 public:
  // Starts it, with `env` ("NAME=value") added to this process's environment, and
  // waits (up to 30 s) for the line that names its port.
  ServeProcess(const std::string& binary, const std::vector<std::string>& args,
               const std::vector<std::string>& env = {});
  // Kills it (SIGKILL) when it is still running.
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // 0 when it did not start serving (err() says why).
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  void Signal(int sig);
  // Waits for it to end: its exit code, or 128 + the signal that ended it.
  int Wait();
  // Its stderr so far.
  std::string err();

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
  int err_fd_ = -1;
  int port_ = 0;
  std::thread reader_;
  Mutex mu_;
  CondVar cv_;  // err_ grew, or eof_
  std::string err_ GUARDED_BY(mu_);
  bool eof_ GUARDED_BY(mu_) = false;
};

}  // namespace structtest

#endif  // STRUCTTEST_TESTING_SERVE_TESTING_H_
