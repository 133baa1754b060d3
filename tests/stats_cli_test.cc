// `structtest compare` and `structtest correlate` as a user runs them: the real binary
// on runs of the built-in responders and of scripted models behind a loopback server.
// The flips are checked against the runs' exported verdicts, McNemar's and Holm's
// p-values and Table 4's correlations against python3 (testing/stats_oracle.py), and the
// refusals by their messages and exit status.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "store/run_store.h"
#include "testing/fake_server.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace stats_cli_test {
namespace {

using ::structtest::testing::FakeHttpReply;
using ::structtest::testing::FakeHttpRequest;
using ::structtest::testing::FakeHttpServer;
using ::structtest::testing::OpenAiCompletionBody;
using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::SourceDir;
using ::structtest::testing::TempDir;

struct Result {
  int exit_code;
  std::string out, err;
};

Result RunStructtest(const TempDir& dir, const std::string& args) {
  const std::string out = dir.path() + "/stdout", err = dir.path() + "/stderr";
  // HOME is the test's folder and no cache is named: nothing lands in the user's ~/.cache.
  const std::string cmd = "env -u STRUCTTEST_CACHE HOME='" + dir.path() + "' '" +
                          STRUCTTEST_BINARY + "' " + args + " >'" + out + "' 2>'" + err +
                          "' </dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFileOrDie(out), ReadFileOrDie(err)};
}

std::string Python(const std::string& args) {
  const std::string cmd = "python3 '" + SourceDir() + "/testing/stats_oracle.py' " + args;
  std::FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd;
  return out;
}

constexpr const char* kSuite = "--tasks html,math --size 0.05";

// The samples of kSuite: prompt -> (id, reference answer).
std::map<std::string, std::pair<std::string, std::string>> Prompts(const TempDir& dir) {
  const std::string path = dir.path() + "/samples.jsonl";
  const Result g = RunStructtest(dir, fmt::format("generate {} --out '{}'", kSuite, path));
  EXPECT_EQ(g.exit_code, 0) << g.err;
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::istringstream lines(ReadFileOrDie(path));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    out[j["messages"].back()["content"]] = {j["id"], j["target"]["answer"]};
  }
  return out;
}

// A model that answers sample `id` rightly when right(id), fails its request (HTTP 500)
// when error(id), and otherwise answers wrongly.
class ScriptedModel {
 public:
  using Rule = bool (*)(uint64_t);
  ScriptedModel(const std::map<std::string, std::pair<std::string, std::string>>& prompts,
                Rule right, Rule error)
      : server_([&prompts, right, error](const FakeHttpRequest& req) {
          FakeHttpReply reply;
          const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
          const auto it = prompts.find(body["messages"].back()["content"].get<std::string>());
          if (it == prompts.end()) {
            reply.status = 400;
            reply.body = R"({"error":{"message":"unknown prompt"}})";
            return reply;
          }
          const uint64_t h = Fnv1a(it->second.first);
          if (error(h)) {
            reply.status = 500;
            reply.body = R"({"error":{"message":"scripted failure"}})";
            return reply;
          }
          reply.body = OpenAiCompletionBody(right(h) ? it->second.second : "I would rather not.");
          return reply;
        }) {
    EXPECT_TRUE(server_.Start().ok());
  }
  std::string url() const { return server_.base_url() + "/v1"; }

 private:
  FakeHttpServer server_;
};

// id -> pass for the answered samples of a run, and id -> subtask.
struct Verdicts {
  std::map<std::string, bool> pass;
  std::map<std::string, std::string> subtask;
};

Verdicts ExportVerdicts(const TempDir& dir, const std::string& run) {
  const std::string path = dir.path() + "/export.jsonl";
  const Result e = RunStructtest(dir, fmt::format("export '{}' --output '{}'", run, path));
  EXPECT_EQ(e.exit_code, 0) << e.err;
  Verdicts v;
  std::istringstream lines(ReadFileOrDie(path));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    v.pass[j["id"]] = j["verdict"]["pass"];
    v.subtask[j["id"]] = j["subtask"];
  }
  return v;
}

class CompareCliTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("OPENAI_API_KEY", "sk-compare-test", 1); }
  void TearDown() override { unsetenv("OPENAI_API_KEY"); }
};

TEST_F(CompareCliTest, FlipsAndTestsMatchTheExportedVerdictsAndPython) {
  TempDir dir;
  const auto prompts = Prompts(dir);
  ASSERT_GT(prompts.size(), 100u);
  const std::string a = dir.path() + "/oracle", b = dir.path() + "/b", c = dir.path() + "/c";
  Result r = RunStructtest(
      dir, fmt::format("run --model builtin/oracle {} --out '{}' --quiet", kSuite, a));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  {
    // B: two thirds right, one sample in 13 errored (--retries 0).
    ScriptedModel model(prompts, [](uint64_t h) { return h % 3 != 0; },
                        [](uint64_t h) { return h % 13 == 5; });
    r = RunStructtest(dir, fmt::format("run --model openai/fake --base-url {} {} --out '{}' "
                                       "--retries 0 --no-cache --quiet",
                                       model.url(), kSuite, b));
    ASSERT_EQ(r.exit_code, 1) << r.err;  // some requests errored
  }
  {
    ScriptedModel model(prompts, [](uint64_t h) { return (h >> 7) % 2 == 0; },
                        [](uint64_t) { return false; });
    r = RunStructtest(dir, fmt::format("run --model openai/fake --base-url {} {} --out '{}' "
                                       "--no-cache --quiet",
                                       model.url(), kSuite, c));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const Verdicts va = ExportVerdicts(dir, a), vb = ExportVerdicts(dir, b),
                 vc = ExportVerdicts(dir, c);
  ASSERT_EQ(va.pass.size(), prompts.size());
  const size_t errored_b = prompts.size() - vb.pass.size();
  ASSERT_GT(errored_b, 0u);

  // B, with its errors, is the baseline: against the oracle every flip is fail -> pass,
  // against C they go both ways.
  r = RunStructtest(dir, fmt::format("compare '{}' '{}' '{}' --format json --flips", b, a, c));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["comparisons"].size(), 2u);
  const std::vector<const Verdicts*> others = {&va, &vc};
  int64_t both_ways[2] = {0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const nlohmann::json& cmp = j["comparisons"][i];
    const Verdicts& vo = *others[i];
    SCOPED_TRACE(cmp["b"]["dir"].get<std::string>());
    EXPECT_EQ(cmp["shared"], prompts.size());
    EXPECT_EQ(cmp["left_out"]["errored_a"], errored_b);
    EXPECT_EQ(cmp["left_out"]["errored_b"], 0);
    EXPECT_EQ(cmp["paired"], vb.pass.size());
    // Flips per subtask, from the exports.
    std::map<std::string, std::pair<int64_t, int64_t>> flips;  // subtask -> p->f, f->p
    for (const auto& [id, pass] : vb.pass) {
      const bool other = vo.pass.at(id);
      if (pass && !other) ++flips[vb.subtask.at(id)].first;
      if (!pass && other) ++flips[vb.subtask.at(id)].second;
    }
    std::string p_list;
    std::vector<double> holm_seen;
    size_t listed = 0;
    for (const nlohmann::json& s : cmp["subtasks"]) {
      const std::string subtask = s["subtask"];
      EXPECT_EQ(s["pass_to_fail"], flips[subtask].first) << subtask;
      EXPECT_EQ(s["fail_to_pass"], flips[subtask].second) << subtask;
      listed += flips[subtask].first + flips[subtask].second;
      if (i == 1) {
        both_ways[0] += flips[subtask].first;
        both_ways[1] += flips[subtask].second;
      }
      const double p = std::stod(Python(fmt::format("mcnemar {} {}", flips[subtask].first,
                                                    flips[subtask].second)));
      EXPECT_NEAR(s["mcnemar_p"].get<double>(), p, 1e-9 * p + 1e-300) << subtask;
      p_list += fmt::format(" {:.17g}", s["mcnemar_p"].get<double>());
      holm_seen.push_back(s["holm_p"]);
      // B - A on the shared samples, and its interval around it.
      const double diff = s["difference"];
      EXPECT_NEAR(diff, s["b"].get<double>() - s["a"].get<double>(), 1e-12);
      EXPECT_LE(s["ci"]["low"].get<double>(), diff);
      EXPECT_GE(s["ci"]["high"].get<double>(), diff);
    }
    EXPECT_EQ(cmp["subtasks"].size(), 4u);
    std::istringstream holm(Python("holm" + p_list));
    for (double want : holm_seen) {
      double from_python = -1;
      holm >> from_python;
      EXPECT_NEAR(want, from_python, 1e-12);
    }
    EXPECT_EQ(cmp["flips"].size(), listed);
    const nlohmann::json& html_easy = cmp["domains"]["html"]["easy"];
    EXPECT_LE(html_easy["ci"]["low"].get<double>(), html_easy["difference"].get<double>());
    EXPECT_GE(html_easy["ci"]["high"].get<double>(), html_easy["difference"].get<double>());
  }
  EXPECT_GT(both_ways[0], 0);
  EXPECT_GT(both_ways[1], 0);
  // Every flip of B against the oracle is fail -> pass, with both reasons.
  for (const nlohmann::json& f : j["comparisons"][0]["flips"]) {
    EXPECT_EQ(f["flip"], "fail_to_pass");
    EXPECT_FALSE(f["reason_a"].get<std::string>().empty());
    EXPECT_FALSE(f["reason_b"].get<std::string>().empty());
  }

  // The text and markdown show the same figures.
  r = RunStructtest(dir, fmt::format("compare '{}' '{}' --flips", b, a));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(fmt::format("{} shared samples, {} scored in both; left out: {} errored "
                                   "in A, 0 errored in B",
                                   prompts.size(), vb.pass.size(), errored_b)),
            std::string::npos)
      << r.out;
  const nlohmann::json& first = j["comparisons"][0]["subtasks"][0];
  EXPECT_NE(r.out.find(fmt::format("html           html_easy                easy  {:>5} {:>7.2f} "
                                   "{:>7.2f}",
                                   first["n"].get<int64_t>(), first["a"].get<double>(),
                                   first["b"].get<double>())),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL->PASS "), std::string::npos);
  r = RunStructtest(dir, fmt::format("compare '{}' '{}' --format markdown", b, a));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| html | html_easy | easy |"), std::string::npos) << r.out;
  // The same bytes every time.
  EXPECT_EQ(RunStructtest(dir, fmt::format("compare '{}' '{}' --format markdown", b, a)).out,
            r.out);
}
TEST_F(CompareCliTest, RunsOfDifferentSizesAreComparedOnWhatTheyShare) {
  TempDir dir;
  const std::string big = dir.path() + "/big", small = dir.path() + "/small";
  ASSERT_EQ(RunStructtest(
                dir, fmt::format("run --model builtin/oracle {} --out '{}' --quiet", kSuite, big))
                .exit_code,
            0);
  ASSERT_EQ(RunStructtest(dir, fmt::format("run --model builtin/null --tasks html,math --size 0.02 "
                                           "--out '{}' --quiet",
                                           small))
                .exit_code,
            0);
  const Result r = RunStructtest(dir, fmt::format("compare '{}' '{}' --format json", big, small));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json cmp = nlohmann::json::parse(r.out)["comparisons"][0];
  EXPECT_EQ(cmp["shared"], cmp["b"]["samples"]);
  EXPECT_EQ(cmp["only_a"].get<int64_t>(), cmp["a"]["samples"].get<int64_t>() - cmp["b"]["samples"].get<int64_t>());
  EXPECT_EQ(cmp["only_b"], 0);
  EXPECT_EQ(cmp["domains"]["math"]["hard"]["difference"], -100.0);
  // All passing against all failing is not a certain -100: the interval has width.
  EXPECT_EQ(cmp["domains"]["math"]["hard"]["ci"]["low"], -100.0);
  EXPECT_GT(cmp["domains"]["math"]["hard"]["ci"]["high"].get<double>(), -100.0);
  EXPECT_EQ(cmp["domains"]["math"]["hard"]["subtasks"]["complete"], true);
}

// Every "[low, high]" of a text report, as numbers.
std::vector<std::pair<double, double>> Brackets(const std::string& text) {
  std::vector<std::pair<double, double>> out;
  for (size_t at = text.find('['); at != std::string::npos; at = text.find('[', at + 1)) {
    double low = 0, high = 0;
    if (std::sscanf(text.c_str() + at, "[%lf, %lf]", &low, &high) == 2) out.push_back({low, high});
  }
  return out;
}

// examples/demo.jsonl has one or two samples of most subtasks and one code Hard
// subtask: no interval claims certainty, and the figures over fewer subtasks than the
// paper's say so.
TEST(ScoreCliTest, TheDemoShowsNoCertaintyAndWhichFiguresArePartial) {
  TempDir dir;
  const Result r = RunStructtest(dir, "score -i '" + SourceDir() + "/examples/demo.jsonl'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto brackets = Brackets(r.out);
  ASSERT_GT(brackets.size(), 20u) << r.out;
  for (const auto& [low, high] : brackets) EXPECT_LT(low, high) << r.out;
  // The subtasks per domain split, as `structtest tasks` lists them, and the demo's.
  const Result tasks = RunStructtest(dir, "tasks");
  ASSERT_EQ(tasks.exit_code, 0) << tasks.err;
  std::map<std::string, std::string> split_of;  // domain/subtask -> split
  std::istringstream lines(tasks.out);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string domain, subtask, split;
    words >> domain >> subtask >> split;
    split_of[domain + "/" + subtask] = split;
  }
  std::map<std::string, std::set<std::string>> defined, scored;  // domain/split -> subtasks
  for (const auto& [key, split] : split_of) {
    defined[key.substr(0, key.find('/')) + "/" + split].insert(key);
  }
  std::istringstream records(ReadFileOrDie(SourceDir() + "/examples/demo.jsonl"));
  while (std::getline(records, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const std::string key = j["domain"].get<std::string>() + "/" + j["subtask"].get<std::string>();
    scored[j["domain"].get<std::string>() + "/" + split_of.at(key)].insert(key);
  }
  ASSERT_LT(scored["code/hard"].size(), defined["code/hard"].size());
  EXPECT_NE(r.out.find(fmt::format("(Hard from {} of {} subtasks)\n", scored["code/hard"].size(),
                                   defined["code/hard"].size())),
            std::string::npos)
      << r.out;
  size_t all_scored = 0, all_defined = 0;
  for (const auto& [key, set] : defined) {
    all_defined += set.size();
    all_scored += scored[key].size();
  }
  ASSERT_LT(all_scored, all_defined);
  const size_t all = r.out.find("\nAll ");
  ASSERT_NE(all, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(all + 1, r.out.find('\n', all + 1) - all - 1)
                .ends_with(fmt::format("(from {} of {} subtasks)", all_scored, all_defined)),
            true)
      << r.out;
  EXPECT_NE(r.out.find("\npartial: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("exact variance"), std::string::npos) << r.out;
}

TEST_F(CompareCliTest, UnusableRunsAreRefusedWithTheReason) {
  TempDir dir;
  const std::string a = dir.path() + "/a";
  ASSERT_EQ(
      RunStructtest(dir, fmt::format("run --model builtin/oracle {} --out '{}' --quiet", kSuite, a))
          .exit_code,
      0);

  Result r = RunStructtest(dir, fmt::format("compare '{}' /nonexistent/run", a));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "structtest: error: /nonexistent/run: no run here (no run.db)\n");
  r = RunStructtest(dir, fmt::format("compare '{}'", a));
  EXPECT_EQ(r.exit_code, 2);

  // Another seed: the same ids name other samples.
  const std::string seed = dir.path() + "/seed1";
  ASSERT_EQ(
      RunStructtest(dir, fmt::format("run --model builtin/oracle {} --seed 1 --out '{}' --quiet",
                                     kSuite, seed))
          .exit_code,
      0);
  r = RunStructtest(dir, fmt::format("compare '{}' '{}'", a, seed));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(fmt::format("structtest: error: {} and {} share no samples: ", a, seed)),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sample ids are in both, but name other samples"), std::string::npos) << r.err;

  // Other subtasks: no id in common.
  const std::string other = dir.path() + "/questions";
  ASSERT_EQ(
      RunStructtest(dir, fmt::format("run --model builtin/oracle --tasks questions --size 0.01 "
                                     "--out '{}' --quiet",
                                     other))
          .exit_code,
      0);
  r = RunStructtest(dir, fmt::format("compare '{}' '{}'", a, other));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("share no samples: no sample id is in both"), std::string::npos) << r.err;

  // Verdicts of another checker version (an older structtest): refused, saying how to
  // rescore.
  const std::string old = dir.path() + "/old";
  ASSERT_EQ(
      RunStructtest(dir, fmt::format("run --model builtin/null {} --out '{}' --quiet", kSuite, old))
          .exit_code,
      0);
  {
    auto store = RunStore::Open(old);
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<std::pair<int64_t, StoredVerdict>> html;
    ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& row) {
      if (row.sample.domain == "html" && row.verdict) html.push_back({row.index, *row.verdict});
      return Status::Ok();
    }).ok());
    ASSERT_FALSE(html.empty());
    ASSERT_TRUE((*store)->Begin().ok());
    for (auto& [index, verdict] : html) {
      verdict.rules_version = "paper-0";
      ASSERT_TRUE((*store)->PutVerdict(index, "paper", verdict).ok());
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  r = RunStructtest(dir, fmt::format("compare '{}' '{}'", a, old));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(fmt::format("structtest: error: {} and {} were scored under different "
                                   "rules (html: paper-2 in {}, paper-0 in {}); rescore {} with "
                                   "this build (html paper-2) first",
                                   a, old, a, old, old)),
            std::string::npos)
      << r.err;
  const std::string fix = fmt::format("structtest rescore {} --rules paper", old);
  EXPECT_NE(r.err.find("'" + fix + "'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.back(), '\n');
  EXPECT_NE(r.err[r.err.size() - 2], '.');
  // The command the message suggests fixes it.
  ASSERT_EQ(RunStructtest(dir, fix.substr(strlen("structtest "))).exit_code, 0);
  EXPECT_EQ(RunStructtest(dir, fmt::format("compare '{}' '{}'", a, old)).exit_code, 0);

  r = RunStructtest(dir, fmt::format("compare '{}' '{}' --format yaml", a, a));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format yaml: expected text, markdown or json"), std::string::npos);
}

TEST(CorrelateCliTest, Table4IsTheExampleAndMatchesPython) {
  TempDir dir;
  Result r = RunStructtest(dir, "correlate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json oracle = nlohmann::json::parse(
      ReadFileOrDie(SourceDir() + "/src/report/testdata/stats_oracle.json"))["table4"];
  EXPECT_EQ(j["models"].size(), 14u);
  ASSERT_EQ(j["pairs"].size(), oracle.size());
  for (size_t i = 0; i < oracle.size(); ++i) {
    const nlohmann::json& got = j["pairs"][i];
    const nlohmann::json& want = oracle[i];
    EXPECT_EQ(got["x"], want["x"]);
    EXPECT_EQ(got["y"], want["y"]);
    EXPECT_EQ(got["n"], want["n"]);
    EXPECT_NEAR(got["pearson"]["value"].get<double>(), want["pearson"].get<double>(), 1e-12);
    EXPECT_NEAR(got["pearson"]["low"].get<double>(), want["pearson_ci"][0].get<double>(), 1e-12);
    EXPECT_NEAR(got["pearson"]["high"].get<double>(), want["pearson_ci"][1].get<double>(), 1e-12);
    EXPECT_NEAR(got["spearman"]["value"].get<double>(), want["spearman"].get<double>(), 1e-12);
    EXPECT_NEAR(got["spearman"]["low"].get<double>(), want["spearman_ci"][0].get<double>(), 1e-12);
    EXPECT_NEAR(got["spearman"]["high"].get<double>(), want["spearman_ci"][1].get<double>(), 1e-12);
  }
  // The text names n and shows the figures README reports next to the paper's.
  r = RunStructtest(dir, "correlate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("14 models; numeric columns: structtest arena mmlu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("structtest  arena   14      0.910  [ 0.733,  0.971]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("structtest  mmlu    14      0.970  [ 0.905,  0.991]"), std::string::npos) << r.out;
  // The same table from the data file gives the same figures.
  const Result from_file =
      RunStructtest(dir, "correlate '" + SourceDir() + "/data/paper/table4_correlation.csv'");
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.out.substr(from_file.out.find("\n")), r.out.substr(r.out.find("\n")));
}

TEST(CorrelateCliTest, RunsAddTheirScoresAsColumns) {
  TempDir dir;
  const std::string oracle = dir.path() + "/oracle", null = dir.path() + "/null";
  ASSERT_EQ(RunStructtest(dir, fmt::format("run --model builtin/oracle {} --out '{}' --quiet",
                                           kSuite, oracle))
                .exit_code,
            0);
  ASSERT_EQ(RunStructtest(
                dir, fmt::format("run --model builtin/null {} --out '{}' --quiet", kSuite, null))
                .exit_code,
            0);
  const std::string csv = dir.path() + "/models.csv";
  testing::WriteFileOrDie(csv, "model,elo,size\nbig,1300,70\nsmall,1000,7\nmid,1150,\n");
  Result r =
      RunStructtest(dir, fmt::format("correlate '{}' --run big='{}' --run SMALL='{}' --format json",
                                     csv, oracle, null));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["models"], (nlohmann::json{"big", "small", "mid"}));  // SMALL is small's row
  ASSERT_EQ(j["columns"].size(), 2u + 11u);
  EXPECT_EQ(j["columns"][2], "run_all");
  for (const nlohmann::json& p : j["pairs"]) {
    if (p["x"] == "elo" && p["y"] == "size") {
      EXPECT_EQ(p["n"], 2);  // mid has no size
    }
    if (p["x"] == "elo" && p["y"] == "run_html_easy") {
      EXPECT_EQ(p["n"], 2);
    }
  }
  r = RunStructtest(
      dir, fmt::format("correlate '{}' --run big='{}' --run small='{}' --run mid='{}'", csv, oracle,
                       null, oracle));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("elo            run_html_easy    3      0.866"), std::string::npos) << r.out;

  r = RunStructtest(dir, "correlate /nonexistent/models.csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "structtest: error: /nonexistent/models.csv: No such file or directory\n");
  r = RunStructtest(dir, fmt::format("correlate '{}' --run big", csv));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "structtest: error: --run big: expected MODEL=RUN_DIR\n");
  r = RunStructtest(dir, fmt::format("correlate '{}' --run big=/nonexistent/run", csv));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "structtest: error: /nonexistent/run: no run here (no run.db)\n");
  r = RunStructtest(dir,
                    fmt::format("correlate '{}' --run big='{}' --run BIG='{}'", csv, oracle, null));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("big already has a run's scores"), std::string::npos) << r.err;
  testing::WriteFileOrDie(csv, "name,elo\nbig,1300\n");
  r = RunStructtest(dir, fmt::format("correlate '{}'", csv));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, fmt::format("structtest: error: {}:1: no 'model' column in the header\n", csv));
}

}  // namespace
}  // namespace stats_cli_test
}  // namespace structtest
