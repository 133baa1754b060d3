// OpenAI-compatible chat completions: OpenAI, vLLM, SGLang, llama.cpp server, Ollama's
// /v1, LM Studio, TGI.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "backends/reasoning.h"
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
  const bool o_series = model.size() >= 2 && model[0] == 'o' && model[1] >= '1' && model[1] <= '9';
  return o_series || model.starts_with("gpt-5") ? "max_completion_tokens" : "max_tokens";
}

}  // namespace

StatusOr<HttpRequest> BuildOpenAiRequest(const ModelRequest& r, std::string_view base,
                                         std::string_view api_key) {
  HttpRequest out;
  out.url = JoinUrl(base, "chat/completions");
  out.headers.push_back("Content-Type: application/json");
  if (!api_key.empty()) out.headers.push_back(fmt::format("Authorization: Bearer {}", api_key));
  // Written directly, not through a json value: against a fast local server this body
  // is a good share of the client's work. The bytes equal what nlohmann writes.
  std::string& b = out.body;
  size_t size = 64 + r.model.size();
  for (const Message& m : r.messages) size += 32 + m.role.size() + m.content.size();
  b.reserve(size);
  // Keys in nlohmann's (sorted) order.
  bool valid = true;
  b += '{';
  if (r.max_tokens > 0) b += fmt::format("\"{}\":{},", MaxTokensField(r.model), r.max_tokens);
  b += "\"messages\":";
  valid = AppendMessagesJson(r.messages, &b);
  b += ",\"model\":";
  valid = valid && AppendJsonString(r.model, &b);
  b += ",\"stream\":false";
  if (r.temperature) b += ",\"temperature\":" + nlohmann::json(*r.temperature).dump();
  b += '}';
  if (!valid) {
    // Invalid UTF-8 somewhere: nlohmann replaces it (U+FFFD).
    nlohmann::json body = {{"model", r.model}, {"stream", false}};
    nlohmann::json messages = nlohmann::json::array();
    for (const Message& m : r.messages) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    body["messages"] = std::move(messages);
    if (r.max_tokens > 0) body[MaxTokensField(r.model)] = r.max_tokens;
    if (r.temperature) body["temperature"] = *r.temperature;
    b = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
  return Status::Ok();
}

}  // namespace structtest::internal
