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
        // A line of the input file: its key comes back with its response.
        EXPECT_EQ(j["key"], entry->custom_id);
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
  EXPECT_EQ(BatchLimitsOf(Provider::kGemini).max_bytes, 2000000000);
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

// Every error shape of an OpenAI batch line keeps its words, and none is called "openai"
// when it comes from a local engine's file. The vLLM lines are what run_batch.py
// (vllm-project/vllm at 0056ae7b2144abbc7b4916a43491c154567e0b76) writes: an
// exception's string with status 400 and no body, or an ErrorResponse {"error":
// {"message", "type", "param", "code"}} (protocol.py at 0052bed36509c7a5a2d8e48265334e40cf2f5a0e);
// OpenAI's {"code", "message"} is its BatchError (openai-python types/batch_error.py at
// e43b422412a9e96c9cc5192c61fffbe2d7e04836).
TEST(BatchApiTest, EveryOpenAiAndVllmErrorShapeKeepsItsWords) {
  struct Case {
    std::string line;
    std::string words;
    ErrorKind kind;
  };
  const Case cases[] = {
      {R"({"id":"vllm-1","custom_id":"s1-0000000000000000","response":{"status_code":400,)"
       R"("request_id":"vllm-batch-1","body":null},"error":"CUDA out of memory. Tried to allocate 2.00 GiB"})",
       "offline batch: HTTP 400: CUDA out of memory. Tried to allocate 2.00 GiB", ErrorKind::kFatal},
      {R"({"id":"vllm-2","custom_id":"s1-0000000000000000","response":{"status_code":400,)"
       R"("request_id":"vllm-batch-2","body":null},"error":{"error":{"message":"This model's maximum )"
       R"(context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}}})",
       "offline batch: HTTP 400: BadRequestError: This model's maximum context length is 4096 tokens.",
       ErrorKind::kFatal},
      {R"({"id":"vllm-3","custom_id":"s1-0000000000000000","response":{"status_code":404,)"
       R"("request_id":"vllm-batch-3","body":null},"error":{"object":"error","message":"The model )"
       R"(`m-1` does not exist.","type":"NotFoundError","param":null,"code":404}})",
       "offline batch: HTTP 404: NotFoundError: The model `m-1` does not exist.", ErrorKind::kFatal},
      {R"({"id":"vllm-4","custom_id":"s1-0000000000000000","response":{"status_code":500,)"
       R"("request_id":"vllm-batch-4","body":null},"error":{"error":{"message":"engine dead",)"
       R"("type":"InternalServerError","code":500}}})",
       "offline batch: HTTP 500: InternalServerError: engine dead", ErrorKind::kRetryable},
      {R"({"custom_id":"s1-0000000000000000","response":null,"error":{"code":"batch_expired",)"
       R"("message":"not run in 24h"}})",
       "offline batch: batch_expired: not run in 24h", ErrorKind::kRetryable},
      {R"({"custom_id":"s1-0000000000000000","response":{"status_code":400,"body":)"
       R"({"error":{"message":"bad max_tokens","type":"invalid_request_error"}}},"error":null})",
       "offline batch: HTTP 400: bad max_tokens", ErrorKind::kFatal},
      {R"({"custom_id":"s1-0000000000000000","response":{"status_code":400,"body":null},"error":null})",
       "offline batch: HTTP 400", ErrorKind::kFatal},
      {R"({"custom_id":"s1-0000000000000000","error":{"code":"x","message":""}})",
       "offline batch: x", ErrorKind::kRetryable},
  };
  for (const Case& c : cases) {
    const auto r = ParseOpenAiBatchLine(c.line, "offline batch");
    ASSERT_TRUE(r.ok()) << c.line << ": " << r.status().message();
    EXPECT_EQ(r->custom_id, "s1-0000000000000000");
    EXPECT_EQ(r->result.error_message, c.words) << c.line;
    EXPECT_EQ(r->result.error, c.kind) << c.line;
    EXPECT_EQ(r->result.error_message.find("openai"), std::string::npos) << c.line;
  }
  // The provider's own batches say "openai batch".
  const auto own = ParseOpenAiBatchLine(cases[0].line);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->result.error_message.rfind("openai batch: HTTP 400: CUDA", 0), 0u);
  // A success needs its body.
  EXPECT_FALSE(ParseOpenAiBatchLine(
                   R"({"custom_id":"s1-0000000000000000","response":{"status_code":200,"body":null},"error":null})")
                   .ok());
}

// google.rpc.Code (googleapis/google/rpc/code.proto) by its meaning.
TEST(BatchApiTest, GeminiErrorsAreGoogleRpcCodesReadByTheirMeaning) {
  const std::pair<int, std::string> refused[] = {
      {3, "INVALID_ARGUMENT"}, {9, "FAILED_PRECONDITION"}, {7, "PERMISSION_DENIED"},
      {5, "NOT_FOUND"},        {16, "UNAUTHENTICATED"},    {11, "OUT_OF_RANGE"},
      {12, "UNIMPLEMENTED"},   {6, "ALREADY_EXISTS"}};
  for (const auto& [code, name] : refused) {
    const ModelResult r = GeminiItemError(code, "why");
    EXPECT_EQ(r.error, ErrorKind::kFatal) << name;
    EXPECT_EQ(r.error_message, fmt::format("gemini batch: {} ({}): why", name, code));
  }
  const std::pair<int, std::string> retried[] = {
      {8, "RESOURCE_EXHAUSTED"}, {14, "UNAVAILABLE"}, {4, "DEADLINE_EXCEEDED"}, {13, "INTERNAL"},
      {10, "ABORTED"},           {2, "UNKNOWN"},      {1, "CANCELLED"},         {15, "DATA_LOSS"}};
  for (const auto& [code, name] : retried) {
    const ModelResult r = GeminiItemError(code, "why");
    EXPECT_EQ(r.error, ErrorKind::kRetryable) << name;
    EXPECT_EQ(r.error_message, fmt::format("gemini batch: {} ({}): why", name, code));
  }
  EXPECT_EQ(GeminiItemError(3, "").http_status, 400);
  EXPECT_EQ(GeminiItemError(8, "").http_status, 429);
  // An HTTP status where an rpc code belongs is read as one; an unknown code is retried.
  EXPECT_EQ(GeminiItemError(400, "bad").error, ErrorKind::kFatal);
  EXPECT_EQ(GeminiItemError(503, "busy").error, ErrorKind::kRetryable);
  EXPECT_EQ(GeminiItemError(42, "odd").error, ErrorKind::kRetryable);
  EXPECT_EQ(GeminiItemError(42, "odd").error_message, "gemini batch: code 42: odd");
}

// The issue's case: inline responses out of order, some without their keys. Before, a
// response without a key was given the request at its position, and every answer
// landed on another sample. Now a response is taken only under its key.
TEST(BatchApiTest, GeminiResponsesMapByKeyOnlyWhereverTheOutputIs) {
  const std::string responses =
      R"([{"response":{"candidates":[{"content":{"parts":[{"text":"two"}]},)"
      R"("finishReason":"STOP"}]},"metadata":{"key":"k2"}},)"
      R"({"error":{"code":3,"message":"Request contains an invalid argument."},"metadata":{"key":"k1"}},)"
      R"({"response":{"candidates":[{"content":{"parts":[{"text":"zero"}]},"finishReason":"STOP"}]}}])";
  for (const std::string& op :
       {R"({"name":"batches/1","done":true,"response":{"inlinedResponses":{"inlinedResponses":)" +
            responses + "}}}",
        R"({"name":"batches/1","done":true,"metadata":{"output":{"inlinedResponses":{"inlinedResponses":)" +
            responses + "}}}}"}) {
    const auto r = ParseGeminiBatchOutput(op);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->items.size(), 2u);
    EXPECT_EQ(r->unkeyed, 1);
    EXPECT_EQ(r->items[0].custom_id, "k2");
    EXPECT_EQ(r->items[0].result.response.text, "two");
    EXPECT_EQ(r->items[1].custom_id, "k1");
    EXPECT_EQ(r->items[1].result.error, ErrorKind::kFatal);
    EXPECT_EQ(r->items[1].result.error_message,
              "gemini batch: INVALID_ARGUMENT (3): Request contains an invalid argument.");
  }
  EXPECT_FALSE(ParseGeminiBatchOutput("not json").ok());
  EXPECT_TRUE(ParseGeminiBatchOutput(R"({"done":true})")->items.empty());
  EXPECT_FALSE(ParseGeminiBatchOutput(
                   R"({"response":{"inlinedResponses":{"inlinedResponses":[{"metadata":{"key":"k"}}]}}})")
                   .ok());
}

TEST(BatchApiTest, GeminiResponsesFilesAreFoundAndReadByKey) {
  EXPECT_EQ(GeminiResponsesFile(R"({"response":{"responsesFile":"files/out-1"}})"), "files/out-1");
  EXPECT_EQ(GeminiResponsesFile(R"({"metadata":{"output":{"responsesFile":"files/out-2"}}})"),
            "files/out-2");
  EXPECT_EQ(GeminiResponsesFile(R"({"response":{"inlinedResponses":{}}})"), "");
  EXPECT_EQ(GeminiResponsesFile("garbage"), "");
  const auto r = ParseGeminiResponsesFile(
      R"({"key":"k1","response":{"candidates":[{"content":{"parts":[{"text":"one"}]},"finishReason":"STOP"}]}})"
      "\n"
      R"({"response":{"candidates":[{"content":{"parts":[{"text":"lost"}]},"finishReason":"STOP"}]}})"
      "\r\n\n"
      R"({"key":"k0","error":{"code":8,"message":"Resource has been exhausted"}})"
      "\n"
      R"({"key":"k2","status":{"code":9,"message":"precondition"}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->items.size(), 3u);
  EXPECT_EQ(r->unkeyed, 1);
  EXPECT_EQ(r->items[0].custom_id, "k1");
  EXPECT_EQ(r->items[0].result.response.text, "one");
  EXPECT_EQ(r->items[1].custom_id, "k0");
  EXPECT_EQ(r->items[1].result.error, ErrorKind::kRetryable);
  EXPECT_NE(r->items[1].result.error_message.find("RESOURCE_EXHAUSTED (8): Resource has been exhausted"),
            std::string::npos);
  EXPECT_EQ(r->items[2].result.error, ErrorKind::kFatal);
  const auto bad = ParseGeminiResponsesFile("{\"key\":\"k\"}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos);
  EXPECT_FALSE(ParseGeminiResponsesFile("[1]").ok());
}

}  // namespace
}  // namespace structtest
