// `structtest run --batch`, `run --offline` and `import`: the real binary against the
// fake batch server (testing/fake_batch_server.h), which speaks the three providers'
// batch APIs and their online endpoints with the same answers. Shows that every sample
// is answered exactly once through faults (slow batches, an expired batch, failed
// requests, results out of order, a create answered 500 after it was taken), that the
// verdicts equal an online run's, that a kill -9 between create and the first poll
// costs no second submission, that a batch collected after its samples were answered
// online keeps their answers and costs no second batch, and that an offline file
// imported back equals an online run, bad result lines refused.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite.h"
#include "testing/cli_runs.h"
#include "testing/fake_batch_server.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace batch_cli_test {
namespace {

using ::structtest::testing::Child;
using ::structtest::testing::Exec;
using ::structtest::testing::ExportedVerdicts;
using ::structtest::testing::FakeBatchFaults;
using ::structtest::testing::FakeBatchServer;
using ::structtest::testing::Finished;
using ::structtest::testing::GeneratedSuite;
using ::structtest::testing::MakeSuite;
using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::Spawn;
using ::structtest::testing::TempDir;
using ::structtest::testing::Wait;
using ::structtest::testing::WriteFileOrDie;

// The model: right on about half the prompts, wrong on the others, always the same way.
std::function<std::string(const std::string&)> Model(const GeneratedSuite& suite) {
  return [&suite](const std::string& prompt) -> std::string {
    const auto it = suite.by_prompt.find(prompt);
    if (it == suite.by_prompt.end()) return "unknown prompt";
    return std::hash<std::string>()(prompt) % 2 == 0 ? it->second.second : "I would rather not.";
  };
}

struct Api {
  std::string model;
  std::string suffix;  // of the base URL
};
const Api kApis[] = {{"openai/fake-model", "/v1"}, {"anthropic/claude-fake", ""},
                     {"gemini/gemini-fake", ""}};

std::vector<std::string> Args(const FakeBatchServer& server, const Api& api,
                              const GeneratedSuite& suite, const std::string& out,
                              std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run",      "--model", api.model, "--base-url",
                                   server.base_url() + api.suffix, "--samples", suite.path,
                                   "--out",    out,       "--no-cache", "--price-in", "1",
                                   "--price-out", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

double CostOf(const std::string& run) {
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrDie(run + "/report.json"));
  return report["usage"]["cost_usd"].get<double>();
}

class BatchCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("OPENAI_API_KEY", "sk-batch-test-0123456789", 1);
    setenv("ANTHROPIC_API_KEY", "anthropic-batch-test-0123456789", 1);
    setenv("GEMINI_API_KEY", "gemini-batch-test-0123456789", 1);
  }
  void TearDown() override {
    unsetenv("OPENAI_API_KEY");
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("GEMINI_API_KEY");
  }
};

TEST_F(BatchCliTest, EveryProviderAnswersEverySampleOnceThroughFaultsAsAnOnlineRunDoes) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  ASSERT_GT(suite.by_prompt.size(), 50u);
  for (const Api& api : kApis) {
    SCOPED_TRACE(api.model);
    FakeBatchFaults faults;
    faults.polls_until_done = 3;  // slow state changes
    faults.expire_first = true;   // the first batch expires half done
    faults.fail_every = 7;        // partial failures
    faults.reverse = true;        // results out of order
    FakeBatchServer server(Model(suite), faults);
    ASSERT_TRUE(server.Start().ok());
    const std::string run = dir.path() + "/batch-" + api.model.substr(0, api.model.find('/'));
    const Finished b = Exec(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "0.01",
                                                                 "--batch-size", "25"}),
                            "batch");
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_NE(b.out.find("100.00% coverage), 0 errored"), std::string::npos) << b.out;
    EXPECT_NE(b.err.find("submitted, 25 requests"), std::string::npos) << b.err;
    EXPECT_NE(b.err.find(" asked again"), std::string::npos) << b.err;
    EXPECT_EQ(b.err.find("refused"), std::string::npos) << b.err;
    EXPECT_EQ(server.online_requests(), 0);
    // Every sample answered exactly once; those that failed or expired asked again.
    const auto answers = server.answers_sent();
    EXPECT_EQ(answers.size(), suite.by_prompt.size());
    int again = 0;
    for (const auto& [prompt, n] : answers) EXPECT_EQ(n, 1) << prompt;
    for (const auto& [prompt, n] : server.prompts_submitted()) {
      EXPECT_LE(n, 2) << prompt;
      again += n - 1;
    }
    EXPECT_GT(again, 0);
    const double batch_cost = CostOf(run);
    // The same answers asked online: the same verdicts, at twice the cost.
    const std::string online = run + "-online";
    const Finished o = Exec(dir, Args(server, api, suite, online), "online");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(server.online_requests(), static_cast<int>(suite.by_prompt.size()));
    const auto verdicts = ExportedVerdicts(dir, run);
    EXPECT_EQ(verdicts.size(), suite.by_prompt.size());
    EXPECT_EQ(verdicts, ExportedVerdicts(dir, online));
    EXPECT_GT(batch_cost, 0);
    EXPECT_DOUBLE_EQ(2 * batch_cost, CostOf(online));
    EXPECT_NE(b.out.find("the answers of batches at 50% of it"), std::string::npos) << b.out;
    // Again: nothing left to ask, nothing submitted.
    const int created = server.batches_created();
    const Finished again_run = Exec(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "0.01"}),
                                    "again");
    EXPECT_EQ(again_run.exit_code, 0) << again_run.err;
    EXPECT_EQ(server.batches_created(), created);
  }
}

TEST_F(BatchCliTest, ACreateAnswered500AfterTheBatchWasTakenIsFoundNotSubmittedAgain) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  for (const Api& api : kApis) {
    SCOPED_TRACE(api.model);
    FakeBatchFaults faults;
    faults.create_500_after_accept = 1;
    FakeBatchServer server(Model(suite), faults);
    ASSERT_TRUE(server.Start().ok());
    const std::string run = dir.path() + "/c500-" + api.model.substr(0, api.model.find('/'));
    const Finished b = Exec(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "0.01"}),
                            "batch");
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_NE(b.err.find("the provider had taken it"), std::string::npos) << b.err;
    EXPECT_EQ(server.batches_created(), 1);
    for (const auto& [prompt, n] : server.prompts_submitted()) EXPECT_EQ(n, 1) << prompt;
    for (const auto& [prompt, n] : server.answers_sent()) EXPECT_EQ(n, 1) << prompt;
    EXPECT_NE(b.out.find("100.00% coverage), 0 errored"), std::string::npos) << b.out;
  }
}

// id -> the exported record of every asked sample of `run`.
std::map<std::string, nlohmann::json> Exported(const TempDir& dir, const std::string& run) {
  const std::string path = dir.path() + "/export-all.jsonl";
  const Finished e = Exec(dir, {"export", run, "--all", "--output", path}, "export");
  EXPECT_EQ(e.exit_code, 0) << e.err;
  std::map<std::string, nlohmann::json> out;
  std::istringstream lines(ReadFileOrDie(path));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("status", "") != "pending") out[j["id"]] = j;
  }
  return out;
}

// Every answer stored in `run` is the one the model gave to that sample's own prompt.
void ExpectEveryAnswerOnItsOwnSample(const TempDir& dir, const std::string& run,
                                     const GeneratedSuite& suite) {
  const auto model = Model(suite);
  int answers = 0;
  for (const auto& [id, record] : Exported(dir, run)) {
    if (record["status"] != "answered") continue;
    ++answers;
    const std::string prompt = record["messages"].back()["content"];
    EXPECT_EQ(record["response"], model(prompt)) << id;
    EXPECT_EQ(suite.by_prompt.at(prompt).first, id);
  }
  EXPECT_GT(answers, 0);
}

// googleapis/python-genai#1909 and #2008: Gemini's responses out of order and without
// their keys. Before, a response without a key went to the request at its position and
// every answer landed on another sample, the run green. Now none is stored without its
// key: those requests are asked again, and the note says why.
TEST_F(BatchCliTest, GeminiResponsesWithoutTheirKeysAreNeverStoredUnderAnotherSample) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  using Faults = FakeBatchFaults;
  for (const auto at : {Faults::GeminiOutputAt::kResponse, Faults::GeminiOutputAt::kMetadata}) {
    Faults faults;
    faults.reverse = true;
    faults.drop_key_every = 4;
    faults.gemini_output_at = at;
    FakeBatchServer server(Model(suite), faults);
    ASSERT_TRUE(server.Start().ok());
    const Api& api = kApis[2];
    const std::string run = dir.path() + fmt::format("/keys-{}", static_cast<int>(at));
    // Three submissions a sample: the keyless fourth of each batch is asked again
    // until it comes back with its key or runs out.
    const Finished b = Exec(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "0.01",
                                                                 "--batch-size", "25"}),
                            "batch");
    EXPECT_NE(b.err.find("named no request (no key): not stored"), std::string::npos) << b.err;
    EXPECT_NE(b.err.find(" asked again"), std::string::npos) << b.err;
    EXPECT_EQ(server.gemini_inline_batches(), 0);
    EXPECT_GT(server.gemini_file_batches(), 1);
    ExpectEveryAnswerOnItsOwnSample(dir, run, suite);
    // Whatever is left unanswered is an error that says so, never another's answer.
    for (const auto& [id, record] : Exported(dir, run)) {
      if (record["status"] == "error") {
        EXPECT_NE(record["error"].get<std::string>().find("no result that names this request"),
                  std::string::npos) << record["error"];
      }
    }
    const Finished rest = Exec(dir, Args(server, api, suite, run), "rest");
    ASSERT_EQ(rest.exit_code, 0) << rest.err;
    EXPECT_NE(rest.out.find("100.00% coverage), 0 errored"), std::string::npos) << rest.out;
    const std::string online = run + "-online";
    ASSERT_EQ(Exec(dir, Args(server, api, suite, online), "online").exit_code, 0);
    EXPECT_EQ(ExportedVerdicts(dir, run), ExportedVerdicts(dir, online));
  }
}

// A request the provider refuses is not asked again, and the note says so (not "asked
// again"); every failure keeps the provider's words in the store, export and the run's
// most frequent errors: OpenAI's 400 with its body, vLLM's string and ErrorResponse
// lines, Anthropic's invalid_request_error, Gemini's INVALID_ARGUMENT (3); a Gemini
// server error (UNAVAILABLE, 14) is asked again.
TEST_F(BatchCliTest, RefusedRequestsAreNotAskedAgainAndEveryErrorKeepsItsWords) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  using Line = FakeBatchFaults::OpenAiErrorLine;
  struct Case {
    const Api* api;
    Line line;
    std::string words;
  };
  const Case cases[] = {
      {&kApis[0], Line::kHttpBody,
       "openai batch: HTTP 400: Invalid 'max_tokens': integer below minimum value"},
      {&kApis[0], Line::kVllmString,
       "openai batch: HTTP 400: Invalid 'max_tokens': integer below minimum value"},
      {&kApis[0], Line::kVllmErrorResponse,
       "openai batch: HTTP 400: BadRequestError: Invalid 'max_tokens': integer below minimum value"},
      {&kApis[1], Line::kHttpBody, "anthropic batch: invalid_request_error: max_tokens: must be at least 1"},
      {&kApis[2], Line::kHttpBody, "gemini batch: INVALID_ARGUMENT (3): Request contains an invalid argument."},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.api->model + " " + c.words);
    FakeBatchFaults faults;
    faults.fail_every = 5;
    faults.fail_invalid = true;
    faults.openai_error_line = c.line;
    FakeBatchServer server(Model(suite), faults);
    ASSERT_TRUE(server.Start().ok());
    const std::string run = dir.path() + fmt::format("/refused-{}", n++);
    const Finished b = Exec(dir, Args(server, *c.api, suite, run, {"--batch", "--batch-poll", "0.01"}),
                            "batch");
    EXPECT_EQ(b.exit_code, 1) << b.err;  // finished, with errors
    EXPECT_NE(b.err.find("refused by the provider, not asked again (" + c.words + ")"),
              std::string::npos) << b.err;
    EXPECT_EQ(b.err.find("asked again;"), std::string::npos) << b.err;
    EXPECT_EQ(b.err.find("; 0 asked again"), std::string::npos) << b.err;
    EXPECT_EQ(server.batches_created(), 1);  // nothing submitted again
    // The run's most frequent errors, and export, have the words.
    EXPECT_NE(b.err.find(" x " + c.words), std::string::npos) << b.err;
    int errors = 0;
    for (const auto& [id, record] : Exported(dir, run)) {
      if (record["status"] != "error") continue;
      ++errors;
      EXPECT_EQ(record["error"], c.words);
    }
    EXPECT_GT(errors, 0);
    ExpectEveryAnswerOnItsOwnSample(dir, run, suite);
  }
  // A Gemini server-side failure is asked again, and answered.
  FakeBatchFaults faults;
  faults.fail_every = 5;
  faults.gemini_error_code = 14;
  FakeBatchServer server(Model(suite), faults);
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/unavailable";
  const Finished b = Exec(dir, Args(server, kApis[2], suite, run, {"--batch", "--batch-poll", "0.01"}),
                          "batch");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.err.find(" asked again"), std::string::npos) << b.err;
  EXPECT_EQ(server.batches_created(), 2);
  EXPECT_NE(b.out.find("100.00% coverage), 0 errored"), std::string::npos) << b.out;
}

// --batch-retry-online: what failed in the batch is not submitted again but asked
// online, and the note says so, not "asked again".
TEST_F(BatchCliTest, WithRetryOnlineTheNoteSaysFailuresAreLeftForTheOnlineClient) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeBatchFaults faults;
  faults.fail_every = 5;
  FakeBatchServer server(Model(suite), faults);
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/retry-online";
  const Finished b = Exec(dir, Args(server, kApis[0], suite, run,
                                    {"--batch", "--batch-poll", "0.01", "--batch-retry-online"}),
                          "batch");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.err.find("not asked again in a batch (left for the online client)"), std::string::npos)
      << b.err;
  EXPECT_EQ(b.err.find(" asked again;"), std::string::npos) << b.err;
  EXPECT_EQ(server.batches_created(), 1);
  EXPECT_EQ(server.online_requests(), static_cast<int>(suite.by_prompt.size() / 5));
  EXPECT_NE(b.out.find("100.00% coverage), 0 errored"), std::string::npos) << b.out;
  ExpectEveryAnswerOnItsOwnSample(dir, run, suite);
}

// The batch rows of a run, as state -> count.
std::map<std::string, int> BatchStates(const std::string& run) {
  std::map<std::string, int> out;
  auto db = sqlite::Db::Open(run + "/run.db", /*read_only=*/true);
  if (!db.ok()) return out;
  auto q = (*db)->Prepare("SELECT state, COUNT(*) FROM provider_batches GROUP BY state");
  if (!q.ok()) return out;
  for (;;) {
    auto row = q->Step();
    if (!row.ok() || !*row) break;
    out[std::string(q->Text(0))] = static_cast<int>(q->Int(1));
  }
  return out;
}

// A kill -9 once the provider has taken the batch, before the first poll: both before
// the client has its answer (the id is not stored: found by its name) and after (the id
// is stored: polled). Neither submits the batch again.
TEST_F(BatchCliTest, AKillBetweenCreateAndTheFirstPollCostsNoSecondSubmission) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  for (const Api& api : kApis) {
    for (const bool id_stored : {false, true}) {
      SCOPED_TRACE(api.model + (id_stored ? ", id stored" : ", id not stored"));
      std::mutex mu;
      std::condition_variable cv;
      bool created = false, killed = false;
      FakeBatchServer server(Model(suite));
      if (!id_stored) {
        // The create's answer is held until the client is dead.
        server.OnCreate([&] {
          std::unique_lock<std::mutex> lock(mu);
          created = true;
          cv.notify_all();
          cv.wait(lock, [&] { return killed; });
        });
      }
      ASSERT_TRUE(server.Start().ok());
      const std::string run = dir.path() + fmt::format("/kill-{}-{}", api.model.substr(0, api.model.find('/')),
                                                       id_stored);
      // A first poll an hour away: the kill always comes before it.
      const Child child = Spawn(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "3600"}),
                                "killed");
      if (id_stored) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        // run.db is only looked at once the provider has the batch: by then the run has
        // made and filled its store, so that a read here cannot meet the run's first
        // writes (which it once made fail with "database is locked", under load).
        while (server.batches_created() == 0 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        while (BatchStates(run)["submitted"] == 0 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (BatchStates(run)["submitted"] != 1) {
          kill(child.pid, SIGKILL);
          const Finished stuck = Wait(child);
          FAIL() << "the run never stored its batch: " << stuck.err;
        }
      } else {
        std::unique_lock<std::mutex> lock(mu);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return created; }))
            << "the run never created its batch";
      }
      ASSERT_EQ(kill(child.pid, SIGKILL), 0);
      const Finished dead = Wait(child);
      EXPECT_EQ(dead.exit_code, 128 + SIGKILL);
      {
        std::lock_guard<std::mutex> lock(mu);
        killed = true;
      }
      cv.notify_all();
      EXPECT_EQ(BatchStates(run), (std::map<std::string, int>{{id_stored ? "submitted" : "submitting", 1}}));
      EXPECT_EQ(server.batches_created(), 1);
      const Finished resumed = Exec(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "0.01"}),
                                    "resumed");
      ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
      EXPECT_EQ(server.batches_created(), 1) << resumed.err;
      if (!id_stored) {
        EXPECT_NE(resumed.err.find("found at the provider"), std::string::npos) << resumed.err;
      }
      for (const auto& [prompt, n] : server.prompts_submitted()) EXPECT_EQ(n, 1) << prompt;
      EXPECT_NE(resumed.out.find("100.00% coverage), 0 errored"), std::string::npos) << resumed.out;
      const std::string online = run + "-online";
      ASSERT_EQ(Exec(dir, Args(server, api, suite, online), "online").exit_code, 0);
      EXPECT_EQ(ExportedVerdicts(dir, run), ExportedVerdicts(dir, online));
    }
  }
}

// A batch collected after its samples were answered another way: the run submitted it
// and was killed; the same run, resumed without --batch, asked every sample online; a
// third resume with --batch collects the batch, some of whose requests failed (OpenAI:
// server errors) or came back naming no request (Gemini: responses without their key).
// Every answer stays: none of the batch's failures is stored over it, nothing is left
// to submit, and no second batch is paid for.
TEST_F(BatchCliTest, ABatchCollectedAfterItsSamplesWereAnsweredOnlineKeepsTheAnswers) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const size_t samples = suite.by_prompt.size();
  for (const Api& api : {kApis[0], kApis[2]}) {
    SCOPED_TRACE(api.model);
    FakeBatchFaults faults;
    if (api.model.starts_with("openai")) faults.fail_every = 3;
    if (api.model.starts_with("gemini")) faults.drop_key_every = 3;
    FakeBatchServer server(Model(suite), faults);
    ASSERT_TRUE(server.Start().ok());
    const std::string run = dir.path() + "/late-" + api.model.substr(0, api.model.find('/'));
    // A first poll an hour away: the kill comes once the batch is stored as submitted.
    const Child child =
        Spawn(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "3600"}), "submitted");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (server.batches_created() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    while (BatchStates(run)["submitted"] == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(kill(child.pid, SIGKILL), 0);
    Wait(child);
    ASSERT_EQ(BatchStates(run), (std::map<std::string, int>{{"submitted", 1}}));

    const Finished online = Exec(dir, Args(server, api, suite, run), "online");
    ASSERT_EQ(online.exit_code, 0) << online.err;
    EXPECT_EQ(server.online_requests(), static_cast<int>(samples));
    const std::map<std::string, bool> answered_online = ExportedVerdicts(dir, run);
    ASSERT_EQ(answered_online.size(), samples);

    const Finished late = Exec(dir, Args(server, api, suite, run, {"--batch", "--batch-poll", "0.01"}),
                               "late");
    ASSERT_EQ(late.exit_code, 0) << late.err;
    // The batch failed some requests (OpenAI) or answered some without naming them
    // (Gemini): the paths under test.
    if (api.model.starts_with("openai")) {
      EXPECT_EQ(late.err.find(", 0 failed or expired"), std::string::npos) << late.err;
    } else {
      EXPECT_NE(late.err.find("response(s) named no request"), std::string::npos) << late.err;
    }
    EXPECT_EQ(BatchStates(run), (std::map<std::string, int>{{"collected", 1}})) << late.err;
    EXPECT_EQ(server.batches_created(), 1) << late.err;
    EXPECT_EQ(server.online_requests(), static_cast<int>(samples));
    EXPECT_NE(late.out.find("100.00% coverage), 0 errored"), std::string::npos) << late.out;
    EXPECT_EQ(ExportedVerdicts(dir, run), answered_online);
    ExpectEveryAnswerOnItsOwnSample(dir, run, suite);
  }
}

// A request the provider fails every time is submitted three times in all (the first
// batch and two more), then left as an error: no batch is paid for it after that.
TEST_F(BatchCliTest, ARequestThatAlwaysFailsIsSubmittedThreeTimesAtMost) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeBatchFaults faults;
  faults.fail_prompt_every = 7;
  FakeBatchServer server(Model(suite), faults);
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/always-failing";
  const Finished b =
      Exec(dir, Args(server, kApis[0], suite, run, {"--batch", "--batch-poll", "0.01"}), "batch");
  EXPECT_NE(b.exit_code, 2) << b.err;
  int failing = 0;
  for (const auto& [prompt, n] : server.prompts_submitted()) {
    const bool fails = std::hash<std::string>()(prompt) % 7 == 0;
    failing += fails;
    EXPECT_EQ(n, fails ? 3 : 1) << prompt;
  }
  ASSERT_GT(failing, 0);
  EXPECT_EQ(server.batches_created(), 3);
  EXPECT_NE(b.err.find("not asked again in a batch (submitted 3 times)"), std::string::npos) << b.err;
  EXPECT_NE(b.out.find(fmt::format("{} errored", failing)), std::string::npos) << b.out;
}

// A provider that repeats a result, the second time as a failure: the repeat names a
// request already answered in this batch, and is ignored (the note says so); the answer
// stays and nothing is submitted again.
TEST_F(BatchCliTest, AResultRepeatedAsAFailureDoesNotReplaceTheAnswer) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeBatchFaults faults;
  faults.repeat_failed_every = 4;
  FakeBatchServer server(Model(suite), faults);
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/repeated";
  const Finished b =
      Exec(dir, Args(server, kApis[1], suite, run, {"--batch", "--batch-poll", "0.01"}), "batch");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const size_t repeated = suite.by_prompt.size() / 4;
  EXPECT_NE(b.err.find(fmt::format("{} result(s) for requests not in this batch, ignored", repeated)),
            std::string::npos)
      << b.err;
  EXPECT_EQ(server.batches_created(), 1);
  EXPECT_NE(b.out.find("100.00% coverage), 0 errored"), std::string::npos) << b.out;
  ExpectEveryAnswerOnItsOwnSample(dir, run, suite);
}

// What vLLM's run-batch writes for a line of the input file.
std::string ResultLine(const nlohmann::json& input, const std::string& answer) {
  const nlohmann::json body = nlohmann::json::parse(testing::OpenAiCompletionBody(answer));
  return nlohmann::json{{"id", "vllm-1"},
                        {"custom_id", input["custom_id"]},
                        {"response", {{"status_code", 200}, {"request_id", "r"}, {"body", body}}},
                        {"error", nullptr}}
      .dump();
}

TEST_F(BatchCliTest, AnOfflineFileImportedBackEqualsAnOnlineRunAndBadLinesAreRefused) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeBatchServer server(Model(suite));
  ASSERT_TRUE(server.Start().ok());
  const auto model = Model(suite);
  const Api& api = kApis[0];
  const std::string run = dir.path() + "/offline";
  const std::string input = dir.path() + "/input.jsonl";
  unsetenv("OPENAI_API_KEY");  // an offline run needs no key
  const Finished w = Exec(dir, Args(server, api, suite, run, {"--offline", input}), "offline");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  setenv("OPENAI_API_KEY", "sk-batch-test-0123456789", 1);
  EXPECT_EQ(server.online_requests(), 0);
  std::vector<nlohmann::json> lines;
  {
    std::istringstream in(ReadFileOrDie(input));
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(lines.size(), suite.by_prompt.size());
  for (const nlohmann::json& l : lines) {
    EXPECT_EQ(l["method"], "POST");
    EXPECT_EQ(l["url"], "/v1/chat/completions");
    EXPECT_EQ(l["body"]["model"], "fake-model");
  }
  // The engine answers all but the last three, in reverse order.
  std::string results;
  for (size_t i = lines.size() - 3; i-- > 0;) {
    const std::string prompt = lines[i]["body"]["messages"].back()["content"];
    results += ResultLine(lines[i], model(prompt)) + "\n";
  }
  const std::string good = dir.path() + "/results.jsonl";
  WriteFileOrDie(good, results);

  // Bad files are refused whole, naming the line and the problem; nothing is stored.
  nlohmann::json other = lines[0];
  other["custom_id"] = "s999999-0123456789abcdef";
  nlohmann::json changed = lines[0];
  std::string id = changed["custom_id"];
  id.back() = id.back() == '0' ? '1' : '0';
  changed["custom_id"] = id;
  const std::pair<std::string, std::string> bad[] = {
      {ResultLine(other, "x"), ":2: custom_id 's999999-0123456789abcdef' is not in the run"},
      {ResultLine(changed, "x"), ":2: custom_id '" + id + "': the request does not match"},
      {"not json", ":2: not a batch output line"},
      {ResultLine(lines[0], "again"), ":2: custom_id '" + lines[0]["custom_id"].get<std::string>() +
                                          "' was on line 1 already"}};
  for (const auto& [line, message] : bad) {
    const std::string path = dir.path() + "/bad.jsonl";
    WriteFileOrDie(path, ResultLine(lines[0], "first") + "\n" + line + "\n");
    const Finished r = Exec(dir, {"import", run, path}, "bad-import");
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find("structtest: error: import: " + path + message), std::string::npos)
        << r.err;
    EXPECT_TRUE(ExportedVerdicts(dir, run).empty());
  }
  const Finished imported = Exec(dir, {"import", run, good}, "import");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find(fmt::format("{} answer(s), 0 error(s)", lines.size() - 3)),
            std::string::npos) << imported.out;
  EXPECT_NE(imported.err.find("3 sample(s) still unanswered"), std::string::npos) << imported.err;
  // The imported answers are in the run's report.json and page, as after `run`.
  {
    const nlohmann::json report = nlohmann::json::parse(ReadFileOrDie(run + "/report.json"));
    EXPECT_EQ(report.at("answered").get<int64_t>(), static_cast<int64_t>(lines.size() - 3));
    EXPECT_NE(ReadFileOrDie(run + "/report.html").find("<title>structtest report</title>"),
              std::string::npos);
  }
  // Imported twice: the answers are kept, none replaced.
  const Finished twice = Exec(dir, {"import", run, good}, "import-again");
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_NE(twice.out.find(fmt::format("{} for samples answered already", lines.size() - 3)),
            std::string::npos) << twice.out;

  // The same run online asks only what the engine left.
  const Finished rest = Exec(dir, Args(server, api, suite, run), "rest");
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_EQ(server.online_requests(), 3);
  EXPECT_NE(rest.out.find("100.00% coverage), 0 errored"), std::string::npos) << rest.out;
  const std::string online = dir.path() + "/online";
  ASSERT_EQ(Exec(dir, Args(server, api, suite, online), "online").exit_code, 0);
  EXPECT_EQ(ExportedVerdicts(dir, run), ExportedVerdicts(dir, online));
}

// vLLM's run-batch output (testing::FakeRunBatch, after vllm/entrypoints/openai/
// run_batch.py): its error lines, an exception's string and ErrorResponses, keep their
// words in the store, export and import's summary, and are not called "openai".
TEST_F(BatchCliTest, AnOfflineEngineErrorsKeepTheirWordsThroughImport) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeBatchServer server(Model(suite));
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/vllm";
  const std::string input = dir.path() + "/vllm-input.jsonl";
  unsetenv("OPENAI_API_KEY");
  ASSERT_EQ(Exec(dir, Args(server, kApis[0], suite, run, {"--offline", input}), "offline").exit_code, 0);
  testing::FakeRunBatchOptions engine;
  engine.exception_every = 5;
  engine.too_long_every = 7;
  const std::string results = dir.path() + "/vllm-results.jsonl";
  WriteFileOrDie(results, testing::FakeRunBatch(ReadFileOrDie(input), Model(suite), engine));
  const Finished imported = Exec(dir, {"import", run, results}, "import");
  EXPECT_EQ(imported.exit_code, 1) << imported.err;  // finished, with errors
  const std::string oom = "offline batch: HTTP 400: CUDA out of memory. Tried to allocate 2.00 GiB";
  const std::string too_long =
      "offline batch: HTTP 400: BadRequestError: This model's maximum context length is 4096 tokens.";
  EXPECT_NE(imported.err.find(" x " + oom), std::string::npos) << imported.err;
  EXPECT_NE(imported.err.find(" x " + too_long), std::string::npos) << imported.err;
  EXPECT_EQ(imported.err.find("openai"), std::string::npos) << imported.err;
  int errors = 0;
  for (const auto& [id, record] : Exported(dir, run)) {
    if (record["status"] != "error") continue;
    ++errors;
    const std::string error = record["error"];
    EXPECT_TRUE(error == oom || error.starts_with(too_long)) << error;
  }
  EXPECT_GT(errors, 0);
  ExpectEveryAnswerOnItsOwnSample(dir, run, suite);
  // A model name the engine does not serve: every line a 404 in the engine's words.
  const std::string other = dir.path() + "/vllm-other";
  const std::string other_input = dir.path() + "/vllm-other.jsonl";
  ASSERT_EQ(Exec(dir, Args(server, kApis[0], suite, other, {"--offline", other_input}), "offline").exit_code, 0);
  engine = {};
  engine.served_model = "Qwen/Qwen3-8B";
  WriteFileOrDie(results, testing::FakeRunBatch(ReadFileOrDie(other_input), Model(suite), engine));
  const Finished refused = Exec(dir, {"import", other, results}, "import-other");
  EXPECT_NE(refused.err.find(fmt::format("{} x offline batch: HTTP 404: NotFoundError: The model "
                                         "`fake-model` does not exist.",
                                         suite.by_prompt.size())),
            std::string::npos) << refused.err;
  setenv("OPENAI_API_KEY", "sk-batch-test-0123456789", 1);
}

TEST_F(BatchCliTest, BadBatchFlagsAreRefusedAndADryRunCountsTheBatches) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeBatchServer server(Model(suite));
  ASSERT_TRUE(server.Start().ok());
  const std::string out = dir.path() + "/refused";
  const std::pair<std::vector<std::string>, std::string> refused[] = {
      {{"run", "--model", "builtin/oracle", "--samples", suite.path, "--batch"},
       "--batch: builtin/oracle has no batch API"},
      {Args(server, kApis[1], suite, out, {"--offline", dir.path() + "/x.jsonl"}),
       "--offline: it writes an OpenAI batch input file"},
      {Args(server, kApis[0], suite, out, {"--batch", "--offline", dir.path() + "/x.jsonl"}),
       "--batch --offline: pick one"},
      {Args(server, kApis[0], suite, out, {"--batch", "--batch-poll", "0"}), "--batch-poll 0"},
      {Args(server, kApis[0], suite, out, {"--batch-size", "10"}), "--batch-size: it goes with --batch"},
      // Issue 50: --batch-poll without --batch was silently ignored.
      {Args(server, kApis[0], suite, out, {"--batch-poll", "5"}), "--batch-poll: it goes with --batch"},
  };
  for (const auto& [args, message] : refused) {
    const Finished r = Exec(dir, args, "refused");
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_NE(r.err.find("structtest: error: " + message), std::string::npos) << r.err;
    EXPECT_FALSE(std::ifstream(out + "/run.db").good()) << message;
  }
  const Finished d = Exec(dir, Args(server, kApis[0], suite, out, {"--batch", "--batch-size", "20",
                                                                  "--dry-run", "--max-tokens", "100"}),
                          "dry");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const size_t n = suite.by_prompt.size();
  EXPECT_NE(d.out.find(fmt::format("batch: {} request(s) in {} openai batch(es)", n, (n + 19) / 20)),
            std::string::npos) << d.out;
  EXPECT_NE(d.out.find("cost at the batch price (50% of the online one): $"), std::string::npos) << d.out;
  EXPECT_EQ(server.batches_created(), 0);
}

}  // namespace
}  // namespace batch_cli_test
}  // namespace structtest
