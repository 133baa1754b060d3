// Gemini generateContent. The key travels in the x-goog-api-key header, never in the
// URL, so it cannot leak through a logged URL or a curl error message.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "backends/providers.h"
#include "structtest/sample.h"
#include "core/json_dom.h"

namespace structtest::internal {

StatusOr<HttpRequest> BuildGeminiRequest(const ModelRequest& r, std::string_view base,
                                         std::string_view api_key) {
  const RequestControls& c = r.controls;
  if (!c.reasoning_effort.empty()) {
    constexpr std::string_view kLevels[] = {"minimal", "low", "medium", "high"};
    if (std::find(std::begin(kLevels), std::end(kLevels), c.reasoning_effort) == std::end(kLevels)) {
      return Status::InvalidArgument(fmt::format(
          "`request.reasoning_effort` {}: gemini takes minimal, low, medium or high (its thinking "
          "level)",
          c.reasoning_effort));
    }
    if (c.thinking_budget) {
      return Status::InvalidArgument(
          "`request.reasoning_effort`: gemini takes a thinking level or `request.thinking_budget`, "
          "not both");
    }
  }
  if (c.thinking_budget && *c.thinking_budget < -1) {
    return Status::InvalidArgument(fmt::format(
        "`request.thinking_budget` {}: gemini takes -1 (the model decides), 0 (no thinking) or a "
        "number of tokens",
        *c.thinking_budget));
  }
  if (c.stop.size() > 5) {
    return Status::InvalidArgument(
        fmt::format("`request.stop`: gemini takes at most 5 stop sequences, not "
                    "{}", c.stop.size()));
  }
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
  if (c.top_p) config["topP"] = *c.top_p;
  if (!c.stop.empty()) config["stopSequences"] = c.stop;
  if (c.seed) config["seed"] = *c.seed;
  if (!c.reasoning_effort.empty()) config["thinkingConfig"]["thinkingLevel"] = c.reasoning_effort;
  if (c.thinking_budget) config["thinkingConfig"]["thinkingBudget"] = *c.thinking_budget;
  if (!config.empty()) body["generationConfig"] = std::move(config);
  RETURN_IF_ERROR(MergeExtraBody(c.extra_body, &body));
  HttpRequest out;
  out.url = JoinUrl(base, fmt::format("v1beta/models/{}:generateContent", r.model));
  out.headers.push_back("Content-Type: application/json");
  if (!api_key.empty()) out.headers.push_back(fmt::format("x-goog-api-key: {}", api_key));
  out.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

Status ParseGeminiBody(std::string_view body, ModelResult* out) {
  using simdjson::dom::element;
  thread_local simdjson::dom::parser parser;
  element j;
  if (!ParseDom(parser, body, &j)) return Status::InvalidArgument("not JSON");
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  if (const auto usage = LastMember(j, "usageMetadata"); usage && usage->is_object()) {
    auto get = [&](std::string_view key) { return IntegerMember(*usage, key).value_or(0); };
    out->usage.reasoning = get("thoughtsTokenCount");
    out->usage.input = get("promptTokenCount");
    out->usage.output = get("candidatesTokenCount") + out->usage.reasoning;
  }
  if (const auto model = StringMember(j, "modelVersion")) out->served_model.assign(*model);
  const std::optional<element> candidates = LastMember(j, "candidates");
  const std::optional<element> cand = candidates ? FirstItem(*candidates) : std::nullopt;
  if (!cand) {
    // A prompt the service refused to answer: an (empty) answer, not a transport error.
    const std::optional<element> feedback = LastMember(j, "promptFeedback");
    if (feedback && feedback->is_object() && LastMember(*feedback, "blockReason")) {
      out->finish = FinishReason::kOther;
      out->finish_raw = StringMember(*feedback, "blockReason").value_or("blocked");
      return Status::Ok();
    }
    return Status::InvalidArgument("no candidates");
  }
  if (!cand->is_object()) return Status::InvalidArgument("candidates[0] is not an object");
  std::string text;
  std::string reasoning;
  const std::optional<element> content = LastMember(*cand, "content");
  const std::optional<element> parts = content ? LastMember(*content, "parts") : std::nullopt;
  if (parts && parts->is_array()) {
    const simdjson::dom::array items = parts->get_array().value_unsafe();
    for (const element part : items) {
      const std::optional<std::string_view> t = StringMember(part, "text");
      if (!t) continue;
      const std::optional<element> thought = LastMember(part, "thought");
      const bool is_thought = thought && thought->is_bool() && thought->get_bool().value_unsafe();
      (is_thought ? reasoning : text).append(*t);
    }
  }
  Response split = SplitThinking(text);
  if (!split.reasoning.empty()) {
    reasoning = reasoning.empty() ? split.reasoning : reasoning + "\n" + split.reasoning;
  }
  out->response = Response{std::move(split.text), std::move(reasoning)};
  if (const auto finish = StringMember(*cand, "finishReason")) {
    out->finish_raw.assign(*finish);
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
