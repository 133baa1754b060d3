#include "backends/providers.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"

namespace structtest {
namespace internal {

std::string JoinUrl(std::string_view base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return fmt::format("{}/{}", base, path);
}

namespace {

// The field of RequestSettings that sets the body field `key` (any provider's
// spelling), in backticks, or "".
std::string_view FlagOfField(std::string_view key) {
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
      {"max_tokens", "`request.max_tokens`"},
      {"max_completion_tokens", "`request.max_tokens`"},
      {"maxOutputTokens", "`request.max_tokens`"},
      {"temperature", "`request.temperature`"},
      {"top_p", "`request.top_p`"},
      {"topP", "`request.top_p`"},
      {"stop", "`request.stop`"},
      {"stop_sequences", "`request.stop`"},
      {"stopSequences", "`request.stop`"},
      {"seed", "`request.sampling_seed`"},
      {"reasoning_effort", "`request.reasoning_effort`"},
      {"thinkingLevel", "`request.reasoning_effort`"},
      {"thinking", "`request.thinking_budget`"},
      {"thinkingBudget", "`request.thinking_budget`"},
      {"system", "`request.system`"},
      {"systemInstruction", "`request.system`"}};
  for (const auto& [field, flag] : kFlags) {
    if (field == key) return flag;
  }
  return "";
}

Status MergeAt(const nlohmann::json& extra, nlohmann::json* body, const std::string& path,
               std::initializer_list<std::string_view> reserved) {
  for (const auto& [key, value] : extra.items()) {
    const std::string at = path.empty() ? key : path + "." + key;
    const auto it = body->find(key);
    const bool taken = it != body->end() ||
                       std::find(reserved.begin(), reserved.end(), key) != reserved.end();
    if (!taken) {
      (*body)[key] = value;
      continue;
    }
    if (it != body->end() && it->is_object() && value.is_object()) {
      RETURN_IF_ERROR(MergeAt(value, &*it, at, {}));
      continue;
    }
    const std::string_view flag = FlagOfField(key);
    return Status::InvalidArgument(fmt::format(
        "`request.extra_body`: '{}' is in the request already ({})", at,
        flag.empty() ? std::string("structtest writes it") : fmt::format("set it with {}", flag)));
  }
  return Status::Ok();
}

}  // namespace

Status MergeExtraBody(const nlohmann::json& extra, nlohmann::json* body,
                      std::initializer_list<std::string_view> reserved) {
  if (extra.is_null()) return Status::Ok();
  return MergeAt(extra, body, "", reserved);
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

Status CheckControlRanges(const ModelRequest& r) {
  const RequestControls& c = r.controls;
  if (r.temperature && !(*r.temperature >= 0 && *r.temperature <= 2)) {
    return Status::InvalidArgument(fmt::format("`request.temperature` {}: expected 0 to "
                                               "2", *r.temperature));
  }
  if (c.top_p && !(*c.top_p > 0 && *c.top_p <= 1)) {
    return Status::InvalidArgument(
        fmt::format("`request.top_p` {}: expected more than 0 and at most 1", *c.top_p));
  }
  for (const std::string& s : c.stop) {
    if (s.empty()) return Status::InvalidArgument("`request.stop` '': a stop sequence cannot be "
                                                  "empty");
  }
  if (c.seed && (*c.seed < 0 || *c.seed > 2147483647)) {
    return Status::InvalidArgument(
        fmt::format("`request.sampling_seed` {}: expected 0 to 2147483647", *c.seed));
  }
  if (!c.reasoning_effort.empty()) {
    constexpr std::string_view kEfforts[] = {"none", "minimal", "low", "medium", "high", "xhigh"};
    if (std::find(std::begin(kEfforts), std::end(kEfforts), c.reasoning_effort) ==
        std::end(kEfforts)) {
      return Status::InvalidArgument(
          fmt::format("`request.reasoning_effort` {}: expected none, minimal, low, medium, high or "
                      "xhigh",
                      c.reasoning_effort));
    }
  }
  if (!c.extra_body.is_null() && !c.extra_body.is_object()) {
    return Status::InvalidArgument("`request.extra_body`: expected a JSON object");
  }
  return Status::Ok();
}

StatusOr<HttpRequest> BuildHttpRequest(Provider provider, const ModelRequest& request,
                                       std::string_view base_url, std::string_view api_key,
                                       const std::vector<HttpHeader>& headers) {
  if (!request.controls.system.empty()) {
    // A system message before the prompt: each builder maps it to its provider's field.
    ModelRequest with_system = request;
    with_system.messages.insert(with_system.messages.begin(),
                                Message{"system", std::move(with_system.controls.system)});
    with_system.controls.system.clear();
    return BuildHttpRequest(provider, with_system, base_url, api_key, headers);
  }
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
  RETURN_IF_ERROR(CheckControlRanges(request));
  if (base_url.empty()) base_url = DefaultBaseUrl(provider);
  StatusOr<HttpRequest> out = Status::Internal("unknown provider");
  switch (provider) {
    case Provider::kOpenAi: out = internal::BuildOpenAiRequest(request, base_url, api_key); break;
    case Provider::kAnthropic:
      out = internal::BuildAnthropicRequest(request, base_url, api_key);
      break;
    case Provider::kGemini: out = internal::BuildGeminiRequest(request, base_url, api_key); break;
  }
  if (!out.ok() || headers.empty()) return out;
  std::vector<std::string>& lines = out->headers;
  for (const HttpHeader& h : headers) {
    std::erase_if(lines, [&](std::string_view line) {
      return SameHeaderName(line.substr(0, line.find(':')), h.name);
    });
    lines.push_back(fmt::format("{}: {}", h.name, h.value));
  }
  return out;
}

Status CheckRequestSettings(Provider provider, ModelRequest request) {
  // With a system message: a sample may have one.
  request.messages = {Message{"system", "?"}, Message{"user", "?"}};
  if (request.model.empty()) request.model = "model";
  return BuildHttpRequest(provider, request, "", "").status();
}

std::optional<double> DefaultTemperature(const ModelSpec& model, const RequestControls& controls) {
  if (controls.top_p) return std::nullopt;
  if (model.provider == Provider::kOpenAi && IsOpenAiReasoningModel(model.name)) return std::nullopt;
  if (model.provider == Provider::kAnthropic && controls.thinking_budget) return std::nullopt;
  return 0.0;
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
