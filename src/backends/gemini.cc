// Gemini generateContent. The key travels in the x-goog-api-key header, never in the
// URL, so it cannot leak through a logged URL or a curl error message.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "backends/reasoning.h"

namespace structtest::internal {

StatusOr<HttpRequest> BuildGeminiRequest(const ModelRequest& r, std::string_view base,
                                         std::string_view api_key) {
  for (const char c : r.model) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
    if (!plain) {
      return Status::InvalidArgument(
          fmt::format("gemini model name '{}': unexpected character '{}'", r.model, c));
    }
  }
  nlohmann::json body = nlohmann::json::object();
  std::string system;
  nlohmann::json contents = nlohmann::json::array();
  for (const Message& m : r.messages) {
    if (m.role == "system") {
      if (!system.empty()) system += "\n\n";
      system += m.content;
      continue;
    }
    contents.push_back({{"role", m.role == "assistant" ? "model" : "user"},
                        {"parts", nlohmann::json::array({{{"text", m.content}}})}});
  }
  if (contents.empty()) {
    return Status::InvalidArgument(fmt::format("request {}: no user message", r.id));
  }
  body["contents"] = std::move(contents);
  if (!system.empty()) {
    body["systemInstruction"] = {{"parts", nlohmann::json::array({{{"text", system}}})}};
  }
  nlohmann::json config = nlohmann::json::object();
  if (r.max_tokens > 0) config["maxOutputTokens"] = r.max_tokens;
  if (r.temperature) config["temperature"] = *r.temperature;
  if (!config.empty()) body["generationConfig"] = std::move(config);
  HttpRequest out;
  out.url = JoinUrl(base, fmt::format("v1beta/models/{}:generateContent", r.model));
  out.headers.push_back("Content-Type: application/json");
  if (!api_key.empty()) out.headers.push_back(fmt::format("x-goog-api-key: {}", api_key));
  out.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

Status ParseGeminiBody(std::string_view body, ModelResult* out) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("not JSON");
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  const auto usage = j.find("usageMetadata");
  if (usage != j.end() && usage->is_object()) {
    auto get = [&](const char* key) -> int64_t {
      const auto it = usage->find(key);
      return it != usage->end() && it->is_number_integer() ? it->get<int64_t>() : 0;
    };
    out->usage.reasoning = get("thoughtsTokenCount");
    out->usage.input = get("promptTokenCount");
    out->usage.output = get("candidatesTokenCount") + out->usage.reasoning;
  }
  const auto candidates = j.find("candidates");
  if (candidates == j.end() || !candidates->is_array() || candidates->empty()) {
    // A prompt the service refused to answer: an (empty) answer, not a transport error.
    const auto feedback = j.find("promptFeedback");
    if (feedback != j.end() && feedback->is_object() && feedback->contains("blockReason")) {
      out->finish = FinishReason::kOther;
      out->finish_raw = (*feedback)["blockReason"].is_string()
                            ? (*feedback)["blockReason"].get<std::string>()
                            : "blocked";
      return Status::Ok();
    }
    return Status::InvalidArgument("no candidates");
  }
  const nlohmann::json& cand = (*candidates)[0];
  if (!cand.is_object()) return Status::InvalidArgument("candidates[0] is not an object");
  std::string text;
  std::string reasoning;
  const auto content = cand.find("content");
  if (content != cand.end() && content->is_object() && content->contains("parts") &&
      (*content)["parts"].is_array()) {
    for (const auto& part : (*content)["parts"]) {
      if (!part.is_object() || !part.contains("text") || !part["text"].is_string()) continue;
      const bool thought = part.contains("thought") && part["thought"].is_boolean() &&
                           part["thought"].get<bool>();
      std::string& dst = thought ? reasoning : text;
      dst += part["text"].get<std::string>();
    }
  }
  Response split = SplitThinking(text);
  if (!split.reasoning.empty()) {
    reasoning = reasoning.empty() ? split.reasoning : reasoning + "\n" + split.reasoning;
  }
  out->response = Response{std::move(split.text), std::move(reasoning)};
  const auto finish = cand.find("finishReason");
  if (finish != cand.end() && finish->is_string()) {
    out->finish_raw = finish->get<std::string>();
    if (out->finish_raw == "STOP") {
      out->finish = FinishReason::kStop;
    } else if (out->finish_raw == "MAX_TOKENS") {
      out->finish = FinishReason::kLength;
    } else {
      out->finish = FinishReason::kOther;
    }
  }
  return Status::Ok();
}

}  // namespace structtest::internal
