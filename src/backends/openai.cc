// OpenAI-compatible chat completions: OpenAI, vLLM, SGLang, llama.cpp server, Ollama's
// /v1, LM Studio, TGI.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "backends/providers.h"
#include "structtest/sample.h"
#include "backends/request_controls.h"
#include "core/json_dom.h"
#include "core/jsonl.h"
#include "core/record_io.h"

namespace structtest::internal {

namespace {

using simdjson::dom::element;

// OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, ...) refuse "max_tokens" and take
// "max_completion_tokens"; other OpenAI-compatible servers (vLLM, llama.cpp, Ollama)
// know "max_tokens" best.
std::string_view MaxTokensField(std::string_view model) {
  return IsOpenAiReasoningModel(model) ? "max_completion_tokens" : "max_tokens";
}

}  // namespace

StatusOr<HttpRequest> BuildOpenAiRequest(const ModelRequest& r, std::string_view base,
                                         std::string_view api_key) {
  const RequestControls& c = r.controls;
  if (c.thinking_budget) {
    return Status::InvalidArgument(
        "`request.thinking_budget`: openai takes no thinking budget (`request.reasoning_effort` "
        "sets how much "
        "a reasoning model thinks; `request.extra_body` passes a server's own field)");
  }
  // OpenAI's reasoning models refuse a temperature or top_p other than their default
  // (1): said before anything is sent, not by the provider on every request.
  if (IsOpenAiReasoningModel(r.model)) {
    if (r.temperature && *r.temperature != 1) {
      return Status::InvalidArgument(fmt::format(
          "`request.temperature` {}: openai's reasoning models ({}: o1, o3, o4-mini, gpt-5, "
          "...) take only their default temperature (send none: `request.no_temperature`)",
          *r.temperature, r.model));
    }
    if (c.top_p && *c.top_p != 1) {
      return Status::InvalidArgument(fmt::format(
          "`request.top_p` {}: openai's reasoning models ({}: o1, o3, o4-mini, gpt-5, ...) "
          "take only their default top_p",
          *c.top_p, r.model));
    }
  }
  // Every field but the messages, which are most of the body.
  nlohmann::json head = {{"model", r.model}, {"stream", false}};
  if (r.max_tokens > 0) head[MaxTokensField(r.model)] = r.max_tokens;
  if (r.temperature) head["temperature"] = *r.temperature;
  if (c.top_p) head["top_p"] = *c.top_p;
  if (!c.stop.empty()) head["stop"] = c.stop;
  if (c.seed) head["seed"] = *c.seed;
  if (!c.reasoning_effort.empty()) head["reasoning_effort"] = c.reasoning_effort;
  RETURN_IF_ERROR(MergeExtraBody(c.extra_body, &head, {"messages"}));
  HttpRequest out;
  out.url = JoinUrl(base, "chat/completions");
  out.headers.push_back("Content-Type: application/json");
  if (!api_key.empty()) out.headers.push_back(fmt::format("Authorization: Bearer {}", api_key));
  // The messages are written directly, not through a json value: against a fast local
  // server this body is a good share of the client's work. The bytes equal what
  // nlohmann writes (keys in its sorted order).
  std::string& b = out.body;
  size_t size = 64 + r.model.size();
  for (const Message& m : r.messages) size += 32 + m.role.size() + m.content.size();
  b.reserve(size);
  bool valid = true;
  bool messages_written = false;
  const auto write_messages = [&] {
    if (b.size() > 1) b += ',';
    b += "\"messages\":";
    valid = AppendMessagesJson(r.messages, &b);
    messages_written = true;
  };
  b += '{';
  for (const auto& [key, value] : head.items()) {
    if (!messages_written && key > "messages") write_messages();
    if (b.size() > 1) b += ',';
    valid = valid && AppendJsonString(key, &b);
    b += ':';
    b += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (!messages_written) write_messages();
  b += '}';
  if (!valid) {
    // Invalid UTF-8 somewhere: nlohmann replaces it (U+FFFD).
    nlohmann::json messages = nlohmann::json::array();
    for (const Message& m : r.messages) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    head["messages"] = std::move(messages);
    b = head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return out;
}

namespace {

// content is a string, null, or (some servers) an array of {"type":"text","text":...}.
bool ContentText(element content, std::string* out) {
  if (content.is_null()) return true;
  if (const auto s = AsString(content)) {
    out->assign(*s);
    return true;
  }
  if (!content.is_array()) return false;
  const simdjson::dom::array items = content.get_array().value_unsafe();
  for (const element part : items) {
    if (const auto s = StringMember(part, "text")) out->append(*s);
  }
  return true;
}

}  // namespace

Status ParseOpenAiBody(std::string_view body, ModelResult* out) {
  thread_local simdjson::dom::parser parser;
  element j;
  if (!ParseDom(parser, body, &j)) return Status::InvalidArgument("not JSON");
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  const std::optional<element> choices = LastMember(j, "choices");
  const std::optional<element> choice = choices ? FirstItem(*choices) : std::nullopt;
  if (!choice) return Status::InvalidArgument("no choices");
  const std::optional<element> message = LastMember(*choice, "message");
  if (!message || !message->is_object()) {
    return Status::InvalidArgument("choices[0] has no message");
  }
  std::string text;
  const std::optional<element> content = LastMember(*message, "content");
  if (content && !ContentText(*content, &text)) {
    return Status::InvalidArgument("message.content is not text");
  }
  std::string reasoning;
  for (const char* key : {"reasoning_content", "reasoning"}) {
    if (const auto r = StringMember(*message, key); r && !r->empty()) {
      reasoning.assign(*r);
      break;
    }
  }
  Response split = SplitThinking(text);
  if (!split.reasoning.empty()) {
    reasoning = reasoning.empty() ? split.reasoning : reasoning + "\n" + split.reasoning;
  }
  out->response = Response{std::move(split.text), std::move(reasoning)};
  if (const auto finish = StringMember(*choice, "finish_reason")) {
    out->finish_raw.assign(*finish);
    if (out->finish_raw == "stop" || out->finish_raw == "eos") {
      out->finish = FinishReason::kStop;
    } else if (out->finish_raw == "length") {
      out->finish = FinishReason::kLength;
    } else {
      out->finish = FinishReason::kOther;
    }
  }
  if (const auto usage = LastMember(j, "usage"); usage && usage->is_object()) {
    out->usage.input = IntegerMember(*usage, "prompt_tokens").value_or(0);
    out->usage.output = IntegerMember(*usage, "completion_tokens").value_or(0);
    if (const auto details = LastMember(*usage, "completion_tokens_details")) {
      out->usage.reasoning = IntegerMember(*details, "reasoning_tokens").value_or(0);
    }
  }
  if (const auto model = StringMember(j, "model")) out->served_model.assign(*model);
  return Status::Ok();
}

}  // namespace structtest::internal
