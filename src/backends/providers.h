// The wire formats of the three provider families, as pure functions: a ModelRequest
// becomes an HTTP request (URL, headers, JSON body), and an HTTP status plus body
// becomes a ModelResult. No I/O here, so every format is tested without a network;
// the transport (backends/http/) only moves bytes.
//   openai:    POST {base}/chat/completions          Authorization: Bearer KEY (if any)
//   anthropic: POST {base}/v1/messages               x-api-key, anthropic-version
//   gemini:    POST {base}/v1beta/models/NAME:generateContent   x-goog-api-key
#ifndef STRUCTTEST_BACKENDS_PROVIDERS_H_
#define STRUCTTEST_BACKENDS_PROVIDERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "backends/model_client.h"
#include "structtest/status.h"

namespace structtest {

struct HttpRequest {
  std::string url;
  // "Name: value" lines. They may carry the API key: never log them.
  std::vector<std::string> headers;
  std::string body;
};

// `base_url` without a trailing slash requirement; empty means DefaultBaseUrl().
// `api_key` may be empty (a local OpenAI-compatible server needs none).
// Errors: a request the provider cannot express (no messages, unknown role).
StatusOr<HttpRequest> BuildHttpRequest(Provider provider, const ModelRequest& request,
                                       std::string_view base_url, std::string_view api_key);

// Turns a complete HTTP reply into a result (id, latency and retry_after are left for
// the transport to fill in). 2xx with a body that is not a well-formed reply of the
// provider's API (not JSON, truncated, no choices/content where the API requires
// them) is kRetryable, as are 408, 429 and 5xx; other statuses kFatal, with the
// provider's error message when the body carries one. The message is prefixed with
// the provider name and never contains `api_key`.
ModelResult ParseHttpReply(Provider provider, int http_status, std::string_view body,
                           std::string_view api_key);

namespace internal {
// Per-provider pieces, exposed for tests. The parsers take a 2xx body.
StatusOr<HttpRequest> BuildOpenAiRequest(const ModelRequest& r, std::string_view base,
                                         std::string_view api_key);
StatusOr<HttpRequest> BuildAnthropicRequest(const ModelRequest& r, std::string_view base,
                                            std::string_view api_key);
StatusOr<HttpRequest> BuildGeminiRequest(const ModelRequest& r, std::string_view base,
                                         std::string_view api_key);
Status ParseOpenAiBody(std::string_view body, ModelResult* out);
Status ParseAnthropicBody(std::string_view body, ModelResult* out);
Status ParseGeminiBody(std::string_view body, ModelResult* out);
// Joins base and path with exactly one '/'.
std::string JoinUrl(std::string_view base, std::string_view path);
}  // namespace internal

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_PROVIDERS_H_
