// Anthropic Messages API.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "backends/providers.h"
#include "structtest/sample.h"
#include "core/json_dom.h"

namespace structtest::internal {

namespace {
constexpr int kAnthropicDefaultMaxTokens = 4096;  // the API requires max_tokens
constexpr std::string_view kAnthropicVersion = "2023-06-01";
}  // namespace

StatusOr<HttpRequest> BuildAnthropicRequest(const ModelRequest& r, std::string_view base,
                                            std::string_view api_key) {
  const RequestControls& c = r.controls;
  const int max_tokens = r.max_tokens > 0 ? r.max_tokens : kAnthropicDefaultMaxTokens;
  if (c.seed) {
    return Status::InvalidArgument("`request.sampling_seed`: anthropic takes no sampling seed");
  }
  if (!c.reasoning_effort.empty()) {
    return Status::InvalidArgument(
        "`request.reasoning_effort`: anthropic takes no reasoning effort "
        "(`request.thinking_budget` sets how "
        "much Claude thinks)");
  }
  if (r.temperature && *r.temperature > 1) {
    return Status::InvalidArgument(
        fmt::format("`request.temperature` {}: anthropic takes 0 to 1", *r.temperature));
  }
  if (c.thinking_budget) {
    // Extended thinking: budget_tokens of at least 1024, below max_tokens (which counts
    // the thinking), and no sampling changes but a top_p of 0.95 to 1.
    if (*c.thinking_budget < 1024) {
      return Status::InvalidArgument(fmt::format(
          "`request.thinking_budget` {}: anthropic takes 1024 tokens or more", *c.thinking_budget));
    }
    if (*c.thinking_budget >= max_tokens) {
      return Status::InvalidArgument(fmt::format(
          "`request.thinking_budget` {}: anthropic needs `request.max_tokens` above it (the "
          "thinking counts "
          "toward max_tokens, {} {})",
          *c.thinking_budget, r.max_tokens > 0 ? "given as" : "by default", max_tokens));
    }
    if (r.temperature && *r.temperature != 1) {
      return Status::InvalidArgument(fmt::format(
          "`request.temperature` {}: anthropic takes none with `request.thinking_budget` (extended "
          "thinking)",
          *r.temperature));
    }
    if (c.top_p && *c.top_p < 0.95) {
      return Status::InvalidArgument(fmt::format(
          "`request.top_p` {}: anthropic takes 0.95 to 1 with "
          "`request.thinking_budget`", *c.top_p));
    }
  }
  nlohmann::json body = {{"model", r.model}, {"max_tokens", max_tokens}};
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
  if (c.top_p) body["top_p"] = *c.top_p;
  if (!c.stop.empty()) body["stop_sequences"] = c.stop;
  if (c.thinking_budget) {
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *c.thinking_budget}};
  }
  RETURN_IF_ERROR(MergeExtraBody(c.extra_body, &body));
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
  if (const auto model = StringMember(j, "model")) out->served_model.assign(*model);
  return Status::Ok();
}

}  // namespace structtest::internal
