#include "runner/runner.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "testing/fake_client.h"
#include "backends/retry_client.h"
#include "sandbox/python_pool.h"
#include "tasks/suite.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

using std::chrono::milliseconds;

// The html and math subtasks of the default suite at a small size: no Punkt model or
// python3 needed, and real checkers behind every verdict.
std::vector<Sample> SmallSuite() {
  GenerateOptions options;
  options.suite = "default";
  options.seed = 3;
  options.size = 0.02;
  options.tasks = {"html", "math"};
  auto suite = Suite::Plan(options, nullptr, nullptr);
  EXPECT_TRUE(suite.ok()) << suite.status().message();
  std::vector<Sample> out;
  for (const PlannedSubtask& p : (*suite)->subtasks()) {
    for (size_t i = 0; i < p.count; ++i) out.push_back(*(*suite)->Generate(p, i));
  }
  return out;
}

std::unique_ptr<RunStore> StoreWith(const std::vector<Sample>& samples, const std::string& dir = "") {
  auto store = dir.empty() ? RunStore::OpenInMemory() : RunStore::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status().message();
  EXPECT_TRUE((*store)->Begin().ok());
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_TRUE((*store)->AddSample(static_cast<int64_t>(i), samples[i]).ok());
  }
  EXPECT_TRUE((*store)->Commit().ok());
  return std::move(store).value();
}

// A model that answers correctly for even sample indexes and wrongly for odd ones, so
// verdicts are mixed and depend on the sample only.
FakeReply Model(const std::vector<Sample>& samples, const ModelRequest& req) {
  FakeReply reply;
  const Sample& s = samples.at(req.id);
  reply.result.response.text = req.id % 2 == 0 ? s.target["answer"].get<std::string>() : "no idea";
  reply.result.finish = FinishReason::kStop;
  reply.result.usage.output = 7;
  reply.latency = milliseconds(req.id % 3);
  return reply;
}

std::map<int64_t, std::pair<bool, std::string>> Verdicts(RunStore& store) {
  std::map<int64_t, std::pair<bool, std::string>> out;
  EXPECT_TRUE(store.ForEach("paper", [&](const RunRow& row) {
    if (row.verdict) out[row.index] = {row.verdict->pass, row.verdict->reason};
    return Status::Ok();
  }).ok());
  return out;
}

TEST(RunnerTest, AnswersScoresAndStoresEverySampleOnce) {
  const std::vector<Sample> samples = SmallSuite();
  ASSERT_GT(samples.size(), 20u);
  auto store = StoreWith(samples);
  FakeModelClient client(8, [&](const ModelRequest& r, int) { return Model(samples, r); });
  CheckEnv env;
  RunnerOptions options;
  options.request.every.model = "m";
  Runner runner(store.get(), nullptr, env, options);
  auto stats = runner.Run(&client, nullptr);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->answered, static_cast<int64_t>(samples.size()));
  EXPECT_EQ(stats->errored, 0);
  EXPECT_EQ(stats->output_tokens, 7 * static_cast<int64_t>(samples.size()));
  EXPECT_EQ(client.started().size(), samples.size());
  EXPECT_EQ(client.max_in_flight_seen(), 8u);
  std::set<uint64_t> ids;
  for (const ModelRequest& r : client.started()) {
    ids.insert(r.id);
    EXPECT_EQ(r.model, "m");
    EXPECT_EQ(r.messages.size(), samples[r.id].messages.size());
  }
  EXPECT_EQ(ids.size(), samples.size());
  const auto verdicts = Verdicts(*store);
  ASSERT_EQ(verdicts.size(), samples.size());
  for (const auto& [index, v] : verdicts) {
    EXPECT_EQ(v.first, index % 2 == 0) << index << ": " << v.second;
  }
  auto tally = runner.ScoreAndTally();
  ASSERT_TRUE(tally.ok());
  EXPECT_EQ(tally->scored(), static_cast<int64_t>(samples.size()));
  EXPECT_EQ(tally->errors(), 0);
}

TEST(RunnerTest, ErrorsAreStoredNotScoredAndOnlyThemAreAskedAgain) {
  const std::vector<Sample> samples = SmallSuite();
  auto store = StoreWith(samples);
  CheckEnv env;
  RunnerOptions options;
  Runner runner(store.get(), nullptr, env, options);
  // First session: every 5th sample fails for good.
  FakeModelClient failing(4, [&](const ModelRequest& r, int) {
    FakeReply reply = Model(samples, r);
    if (r.id % 5 == 0) {
      reply.result = ModelResult();
      reply.result.error = ErrorKind::kFatal;
      reply.result.error_message = "openai: HTTP 400: bad request";
      reply.result.http_status = 400;
    }
    return reply;
  });
  auto first = runner.Run(&failing, nullptr);
  ASSERT_TRUE(first.ok());
  const int64_t failures = (static_cast<int64_t>(samples.size()) + 4) / 5;
  EXPECT_EQ(first->errored, failures);
  auto tally = runner.ScoreAndTally();
  ASSERT_TRUE(tally.ok());
  EXPECT_EQ(tally->errors(), failures);  // reported as not scored, never as wrong
  EXPECT_EQ(tally->scored(), static_cast<int64_t>(samples.size()) - failures);

  // Second session: only the failed samples are asked.
  FakeModelClient healthy(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  auto second = runner.Run(&healthy, nullptr);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->answered, failures);
  for (const ModelRequest& r : healthy.started()) EXPECT_EQ(r.id % 5, 0u) << r.id;
  EXPECT_EQ(healthy.started().size(), static_cast<size_t>(failures));

  // And the result equals that of a run that never failed.
  auto clean = StoreWith(samples);
  Runner clean_runner(clean.get(), nullptr, env, options);
  FakeModelClient clean_client(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  ASSERT_TRUE(clean_runner.Run(&clean_client, nullptr).ok());
  EXPECT_EQ(Verdicts(*store), Verdicts(*clean));
  auto after = runner.ScoreAndTally();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->errors(), 0);
  EXPECT_EQ(RenderTextReport(*after, RuleSet::kPaper),
            RenderTextReport(*clean_runner.ScoreAndTally(), RuleSet::kPaper));
}

TEST(RunnerTest, RetriedFaultsGiveTheSameResultAsAFaultFreeRun) {
  const std::vector<Sample> samples = SmallSuite();
  CheckEnv env;
  RunnerOptions options;
  auto faulty_store = StoreWith(samples);
  RetryPolicy policy;
  policy.initial_backoff = milliseconds(1);
  policy.max_backoff = milliseconds(4);
  auto inner = std::make_unique<FakeModelClient>(16, [&](const ModelRequest& r, int previous) {
    FakeReply reply = Model(samples, r);
    if (previous < static_cast<int>(r.id % 3)) {  // fails up to twice, then answers
      reply.result = ModelResult();
      reply.result.error = ErrorKind::kRetryable;
      reply.result.http_status = r.id % 2 ? 429 : 503;
      reply.result.error_message = "overloaded";
    }
    return reply;
  });
  RetryingModelClient retrying(std::move(inner), policy);
  Runner faulty(faulty_store.get(), nullptr, env, options);
  auto stats = faulty.Run(&retrying, nullptr);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->errored, 0);
  EXPECT_GT(retrying.retries(), 0u);

  auto clean_store = StoreWith(samples);
  FakeModelClient clean_client(3, [&](const ModelRequest& r, int) { return Model(samples, r); });
  Runner clean(clean_store.get(), nullptr, env, options);
  ASSERT_TRUE(clean.Run(&clean_client, nullptr).ok());
  EXPECT_EQ(Verdicts(*faulty_store), Verdicts(*clean_store));
}

TEST(RunnerTest, StopKeepsWhatCameBackAndTheNextRunAsksOnlyTheRest) {
  const std::vector<Sample> samples = SmallSuite();
  testing::TempDir dir;
  auto store = StoreWith(samples, dir.path() + "/run");
  CheckEnv env;
  std::atomic<bool> stop{false};
  RunnerOptions options;
  options.stop = &stop;
  options.batch_results = 4;
  std::set<uint64_t> answered_first;
  {
    Runner runner(store.get(), nullptr, env, options);
    FakeModelClient client(4, [&](const ModelRequest& r, int) {
      if (r.id == 10) stop = true;  // "Ctrl-C" arrives while request 10 starts
      return Model(samples, r);
    });
    auto stats = runner.Run(&client, nullptr);
    ASSERT_TRUE(stats.ok());
    EXPECT_TRUE(stats->interrupted);
    EXPECT_LT(stats->answered, static_cast<int64_t>(samples.size()));
    auto counts = store->Counts();
    ASSERT_TRUE(counts.ok());
    EXPECT_EQ(counts->answered, stats->answered);
    EXPECT_EQ(counts->errored, 0);
    ASSERT_TRUE(store->ForEach("paper", [&](const RunRow& row) {
      if (row.response) answered_first.insert(static_cast<uint64_t>(row.index));
      return Status::Ok();
    }).ok());
  }
  store.reset();
  auto reopened = RunStore::Open(dir.path() + "/run");
  ASSERT_TRUE(reopened.ok());
  stop = false;
  Runner runner(reopened->get(), nullptr, env, options);
  FakeModelClient client(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  auto stats = runner.Run(&client, nullptr);
  ASSERT_TRUE(stats.ok());
  EXPECT_FALSE(stats->interrupted);
  for (const ModelRequest& r : client.started()) {
    EXPECT_FALSE(answered_first.contains(r.id)) << "asked again: " << r.id;
  }
  EXPECT_EQ(answered_first.size() + client.started().size(), samples.size());
  auto clean = StoreWith(samples);
  Runner clean_runner(clean.get(), nullptr, env, RunnerOptions());
  FakeModelClient clean_client(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  ASSERT_TRUE(clean_runner.Run(&clean_client, nullptr).ok());
  EXPECT_EQ(Verdicts(**reopened), Verdicts(*clean));
}

// The key is nlohmann's dump of the request's fields, invalid UTF-8 included.
TEST(RunnerTest, CacheKeyIsTheDumpOfTheRequest) {
  for (const std::string& content :
       {std::string("plain"), std::string("q\"uote\\ \n\x01 \xc3\xa9"), std::string("bad \xff"),
        std::string()}) {
    ModelRequest r;
    r.model = "m\xc3\xa9";
    r.messages = {{"system", "be brief"}, {"user", content}};
    r.max_tokens = 64;
    for (const std::optional<double> t : {std::optional<double>(), std::optional<double>(0.7)}) {
      r.temperature = t;
      nlohmann::json messages = nlohmann::json::array();
      for (const Message& m : r.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
      nlohmann::json expected = {{"endpoint", "openai/http://h:1/v1"}, {"model", r.model},
                                 {"messages", messages}, {"max_tokens", r.max_tokens}};
      if (t) expected["temperature"] = *t;
      const std::string dump =
          expected.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      EXPECT_EQ(Runner::CacheKey("openai/http://h:1/v1", r), dump) << content;
    }
  }
}

// With --repeats, each repeat of a request is a request of its own in the cache: repeat 0
// keeps the key it had before repeats, and every other repeat's key names it, whatever
// the prompt holds (invalid UTF-8 too, which takes another path).
TEST(RunnerTest, EachRepeatOfARequestHasACacheKeyOfItsOwn) {
  for (const std::string& content :
       {std::string("plain"), std::string("q\"uote\\ \n\x01 \xc3\xa9"), std::string("bad \xff")}) {
    ModelRequest r;
    r.model = "m";
    r.messages = {{"user", content}};
    r.max_tokens = 64;
    const std::string endpoint = "openai/http://h:1/v1";
    std::set<std::string> keys;
    for (int64_t repeat = 0; repeat < 4; ++repeat) {
      const std::string key = Runner::CacheKey(endpoint, r, {}, repeat);
      keys.insert(key);
      nlohmann::json messages = nlohmann::json::array({{{"role", "user"}, {"content", content}}});
      nlohmann::json expected = {{"endpoint", endpoint}, {"model", "m"}, {"messages", messages},
                                 {"max_tokens", 64}};
      if (repeat > 0) expected["repeat"] = repeat;
      EXPECT_EQ(key, expected.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
          << content << " repeat " << repeat;
    }
    EXPECT_EQ(keys.size(), 4u) << content;
    EXPECT_EQ(Runner::CacheKey(endpoint, r, {}, 0), Runner::CacheKey(endpoint, r)) << content;
  }
}

TEST(RunnerTest, TheCacheAnswersARepeatedRequestWithoutAskingTheModel) {
  const std::vector<Sample> samples = SmallSuite();
  testing::TempDir dir;
  auto cache = ResponseCache::Open(dir.path() + "/cache.db");
  ASSERT_TRUE(cache.ok());
  CheckEnv env;
  RunnerOptions options;
  options.request.every.model = "m";
  options.request.endpoint = "openai http://127.0.0.1:1/v1";
  auto first_store = StoreWith(samples);
  FakeModelClient first(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  ASSERT_TRUE(Runner(first_store.get(), cache->get(), env, options).Run(&first, nullptr).ok());
  EXPECT_EQ(first.started().size(), samples.size());

  auto second_store = StoreWith(samples);
  FakeModelClient second(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  auto stats = Runner(second_store.get(), cache->get(), env, options).Run(&second, nullptr);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(second.started().size(), 0u);
  EXPECT_EQ(stats->cached, static_cast<int64_t>(samples.size()));
  EXPECT_EQ(Verdicts(*first_store), Verdicts(*second_store));

  // Another model (or endpoint, or setting) is another key.
  options.request.every.model = "other";
  auto third_store = StoreWith(samples);
  FakeModelClient third(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  ASSERT_TRUE(Runner(third_store.get(), cache->get(), env, options).Run(&third, nullptr).ok());
  EXPECT_EQ(third.started().size(), samples.size());
}

TEST(RunnerTest, VerdictsOfAnotherCheckerVersionAndErrorsAreScoredAgain) {
  const std::vector<Sample> samples = SmallSuite();
  auto store = StoreWith(samples);
  CheckEnv env;
  Runner runner(store.get(), nullptr, env, RunnerOptions());
  FakeModelClient client(4, [&](const ModelRequest& r, int) { return Model(samples, r); });
  ASSERT_TRUE(runner.Run(&client, nullptr).ok());
  const auto fresh = Verdicts(*store);
  // An older build's verdict (wrong on purpose) and a scoring error.
  ASSERT_TRUE(store->Begin().ok());
  StoredVerdict old;
  old.pass = !fresh.at(0).first;
  old.reason = "from an old checker";
  old.rules_version = "math-0";
  ASSERT_TRUE(store->PutVerdict(0, "paper", old).ok());
  StoredVerdict error;
  error.error = "python3 not found";
  ASSERT_TRUE(store->PutVerdict(1, "paper", error).ok());
  ASSERT_TRUE(store->Commit().ok());
  // The newer build is another process, with a runner of its own (a runner takes the
  // verdicts it writes itself to be of the current checkers).
  Runner resumed(store.get(), nullptr, env, RunnerOptions());
  auto tally = resumed.ScoreAndTally();
  ASSERT_TRUE(tally.ok());
  EXPECT_EQ(tally->errors(), 0);
  EXPECT_EQ(Verdicts(*store), fresh);

  // The same through Run(), which drops them before it asks what is left.
  ASSERT_TRUE(store->Begin().ok());
  ASSERT_TRUE(store->PutVerdict(0, "paper", old).ok());
  ASSERT_TRUE(store->PutVerdict(1, "paper", error).ok());
  ASSERT_TRUE(store->Commit().ok());
  Runner again(store.get(), nullptr, env, RunnerOptions());
  ASSERT_TRUE(again.Run(&client, nullptr).ok());
  const auto after_run = Verdicts(*store);
  EXPECT_EQ(after_run.count(0), 0u);  // dropped before the loop
  EXPECT_EQ(after_run.count(1), 0u);
  EXPECT_EQ(after_run.size(), fresh.size() - 2);
  auto tally_again = again.ScoreAndTally();
  ASSERT_TRUE(tally_again.ok());
  EXPECT_EQ(tally_again->errors(), 0);
  EXPECT_EQ(Verdicts(*store), fresh);
}

TEST(RunnerTest, GivesUpWhenTheFirstRequestsAllFail) {
  const std::vector<Sample> samples = SmallSuite();
  auto store = StoreWith(samples);
  CheckEnv env;
  Runner runner(store.get(), nullptr, env, RunnerOptions());
  FakeModelClient client(4, [&](const ModelRequest&, int) {
    FakeReply reply;
    reply.result.error = ErrorKind::kFatal;
    reply.result.http_status = 401;
    reply.result.error_message = "openai: HTTP 401: invalid key";
    return reply;
  });
  auto stats = runner.Run(&client, nullptr);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->gave_up, "openai: HTTP 401: invalid key");
  EXPECT_TRUE(stats->interrupted);
  EXPECT_LE(client.started().size(), static_cast<size_t>(kGiveUpAfter) + 4);
  auto counts = store->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_GE(counts->errored, kGiveUpAfter);  // stored, to be asked again next time
  EXPECT_EQ(counts->answered, 0);
}

// Every request reports 100 tokens in and 50 out: 150 a request.
FakeReply Priced(const std::vector<Sample>& samples, const ModelRequest& req) {
  FakeReply reply = Model(samples, req);
  reply.result.usage.input = 100;
  reply.result.usage.output = 50;
  reply.latency = milliseconds(2);
  return reply;
}

TEST(RunnerTest, ABudgetStopsStartingRequestsAndAResumedRunCountsWhatWasSpent) {
  const std::vector<Sample> samples = SmallSuite();
  ASSERT_GT(samples.size(), 31u);
  auto store = StoreWith(samples);
  CheckEnv env;
  RunnerOptions options;
  options.request.every.model = "m";
  options.budget.max_tokens_total = 1500;  // 10 requests
  {
    FakeModelClient client(1, [&](const ModelRequest& r, int) { return Priced(samples, r); });
    auto stats = Runner(store.get(), nullptr, env, options).Run(&client, nullptr);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_TRUE(stats->budget_reached);
    EXPECT_FALSE(stats->interrupted);
    EXPECT_EQ(client.started().size(), 10u);
    EXPECT_EQ(stats->answered, 10);
    EXPECT_EQ(stats->spent_input_tokens + stats->spent_output_tokens, 1500);
  }
  // The same budget again: spent already, nothing is sent.
  {
    FakeModelClient client(4, [&](const ModelRequest& r, int) { return Priced(samples, r); });
    auto stats = Runner(store.get(), nullptr, env, options).Run(&client, nullptr);
    ASSERT_TRUE(stats.ok());
    EXPECT_TRUE(stats->budget_reached);
    EXPECT_EQ(client.started().size(), 0u);
  }
  // Raised, with several in flight: every request started is stored, and the spend
  // stops at the budget again.
  std::set<uint64_t> asked;
  options.budget.max_tokens_total = 3000;
  {
    FakeModelClient client(4, [&](const ModelRequest& r, int) { return Priced(samples, r); });
    auto stats = Runner(store.get(), nullptr, env, options).Run(&client, nullptr);
    ASSERT_TRUE(stats.ok());
    EXPECT_TRUE(stats->budget_reached);
    EXPECT_EQ(client.started().size(), 10u);
    for (const ModelRequest& r : client.started()) EXPECT_TRUE(asked.insert(r.id).second);
    auto counts = store->Counts();
    ASSERT_TRUE(counts.ok());
    EXPECT_EQ(counts->answered, 20);
    EXPECT_EQ(counts->spent_input_tokens + counts->spent_output_tokens, 3000);
  }
  // A cost budget, at USD 1 in and 2 out per million tokens: 0.0002 a request.
  options.budget = Budget{};
  options.budget.max_cost = 30 * 0.0002 + 0.0001;  // 30 requests; 20 spent before
  options.price = Price{};
  options.price->input_per_mtok = 1;
  options.price->output_per_mtok = 2;
  {
    FakeModelClient client(2, [&](const ModelRequest& r, int) { return Priced(samples, r); });
    auto stats = Runner(store.get(), nullptr, env, options).Run(&client, nullptr);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(client.started().size(), 10u);
    EXPECT_TRUE(stats->budget_reached);
  }
  // No budget: the rest, each sample asked once in all.
  options.budget = Budget{};
  options.price.reset();
  FakeModelClient client(4, [&](const ModelRequest& r, int) { return Priced(samples, r); });
  auto stats = Runner(store.get(), nullptr, env, options).Run(&client, nullptr);
  ASSERT_TRUE(stats.ok());
  EXPECT_FALSE(stats->budget_reached);
  EXPECT_EQ(store->Counts()->answered, static_cast<int64_t>(samples.size()));
}

// The code subtasks are scored on the stage's threads while the store thread goes on
// storing: the stored verdicts are the same with 4 threads as with 1, through Run()
// (network thread and store thread) and through ScoreAndTally (another rule set).
TEST(RunnerTest, CodeVerdictsAreTheSameOnOneOrSeveralScoringThreads) {
  PythonOptions po;
  po.worker_script = STRUCTTEST_WORKER_SCRIPT;
  po.max_workers = 4;
  PythonPool pool(po);
  GenerateOptions so;
  so.suite = "default";
  so.seed = 5;
  so.size = 0.01;
  so.tasks = {"code", "html"};
  auto suite = Suite::Plan(so, nullptr, &pool);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  std::vector<Sample> samples;
  std::set<std::string> code_subtasks;
  for (const PlannedSubtask& p : (*suite)->subtasks()) {
    for (size_t i = 0; i < p.count; ++i) {
      samples.push_back(*(*suite)->Generate(p, i));
      if (samples.back().domain == "code") code_subtasks.insert(samples.back().subtask);
    }
  }
  EXPECT_EQ(code_subtasks.size(), 8u);
  CheckEnv env;
  env.python = &pool;
  std::map<int64_t, std::pair<bool, std::string>> first, first_strict;
  for (const int jobs : {1, 4}) {
    SCOPED_TRACE(jobs);
    auto store = StoreWith(samples);
    FakeModelClient client(8, [&](const ModelRequest& r, int) { return Model(samples, r); });
    RunnerOptions options;
    options.request.every.model = "m";
    options.scoring.score_jobs = jobs;
    options.batch_results = 5;  // verdicts land in later batches than their responses
    Runner runner(store.get(), nullptr, env, options);
    auto stats = runner.Run(&client, nullptr);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    const auto verdicts = Verdicts(*store);
    ASSERT_EQ(verdicts.size(), samples.size());
    options.scoring.rules = RuleSet::kStrict;
    Runner strict(store.get(), nullptr, env, options);
    auto tally = strict.ScoreAndTally();
    ASSERT_TRUE(tally.ok()) << tally.status().message();
    EXPECT_EQ(tally->scored(), static_cast<int64_t>(samples.size()));
    std::map<int64_t, std::pair<bool, std::string>> strict_verdicts;
    ASSERT_TRUE(store->ForEach("strict", [&](const RunRow& row) {
      if (row.verdict) strict_verdicts[row.index] = {row.verdict->pass, row.verdict->reason};
      return Status::Ok();
    }).ok());
    ASSERT_EQ(strict_verdicts.size(), samples.size());
    if (jobs == 1) {
      first = verdicts;
      first_strict = strict_verdicts;
      continue;
    }
    EXPECT_EQ(verdicts, first);
    EXPECT_EQ(strict_verdicts, first_strict);
  }
  int passed = 0;
  for (const auto& [index, v] : first) passed += v.first;
  EXPECT_GT(passed, 0);
  EXPECT_LT(passed, static_cast<int>(samples.size()));
}

TEST(RunnerTest, BuiltinResponders) {
  const std::vector<Sample> samples = SmallSuite();
  CheckEnv env;
  for (const char* name : {"oracle", "null"}) {
    auto store = StoreWith(samples);
    Runner runner(store.get(), nullptr, env, RunnerOptions());
    auto stats = runner.RunBuiltin(name, nullptr);
    ASSERT_TRUE(stats.ok());
    auto tally = runner.ScoreAndTally();
    ASSERT_TRUE(tally.ok());
    auto all = tally->Compute();
    EXPECT_EQ(tally->scored(), static_cast<int64_t>(samples.size()));
    for (const SubtaskTally* t : tally->Subtasks()) {
      EXPECT_EQ(t->Accuracy(), std::string(name) == "oracle" ? 100.0 : 0.0) << t->subtask;
    }
  }
}

}  // namespace
}  // namespace structtest
