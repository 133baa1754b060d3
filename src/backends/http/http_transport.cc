#include "backends/http/http_transport.h"

#include <curl/curl.h>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "backends/http/curl_library.h"

namespace structtest {
namespace {

size_t AppendBody(char* data, size_t size, size_t nmemb, void* user) {
  static_cast<std::string*>(user)->append(data, size * nmemb);
  return size * nmemb;
}

// Keeps the header lines of the last response (a status line starts over: a redirect's
// or an interim response's headers are not the answer's).
size_t AppendHeader(char* data, size_t size, size_t nmemb, void* user) {
  auto* headers = static_cast<std::vector<std::string>*>(user);
  std::string line(data, size * nmemb);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.starts_with("HTTP/")) {
    headers->clear();
  } else if (!line.empty()) {
    headers->push_back(std::move(line));
  }
  return size * nmemb;
}

class CurlHttpTransport : public HttpTransport {
 public:
  explicit CurlHttpTransport(HttpClientOptions options) : options_(std::move(options)) {}

  StatusOr<HttpAnswer> Send(const HttpExchange& x) override {
    CURL* e = Curl().easy_init();
    if (e == nullptr) return Status::Internal("curl_easy_init failed");
    curl_slist* headers = nullptr;
    for (const std::string& h : x.headers) headers = Curl().slist_append(headers, h.c_str());
    headers = Curl().slist_append(headers, "Expect:");
    HttpAnswer answer;
    char errbuf[CURL_ERROR_SIZE] = {};
    Curl().easy_setopt(e, CURLOPT_URL, x.url.c_str());
    Curl().easy_setopt(e, CURLOPT_HTTPHEADER, headers);
    if (x.method == "POST") {
      Curl().easy_setopt(e, CURLOPT_POST, 1L);
      Curl().easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(x.body.size()));
      Curl().easy_setopt(e, CURLOPT_POSTFIELDS, x.body.c_str());
    } else {
      Curl().easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    Curl().easy_setopt(e, CURLOPT_WRITEFUNCTION, AppendBody);
    Curl().easy_setopt(e, CURLOPT_WRITEDATA, &answer.body);
    Curl().easy_setopt(e, CURLOPT_HEADERFUNCTION, AppendHeader);
    Curl().easy_setopt(e, CURLOPT_HEADERDATA, &answer.headers);
    Curl().easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    Curl().easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    Curl().easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str());
    Curl().easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    Curl().easy_setopt(e, CURLOPT_HTTP_VERSION,
                       options_.http_version == HttpClientOptions::HttpVersion::kHttp11
                           ? static_cast<long>(CURL_HTTP_VERSION_1_1)
                           : static_cast<long>(CURL_HTTP_VERSION_2TLS));
    if (!options_.ca_file.empty()) Curl().easy_setopt(e, CURLOPT_CAINFO, options_.ca_file.c_str());
    Curl().easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                       static_cast<long>(options_.connect_timeout.count()));
    Curl().easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
    const CURLcode code = Curl().easy_perform(e);
    long status = 0;
    Curl().easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    Curl().easy_cleanup(e);
    Curl().slist_free_all(headers);
    if (code != CURLE_OK) {
      std::string message = fmt::format("{} ({})", Curl().easy_strerror(code),
                                        errbuf[0] != '\0' ? errbuf : "no detail");
      message = RedactSecret(message, options_.api_key);
      for (const HttpHeader& h : options_.headers) {
        if (h.value.size() >= 8) message = RedactSecret(message, h.value);
      }
      return Status::Unavailable(message);
    }
    answer.status = static_cast<int>(status);
    return answer;
  }

 private:
  HttpClientOptions options_;
};

}  // namespace

StatusOr<std::unique_ptr<HttpTransport>> NewCurlHttpTransport(const HttpClientOptions& options) {
  RETURN_IF_ERROR(LoadCurl().status());
  return std::unique_ptr<HttpTransport>(std::make_unique<CurlHttpTransport>(options));
}

}  // namespace structtest
