// The request controls in each provider's body: the exact body every control gives, the
// refusals of what a provider cannot take, the ranges, --extra-body's merge, --header,
// the temperature default, and the flags' parsing.
#include "backends/request_controls.h"

#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

using nlohmann::json;

constexpr Provider kProviders[] = {Provider::kOpenAi, Provider::kAnthropic, Provider::kGemini};

// A system and a user message, room for 5000 tokens, nothing else set.
ModelRequest PlainRequest() {
  ModelRequest r;
  r.id = 3;
  r.model = "m1";
  r.messages = {{"system", "be brief"}, {"user", "hi"}};
  r.max_tokens = 5000;
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

StatusOr<json> Body(Provider provider, const ModelRequest& r) {
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
       {{"seed", 42}}, "--sampling-seed: anthropic takes no sampling seed",
       {{"generationConfig", {{"seed", 42}}}}},
      {"reasoning effort", [](ModelRequest* r) { r->controls.reasoning_effort = "low"; },
       {{"reasoning_effort", "low"}},
       "--reasoning-effort: anthropic takes no reasoning effort (--thinking-budget sets how "
       "much Claude thinks)",
       {{"generationConfig", {{"thinkingConfig", {{"thinkingLevel", "low"}}}}}}},
      {"thinking budget", [](ModelRequest* r) { r->controls.thinking_budget = 2048; },
       "--thinking-budget: openai takes no thinking budget (--reasoning-effort sets how much a "
       "reasoning model thinks; --extra-body passes a server's own field)",
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
      const StatusOr<json> body = Body(provider, r);
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
  EXPECT_EQ(*Body(Provider::kOpenAi, openai),
            json::parse(R"({"max_tokens":5000,"messages":[{"role":"system","content":"S"},
              {"role":"system","content":"be brief"},{"role":"user","content":"hi"}],
              "metadata":{"user_id":"u"},"model":"m1","reasoning_effort":"high","seed":7,
              "stop":["###"],"stream":false,"temperature":0.5,"top_p":0.5})"));
  EXPECT_EQ(*Body(Provider::kAnthropic, r),
            json::parse(R"({"max_tokens":5000,"messages":[{"role":"user","content":"hi"}],
              "metadata":{"user_id":"u"},"model":"m1","stop_sequences":["###"],
              "system":"S\n\nbe brief","temperature":0.5,"top_p":0.5})"));
  ModelRequest gemini = r;
  gemini.controls.seed = 7;
  gemini.controls.thinking_budget = -1;
  EXPECT_EQ(*Body(Provider::kGemini, gemini),
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
      {[](ModelRequest* r) { r->temperature = 2.5; }, "--temperature 2.5: expected 0 to 2"},
      {[](ModelRequest* r) { r->temperature = -0.1; }, "--temperature -0.1: expected 0 to 2"},
      {[](ModelRequest* r) { r->controls.top_p = 0; },
       "--top-p 0: expected more than 0 and at most 1"},
      {[](ModelRequest* r) { r->controls.top_p = 1.5; },
       "--top-p 1.5: expected more than 0 and at most 1"},
      {[](ModelRequest* r) { r->controls.stop = {"x", ""}; },
       "--stop '': a stop sequence cannot be empty"},
      {[](ModelRequest* r) { r->controls.seed = -1; },
       "--sampling-seed -1: expected 0 to 2147483647"},
      {[](ModelRequest* r) { r->controls.seed = 2147483648; },
       "--sampling-seed 2147483648: expected 0 to 2147483647"},
      {[](ModelRequest* r) { r->controls.reasoning_effort = "max"; },
       "--reasoning-effort max: expected none, minimal, low, medium, high or xhigh"},
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
       "--temperature 1.5: anthropic takes 0 to 1"},
      {Provider::kAnthropic, [](ModelRequest* r) { r->temperature = 1; }, ""},
      {Provider::kAnthropic, [](ModelRequest* r) { r->controls.thinking_budget = 1000; },
       "--thinking-budget 1000: anthropic takes 1024 tokens or more"},
      {Provider::kAnthropic, [](ModelRequest* r) { r->controls.thinking_budget = 5000; },
       "--thinking-budget 5000: anthropic needs --max-tokens above it (the thinking counts "
       "toward max_tokens, given as 5000)"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->max_tokens = 0;
         r->controls.thinking_budget = 4096;
       },
       "--thinking-budget 4096: anthropic needs --max-tokens above it (the thinking counts "
       "toward max_tokens, by default 4096)"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->controls.thinking_budget = 1024;
         r->temperature = 0;
       },
       "--temperature 0: anthropic takes none with --thinking-budget (extended thinking)"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->controls.thinking_budget = 1024;
         r->controls.top_p = 0.9;
       },
       "--top-p 0.9: anthropic takes 0.95 to 1 with --thinking-budget"},
      {Provider::kAnthropic,
       [](ModelRequest* r) {
         r->controls.thinking_budget = 1024;
         r->controls.top_p = 0.95;
       },
       ""},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.reasoning_effort = "xhigh"; },
       "--reasoning-effort xhigh: gemini takes minimal, low, medium or high (its thinking "
       "level)"},
      {Provider::kGemini,
       [](ModelRequest* r) {
         r->controls.reasoning_effort = "high";
         r->controls.thinking_budget = 100;
       },
       "--reasoning-effort: gemini takes a thinking level or --thinking-budget, not both"},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.thinking_budget = -2; },
       "--thinking-budget -2: gemini takes -1 (the model decides), 0 (no thinking) or a number "
       "of tokens"},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.thinking_budget = 0; }, ""},
      {Provider::kGemini, [](ModelRequest* r) { r->controls.stop = {"1", "2", "3", "4", "5", "6"}; },
       "--stop: gemini takes at most 5 stop sequences, not 6"},
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
  EXPECT_EQ(*Body(Provider::kGemini, r), expected);

  const struct {
    Provider provider;
    json extra;
    std::function<void(ModelRequest*)> set;
    const char* error;
  } refused[] = {
      {Provider::kOpenAi, {{"temperature", 1}}, [](ModelRequest* r) { r->temperature = 0; },
       "--extra-body: 'temperature' is in the request already (set it with --temperature)"},
      {Provider::kOpenAi, {{"messages", json::array()}}, nullptr,
       "--extra-body: 'messages' is in the request already (structtest writes it)"},
      {Provider::kOpenAi, {{"stream", true}}, nullptr,
       "--extra-body: 'stream' is in the request already (structtest writes it)"},
      {Provider::kOpenAi, {{"max_tokens", 5}}, nullptr,
       "--extra-body: 'max_tokens' is in the request already (set it with --max-tokens)"},
      {Provider::kAnthropic, {{"system", "x"}}, nullptr,
       "--extra-body: 'system' is in the request already (set it with --system)"},
      {Provider::kGemini, {{"generationConfig", {{"temperature", 1}}}},
       [](ModelRequest* r) { r->temperature = 0; },
       "--extra-body: 'generationConfig.temperature' is in the request already (set it with "
       "--temperature)"},
      {Provider::kGemini, {{"generationConfig", 3}}, nullptr,
       "--extra-body: 'generationConfig' is in the request already (structtest writes it)"},
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

TEST(RequestControlFlagsTest, HeadersParseAndBadOnesAreNamed) {
  const auto h = ParseHeaderFlag("X-Api-Tenant:  acme ");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->name, "X-Api-Tenant");
  EXPECT_EQ(h->value, "acme");
  EXPECT_EQ(ParseHeaderFlag("no colon secret").status().message(),
            "--header: expected 'Name: value' (no ':' in it)");
  EXPECT_EQ(ParseHeaderFlag("bad name: v").status().message(),
            "--header 'bad name: ...': expected a header name (letters, digits and "
            "-_.!#$%&'*+^`|~)");
  EXPECT_EQ(ParseHeaderFlag("X: a\nb").status().message(), "--header X: the value holds a line break");
  EXPECT_EQ(ParseHeaderFlag("content-length: 3").status().message(),
            "--header content-length: structtest writes this header itself");
}

TEST(RequestControlFlagsTest, TextAndExtraBodyComeFromTheFlagOrAFile) {
  testing::TempDir dir;
  const std::string file = dir.path() + "/system.txt";
  testing::WriteFileOrDie(file, "From a file.\n");
  EXPECT_EQ(*ReadTextFlag("--system", "plain"), "plain");
  EXPECT_EQ(*ReadTextFlag("--system", "@" + file), "From a file.\n");
  EXPECT_EQ(ReadTextFlag("--system", "").status().message(), "--system: empty");
  EXPECT_EQ(ReadTextFlag("--system", "@" + dir.path() + "/none").status().message(),
            "--system @" + dir.path() + "/none: cannot read: No such file or directory");
  testing::WriteFileOrDie(file, "");
  EXPECT_EQ(ReadTextFlag("--system", "@" + file).status().message(),
            "--system @" + file + ": the file is empty");

  EXPECT_EQ(*ParseExtraBody(R"({"top_k": 20})"), json({{"top_k", 20}}));
  testing::WriteFileOrDie(file, R"({"min_p": 0.05})");
  EXPECT_EQ(*ParseExtraBody("@" + file), json({{"min_p", 0.05}}));
  EXPECT_EQ(ParseExtraBody("[1]").status().message(),
            "--extra-body: expected a JSON object ({\"key\": value, ...}), not array");
  EXPECT_NE(ParseExtraBody("{top_k: 1}").status().message().find("--extra-body: not JSON: "),
            std::string::npos);
}

TEST(RequestControlFlagsTest, IdentityHoldsWhatIsSetAndHeaderNamesOnly) {
  EXPECT_EQ(ControlsJson({}), json::object());
  RequestControls c;
  c.system = "S";
  c.top_p = 0.5;
  c.stop = {"x"};
  c.seed = 3;
  c.reasoning_effort = "low";
  c.thinking_budget = 2000;
  c.extra_body = {{"k", 1}};
  const json j = ControlsJson(c, HeaderNames({{"X-B", "secret-value-1"}, {"x-a", "secret-2"}}));
  EXPECT_EQ(j, json::parse(R"({"system":"S","top_p":0.5,"stop":["x"],"sampling_seed":3,
                                "reasoning_effort":"low","thinking_budget":2000,
                                "extra_body":{"k":1},"headers":["x-a","x-b"]})"));
  EXPECT_EQ(j.dump().find("secret"), std::string::npos);
  json manifest = j;
  manifest["model"] = "openai/m";
  manifest["temperature"] = 0;
  manifest["max_tokens"] = 0;
  manifest["seed"] = 5;  // the suite's, not a request setting
  json settings = manifest;
  settings.erase("seed");
  EXPECT_EQ(RequestSettings(manifest), settings);
}

}  // namespace
}  // namespace structtest
