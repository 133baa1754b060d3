// The provider replies are read with simdjson (core/json_dom.h). They must read as
// they did with nlohmann: every reply below, valid, hostile, and thousands of random
// mutations of real replies' shapes, goes through each provider's parser and through
// the nlohmann reader it replaced (kept here verbatim as the reference), and the two
// results are compared field for field.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "structtest/sample.h"
#include "core/rng.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

namespace reference {

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


Status OpenAi(std::string_view body, ModelResult* out) {
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

Status Anthropic(std::string_view body, ModelResult* out) {
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

Status Gemini(std::string_view body, ModelResult* out) {
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

}  // namespace reference

using ::structtest::testing::MutateJson;

using Parser = Status (*)(std::string_view, ModelResult*);

// Everything a parser sets, for comparing two results.
std::string Describe(Parser parse, const std::string& body) {
  ModelResult r;
  const Status s = parse(body, &r);
  return fmt::format("status={} text={} reasoning={} finish={} raw={} usage={}/{}/{}",
                     s.ok() ? "ok" : s.message(), nlohmann::json(r.response.text).dump(),
                     nlohmann::json(r.response.reasoning).dump(), static_cast<int>(r.finish),
                     nlohmann::json(r.finish_raw).dump(), r.usage.input, r.usage.output,
                     r.usage.reasoning);
}

struct Case {
  const char* name;
  Parser ours;
  Parser theirs;
  std::vector<std::string> replies;
};

std::vector<Case> Cases() {
  return {
      {"openai", &internal::ParseOpenAiBody, &reference::OpenAi,
       {R"({"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"Hi \u00e9 <think>t</think>done","reasoning_content":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}}})",
        R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"},7]},"finish_reason":"length"},{"message":{}}],"usage":{"prompt_tokens":18446744073709551615,"completion_tokens":-2}})",
        R"({"choices":[{"message":{"content":null,"reasoning":"only"},"finish_reason":"eos"}],"choices":[{"message":{"content":"last"}}]})"}},
      {"anthropic", &internal::ParseAnthropicBody, &reference::Anthropic,
       {R"({"content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Answer"},{"type":"thinking","thinking":"more"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":7}})",
        R"({"content":[{"type":"text","text":"a","text":"b"},{"type":1},"x"],"stop_reason":"max_tokens","usage":{"input_tokens":1.5}})"}},
      {"gemini", &internal::ParseGeminiBody, &reference::Gemini,
       {R"({"candidates":[{"content":{"parts":[{"text":"x","thought":true},{"text":"y"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"thoughtsTokenCount":1}})",
        R"({"candidates":[],"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":4}})",
        R"({"promptFeedback":{"blockReason":null}})"}},
  };
}

void ExpectSame(const Case& c, const std::string& body) {
  ASSERT_EQ(Describe(c.ours, body), Describe(c.theirs, body))
      << c.name << ": " << body.substr(0, 200);
}

TEST(ReplyParsersTest, HostileRepliesReadAsTheNlohmannReadersReadThem) {
  const std::vector<std::string> hostile = {
      "", "null", "[]", "{}", "{broken", "\xEF\xBB\xBF{}", R"({"choices":5})",
      R"({"content":{}})", R"({"candidates":[1]})", std::string(100000, '['),
      "{\"a\":\"\xFF\"}", std::string("{\"a\":\"\0\"}", 8),
      R"({"usage":{"prompt_tokens":123456789012345678901234567890},"choices":[{"message":{"content":"x"}}]})",
  };
  for (const Case& c : Cases()) {
    for (const std::string& body : hostile) ExpectSame(c, body);
    for (const std::string& body : c.replies) ExpectSame(c, body);
    // Each provider's replies read by the other parsers too.
    for (const Case& other : Cases()) {
      for (const std::string& body : other.replies) ExpectSame(c, body);
    }
  }
}

TEST(ReplyParsersTest, RandomMutationsOfRepliesReadTheSame) {
  Rng rng(20261202);
  for (const Case& c : Cases()) {
    for (int i = 0; i < 3000; ++i) {
      const std::string body =
          MutateJson(rng, c.replies[static_cast<size_t>(rng.UniformInt(0, c.replies.size() - 1))]);
      ExpectSame(c, body);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace structtest
