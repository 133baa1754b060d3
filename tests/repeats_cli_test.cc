// `structtest run --repeats K`: the real binary against a loopback server that answers
// each request for a prompt differently (testing/fake_server.h). Shows that every sample
// is asked K times as K requests with their own cache keys, that a run killed with
// SIGKILL resumes asking only the repeats it lacks, that report.json's figures (mean
// accuracy and its clustered interval, consistency, pass@k, pass^k) are those python3
// recomputes from `export` (testing/repeats_oracle.py), that the batch path (--batch,
// --offline and import) sends and maps back every repeat, that compare of two models'
// runs pairs on the samples with every repeat and gives the figures python3 recomputes
// from their exports, and that a resume with another K is refused naming it.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "testing/cli_runs.h"
#include "testing/fake_batch_server.h"
#include "testing/fake_server.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace repeats_cli_test {
namespace {

using ::structtest::testing::Child;
using ::structtest::testing::Exec;
using ::structtest::testing::FakeBatchServer;
using ::structtest::testing::FakeHttpReply;
using ::structtest::testing::FakeHttpRequest;
using ::structtest::testing::FakeHttpServer;
using ::structtest::testing::Finished;
using ::structtest::testing::GeneratedSuite;
using ::structtest::testing::MakeSuite;
using ::structtest::testing::OpenAiCompletionBody;
using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::SourceDir;
using ::structtest::testing::Spawn;
using ::structtest::testing::TempDir;
using ::structtest::testing::Wait;
using ::structtest::testing::WriteFileOrDie;

// Whether the model answers a prompt's n-th request (from 0) right: a mix, so that
// samples pass some repeats and fail others, some all and some none. Another `variant`
// is another model, right on other prompts.
bool Right(const std::string& prompt, int n, int variant = 0) {
  const size_t h =
      std::hash<std::string>()(variant == 0 ? prompt : fmt::format("{}#{}", prompt, variant));
  switch (h % 4) {
    case 0: return true;       // always right
    case 1: return false;      // always wrong
    default: return (h / 4 + static_cast<size_t>(n)) % 3 != 0;  // two of three
  }
}

// The model behind the fake server: counts the requests per prompt, and answers the
// n-th one for a prompt with Right(prompt, n): the reference answer, or a refusal
// naming n, so that the repeats' answers differ.
class Model {
 public:
  explicit Model(const GeneratedSuite& suite, int variant = 0) : suite_(suite), variant_(variant) {}

  FakeHttpReply Answer(const FakeHttpRequest& req) {
    const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    FakeHttpReply reply;
    if (body.is_discarded() || !body.contains("messages")) {
      reply.status = 400;
      reply.body = R"({"error":{"message":"bad request"}})";
      return reply;
    }
    const std::string prompt = body["messages"].back()["content"];
    const auto it = suite_.by_prompt.find(prompt);
    if (it == suite_.by_prompt.end()) {
      reply.status = 400;
      reply.body = R"({"error":{"message":"unknown prompt"}})";
      return reply;
    }
    int n = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      n = asked_[prompt]++;
    }
    reply.body = OpenAiCompletionBody(Text(prompt, n));
    return reply;
  }

  std::string Text(const std::string& prompt, int n) const {
    const std::string& answer = suite_.by_prompt.at(prompt).second;
    return Right(prompt, n, variant_) ? answer : fmt::format("I would rather not ({}).", n);
  }

  std::map<std::string, int> asked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }

 private:
  const GeneratedSuite& suite_;
  const int variant_;
  mutable std::mutex mu_;
  std::map<std::string, int> asked_;  // GUARDED_BY(mu_)
};

// The records of `structtest export --all`, written to `path`.
std::vector<nlohmann::json> ExportRecords(const TempDir& dir, const std::string& run,
                                          const std::string& path) {
  const Finished e = Exec(dir, {"export", run, "--all", "--output", path}, "export");
  EXPECT_EQ(e.exit_code, 0) << e.err;
  std::vector<nlohmann::json> out;
  std::istringstream lines(ReadFileOrDie(path));
  for (std::string line; std::getline(lines, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::vector<nlohmann::json> ExportRecords(const TempDir& dir, const std::string& run) {
  return ExportRecords(dir, run, dir.path() + "/export.jsonl");
}

// (id, repeat) -> the answer's text, of the answered records.
std::map<std::pair<std::string, int>, std::string> Answers(const std::vector<nlohmann::json>& records) {
  std::map<std::pair<std::string, int>, std::string> out;
  for (const nlohmann::json& r : records) {
    if (r["status"] == "answered") out[{r["id"], r["repeat"].get<int>()}] = r["response"];
  }
  return out;
}

std::string Python(const std::string& args) {
  const std::string cmd = "/usr/bin/python3 '" + SourceDir() + "/testing/repeats_oracle.py' " + args;
  std::FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd;
  return out;
}

std::vector<std::string> RunArgs(const std::string& url, const GeneratedSuite& suite,
                                 const std::string& out, std::vector<std::string> extra = {},
                                 const std::string& model = "openai/fake-model") {
  std::vector<std::string> args = {"run", "--model", model, "--base-url", url,
                                   "--samples", suite.path, "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int64_t CacheRows(const std::string& path) {
  auto db = sqlite::Db::Open(path, /*read_only=*/true);
  EXPECT_TRUE(db.ok());
  auto q = (*db)->Prepare("SELECT COUNT(*) FROM responses");
  EXPECT_TRUE(q.ok() && *q->Step());
  return q->Int(0);
}

class RepeatsCliTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("OPENAI_API_KEY", "sk-test-repeats-0123456789", 1); }
  void TearDown() override { unsetenv("OPENAI_API_KEY"); }
};

TEST_F(RepeatsCliTest, EachSampleIsAskedKTimesAndTheFiguresAreThoseOfItsExport) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const size_t samples = suite.by_prompt.size();
  ASSERT_GT(samples, 20u);
  Model model(suite);
  FakeHttpServer server([&](const FakeHttpRequest& req) { return model.Answer(req); });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string cache = dir.path() + "/cache.db";
  const std::string run = dir.path() + "/run";
  const Finished first = Exec(dir, RunArgs(url, suite, run, {"--repeats", "3", "--cache", cache}), "first");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // At the default temperature, 0, the repeats measure the server's nondeterminism only:
  // said before any figure is read.
  EXPECT_NE(first.err.find("3 repeats of each sample at temperature 0: they differ only where "
                           "the server is not deterministic"),
            std::string::npos)
      << first.err;
  EXPECT_NE(first.err.find("set --temperature to sample"), std::string::npos) << first.err;
  EXPECT_NE(first.out.find(fmt::format("answered {0} of {0} requests ({1} samples x 3 repeats)",
                                       3 * samples, samples)),
            std::string::npos)
      << first.out;
  // K requests a sample, each a request of its own.
  for (const auto& [prompt, n] : model.asked()) EXPECT_EQ(n, 3) << prompt;
  EXPECT_EQ(model.asked().size(), samples);
  EXPECT_EQ(server.requests().size(), 3 * samples);
  // Every repeat is stored, with the answer of one of its sample's requests.
  const std::vector<nlohmann::json> records = ExportRecords(dir, run);
  ASSERT_EQ(records.size(), 3 * samples);
  const auto answers = Answers(records);
  ASSERT_EQ(answers.size(), 3 * samples);
  for (const auto& [prompt, id_answer] : suite.by_prompt) {
    std::set<std::string> got, sent;
    for (int r = 0; r < 3; ++r) {
      got.insert(answers.at({id_answer.first, r}));
      sent.insert(model.Text(prompt, r));
    }
    EXPECT_EQ(got, sent) << id_answer.first;
  }
  // Each repeat has a cache key of its own: a second run answers every repeat from the
  // cache with that repeat's answer (keyed without the repeat, all three would get one).
  EXPECT_EQ(CacheRows(cache), static_cast<int64_t>(3 * samples));
  const std::string again = dir.path() + "/again";
  const Finished second = Exec(dir, RunArgs(url, suite, again, {"--repeats", "3", "--cache", cache}), "second");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(server.requests().size(), 3 * samples);  // nothing asked
  const auto answers_again = Answers(ExportRecords(dir, again));
  EXPECT_EQ(answers_again.size(), answers.size());
  int differ = 0;  // counted, not printed: the answers are long
  for (const auto& [slot, text] : answers) {
    const auto it = answers_again.find(slot);
    differ += it == answers_again.end() || it->second != text;
  }
  EXPECT_EQ(differ, 0) << "repeats answered from the cache with another repeat's answer";

  // report.json: the figures python3 computes from the export.
  const std::string exported = dir.path() + "/all.jsonl";
  ASSERT_EQ(Exec(dir, {"export", run, "--all", "--output", exported}, "all").exit_code, 0);
  const nlohmann::json oracle = nlohmann::json::parse(Python("'" + exported + "' 3"));
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrDie(run + "/report.json"));
  EXPECT_EQ(report["repeats"]["k"], 3);
  EXPECT_EQ(report["manifest"]["repeats"], 3);
  ASSERT_EQ(report["subtasks"].size(), oracle.size());
  int some_inconsistent = 0, design_effects = 0;
  for (const nlohmann::json& s : report["subtasks"]) {
    const std::string key = s["domain"].get<std::string>() + "/" + s["subtask"].get<std::string>();
    SCOPED_TRACE(key);
    ASSERT_TRUE(oracle.contains(key));
    const nlohmann::json& o = oracle[key];
    EXPECT_EQ(s["scored"], o["scored"]);
    EXPECT_EQ(s["passed"], o["passed"]);
    EXPECT_NEAR(s["accuracy"].get<double>(), o["accuracy"].get<double>(), 1e-9);
    EXPECT_NEAR(s["ci"]["low"].get<double>(), o["low"].get<double>(), 1e-6);
    EXPECT_NEAR(s["ci"]["high"].get<double>(), o["high"].get<double>(), 1e-6);
    design_effects += s["ci"].contains("design_effect");
    const nlohmann::json& r = s["repeats"];
    EXPECT_EQ(r["samples"], o["samples"]);
    EXPECT_EQ(r["incomplete"], 0);
    EXPECT_NEAR(r["consistency"].get<double>(), o["consistency"].get<double>(), 1e-9);
    some_inconsistent += r["consistency"].get<double>() < 100;
    ASSERT_EQ(r["pass_at_k"].size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(r["pass_at_k"][k].get<double>(), o["pass_at_k"][k].get<double>(), 1e-9) << k + 1;
      EXPECT_NEAR(r["pass_hat_k"][k].get<double>(), o["pass_hat_k"][k].get<double>(), 1e-9) << k + 1;
    }
    // pass@1 = pass^1 = the mean accuracy, every repeat being scored.
    EXPECT_NEAR(r["pass_at_k"][0].get<double>(), s["accuracy"].get<double>(), 1e-9);
  }
  EXPECT_GT(some_inconsistent, 0);  // the model's repeats differ: the figures are not trivial
  EXPECT_GT(design_effects, 0);
  std::printf("repeats: %zu samples x 3, report.json equals repeats_oracle.py on %zu subtasks\n",
              samples, report["subtasks"].size());
  // The text report shows them.
  const Finished text = Exec(dir, {"report", run}, "report");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("repeats: each sample asked 3 times"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("pass@k, k=1..3"), std::string::npos) << text.out;

  // Another K is another run, refused naming it; the run is kept.
  for (const auto& [extra, message] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--repeats", "2"}, "(--repeats was 3, now 2)"}, {{}, "(--repeats was 3, now 1)"}}) {
    auto args = RunArgs(url, suite, run, {"--cache", cache});
    args.insert(args.end(), extra.begin(), extra.end());
    const Finished refused = Exec(dir, args, "refused");
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("structtest: error: " + run + ": this directory holds another run " +
                               message),
              std::string::npos)
        << refused.err;
  }
  EXPECT_EQ(ExportRecords(dir, run).size(), 3 * samples);
  for (const char* bad : {"0", "-1", "x", "1001", "2.5"}) {
    const Finished r = Exec(dir, RunArgs(url, suite, dir.path() + "/bad", {"--repeats", bad}), "bad");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find(fmt::format("structtest: error: --repeats {}: expected a whole number "
                                     "from 1 to 1000",
                                     bad)),
              std::string::npos)
        << r.err;
  }
}

// Killed with SIGKILL mid-run: the resumed run asks each sample only the repeats it
// has no answer for, and ends with every repeat answered once.
TEST_F(RepeatsCliTest, AKilledRunResumesAskingOnlyTheMissingRepeats) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const size_t samples = suite.by_prompt.size();
  Model model(suite);
  std::mutex mu;
  std::condition_variable changed;
  size_t seen = 0;
  bool killed = false;
  // The first 60% of the requests are answered; the others are held until the kill.
  const size_t answer_first = 3 * samples * 6 / 10;
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    FakeHttpReply reply = model.Answer(req);
    std::unique_lock<std::mutex> lock(mu);
    ++seen;
    changed.notify_all();
    if (seen > answer_first) changed.wait(lock, [&] { return killed; });
    return reply;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string run = dir.path() + "/run";
  const auto args = RunArgs(url, suite, run, {"--repeats", "3", "--no-cache", "--concurrency", "4"});
  const Child child = Spawn(dir, args, "killed");
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(60), [&] { return seen > answer_first; }))
        << "the run never got going";
  }
  ASSERT_EQ(kill(child.pid, SIGKILL), 0);
  EXPECT_EQ(Wait(child).exit_code, 128 + SIGKILL);
  std::map<std::string, int> stored;  // id -> repeats answered before the resume
  for (const auto& [key, text] : Answers(ExportRecords(dir, run))) ++stored[key.first];
  int64_t stored_total = 0;
  for (const auto& [id, n] : stored) stored_total += n;
  EXPECT_GT(stored_total, 0);
  EXPECT_LT(stored_total, static_cast<int64_t>(3 * samples));
  std::map<std::string, int> before;
  {
    std::lock_guard<std::mutex> lock(mu);
    before = model.asked();
    killed = true;
  }
  changed.notify_all();
  const Finished resumed = Exec(dir, args, "resumed");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(fmt::format("resuming: {} of {} requests (samples x repeats) answered",
                                         stored_total, 3 * samples)),
            std::string::npos)
      << resumed.err;
  const std::map<std::string, int> after = model.asked();
  for (const auto& [prompt, id_answer] : suite.by_prompt) {
    const int asked_again = after.at(prompt) - (before.contains(prompt) ? before.at(prompt) : 0);
    const int had = stored.contains(id_answer.first) ? stored.at(id_answer.first) : 0;
    EXPECT_EQ(asked_again, 3 - had) << id_answer.first;
  }
  EXPECT_EQ(Answers(ExportRecords(dir, run)).size(), 3 * samples);
}

// compare pairs two runs of 2 repeats, of two models that pass different samples, on
// the samples with both repeats scored in both, and says how many it left out; its
// figures (each run's accuracy, the flips either way, McNemar's p, the flipped samples)
// are those python3 recomputes from the two exports (repeats_oracle.py --compare); runs
// of different K are refused.
TEST_F(RepeatsCliTest, ComparePairsOnTheSamplesWithEveryRepeat) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const size_t samples = suite.by_prompt.size();
  Model model(suite), other(suite, /*variant=*/1);
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    const bool b = req.body.find("\"other-model\"") != std::string::npos;
    return (b ? other : model).Answer(req);
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string url = server.base_url() + "/v1";
  const std::string a = dir.path() + "/a", b = dir.path() + "/b", once = dir.path() + "/once";
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, a, {"--repeats", "2", "--no-cache"}), "a").exit_code, 0);
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, b, {"--repeats", "2", "--no-cache"}, "openai/other-model"),
                 "b")
                .exit_code,
            0);
  ASSERT_EQ(Exec(dir, RunArgs(url, suite, once, {"--no-cache"}), "once").exit_code, 0);
  // Repeat 1 of the first two samples of B is gone (as if it had not been asked yet).
  {
    auto db = sqlite::Db::Open(b + "/run.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("DELETE FROM verdicts WHERE idx < 2 AND rep = 1; DELETE FROM "
                            "responses WHERE idx < 2 AND rep = 1")
                    .ok());
  }
  const Finished c = Exec(dir, {"compare", a, b, "--format", "json", "--flips"}, "compare");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const nlohmann::json j = nlohmann::json::parse(c.out)["comparisons"][0];
  EXPECT_EQ(j["repeats"], 2);
  EXPECT_EQ(j["shared"], samples);
  EXPECT_EQ(j["paired"], samples - 2);
  EXPECT_EQ(j["left_out"]["unscored"], 2);
  EXPECT_EQ(j["left_out"]["errored_a"], 0);
  EXPECT_EQ(j["left_out"]["errored_b"], 0);
  EXPECT_NE(j["a"]["model"], j["b"]["model"]);

  const std::string export_a = dir.path() + "/a.jsonl", export_b = dir.path() + "/b.jsonl";
  ExportRecords(dir, a, export_a);
  ExportRecords(dir, b, export_b);
  const nlohmann::json oracle =
      nlohmann::json::parse(Python("--compare '" + export_a + "' '" + export_b + "' 2"));
  EXPECT_EQ(j["paired"], oracle["paired"]);
  ASSERT_EQ(j["subtasks"].size(), oracle["subtasks"].size());
  std::map<std::string, std::string> flips, oracle_flips;
  int64_t better_in_a = 0, better_in_b = 0;
  for (const nlohmann::json& s : j["subtasks"]) {
    const std::string key = s["domain"].get<std::string>() + "/" + s["subtask"].get<std::string>();
    ASSERT_TRUE(oracle["subtasks"].contains(key)) << key;
    const nlohmann::json& o = oracle["subtasks"][key];
    EXPECT_EQ(s["samples"], o["samples"]) << key;
    EXPECT_EQ(s["n"], o["n"]) << key;
    EXPECT_NEAR(s["a"].get<double>(), o["a"].get<double>(), 1e-9) << key;
    EXPECT_NEAR(s["b"].get<double>(), o["b"].get<double>(), 1e-9) << key;
    EXPECT_EQ(s["sample_pass_to_fail"], o["pass_to_fail"]) << key;
    EXPECT_EQ(s["sample_fail_to_pass"], o["fail_to_pass"]) << key;
    EXPECT_EQ(s["pass_to_fail"], o["pass_to_fail"]) << key;
    EXPECT_EQ(s["fail_to_pass"], o["fail_to_pass"]) << key;
    EXPECT_NEAR(s["mcnemar_p"].get<double>(), o["mcnemar_p"].get<double>(), 1e-9) << key;
    better_in_a += o["pass_to_fail"].get<int64_t>();
    better_in_b += o["fail_to_pass"].get<int64_t>();
    for (const auto& [id, flip] : o["flips"].items()) oracle_flips[id] = flip;
  }
  for (const nlohmann::json& f : j["flips"]) flips[f["id"]] = f["flip"];
  EXPECT_EQ(flips, oracle_flips);
  // The two models differ both ways, so that a figure of one run given to the other, or
  // a flip counted the wrong way, shows.
  EXPECT_GT(better_in_a, 0);
  EXPECT_GT(better_in_b, 0);
  int64_t units = 0, paired_samples = 0;
  for (const nlohmann::json& s : j["subtasks"]) {
    units += s["n"].get<int64_t>();
    paired_samples += s["samples"].get<int64_t>();
  }
  EXPECT_EQ(paired_samples, static_cast<int64_t>(samples) - 2);
  EXPECT_EQ(units, 2 * paired_samples);  // a sample's two repeats
  const Finished text = Exec(dir, {"compare", a, b}, "compare-text");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(fmt::format("{} shared samples, {} with all 2 repeats scored in both; "
                                      "left out, a repeat short in either run: 0 with a repeat "
                                      "errored in A, 0 in B, 2 with one not asked or not scored",
                                      samples, samples - 2)),
            std::string::npos)
      << text.out;
  const Finished refused = Exec(dir, {"compare", a, once}, "compare-once");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(fmt::format("{} asks each sample 2 time(s) and {} 1 (run --repeats): "
                                         "compare runs of the same repeats",
                                         a, once)),
            std::string::npos)
      << refused.err;
}

// An offline batch file holds every repeat of every sample, each under a custom id of
// its own, and import maps each answer back to its repeat; run --batch does the same
// through the provider's batch API.
TEST_F(RepeatsCliTest, TheBatchPathsSendAndMapBackEveryRepeat) {
  TempDir dir;
  const GeneratedSuite suite = MakeSuite(dir);
  const size_t samples = suite.by_prompt.size();
  const std::string run = dir.path() + "/offline";
  const std::string input = dir.path() + "/input.jsonl";
  const Finished w = Exec(dir, {"run", "--model", "openai/fake-model", "--samples", suite.path,
                                "--out", run, "--repeats", "2", "--offline", input},
                          "offline");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  std::vector<nlohmann::json> lines;
  {
    std::istringstream in(ReadFileOrDie(input));
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(lines.size(), 2 * samples);
  std::map<std::string, std::string> prompt_of;  // custom id -> its prompt
  std::map<std::string, int> per_prompt;
  for (const nlohmann::json& l : lines) {
    const std::string prompt = l["body"]["messages"].back()["content"];
    prompt_of[l["custom_id"]] = prompt;
    ++per_prompt[prompt];
  }
  EXPECT_EQ(prompt_of.size(), lines.size());  // every custom id is another
  for (const auto& [prompt, n] : per_prompt) EXPECT_EQ(n, 2);
  // The engine's answer to each line names its custom id.
  std::string results;
  for (const nlohmann::json& l : lines) {
    const std::string id = l["custom_id"];
    const nlohmann::json body = nlohmann::json::parse(OpenAiCompletionBody("answer to " + id));
    results += nlohmann::json{{"id", "vllm-1"},
                              {"custom_id", id},
                              {"response", {{"status_code", 200}, {"request_id", "r"}, {"body", body}}},
                              {"error", nullptr}}
                   .dump() +
               "\n";
  }
  const std::string output = dir.path() + "/results.jsonl";
  WriteFileOrDie(output, results);
  const Finished imported = Exec(dir, {"import", run, output}, "import");
  ASSERT_TRUE(imported.exit_code == 0 || imported.exit_code == 1) << imported.err;
  const std::vector<nlohmann::json> records = ExportRecords(dir, run);
  ASSERT_EQ(records.size(), 2 * samples);
  std::set<std::string> answered_ids;
  for (const nlohmann::json& r : records) {
    ASSERT_EQ(r["status"], "answered") << r.dump();
    const std::string id = r["response"].get<std::string>().substr(std::string("answer to ").size());
    answered_ids.insert(id);
    // The answer of the request for this sample, and for this repeat: "s12-..." is
    // repeat 0's, "s12r1-..." repeat 1's.
    ASSERT_TRUE(prompt_of.contains(id)) << id;
    EXPECT_EQ(prompt_of.at(id), r["messages"].back()["content"]) << id;
    EXPECT_EQ(id.find("r1-") != std::string::npos, r["repeat"] == 1) << id;
  }
  EXPECT_EQ(answered_ids.size(), lines.size());

  // run --batch: each sample's two repeats are submitted and answered once each.
  FakeBatchServer batch([&](const std::string& prompt) -> std::string {
    const auto it = suite.by_prompt.find(prompt);
    return it == suite.by_prompt.end() ? "unknown prompt" : it->second.second;
  });
  ASSERT_TRUE(batch.Start().ok());
  const std::string batched = dir.path() + "/batched";
  const Finished b = Exec(dir, {"run", "--model", "openai/fake-model", "--base-url",
                                batch.base_url() + "/v1", "--samples", suite.path, "--out",
                                batched, "--no-cache", "--repeats", "2", "--batch",
                                "--batch-poll", "0.01"},
                          "batch");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.out.find(fmt::format("answered {0} of {0} requests", 2 * samples)), std::string::npos)
      << b.out;
  EXPECT_EQ(batch.online_requests(), 0);
  const auto sent = batch.answers_sent();
  EXPECT_EQ(sent.size(), samples);
  for (const auto& [prompt, n] : sent) EXPECT_EQ(n, 2) << prompt;
  const auto answers = Answers(ExportRecords(dir, batched));
  EXPECT_EQ(answers.size(), 2 * samples);
}

}  // namespace
}  // namespace repeats_cli_test
}  // namespace structtest
