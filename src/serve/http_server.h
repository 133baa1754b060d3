// The HTTP side of `structtest serve`: POST /v1/score, the RL trainers' reward endpoints
// (POST /get_reward, POST /slime/reward, their options in the URL's query) and GET
// /healthz over libmicrohttpd, answered by a ScoreService. libmicrohttpd reads and bounds what
// arrives before a handler sees it (the request line and headers fit in a
// per-connection memory limit, the number of connections is capped, an idle connection
// times out, chunked bodies are decoded), which is what a server that strangers' bytes
// reach needs; its thread-per-connection mode lets a request wait for its verdicts on
// its own thread while the scoring runs on the service's pool. libmicrohttpd is C and
// stays inside http_server.cc.
#ifndef STRUCTTEST_SERVE_HTTP_SERVER_H_
#define STRUCTTEST_SERVE_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "structtest/status.h"

namespace structtest {

class ScoreService;

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // an address or a name getaddrinfo resolves
  int port = 0;                    // 0: an ephemeral port (port() says which)
  // Bytes of a request body (after any chunked framing): more is answered 413.
  size_t max_body = 16 << 20;
  // Connections open at once; one more is closed as soon as it is accepted.
  unsigned max_connections = 128;
  // A request's deadline, from its headers to its reply: reading the body and
  // scoring both count. Both are answered 503 then: a body still arriving (stalled or
  // trickling) at once, and its connection closed (over HTTPS, only closed); scoring
  // not done as soon as the check running then ends.
  std::chrono::milliseconds timeout{30000};
  // When set, every request but GET (or HEAD) /healthz must carry "Authorization:
  // Bearer <token>"; one without it, or with another token, is answered 401 before its
  // body is read, the same reply whatever was wrong. Default: none. REQUIRES: a valid
  // token (CleanToken in bearer_token.h).
  std::string token;
  // Without a token, an address that is not loopback (127.0.0.0/8, ::1) is refused,
  // unless this is set.
  bool allow_unauthenticated = false;
  // PEM certificate (chain) and private key: both set, HTTPS (GnuTLS, through
  // libmicrohttpd); both empty, plain HTTP.
  std::string tls_cert_pem;
  std::string tls_key_pem;
};

class HttpServer {
 public:
  // Binds `options.host:options.port` and starts serving on libmicrohttpd's threads.
  // Errors: the address does not resolve or cannot be bound (in use, no permission); it
  // is not loopback and there is no token (nor allow_unauthenticated); only one of the
  // certificate and the key is given, or libmicrohttpd refuses them.
  // REQUIRES: `service` outlives the server.
  static StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                      ScoreService* service);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  // The bound address is a loopback one (127.0.0.0/8, ::1): only this machine reaches it.
  bool loopback() const;
  // Stops accepting connections, waits for the requests that have begun (each ends by
  // its deadline; a request begun on an open connection meanwhile is answered, with
  // "Connection: close"), then closes every connection. Idempotent.
  void Stop();

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace structtest

#endif  // STRUCTTEST_SERVE_HTTP_SERVER_H_
