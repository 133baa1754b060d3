#include "backends/providers.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace structtest {
namespace internal {

std::string JoinUrl(std::string_view base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return fmt::format("{}/{}", base, path);
}

}  // namespace internal

namespace {

// The human part of an error body: {"error":{"message":...}} (OpenAI, Anthropic,
// Gemini all use it), {"error":"..."} (some local servers), else the raw start.
std::string ErrorDetail(std::string_view body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    const auto it = j.find("error");
    if (it != j.end()) {
      if (it->is_string()) return it->get<std::string>();
      if (it->is_object()) {
        const auto m = it->find("message");
        if (m != it->end() && m->is_string()) return m->get<std::string>();
      }
    }
    const auto m = j.find("message");
    if (m != j.end() && m->is_string()) return m->get<std::string>();
  }
  std::string raw(body.substr(0, 200));
  for (char& c : raw) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return raw;
}

}  // namespace

StatusOr<HttpRequest> BuildHttpRequest(Provider provider, const ModelRequest& request,
                                       std::string_view base_url, std::string_view api_key) {
  if (request.messages.empty()) {
    return Status::InvalidArgument(fmt::format("request {}: no messages", request.id));
  }
  if (request.model.empty()) {
    return Status::InvalidArgument(fmt::format("request {}: no model name", request.id));
  }
  for (const Message& m : request.messages) {
    if (m.role != "system" && m.role != "user" && m.role != "assistant") {
      return Status::InvalidArgument(
          fmt::format("request {}: unknown message role '{}'", request.id, m.role));
    }
  }
  if (base_url.empty()) base_url = DefaultBaseUrl(provider);
  switch (provider) {
    case Provider::kOpenAi: return internal::BuildOpenAiRequest(request, base_url, api_key);
    case Provider::kAnthropic:
      return internal::BuildAnthropicRequest(request, base_url, api_key);
    case Provider::kGemini: return internal::BuildGeminiRequest(request, base_url, api_key);
  }
  return Status::Internal("unknown provider");
}

ModelResult ParseHttpReply(Provider provider, int http_status, std::string_view body,
                           std::string_view api_key) {
  ModelResult out;
  out.http_status = http_status;
  const std::string_view name = ProviderName(provider);
  if (http_status < 200 || http_status > 299) {
    const bool retryable = http_status == 408 || http_status == 429 || http_status >= 500;
    out.error = retryable ? ErrorKind::kRetryable : ErrorKind::kFatal;
    std::string detail = ErrorDetail(body);
    if (detail.size() > 300) detail.resize(300);
    out.error_message = RedactSecret(
        detail.empty() ? fmt::format("{}: HTTP {}", name, http_status)
                       : fmt::format("{}: HTTP {}: {}", name, http_status, detail),
        api_key);
    return out;
  }
  Status st;
  switch (provider) {
    case Provider::kOpenAi: st = internal::ParseOpenAiBody(body, &out); break;
    case Provider::kAnthropic: st = internal::ParseAnthropicBody(body, &out); break;
    case Provider::kGemini: st = internal::ParseGeminiBody(body, &out); break;
  }
  if (!st.ok()) {
    out.response = Response{};
    out.finish = FinishReason::kUnknown;
    // Not a reply of the provider's API (cut short, an HTML error page of a proxy, no
    // choices): a fault on the way, like a 5xx. A well-formed reply with an empty
    // answer, a refusal or a filtered answer parses fine and is scored.
    out.error = ErrorKind::kRetryable;
    out.error_message = RedactSecret(
        fmt::format("{}: HTTP {}: malformed response body: {}", name, http_status, st.message()),
        api_key);
  }
  return out;
}

}  // namespace structtest
