#include "serve/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <microhttpd.h>

#include "core/mutex.h"
#include "core/status_macros.h"
#include "serve/bearer_token.h"
#include "serve/score_service.h"
#include "serve/trainer_protocols.h"

namespace structtest {

namespace {

using Clock = std::chrono::steady_clock;

// libmicrohttpd closes a connection idle this long past the request timeout: a check
// that is running when the deadline passes (a code answer's, up to 10 s) is let finish.
constexpr unsigned kIdleSlackSeconds = 15;

// libmicrohttpd queues a reply only before a request's body is read or once all of it
// is in, and calls back only as bytes arrive: a body that stalls, or trickles past the
// deadline, would hold its connection (and a clean shutdown) until the idle timeout,
// unanswered. So a watchdog thread writes this reply itself on the socket of a body
// still arriving at its deadline and ends the connection's sending half; kLinger later
// (time for the client to read the reply) it ends the receiving half too, and
// libmicrohttpd closes the connection. Over HTTPS the socket carries TLS records, so
// there it only closes.
constexpr std::string_view kCutBody =
    "timed out: the body was still arriving at the request's deadline (--timeout)";
constexpr std::chrono::seconds kLinger{2};

// A request's state, from its headers to its reply (libmicrohttpd's con_cls).
struct Request {
  Clock::time_point deadline;
  std::string body;
  bool too_large = false;  // body bytes past max_body were dropped
  bool late = false;       // body bytes past the deadline were dropped
  bool answered = false;   // a reply was queued before the body was read
  bool health = false;     // GET /healthz, answered once the (empty) body is in
  // For the watchdog (above), guarded by Impl::mu_: the connection's socket, when the
  // watchdog acts next (the deadline, then the end of the linger), and whether it cut
  // the body off (the 503 written, the connection closing).
  MHD_socket socket = MHD_INVALID_SOCKET;
  Clock::time_point watch_until;
  bool cut = false;
  Endpoint endpoint = Endpoint::kScore;  // where a POST goes
  QueryArgs args;                        // the URL's query, in order
};

// The scoring endpoint at `url`, if any.
std::optional<Endpoint> EndpointAt(std::string_view url) {
  for (Endpoint e : {Endpoint::kScore, Endpoint::kOpenRlhf, Endpoint::kSlime}) {
    if (url == EndpointPath(e)) return e;
  }
  return std::nullopt;
}

// libmicrohttpd's iterator over the URL's query: appends each (name, value) to a QueryArgs.
MHD_Result AddQueryArg(void* cls, MHD_ValueKind /*kind*/, const char* name, const char* value) {
  static_cast<QueryArgs*>(cls)->emplace_back(name == nullptr ? "" : name,
                                             value == nullptr ? "" : value);
  return MHD_YES;
}

// A bound, listening socket for host:port, or the error naming them.
StatusOr<int> Listen(const std::string& host, int port) {
  const std::string where = fmt::format("{}:{}", host, port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return Status::InvalidArgument(fmt::format("{}: {}", where, gai_strerror(rc)));
  }
  std::string error = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      error = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return Status::Unavailable(fmt::format("{}: cannot listen: {}", where, error));
  return fd;
}

// Whether `address` is a loopback one: 127.0.0.0/8, ::1, or 127.x mapped into IPv6.
bool IsLoopback(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    return (ntohl(v4.sin_addr.s_addr) >> 24) == 127;
  }
  if (address.ss_family == AF_INET6) {
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6&>(address).sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(const HttpServerOptions& options, ScoreService* service, int listen_fd, int port,
       bool loopback)
      : options_(options),
        service_(service),
        listen_fd_(listen_fd),
        port_(port),
        loopback_(loopback) {}

  Status Start() {
    const unsigned idle = static_cast<unsigned>(
        std::chrono::ceil<std::chrono::seconds>(options_.timeout).count() + kIdleSlackSeconds);
    // libmicrohttpd keeps these pointers and reads them as it starts: they point into
    // options_, which lives as long as the daemon.
    const bool tls = !options_.tls_cert_pem.empty();
    MHD_OptionItem tls_options[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(options_.tls_cert_pem.c_str())},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(options_.tls_key_pem.c_str())},
        {MHD_OPTION_END, 0, nullptr},
    };
    if (!tls) tls_options[0].option = MHD_OPTION_END;
    daemon_ = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
            MHD_USE_ITC | MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0),
        0, nullptr, nullptr, &Impl::OnRequest, this,
        MHD_OPTION_EXTERNAL_LOGGER, &Impl::OnLog, this,  // first, or it warns
        MHD_OPTION_LISTEN_SOCKET, listen_fd_,
        MHD_OPTION_CONNECTION_LIMIT, options_.max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, idle,
        MHD_OPTION_NOTIFY_COMPLETED, &Impl::OnCompleted, this,
        MHD_OPTION_ARRAY, tls_options,
        MHD_OPTION_END);
    if (daemon_ == nullptr) {
      close(listen_fd_);
      if (tls && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
        return Status::Unavailable(fmt::format(
            "{}:{}: this libmicrohttpd was built without TLS: HTTPS needs one built with GnuTLS",
            options_.host, port_));
      }
      return Status::Unavailable(fmt::format(
          "{}:{}: libmicrohttpd did not start{} (see above)", options_.host, port_,
          tls ? ": is the certificate PEM, the key a PEM private key without a passphrase, "
                "and the key the certificate's?"
              : ""));
    }
    watchdog_ = std::thread([this] { RunWatchdog(); });
    return Status::Ok();
  }

  void Stop() {
    if (daemon_ == nullptr) return;
    if (const MHD_socket fd = MHD_quiesce_daemon(daemon_); fd != MHD_INVALID_SOCKET) close(fd);
    {
      // (the watchdog still runs: a stalled body ends at its deadline, not at the idle
      // timeout)
      MutexLock lock(&mu_);
      stopping_ = true;
      while (active_ != 0) idle_cv_.Wait(&mu_);
      watchdog_stop_ = true;
      watch_cv_.SignalAll();
    }
    watchdog_.join();
    MHD_stop_daemon(daemon_);
    daemon_ = nullptr;
  }

  int port() const { return port_; }
  bool loopback() const { return loopback_; }

 private:
  static MHD_Result OnRequest(void* cls, MHD_Connection* connection, const char* url,
                              const char* method, const char* /*version*/,
                              const char* upload_data, size_t* upload_data_size,
                              void** con_cls) {
    Impl& self = *static_cast<Impl*>(cls);
    // A handler that throws (std::bad_alloc) gets a 500; nothing leaves the callback.
    try {
      if (*con_cls == nullptr) return self.Begin(connection, url, method, con_cls);
      Request& request = *static_cast<Request*>(*con_cls);
      if (*upload_data_size > 0) {
        const size_t n = *upload_data_size;
        *upload_data_size = 0;
        // libmicrohttpd replies only once the body is in: until then, what is refused
        // is read and dropped.
        if (request.answered || request.too_large || request.late) return MHD_YES;
        if (self.WasCut(request)) return MHD_YES;
        if (Clock::now() > request.deadline) {
          request.late = true;
          std::string().swap(request.body);
        } else if (request.body.size() + n > self.options_.max_body) {
          request.too_large = true;
          std::string().swap(request.body);
        } else {
          request.body.append(upload_data, n);
        }
        return MHD_YES;
      }
      if (request.answered) return MHD_YES;
      request.answered = true;
      // the body is in: the watchdog lets it be (or has answered it already)
      if (self.StopWatching(&request)) return MHD_NO;
      if (request.too_large) return self.Reply(connection, 413, TooLarge(self.options_.max_body));
      if (request.health) {
        const ServiceReply reply = self.service_->Health();
        return self.Reply(connection, reply.status, reply.body);
      }
      if (request.late) {
        return self.Reply(connection, 503, ErrorBody(std::string(kCutBody)));
      }
      const ServiceReply reply =
          request.endpoint == Endpoint::kScore
              ? self.service_->Score(request.body, request.deadline, request.args)
              : self.service_->Reward(request.endpoint, request.body, request.args,
                                      request.deadline);
      std::string().swap(request.body);
      // A trainer does not show why its reward request failed (aiohttp's error names the
      // status only), so the server says it.
      if (request.endpoint != Endpoint::kScore && reply.status != 200) {
        self.Log(fmt::format("POST {}: {} {}", EndpointPath(request.endpoint), reply.status,
                             std::string_view(reply.body).substr(0, 1000)));
      }
      return self.Reply(connection, reply.status, reply.body, nullptr, reply.rules);
    } catch (const std::exception& e) {
      return self.Reply(connection, 500, ErrorBody(fmt::format("internal error: {}", e.what())));
    }
  }

  // The first call for a request: its headers are in. Requests refused by their
  // headers alone are answered here, their bodies never read (libmicrohttpd then closes
  // the connection after the reply, as it does after any reply given here: so GET
  // /healthz is answered on the next call, keeping its connection).
  MHD_Result Begin(MHD_Connection* connection, std::string_view url, std::string_view method,
                   void** con_cls) {
    auto request = std::make_unique<Request>();
    request->deadline = Clock::now() + options_.timeout;
    {
      MutexLock lock(&mu_);
      ++active_;
    }
    *con_cls = request.release();  // OnCompleted deletes it
    Request& r = *static_cast<Request*>(*con_cls);
    const bool health = url == "/healthz" && (method == "GET" || method == "HEAD");
    // Who is asking comes before what is asked: a caller without the token learns no
    // more than that it needs one.
    if (!options_.token.empty() && !health &&
        !BearerMatches(MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_AUTHORIZATION),
                       options_.token)) {
      r.answered = true;
      return Reply(connection, 401,
                   ErrorBody("unauthorized: this server needs the header 'Authorization: "
                             "Bearer <token>' with the token it was started with"));
    }
    if (url == "/healthz") {
      if (health) {
        r.health = true;
        return MHD_YES;
      }
      r.answered = true;
      return Reply(connection, 405, ErrorBody("/healthz takes GET"), "GET, HEAD");
    }
    const std::optional<Endpoint> endpoint = EndpointAt(url);
    if (!endpoint) {
      r.answered = true;
      return Reply(connection, 404,
                   ErrorBody(fmt::format("no such path '{}' (POST /v1/score, POST /get_reward "
                                         "(OpenRLHF), POST /slime/reward (slime), GET /healthz)",
                                         url)));
    }
    if (method != "POST") {
      r.answered = true;
      return Reply(connection, 405, ErrorBody(fmt::format("{} takes POST", url)), "POST");
    }
    r.endpoint = *endpoint;
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &AddQueryArg, &r.args);
    if (const char* encoding =
            MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Encoding");
        encoding != nullptr && std::string_view(encoding) != "identity") {
      r.answered = true;
      return Reply(connection, 415,
                   ErrorBody(fmt::format("Content-Encoding '{}': send the body uncompressed",
                                         encoding)));
    }
    if (const char* length =
            MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
        length != nullptr) {
      errno = 0;
      const unsigned long long n = std::strtoull(length, nullptr, 10);
      if (errno == ERANGE || n > options_.max_body) {
        r.answered = true;
        return Reply(connection, 413, TooLarge(options_.max_body));
      }
    }
    Watch(connection, &r);
    return MHD_YES;
  }

  // The watchdog's side of a request whose body is to be read.
  void Watch(MHD_Connection* connection, Request* r) {
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == nullptr) return;
    MutexLock lock(&mu_);
    r->socket = info->connect_fd;
    r->watch_until = r->deadline;
    receiving_.insert(r);
    watch_cv_.SignalAll();
  }

  bool WasCut(const Request& r) {
    MutexLock lock(&mu_);
    return r.cut;
  }

  // Takes `r` off the watch; returns whether the watchdog had cut its body off.
  bool StopWatching(Request* r) {
    MutexLock lock(&mu_);
    receiving_.erase(r);
    return r->cut;
  }

  // Until stopped: at each watched request's deadline, its reply (kCutBody, 503) and
  // the end of the connection.
  void RunWatchdog() {
    const std::string reply = CutReply();
    MutexLock lock(&mu_);
    while (!watchdog_stop_) {
      auto next = Clock::time_point::max();
      const auto now = Clock::now();
      for (auto it = receiving_.begin(); it != receiving_.end();) {
        Request* r = *it;
        if (r->watch_until > now) {
          next = std::min(next, r->watch_until);
          ++it;
          continue;
        }
        if (!r->cut && options_.tls_cert_pem.empty()) {
          r->cut = true;
          // non-blocking: a client that reads nothing cannot hold the watchdog
          send(r->socket, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
          shutdown(r->socket, SHUT_WR);
          r->watch_until = now + kLinger;
          next = std::min(next, r->watch_until);
          ++it;
          continue;
        }
        r->cut = true;
        shutdown(r->socket, SHUT_RDWR);
        it = receiving_.erase(it);
      }
      if (next == Clock::time_point::max()) {
        watch_cv_.Wait(&mu_);
      } else {
        watch_cv_.WaitUntil(&mu_, next);
      }
    }
  }

  std::string CutReply() const {
    const std::string body = ErrorBody(std::string(kCutBody));
    return fmt::format(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{}",
        body.size(), body);
  }

  static std::string TooLarge(size_t max_body) {
    return ErrorBody(fmt::format("body over {} bytes (--max-body)", max_body));
  }

  // `rules`, when set, goes in the header Structtest-Rules: the rule set that scored the
  // request, stated even where the body (a bare number) has no room for it.
  MHD_Result Reply(MHD_Connection* connection, int status, const std::string& body,
                   const char* allow = nullptr, std::string_view rules = "") {
    MHD_Response* response = MHD_create_response_from_buffer(
        body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
    if (response == nullptr) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    if (status == 503) MHD_add_response_header(response, "Retry-After", "1");
    if (status == 401) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                              "Bearer realm=\"structtest serve\"");
    }
    if (allow != nullptr) MHD_add_response_header(response, "Allow", allow);
    if (!rules.empty()) {
      MHD_add_response_header(response, "Structtest-Rules", std::string(rules).c_str());
    }
    bool stopping;
    {
      MutexLock lock(&mu_);
      stopping = stopping_;
    }
    if (stopping) MHD_add_response_header(response, "Connection", "close");
    const MHD_Result queued =
        MHD_queue_response(connection, static_cast<unsigned>(status), response);
    MHD_destroy_response(response);
    return queued;
  }

  static void OnCompleted(void* cls, MHD_Connection* /*connection*/, void** con_cls,
                          MHD_RequestTerminationCode /*why*/) {
    Impl& self = *static_cast<Impl*>(cls);
    if (*con_cls == nullptr) return;
    auto* request = static_cast<Request*>(*con_cls);
    *con_cls = nullptr;
    {
      // libmicrohttpd closes the socket after this returns: off the watch first
      MutexLock lock(&self.mu_);
      self.receiving_.erase(request);
      if (--self.active_ == 0) self.idle_cv_.SignalAll();
    }
    delete request;
  }

  // libmicrohttpd's messages.
  static void OnLog(void* cls, const char* format, va_list ap) {
    char message[512];
    std::vsnprintf(message, sizeof message, format, ap);
    static_cast<Impl*>(cls)->Log(message);
  }

  // A line on stderr, one a second at most: a client can cause one a connection (each
  // past the limit is one, each refused reward request another), and stderr must not be
  // flooded.
  void Log(std::string_view text) {
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    MutexLock lock(&log_mu_);
    const auto now = Clock::now();
    if (now - last_log_ < std::chrono::seconds(1)) {
      ++logs_dropped_;
      return;
    }
    last_log_ = now;
    std::string line = fmt::format("structtest: serve: {}", text);
    if (logs_dropped_ > 0) {
      line += fmt::format(" ({} more messages dropped)", logs_dropped_);
    }
    logs_dropped_ = 0;
    std::fputs((line + "\n").c_str(), stderr);
  }

  const HttpServerOptions options_;
  ScoreService* const service_;
  const int listen_fd_;
  const int port_;
  const bool loopback_;
  MHD_Daemon* daemon_ = nullptr;
  Mutex mu_;
  CondVar idle_cv_;  // active_ reached 0
  size_t active_ GUARDED_BY(mu_) = 0;  // requests begun, not completed
  bool stopping_ GUARDED_BY(mu_) = false;
  std::set<Request*> receiving_ GUARDED_BY(mu_);  // bodies being read, for the watchdog
  CondVar watch_cv_;  // receiving_ grew, or watchdog_stop_
  bool watchdog_stop_ GUARDED_BY(mu_) = false;
  std::thread watchdog_;
  Mutex log_mu_;
  Clock::time_point last_log_ GUARDED_BY(log_mu_);
  size_t logs_dropped_ GUARDED_BY(log_mu_) = 0;  // since the last line
};

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                         ScoreService* service) {
  if (options.tls_cert_pem.empty() != options.tls_key_pem.empty()) {
    return Status::InvalidArgument(
        "HTTPS needs both a certificate and its key (--tls-cert and --tls-key)");
  }
  ASSIGN_OR_RETURN(const int fd, Listen(options.host, options.port));
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  int port = options.port;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size) == 0) {
    port = ntohs(bound.ss_family == AF_INET6
                     ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                     : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  const bool loopback = IsLoopback(bound);
  if (options.token.empty() && !options.allow_unauthenticated && !loopback) {
    close(fd);
    return Status::InvalidArgument(fmt::format(
        "{}:{}: not a loopback address, and no token is set: anyone who reaches it could "
        "have records scored, and the programs of code records run here; give a token "
        "(--token-file FILE, or $STRUCTTEST_SERVE_TOKEN), or pass --allow-unauthenticated "
        "on a network known to be closed",
        options.host, options.port));
  }
  auto impl = std::make_unique<Impl>(options, service, fd, port, loopback);
  RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port(); }

bool HttpServer::loopback() const { return impl_->loopback(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace structtest
