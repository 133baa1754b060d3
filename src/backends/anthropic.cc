// Anthropic Messages API.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "backends/reasoning.h"
#include "core/json_dom.h"

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
  using simdjson::dom::element;
  thread_local simdjson::dom::parser parser;
  element j;
  if (!ParseDom(parser, body, &j)) return Status::InvalidArgument("not JSON");
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  const std::optional<element> content = LastMember(j, "content");
  if (!content || !content->is_array()) {
    return Status::InvalidArgument("no content array");
  }
  std::string text;
  std::string reasoning;
  const simdjson::dom::array blocks = content->get_array().value_unsafe();
  for (const element block : blocks) {
    const std::optional<std::string_view> type = StringMember(block, "type");
    if (!type) continue;
    if (*type == "text") {
      if (const auto t = StringMember(block, "text")) text.append(*t);
    } else if (*type == "thinking") {
      if (const auto t = StringMember(block, "thinking")) {
        if (!reasoning.empty()) reasoning += "\n";
        reasoning.append(*t);
      }
    }
  }
  Response split = SplitThinking(text);
  if (!split.reasoning.empty()) {
    reasoning = reasoning.empty() ? split.reasoning : reasoning + "\n" + split.reasoning;
  }
  out->response = Response{std::move(split.text), std::move(reasoning)};
  if (const auto stop = StringMember(j, "stop_reason")) {
    out->finish_raw.assign(*stop);
    if (out->finish_raw == "end_turn" || out->finish_raw == "stop_sequence") {
      out->finish = FinishReason::kStop;
    } else if (out->finish_raw == "max_tokens") {
      out->finish = FinishReason::kLength;
    } else {
      out->finish = FinishReason::kOther;
    }
  }
  if (const auto usage = LastMember(j, "usage"); usage && usage->is_object()) {
    if (const auto n = IntegerMember(*usage, "input_tokens")) out->usage.input = *n;
    if (const auto n = IntegerMember(*usage, "output_tokens")) out->usage.output = *n;
  }
  return Status::Ok();
}

}  // namespace structtest::internal
