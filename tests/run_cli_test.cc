// `structtest run` against a model behind HTTP: the real binary against a loopback
// server the test scripts (testing/fake_server.h). Shows that faults lose and
// duplicate nothing, that a run killed with SIGKILL resumes without asking a completed
// request again and ends as an uninterrupted run does, and that keys stay secret.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/shard.h"
#include "store/sqlite.h"
#include "testing/cli_runs.h"
#include "testing/fake_server.h"
#include "testing/test_support.h"
#include "testing/tls_server.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace run_cli_test {
namespace {

using ::structtest::testing::Child;
using ::structtest::testing::Exec;
using ::structtest::testing::ExportedVerdicts;
using ::structtest::testing::FakeFault;
using ::structtest::testing::FakeHttpReply;
using ::structtest::testing::FakeHttpRequest;
using ::structtest::testing::FakeHttpServer;
using ::structtest::testing::Finished;
using ::structtest::testing::GeneratedSuite;
using ::structtest::testing::MakeSuite;
using ::structtest::testing::OpenAiCompletionBody;
using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::Spawn;
using ::structtest::testing::TempDir;
using ::structtest::testing::Wait;
using ::structtest::testing::WriteFileOrDie;

// The model: answers even-looking prompts correctly, the others wrongly, always the
// same way for the same prompt. Returns the sample id through *id.
FakeHttpReply Answer(const GeneratedSuite& suite, const FakeHttpRequest& req, std::string* id) {
  const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  FakeHttpReply reply;
  if (body.is_discarded() || !body.contains("messages")) {
    reply.status = 400;
    reply.body = R"({"error":{"message":"bad request"}})";
    return reply;
  }
  const std::string prompt = body["messages"].back()["content"];
  const auto it = suite.by_prompt.find(prompt);
  if (it == suite.by_prompt.end()) {
    reply.status = 400;
    reply.body = R"({"error":{"message":"unknown prompt"}})";
    return reply;
  }
  *id = it->second.first;
  const bool right = std::hash<std::string>()(prompt) % 2 == 0;
  reply.body = OpenAiCompletionBody(right ? it->second.second : "I would rather not.");
  return reply;
}

std::vector<std::string> RunArgs(const std::string& url, const GeneratedSuite& suite,
                                 const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", "--model", "openai/fake-model", "--base-url", url,
                                   "--samples", suite.path, "--out", out, "--no-cache"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class RunCliTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("OPENAI_API_KEY", kKey, 1); }
  void TearDown() override { unsetenv("OPENAI_API_KEY"); }
  static constexpr const char* kKey = "sk-test-0123456789abcdef-SECRET";
};

// 30% of first attempts fail, across nine kinds of fault: 9 of every 30 sample ids.
TEST_F(RunCliTest, FaultsLoseAndDuplicateNothingAndARetriedRunEqualsACleanOne) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  ASSERT_GT(suite.by_prompt.size(), 50u);

  std::mutex mu;
  std::map<std::string, int> seen;       // sample id -> requests
  std::map<std::string, int> completed;  // sample id -> 200 replies with an answer
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    std::lock_guard<std::mutex> lock(mu);
    const int n = seen[id]++;
    const size_t h = std::hash<std::string>()(id) % 30;
    bool malformed = false;  // a 200 that is not a completion: retried
    if (n == 0) {
      switch (h) {
        case 0: reply.status = 429; reply.headers = {"Retry-After: 1"}; reply.body = "{}"; break;
        case 1: reply.status = 500; reply.body = "oops"; break;
        case 2: reply.fault = FakeFault::kReset; break;
        case 3: reply.fault = FakeFault::kTruncate; break;  // the connection closes early
        case 4: reply.body = "<html>502 Bad Gateway</html>"; malformed = true; break;
        case 5:  // a complete HTTP reply whose JSON is cut short
          reply.body.resize(reply.body.size() / 2);
          malformed = true;
          break;
        case 6: reply.fault = FakeFault::kNeverAnswer; break;  // ends by the --timeout
        case 7: reply.latency = std::chrono::milliseconds(300); break;  // slow, in time
        case 8:  // the same answer in a 10 MB body (JSON whitespace)
          reply.body.insert(reply.body.size() - 1, std::string(10 << 20, ' '));
          break;
        default: break;
      }
    }
    if (reply.status == 200 && reply.fault == FakeFault::kNone && !malformed) ++completed[id];
    // Echo the key in error bodies, to prove it never reaches the store or a report.
    if (reply.status != 200) {
      reply.body = std::string("{\"error\":{\"message\":\"bad key ") + kKey + "\"}}";
    }
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/faulty";
  // The never-answered requests end by the timeout; 5 s (not less) so that an ordinary
  // request on a loaded 2-core machine is not timed out and asked twice.
  const auto args = RunArgs(url, suite, run, {"--timeout", "5", "--concurrency", "16"});
  Finished first = Exec(dir, args, "first");
  // Every fault was retried within --retries: nothing is left errored.
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("100.00% coverage), 0 errored"), std::string::npos) << first.out;
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(seen.size(), suite.by_prompt.size());
    size_t faulted = 0;
    for (const auto& [id, n] : seen) {
      const size_t h = std::hash<std::string>()(id) % 30;
      EXPECT_EQ(n, h <= 6 ? 2 : 1) << id;  // a faulty first attempt, then one answer
      EXPECT_EQ(completed[id], 1) << id << " answered " << completed[id] << " times";
      if (h <= 6) ++faulted;
    }
    EXPECT_GT(faulted, 0u);
  }
  // Same command again: nothing left to ask.
  std::map<std::string, int> before;
  {
    std::lock_guard<std::mutex> lock(mu);
    before = seen;
  }
  Finished second = Exec(dir, args, "second");
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("100.00% coverage), 0 errored"), std::string::npos) << second.out;
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(seen, before);
  }
  server.Stop();

  // A fault-free server gives the same verdicts.
  FakeHttpServer clean([&](const FakeHttpRequest& req) {
    std::string id;
    return Answer(suite, req, &id);
  });
  ASSERT_TRUE(clean.Start().ok());
  const std::string clean_run = dir.path() + "/clean";
  Finished c = Exec(dir, RunArgs(clean.base_url() + "/v1", suite, clean_run), "clean");
  EXPECT_EQ(c.exit_code, 0) << c.err;
  const auto faulty_verdicts = ExportedVerdicts(dir, run);
  EXPECT_EQ(faulty_verdicts.size(), suite.by_prompt.size());
  EXPECT_EQ(faulty_verdicts, ExportedVerdicts(dir, clean_run));
  // Two runs of the same command give identical verdicts.
  const std::string again_run = dir.path() + "/again";
  EXPECT_EQ(Exec(dir, RunArgs(clean.base_url() + "/v1", suite, again_run), "again").exit_code, 0);
  EXPECT_EQ(ExportedVerdicts(dir, again_run), ExportedVerdicts(dir, clean_run));
  // The tables agree too.
  const auto table = [](const std::string& out) { return out.substr(out.find("rules:")); };
  EXPECT_EQ(table(second.out), table(c.out));

  // report.json has the table's figures and the run's counts.
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrDie(run + "/report.json"));
  EXPECT_EQ(report["rules"], "paper");
  EXPECT_EQ(report["samples"], suite.by_prompt.size());
  EXPECT_EQ(report["answered"], suite.by_prompt.size());
  EXPECT_EQ(report["errored"], 0);
  EXPECT_EQ(report["manifest"]["model"], "openai/fake-model");
  EXPECT_TRUE(report["overall_easy"].is_null());  // html and math only
  ASSERT_TRUE(report["domains"]["html"]["easy"].is_number());
  EXPECT_NE(second.out.find(fmt::format("html           {:6.2f}",
                                        report["domains"]["html"]["easy"].get<double>())),
            std::string::npos)
      << second.out;

  // `report` prints the same figures from the store, in three formats.
  const Finished json_report = Exec(dir, {"report", run, "--format", "json"}, "report-json");
  EXPECT_EQ(json_report.exit_code, 0) << json_report.err;
  const nlohmann::json again = nlohmann::json::parse(json_report.out);
  EXPECT_EQ(again["domains"], report["domains"]);
  EXPECT_EQ(again["subtasks"], report["subtasks"]);
  const Finished markdown = Exec(dir, {"report", run, "--format", "markdown"}, "report-md");
  EXPECT_NE(markdown.out.find(fmt::format("| html | {:.2f} |",
                                          report["domains"]["html"]["easy"].get<double>())),
            std::string::npos)
      << markdown.out;
  const Finished explained = Exec(dir, {"report", run, "--explain"}, "report-explain");
  EXPECT_NE(explained.out.find("FAIL "), std::string::npos);
  const auto up_to_all = [](const std::string& out) {
    const size_t begin = out.find("rules:");
    return out.substr(begin, out.find('\n', out.find("\nAll ", begin) + 1) - begin);
  };
  EXPECT_EQ(up_to_all(explained.out), up_to_all(second.out));

  // The key is in no file of the run and in no output.
  for (const std::string& text : {first.out, first.err, second.out, second.err,
                                  ReadFileOrDie(run + "/run.db"),
                                  ReadFileOrDie(run + "/report.json")}) {
    EXPECT_EQ(text.find("0123456789abcdef"), std::string::npos);
  }

  // The run wrote its HTML page; `report --format html` writes the same page of one or
  // more runs to --output (tests/browser/report_test.mjs opens it in Chromium). Neither
  // holds the key, in its markup or in its compressed data
  // (ErrorBodiesThatEchoTheKeyAreStoredWithoutIt has pages that show errors).
  const std::string page = dir.path() + "/page.html";
  const Finished html = Exec(dir, {"report", run, run, "--format", "html", "--output", page}, "html");
  EXPECT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(ReadFileOrDie(page).find("<title>structtest report</title>"), std::string::npos);
  for (const std::string& path : {page, run + "/report.html"}) {
    const std::string markup = ReadFileOrDie(path);
    const std::string data = ::structtest::testing::HtmlPageData(markup);
    EXPECT_EQ(markup.find(kKey), std::string::npos) << path;
    EXPECT_EQ(data.find("0123456789abcdef"), std::string::npos) << path;
    EXPECT_NE(data.find("openai/fake-model"), std::string::npos) << path;
  }
  // The run writes its page's samples half while it asks the model and the rows half
  // after: the page is the one `report` makes of the finished run, byte for byte.
  const std::string one_page = dir.path() + "/one.html";
  ASSERT_EQ(Exec(dir, {"report", run, "--format", "html", "--output", one_page}, "html-one")
                .exit_code,
            0);
  EXPECT_TRUE(ReadFileOrDie(one_page) == ReadFileOrDie(run + "/report.html"));
  const Finished no_output = Exec(dir, {"report", run, "--format", "html"}, "html-no-output");
  EXPECT_EQ(no_output.exit_code, 2);
  EXPECT_NE(no_output.err.find("structtest: error: --format html: needs --output FILE"),
            std::string::npos) << no_output.err;
  // `report --format json` prints the run's report.json: the same document, manifest,
  // usage and all.
  const Finished json = Exec(dir, {"report", run, "--format", "json"}, "json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json printed = nlohmann::json::parse(json.out);
  EXPECT_EQ(printed, nlohmann::json::parse(ReadFileOrDie(run + "/report.json")));
  EXPECT_TRUE(printed.contains("manifest") && printed.contains("usage")) << json.out;
  // A page under a rule set the run was never scored under would be all dashes: refused,
  // as the text report refuses it, and nothing is written.
  const std::string strict_page = dir.path() + "/strict.html";
  const Finished unscored =
      Exec(dir, {"report", run, "--format", "html", "--rules", "strict", "--output", strict_page},
           "html-unscored");
  EXPECT_EQ(unscored.exit_code, 2);
  EXPECT_NE(unscored.err.find("no verdicts under rules strict (it was scored under paper)"),
            std::string::npos) << unscored.err;
  EXPECT_FALSE(std::filesystem::exists(strict_page));
  const Finished two = Exec(dir, {"report", run, run, "--format", "json"}, "json-two");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("structtest: error: --format json: takes one run"), std::string::npos)
      << two.err;
}

// What a kill -9 costs is bounded: the resumed run asks again at most twice the
// concurrency of requests the server had already answered (in flight at the kill, or
// received and not yet committed).
TEST_F(RunCliTest, KilledWithSigkillResumesWithoutAskingACompletedRequestAgain) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  std::mutex mu;
  std::condition_variable changed;
  std::vector<std::string> asked;  // sample ids, in arrival order
  std::set<std::string> answered;  // ids the server has sent an answer for
  // Driven by events, not by time: the server answers the first 60% of the requests and
  // holds every later one until the run is killed, so the kill always finds the run
  // with work left, whatever the machine's speed. When the first held request arrives,
  // the run has committed all but at most 2 x -j of the answers (its bound on work
  // started and not committed), so the store holds some.
  const size_t answer_first = suite.by_prompt.size() * 6 / 10;
  bool killed = false;
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    std::unique_lock<std::mutex> lock(mu);
    asked.push_back(id);
    changed.notify_all();
    if (asked.size() > answer_first) changed.wait(lock, [&] { return killed; });
    answered.insert(id);
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/run";
  const auto args = RunArgs(url, suite, run, {"--concurrency", "8"});
  const Child child = Spawn(dir, args, "killed");
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(60),
                                 [&] { return asked.size() > answer_first; }))
        << "the run never got going";
  }
  ASSERT_EQ(kill(child.pid, SIGKILL), 0);
  const Finished dead = Wait(child);
  EXPECT_EQ(dead.exit_code, 128 + SIGKILL);
  // The page it was writing during its loop is left half-written, under its own name.
  const auto temporaries = [&] {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(run)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("report.html.", 0) == 0) found.push_back(name);
    }
    return found;
  };
  EXPECT_EQ(temporaries(),
            std::vector<std::string>{fmt::format("report.html.{}.tmp", child.pid)});

  // What the store holds now: answered samples are final.
  const Finished partial = Exec(dir, {"export", run, "--output", dir.path() + "/partial.jsonl"}, "partial");
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  std::set<std::string> stored;
  std::istringstream lines(ReadFileOrDie(dir.path() + "/partial.jsonl"));
  for (std::string line; std::getline(lines, line);) stored.insert(nlohmann::json::parse(line)["id"]);
  EXPECT_GT(stored.size(), 0u);
  EXPECT_LT(stored.size(), suite.by_prompt.size());

  size_t asked_before;
  std::set<std::string> answered_before;
  {
    std::lock_guard<std::mutex> lock(mu);
    asked_before = asked.size();
    answered_before = answered;
    killed = true;  // the held requests' connections are gone: let them go
  }
  changed.notify_all();
  const Finished resumed = Exec(dir, args, "resumed");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming"), std::string::npos) << resumed.err;
  EXPECT_TRUE(temporaries().empty());  // the resumed run's page removed it
  {
    std::lock_guard<std::mutex> lock(mu);
    std::set<std::string> second(asked.begin() + static_cast<ptrdiff_t>(asked_before), asked.end());
    for (const std::string& id : second) EXPECT_FALSE(stored.contains(id)) << "asked again: " << id;
    EXPECT_EQ(second.size(), suite.by_prompt.size() - stored.size());
    size_t lost = 0;  // answered by the server before the kill, asked again after it
    for (const std::string& id : second) lost += answered_before.contains(id);
    std::printf("kill -9 at -j 8: %zu of %zu answered requests asked again\n", lost,
                answered_before.size());
    EXPECT_LE(lost, 16u);
  }

  // Same results as an uninterrupted run.
  const std::string clean_run = dir.path() + "/clean";
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, clean_run, {"--concurrency", "4"}), "clean").exit_code, 0);
  EXPECT_EQ(ExportedVerdicts(dir, run), ExportedVerdicts(dir, clean_run));
}

// Ctrl-C: the run stops, exit 130, and report.html shows what is there so far.
TEST_F(RunCliTest, AnInterruptedRunWritesTheReportOfWhatItHas) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  std::atomic<int> asked{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    ++asked;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/run";
  const Child child = Spawn(dir, RunArgs(server.base_url() + "/v1", suite, run,
                                         {"--concurrency", "2"}),
                            "interrupted");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (asked < 10) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the run never got going";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(kill(child.pid, SIGINT), 0);
  const Finished stopped = Wait(child);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_NE(stopped.err.find("interrupted"), std::string::npos) << stopped.err;
  const std::string page = ReadFileOrDie(run + "/report.html");
  EXPECT_NE(page.find("<title>structtest report</title>"), std::string::npos);
}

TEST_F(RunCliTest, ReasoningIsStoredApartAndCutOffAnswersAreFlagged) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    const std::string answer = nlohmann::json::parse(reply.body)["choices"][0]["message"]["content"];
    reply.body = OpenAiCompletionBody("<think>let me count the tags</think>" + answer,
                                      id.find("html") != std::string::npos ? "length" : "stop");
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/run";
  const Finished r = Exec(dir, RunArgs(server.base_url() + "/v1", suite, run), "run");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("answer(s) cut off by the token limit"), std::string::npos) << r.out;
  const Finished e = Exec(dir, {"export", run}, "export");
  std::istringstream lines(e.out);
  int html = 0;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["reasoning"], "let me count the tags");
    EXPECT_EQ(std::string(j["response"]).find("<think>"), std::string::npos);
    const bool is_html = j["domain"] == "html";
    html += is_html;
    EXPECT_EQ(j["finish"], is_html ? "length" : "stop");
  }
  EXPECT_GT(html, 0);
  // Scored on the final answer alone: the same verdicts as without reasoning.
  FakeHttpServer plain([&](const FakeHttpRequest& req) {
    std::string id;
    return Answer(suite, req, &id);
  });
  ASSERT_TRUE(plain.Start().ok());
  const std::string plain_run = dir.path() + "/plain";
  ASSERT_EQ(Exec(dir, RunArgs(plain.base_url() + "/v1", suite, plain_run), "plain").exit_code, 0);
  EXPECT_EQ(ExportedVerdicts(dir, run), ExportedVerdicts(dir, plain_run));
}

TEST_F(RunCliTest, TheResponseCacheAnswersAnotherRunOfTheSameRequests) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  std::atomic<int> asked{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    ++asked;
    std::string id;
    return Answer(suite, req, &id);
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string cache = dir.path() + "/cache.db";
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"run", "--model", "openai/fake-model", "--base-url", url,
                                    "--samples", suite.path, "--out", out, "--cache", cache};
  };
  ASSERT_EQ(Exec(dir, args(dir.path() + "/first"), "first").exit_code, 0);
  EXPECT_EQ(static_cast<size_t>(asked.load()), suite.by_prompt.size());
  const Finished second = Exec(dir, args(dir.path() + "/second"), "second");
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(static_cast<size_t>(asked.load()), suite.by_prompt.size());  // nothing asked
  EXPECT_NE(second.err.find(fmt::format("{} answer(s) came from the response cache",
                                        suite.by_prompt.size())),
            std::string::npos)
      << second.err;
  EXPECT_EQ(ExportedVerdicts(dir, dir.path() + "/second"),
            ExportedVerdicts(dir, dir.path() + "/first"));
  // Another setting is another request.
  auto hot = args(dir.path() + "/hot");
  hot.insert(hot.end(), {"--temperature", "0.7"});
  ASSERT_EQ(Exec(dir, hot, "hot").exit_code, 0);
  EXPECT_EQ(static_cast<size_t>(asked.load()), 2 * suite.by_prompt.size());
}

TEST_F(RunCliTest, AnthropicAndGeminiRunsGoThroughTheSamePath) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  setenv("ANTHROPIC_API_KEY", "anthropic-key-123456789", 1);
  setenv("GEMINI_API_KEY", "gemini-key-123456789", 1);
  std::mutex mu;
  std::set<std::string> keys;
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    const nlohmann::json body = nlohmann::json::parse(req.body);
    std::string prompt, answer;
    FakeHttpReply reply;
    {
      std::lock_guard<std::mutex> lock(mu);
      keys.insert(req.Header("x-api-key") + req.Header("x-goog-api-key"));
    }
    if (req.path == "/v1/messages") {
      prompt = body["messages"].back()["content"];
      answer = suite.by_prompt.at(prompt).second;
      reply.body = ::structtest::testing::AnthropicMessageBody(answer);
    } else {
      prompt = body["contents"].back()["parts"][0]["text"];
      answer = suite.by_prompt.at(prompt).second;
      reply.body = ::structtest::testing::GeminiBody(answer);
    }
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  for (const char* model : {"anthropic/claude-test", "gemini/gemini-test"}) {
    const Finished r = Exec(dir, {"run", "--model", model, "--base-url", server.base_url(),
                                  "--samples", suite.path, "--out", dir.path() + "/" + model,
                                  "--no-cache", "--max-tokens", "256"},
                            "provider");
    EXPECT_EQ(r.exit_code, 0) << model << ": " << r.err;
    // The oracle's answers: everything passes.
    EXPECT_NE(r.out.find("html           100.00 100.00"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("math           100.00 100.00"), std::string::npos) << r.out;
  }
  EXPECT_EQ(keys, (std::set<std::string>{"anthropic-key-123456789", "gemini-key-123456789"}));
  unsetenv("ANTHROPIC_API_KEY");
  unsetenv("GEMINI_API_KEY");
}

TEST_F(RunCliTest, BadInputGetsAClearErrorAndStoredRunsAreKept) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    return Answer(suite, req, &id);
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/run";
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, run), "ok").exit_code, 0);
  const std::string db = ReadFileOrDie(run + "/run.db");

  // Another command into the same directory is refused, naming the difference.
  Finished other = Exec(dir, RunArgs(url, suite, run, {"--temperature", "0.5"}), "other");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("holds another run (temperature was 0.0, now 0.5)"), std::string::npos)
      << other.err;
  other = Exec(dir, RunArgs(url, suite, run, {"--max-tokens", "5"}), "other");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("holds another run (max_tokens was 0, now 5)"), std::string::npos)
      << other.err;

  // So is the same command after the samples file changed.
  const std::string moved = dir.path() + "/samples.orig";
  ASSERT_EQ(std::rename(suite.path.c_str(), moved.c_str()), 0);
  WriteFileOrDie(suite.path, ReadFileOrDie(moved).substr(0, ReadFileOrDie(moved).find('\n') + 1));
  Finished changed = Exec(dir, RunArgs(url, suite, run), "changed");
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("holds another run (samples was"), std::string::npos) << changed.err;
  ASSERT_EQ(std::rename(moved.c_str(), suite.path.c_str()), 0);

  // A repeated sample id is named with its line.
  const std::string twice = dir.path() + "/twice.jsonl";
  const std::string first_line = ReadFileOrDie(suite.path).substr(0, ReadFileOrDie(suite.path).find('\n') + 1);
  WriteFileOrDie(twice, first_line + first_line);
  Finished repeated = Exec(dir, {"run", "--model", "openai/x", "--base-url", url, "--samples", twice,
                                 "--out", dir.path() + "/twice-run"}, "twice");
  EXPECT_EQ(repeated.exit_code, 2);
  EXPECT_NE(repeated.err.find(twice + ":2: sample id '"), std::string::npos) << repeated.err;
  EXPECT_NE(repeated.err.find("' appears twice"), std::string::npos) << repeated.err;

  // Broken sample files name the line.
  const std::string bad = dir.path() + "/bad.jsonl";
  WriteFileOrDie(bad, ReadFileOrDie(suite.path).substr(0, 200) + "\n");
  Finished broken = Exec(dir, {"run", "--model", "openai/x", "--base-url", url, "--samples", bad,
                              "--out", dir.path() + "/bad-run"}, "broken");
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find(bad + ":1:"), std::string::npos) << broken.err;

  // A file broken after good lines stores nothing, the manifest included (both go in
  // one transaction): the same directory then takes the mended file.
  const std::string late = dir.path() + "/late.jsonl";
  WriteFileOrDie(late, first_line + "{\"id\": \n");
  const std::string late_run = dir.path() + "/late-run";
  Finished late_broken = Exec(dir, {"run", "--model", "openai/x", "--base-url", url, "--samples",
                                    late, "--out", late_run}, "late");
  EXPECT_EQ(late_broken.exit_code, 2);
  EXPECT_NE(late_broken.err.find(late + ":2:"), std::string::npos) << late_broken.err;
  WriteFileOrDie(late, first_line);
  Finished mended = Exec(dir, {"run", "--model", "openai/x", "--base-url", url, "--samples", late,
                               "--out", late_run}, "mended");
  EXPECT_EQ(mended.exit_code, 0) << mended.err;
  EXPECT_NE(mended.out.find("(1 samples)"), std::string::npos) << mended.out;

  // No key and the provider's own endpoint: said before anything is sent.
  unsetenv("OPENAI_API_KEY");
  Finished nokey = Exec(dir, {"run", "--model", "openai/gpt-4o", "--samples", suite.path, "--out",
                             dir.path() + "/nokey"}, "nokey");
  EXPECT_EQ(nokey.exit_code, 2);
  EXPECT_NE(nokey.err.find("OPENAI_API_KEY is not set"), std::string::npos) << nokey.err;

  // A model name the server does not know fails every request: the run gives up
  // early instead of sending them all.
  std::atomic<int> refused{0};
  FakeHttpServer unknown([&](const FakeHttpRequest&) {
    ++refused;
    FakeHttpReply reply;
    reply.status = 404;
    reply.body = R"({"error":{"message":"The model 'nope' does not exist"}})";
    return reply;
  });
  ASSERT_TRUE(unknown.Start().ok());
  Finished gave_up = Exec(dir, {"run", "--model", "openai/nope", "--base-url",
                                unknown.base_url() + "/v1", "--samples", suite.path, "--out",
                                dir.path() + "/nope", "--no-cache"}, "nope");
  EXPECT_EQ(gave_up.exit_code, 2);
  EXPECT_NE(gave_up.err.find("the first 16 requests all failed, the last with: openai: HTTP 404"),
            std::string::npos) << gave_up.err;
  EXPECT_NE(gave_up.err.find("does not exist"), std::string::npos) << gave_up.err;
  EXPECT_LE(refused.load(), 16 + 8);  // 16, plus at most those in flight
  EXPECT_LT(static_cast<size_t>(refused.load()), suite.by_prompt.size());

  // A server that is down: the run gives up too, and the errors are stored as errors,
  // never scored as wrong answers.
  Finished down = Exec(dir, {"run", "--model", "openai/x", "--base-url", "http://127.0.0.1:1/v1",
                             "--samples", suite.path, "--out", dir.path() + "/down", "--retries",
                             "0", "--no-cache"}, "down");
  EXPECT_EQ(down.exit_code, 2);
  EXPECT_NE(down.err.find("requests all failed"), std::string::npos) << down.err;
  const Finished errors = Exec(dir, {"export", dir.path() + "/down", "--all"}, "errors");
  EXPECT_NE(errors.out.find("\"status\":\"error\""), std::string::npos);
  EXPECT_NE(errors.out.find("connect"), std::string::npos) << errors.out.substr(0, 500);
  EXPECT_EQ(errors.out.find("\"verdict\""), std::string::npos);
  // A run that gives up leaves no page, and no half-written one.
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/down/report.html"));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/down")) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }

  // The first run is untouched by all of this.
  EXPECT_EQ(ReadFileOrDie(run + "/run.db"), db);
  EXPECT_EQ(Exec(dir, {"export", "/nonexistent/run"}, "missing").exit_code, 2);
}

// A server that refuses every other request with an error body echoing the key: the
// errors are stored and shown (export, report.json, the HTML page's data), the key in
// none of them.
TEST_F(RunCliTest, ErrorBodiesThatEchoTheKeyAreStoredWithoutIt) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  std::atomic<int> n{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    if (std::hash<std::string>()(id) % 2 == 0) {
      ++n;
      reply.status = 400;
      reply.body = std::string("{\"error\":{\"message\":\"bad key ") + kKey + "\"}}";
    }
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/run";
  const Finished r = Exec(dir, RunArgs(server.base_url() + "/v1", suite, run, {"--retries", "0"}),
                          "echo");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ASSERT_GT(n.load(), 0);
  const std::string page = ReadFileOrDie(run + "/report.html");
  const std::string data = ::structtest::testing::HtmlPageData(page);
  const Finished exported = Exec(dir, {"export", run, "--all"}, "export");
  EXPECT_NE(exported.out.find("\"status\":\"error\""), std::string::npos);
  EXPECT_NE(exported.out.find("HTTP 400"), std::string::npos) << exported.out.substr(0, 500);
  EXPECT_NE(data.find("HTTP 400"), std::string::npos);
  EXPECT_NE(data.find("bad key [redacted]"), std::string::npos);  // stored, without the key
  for (const std::string& text : {r.out, r.err, exported.out, data, page,
                                  ReadFileOrDie(run + "/run.db"),
                                  ReadFileOrDie(run + "/report.json")}) {
    EXPECT_EQ(text.find("SECRET"), std::string::npos) << text.substr(0, 300);
  }
}

// --ca-cert through the real binary: a server with a self-signed certificate is asked
// only when its certificate is named; without it every request errors (kept for the
// next run to retry), and the run says what to do.
TEST_F(RunCliTest, CaCertTrustsAServerWithAPrivateCertificate) {
  TempDir dir;
  ::structtest::testing::TlsServer server;
  std::string why;
  if (!server.Start(dir.path(), &why)) GTEST_SKIP() << "SKIPPED: " << why;
  ASSERT_FALSE(server.base_url().empty());
  const GeneratedSuite suite = MakeSuite(dir);
  const Finished untrusted =
      Exec(dir, RunArgs(server.base_url(), suite, dir.path() + "/untrusted", {"--limit", "3"}),
           "untrusted");
  EXPECT_EQ(untrusted.exit_code, 1) << untrusted.err;
  EXPECT_NE(untrusted.err.find("--ca-cert FILE"), std::string::npos) << untrusted.err;
  const Finished trusted = Exec(
      dir, RunArgs(server.base_url(), suite, dir.path() + "/trusted",
                   {"--limit", "3", "--ca-cert", server.cert()}),
      "trusted");
  EXPECT_EQ(trusted.exit_code, 0) << trusted.err;
  const Finished exported = Exec(dir, {"export", dir.path() + "/trusted", "--all"}, "export");
  size_t answered = 0, records = 0;
  for (size_t at = 0; (at = exported.out.find("\"over HTTP/1.1\"", at)) != std::string::npos; ++at) {
    ++answered;
  }
  for (char c : exported.out) records += c == '\n';
  EXPECT_GT(records, 0u);
  EXPECT_EQ(answered, records) << exported.out.substr(0, 300);
  const Finished missing = Exec(
      dir, RunArgs(server.base_url(), suite, dir.path() + "/missing",
                   {"--ca-cert", dir.path() + "/no-such.pem"}),
      "missing");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no-such.pem"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/missing"));
}

// Three shard processes against one server with faults, one of them killed with
// SIGKILL and resumed, merged as they finish: the merged run has the verdicts of one
// unsharded run, and report, export and compare read it as they read a single run.
TEST_F(RunCliTest, ShardsKilledResumedAndMergedEqualOneUnshardedRun) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  constexpr int kShards = 3;
  std::map<std::string, int> shard_of;  // sample id -> shard, as every machine computes it
  std::vector<size_t> shard_size(kShards + 1);
  for (const auto& [prompt, target] : suite.by_prompt) {
    for (int k = 1; k <= kShards; ++k) {
      if (Shard{k, kShards}.Contains(target.first)) {
        shard_of[target.first] = k;
        ++shard_size[k];
      }
    }
  }
  ASSERT_EQ(shard_of.size(), suite.by_prompt.size()) << "every sample in exactly one shard";
  for (int k = 1; k <= kShards; ++k) ASSERT_GT(shard_size[k], 5u) << k;

  std::mutex mu;
  std::map<std::string, int> seen;  // sample id -> requests
  std::vector<size_t> asked(kShards + 1);  // distinct ids asked, per shard
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    std::lock_guard<std::mutex> lock(mu);
    const int n = seen[id]++;
    if (n == 0) {
      ++asked[shard_of[id]];
      switch (std::hash<std::string>()(id) % 8) {
        case 0: reply.status = 500; reply.body = "oops"; break;
        case 1: reply.fault = FakeFault::kReset; break;
        case 2: reply.status = 429; reply.headers = {"Retry-After: 0"}; reply.body = "{}"; break;
        default: reply.latency = std::chrono::milliseconds(40); break;
      }
    }
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const auto shard_args = [&](int k) {
    return RunArgs(url, suite, fmt::format("{}/shard{}", dir.path(), k),
                   {"--shard", fmt::format("{}/{}", k, kShards), "--concurrency", "2"});
  };
  std::vector<Child> children;
  for (int k = 1; k <= kShards; ++k) children.push_back(Spawn(dir, shard_args(k), fmt::format("shard{}", k)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (asked[2] >= shard_size[2] * 4 / 10) break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "shard 2 never got going";
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(kill(children[1].pid, SIGKILL), 0);
  EXPECT_EQ(Wait(children[1]).exit_code, 128 + SIGKILL) << "shard 2 had finished before the kill";
  for (int k : {1, 3}) {
    const Finished f = Wait(children[k - 1]);
    EXPECT_EQ(f.exit_code, 0) << f.err;
    EXPECT_NE(f.out.find(fmt::format("shard {}/{} ({} samples)", k, kShards, shard_size[k])),
              std::string::npos) << f.out;
  }

  // Merged as the shards finish: shard 2 is missing, then half done, then done.
  const std::string merged = dir.path() + "/merged";
  const std::string s1 = dir.path() + "/shard1", s2 = dir.path() + "/shard2", s3 = dir.path() + "/shard3";
  Finished m = Exec(dir, {"merge", merged, s1, s3}, "merge1");
  EXPECT_EQ(m.exit_code, 1) << m.err;
  EXPECT_NE(m.err.find("still missing: shard(s) 2/3"), std::string::npos) << m.err;
  EXPECT_NE(m.out.find("shards 2 of 3 merged"), std::string::npos) << m.out;
  m = Exec(dir, {"merge", merged, s2}, "merge2");
  EXPECT_EQ(m.exit_code, 1) << m.err;
  EXPECT_NE(m.err.find("sample(s) not answered in the merged shards"), std::string::npos) << m.err;

  const Finished resumed = Exec(dir, shard_args(2), "shard2-resumed");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming"), std::string::npos) << resumed.err;
  m = Exec(dir, {"merge", merged, s1, s2, s3}, "merge3");
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find(fmt::format("{} samples, {} answered, 0 errored; shards 3 of 3 merged",
                                   suite.by_prompt.size(), suite.by_prompt.size())),
            std::string::npos) << m.out;
  EXPECT_NE(m.err.find("complete"), std::string::npos) << m.err;
  {
    std::lock_guard<std::mutex> lock(mu);
    size_t requests = 0;
    for (const auto& [id, n] : seen) requests += n;
    EXPECT_EQ(seen.size(), suite.by_prompt.size());
    EXPECT_GT(requests, seen.size() * 12 / 10) << "the faults were retried";
  }
  std::map<std::string, bool> merged_verdicts = ExportedVerdicts(dir, merged);
  const std::string merged_export = ReadFileOrDie(dir.path() + "/export.jsonl");
  // The merged run has its report.json (what `report --format json` prints) and page.
  {
    const Finished json = Exec(dir, {"report", merged, "--format", "json"}, "merged-json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(nlohmann::json::parse(json.out),
              nlohmann::json::parse(ReadFileOrDie(merged + "/report.json")));
    EXPECT_NE(ReadFileOrDie(merged + "/report.html").find("<title>structtest report</title>"),
              std::string::npos);
  }
  // Idempotent: merging again changes nothing.
  m = Exec(dir, {"merge", merged, s3, s2, s1}, "merge4");
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("0 new sample(s), 0 new answer(s), 0 new error(s)"), std::string::npos) << m.err;
  EXPECT_EQ(ExportedVerdicts(dir, merged), merged_verdicts);
  EXPECT_EQ(ReadFileOrDie(dir.path() + "/export.jsonl"), merged_export);

  // One unsharded run of the same suite: the same verdicts, the same export.
  const std::string whole = dir.path() + "/whole";
  const Finished w = Exec(dir, RunArgs(url, suite, whole, {"--concurrency", "4"}), "whole");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(merged_verdicts.size(), suite.by_prompt.size());
  EXPECT_EQ(merged_verdicts, ExportedVerdicts(dir, whole));
  size_t passed = 0;
  for (const auto& [id, pass] : merged_verdicts) passed += pass;
  EXPECT_GT(passed, 0u);
  EXPECT_LT(passed, merged_verdicts.size());
  std::printf("shards 1/3 2/3 3/3: %zu, %zu, %zu samples; merged %zu, %zu passed, as unsharded\n",
              shard_size[1], shard_size[2], shard_size[3], merged_verdicts.size(), passed);

  // report and compare read the merged run as a single one.
  const Finished rep_m = Exec(dir, {"report", merged, "--format", "markdown"}, "report-merged");
  const Finished rep_w = Exec(dir, {"report", whole, "--format", "markdown"}, "report-whole");
  EXPECT_EQ(rep_m.exit_code, 0) << rep_m.err;
  // The same report, but for the directory named on its last line.
  std::string rep_w_as_merged = rep_w.out;
  for (size_t at; (at = rep_w_as_merged.find(whole + ":")) != std::string::npos;) {
    rep_w_as_merged.replace(at, whole.size(), merged);
  }
  EXPECT_NE(rep_m.out.find("answered " + std::to_string(suite.by_prompt.size())), std::string::npos);
  EXPECT_EQ(rep_m.out, rep_w_as_merged);
  const Finished cmp = Exec(dir, {"compare", whole, merged}, "compare");
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;

  // `run` does not write into a merged run.
  const Finished into = Exec(dir, RunArgs(url, suite, merged), "into-merged");
  EXPECT_EQ(into.exit_code, 2);
  EXPECT_NE(into.err.find("structtest: error: " + merged + ": a merged run ('structtest merge')"),
            std::string::npos) << into.err;

  // Another setting is refused, naming it; so is a sample answered differently.
  const std::string hot = dir.path() + "/hot";
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, hot, {"--shard", "1/3", "--temperature", "0.5"}), "hot").exit_code, 0);
  const std::string db = ReadFileOrDie(merged + "/run.db");
  m = Exec(dir, {"merge", merged, hot}, "merge-hot");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("structtest: error: merge: " + hot + ": not a run of the same manifest as "),
            std::string::npos) << m.err;
  EXPECT_NE(m.err.find("(temperature: 0.5 in " + hot), std::string::npos) << m.err;
  EXPECT_EQ(ReadFileOrDie(merged + "/run.db"), db);
}

TEST_F(RunCliTest, BadShardValuesAreClearErrors) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  for (const auto& [value, why] : std::vector<std::pair<std::string, std::string>>{
           {"0/3", "I must be 1 to 3 (shards count from 1)"},
           {"4/3", "I must be 1 to 3 (shards count from 1)"},
           {"1/0", "N must be 1 to 100000"},
           {"x", "expected I/N, e.g. 1/4"},
           {"1/x", "expected I/N with whole numbers, e.g. 1/4"}}) {
    const Finished f = Exec(dir, RunArgs("http://127.0.0.1:1/v1", suite, dir.path() + "/bad",
                                         {"--shard", value}), "bad-shard");
    EXPECT_EQ(f.exit_code, 2) << value;
    EXPECT_NE(f.err.find("structtest: error: --shard " + value + ": " + why), std::string::npos)
        << f.err;
  }
  EXPECT_FALSE(std::ifstream(dir.path() + "/bad/run.db").good()) << "nothing stored";
  const Finished none = Exec(dir, {"merge", dir.path() + "/out", dir.path() + "/missing"}, "merge-missing");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("structtest: error: merge: " + dir.path() + "/missing: no run here"),
            std::string::npos) << none.err;
}

// The model of the spending tests: Answer(), with the usage `usage` gives for the
// prompt and the answer, the reported totals added to *totals.
struct Reported {
  std::mutex mu;
  int64_t input = 0, output = 0, reasoning = 0;
  std::map<std::string, int> asked;  // sample id -> requests
};

FakeHttpReply AnswerWithUsage(const GeneratedSuite& suite, const FakeHttpRequest& req,
                              Reported* totals, bool report_usage = true) {
  std::string id;
  FakeHttpReply reply = Answer(suite, req, &id);
  if (reply.status != 200) return reply;
  nlohmann::json body = nlohmann::json::parse(reply.body);
  const std::string prompt = nlohmann::json::parse(req.body)["messages"].back()["content"];
  const int64_t input = static_cast<int64_t>(prompt.size() / 4) + 7;
  const int64_t output = static_cast<int64_t>(std::hash<std::string>()(prompt) % 90) + 10;
  const int64_t reasoning = output / 3;
  if (report_usage) {
    body["usage"] = {{"prompt_tokens", input},
                     {"completion_tokens", output},
                     {"completion_tokens_details", {{"reasoning_tokens", reasoning}}}};
  } else {
    body.erase("usage");
  }
  reply.body = body.dump();
  std::lock_guard<std::mutex> lock(totals->mu);
  ++totals->asked[id];
  if (report_usage) {
    totals->input += input;
    totals->output += output;
    totals->reasoning += reasoning;
  }
  return reply;
}

nlohmann::json ReadReport(const std::string& run) {
  return nlohmann::json::parse(ReadFileOrDie(run + "/report.json"));
}

TEST_F(RunCliTest, TokenTotalsAndCostAreWhatTheServerReported) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  Reported reported;
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    return AnswerWithUsage(suite, req, &reported);
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/run";
  const Finished r = Exec(dir, RunArgs(server.base_url() + "/v1", suite, run,
                                       {"--price-in", "2", "--price-out", "8"}),
                          "run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_GT(reported.input, 0);
  const nlohmann::json report = ReadReport(run);
  const nlohmann::json& tokens = report["usage"]["tokens"];
  EXPECT_EQ(tokens["input"], reported.input);
  EXPECT_EQ(tokens["output"], reported.output);
  EXPECT_EQ(tokens["reasoning"], reported.reasoning);
  EXPECT_EQ(tokens["no_usage"], 0);
  EXPECT_EQ(tokens["responses"], static_cast<int64_t>(suite.by_prompt.size()));
  const double cost = (reported.input * 2.0 + reported.output * 8.0) / 1e6;
  EXPECT_NEAR(report["usage"]["cost_usd"].get<double>(), cost, 1e-12);
  EXPECT_EQ(report["usage"]["price"]["source"], "--price-in/--price-out");
  // Per subtask, adding up to the totals.
  int64_t input = 0, output = 0;
  double subtask_cost = 0;
  ASSERT_EQ(report["usage"]["subtasks"].size(), report["subtasks"].size());
  for (const nlohmann::json& t : report["usage"]["subtasks"]) {
    input += t["tokens"]["input"].get<int64_t>();
    output += t["tokens"]["output"].get<int64_t>();
    subtask_cost += t["cost_usd"].get<double>();
  }
  EXPECT_EQ(input, reported.input);
  EXPECT_EQ(output, reported.output);
  EXPECT_NEAR(subtask_cost, cost, 1e-9);
  // The table's total line.
  EXPECT_NE(r.out.find(fmt::format("{:<39} {:>10} {:>10} {:>10} {:>10}", "total", reported.input,
                                   reported.output, reported.reasoning,
                                   fmt::format("${:.4f}", cost))),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cost at USD 2 in / 8 out per million tokens"), std::string::npos) << r.out;

  // A known model is costed at its dated list price; --prices overrides the table.
  const std::string prices = dir.path() + "/prices.csv";
  WriteFileOrDie(prices, "model,input_usd_per_mtok,output_usd_per_mtok,date\n"
                         "openai/fake-model,1,3,2026-01-02\n");
  const std::string priced = dir.path() + "/priced";
  const Finished p = Exec(dir, RunArgs(server.base_url() + "/v1", suite, priced,
                                       {"--prices", prices}), "priced");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const nlohmann::json priced_report = ReadReport(priced);
  const nlohmann::json& price = priced_report["usage"]["price"];
  EXPECT_EQ(price["date"], "2026-01-02");
  EXPECT_EQ(price["source"], prices);
  EXPECT_NE(p.out.find("list price of 2026-01-02"), std::string::npos) << p.out;

  // A server that reports no usage is said to, not taken as a free run.
  Reported silent;
  FakeHttpServer quiet([&](const FakeHttpRequest& req) {
    return AnswerWithUsage(suite, req, &silent, /*report_usage=*/false);
  });
  ASSERT_TRUE(quiet.Start().ok());
  const std::string none = dir.path() + "/none";
  const Finished n = Exec(dir, RunArgs(quiet.base_url() + "/v1", suite, none), "none");
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_NE(n.out.find(fmt::format("{} answer(s) reported no usage", suite.by_prompt.size())),
            std::string::npos) << n.out;
  EXPECT_NE(n.out.find("the server reported no token usage"), std::string::npos) << n.out;
  EXPECT_NE(n.out.find("no price for this model"), std::string::npos) << n.out;
  EXPECT_EQ(ReadReport(none)["usage"]["tokens"]["no_usage"],
            static_cast<int64_t>(suite.by_prompt.size()));
  EXPECT_TRUE(ReadReport(none)["usage"]["cost_usd"].is_null());
}

TEST_F(RunCliTest, ABudgetStopsTheRunAndARaisedOneFinishesIt) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  Reported reported;
  std::atomic<int> requests{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    ++requests;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // several in flight
    return AnswerWithUsage(suite, req, &reported);
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/run";
  const int64_t total = static_cast<int64_t>(suite.by_prompt.size());
  ASSERT_GT(total, 30);
  const auto budget = [&](const std::string& tokens, const std::string& tag) {
    return Exec(dir, RunArgs(url, suite, run, {"--concurrency", "4", "--max-tokens-total", tokens}),
                tag);
  };
  const Finished stopped = budget("2000", "stopped");
  EXPECT_EQ(stopped.exit_code, 1) << stopped.err;
  // In flight, answers longer than the mean can take the spending past the budget:
  // then the message says so (issue 50).
  EXPECT_TRUE(stopped.err.find("budget reached: the next request would exceed "
                               "--max-tokens-total 2000") != std::string::npos ||
              stopped.err.find("is past --max-tokens-total 2000") != std::string::npos)
      << stopped.err;
  EXPECT_NE(stopped.err.find("raise the budget and run the same command to continue"),
            std::string::npos)
      << stopped.err;
  nlohmann::json report = ReadReport(run);
  const int64_t answered = report["answered"];
  // Every request sent was stored, in-flight ones included, and the run stopped early.
  EXPECT_EQ(answered, requests.load());
  EXPECT_GT(answered, 0);
  EXPECT_LT(answered, total);
  EXPECT_EQ(report["usage"]["tokens"]["input"], reported.input);
  EXPECT_NE(stopped.out.find(fmt::format("answered {} of {} samples", answered, total)),
            std::string::npos)
      << stopped.out;

  // The same budget again: what is stored counts. At most what the requests that were
  // in flight left unspent is sent (one at a time here), and the run stops again.
  const Finished again = Exec(dir, RunArgs(url, suite, run, {"--concurrency", "1",
                                                             "--max-tokens-total", "2000"}),
                              "again");
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_NE(again.err.find("budget "), std::string::npos) << again.err;
  EXPECT_LE(requests.load(), answered + 4);
  report = ReadReport(run);
  EXPECT_EQ(report["answered"], requests.load());
  const int64_t spent_tokens = report["usage"]["tokens"]["input"].get<int64_t>() +
                               report["usage"]["tokens"]["output"].get<int64_t>();
  EXPECT_LE(spent_tokens, 2000 + 2000 / report["answered"].get<int64_t>());
  const Finished third = Exec(dir, RunArgs(url, suite, run, {"--concurrency", "1",
                                                             "--max-tokens-total", "2000"}),
                              "third");
  EXPECT_EQ(third.exit_code, 1) << third.err;
  EXPECT_EQ(requests.load(), report["answered"].get<int64_t>());  // the same figures: none

  // A raised budget resumes (the budget is not part of the run) and finishes.
  const Finished finished = budget("100000000", "finished");
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_EQ(requests.load(), total);
  EXPECT_EQ(static_cast<int64_t>(reported.asked.size()), total);
  for (const auto& [id, n] : reported.asked) EXPECT_EQ(n, 1) << id;
  report = ReadReport(run);
  EXPECT_EQ(report["answered"], total);
  EXPECT_EQ(report["usage"]["tokens"]["input"], reported.input);
  EXPECT_EQ(report["usage"]["tokens"]["output"], reported.output);

  // A cost budget: at USD 100 and 200 per million tokens a request costs a few cents.
  // One at a time, the run stops within one request of the budget.
  const std::string costly = dir.path() + "/costly";
  const int before = requests.load();
  const Finished cost = Exec(dir, RunArgs(url, suite, costly, {"--max-cost", "0.2", "--price-in",
                                                               "100", "--price-out", "200",
                                                               "--concurrency", "1"}),
                             "cost");
  EXPECT_EQ(cost.exit_code, 1) << cost.err;
  const nlohmann::json costly_report = ReadReport(costly);
  const int64_t costly_answered = costly_report["answered"];
  EXPECT_GT(costly_answered, 1);
  EXPECT_LT(costly_answered, total);
  EXPECT_EQ(costly_answered, requests.load() - before);
  const double spent = costly_report["usage"]["cost_usd"];
  EXPECT_NE(cost.err.find(spent > 0.2 ? "budget exceeded: " : "budget reached: the next request "
                                                              "would exceed --max-cost 0.2"),
            std::string::npos)
      << spent << " " << cost.err;
  EXPECT_LE(spent, 0.2 + 0.2 / (costly_answered - 1)) << spent;
  EXPECT_GT(spent, 0.2 * (costly_answered - 1) / (costly_answered + 1)) << spent;

  // A cost budget needs a price; said before anything is sent.
  const Finished unpriced = Exec(dir, RunArgs(url, suite, dir.path() + "/unpriced",
                                              {"--max-cost", "1"}),
                                 "unpriced");
  EXPECT_EQ(unpriced.exit_code, 2);
  EXPECT_NE(unpriced.err.find("structtest: error: --max-cost 1: no price for openai/fake-model"),
            std::string::npos)
      << unpriced.err;
  const Finished half = Exec(dir, RunArgs(url, suite, dir.path() + "/half", {"--price-in", "1"}),
                             "half");
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_NE(half.err.find("--price-in: give both --price-in and --price-out"), std::string::npos)
      << half.err;
  EXPECT_EQ(requests.load(), before + costly_answered);
}

TEST_F(RunCliTest, ADryRunSendsNothingAndCountsTheRequestsPerSubtask) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  std::atomic<int> requests{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    ++requests;
    std::string id;
    return Answer(suite, req, &id);
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/run";
  std::map<std::string, int> per_subtask;
  {
    std::istringstream lines(ReadFileOrDie(suite.path));
    for (std::string line; std::getline(lines, line);) {
      const nlohmann::json j = nlohmann::json::parse(line);
      ++per_subtask[j["domain"].get<std::string>() + "/" + j["subtask"].get<std::string>()];
    }
  }
  ASSERT_GT(per_subtask.size(), 3u);
  const Finished dry = Exec(dir, RunArgs(url, suite, run, {"--dry-run", "--max-tokens", "100",
                                                           "--price-in", "1", "--price-out", "2"}),
                            "dry");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(requests.load(), 0);
  EXPECT_FALSE(std::filesystem::exists(run));
  for (const auto& [name, n] : per_subtask) {
    EXPECT_NE(dry.out.find(fmt::format("{:<39} {:>9} ", name, n)), std::string::npos)
        << name << "\n" << dry.out;
  }
  EXPECT_NE(dry.out.find(fmt::format("{:<39} {:>9} ", "total", suite.by_prompt.size())),
            std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("an estimate, 4 characters a token"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find(" to $"), std::string::npos) << dry.out;  // the cost range
  EXPECT_NE(dry.out.find("nothing was sent"), std::string::npos) << dry.out;

  // On a run under way, what is still to ask: nothing once it is done.
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, run, {"--max-tokens", "100"}), "real").exit_code, 0);
  const int sent = requests.load();
  const Finished done = Exec(dir, RunArgs(url, suite, run, {"--dry-run", "--max-tokens", "100"}),
                             "done");
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_EQ(requests.load(), sent);
  EXPECT_NE(done.out.find(fmt::format("{:<39} {:>9} ", "total", 0)), std::string::npos) << done.out;
  EXPECT_NE(done.out.find("no price for this model"), std::string::npos) << done.out;
}

}  // namespace
}  // namespace run_cli_test
}  // namespace structtest

namespace structtest {
namespace run_cli_test {
namespace {

// The number after `prefix` in `text`, or -1.
double NumberAfter(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  return std::atof(text.c_str() + at + prefix.size());
}

// A healthy server answering like the model of Answer(), counting its requests.
struct Replica {
  explicit Replica(const GeneratedSuite& suite)
      : server([this, &suite](const FakeHttpRequest& req) {
          ++requests;
          if (broken) {
            FakeHttpReply reply;
            reply.status = 503;
            reply.body = R"({"error":{"message":"replica down"}})";
            return reply;
          }
          std::string id;
          return Answer(suite, req, &id);
        }) {}
  std::atomic<int> requests{0};
  std::atomic<bool> broken{false};
  FakeHttpServer server;
};

// Two replicas, one failing every request: the run completes with every answer, the
// failing one is set aside after a few requests, each endpoint gets its closing line,
// and the verdicts are those of a run against the healthy one alone. Then the run
// directory resumes on another set of replicas.
TEST_F(RunCliTest, SeveralEndpointsSurviveAFailingReplicaAndAResumeMayUseOtherReplicas) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const int n = static_cast<int>(suite.by_prompt.size());
  Replica good(suite), bad(suite), third(suite);
  bad.broken = true;
  ASSERT_TRUE(good.server.Start().ok());
  ASSERT_TRUE(bad.server.Start().ok());
  ASSERT_TRUE(third.server.Start().ok());

  const std::string alone = dir.path() + "/alone";
  const Finished a = Exec(dir, RunArgs(good.server.base_url(), suite, alone, {"-j", "2"}), "alone");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.err.find("structtest: endpoint"), std::string::npos)
      << "one endpoint: no per-endpoint lines, the output is what it always was";
  good.requests = 0;

  const std::string two = dir.path() + "/two";
  const Finished t = Exec(dir, RunArgs(good.server.base_url(), suite, two,
                                       {"--base-url", bad.server.base_url(), "-j", "2",
                                        "--retries", "8"}),
                          "two");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find(fmt::format("answered {} of {} samples", n, n)), std::string::npos) << t.out;
  EXPECT_EQ(ExportedVerdicts(dir, two), ExportedVerdicts(dir, alone));
  // Three failures set it aside; then one probe per (growing) cool-down.
  EXPECT_GE(bad.requests.load(), 3);
  EXPECT_LE(bad.requests.load(), 8) << t.err;
  EXPECT_EQ(good.requests.load(), n);
  const std::string good_line = "structtest: endpoint " + good.server.base_url() + ": ";
  const std::string bad_line = "structtest: endpoint " + bad.server.base_url() + ": ";
  EXPECT_EQ(NumberAfter(t.err, good_line), n) << t.err;
  EXPECT_EQ(NumberAfter(t.err, bad_line), bad.requests.load()) << t.err;
  EXPECT_NE(t.err.find(fmt::format("{} requests, {} errors", bad.requests.load(),
                                   bad.requests.load())),
            std::string::npos)
      << t.err;
  EXPECT_NE(t.err.find("latency p50 "), std::string::npos);
  const nlohmann::json manifest =
      nlohmann::json::parse(ReadFileOrDie(two + "/report.json"))["manifest"];
  EXPECT_EQ(manifest["endpoint"], "openai " + good.server.base_url());
  EXPECT_EQ(manifest["endpoints"],
            nlohmann::json::array({good.server.base_url(), bad.server.base_url()}));

  // A run begun on one replica, where half the samples failed for good (HTTP 400)...
  const std::string moved = dir.path() + "/moved";
  std::atomic<bool> refuse{true};
  FakeHttpServer flaky([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    if (refuse && std::hash<std::string>()(id) % 2 == 0) {
      reply.status = 400;
      reply.body = R"({"error":{"message":"not today"}})";
    }
    return reply;
  });
  ASSERT_TRUE(flaky.Start().ok());
  const Finished first = Exec(dir, RunArgs(flaky.base_url(), suite, moved), "moved1");
  EXPECT_EQ(first.exit_code, 1) << first.err;
  // ... resumes on two others, named in a file.
  const std::string file = dir.path() + "/endpoints.txt";
  WriteFileOrDie(file, fmt::format("# the replicas\n\n{}\n  {}  # second\n",
                                   third.server.base_url(), good.server.base_url()));
  std::vector<std::string> args = RunArgs(third.server.base_url(), suite, moved);
  // RunArgs names one --base-url; the file names both replicas instead.
  args.erase(args.begin() + 3, args.begin() + 5);
  args.insert(args.end(), {"--endpoints", file});
  third.requests = good.requests = 0;
  const Finished resumed = Exec(dir, args, "moved2");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming"), std::string::npos) << resumed.err;
  EXPECT_GT(third.requests.load() + good.requests.load(), 0);
  EXPECT_EQ(ExportedVerdicts(dir, moved), ExportedVerdicts(dir, alone));

  // A bad line of the file is named.
  WriteFileOrDie(file, fmt::format("{}\nlocalhost:8000/v1\n", good.server.base_url()));
  const Finished badfile = Exec(dir, args, "badfile");
  EXPECT_EQ(badfile.exit_code, 2) << badfile.err;
  EXPECT_NE(badfile.err.find(file + ":2: 'localhost:8000/v1': expected an http:// or https:// URL"),
            std::string::npos)
      << badfile.err;
}

// -j auto against a server that answers 429 whenever more than K requests are in
// flight: the limit settles near K and nothing is lost. -j auto grows while a window's
// median latency stays within 1.5 times the best: the server takes 100 ms, so that only
// a delay of 50 ms in the median of a window (not the scheduling noise of a loaded
// 2-core machine, which stalled the growth at 20 ms) stops the growth short of K (the
// run at -j 4 that gives the verdicts to compare with is answered at once). The
// bounds below hold whatever the noise: the limit only halves on a 429, which comes
// only above K.
TEST_F(RunCliTest, AutoConcurrencySettlesNearTheServersLimitAndLosesNothing) {
  constexpr int kK = 6;
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir, "0.1");
  const int n = static_cast<int>(suite.by_prompt.size());
  ASSERT_GT(n, 150);
  std::atomic<int> in_flight{0}, most{0}, too_many{0}, delay_ms{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    const int now = ++in_flight;
    if (now > kK) {
      --in_flight;
      ++too_many;
      FakeHttpReply reply;
      reply.status = 429;
      reply.body = R"({"error":{"message":"too many requests in flight"}})";
      return reply;
    }
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {}
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    --in_flight;
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string fixed = dir.path() + "/fixed";
  const Finished f = Exec(dir, RunArgs(server.base_url(), suite, fixed, {"-j", "4"}), "fixed");
  ASSERT_EQ(f.exit_code, 0) << f.err;
  ASSERT_EQ(too_many.load(), 0);

  delay_ms = 100;
  const std::string adaptive = dir.path() + "/auto";
  const Finished a = Exec(dir, RunArgs(server.base_url(), suite, adaptive,
                                       {"-j", "auto", "--retries", "20"}),
                          "auto");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find(fmt::format("answered {} of {} samples", n, n)), std::string::npos) << a.out;
  EXPECT_EQ(ExportedVerdicts(dir, adaptive), ExportedVerdicts(dir, fixed));
  EXPECT_GT(too_many.load(), 0) << "it went past K and heard the 429s";
  const double last = NumberAfter(a.err, "structtest: -j auto: limit ");
  const size_t avg_at = a.err.find(" on average over time");
  ASSERT_NE(avg_at, std::string::npos) << a.err;
  const size_t avg_from = a.err.rfind(", ", avg_at);
  const double average = std::atof(a.err.c_str() + avg_from + 2);
  EXPECT_GE(last, kK / 2.0) << a.err;
  EXPECT_LE(last, 2.0 * kK) << a.err;
  EXPECT_GE(average, kK / 2.0) << a.err;
  EXPECT_LE(average, 2.0 * kK) << a.err;
  // (The progress line's "-j N" is ProgressTest.ShowsTheAdaptiveLimitUnderJAuto: a
  // run this short ends before the first plain progress line is due.)
}

// A larger --limit grows a run: only the new samples are asked, the stored answers stay,
// and the run ends as one made with that limit from the start. A smaller limit is
// refused.
TEST_F(RunCliTest, ALargerLimitGrowsTheRunAndAsksOnlyTheNewSamples) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  std::mutex mu;
  std::map<std::string, int> asked;  // sample id -> requests
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    std::lock_guard<std::mutex> lock(mu);
    ++asked[id];
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/run";
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, run, {"--limit", "2"}), "two").exit_code, 0);
  std::map<std::string, int> after_two;
  {
    std::lock_guard<std::mutex> lock(mu);
    after_two = asked;
  }
  // A dry run of the grown run counts what it would ask: the new samples (the stored
  // ones are answered), and sends nothing.
  size_t sent_before;
  {
    std::lock_guard<std::mutex> lock(mu);
    sent_before = server.requests().size();
  }
  const Finished dry = Exec(dir, RunArgs(url, suite, run, {"--limit", "3", "--dry-run"}), "dry");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("dry run: the samples of " + run +
                         " not answered yet, and those a limit of 3 adds (it was 2) would be "
                         "sent"),
            std::string::npos)
      << dry.out;
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(server.requests().size(), sent_before);
  }
  const Finished three = Exec(dir, RunArgs(url, suite, run, {"--limit", "3"}), "three");
  ASSERT_EQ(three.exit_code, 0) << three.err;
  {
    // the dry run's count is what the real run asked
    std::lock_guard<std::mutex> lock(mu);
    const size_t asked_now = server.requests().size() - sent_before;
    const size_t total = dry.out.find("\ntotal ");
    ASSERT_NE(total, std::string::npos) << dry.out;
    std::istringstream line(dry.out.substr(total + 1));
    std::string word;
    size_t requests = 0;
    line >> word >> requests;
    EXPECT_EQ(requests, asked_now) << dry.out;
    EXPECT_GT(requests, 0u);
  }
  EXPECT_NE(three.err.find("--limit 3 grows the run (limit was 2): "), std::string::npos)
      << three.err;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, n] : asked) EXPECT_EQ(n, 1) << id << " asked " << n << " times";
    EXPECT_GT(asked.size(), after_two.size());
  }
  // The same verdicts, in the same order, as a run made with --limit 3 at once.
  const std::string fresh = dir.path() + "/fresh";
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, fresh, {"--limit", "3"}), "fresh").exit_code, 0);
  const auto ids = [&](const std::string& r) {
    const Finished e = Exec(dir, {"export", r, "--all"}, "ids");
    std::vector<std::string> out;
    std::istringstream lines(e.out);
    for (std::string line; std::getline(lines, line);) {
      out.push_back(nlohmann::json::parse(line)["id"]);
    }
    return out;
  };
  EXPECT_EQ(ids(run), ids(fresh));
  EXPECT_EQ(ExportedVerdicts(dir, run), ExportedVerdicts(dir, fresh));
  // Without --limit: the whole file.
  const Finished all = Exec(dir, RunArgs(url, suite, run), "all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.err.find("--limit none grows the run (limit was 3)"), std::string::npos)
      << all.err;
  EXPECT_EQ(ExportedVerdicts(dir, run).size(), suite.by_prompt.size());
  // A smaller limit is another run.
  const Finished smaller = Exec(dir, RunArgs(url, suite, fresh, {"--limit", "1"}), "smaller");
  EXPECT_EQ(smaller.exit_code, 2);
  EXPECT_NE(smaller.err.find("limit was 3, now 1"), std::string::npos) << smaller.err;
}

// ---- Request controls (issue 29)

// The prompt of a request of any provider: its last message's text.
std::string PromptOf(const nlohmann::json& body) {
  if (body.contains("contents")) return body["contents"].back()["parts"][0]["text"];
  return body["messages"].back()["content"];
}

// A server of all three APIs answering the suite's samples correctly, its reply naming
// `served` as the model that answered.
class AnyProvider {
 public:
  AnyProvider(const GeneratedSuite& suite, std::string served)
      : server_([&suite, served](const FakeHttpRequest& req) {
          const nlohmann::json body = nlohmann::json::parse(req.body);
          const std::string answer = suite.by_prompt.at(PromptOf(body)).second;
          FakeHttpReply reply;
          nlohmann::json reply_body;
          if (req.path == "/v1/chat/completions") {
            reply_body = nlohmann::json::parse(OpenAiCompletionBody(answer));
            reply_body["model"] = served;
          } else if (req.path == "/v1/messages") {
            reply_body = nlohmann::json::parse(::structtest::testing::AnthropicMessageBody(answer));
            reply_body["model"] = served;
          } else {
            reply_body = nlohmann::json::parse(::structtest::testing::GeminiBody(answer));
            reply_body["modelVersion"] = served;
          }
          reply.body = reply_body.dump();
          return reply;
        }) {
    EXPECT_TRUE(server_.Start().ok());
  }
  // The --base-url of `provider`.
  std::string Url(std::string_view provider) const {
    return provider == "openai" ? server_.base_url() + "/v1" : server_.base_url();
  }
  size_t Asked() const { return server_.requests().size(); }
  // The bodies of the requests after the first `from`, by prompt.
  std::map<std::string, nlohmann::json> Bodies(size_t from) const {
    std::map<std::string, nlohmann::json> out;
    const std::vector<FakeHttpRequest> all = server_.requests();
    for (size_t i = from; i < all.size(); ++i) {
      const nlohmann::json body = nlohmann::json::parse(all[i].body);
      out[PromptOf(body)] = body;
    }
    return out;
  }
  std::vector<FakeHttpRequest> Requests() const { return server_.requests(); }

 private:
  FakeHttpServer server_;
};

class RunControlsTest : public RunCliTest {
 protected:
  void SetUp() override {
    RunCliTest::SetUp();
    setenv("ANTHROPIC_API_KEY", "anthropic-key-123456789", 1);
    setenv("GEMINI_API_KEY", "gemini-key-123456789", 1);
  }
  void TearDown() override {
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("GEMINI_API_KEY");
    RunCliTest::TearDown();
  }
  // `run` of PROVIDER/fake-model against `server`, a sample of each subtask.
  static std::vector<std::string> Args(const AnyProvider& server, std::string_view provider,
                                       const GeneratedSuite& suite, const std::string& out,
                                       std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run",       fmt::format("--model={}/fake-model", provider),
                                     "--base-url", server.Url(provider),
                                     "--samples",  suite.path,
                                     "--out",      out,
                                     "--limit",    "1",
                                     "--no-cache"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  static constexpr const char* kProviders[] = {"openai", "anthropic", "gemini"};
};

// A control as flags, and what it makes of each provider's body: `expect` turns the
// body of a run without it into the body with it, or returns what the refusal says.
struct CliControl {
  std::vector<std::string> flags;
  std::function<std::string(std::string_view provider, nlohmann::json* body)> expect;
};

std::vector<CliControl> CliControls(const std::string& system_file) {
  using nlohmann::json;
  // Sets `field` of the body (openai, anthropic) or of its generationConfig (gemini).
  const auto field = [](std::string openai, std::string anthropic, std::string gemini, json v) {
    return [=](std::string_view provider, json* body) {
      if (provider == "openai") (*body)[openai] = v;
      if (provider == "anthropic") (*body)[anthropic] = v;
      if (provider == "gemini") (*body)["generationConfig"][gemini] = v;
      return std::string();
    };
  };
  return {
      {{"--temperature", "0.5"}, field("temperature", "temperature", "temperature", 0.5)},
      // Without the default temperature: one of the two.
      {{"--top-p", "0.9"},
       [](std::string_view provider, json* body) {
         json& at = provider == "gemini" ? (*body)["generationConfig"] : *body;
         at.erase("temperature");
         at[provider == "gemini" ? "topP" : "top_p"] = 0.9;
         return std::string();
       }},
      {{"--stop", "END", "--stop", "###"},
       field("stop", "stop_sequences", "stopSequences", {"END", "###"})},
      {{"--sampling-seed", "42"},
       [](std::string_view provider, json* body) {
         if (provider == "anthropic") return std::string("--sampling-seed: anthropic takes no sampling seed");
         (provider == "gemini" ? (*body)["generationConfig"] : *body)["seed"] = 42;
         return std::string();
       }},
      {{"--reasoning-effort", "low"},
       [](std::string_view provider, json* body) {
         if (provider == "anthropic") return std::string("--reasoning-effort: anthropic takes no reasoning effort");
         if (provider == "openai") (*body)["reasoning_effort"] = "low";
         if (provider == "gemini") (*body)["generationConfig"]["thinkingConfig"]["thinkingLevel"] = "low";
         return std::string();
       }},
      {{"--thinking-budget", "1024", "--max-tokens", "2048"},
       [](std::string_view provider, json* body) {
         if (provider == "openai") return std::string("--thinking-budget: openai takes no thinking budget");
         if (provider == "anthropic") {
           (*body)["thinking"] = {{"type", "enabled"}, {"budget_tokens", 1024}};
           (*body)["max_tokens"] = 2048;
           body->erase("temperature");  // extended thinking takes none
         } else {
           (*body)["generationConfig"]["thinkingConfig"]["thinkingBudget"] = 1024;
           (*body)["generationConfig"]["maxOutputTokens"] = 2048;
         }
         return std::string();
       }},
      {{"--system", "@" + system_file},
       [](std::string_view provider, json* body) {
         const std::string text = "Answer tersely.\n";
         if (provider == "openai") {
           (*body)["messages"].insert((*body)["messages"].begin(),
                                      json{{"role", "system"}, {"content", text}});
         } else if (provider == "anthropic") {
           (*body)["system"] = text;
         } else {
           (*body)["systemInstruction"] = {{"parts", {{{"text", text}}}}};
         }
         return std::string();
       }},
      {{"--extra-body", R"({"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}})"},
       [](std::string_view, json* body) {
         (*body)["top_k"] = 20;
         (*body)["chat_template_kwargs"] = {{"enable_thinking", false}};
         return std::string();
       }},
  };
}

// Every control, to every provider: the exact body each request carries is the body of
// the same request without it, changed in the provider's own field; a control the
// provider cannot take is refused, naming it, before anything is sent or created.
TEST_F(RunControlsTest, EachControlReachesEachProviderInItsOwnField) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const std::string system_file = dir.path() + "/system.txt";
  WriteFileOrDie(system_file, "Answer tersely.\n");
  AnyProvider server(suite, "fake-model");
  for (const char* provider : kProviders) {
    const size_t before = server.Asked();
    const Finished plain = Exec(dir, Args(server, provider, suite, dir.path() + "/" + provider + "-plain"),
                                "plain");
    ASSERT_EQ(plain.exit_code, 0) << provider << ": " << plain.err;
    const std::map<std::string, nlohmann::json> plain_bodies = server.Bodies(before);
    ASSERT_EQ(plain_bodies.size(), 4u) << provider;  // html and math, Easy and Hard
    for (const auto& [prompt, body] : plain_bodies) {
      // The temperature default, in each provider's field.
      const nlohmann::json& at = std::string_view(provider) == "gemini" ? body["generationConfig"] : body;
      EXPECT_EQ(at["temperature"], 0.0) << provider << ": " << body.dump().substr(0, 300);
    }
    int n = 0;
    for (const CliControl& control : CliControls(system_file)) {
      const std::string out = fmt::format("{}/{}-{}", dir.path(), provider, n++);
      const size_t from = server.Asked();
      const Finished r = Exec(dir, Args(server, provider, suite, out, control.flags), "control");
      nlohmann::json probe = plain_bodies.begin()->second;
      const std::string refusal = control.expect(provider, &probe);
      const std::string what = fmt::format("{} {}", provider, control.flags.front());
      if (!refusal.empty()) {
        EXPECT_EQ(r.exit_code, 2) << what;
        EXPECT_NE(r.err.find("structtest: error: " + refusal), std::string::npos) << what << ": " << r.err;
        EXPECT_EQ(server.Asked(), from) << what;
        EXPECT_FALSE(std::filesystem::exists(out)) << what;
        continue;
      }
      ASSERT_EQ(r.exit_code, 0) << what << ": " << r.err;
      const std::map<std::string, nlohmann::json> bodies = server.Bodies(from);
      ASSERT_EQ(bodies.size(), plain_bodies.size()) << what;
      for (const auto& [prompt, body] : bodies) {
        nlohmann::json expected = plain_bodies.at(prompt);
        control.expect(provider, &expected);
        EXPECT_EQ(body, expected) << what;
      }
    }
  }
}

TEST_F(RunControlsTest, BadControlValuesAreClearErrorsNamingTheFlag) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  AnyProvider server(suite, "fake-model");
  const struct {
    const char* provider;
    std::vector<std::string> flags;
    std::string error;
  } cases[] = {
      {"openai", {"--temperature", "2.5"}, "--temperature 2.5: expected 0 to 2"},
      {"openai", {"--temperature", "warm"},
       "--temperature warm: expected a number from 0 to 2, or none (send none)"},
      {"anthropic", {"--temperature", "1.5"}, "--temperature 1.5: anthropic takes 0 to 1"},
      {"openai", {"--top-p", "1.5"}, "--top-p 1.5: expected more than 0 and at most 1"},
      {"gemini", {"--top-p", "0"}, "--top-p 0: expected more than 0 and at most 1"},
      {"openai", {"--stop", ""}, "--stop '': a stop sequence cannot be empty"},
      {"openai", {"--sampling-seed", "-1"}, "--sampling-seed -1: expected 0 to 2147483647"},
      {"openai", {"--reasoning-effort", "max"},
       "--reasoning-effort max: expected none, minimal, low, medium, high or xhigh"},
      {"gemini", {"--reasoning-effort", "xhigh"},
       "--reasoning-effort xhigh: gemini takes minimal, low, medium or high"},
      {"anthropic", {"--thinking-budget", "512", "--max-tokens", "4096"},
       "--thinking-budget 512: anthropic takes 1024 tokens or more"},
      {"anthropic", {"--thinking-budget", "8000"},
       "--thinking-budget 8000: anthropic needs --max-tokens above it"},
      {"anthropic", {"--thinking-budget", "2000", "--temperature", "0.2"},
       "--temperature 0.2: anthropic takes none with --thinking-budget"},
      {"openai", {"--extra-body", "[1]"}, "--extra-body: expected a JSON object"},
      {"openai", {"--extra-body", "{\"top_k\": "}, "--extra-body: not JSON"},
      {"openai", {"--extra-body", R"({"temperature": 1})"},
       "--extra-body: 'temperature' is in the request already (set it with --temperature)"},
      {"gemini", {"--extra-body", R"({"contents": []})"},
       "--extra-body: 'contents' is in the request already (structtest writes it)"},
      {"openai", {"--system", "@" + dir.path() + "/missing.txt"},
       "--system @" + dir.path() + "/missing.txt: cannot read"},
      {"openai", {"--header", "X-Token secret"}, "--header: expected 'Name: value'"},
      {"openai", {"--header", "Content-Type: text/plain"},
       "--header Content-Type: structtest writes this header itself"},
  };
  for (const auto& c : cases) {
    const std::string out = dir.path() + "/bad";
    const Finished r = Exec(dir, Args(server, c.provider, suite, out, c.flags), "bad");
    EXPECT_EQ(r.exit_code, 2) << c.flags.front();
    EXPECT_NE(r.err.find("structtest: error: " + c.error), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("secret"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.flags.front();
  }
  EXPECT_EQ(server.Asked(), 0u);
  // The built-in responders send no request to control.
  const Finished builtin = Exec(dir, {"run", "--model", "builtin/oracle", "--samples", suite.path,
                                      "--out", dir.path() + "/oracle", "--top-p", "0.5"},
                                "builtin");
  EXPECT_EQ(builtin.exit_code, 2);
  EXPECT_NE(builtin.err.find("--top-p: the built-in responders send nothing"), std::string::npos)
      << builtin.err;
}

// Each control is part of the run: the same directory with another value is refused,
// naming it, as --size is.
TEST_F(RunControlsTest, AResumeWithAnotherControlIsRefusedNamingIt) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  AnyProvider server(suite, "fake-model");
  const struct {
    std::vector<std::string> first, then;
    std::string differs;
  } cases[] = {
      {{}, {"--sampling-seed", "3"}, "sampling_seed was null, now 3"},
      {{"--top-p", "0.9"}, {"--top-p", "0.8"}, "top_p was 0.9, now 0.8"},
      {{"--stop", "X"}, {"--stop", "X", "--stop", "Y"}, R"(stop was ["X"], now ["X","Y"])"},
      {{"--sampling-seed", "1"}, {"--sampling-seed", "2"}, "sampling_seed was 1, now 2"},
      {{"--reasoning-effort", "low"}, {"--reasoning-effort", "high"},
       R"(reasoning_effort was "low", now "high")"},
      {{"--thinking-budget", "100"}, {"--thinking-budget", "200"}, "thinking_budget was 100, now 200"},
      {{"--system", "A"}, {"--system", "B"}, R"(system was "A", now "B")"},
      {{"--extra-body", R"({"a": 1})"}, {"--extra-body", R"({"a": 2})"},
       R"(extra_body was {"a":1}, now {"a":2})"},
      {{"--header", "X-A: 1"}, {"--header", "X-B: 1"}, R"(headers was ["x-a"], now ["x-b"])"},
      {{"--extra-body", R"({"a": 1})"}, {}, R"(extra_body was {"a":1})"},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string out = fmt::format("{}/run{}", dir.path(), n++);
    ASSERT_EQ(Exec(dir, Args(server, "gemini", suite, out, c.first), "first").exit_code, 0);
    const std::string db = ReadFileOrDie(out + "/run.db");
    const Finished then = Exec(dir, Args(server, "gemini", suite, out, c.then), "then");
    EXPECT_EQ(then.exit_code, 2) << c.differs;
    EXPECT_NE(then.err.find("holds another run (" + c.differs), std::string::npos) << then.err;
    EXPECT_EQ(ReadFileOrDie(out + "/run.db"), db);
    // The same command again is the same run.
    EXPECT_EQ(Exec(dir, Args(server, "gemini", suite, out, c.first), "again").exit_code, 0)
        << c.differs;
  }
  // A header's value is not part of the run (it is never stored): another value of the
  // same header resumes it.
  const std::string out = dir.path() + "/header";
  ASSERT_EQ(Exec(dir, Args(server, "openai", suite, out, {"--header", "X-A: 1"}), "h1").exit_code, 0);
  EXPECT_EQ(Exec(dir, Args(server, "openai", suite, out, {"--header", "X-A: 2"}), "h2").exit_code, 0);
}

// A run directory made before structtest had a temperature default (its manifest says
// null: the provider's default) resumes as it was made: without a temperature; and
// --temperature none asks for none in a new run (a shard of such a run, say).
TEST_F(RunControlsTest, ARunStoredWithoutATemperatureResumesWithoutOne) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  AnyProvider server(suite, "fake-model");
  const std::string out = dir.path() + "/run";
  ASSERT_EQ(Exec(dir, Args(server, "openai", suite, out), "first").exit_code, 0);
  {
    auto db = sqlite::Db::Open(out + "/run.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("UPDATE manifest SET json = json_set(json, '$.temperature', json('null')); "
                            "DELETE FROM verdicts; DELETE FROM responses")
                    .ok());
  }
  const size_t from = server.Asked();
  const Finished resumed = Exec(dir, Args(server, "openai", suite, out), "resumed");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto bodies = server.Bodies(from);
  ASSERT_EQ(bodies.size(), 4u);
  for (const auto& [prompt, body] : bodies) EXPECT_FALSE(body.contains("temperature")) << body.dump();
  EXPECT_TRUE(ReadReport(out)["manifest"]["temperature"].is_null());
  const Finished zero = Exec(dir, Args(server, "openai", suite, out, {"--temperature", "0"}), "zero");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("temperature was null, now 0.0"), std::string::npos) << zero.err;
  EXPECT_EQ(Exec(dir, Args(server, "openai", suite, out, {"--temperature", "none"}), "none")
                .exit_code,
            0);

  const std::string fresh = dir.path() + "/fresh";
  const size_t before_fresh = server.Asked();
  ASSERT_EQ(Exec(dir, Args(server, "gemini", suite, fresh, {"--temperature", "none"}), "fresh")
                .exit_code,
            0);
  for (const auto& [prompt, body] : server.Bodies(before_fresh)) {
    // No temperature, and nothing else in generationConfig: none at all.
    EXPECT_FALSE(body.contains("generationConfig")) << body.dump();
  }
  EXPECT_TRUE(ReadReport(fresh)["manifest"]["temperature"].is_null());
}

// The response cache answers a request only with the answer to the very same request:
// another value of any control is asked again, and the same value is answered from it.
TEST_F(RunControlsTest, TheCacheIsKeyedByEveryControl) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  AnyProvider server(suite, "fake-model");
  const std::string cache = dir.path() + "/cache.db";
  int n = 0;
  const auto run = [&](const std::vector<std::string>& flags) {
    std::vector<std::string> args = Args(server, "gemini", suite, fmt::format("{}/run{}", dir.path(), n++), flags);
    args.erase(std::find(args.begin(), args.end(), "--no-cache"));
    args.insert(args.end(), {"--cache", cache});
    const size_t from = server.Asked();
    const Finished r = Exec(dir, args, "cached");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return server.Asked() - from;
  };
  ASSERT_EQ(run({}), 4u);
  ASSERT_EQ(run({}), 0u);
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {"--temperature", "0.3"},
           {"--top-p", "0.5", "--temperature", "0"},  // the temperature as without it
           {"--stop", "END"},
           {"--sampling-seed", "9"},
           {"--reasoning-effort", "high"},
           {"--thinking-budget", "256"},
           {"--system", "Be brief."},
           {"--extra-body", R"({"top_k": 3})"},
           {"--header", "X-Route: b"}}) {
    EXPECT_EQ(run(flags), 4u) << flags.front() << ": another request";
    EXPECT_EQ(run(flags), 0u) << flags.front() << ": the same request";
  }
}

// --header: sent with every request, its value never stored or shown (not even when the
// server echoes it in an error), its name kept.
TEST_F(RunControlsTest, HeadersAreSentButTheirValuesAreNeverStored) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const std::string secret = "gw-7f3a9c1e5b2d8064";
  std::atomic<int> echoed{0}, without{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    if (req.Header("x-gateway-token") != secret || req.Header("x-team") != "evals") ++without;
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    if (std::hash<std::string>()(id) % 2 == 0) {
      ++echoed;
      reply.status = 400;
      reply.body = R"({"error":{"message":"token )" + secret + R"( is not allowed here"}})";
    }
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string run = dir.path() + "/run";
  const Finished r = Exec(dir, RunArgs(server.base_url() + "/v1", suite, run,
                                       {"--retries", "0", "--header", "X-Gateway-Token: " + secret,
                                        "--header", "X-Team: evals"}),
                          "headers");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_GT(echoed.load(), 0);
  EXPECT_EQ(without.load(), 0);
  const nlohmann::json report = ReadReport(run);
  EXPECT_EQ(report["manifest"]["headers"], nlohmann::json({"x-gateway-token", "x-team"}));
  const Finished exported = Exec(dir, {"export", run, "--all"}, "export");
  EXPECT_NE(exported.out.find("token [redacted] is not allowed"), std::string::npos)
      << exported.out.substr(0, 300);
  const std::string page = ReadFileOrDie(run + "/report.html");
  for (const std::string& text :
       {r.out, r.err, exported.out, ::structtest::testing::HtmlPageData(page), page,
        ReadFileOrDie(run + "/run.db"), ReadFileOrDie(run + "/report.json")}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << text.substr(0, 300);
    EXPECT_EQ(text.find("7f3a9c1e"), std::string::npos) << text.substr(0, 300);
  }
}

// The model the server says answered is kept with each answer, and shown where it is
// not the one asked for; the run's controls are shown with it.
TEST_F(RunControlsTest, TheServedModelAndTheControlsAreShownInEveryReport) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  AnyProvider dated(suite, "fake-model-2025-01-01");
  const std::string run = dir.path() + "/run";
  const Finished r = Exec(dir, Args(dated, "openai", suite, run,
                                    {"--top-p", "0.9", "--stop", "END", "--sampling-seed", "5",
                                     "--system", "Be brief.", "--extra-body", R"({"top_k": 2})"}),
                          "dated");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("asked for openai/fake-model, the server says it answered as "
                       "fake-model-2025-01-01 (4 answers)"),
            std::string::npos)
      << r.err;
  const nlohmann::json settings = nlohmann::json::parse(
      R"({"model":"openai/fake-model","max_tokens":0,"temperature":null,"top_p":0.9,
          "stop":["END"],"sampling_seed":5,"system":"Be brief.","extra_body":{"top_k":2}})");
  const nlohmann::json report = ReadReport(run);
  EXPECT_EQ(report["served_models"], nlohmann::json({{"fake-model-2025-01-01", 4}}));
  for (const auto& [key, value] : settings.items()) {
    EXPECT_EQ(report["manifest"][key], value) << key;
  }
  const nlohmann::json page = nlohmann::json::parse(
      ::structtest::testing::HtmlPageData(ReadFileOrDie(run + "/report.html")));
  EXPECT_EQ(page["runs"][0]["report"]["served_models"], report["served_models"]);
  EXPECT_EQ(page["runs"][0]["report"]["manifest"], report["manifest"]);
  const Finished exported = Exec(dir, {"export", run}, "export");
  std::istringstream lines(exported.out);
  int records = 0;
  for (std::string line; std::getline(lines, line); ++records) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["served_model"], "fake-model-2025-01-01");
    EXPECT_EQ(j["request"], settings);
  }
  EXPECT_EQ(records, 4);
  // The dry run says what every request carries.
  const Finished dry = Exec(dir, Args(dated, "openai", suite, dir.path() + "/dry", {"--dry-run"}), "dry");
  EXPECT_NE(dry.out.find(R"(request settings: {"max_tokens":0,"model":"openai/fake-model","temperature":0.0})"),
            std::string::npos)
      << dry.out;

  // Served as asked: nothing to say.
  AnyProvider exact(suite, "fake-model");
  const std::string same = dir.path() + "/same";
  const Finished s = Exec(dir, Args(exact, "openai", suite, same), "same");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.err.find("the server says"), std::string::npos) << s.err;
  EXPECT_FALSE(ReadReport(same).contains("served_models"));
  EXPECT_NE(Exec(dir, {"export", same}, "export").out.find(R"("served_model":"fake-model")"),
            std::string::npos);
}

// Issue 50: `--max-cost 1.5` ended at $1.685 with "budget reached". A run whose answers
// took the spending past the budget says "exceeded", and that without --max-tokens the
// budget rests on an estimate.
TEST_F(RunCliTest, ABudgetPassedByLongAnswersSaysExceeded) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    std::string id;
    FakeHttpReply reply = Answer(suite, req, &id);
    if (reply.status != 200) return reply;
    nlohmann::json body = nlohmann::json::parse(reply.body);
    body["usage"] = {{"prompt_tokens", 100}, {"completion_tokens", 5000}};  // far past the estimate
    reply.body = body.dump();
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const Finished tokens = Exec(dir, RunArgs(url, suite, dir.path() + "/tokens",
                                            {"--concurrency", "1", "--max-tokens-total", "2000"}),
                               "tokens");
  EXPECT_EQ(tokens.exit_code, 1) << tokens.err;
  EXPECT_NE(tokens.err.find("budget exceeded: 5100 tokens spent in " + dir.path() +
                            "/tokens is past --max-tokens-total 2000 (a request is started when "
                            "its estimate, the mean usage so far, fits; without --max-tokens an "
                            "answer's length has no bound, so the budget is an estimate); "
                            "answered 1 of "),
            std::string::npos)
      << tokens.err;
  EXPECT_EQ(tokens.err.find("budget reached"), std::string::npos) << tokens.err;
  const Finished cost = Exec(dir, RunArgs(url, suite, dir.path() + "/cost",
                                          {"--concurrency", "1", "--max-cost", "0.01",
                                           "--price-in", "1", "--price-out", "10",
                                           "--max-tokens", "64"}),
                             "cost");
  EXPECT_EQ(cost.exit_code, 1) << cost.err;
  EXPECT_NE(cost.err.find("budget exceeded: 5100 tokens ($0.0501) spent in " + dir.path() +
                          "/cost is past --max-cost 0.01 (a request is started when its "
                          "estimate, the mean usage so far, fits; --max-tokens 64 bounds each "
                          "answer)"),
            std::string::npos)
      << cost.err;
}

}  // namespace
}  // namespace run_cli_test
}  // namespace structtest
