// Tests of the trainers' reward protocols (trainer_protocols.h) and of ScoreService's
// reward endpoints: how a response is cut out of an OpenRLHF query, how a label becomes a
// sample, what each refusal names, and the replies. The trainers' own calls, replayed
// from their source against the real binary, are in
// src/pymodule/tests/test_reward_servers.py.
#include "serve/trainer_protocols.h"

#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/jsonl.h"
#include "serve/score_service.h"
#include "structtest/checker.h"
#include "structtest/serve.h"
#include "tasks/responders.h"
#include "tasks/suite.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kEndTokens = ScoringServerOptions().end_tokens;

// One generated sample of each of `tasks`, as JSON objects.
std::vector<nlohmann::json> Samples(std::vector<std::string> tasks) {
  GenerateOptions options;
  options.seed = 5;
  options.limit = 1;
  options.tasks = std::move(tasks);
  auto sentences = ::structtest::testing::BuiltinSentenceSplitter();
  auto suite = Suite::Plan(options, sentences.get());
  EXPECT_TRUE(suite.ok()) << suite.status().message();
  std::vector<nlohmann::json> samples;
  if (!suite.ok()) return samples;
  for (const PlannedSubtask& subtask : (*suite)->subtasks()) {
    auto sample = (*suite)->Generate(subtask, 0);
    EXPECT_TRUE(sample.ok()) << sample.status().message();
    if (sample.ok()) samples.push_back(SampleToJson(*sample));
  }
  return samples;
}

std::string OracleAnswer(const nlohmann::json& sample) {
  auto parsed = SampleFromJson(sample);
  EXPECT_TRUE(parsed.ok());
  auto answer = BuiltinRespond("oracle", *parsed);
  EXPECT_TRUE(answer.ok()) << answer.status().message();
  return answer.ok() ? *answer : "";
}

std::string ReplyError(const std::string& body) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  return !j.is_discarded() && j.is_object() && j.contains("error") ? j["error"].get<std::string>()
                                                                   : "(no error in " + body + ")";
}

TEST(TrainerProtocolsTest, EndTokensAreStrippedFromTheEndOnly) {
  EXPECT_EQ(StripEndTokens("4<|im_end|>", kEndTokens), "4");
  EXPECT_EQ(StripEndTokens("4<|im_end|><|endoftext|><|endoftext|>", kEndTokens), "4");
  EXPECT_EQ(StripEndTokens("4</s>", kEndTokens), "4");
  EXPECT_EQ(StripEndTokens("4<|eot_id|>", kEndTokens), "4");
  EXPECT_EQ(StripEndTokens("4<｜end▁of▁sentence｜>", kEndTokens), "4");
  EXPECT_EQ(StripEndTokens("a<|im_end|>b\n", kEndTokens), "a<|im_end|>b\n");
  EXPECT_EQ(StripEndTokens("4\n<|im_end|>", kEndTokens), "4\n");  // only the tokens
  EXPECT_EQ(StripEndTokens("4<|im_end|>", {}), "4<|im_end|>");
  const std::vector<std::string> custom = {"<END>", ""};
  EXPECT_EQ(StripEndTokens("4<END>", custom), "4");
}

TEST(TrainerProtocolsTest, TheResponseIsWhatFollowsThePromptInTheQuery) {
  const std::string prompt =
      "<|im_start|>user\nWhat is 17 + 25? Answer on a line 'Result: N'.<|im_end|>\n"
      "<|im_start|>assistant\n";
  auto whole = ResponseOfQuery(prompt + "Result: 42<|im_end|>", prompt);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(*whole, "Result: 42<|im_end|>");
  // OpenRLHF cuts a prompt over its budget from the left: the query begins with the
  // prompt's end.
  auto cut = ResponseOfQuery(prompt.substr(20) + "Result: 42", prompt);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(*cut, "Result: 42");
  // The response may repeat the prompt's end: the longest end of the prompt counts.
  auto repeated = ResponseOfQuery(prompt.substr(20) + "assistant\nResult: 42", prompt);
  ASSERT_TRUE(repeated.ok());
  EXPECT_EQ(*repeated, "assistant\nResult: 42");
  EXPECT_EQ(*ResponseOfQuery("anything", ""), "anything");
  EXPECT_EQ(*ResponseOfQuery("Q?", "Q?"), "");

  // Too little of the prompt, or another prompt: refused, saying where they part.
  auto stranger = ResponseOfQuery("<|im_start|>user\nWhat is 17 + 26?", prompt);
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.status().message(),
            fmt::format("does not begin with its prompt ({} bytes), nor with the prompt's last 32 "
                        "bytes: they agree on the first 31 bytes, then the query has \"6?\" where "
                        "the prompt has \"5? Answer on a l\"",
                        prompt.size()));
  auto tail = ResponseOfQuery(prompt.substr(prompt.size() - 10) + "Result: 42", prompt);
  EXPECT_FALSE(tail.ok());
  auto short_prompt = ResponseOfQuery("2+3=5", "2+2=");
  ASSERT_FALSE(short_prompt.ok());
  EXPECT_NE(short_prompt.status().message().find("then the query has \"3=5\" where the prompt "
                                                 "has \"2=\""),
            std::string::npos)
      << short_prompt.status().message();
  auto ended = ResponseOfQuery("2+", "2+2=");
  ASSERT_FALSE(ended.ok());
  EXPECT_NE(ended.status().message().find("the query has its end"), std::string::npos);
}

TEST(TrainerProtocolsTest, ALabelIsASampleObjectOrItsJsonText) {
  const nlohmann::json sample = Samples({"bullet_points"}).at(0);
  auto object = SampleFromLabel(sample);
  ASSERT_TRUE(object.ok()) << object.status().message();
  EXPECT_EQ(SampleToJson(*object), sample);
  auto text = SampleFromLabel(sample.dump());
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(SampleToJson(*text), sample);
  // A dataset's struct column: every row's keys, this row's missing ones null.
  nlohmann::json arrow = sample;
  arrow["params"]["n_steps"] = nullptr;
  arrow["context"]["code"] = nullptr;
  arrow["rationale"] = nullptr;
  auto unified = SampleFromLabel(arrow);
  ASSERT_TRUE(unified.ok()) << unified.status().message();
  EXPECT_EQ(SampleToJson(*unified), sample);

  const std::string help =
      "the label must hold the structtest sample, a JSON object or its JSON text (OpenRLHF: "
      "--data.label_key; slime: --label-key)";
  nlohmann::json no_subtask = sample;
  no_subtask.erase("subtask");
  nlohmann::json unknown = sample;
  unknown["subtask"] = "bullet_pointz";
  const std::pair<nlohmann::json, std::string> bad[] = {
      {"", "empty: " + help},
      {" \n", "empty: " + help},
      {42, "a number: " + help},
      {nullptr, "a null: " + help},
      {nlohmann::json::array({sample}), "an array: " + help},
      {"Result: 42", "a string that is not JSON ("},
      {"[1]", "JSON text of an array, not of an object: " + help},
      {no_subtask, "not a structtest sample: missing field 'subtask'"},
      {no_subtask.dump(), "not a structtest sample: missing field 'subtask'"},
      {unknown, "not a structtest sample: unknown subtask 'bullet_pointz'"},
      {std::string(100, '[') + std::string(100, ']'),
       "its JSON text nests arrays and objects deeper than 64 levels"},
  };
  for (const auto& [label, says] : bad) {
    auto refused = SampleFromLabel(label);
    ASSERT_FALSE(refused.ok()) << label.dump();
    EXPECT_EQ(refused.status().message().substr(0, says.size()), says) << label.dump();
  }
}

// A label's JSON text whose strings hold escaped quotes followed by brackets (a code
// prompt): the nesting pre-check reads those brackets as text, and the sample is taken;
// the same brackets outside any string are refused.
TEST(TrainerProtocolsTest, BracketsInsideAStringWithEscapedQuotesAreText) {
  nlohmann::json sample = Samples({"bullet_points"}).at(0);
  sample["messages"][0]["content"] = "print(\"" + std::string(70, '[') + "\")  # \\\" " +
                                     std::string(70, '{') + " \\";
  const std::string text = sample.dump();
  ASSERT_NE(text.find("\\\""), std::string::npos);  // an escaped quote in the text
  auto taken = SampleFromLabel(text);
  ASSERT_TRUE(taken.ok()) << taken.status().message();
  EXPECT_EQ(SampleToJson(*taken), sample);
  auto refused = SampleFromLabel(std::string(70, '[') + text + std::string(70, ']'));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("deeper than 64 levels"), std::string::npos)
      << refused.status().message();
}

// JSON text nested exactly as deep as allowed passes the pre-check (and is then judged
// as a label: here, an array); one level more is refused.
TEST(TrainerProtocolsTest, TextNestedAsDeepAsAllowedPassesThePreCheck) {
  const size_t d = kMaxJsonDepth;
  auto at_limit = SampleFromLabel(std::string(d, '[') + std::string(d, ']'));
  ASSERT_FALSE(at_limit.ok());
  EXPECT_EQ(at_limit.status().message().rfind("JSON text of an array, not of an object", 0), 0u)
      << at_limit.status().message();
  auto deeper = SampleFromLabel(std::string(d + 1, '[') + std::string(d + 1, ']'));
  ASSERT_FALSE(deeper.ok());
  EXPECT_NE(deeper.status().message().find("deeper than 64 levels"), std::string::npos)
      << deeper.status().message();
}

// A long conversation as the prompt: a hundred messages side by side nest two levels
// deep, not a hundred.
TEST(TrainerProtocolsTest, ManyObjectsSideBySideAreNotNestedDeep) {
  nlohmann::json sample = Samples({"bullet_points"}).at(0);
  const nlohmann::json last = sample["messages"].back();
  nlohmann::json messages = nlohmann::json::array();
  for (int i = 0; i < 50; ++i) {
    messages.push_back({{"role", "user"}, {"content", fmt::format("turn {}", i)}});
    messages.push_back({{"role", "assistant"}, {"content", "noted"}});
  }
  messages.push_back(last);
  sample["messages"] = messages;
  for (const nlohmann::json& label : {sample, nlohmann::json(sample.dump())}) {
    auto taken = SampleFromLabel(label);
    ASSERT_TRUE(taken.ok()) << taken.status().message();
    EXPECT_EQ(SampleToJson(*taken), sample);
  }
}

TEST(TrainerProtocolsTest, UrlParametersAreReadOrRefusedByName) {
  const RewardParams defaults;
  auto params = ParseRewardParams(Endpoint::kSlime,
                                  {{"rules", "paper"}, {"partial", "true"}, {"details", ""}},
                                  defaults);
  ASSERT_TRUE(params.ok()) << params.status().message();
  EXPECT_EQ(params->rules, RuleSet::kPaper);
  EXPECT_TRUE(params->partial);
  EXPECT_TRUE(params->details);
  auto plain = ParseRewardParams(Endpoint::kOpenRlhf, {}, defaults);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->rules, RuleSet::kStrict);
  EXPECT_FALSE(plain->partial);
  const struct {
    Endpoint endpoint;
    QueryArgs args;
    std::string says;
  } bad[] = {
      {Endpoint::kOpenRlhf, {{"rule", "paper"}},
       "URL parameter 'rule': unknown (/get_reward takes rules, partial)"},
      {Endpoint::kOpenRlhf, {{"details", "1"}},
       "URL parameter 'details': unknown (/get_reward takes rules, partial)"},
      {Endpoint::kSlime, {{"rules", "lenient"}},
       "unknown rule set 'lenient' (expected 'paper' or 'strict')"},
      {Endpoint::kSlime, {{"partial", "yes"}},
       "URL parameter 'partial': 'yes' is not 1, 0, true or false"},
      {Endpoint::kScore, {{"rules", "paper"}},
       "URL parameter 'rules': /v1/score takes none (the body holds \"rules\")"},
  };
  for (const auto& c : bad) {
    auto refused = ParseRewardParams(c.endpoint, c.args, defaults);
    ASSERT_FALSE(refused.ok()) << c.says;
    EXPECT_EQ(refused.status().message(), c.says);
  }
}

TEST(TrainerProtocolsTest, OpenRlhfBodiesThatAreNotOneAreRefusedNamingTheItem) {
  const nlohmann::json sample = Samples({"math_easy"}).at(0);
  const auto body = [&](nlohmann::json queries, nlohmann::json prompts, nlohmann::json labels) {
    return nlohmann::json{{"query", queries}, {"prompts", prompts}, {"labels", labels}};
  };
  nlohmann::json no_id = sample;
  no_id.erase("id");
  const std::pair<nlohmann::json, std::string> bad[] = {
      {nlohmann::json::array(), "expected a JSON object with \"query\", \"prompts\" and \"labels\", "
                                "found array"},
      {{{"query", {"a", "b"}}, {"prompts", {"a", "b"}}}, "missing key \"labels\""},
      {{{"query", "Qa"}, {"prompts", {"Q"}}, {"labels", nlohmann::json::array({sample})}},
       "query: expected an array, found string"},
      {body({"Qa", "Qb"}, {"Q"}, nlohmann::json::array({sample})),
       "2 queries, 1 prompts and 1 labels: expected one of each per sample"},
      {body({"Qa", 7}, {"Q", "Q"}, {sample, sample}), "query[1]: expected a string, found number"},
      {body({"Qa", "Qb"}, {"Q", nullptr}, {sample, sample}),
       "prompts[1]: expected a string, found null"},
      {body({"Qa", "Qb", "Qc"}, {"Q", "Q", "Q"}, {sample, sample.dump(), no_id}),
       "labels[2]: not a structtest sample: missing field 'id'"},
      {body({"Qa", "Qb"}, {"Q", "Q"}, {sample, ""}), "labels[1]: empty: the label must hold"},
      {body({"Qa", "Xb"}, {"Q", "Q"}, {sample, sample}),
       "query[1]: does not begin with its prompt (1 bytes)"},
  };
  for (const auto& [request, says] : bad) {
    auto refused = OpenRlhfRecords(request, kEndTokens);
    ASSERT_FALSE(refused.ok()) << request.dump();
    EXPECT_EQ(refused.status().message().substr(0, says.size()), says) << request.dump();
  }
  auto records = OpenRlhfRecords(
      body({"Q<think>sum</think>\n\nResult: 4<|im_end|>", "QResult: 4</s>"}, {"Q", "Q"},
           {sample, sample.dump()}),
      kEndTokens);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].response.text, "Result: 4");  // the answer after the reasoning
  EXPECT_EQ((*records)[1].response.text, "Result: 4");
  EXPECT_EQ((*records)[1].sample.id, sample["id"]);
}

// The fast path reads what the nlohmann one reads, and leaves the rest to it.
TEST(TrainerProtocolsTest, TheFastPathAgreesOrStandsAside) {
  const std::vector<nlohmann::json> samples = Samples({"math_easy", "bullet_points"});
  nlohmann::json good = {{"query", {"Q<think>r</think>Result: 4<|im_end|>", "PResult: 5"}},
                         {"prompts", {"Q", "P"}},
                         {"labels", {samples[0].dump(), samples[1].dump()}}};
  auto fast = OpenRlhfRecordsFast(good.dump(), kEndTokens);
  auto slow = OpenRlhfRecords(good, kEndTokens);
  ASSERT_TRUE(fast.has_value());
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  ASSERT_EQ(fast->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(SampleToJson((*fast)[i].sample), SampleToJson((*slow)[i].sample));
    EXPECT_EQ((*fast)[i].response.text, (*slow)[i].response.text);
  }
  nlohmann::json with_null = samples[0];
  with_null["params"]["x"] = nullptr;
  nlohmann::json no_subtask = samples[0];
  no_subtask.erase("subtask");
  using A = nlohmann::json;
  const auto body = [](A queries, A prompts, A labels) {
    return A{{"query", queries}, {"prompts", prompts}, {"labels", labels}};
  };
  for (const nlohmann::json& aside : {
           body(A::array({"Qa"}), A::array({"Q"}), A::array({samples[0]})),  // an object
           body(A::array({"Qa"}), A::array({"Q"}), A::array({with_null.dump()})),
           body(A::array({"Qa"}), A::array({"Q"}), A::array({no_subtask.dump()})),
           body(A::array({"Xa"}), A::array({"Q"}), A::array({samples[0].dump()})),
           body(A::array({"Qa", "Qb"}), A::array({"Q"}), A::array({samples[0].dump()})),
       }) {
    EXPECT_FALSE(OpenRlhfRecordsFast(aside.dump(), kEndTokens).has_value()) << aside.dump();
  }
  // The same bodies, each one good item: read.
  EXPECT_TRUE(OpenRlhfRecordsFast(
                  body(A::array({"Qa"}), A::array({"Q"}), A::array({samples[0].dump()})).dump(),
                  kEndTokens)
                  .has_value());
  EXPECT_FALSE(OpenRlhfRecordsFast("{\"query\": [", kEndTokens).has_value());
}

TEST(TrainerProtocolsTest, SlimeBodiesThatAreNotOneAreRefusedNamingTheMember) {
  const nlohmann::json sample = Samples({"math_easy"}).at(0);
  const std::pair<nlohmann::json, std::string> bad[] = {
      {"x", "expected a JSON object with \"prompt\", \"response\" and \"label\", found string"},
      {{{"prompt", "Q"}, {"label", sample}}, "missing key \"response\""},
      {{{"prompt", "Q"}, {"response", 4}, {"label", sample}},
       "response: expected a string, found number"},
      {{{"prompt", "Q"}, {"response", "4"}}, "missing key \"label\": the label must hold"},
      {{{"prompt", "Q"}, {"response", "4"}, {"label", nullptr}}, "label: a null: the label"},
  };
  for (const auto& [request, says] : bad) {
    auto refused = SlimeRecord(request, kEndTokens);
    ASSERT_FALSE(refused.ok()) << request.dump();
    EXPECT_EQ(refused.status().message().substr(0, says.size()), says) << request.dump();
  }
  // slime's prompt may be a string or a conversation: it is not read.
  auto record = SlimeRecord(
      {{"prompt", {{{"role", "user"}, {"content", "Q"}}}}, {"response", "4<|im_end|>"},
       {"label", sample.dump()}},
      kEndTokens);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->response.text, "4");
}

// ScoreService's reward endpoints: the rewards are the checker's verdicts, under strict
// unless the URL says otherwise, and the replies are the shapes the trainers read.
class RewardServiceTest : public ::testing::Test {
 protected:
  RewardServiceTest() {
    ScoreServiceOptions options;
    options.threads = 2;
    options.checker = &checker_;
    options.end_tokens = kEndTokens;
    service_ = std::make_unique<ScoreService>(options);
  }
  ServiceReply Reward(Endpoint endpoint, const nlohmann::json& body, QueryArgs args = {}) {
    return service_->Reward(endpoint, body.dump(), args, ScoreService::Clock::now() + 30s);
  }
  Checker checker_;
  std::unique_ptr<ScoreService> service_;
};

TEST_F(RewardServiceTest, OpenRlhfGetsTheCheckersRewardsAndNumbersToLog) {
  const std::vector<nlohmann::json> samples =
      Samples({"math_easy", "html_easy", "bullet_points", "replace_variables"});
  ASSERT_EQ(samples.size(), 4u);
  nlohmann::json queries = nlohmann::json::array(), prompts = nlohmann::json::array(),
                 labels = nlohmann::json::array();
  std::vector<std::string> answers;
  for (const nlohmann::json& s : samples) {
    for (const std::string& answer : {OracleAnswer(s), std::string("I would rather not.")}) {
      const std::string prompt = "<|im_start|>user\n" + s["id"].get<std::string>() +
                                 "<|im_end|>\n<|im_start|>assistant\n";
      queries.push_back(prompt + answer + "<|im_end|>");
      prompts.push_back(prompt);
      labels.push_back(s.dump());
      answers.push_back(answer);
    }
  }
  const nlohmann::json body = {{"query", queries}, {"prompts", prompts}, {"labels", labels}};
  for (const auto& [args, rules] :
       {std::pair{QueryArgs{}, RuleSet::kStrict},
        std::pair{QueryArgs{{"rules", "paper"}, {"partial", "1"}}, RuleSet::kPaper}}) {
    const bool partial = !args.empty();
    const ServiceReply reply = Reward(Endpoint::kOpenRlhf, body, args);
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.rules, RuleSetName(rules));
    const nlohmann::json got = nlohmann::json::parse(reply.body);
    EXPECT_EQ(got["rules"], RuleSetName(rules));
    ASSERT_EQ(got["rewards"].size(), answers.size()) << reply.body;
    EXPECT_EQ(got["scores"], got["rewards"]);
    for (size_t i = 0; i < answers.size(); ++i) {
      auto verdict = checker_.Check(*SampleFromJson(samples[i / 2]), answers[i], rules);
      ASSERT_TRUE(verdict.ok());
      EXPECT_EQ(got["rewards"][i], RewardOf(*verdict, partial)) << i;
      EXPECT_EQ(got["extra_logs"]["structtest_pass"][i], verdict->pass ? 1.0 : 0.0) << i;
      EXPECT_EQ(got["extra_logs"]["structtest_rule_share"][i], verdict->score()) << i;
      EXPECT_EQ(verdict->pass, i % 2 == 0) << i << " " << reply.body;
    }
  }
}

TEST_F(RewardServiceTest, SlimeGetsANumberOrTheVerdictsDetails) {
  const nlohmann::json sample = Samples({"math_easy"}).at(0);
  const nlohmann::json right = {{"prompt", "Q"}, {"response", OracleAnswer(sample)}, {"label", sample}};
  const nlohmann::json wrong = {{"prompt", "Q"}, {"response", "Result: -1"}, {"label", sample}};
  ServiceReply reply = Reward(Endpoint::kSlime, right);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.body, "1.0\n");
  EXPECT_EQ(reply.rules, "strict");
  EXPECT_EQ(Reward(Endpoint::kSlime, wrong).body, "0.0\n");
  reply = Reward(Endpoint::kSlime, wrong, {{"details", "1"}, {"partial", "1"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const nlohmann::json details = nlohmann::json::parse(reply.body);
  auto verdict = checker_.Check(*SampleFromJson(sample), "Result: -1", RuleSet::kStrict);
  ASSERT_TRUE(verdict.ok());
  EXPECT_EQ(details["reward"], verdict->score());
  EXPECT_EQ(details["pass"], false);
  EXPECT_EQ(details["score"], verdict->score());
  EXPECT_EQ(details["rules"], "strict");
  EXPECT_EQ(details["rules_version"], verdict->rules_version);
  EXPECT_EQ(details["failed_rule"], FailedRule(*verdict));
  EXPECT_NE(details["failed_rule"], "");
  EXPECT_EQ(details["reason"], verdict->reason);
  EXPECT_EQ(details["checks"], ChecksToJson(verdict->checks));
  reply = Reward(Endpoint::kSlime, right, {{"rules", "paper"}, {"details", "1"}});
  EXPECT_EQ(nlohmann::json::parse(reply.body)["failed_rule"], "") << reply.body;
  EXPECT_EQ(reply.rules, "paper");
}

TEST_F(RewardServiceTest, RefusalsAre400NamingTheItemAndStateTheRules) {
  const nlohmann::json sample = Samples({"math_easy"}).at(0);
  ServiceReply reply = service_->Reward(Endpoint::kOpenRlhf, "{\"query\": [", {},
                                        ScoreService::Clock::now() + 10s);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ReplyError(reply.body).substr(0, 10), "not JSON: ");
  reply = Reward(Endpoint::kOpenRlhf,
                 {{"query", {"Qa", "Qb"}}, {"prompts", {"Q", "Q"}}, {"labels", {sample, 3}}},
                 {{"rules", "paper"}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.rules, "paper");
  EXPECT_EQ(ReplyError(reply.body).substr(0, 21), "labels[1]: a number: ");
  reply = Reward(Endpoint::kSlime, {{"response", "4"}, {"label", sample}}, {{"rule", "paper"}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ReplyError(reply.body), "URL parameter 'rule': unknown (/slime/reward takes rules, "
                                 "partial, details)");
  // /v1/score's options are in its body.
  reply = service_->Score("{\"records\":[]}", ScoreService::Clock::now() + 10s,
                          {{"rules", "paper"}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ReplyError(reply.body),
            "URL parameter 'rules': /v1/score takes none (the body holds \"rules\")");
  // Over --max-in-flight: 413, as /v1/score.
  ScoreServiceOptions small;
  small.threads = 1;
  small.max_in_flight = 1;
  small.checker = &checker_;
  ScoreService one(small);
  reply = one.Reward(Endpoint::kOpenRlhf,
                     nlohmann::json{{"query", {"Qa", "Qb"}}, {"prompts", {"Q", "Q"}},
                                    {"labels", {sample, sample}}}
                         .dump(),
                     {}, ScoreService::Clock::now() + 10s);
  EXPECT_EQ(reply.status, 413);
  EXPECT_EQ(ReplyError(reply.body), "2 records: at most 1 per request (--max-in-flight)");
}

TEST_F(RewardServiceTest, ARecordTheCheckerCannotScoreIs500NotAZeroReward) {
  CheckerOptions no_python;
  no_python.python = "/nonexistent/python3";
  Checker checker(no_python);
  ScoreServiceOptions options;
  options.threads = 1;
  options.checker = &checker;
  ScoreService service(options);
  const std::vector<nlohmann::json> code = Samples({"replace_variables"});
  ASSERT_EQ(code.size(), 1u);
  ASSERT_EQ(code[0]["domain"], "code");
  // The right answer: its check runs it.
  const nlohmann::json body = {{"query", nlohmann::json::array({"Q" + OracleAnswer(code[0])})},
                               {"prompts", nlohmann::json::array({"Q"})},
                               {"labels", nlohmann::json::array({code[0]})}};
  const ServiceReply reply =
      service.Reward(Endpoint::kOpenRlhf, body.dump(), {}, ScoreService::Clock::now() + 30s);
  EXPECT_EQ(reply.status, 500) << reply.body;
  EXPECT_EQ(ReplyError(reply.body).substr(0, 28), "labels[0]: cannot score it: ") << reply.body;
}

}  // namespace
}  // namespace structtest
