// The batch wire formats without a network: entries carry the online request's body
// byte for byte, custom ids name the sample and the request, batches stay within the
// providers' limits, and each provider's result lines map back to answers and errors.
#include "backends/batch_api.h"

#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/providers.h"

namespace structtest {
namespace {

ModelRequest Request(std::string prompt) {
  ModelRequest r;
  r.model = "m-1";
  r.messages = {Message{"user", std::move(prompt)}};
  r.max_tokens = 100;
  r.temperature = 0.0;
  r.controls.system = "be brief";
  r.controls.stop = {"END"};
  return r;
}

TEST(BatchApiTest, EntriesCarryTheOnlineBodyAndACustomIdNamingSampleAndRequest) {
  for (Provider p : {Provider::kOpenAi, Provider::kAnthropic, Provider::kGemini}) {
    const ModelRequest req = Request("say \"hi\"\n");
    const auto online = BuildHttpRequest(p, req, "", "");
    ASSERT_TRUE(online.ok()) << online.status().message();
    const auto entry = MakeBatchEntry(p, 42, req);
    ASSERT_TRUE(entry.ok()) << entry.status().message();
    EXPECT_EQ(CustomIdIndex(entry->custom_id), 42);
    EXPECT_EQ(entry->custom_id, BatchCustomId(42, online->body));
    const nlohmann::json j = nlohmann::json::parse(entry->json);
    const nlohmann::json body = nlohmann::json::parse(online->body);
    switch (p) {
      case Provider::kOpenAi:
        EXPECT_EQ(j["custom_id"], entry->custom_id);
        EXPECT_EQ(j["method"], "POST");
        EXPECT_EQ(j["url"], "/v1/chat/completions");
        EXPECT_EQ(j["body"], body);
        break;
      case Provider::kAnthropic:
        EXPECT_EQ(j["custom_id"], entry->custom_id);
        EXPECT_EQ(j["params"], body);
        EXPECT_EQ(j["params"]["system"], "be brief");
        break;
      case Provider::kGemini:
        EXPECT_EQ(j["metadata"]["key"], entry->custom_id);
        EXPECT_EQ(j["request"], body);
        break;
    }
    // Another setting is another request, so another custom id.
    ModelRequest other = req;
    other.max_tokens = 101;
    EXPECT_NE(MakeBatchEntry(p, 42, other)->custom_id, entry->custom_id);
  }
  // A control the provider cannot take is refused, as online.
  ModelRequest seeded = Request("x");
  seeded.controls.seed = 1;
  EXPECT_FALSE(MakeBatchEntry(Provider::kAnthropic, 0, seeded).ok());
}

TEST(BatchApiTest, CustomIdsAreReadBackAndOthersAreNot) {
  EXPECT_EQ(CustomIdIndex(BatchCustomId(0, "")), 0);
  EXPECT_EQ(CustomIdIndex(BatchCustomId(123456789, "body")), 123456789);
  for (const char* bad : {"", "s1", "request-1", "s-0123456789abcdef", "sx-0123456789abcdef",
                          "s1-0123456789abcdeg", "s1-0123456789abcdef0", "t1-0123456789abcdef"}) {
    EXPECT_FALSE(CustomIdIndex(bad).has_value()) << bad;
  }
}

TEST(BatchApiTest, RepeatsOfASampleHaveCustomIdsOfTheirOwn) {
  // Repeat 0 has the id a run without repeats gives; the others name their repeat, so
  // that the answers of one request body asked K times map back each to its repeat.
  EXPECT_EQ(BatchCustomId(7, "body", 0), BatchCustomId(7, "body"));
  std::set<std::string> ids;
  for (int64_t r = 0; r < 5; ++r) {
    const std::string id = BatchCustomId(7, "body", r);
    ids.insert(id);
    const auto parts = ParseCustomId(id);
    ASSERT_TRUE(parts.has_value()) << id;
    EXPECT_EQ(parts->index, 7);
    EXPECT_EQ(parts->repeat, r);
    EXPECT_LE(id.size(), 64u);
  }
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(BatchCustomId(3, "b", 12).substr(0, 5), "s3r12");
  for (const char* bad : {"s1r-0123456789abcdef", "s1r0-0123456789abcdef", "s1r01-0123456789abcdef",
                          "sr1-0123456789abcdef", "s1rx-0123456789abcdef", "s1r1r1-0123456789abcdef"}) {
    EXPECT_FALSE(ParseCustomId(bad).has_value()) << bad;
  }
  ModelRequest req;
  req.model = "m";
  req.messages = {{"user", "hi"}};
  for (Provider p : {Provider::kOpenAi, Provider::kAnthropic, Provider::kGemini}) {
    const auto first = MakeBatchEntry(p, 4, req, 0);
    const auto second = MakeBatchEntry(p, 4, req, 1);
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_NE(first->custom_id, second->custom_id);
    EXPECT_EQ(ParseCustomId(second->custom_id)->repeat, 1);
  }
}

TEST(BatchApiTest, BatchesStayWithinRequestAndByteLimits) {
  const std::vector<size_t> sizes(10, 1000);
  EXPECT_EQ(SplitIntoBatches(sizes, {4, 0}), (std::vector<size_t>{4, 4, 2}));
  // 4096 bytes of envelope, then 1001 an entry: three fit in 7200 bytes.
  EXPECT_EQ(SplitIntoBatches(sizes, {0, 7200}), (std::vector<size_t>{3, 3, 3, 1}));
  EXPECT_EQ(SplitIntoBatches(sizes, {0, 0}), (std::vector<size_t>{10}));
  EXPECT_TRUE(SplitIntoBatches({}, {4, 0}).empty());
  // An entry larger than a batch goes alone.
  EXPECT_EQ(SplitIntoBatches({10, 100000, 10}, {0, 8000}), (std::vector<size_t>{1, 1, 1}));
  EXPECT_EQ(BatchLimitsOf(Provider::kOpenAi).max_requests, 50000);
  EXPECT_EQ(BatchLimitsOf(Provider::kAnthropic).max_requests, 100000);
  EXPECT_EQ(BatchLimitsOf(Provider::kGemini).max_bytes, 20000000);
}

TEST(BatchApiTest, OpenAiLinesAreAnswersOrErrors) {
  const auto ok = ParseOpenAiBatchLine(
      R"({"id":"r1","custom_id":"s1-0000000000000000","response":{"status_code":200,"body":)"
      R"({"model":"m-1","choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":3,"completion_tokens":1}}},"error":null})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->result.ok());
  EXPECT_EQ(ok->result.response.text, "hi");
  EXPECT_EQ(ok->result.usage.input, 3);
  const auto refused = ParseOpenAiBatchLine(
      R"({"custom_id":"s2-0000000000000000","response":{"status_code":400,"body":)"
      R"({"error":{"message":"bad max_tokens"}}},"error":null})");
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->result.error, ErrorKind::kFatal);
  EXPECT_NE(refused->result.error_message.find("bad max_tokens"), std::string::npos);
  const auto expired = ParseOpenAiBatchLine(
      R"({"custom_id":"s3-0000000000000000","response":null,"error":{"code":"batch_expired",)"
      R"("message":"not run in 24h"}})");
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(expired->result.error, ErrorKind::kRetryable);
  for (const char* bad : {"", "[]", R"({"response":{"status_code":200,"body":{}}})",
                          R"({"custom_id":"x"})", R"({"custom_id":"x","response":{"body":{}}})"}) {
    EXPECT_FALSE(ParseOpenAiBatchLine(bad).ok()) << bad;
  }
}

TEST(BatchApiTest, AnthropicLinesAreAnswersOrErrors) {
  const auto ok = ParseAnthropicBatchLine(
      R"({"custom_id":"a","result":{"type":"succeeded","message":{"content":[{"type":"text",)"
      R"("text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}}})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->result.response.text, "hi");
  const auto invalid = ParseAnthropicBatchLine(
      R"({"custom_id":"b","result":{"type":"errored","error":{"type":"error","error":)"
      R"({"type":"invalid_request_error","message":"too long"}}}})");
  ASSERT_TRUE(invalid.ok());
  EXPECT_EQ(invalid->result.error, ErrorKind::kFatal);
  EXPECT_NE(invalid->result.error_message.find("too long"), std::string::npos);
  for (const char* type : {"expired", "canceled"}) {
    const auto r = ParseAnthropicBatchLine(
        fmt::format(R"({{"custom_id":"c","result":{{"type":"{}"}}}})", type));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->result.error, ErrorKind::kRetryable);
  }
  EXPECT_FALSE(ParseAnthropicBatchLine(R"({"custom_id":"c","result":{"type":"odd"}})").ok());
}

TEST(BatchApiTest, GeminiResponsesMapByKeyOrByOrder) {
  const std::string op = R"({"name":"batches/1","done":true,"response":{"inlinedResponses":)"
                         R"({"inlinedResponses":[)"
                         R"({"response":{"candidates":[{"content":{"parts":[{"text":"two"}]},)"
                         R"("finishReason":"STOP"}]},"metadata":{"key":"k0"}},)"
                         R"({"error":{"code":500,"message":"internal"}},)"
                         R"({"response":{"candidates":[{"content":{"parts":[{"text":"zero"}]},)"
                         R"("finishReason":"STOP"}]}}]}}})";
  const auto r = ParseGeminiBatchOutput(op, {"k0", "k1", "k2"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].custom_id, "k0");
  EXPECT_EQ((*r)[0].result.response.text, "two");
  EXPECT_EQ((*r)[1].custom_id, "k1");
  EXPECT_EQ((*r)[1].result.error, ErrorKind::kRetryable);
  EXPECT_EQ((*r)[2].custom_id, "k2");  // by order: the third request's
  EXPECT_EQ((*r)[2].result.response.text, "zero");
  EXPECT_FALSE(ParseGeminiBatchOutput("not json", {}).ok());
  EXPECT_TRUE(ParseGeminiBatchOutput(R"({"done":true})", {"k0"})->empty());
}

}  // namespace
}  // namespace structtest
