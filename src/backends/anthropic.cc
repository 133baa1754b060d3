// Anthropic Messages API.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "backends/reasoning.h"

namespace structtest::internal {

namespace {
constexpr int kAnthropicDefaultMaxTokens = 4096;  // the API requires max_tokens
constexpr std::string_view kAnthropicVersion = "2023-06-01";
}  // namespace

StatusOr<HttpRequest> BuildAnthropicRequest(const ModelRequest& r, std::string_view base,
                                            std::string_view api_key) {
  nlohmann::json body = {{"model", r.model},
                         {"max_tokens", r.max_tokens > 0 ? r.max_tokens
                                                         : kAnthropicDefaultMaxTokens}};
  std::string system;
  nlohmann::json messages = nlohmann::json::array();
  for (const Message& m : r.messages) {
    if (m.role == "system") {
      if (!system.empty()) system += "\n\n";
      system += m.content;
      continue;
    }
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  if (messages.empty()) {
    return Status::InvalidArgument(fmt::format("request {}: no user message", r.id));
  }
  if (!system.empty()) body["system"] = system;
  body["messages"] = std::move(messages);
  if (r.temperature) body["temperature"] = *r.temperature;
  HttpRequest out;
  out.url = JoinUrl(base, "v1/messages");
  out.headers.push_back("Content-Type: application/json");
  out.headers.push_back(fmt::format("anthropic-version: {}", kAnthropicVersion));
  if (!api_key.empty()) out.headers.push_back(fmt::format("x-api-key: {}", api_key));
  out.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

Status ParseAnthropicBody(std::string_view body, ModelResult* out) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("not JSON");
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  const auto content = j.find("content");
  if (content == j.end() || !content->is_array()) {
    return Status::InvalidArgument("no content array");
  }
  std::string text;
  std::string reasoning;
  for (const auto& block : *content) {
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) continue;
    const std::string type = block["type"].get<std::string>();
    if (type == "text" && block.contains("text") && block["text"].is_string()) {
      text += block["text"].get<std::string>();
    } else if (type == "thinking" && block.contains("thinking") &&
               block["thinking"].is_string()) {
      if (!reasoning.empty()) reasoning += "\n";
      reasoning += block["thinking"].get<std::string>();
    }
  }
  Response split = SplitThinking(text);
  if (!split.reasoning.empty()) {
    reasoning = reasoning.empty() ? split.reasoning : reasoning + "\n" + split.reasoning;
  }
  out->response = Response{std::move(split.text), std::move(reasoning)};
  const auto stop = j.find("stop_reason");
  if (stop != j.end() && stop->is_string()) {
    out->finish_raw = stop->get<std::string>();
    if (out->finish_raw == "end_turn" || out->finish_raw == "stop_sequence") {
      out->finish = FinishReason::kStop;
    } else if (out->finish_raw == "max_tokens") {
      out->finish = FinishReason::kLength;
    } else {
      out->finish = FinishReason::kOther;
    }
  }
  const auto usage = j.find("usage");
  if (usage != j.end() && usage->is_object()) {
    if (usage->contains("input_tokens") && (*usage)["input_tokens"].is_number_integer()) {
      out->usage.input = (*usage)["input_tokens"].get<int64_t>();
    }
    if (usage->contains("output_tokens") && (*usage)["output_tokens"].is_number_integer()) {
      out->usage.output = (*usage)["output_tokens"].get<int64_t>();
    }
  }
  return Status::Ok();
}

}  // namespace structtest::internal
