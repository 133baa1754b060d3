#include "backends/http/curl_client.h"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <map>
#include <unordered_set>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "backends/http/curl_library.h"
#include "backends/providers.h"

namespace structtest {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Streams one HTTP/2 connection is counted on (curl's own default limit, and what most
// servers allow: nginx 128, Go 250, h2o 100).
constexpr size_t kStreamsPerConnection = 100;

struct Transfer {
  uint64_t id = 0;
  size_t endpoint = 0;
  CURL* easy = nullptr;
  std::string request_body;  // sent from here without a copy (CURLOPT_POSTFIELDS)
  std::string body;
  std::optional<milliseconds> retry_after;
  std::string url;  // what CURLOPT_URL was last set to
  Clock::time_point start;
  // Idle detection without a clock read per callback: the callbacks count, and the
  // idle scan (ExpireIdle) stamps last_activity when the count has moved.
  uint64_t activity = 0;
  uint64_t activity_seen = 0;
  Clock::time_point last_activity;  // the start, or when the scan last saw activity
  size_t max_body = 0;
  bool too_big = false;
  char errbuf[CURL_ERROR_SIZE] = {};
};

size_t OnBody(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  if (t->body.size() + n > t->max_body) {
    t->too_big = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  ++t->activity;
  t->body.append(data, n);
  return n;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[i]) != prefix[i]) return false;
  }
  return true;
}

size_t OnHeader(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  ++t->activity;
  std::string_view line(data, n);
  if (line.starts_with("HTTP/")) t->retry_after.reset();  // a new response (after a 100)
  constexpr std::string_view kName = "retry-after:";
  if (StartsWithNoCase(line, kName)) {
    std::string value(line.substr(kName.size()));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value.pop_back();
    const size_t first = value.find_first_not_of(' ');
    value = first == std::string::npos ? "" : value.substr(first);
    if (!value.empty() && std::all_of(value.begin(), value.end(),
                                      [](char c) { return c >= '0' && c <= '9'; })) {
      t->retry_after = milliseconds(std::min<long long>(std::atoll(value.c_str()), 86'400) * 1000);
    } else if (!value.empty()) {
      const time_t when = Curl().getdate(value.c_str(), nullptr);
      if (when > 0) {
        const long long secs = std::max<long long>(0, when - std::time(nullptr));
        t->retry_after = milliseconds(std::min<long long>(secs, 86'400) * 1000);
      }
    }
  }
  return n;
}

ErrorKind KindOfCurlError(CURLcode code) {
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_TOO_MANY_REDIRECTS:
      return ErrorKind::kFatal;
    default:
      // Connect failures, timeouts, resets, truncated bodies, HTTP/2 stream errors.
      return ErrorKind::kRetryable;
  }
}

class CurlModelClient : public ModelClient {
 public:
  CurlModelClient(HttpClientOptions options, CURLM* multi, int epoll_fd)
      : options_(std::move(options)), multi_(multi), epoll_fd_(epoll_fd) {
    Curl().multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, OnSocket);
    Curl().multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    Curl().multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, OnTimer);
    Curl().multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  }

  ~CurlModelClient() override {
    for (auto& [easy, t] : transfers_) {
      Curl().multi_remove_handle(multi_, easy);
      Curl().easy_cleanup(easy);
    }
    for (auto& t : idle_) Curl().easy_cleanup(t->easy);
    Curl().multi_cleanup(multi_);
    close(epoll_fd_);
    Curl().slist_free_all(headers_);
    for (curl_slist* h : old_headers_) Curl().slist_free_all(h);
  }

  bool CanStartMore() const override { return transfers_.size() < options_.max_in_flight; }
  size_t InFlight() const override { return transfers_.size(); }

  Status Start(ModelRequest request) override {
    assert(CanStartMore() && "Start() while the client is full");
    if (ids_.contains(request.id)) {
      return Status::InvalidArgument(fmt::format("request {} is already in flight", request.id));
    }
    const size_t endpoints = options_.base_urls.empty() ? 1 : options_.base_urls.size();
    if (request.endpoint >= endpoints) {
      return Status::InvalidArgument(fmt::format(
          "request {}: endpoint {} out of range (the client has {})", request.id,
          request.endpoint, endpoints));
    }
    const std::string& base_url =
        options_.base_urls.empty() ? options_.base_url : options_.base_urls[request.endpoint];
    ASSIGN_OR_RETURN(HttpRequest http, BuildHttpRequest(options_.provider, request, base_url,
                                                        options_.api_key, options_.headers));
    std::unique_ptr<Transfer> t = TakeTransfer();
    if (t == nullptr) return Status::Internal("curl_easy_init failed");
    t->id = request.id;
    t->endpoint = request.endpoint;
    CURL* e = t->easy;
    // The URL and headers are the same for every request of a client in practice;
    // they are set again only when they change.
    if (http.url != t->url) {
      t->url = http.url;
      Curl().easy_setopt(e, CURLOPT_URL, t->url.c_str());
      // Over TLS, wait for a connection being set up to see whether it multiplexes
      // (HTTP/2) rather than open one per transfer. Never over plain HTTP: it cannot
      // multiplex there, and curl would hold every new transfer until the first
      // response arrived, so one silent request would stall the others.
      const bool may_multiplex = http.url.starts_with("https://") &&
                                 options_.http_version != HttpClientOptions::HttpVersion::kHttp11;
      Curl().easy_setopt(e, CURLOPT_PIPEWAIT, may_multiplex ? 1L : 0L);
    }
    Curl().easy_setopt(e, CURLOPT_HTTPHEADER, SharedHeaders(http.headers));
    t->request_body = std::move(http.body);
    Curl().easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(t->request_body.size()));
    Curl().easy_setopt(e, CURLOPT_POSTFIELDS, t->request_body.c_str());
    t->start = Clock::now();
    t->last_activity = t->start;
    if (Curl().multi_add_handle(multi_, e) != CURLM_OK) {
      return Status::Internal("curl_multi_add_handle failed");
    }
    ids_.insert(t->id);
    transfers_.emplace(e, std::move(t));
    return Status::Ok();
  }

  size_t WaitForAny(std::vector<ModelResult>* done, milliseconds timeout) override {
    if (transfers_.empty()) return 0;
    const Clock::time_point deadline = Clock::now() + timeout;
    epoll_event events[64];
    for (;;) {
      Clock::time_point now = Clock::now();
      // curl's own timer (connect and total timeouts, and the kick-off of transfers
      // just added) is due: let it act.
      if (timer_ && now >= *timer_) {
        timer_.reset();
        int running = 0;
        Curl().multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
        now = Clock::now();
      }
      size_t appended = Collect(done);
      // Idle transfers are looked for now and then, not on every wake-up: the scan
      // is linear in the transfers in flight.
      if (now >= next_idle_check_) {
        appended += ExpireIdle(done);
        next_idle_check_ = now + std::min(options_.idle_timeout / 4, milliseconds(250));
      }
      if (appended > 0) return appended;
      if (now >= deadline) return 0;
      Clock::time_point wake = std::min(deadline, next_idle_check_);
      if (timer_) wake = std::min(wake, *timer_);
      const auto wait = std::max(milliseconds(0), std::chrono::ceil<milliseconds>(wake - now));
      // Only the sockets with something to do wake us, and only they are handed to
      // curl: the cost of a wake-up does not grow with the transfers in flight.
      const int n = epoll_wait(epoll_fd_, events, 64, static_cast<int>(std::min<int64_t>(wait.count(), 1000)));
      for (int i = 0; i < n; ++i) {
        int flags = 0;
        if (events[i].events & (EPOLLIN | EPOLLHUP)) flags |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (events[i].events & EPOLLERR) flags |= CURL_CSELECT_ERR;
        int running = 0;
        Curl().multi_socket_action(multi_, events[i].data.fd, flags, &running);
      }
    }
  }

  // CURLMOPT_SOCKETFUNCTION: curl says which sockets to watch for what.
  static int OnSocket(CURL*, curl_socket_t fd, int what, void* user, void*) {
    auto* self = static_cast<CurlModelClient*>(user);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = fd;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) ev.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) ev.events |= EPOLLOUT;
    if (epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT) {
      epoll_ctl(self->epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    }
    return 0;
  }

  // CURLMOPT_TIMERFUNCTION: when curl wants to be called with CURL_SOCKET_TIMEOUT.
  static int OnTimer(CURLM*, long timeout_ms, void* user) {
    auto* self = static_cast<CurlModelClient*>(user);
    if (timeout_ms < 0) {
      self->timer_.reset();
    } else {
      self->timer_ = Clock::now() + milliseconds(timeout_ms);
    }
    return 0;
  }

 private:
  size_t Collect(std::vector<ModelResult>* done) {
    size_t appended = 0;
    int left = 0;
    while (CURLMsg* msg = Curl().multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      auto it = transfers_.find(msg->easy_handle);
      assert(it != transfers_.end() && "curl finished a transfer we do not know");
      Transfer* t = it->second.get();
      done->push_back(Finish(t, msg->data.result));
      ++appended;
      std::unique_ptr<Transfer> owned = std::move(it->second);
      transfers_.erase(it);
      Release(std::move(owned));
    }
    return appended;
  }

  // Ends the transfers that received nothing for idle_timeout as retryable errors.
  size_t ExpireIdle(std::vector<ModelResult>* done) {
    const Clock::time_point now = Clock::now();
    size_t appended = 0;
    for (auto it = transfers_.begin(); it != transfers_.end();) {
      Transfer* t = it->second.get();
      if (t->activity != t->activity_seen) {
        t->activity_seen = t->activity;
        t->last_activity = now;
      }
      if (now - t->last_activity < options_.idle_timeout) {
        ++it;
        continue;
      }
      ModelResult r;
      r.id = t->id;
      r.endpoint = t->endpoint;
      r.timed_out = true;
      long status = 0;
      Curl().easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
      r.http_status = static_cast<int>(status);
      r.error = ErrorKind::kRetryable;
      r.error_message = fmt::format("{}: idle timeout: nothing received for {} ms",
                                    ProviderName(options_.provider),
                                    options_.idle_timeout.count());
      r.latency = std::chrono::duration_cast<milliseconds>(now - t->start);
      done->push_back(std::move(r));
      ++appended;
      std::unique_ptr<Transfer> owned = std::move(it->second);
      it = transfers_.erase(it);
      Release(std::move(owned));
    }
    return appended;
  }

  ModelResult Finish(Transfer* t, CURLcode code) {
    long status = 0;
    Curl().easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    const std::string_view provider = ProviderName(options_.provider);
    ModelResult r;
    if (code == CURLE_OK && !multiplexing_) {
      long version = 0;
      Curl().easy_getinfo(t->easy, CURLINFO_HTTP_VERSION, &version);
      if (version == CURL_HTTP_VERSION_2_0) {
        multiplexing_ = true;
        const long per_host = static_cast<long>(
            (options_.max_in_flight + kStreamsPerConnection - 1) / kStreamsPerConnection + 1);
        Curl().multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, per_host);
      }
    }
    if (code == CURLE_OK) {
      r = ParseHttpReply(options_.provider, static_cast<int>(status), t->body, options_.api_key);
      r.error_message = RedactHeaders(std::move(r.error_message));
    } else {
      r.http_status = static_cast<int>(status);
      if (t->too_big) {
        r.error = ErrorKind::kFatal;
        r.error_message = fmt::format("{}: response body larger than {} bytes", provider,
                                      options_.max_body_bytes);
      } else {
        r.error = KindOfCurlError(code);
        r.timed_out = code == CURLE_OPERATION_TIMEDOUT;
        const std::string detail = t->errbuf[0] != '\0' ? t->errbuf : Curl().easy_strerror(code);
        std::string message = fmt::format("{}: {} ({})", provider, Curl().easy_strerror(code), detail);
        if (code == CURLE_PEER_FAILED_VERIFICATION) {
          message += options_.ca_file.empty()
                         ? "; a server with a private or self-signed certificate needs its CA "
                           "named (--ca-cert FILE)"
                         : fmt::format("; the CAs trusted are those of {}", options_.ca_file);
        }
        r.error_message = RedactHeaders(RedactSecret(message, options_.api_key));
      }
    }
    r.id = t->id;
    r.endpoint = t->endpoint;
    r.retry_after = t->retry_after;
    r.latency = std::chrono::duration_cast<milliseconds>(Clock::now() - t->start);
    return r;
  }

  // `text` without the values of the extra headers that may be credentials (those of 8
  // characters or more: a shorter one would scrub common words and numbers).
  std::string RedactHeaders(std::string text) const {
    for (const HttpHeader& h : options_.headers) {
      if (h.value.size() >= 8) text = RedactSecret(text, h.value);
    }
    return text;
  }

  // An idle transfer with its easy handle set up, reused when there is one: setting a
  // handle up costs more than the request itself against a fast local server.
  std::unique_ptr<Transfer> TakeTransfer() {
    if (!idle_.empty()) {
      std::unique_ptr<Transfer> t = std::move(idle_.back());
      idle_.pop_back();
      return t;
    }
    auto t = std::make_unique<Transfer>();
    t->easy = Curl().easy_init();
    if (t->easy == nullptr) return nullptr;
    CURL* e = t->easy;
    t->max_body = options_.max_body_bytes;
    Curl().easy_setopt(e, CURLOPT_POST, 1L);
    Curl().easy_setopt(e, CURLOPT_WRITEFUNCTION, OnBody);
    Curl().easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    Curl().easy_setopt(e, CURLOPT_HEADERFUNCTION, OnHeader);
    Curl().easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    Curl().easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    Curl().easy_setopt(e, CURLOPT_PRIVATE, t.get());
    Curl().easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    Curl().easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str());
    Curl().easy_setopt(e, CURLOPT_HTTP_VERSION,
                     options_.http_version == HttpClientOptions::HttpVersion::kHttp11
                         ? static_cast<long>(CURL_HTTP_VERSION_1_1)
                         : static_cast<long>(CURL_HTTP_VERSION_2TLS));
    if (!options_.ca_file.empty()) Curl().easy_setopt(e, CURLOPT_CAINFO, options_.ca_file.c_str());
    Curl().easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    Curl().easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    Curl().easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    Curl().easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
    // The idle timeout is ours (ExpireIdle): curl's low-speed check averages over
    // seconds-long windows and fires late.
    return t;
  }

  // Takes `t` out of the multi handle and keeps it for the next request.
  void Release(std::unique_ptr<Transfer> t) {
    Curl().multi_remove_handle(multi_, t->easy);
    ids_.erase(t->id);
    t->body.clear();
    t->request_body.clear();
    t->retry_after.reset();
    t->too_big = false;
    t->activity = t->activity_seen = 0;
    t->errbuf[0] = '\0';
    if (idle_.size() < options_.max_in_flight) {
      idle_.push_back(std::move(t));
    } else {
      Curl().easy_cleanup(t->easy);
    }
  }

  // The header list for `headers` ("Expect:" added: no 100-continue round trip before
  // large bodies), built once and kept while the headers stay the same.
  curl_slist* SharedHeaders(const std::vector<std::string>& headers) {
    if (headers_ != nullptr && headers == header_lines_) return headers_;
    // Transfers in flight may still point at the old list: keep it until destruction.
    if (headers_ != nullptr) old_headers_.push_back(headers_);
    headers_ = nullptr;
    for (const std::string& h : headers) headers_ = Curl().slist_append(headers_, h.c_str());
    headers_ = Curl().slist_append(headers_, "Expect:");
    header_lines_ = headers;
    return headers_;
  }

  HttpClientOptions options_;
  // Set when a reply came over HTTP/2: the requests beyond a connection's streams
  // then wait for a free stream on a few connections per host instead of each opening
  // a connection of its own.
  bool multiplexing_ = false;
  CURLM* multi_;
  int epoll_fd_;
  std::optional<Clock::time_point> timer_;  // when curl wants CURL_SOCKET_TIMEOUT
  std::map<CURL*, std::unique_ptr<Transfer>> transfers_;  // in flight
  std::unordered_set<uint64_t> ids_;                      // their request ids
  Clock::time_point next_idle_check_{};
  std::vector<std::unique_ptr<Transfer>> idle_;           // ready for reuse
  curl_slist* headers_ = nullptr;
  std::vector<std::string> header_lines_;  // what headers_ holds
  std::vector<curl_slist*> old_headers_;
};

}  // namespace

std::string ApiKeyFromEnvironment(Provider provider) {
  const char* v = std::getenv(std::string(ApiKeyEnvVar(provider)).c_str());
  return v == nullptr ? std::string() : std::string(v);
}

StatusOr<std::unique_ptr<ModelClient>> NewCurlModelClient(HttpClientOptions options) {
  assert(options.max_in_flight >= 1 && "max_in_flight must be at least 1");
  RETURN_IF_ERROR(LoadCurl().status());
  CURLM* multi = Curl().multi_init();
  if (multi == nullptr) return Status::Internal("curl_multi_init failed");
  Curl().multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  // No CURLMOPT_MAX_TOTAL_CONNECTIONS: CanStartMore() already bounds the transfers,
  // and a transfer queued behind a connection still closing would spend its total
  // timeout waiting (seen as spurious "timed out after 0 ms" errors).
  Curl().multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(options.max_in_flight));
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) {
    Curl().multi_cleanup(multi);
    return Status::Internal(fmt::format("epoll_create1: {}", std::strerror(errno)));
  }
  return std::unique_ptr<ModelClient>(
      std::make_unique<CurlModelClient>(std::move(options), multi, epoll_fd));
}

}  // namespace structtest
