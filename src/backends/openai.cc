// OpenAI-compatible chat completions: OpenAI, vLLM, SGLang, llama.cpp server, Ollama's
// /v1, LM Studio, TGI.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "core/jsonl.h"
#include "backends/reasoning.h"

namespace structtest::internal {

namespace {

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
  b += "\"messages\":[";
  for (size_t i = 0; i < r.messages.size() && valid; ++i) {
    b += i == 0 ? "{\"content\":" : ",{\"content\":";
    valid = AppendJsonString(r.messages[i].content, &b);
    b += ",\"role\":";
    valid = valid && AppendJsonString(r.messages[i].role, &b);
    b += '}';
  }
  b += "],\"model\":";
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
bool ContentText(const nlohmann::json& content, std::string* out) {
  if (content.is_null()) return true;
  if (content.is_string()) {
    *out = content.get<std::string>();
    return true;
  }
  if (!content.is_array()) return false;
  for (const auto& part : content) {
    if (part.is_object() && part.contains("text") && part["text"].is_string()) {
      *out += part["text"].get<std::string>();
    }
  }
  return true;
}

int64_t IntField(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return 0;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

Status ParseOpenAiBody(std::string_view body, ModelResult* out) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("not JSON");
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  const auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) {
    return Status::InvalidArgument("no choices");
  }
  const nlohmann::json& choice = (*choices)[0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    return Status::InvalidArgument("choices[0] has no message");
  }
  const nlohmann::json& message = choice["message"];
  std::string text;
  if (message.contains("content") && !ContentText(message["content"], &text)) {
    return Status::InvalidArgument("message.content is not text");
  }
  std::string reasoning;
  for (const char* key : {"reasoning_content", "reasoning"}) {
    const auto it = message.find(key);
    if (it != message.end() && it->is_string() && !it->get<std::string>().empty()) {
      reasoning = it->get<std::string>();
      break;
    }
  }
  Response split = SplitThinking(text);
  if (!split.reasoning.empty()) {
    reasoning = reasoning.empty() ? split.reasoning : reasoning + "\n" + split.reasoning;
  }
  out->response = Response{std::move(split.text), std::move(reasoning)};
  const auto finish = choice.find("finish_reason");
  if (finish != choice.end() && finish->is_string()) {
    out->finish_raw = finish->get<std::string>();
    if (out->finish_raw == "stop" || out->finish_raw == "eos") {
      out->finish = FinishReason::kStop;
    } else if (out->finish_raw == "length") {
      out->finish = FinishReason::kLength;
    } else {
      out->finish = FinishReason::kOther;
    }
  }
  const auto usage = j.find("usage");
  if (usage != j.end() && usage->is_object()) {
    out->usage.input = IntField(*usage, "prompt_tokens");
    out->usage.output = IntField(*usage, "completion_tokens");
    const auto details = usage->find("completion_tokens_details");
    if (details != usage->end()) out->usage.reasoning = IntField(*details, "reasoning_tokens");
  }
  return Status::Ok();
}

}  // namespace structtest::internal
