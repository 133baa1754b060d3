// The wire formats of the three provider families, as pure functions: a ModelRequest
// becomes an HTTP request (URL, headers, JSON body), and an HTTP status plus body
// becomes a ModelResult. No I/O here, so every format is tested without a network;
// the transport (backends/http/) only moves bytes.
//   openai:    POST {base}/chat/completions          Authorization: Bearer KEY (if any)
//   anthropic: POST {base}/v1/messages               x-api-key, anthropic-version
//   gemini:    POST {base}/v1beta/models/NAME:generateContent   x-goog-api-key
#ifndef STRUCTTEST_BACKENDS_PROVIDERS_H_
#define STRUCTTEST_BACKENDS_PROVIDERS_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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
// `api_key` may be empty (a local OpenAI-compatible server needs none). `headers` are
// added last, each replacing a header of the same name (case-insensitive).
// The request's controls go into the provider's own fields:
//              openai             anthropic                  gemini (generationConfig.)
//   system     messages[0]        system                     systemInstruction (top level)
//   top_p      top_p              top_p                      topP
//   stop       stop               stop_sequences             stopSequences
//   seed       seed               -                          seed
//   reasoning  reasoning_effort   -                          thinkingConfig.thinkingLevel
//   thinking   -                  thinking.budget_tokens     thinkingConfig.thinkingBudget
// and extra_body is merged into the body last, objects into objects.
// Errors: a request the provider cannot express (no messages, unknown role), a control
// out of its range or one the provider cannot take ("-" above, and its own limits),
// named by the run's flag and the provider, and extra_body setting a field the body has
// already.
StatusOr<HttpRequest> BuildHttpRequest(Provider provider, const ModelRequest& request,
                                       std::string_view base_url, std::string_view api_key,
                                       const std::vector<HttpHeader>& headers = {});

// The checks of `request`'s temperature and controls that hold for every provider (the
// ranges of BuildHttpRequest's errors).
Status CheckControlRanges(const ModelRequest& request);

// Whether every request of a run, `request` but for its messages, can be expressed for
// `provider`: BuildHttpRequest's errors, found before anything is sent.
Status CheckRequestSettings(Provider provider, ModelRequest request);

// The temperature a run asks for when it gives none: 0, the most reproducible choice
// (the provider's default differs between providers and models, and samples), except
// for a run that sets top_p (providers advise setting one of the two, and recent
// Claude models refuse both), OpenAI's reasoning models (they take their default only)
// and Anthropic's extended thinking (it takes no temperature): nullopt there, and the
// provider's default applies.
std::optional<double> DefaultTemperature(const ModelSpec& model, const RequestControls& controls);

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
// Merges `extra` (request.controls.extra_body, an object or null) into `body`: an
// object into an object, key by key; anything else only where `body` has no such key
// and, at the top level, the key is not one of `reserved` (fields the builder writes
// later). Errors name the field's path and the flag that sets it.
Status MergeExtraBody(const nlohmann::json& extra, nlohmann::json* body,
                      std::initializer_list<std::string_view> reserved = {});
}  // namespace internal

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_PROVIDERS_H_
