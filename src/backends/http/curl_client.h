// The HTTP ModelClient: one libcurl multi handle drives every request of a run in a
// single event loop, with N transfers in flight, connections kept and reused across
// requests, HTTP/2 multiplexing where the server offers it, and connect, idle and total
// timeouts. libcurl is used only inside src/backends/http/; the wire formats live in
// backends/providers.h. Transport failures come back as error results: a connect
// failure, timeout, reset or truncated body is kRetryable; a body over the size limit
// is kFatal. The API key (and the values of extra headers) travel only in request
// headers and are scrubbed from every error message.
#ifndef STRUCTTEST_BACKENDS_HTTP_CURL_CLIENT_H_
#define STRUCTTEST_BACKENDS_HTTP_CURL_CLIENT_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backends/model_client.h"
#include "structtest/status.h"

namespace structtest {

struct HttpClientOptions {
  Provider provider = Provider::kOpenAi;
  std::string base_url;  // empty: DefaultBaseUrl(provider)
  // Several replicas of one model, served from the one event loop: a request goes to
  // base_urls[request.endpoint]. Empty: the single endpoint `base_url`.
  std::vector<std::string> base_urls;
  std::string api_key;   // may be empty; see ApiKeyFromEnvironment()
  // Sent with every request (--header), replacing a header of the same name. Values of
  // 8 characters or more are scrubbed from error messages as the key is.
  std::vector<HttpHeader> headers;
  size_t max_in_flight = 16;  // over all endpoints
  std::chrono::milliseconds connect_timeout{10'000};
  // Give up on a transfer that received no byte for this long. Without streaming, a
  // model sends nothing until its answer is complete, so this bounds the time to the
  // first byte too and must exceed the longest generation.
  std::chrono::milliseconds idle_timeout{300'000};
  // Give up on a transfer that took this long in all.
  std::chrono::milliseconds total_timeout{600'000};
  // A larger response body fails the request (kFatal) instead of eating memory: at
  // most this much per request in flight. An answer is bounded by its token limit
  // (100k tokens are well under 1 MB), so only a broken or hostile server gets near.
  size_t max_body_bytes = size_t{16} << 20;
  std::string user_agent = "structtest/0.1";
  // PEM file of the certificate authorities to trust for https endpoints instead of
  // the system's (a private CA, a self-signed server). Empty: the system's.
  std::string ca_file;
  // HTTP/2 over TLS when the server offers it (many requests multiplexed over few
  // connections), HTTP/1.1 otherwise; kHttp11 never asks for HTTP/2 (a proxy that
  // mishandles it, or to compare the two).
  enum class HttpVersion { kAuto, kHttp11 };
  HttpVersion http_version = HttpVersion::kAuto;
};

// The key of `provider` from its usual environment variable (OPENAI_API_KEY, ...), or
// "" when unset.
std::string ApiKeyFromEnvironment(Provider provider);

// REQUIRES: options.max_in_flight >= 1. Errors: libcurl could not be initialised.
StatusOr<std::unique_ptr<ModelClient>> NewCurlModelClient(HttpClientOptions options);

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_HTTP_CURL_CLIENT_H_
