#include "backends/http/curl_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "backends/providers.h"

namespace structtest {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Transfer {
  uint64_t id = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  std::optional<milliseconds> retry_after;
  Clock::time_point start;
  Clock::time_point last_activity;  // the start, or the last byte received
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
  t->last_activity = Clock::now();
  t->body.append(data, n);
  return n;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

size_t OnHeader(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  t->last_activity = Clock::now();
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
      const time_t when = curl_getdate(value.c_str(), nullptr);
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
  CurlModelClient(HttpClientOptions options, CURLM* multi)
      : options_(std::move(options)), multi_(multi) {}

  ~CurlModelClient() override {
    for (auto& [easy, t] : transfers_) {
      curl_multi_remove_handle(multi_, easy);
      Release(t.get());
    }
    curl_multi_cleanup(multi_);
  }

  bool CanStartMore() const override { return transfers_.size() < options_.max_in_flight; }
  size_t InFlight() const override { return transfers_.size(); }

  Status Start(ModelRequest request) override {
    assert(CanStartMore() && "Start() while the client is full");
    for (const auto& [easy, t] : transfers_) {
      if (t->id == request.id) {
        return Status::InvalidArgument(
            fmt::format("request {} is already in flight", request.id));
      }
    }
    ASSIGN_OR_RETURN(HttpRequest http, BuildHttpRequest(options_.provider, request,
                                                        options_.base_url, options_.api_key));
    auto t = std::make_unique<Transfer>();
    t->id = request.id;
    t->max_body = options_.max_body_bytes;
    t->easy = curl_easy_init();
    if (t->easy == nullptr) return Status::Internal("curl_easy_init failed");
    for (const std::string& h : http.headers) t->headers = curl_slist_append(t->headers, h.c_str());
    // No "Expect: 100-continue" round trip before large bodies.
    t->headers = curl_slist_append(t->headers, "Expect:");
    CURL* e = t->easy;
    curl_easy_setopt(e, CURLOPT_URL, http.url.c_str());
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(http.body.size()));
    curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, http.body.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    // Over TLS, wait for a connection being set up to see whether it multiplexes
    // (HTTP/2) rather than open one per transfer. Never over plain HTTP: it cannot
    // multiplex there, and curl would hold every new transfer until the first response
    // arrived, so one silent request would stall the others.
    if (http.url.starts_with("https://")) curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
    // The idle timeout is ours (ExpireIdle): curl's low-speed check averages over
    // seconds-long windows and fires late.
    t->start = Clock::now();
    t->last_activity = t->start;
    if (curl_multi_add_handle(multi_, e) != CURLM_OK) {
      Release(t.get());
      return Status::Internal("curl_multi_add_handle failed");
    }
    transfers_.emplace(e, std::move(t));
    return Status::Ok();
  }

  size_t WaitForAny(std::vector<ModelResult>* done, milliseconds timeout) override {
    if (transfers_.empty()) return 0;
    const Clock::time_point deadline = Clock::now() + timeout;
    for (;;) {
      int running = 0;
      curl_multi_perform(multi_, &running);
      size_t appended = Collect(done);
      appended += ExpireIdle(done);
      if (appended > 0) return appended;
      const Clock::time_point now = Clock::now();
      if (now >= deadline) return 0;
      Clock::time_point wake = deadline;
      for (const auto& [easy, t] : transfers_) {
        wake = std::min(wake, t->last_activity + options_.idle_timeout);
      }
      const auto wait = std::max(milliseconds(0), std::chrono::ceil<milliseconds>(wake - now));
      curl_multi_poll(multi_, nullptr, 0, static_cast<int>(std::min<int64_t>(wait.count(), 1000)),
                      nullptr);
    }
  }

 private:
  size_t Collect(std::vector<ModelResult>* done) {
    size_t appended = 0;
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      auto it = transfers_.find(msg->easy_handle);
      assert(it != transfers_.end() && "curl finished a transfer we do not know");
      Transfer* t = it->second.get();
      done->push_back(Finish(t, msg->data.result));
      ++appended;
      curl_multi_remove_handle(multi_, t->easy);
      Release(t);
      transfers_.erase(it);
    }
    return appended;
  }

  // Ends the transfers that received nothing for idle_timeout as retryable errors.
  size_t ExpireIdle(std::vector<ModelResult>* done) {
    const Clock::time_point now = Clock::now();
    size_t appended = 0;
    for (auto it = transfers_.begin(); it != transfers_.end();) {
      Transfer* t = it->second.get();
      if (now - t->last_activity < options_.idle_timeout) {
        ++it;
        continue;
      }
      ModelResult r;
      r.id = t->id;
      long status = 0;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
      r.http_status = static_cast<int>(status);
      r.error = ErrorKind::kRetryable;
      r.error_message = fmt::format("{}: idle timeout: nothing received for {} ms",
                                    ProviderName(options_.provider),
                                    options_.idle_timeout.count());
      r.latency = std::chrono::duration_cast<milliseconds>(now - t->start);
      done->push_back(std::move(r));
      ++appended;
      curl_multi_remove_handle(multi_, t->easy);
      Release(t);
      it = transfers_.erase(it);
    }
    return appended;
  }

  ModelResult Finish(Transfer* t, CURLcode code) {
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    const std::string_view provider = ProviderName(options_.provider);
    ModelResult r;
    if (code == CURLE_OK) {
      r = ParseHttpReply(options_.provider, static_cast<int>(status), t->body, options_.api_key);
    } else {
      r.http_status = static_cast<int>(status);
      if (t->too_big) {
        r.error = ErrorKind::kFatal;
        r.error_message = fmt::format("{}: response body larger than {} bytes", provider,
                                      options_.max_body_bytes);
      } else {
        r.error = KindOfCurlError(code);
        const std::string detail = t->errbuf[0] != '\0' ? t->errbuf : curl_easy_strerror(code);
        r.error_message = RedactSecret(
            fmt::format("{}: {} ({})", provider, curl_easy_strerror(code), detail),
            options_.api_key);
      }
    }
    r.id = t->id;
    r.retry_after = t->retry_after;
    r.latency = std::chrono::duration_cast<milliseconds>(Clock::now() - t->start);
    return r;
  }

  static void Release(Transfer* t) {
    if (t->easy != nullptr) curl_easy_cleanup(t->easy);
    if (t->headers != nullptr) curl_slist_free_all(t->headers);
    t->easy = nullptr;
    t->headers = nullptr;
  }

  HttpClientOptions options_;
  CURLM* multi_;
  std::map<CURL*, std::unique_ptr<Transfer>> transfers_;  // in flight
};

}  // namespace

std::string ApiKeyFromEnvironment(Provider provider) {
  const char* v = std::getenv(std::string(ApiKeyEnvVar(provider)).c_str());
  return v == nullptr ? std::string() : std::string(v);
}

StatusOr<std::unique_ptr<ModelClient>> NewCurlModelClient(HttpClientOptions options) {
  assert(options.max_in_flight >= 1 && "max_in_flight must be at least 1");
  static std::once_flag once;
  static CURLcode init = CURLE_OK;
  std::call_once(once, [] { init = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (init != CURLE_OK) return Status::Internal("curl_global_init failed");
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) return Status::Internal("curl_multi_init failed");
  curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  // No CURLMOPT_MAX_TOTAL_CONNECTIONS: CanStartMore() already bounds the transfers,
  // and a transfer queued behind a connection still closing would spend its total
  // timeout waiting (seen as spurious "timed out after 0 ms" errors).
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(options.max_in_flight));
  return std::unique_ptr<ModelClient>(
      std::make_unique<CurlModelClient>(std::move(options), multi));
}

}  // namespace structtest
