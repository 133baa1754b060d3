#include "backends/providers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace structtest {
namespace {

using nlohmann::json;

// Request 7: a system and a user message, max_tokens and temperature set.
ModelRequest BriefRequest() {
  ModelRequest r;
  r.id = 7;
  r.model = "m1";
  r.messages = {{"system", "be brief"}, {"user", "hi"}};
  r.max_tokens = 100;
  r.temperature = 0.5;
  return r;
}

bool HasHeader(const HttpRequest& h, const std::string& line) {
  for (const auto& x : h.headers) {
    if (x == line) return true;
  }
  return false;
}

TEST(ModelSpecTest, Parses) {
  auto s = ParseModelSpec("openai/meta-llama/Llama-3-8B");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->provider, Provider::kOpenAi);
  EXPECT_EQ(s->name, "meta-llama/Llama-3-8B");
  EXPECT_EQ(ParseModelSpec("anthropic/claude")->provider, Provider::kAnthropic);
  EXPECT_EQ(ParseModelSpec("gemini/g")->provider, Provider::kGemini);
  EXPECT_FALSE(ParseModelSpec("gpt-4o").ok());
  EXPECT_FALSE(ParseModelSpec("openai/").ok());
  EXPECT_FALSE(ParseModelSpec("mistral/x").ok());
}

TEST(RedactSecretTest, RemovesKeyAndLongPieces) {
  const std::string key = "sk-ABCDEFGHIJKLMNOP";
  EXPECT_EQ(RedactSecret("bad key sk-ABCDEFGHIJKLMNOP!", key), "bad key [redacted]!");
  EXPECT_EQ(RedactSecret("provided: sk-ABCD****IJKLMNOP", key),
            "provided: sk-ABCD****[redacted]");
  EXPECT_EQ(RedactSecret("nothing here", key), "nothing here");
  EXPECT_EQ(RedactSecret("abc", ""), "abc");
  EXPECT_EQ(RedactSecret("k=xy;", "xy"), "k=[redacted];");
}

TEST(OpenAiTest, BuildsChatCompletion) {
  auto h = BuildHttpRequest(Provider::kOpenAi, BriefRequest(), "http://h:1/v1/", "KEY");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->url, "http://h:1/v1/chat/completions");
  EXPECT_TRUE(HasHeader(*h, "Authorization: Bearer KEY"));
  const json b = json::parse(h->body);
  EXPECT_EQ(b["model"], "m1");
  EXPECT_EQ(b["messages"].size(), 2u);
  EXPECT_EQ(b["messages"][0]["role"], "system");
  EXPECT_EQ(b["max_tokens"], 100);
  EXPECT_EQ(b["temperature"], 0.5);
  // No key, no Authorization header (local servers).
  auto anon = BuildHttpRequest(Provider::kOpenAi, BriefRequest(), "", "");
  ASSERT_TRUE(anon.ok());
  EXPECT_EQ(anon->url, "https://api.openai.com/v1/chat/completions");
  for (const auto& x : anon->headers) EXPECT_EQ(x.find("Authorization"), std::string::npos);
}

TEST(OpenAiTest, BodyBytesEqualNlohmannsIncludingEscapesAndInvalidUtf8) {
  for (const std::string& content : {std::string("plain"), std::string("q\"uote\\ \n\t\x01 \xc3\xa9 \xf0\x9f\x98\x80"),
                                    std::string("bad \xff byte"), std::string()}) {
    ModelRequest r = BriefRequest();
    r.messages[1].content = content;
    auto h = BuildHttpRequest(Provider::kOpenAi, r, "", "");
    ASSERT_TRUE(h.ok());
    json expected = {{"model", r.model}, {"stream", false}, {"max_tokens", r.max_tokens},
                     {"temperature", *r.temperature}};
    expected["messages"] = json::array();
    for (const Message& m : r.messages) {
      expected["messages"].push_back({{"role", m.role}, {"content", m.content}});
    }
    EXPECT_EQ(h->body, expected.dump(-1, ' ', false, json::error_handler_t::replace)) << content;
  }
}

TEST(OpenAiTest, ReasoningModelsGetMaxCompletionTokens) {
  for (const char* model : {"o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-nano"}) {
    ModelRequest r = BriefRequest();
    r.model = model;
    auto h = BuildHttpRequest(Provider::kOpenAi, r, "", "");
    ASSERT_TRUE(h.ok());
    const json b = json::parse(h->body);
    EXPECT_EQ(b["max_completion_tokens"], 100) << model;
    EXPECT_FALSE(b.contains("max_tokens")) << model;
  }
  for (const char* model : {"gpt-4o", "omni-7b", "Qwen/Qwen2.5-7B", "o"}) {
    ModelRequest r = BriefRequest();
    r.model = model;
    const json b = json::parse(BuildHttpRequest(Provider::kOpenAi, r, "", "")->body);
    EXPECT_EQ(b["max_tokens"], 100) << model;
  }
}

TEST(OpenAiTest, RejectsUnknownRoleAndEmptyPrompt) {
  ModelRequest r = BriefRequest();
  r.messages.push_back({"tool", "x"});
  EXPECT_FALSE(BuildHttpRequest(Provider::kOpenAi, r, "", "").ok());
  r.messages.clear();
  EXPECT_FALSE(BuildHttpRequest(Provider::kOpenAi, r, "", "").ok());
}

TEST(OpenAiTest, ParsesAnswerReasoningFinishAndUsage) {
  const std::string body = R"({"choices":[{"message":{"role":"assistant","content":"ans",
    "reasoning_content":"thought"},"finish_reason":"length"}],
    "usage":{"prompt_tokens":3,"completion_tokens":9,
             "completion_tokens_details":{"reasoning_tokens":4}}})";
  const ModelResult r = ParseHttpReply(Provider::kOpenAi, 200, body, "");
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.response.text, "ans");
  EXPECT_EQ(r.response.reasoning, "thought");
  EXPECT_TRUE(r.truncated());
  EXPECT_EQ(r.finish_raw, "length");
  EXPECT_EQ(r.usage.input, 3);
  EXPECT_EQ(r.usage.output, 9);
  EXPECT_EQ(r.usage.reasoning, 4);
  EXPECT_EQ(r.http_status, 200);
}

TEST(OpenAiTest, ParsesReasoningFieldAndThinkTags) {
  const ModelResult a = ParseHttpReply(
      Provider::kOpenAi, 200,
      R"({"choices":[{"message":{"content":"x","reasoning":"r"},"finish_reason":"stop"}]})", "");
  EXPECT_EQ(a.response.reasoning, "r");
  EXPECT_EQ(a.finish, FinishReason::kStop);
  const ModelResult b = ParseHttpReply(
      Provider::kOpenAi, 200,
      R"({"choices":[{"message":{"content":"<think>hmm</think>\nfinal"},"finish_reason":"stop"}]})",
      "");
  EXPECT_EQ(b.response.text, "final");
  EXPECT_EQ(b.response.reasoning, "hmm");
  const ModelResult c = ParseHttpReply(
      Provider::kOpenAi, 200, R"({"choices":[{"message":{"content":null}}]})", "");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.response.text, "");
  EXPECT_EQ(c.finish, FinishReason::kUnknown);
}

TEST(ReplyTest, ClassifiesStatuses) {
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 429, "{}", "").error, ErrorKind::kRetryable);
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 500, "", "").error, ErrorKind::kRetryable);
  EXPECT_EQ(ParseHttpReply(Provider::kAnthropic, 529, "", "").error, ErrorKind::kRetryable);
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 408, "", "").error, ErrorKind::kRetryable);
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 400, "", "").error, ErrorKind::kFatal);
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 404, "", "").error, ErrorKind::kFatal);
  const ModelResult bad = ParseHttpReply(Provider::kOpenAi, 200, "{not json", "");
  EXPECT_EQ(bad.error, ErrorKind::kRetryable);
  EXPECT_NE(bad.error_message.find("malformed response body"), std::string::npos);
  EXPECT_EQ(bad.response.text, "");
}

// A 200 that is not a reply of the provider's API is a fault of the server or a
// proxy on the way, retried like a 5xx; a well-formed empty, refused or filtered
// answer is an answer.
TEST(ReplyTest, MalformedSuccessIsRetryableButAnEmptyAnswerIsAnAnswer) {
  const struct {
    Provider provider;
    const char* body;
  } malformed[] = {
      {Provider::kOpenAi, ""},
      {Provider::kOpenAi, "<html><body>502 Bad Gateway</body></html>"},
      {Provider::kOpenAi, R"({"choices":[{"message":{"content":"cut sh)"},
      {Provider::kOpenAi, R"({"choices":[]})"},
      {Provider::kOpenAi, R"({"object":"chat.completion"})"},
      {Provider::kOpenAi, R"([1,2])"},
      {Provider::kAnthropic, R"({"type":"message","role":"assistant"})"},
      {Provider::kAnthropic, R"({"content":[{"type":"text","text":"a)"},
      {Provider::kGemini, R"({"usageMetadata":{}})"},
      {Provider::kGemini, R"({"candidates":[)"},
  };
  for (const auto& m : malformed) {
    const ModelResult r = ParseHttpReply(m.provider, 200, m.body, "");
    EXPECT_EQ(r.error, ErrorKind::kRetryable) << ProviderName(m.provider) << ": " << m.body;
    EXPECT_EQ(r.response.text, "");
  }
  const struct {
    Provider provider;
    const char* body;
    FinishReason finish;
  } answers[] = {
      {Provider::kOpenAi,
       R"({"choices":[{"message":{"content":null,"refusal":"I can't"},"finish_reason":"stop"}]})",
       FinishReason::kStop},
      {Provider::kOpenAi,
       R"({"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]})",
       FinishReason::kOther},
      {Provider::kAnthropic, R"({"content":[],"stop_reason":"refusal"})", FinishReason::kOther},
      {Provider::kGemini, R"({"promptFeedback":{"blockReason":"SAFETY"}})", FinishReason::kOther},
      {Provider::kGemini, R"({"candidates":[{"finishReason":"SAFETY"}]})", FinishReason::kOther},
  };
  for (const auto& a : answers) {
    const ModelResult r = ParseHttpReply(a.provider, 200, a.body, "");
    EXPECT_TRUE(r.ok()) << ProviderName(a.provider) << ": " << a.body << ": " << r.error_message;
    EXPECT_EQ(r.response.text, "") << a.body;
    EXPECT_EQ(r.finish, a.finish) << a.body;
  }
}

TEST(ReplyTest, ErrorMessageCarriesDetailButNeverTheKey) {
  const std::string key = "sk-secret-0123456789";
  const ModelResult r = ParseHttpReply(
      Provider::kOpenAi, 401,
      R"({"error":{"message":"Incorrect API key provided: sk-secret-0123456789."}})", key);
  EXPECT_EQ(r.error, ErrorKind::kFatal);
  EXPECT_EQ(r.error_message.find(key), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("openai: HTTP 401: Incorrect API key"), std::string::npos)
      << r.error_message;
}

TEST(AnthropicTest, BuildsMessages) {
  auto h = BuildHttpRequest(Provider::kAnthropic, BriefRequest(), "", "AKEY");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->url, "https://api.anthropic.com/v1/messages");
  EXPECT_TRUE(HasHeader(*h, "x-api-key: AKEY"));
  EXPECT_TRUE(HasHeader(*h, "anthropic-version: 2023-06-01"));
  const json b = json::parse(h->body);
  EXPECT_EQ(b["system"], "be brief");
  ASSERT_EQ(b["messages"].size(), 1u);
  EXPECT_EQ(b["messages"][0]["role"], "user");
  EXPECT_EQ(b["max_tokens"], 100);
  ModelRequest r = BriefRequest();
  r.max_tokens = 0;
  EXPECT_EQ(json::parse(BuildHttpRequest(Provider::kAnthropic, r, "", "")->body)["max_tokens"],
            4096);
}

TEST(AnthropicTest, ParsesThinkingBlocks) {
  const std::string body = R"({"content":[{"type":"thinking","thinking":"deep","signature":"s"},
    {"type":"redacted_thinking","data":"x"},{"type":"text","text":"done"}],
    "stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":6}})";
  const ModelResult r = ParseHttpReply(Provider::kAnthropic, 200, body, "");
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.response.text, "done");
  EXPECT_EQ(r.response.reasoning, "deep");
  EXPECT_TRUE(r.truncated());
  EXPECT_EQ(r.usage.input, 5);
  EXPECT_EQ(r.usage.output, 6);
  EXPECT_EQ(ParseHttpReply(Provider::kAnthropic, 200,
                           R"({"content":[{"type":"text","text":"a"}],"stop_reason":"end_turn"})",
                           "")
                .finish,
            FinishReason::kStop);
}

TEST(GeminiTest, BuildsGenerateContentWithKeyInHeader) {
  auto h = BuildHttpRequest(Provider::kGemini, BriefRequest(), "", "GKEY");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->url,
            "https://generativelanguage.googleapis.com/v1beta/models/m1:generateContent");
  EXPECT_EQ(h->url.find("GKEY"), std::string::npos);
  EXPECT_TRUE(HasHeader(*h, "x-goog-api-key: GKEY"));
  const json b = json::parse(h->body);
  EXPECT_EQ(b["systemInstruction"]["parts"][0]["text"], "be brief");
  EXPECT_EQ(b["contents"][0]["role"], "user");
  EXPECT_EQ(b["generationConfig"]["maxOutputTokens"], 100);
  ModelRequest r = BriefRequest();
  r.model = "../x?key=1";
  EXPECT_FALSE(BuildHttpRequest(Provider::kGemini, r, "", "").ok());
}

TEST(GeminiTest, ParsesThoughtParts) {
  const std::string body = R"({"candidates":[{"content":{"parts":[
    {"text":"why","thought":true},{"text":"what"}]},"finishReason":"MAX_TOKENS"}],
    "usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":3,"thoughtsTokenCount":4}})";
  const ModelResult r = ParseHttpReply(Provider::kGemini, 200, body, "");
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.response.text, "what");
  EXPECT_EQ(r.response.reasoning, "why");
  EXPECT_TRUE(r.truncated());
  EXPECT_EQ(r.usage.input, 2);
  EXPECT_EQ(r.usage.output, 7);
  EXPECT_EQ(r.usage.reasoning, 4);
  const ModelResult blocked = ParseHttpReply(
      Provider::kGemini, 200, R"({"promptFeedback":{"blockReason":"SAFETY"}})", "");
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(blocked.finish, FinishReason::kOther);
  EXPECT_EQ(blocked.finish_raw, "SAFETY");
}

}  // namespace
}  // namespace structtest
