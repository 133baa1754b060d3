#include "backends/providers.h"

#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"

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
    r.temperature.reset();  // they take only their default
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

TEST(OpenAiTest, ReasoningModelsTakeOnlyTheirDefaultTemperatureAndTopP) {
  ModelRequest r = BriefRequest();
  r.model = "o3-mini";
  r.temperature = 0;
  EXPECT_EQ(CheckRequestSettings(Provider::kOpenAi, r).message(),
            "`request.temperature` 0: openai's reasoning models (o3-mini: o1, o3, o4-mini, gpt-5, "
            "...) take only their default temperature (send none: `request.no_temperature`)");
  r.temperature.reset();
  r.controls.top_p = 0.9;
  EXPECT_EQ(CheckRequestSettings(Provider::kOpenAi, r).message(),
            "`request.top_p` 0.9: openai's reasoning models (o3-mini: o1, o3, o4-mini, gpt-5, ...) "
            "take only their default top_p");
  // Their default, said explicitly, is sent; none is sent by default (DefaultTemperature).
  r.controls.top_p.reset();
  r.temperature = 1;
  auto h = BuildHttpRequest(Provider::kOpenAi, r, "", "");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(json::parse(h->body)["temperature"], 1);
  EXPECT_FALSE(DefaultTemperature(ModelSpec{Provider::kOpenAi, "gpt-5-mini"}, {}).has_value());
  // Another OpenAI-compatible model takes any temperature.
  r.model = "gpt-4o";
  r.temperature = 0;
  EXPECT_TRUE(CheckRequestSettings(Provider::kOpenAi, r).ok());
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

// ---- Request controls (request_controls.h): the exact body every control gives each
// provider, the refusals of what a provider cannot take, the ranges, --extra-body's
// merge, --header, and the temperature default.

constexpr Provider kProviders[] = {Provider::kOpenAi, Provider::kAnthropic, Provider::kGemini};

// BriefRequest() with room for 5000 tokens (Anthropic's thinking needs more than its
// budget) and no temperature: nothing set but the messages and the token limit.
ModelRequest PlainRequest() {
  ModelRequest r = BriefRequest();
  r.max_tokens = 5000;
  r.temperature.reset();
  return r;
}

// The body of PlainRequest() for `provider`, as each API documents it.
json PlainBody(Provider provider) {
  switch (provider) {
    case Provider::kOpenAi:
      return {{"max_tokens", 5000},
              {"messages", {{{"role", "system"}, {"content", "be brief"}},
                            {{"role", "user"}, {"content", "hi"}}}},
              {"model", "m1"},
              {"stream", false}};
    case Provider::kAnthropic:
      return {{"max_tokens", 5000},
              {"messages", {{{"role", "user"}, {"content", "hi"}}}},
              {"model", "m1"},
              {"system", "be brief"}};
    case Provider::kGemini:
      return {{"contents", {{{"role", "user"}, {"parts", {{{"text", "hi"}}}}}}},
              {"generationConfig", {{"maxOutputTokens", 5000}}},
              {"systemInstruction", {{"parts", {{{"text", "be brief"}}}}}}};
  }
  return {};
}

StatusOr<json> RequestBody(Provider provider, const ModelRequest& r) {
  ASSIGN_OR_RETURN(HttpRequest h, BuildHttpRequest(provider, r, "", ""));
  return json::parse(h.body);
}

// One control set on PlainRequest(), and per provider what it adds to the plain body
// (a JSON merge patch: an array replaces the plain one), or the refusal's message.
struct ControlCase {
  const char* name;
  std::function<void(ModelRequest*)> set;
  json openai, anthropic, gemini;  // a string: the error message
};

std::vector<ControlCase> ControlCases() {
  return {
      {"temperature", [](ModelRequest* r) { r->temperature = 0.25; },
       {{"temperature", 0.25}}, {{"temperature", 0.25}},
       {{"generationConfig", {{"temperature", 0.25}}}}},
      {"top_p", [](ModelRequest* r) { r->controls.top_p = 0.9; },
       {{"top_p", 0.9}}, {{"top_p", 0.9}}, {{"generationConfig", {{"topP", 0.9}}}}},
      {"stop", [](ModelRequest* r) { r->controls.stop = {"END", "\n\n"}; },
       {{"stop", {"END", "\n\n"}}}, {{"stop_sequences", {"END", "\n\n"}}},
       {{"generationConfig", {{"stopSequences", {"END", "\n\n"}}}}}},
      {"seed", [](ModelRequest* r) { r->controls.seed = 42; },
       {{"seed", 42}}, "`request.sampling_seed`: anthropic takes no sampling seed",
       {{"generationConfig", {{"seed", 42}}}}},
      {"reasoning effort", [](ModelRequest* r) { r->controls.reasoning_effort = "low"; },
       {{"reasoning_effort", "low"}},
       "`request.reasoning_effort`: anthropic takes no reasoning effort (`request.thinking_budget` "
       "sets how "
       "much Claude thinks)",
       {{"generationConfig", {{"thinkingConfig", {{"thinkingLevel", "low"}}}}}}},
      {"thinking budget", [](ModelRequest* r) { r->controls.thinking_budget = 2048; },
       "`request.thinking_budget`: openai takes no thinking budget (`request.reasoning_effort` "
       "sets how much a "
       "reasoning model thinks; `request.extra_body` passes a server's own field)",
       {{"thinking", {{"type", "enabled"}, {"budget_tokens", 2048}}}},
       {{"generationConfig", {{"thinkingConfig", {{"thinkingBudget", 2048}}}}}}},
      {"system", [](ModelRequest* r) { r->controls.system = "Answer in English."; },
       {{"messages", {{{"role", "system"}, {"content", "Answer in English."}},
                      {{"role", "system"}, {"content", "be brief"}},
                      {{"role", "user"}, {"content", "hi"}}}}},
       {{"system", "Answer in English.\n\nbe brief"}},
       {{"systemInstruction", {{"parts", {{{"text", "Answer in English.\n\nbe brief"}}}}}}}},
      {"extra body",
       [](ModelRequest* r) {
         r->controls.extra_body = {{"top_k", 20}, {"chat_template_kwargs", {{"enable_thinking", false}}}};
       },
       {{"top_k", 20}, {"chat_template_kwargs", {{"enable_thinking", false}}}},
       {{"top_k", 20}, {"chat_template_kwargs", {{"enable_thinking", false}}}},
       {{"top_k", 20}, {"chat_template_kwargs", {{"enable_thinking", false}}}}},
  };
}

TEST(RequestControlsTest, EachControlGoesIntoEachProvidersOwnFieldOrIsRefusedNamingIt) {
  for (const ControlCase& c : ControlCases()) {
    for (const Provider provider : kProviders) {
      const json& want = provider == Provider::kOpenAi      ? c.openai
                         : provider == Provider::kAnthropic ? c.anthropic
                                                            : c.gemini;
      ModelRequest r = PlainRequest();
      c.set(&r);
      const StatusOr<json> body = RequestBody(provider, r);
      const std::string where = fmt::format("{} to {}", c.name, ProviderName(provider));
      if (want.is_string()) {
        ASSERT_FALSE(body.ok()) << where << ": " << body->dump();
        EXPECT_EQ(body.status().message(), want.get<std::string>()) << where;
        // Refused up front, before a run sends anything.
        EXPECT_FALSE(CheckRequestSettings(provider, r).ok()) << where;
        continue;
      }
      ASSERT_TRUE(body.ok()) << where << ": " << body.status().message();
      json expected = PlainBody(provider);
      expected.merge_patch(want);
      EXPECT_EQ(*body, expected) << where;
      EXPECT_TRUE(CheckRequestSettings(provider, r).ok()) << where;
    }
  }
}

TEST(RequestControlsTest, AllControlsTogetherAreEachProvidersWholeBody) {
  ModelRequest r = PlainRequest();
  r.temperature = 0.5;
  r.controls.top_p = 0.5;
  r.controls.stop = {"###"};
  r.controls.system = "S";
  r.controls.extra_body = {{"metadata", {{"user_id", "u"}}}};
  ModelRequest openai = r;
  openai.controls.seed = 7;
  openai.controls.reasoning_effort = "high";
  EXPECT_EQ(*RequestBody(Provider::kOpenAi, openai),
            json::parse(R"({"max_tokens":5000,"messages":[{"role":"system","content":"S"},
              {"role":"system","content":"be brief"},{"role":"user","content":"hi"}],
              "metadata":{"user_id":"u"},"model":"m1","reasoning_effort":"high","seed":7,
              "stop":["###"],"stream":false,"temperature":0.5,"top_p":0.5})"));
  EXPECT_EQ(*RequestBody(Provider::kAnthropic, r),
            json::parse(R"({"max_tokens":5000,"messages":[{"role":"user","content":"hi"}],
              "metadata":{"user_id":"u"},"model":"m1","stop_sequences":["###"],
              "system":"S\n\nbe brief","temperature":0.5,"top_p":0.5})"));
  ModelRequest gemini = r;
  gemini.controls.seed = 7;
  gemini.controls.thinking_budget = -1;
  EXPECT_EQ(*RequestBody(Provider::kGemini, gemini),
            json::parse(R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}],
              "generationConfig":{"maxOutputTokens":5000,"seed":7,"stopSequences":["###"],
                "temperature":0.5,"thinkingConfig":{"thinkingBudget":-1},"topP":0.5},
              "metadata":{"user_id":"u"},"systemInstruction":{"parts":[{"text":"S\n\nbe brief"}]}})"));
}

// The OpenAI body is written without nlohmann for speed: the same bytes.
TEST(RequestControlsTest, OpenAiBodyBytesAreNlohmannsWithControls) {
  for (const std::string& content : {std::string("plain"), std::string("bad \xff byte")}) {
    ModelRequest r = PlainRequest();
    r.messages[1].content = content;
    r.temperature = 0.5;
    r.controls.top_p = 0.5;
    r.controls.stop = {"a\"b"};
    r.controls.seed = 1;
    r.controls.reasoning_effort = "low";
    // Keys before "messages", between it and "model", and after everything.
    r.controls.extra_body = {{"logprobs", false}, {"min_p", 0.1}, {"zz", {1, 2}}};
    const auto h = BuildHttpRequest(Provider::kOpenAi, r, "", "");
    ASSERT_TRUE(h.ok()) << h.status().message();
    json expected = {{"model", "m1"},         {"stream", false},          {"max_tokens", 5000},
                     {"temperature", 0.5},    {"top_p", 0.5},             {"stop", {"a\"b"}},
                     {"seed", 1},             {"reasoning_effort", "low"}, {"logprobs", false},
                     {"min_p", 0.1},          {"zz", {1, 2}}};
    expected["messages"] = json::array();
    for (const Message& m : r.messages) {
      expected["messages"].push_back({{"role", m.role}, {"content", m.content}});
    }
    EXPECT_EQ(h->body, expected.dump(-1, ' ', false, json::error_handler_t::replace)) << content;
  }
}

TEST(RequestControlsTest, RangesAreCheckedForEveryProvider) {
  const struct {
    std::function<void(ModelRequest*)> set;
    const char* error;
  } cases[] = {
      {[](ModelRequest* r) { r->temperature = 2.5; }, "`request.temperature` 2.5: expected 0 to 2"},
      {[](ModelRequest* r) { r->temperature = -0.1; }, "`request.temperature` -0.1: expected 0 to "
                                                       "2"},
      {[](ModelRequest* r) { r->controls.top_p = 0; },
       "`request.top_p` 0: expected more than 0 and at most 1"},
      {[](ModelRequest* r) { r->controls.top_p = 1.5; },
       "`request.top_p` 1.5: expected more than 0 and at most 1"},
      {[](ModelRequest* r) { r->controls.stop = {"x", ""}; },
       "`request.stop` '': a stop sequence cannot be empty"},
      {[](ModelRequest* r) { r->controls.seed = -1; },
       "`request.sampling_seed` -1: expected 0 to 2147483647"},
      {[](ModelRequest* r) { r->controls.seed = 2147483648; },
       "`request.sampling_seed` 2147483648: expected 0 to 2147483647"},
      {[](ModelRequest* r) { r->controls.reasoning_effort = "max"; },
       "`request.reasoning_effort` max: expected none, minimal, low, medium, high or xhigh"},
  };
  for (const auto& c : cases) {
    for (const Provider provider : kProviders) {
      ModelRequest r = PlainRequest();
      c.set(&r);
      const Status s = CheckRequestSettings(provider, r);
      EXPECT_EQ(s.message(), c.error) << ProviderName(provider);
    }
  }
  ModelRequest edge = PlainRequest();
  edge.temperature = 2;
  edge.controls.top_p = 1;
  edge.controls.seed = 2147483647;
  EXPECT_TRUE(CheckRequestSettings(Provider::kOpenAi, edge).ok());
  EXPECT_TRUE(CheckRequestSettings(Provider::kGemini, edge).ok());
}

TEST(RequestControlsTest, EachProvidersOwnLimitsAreRefusedNamingIt) {
  const struct {
    Provider provider;
    std::function<void(ModelRequest*)> set;
    const char* error;  // "" when accepted
  } cases[] = {
      {Provider::kAnthropic, [](ModelRequest* r) { r->temperature = 1.5; },
       "`request.temperature` 1.5: anthropic takes 0 to 1"},
      {Provider::kAnthropic, [](ModelRequest* r) { r->temperature = 1; }, ""},
      {Provider::kAnthropic, [](ModelRequest* r) { r->controls.thinking_budget = 1000; },
       "`request.thinking_budget` 1000: anthropic takes 1024 tokens or more"},
      {Provider::kAnthropic, [](ModelRequest* r) { r->controls.thinking_budget = 5000; },
       "`request.thinking_budget` 5000: anthropic needs `request.max_tokens` above it (the "
       "thinking counts "
       "toward max_tokens, given as 5000)"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->max_tokens = 0;
         r->controls.thinking_budget = 4096;
       },
       "`request.thinking_budget` 4096: anthropic needs `request.max_tokens` above it (the "
       "thinking counts "
       "toward max_tokens, by default 4096)"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->controls.thinking_budget = 1024;
         r->temperature = 0;
       },
       "`request.temperature` 0: anthropic takes none with `request.thinking_budget` (extended "
       "thinking)"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->controls.thinking_budget = 1024;
         r->controls.top_p = 0.9;
       },
       "`request.top_p` 0.9: anthropic takes 0.95 to 1 with `request.thinking_budget`"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->controls.thinking_budget = 1024;
         r->controls.top_p = 0.95;
       },
       ""},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.reasoning_effort = "xhigh"; },
       "`request.reasoning_effort` xhigh: gemini takes minimal, low, medium or high (its thinking "
       "level)"},
      {Provider::kGemini,
       [](ModelRequest* r) {
         r->controls.reasoning_effort = "high";
         r->controls.thinking_budget = 100;
       },
       "`request.reasoning_effort`: gemini takes a thinking level or `request.thinking_budget`, "
       "not both"},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.thinking_budget = -2; },
       "`request.thinking_budget` -2: gemini takes -1 (the model decides), 0 (no thinking) or a "
       "number "
       "of tokens"},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.thinking_budget = 0; }, ""},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.stop = {"1", "2", "3", "4", "5", "6"}; },
       "`request.stop`: gemini takes at most 5 stop sequences, not 6"},
      {Provider::kOpenAi, [](ModelRequest* r) { r->controls.stop = {"1", "2", "3", "4", "5", "6"}; },
       ""},
      {Provider::kOpenAi, [](ModelRequest* r) { r->controls.reasoning_effort = "xhigh"; }, ""},
  };
  for (const auto& c : cases) {
    ModelRequest r = PlainRequest();
    c.set(&r);
    const Status s = CheckRequestSettings(c.provider, r);
    EXPECT_EQ(s.message(), c.error) << ProviderName(c.provider);
  }
}

TEST(RequestControlsTest, ExtraBodyMergesObjectsAndRefusesWhatTheRequestHas) {
  ModelRequest r = PlainRequest();
  r.controls.extra_body = {{"generationConfig", {{"topK", 40}}},
                           {"safetySettings", {{{"category", "X"}, {"threshold", "BLOCK_NONE"}}}}};
  json expected = PlainBody(Provider::kGemini);
  expected["generationConfig"]["topK"] = 40;
  expected["safetySettings"] = r.controls.extra_body["safetySettings"];
  EXPECT_EQ(*RequestBody(Provider::kGemini, r), expected);

  const struct {
    Provider provider;
    json extra;
    std::function<void(ModelRequest*)> set;
    const char* error;
  } refused[] = {
      {Provider::kOpenAi, {{"temperature", 1}}, [](ModelRequest* r) { r->temperature = 0; },
       "`request.extra_body`: 'temperature' is in the request already (set it with "
       "`request.temperature`)"},
      {Provider::kOpenAi, {{"messages", json::array()}}, nullptr,
       "`request.extra_body`: 'messages' is in the request already (structtest writes it)"},
      {Provider::kOpenAi, {{"stream", true}}, nullptr,
       "`request.extra_body`: 'stream' is in the request already (structtest writes it)"},
      {Provider::kOpenAi, {{"max_tokens", 5}}, nullptr,
       "`request.extra_body`: 'max_tokens' is in the request already (set it with "
       "`request.max_tokens`)"},
      {Provider::kAnthropic, {{"system", "x"}}, nullptr,
       "`request.extra_body`: 'system' is in the request already (set it with `request.system`)"},
      {Provider::kGemini, {{"generationConfig", {{"temperature", 1}}}},
       [](ModelRequest* r) { r->temperature = 0; },
       "`request.extra_body`: 'generationConfig.temperature' is in the request already (set it "
       "with "
       "`request.temperature`)"},
      {Provider::kGemini, {{"generationConfig", 3}}, nullptr,
       "`request.extra_body`: 'generationConfig' is in the request already (structtest writes it)"},
  };
  for (const auto& c : refused) {
    ModelRequest bad = PlainRequest();
    bad.controls.extra_body = c.extra;
    if (c.set) c.set(&bad);
    EXPECT_EQ(CheckRequestSettings(c.provider, bad).message(), c.error) << c.extra.dump();
  }
}

TEST(RequestControlsTest, HeadersAreAddedAndReplaceTheirNamesake) {
  const std::vector<HttpHeader> headers = {{"X-Team", "evals"}, {"authorization", "Bearer other"}};
  const auto h = BuildHttpRequest(Provider::kOpenAi, PlainRequest(), "", "KEY", headers);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->headers, (std::vector<std::string>{"Content-Type: application/json",
                                                  "X-Team: evals", "authorization: Bearer other"}));
}

TEST(RequestControlsTest, TheTemperatureDefaultIsZeroWhereTheModelTakesOne) {
  EXPECT_EQ(DefaultTemperature({Provider::kOpenAi, "gpt-4o"}, {}), 0.0);
  EXPECT_EQ(DefaultTemperature({Provider::kAnthropic, "claude"}, {}), 0.0);
  EXPECT_EQ(DefaultTemperature({Provider::kGemini, "gemini-2.5-pro"}, {}), 0.0);
  EXPECT_EQ(DefaultTemperature({Provider::kOpenAi, "o3-mini"}, {}), std::nullopt);
  EXPECT_EQ(DefaultTemperature({Provider::kOpenAi, "gpt-5"}, {}), std::nullopt);
  RequestControls top_p;
  top_p.top_p = 0.9;
  EXPECT_EQ(DefaultTemperature({Provider::kGemini, "g"}, top_p), std::nullopt);
  RequestControls thinking;
  thinking.thinking_budget = 2048;
  EXPECT_EQ(DefaultTemperature({Provider::kAnthropic, "claude"}, thinking), std::nullopt);
  EXPECT_EQ(DefaultTemperature({Provider::kGemini, "g"}, thinking), 0.0);
}

TEST(RequestControlsTest, ServedModelIsReadFromEachReply) {
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 200,
                           R"({"model":"gpt-4o-2024-08-06","choices":[{"message":{"content":"a"}}]})",
                           "")
                .served_model,
            "gpt-4o-2024-08-06");
  EXPECT_EQ(ParseHttpReply(Provider::kAnthropic, 200,
                           R"({"model":"claude-x-20250101","content":[{"type":"text","text":"a"}]})",
                           "")
                .served_model,
            "claude-x-20250101");
  EXPECT_EQ(ParseHttpReply(Provider::kGemini, 200,
                           R"({"modelVersion":"gemini-2.5-flash-001","candidates":[{"content":
                             {"parts":[{"text":"a"}]},"finishReason":"STOP"}]})",
                           "")
                .served_model,
            "gemini-2.5-flash-001");
  EXPECT_EQ(ParseHttpReply(Provider::kOpenAi, 200, R"({"choices":[{"message":{"content":"a"}}]})", "")
                .served_model,
            "");
}

}  // namespace
}  // namespace structtest
