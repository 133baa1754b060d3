// The HTML report's data and page on stores written here: every status, paragraphs
// shared between prompts and answers stored once, samples shared between runs stored
// once, and a page whose embedded data inflates back to exactly HtmlReportData's.
#include "report/html_report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sources/math_generator.h"
#include "store/run_store.h"
#include "tasks/registry.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

const std::string kDocument(300, 'd');  // a long paragraph, shared by two prompts

Sample Summary(const std::string& id, int n_points) {
  Sample s;
  s.id = id;
  s.domain = "summarization";
  s.subtask = "bullet_points";
  s.params = {{"n_points", n_points}, {"symbol", "*"}};
  s.messages = {{"user", kDocument + "\n\nSummarize in " + std::to_string(n_points) + " points."}};
  return s;
}

// Four samples: passed, failed, errored request, answered but not scored; a fifth unasked.
void WriteRun(const std::string& dir, bool first_passes) {
  auto store = RunStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)->Begin().ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE((*store)->AddSample(i, Summary("s" + std::to_string(i), i + 1)).ok());
  }
  for (int i = 0; i < 4; ++i) {
    StoredResponse r;
    r.ok = i != 2;
    r.text = i == 1 ? kDocument : "* a point";  // an answer repeating the document
    r.error = r.ok ? "" : "HTTP 500";
    r.latency_ms = 10 * i;
    ASSERT_TRUE((*store)->PutResponse(i, r).ok());
    if (i >= 2) continue;
    StoredVerdict v;
    v.pass = i == 0 ? first_passes : false;
    v.reason = v.pass ? "ok" : "expected more points";
    v.rules_version = "paper-1";
    ASSERT_TRUE((*store)->PutVerdict(i, "paper", v).ok());
  }
  ASSERT_TRUE((*store)->Commit().ok());
}

TEST(HtmlReportTest, RowsCarryEveryStatusAndSharedTextIsStoredOnce) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  WriteRun(a, true);
  WriteRun(b, false);
  auto data = HtmlReportData({a, b}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const nlohmann::json& d = *data;
  // The same five samples in both runs: stored once.
  EXPECT_EQ(d["samples"].size(), 5u);
  ASSERT_EQ(d["runs"].size(), 2u);
  std::vector<std::string> statuses;
  for (const auto& row : d["runs"][0]["rows"]) statuses.push_back(row[1]);
  EXPECT_EQ(statuses, (std::vector<std::string>{"pass", "fail", "error", "unscored", "unasked"}));
  EXPECT_EQ(d["runs"][1]["rows"][0][1], "fail");
  EXPECT_EQ(d["runs"][0]["rows"][2][4], "HTTP 500");
  EXPECT_EQ(d["runs"][0]["rows"][1][4], "expected more points");
  // The document: one chunk, referenced by every prompt and by the answer repeating it.
  ASSERT_EQ(d["chunks"].size(), 1u);
  EXPECT_EQ(d["chunks"][0], kDocument);
  EXPECT_EQ(d["samples"][3]["messages"][0][1], nlohmann::json::parse(R"([0, "Summarize in 4 points."])"));
  EXPECT_EQ(d["runs"][1]["rows"][1][2], nlohmann::json::parse("[0]"));
  // The figures are report.json's.
  EXPECT_EQ(d["runs"][0]["report"]["subtasks"][0]["passed"], 1);
  EXPECT_EQ(d["runs"][1]["report"]["subtasks"][0]["passed"], 0);
  EXPECT_EQ(d["runs"][0]["report"]["errored"], 1);
  // Both runs as baseline.
  ASSERT_EQ(d["compare"].size(), 2u);
  EXPECT_EQ(d["compare"][1]["baseline"], 1);
  EXPECT_TRUE(d["compare"][0].contains("result")) << d["compare"][0].dump();
  EXPECT_EQ(d["paper"]["table1"].get<std::string>().rfind("model,all,easy,hard", 0), 0u);
}

// A verdict whose checking failed (the sandbox timed out, say) is no verdict: the page
// shows the sample as answered but not scored, with the checker's error, not as a
// failed answer.
TEST(HtmlReportTest, ASampleWhoseCheckerFailedIsUnscoredNotFailed) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/run";
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE((*store)->Begin().ok());
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE((*store)->AddSample(i, Summary("s" + std::to_string(i), 2)).ok());
      StoredResponse r;
      r.ok = true;
      r.text = "* a\n* b";
      ASSERT_TRUE((*store)->PutResponse(i, r).ok());
      StoredVerdict v;
      v.pass = false;
      v.reason = i == 0 ? "expected 2 points, found 1" : "";
      v.error = i == 0 ? "" : "python worker: timed out after 10 s";
      v.rules_version = "paper-1";
      ASSERT_TRUE((*store)->PutVerdict(i, "paper", v).ok());
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto data = HtmlReportData({run}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const nlohmann::json& rows = (*data)["runs"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1], "fail");
  EXPECT_EQ(rows[1][1], "unscored");
  EXPECT_EQ(rows[1][4], "python worker: timed out after 10 s");
}

// A run of repeated samples: each sample's repeats follow it, each row pointing at its
// own sample and naming its repeat.
TEST(HtmlReportTest, EachRepeatsRowPointsAtItsOwnSample) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/run";
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    RunManifest manifest;
    manifest.model = "m";
    manifest.repeats = 2;
    ASSERT_TRUE((*store)->SetManifest(manifest).ok());
    ASSERT_TRUE((*store)->Begin().ok());
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE((*store)->AddSample(i, Summary("s" + std::to_string(i), i + 1)).ok());
      for (int rep = 0; rep < 2; ++rep) {
        StoredResponse r;
        r.ok = true;
        r.text = fmt::format("answer {} of repeat {}", i, rep);
        ASSERT_TRUE((*store)->PutResponse(i, r, rep).ok());
      }
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto data = HtmlReportData({run}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const nlohmann::json& d = *data;
  ASSERT_EQ(d["samples"].size(), 3u);
  const nlohmann::json& rows = d["runs"][0]["rows"];
  ASSERT_EQ(rows.size(), 6u);
  for (size_t k = 0; k < rows.size(); ++k) {
    const int64_t sample = rows[k][0], repeat = rows[k].back();
    EXPECT_EQ(sample, static_cast<int64_t>(k / 2)) << rows[k].dump();
    EXPECT_EQ(repeat, static_cast<int64_t>(k % 2)) << rows[k].dump();
    EXPECT_EQ(d["samples"][sample]["id"], fmt::format("s{}", sample));
    EXPECT_NE(rows[k][2].dump().find(fmt::format("answer {} of repeat {}", sample, repeat)),
              std::string::npos)
        << rows[k].dump();
  }
}

TEST(HtmlReportTest, PageEmbedsTheDataCompressedAndNothingToFetch) {
  testing::TempDir dir;
  WriteRun(dir.path() + "/a", true);
  auto data = HtmlReportData({dir.path() + "/a"}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  auto page = RenderHtmlReport({dir.path() + "/a"}, RuleSet::kPaper);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->find("{{"), std::string::npos) << "a placeholder was left";
  EXPECT_NE(page->find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_NE(page->find("vegaEmbed"), std::string::npos);
  EXPECT_EQ(page->find("<script src"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(testing::HtmlPageData(*page)), *data);
}

// Document k of the large run: 5,000 bytes, distinct for each k.
std::string LongDocument(int k) {
  return std::string(5000, static_cast<char>('a' + k % 26)) + std::to_string(k);
}

// More distinct paragraphs than the chunk index starts with room for, so that it grows
// several times: each is stored once, in the order first seen, and every prompt and
// every answer repeating a prompt points at its own.
TEST(HtmlReportTest, ThousandsOfDistinctParagraphsAreEachStoredOnceAndFound) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/many";
  constexpr int kDocuments = 2500;
  const auto paragraph = [](int k) { return "Paragraph " + std::to_string(k) + std::string(200, 'p'); };
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE((*store)->Begin().ok());
    for (int i = 0; i < 2 * kDocuments; ++i) {
      Sample s = Summary("s" + std::to_string(i), 3);
      s.messages[0].content = paragraph(i % kDocuments) + "\n\nSummarize.";
      ASSERT_TRUE((*store)->AddSample(i, s).ok());
      StoredResponse r;
      r.ok = true;
      r.text = "Again:\n\n" + paragraph((i * 7) % kDocuments);
      ASSERT_TRUE((*store)->PutResponse(i, r).ok());
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto data = HtmlReportData({run}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const nlohmann::json& d = *data;
  ASSERT_EQ(d["chunks"].size(), static_cast<size_t>(kDocuments));
  for (int k = 0; k < kDocuments; ++k) ASSERT_EQ(d["chunks"][k], paragraph(k)) << k;
  const nlohmann::json& rows = d["runs"][0]["rows"];
  ASSERT_EQ(rows.size(), static_cast<size_t>(2 * kDocuments));
  for (int i = 0; i < 2 * kDocuments; ++i) {
    ASSERT_EQ(d["samples"][i]["messages"][0][1][0], i % kDocuments) << i;
    ASSERT_EQ(rows[i][2], nlohmann::json::array({"Again:", (i * 7) % kDocuments})) << i;
  }
}

// Enough data (megabytes, many distinct long paragraphs, invalid UTF-8) to go through
// the compressor and the chunk store many times: the page and the file written as it
// is made hold exactly the document HtmlReportData gives.
TEST(HtmlReportTest, ALargeRunStreamsIntoThePageAndTheFileUnchanged) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/big";
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE((*store)->Begin().ok());
    for (int i = 0; i < 3000; ++i) {
      Sample s = Summary("s" + std::to_string(i), 3);
      // 300 distinct documents, each in ten prompts: 1.5 MB of paragraphs, more than the
      // paragraph store keeps in memory before it writes to its file.
      s.messages[0].content = LongDocument(i % 300) + "\n\nSummarize.";
      ASSERT_TRUE((*store)->AddSample(i, s).ok());
      StoredResponse r;
      r.ok = true;
      r.text = "* point " + std::to_string(i) + std::string(400 + i % 97, 'x') +
               (i % 500 == 0 ? "\xff\xfe bad" : "") + "\n\n" + s.messages[0].content;
      ASSERT_TRUE((*store)->PutResponse(i, r).ok());
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto data = HtmlReportData({run}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ((*data)["samples"].size(), 3000u);
  ASSERT_EQ((*data)["chunks"].size(), 300u);
  for (int k = 0; k < 300; ++k) EXPECT_EQ((*data)["chunks"][k], LongDocument(k)) << k;
  const std::string path = dir.path() + "/report.html";
  ASSERT_TRUE(WriteHtmlReport({run}, RuleSet::kPaper, path).ok());
  auto page = RenderHtmlReport({run}, RuleSet::kPaper);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(testing::ReadFileOrDie(path), *page);
  EXPECT_GT(data->dump().size(), size_t{2} << 20);  // many buffers through the compressor
  EXPECT_EQ(nlohmann::json::parse(testing::HtmlPageData(*page)), *data);
}

// A page's temporary file left by a process that died (a run killed while it wrote
// its page) is removed when the page is written again; one of a live process stays,
// and so does everything else in the folder.
TEST(HtmlReportTest, TemporaryPagesOfDeadProcessesAreRemoved) {
  testing::TempDir dir;
  WriteRun(dir.path() + "/a", true);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);  // its pid is no one's now
  const std::string page = dir.path() + "/report.html";
  const std::string dead = fmt::format("{}.{}.tmp", page, child);
  const std::string live = fmt::format("{}.{}.tmp", page, getppid());
  const std::string other = dir.path() + "/report.html.notes.tmp";
  for (const std::string& f : {dead, live, other}) testing::WriteFileOrDie(f, "half a page");
  ASSERT_TRUE(WriteHtmlReport({dir.path() + "/a"}, RuleSet::kPaper, page).ok());
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(other));
  EXPECT_FALSE(std::filesystem::exists(fmt::format("{}.{}.tmp", page, getpid())));
  EXPECT_NE(testing::ReadFileOrDie(page).find("<title>structtest report</title>"),
            std::string::npos);
}

// math_hard's plots read the reference's steps off its target: each sample's count is
// the number of steps of the word problem it was generated from, in every step style.
TEST(HtmlReportTest, MathHardSamplesCarryTheirTargetsStepCount) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/math";
  const std::vector<MathProblem> problems = GenerateMathProblems(/*seed=*/5, 40);
  SourceSet sources;
  sources.math_problems = problems;
  auto ref = FindSubtask("math", "math_hard");
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  auto store = RunStore::Open(run);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)->Begin().ok());
  constexpr int kSamples = 40;  // sample i asks problem i
  for (int i = 0; i < kSamples; ++i) {
    GenerateRequest request;
    request.seed = 5;
    request.index = i;
    request.sources = &sources;
    auto sample = ref->spec->generate(request);
    ASSERT_TRUE(sample.ok()) << sample.status().message();
    ASSERT_TRUE((*store)->AddSample(i, *sample).ok());
  }
  ASSERT_TRUE((*store)->Commit().ok());
  store->reset();
  auto data = HtmlReportData({run}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  std::set<std::string> styles;
  std::set<size_t> counts;
  ASSERT_EQ((*data)["samples"].size(), size_t{kSamples});
  for (size_t i = 0; i < kSamples; ++i) {
    const nlohmann::json& s = (*data)["samples"][i];
    const nlohmann::json& derived = s["derived"];
    ASSERT_TRUE(derived.contains("target_steps")) << s.dump();
    EXPECT_EQ(derived["target_steps"].get<size_t>(), problems[i].steps.size()) << s["params"].dump();
    styles.insert(derived["step_style"].get<std::string>());
    counts.insert(derived["target_steps"].get<size_t>());
    EXPECT_TRUE(derived["answer_phrase"].is_string());
  }
  EXPECT_EQ(styles.size(), 5u);  // every step style, the JSON ones too
  EXPECT_GT(counts.size(), 1u);
}

// The usage block of every run: tokens per subtask and in all, cost at the price given,
// and no cost where none is known.
TEST(HtmlReportTest, RunsCarryTheirTokenUsageAndCost) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a";
  WriteRun(a, true);
  Price price;
  price.input_per_mtok = 2;
  price.output_per_mtok = 8;
  price.source = "test";
  auto priced = HtmlReportData({a}, RuleSet::kPaper, {price});
  ASSERT_TRUE(priced.ok()) << priced.status().message();
  const nlohmann::json& usage = (*priced)["runs"][0]["report"]["usage"];
  ASSERT_TRUE(usage.is_object()) << (*priced)["runs"][0]["report"].dump();
  // Write stores no token counts: every answer (the errored request aside) reported none.
  EXPECT_EQ(usage["tokens"]["no_usage"], (*priced)["runs"][0]["report"]["answered"]);
  EXPECT_GT(usage["tokens"]["no_usage"], 0);
  EXPECT_EQ(usage["price"]["source"], "test");
  EXPECT_EQ(usage["subtasks"].size(), (*priced)["runs"][0]["report"]["subtasks"].size());
  // Without a price, and no report.json nor a listed model: no cost.
  auto unpriced = HtmlReportData({a}, RuleSet::kPaper);
  ASSERT_TRUE(unpriced.ok()) << unpriced.status().message();
  EXPECT_TRUE((*unpriced)["runs"][0]["report"]["usage"]["cost_usd"].is_null());
  EXPECT_TRUE((*unpriced)["runs"][0]["report"]["usage"]["price"].is_null());
  // A price per run: one for each.
  EXPECT_FALSE(HtmlReportData({a}, RuleSet::kPaper, {price, price}).ok());
}

// The target is stored as the text a person reads, field by field, not as JSON whose
// line breaks would show as \n: "answer" first, a number as its digits, and a paragraph
// the prompt holds as the prompt's chunk.
TEST(HtmlReportTest, TheTargetIsItsFieldsAsText) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/t";
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE((*store)->Begin().ok());
    Sample s = Summary("s0", 2);
    s.target = {{"total_tags", 12}, {"answer", "* one\n* two\n\n" + kDocument}, {"gold", "7"}};
    ASSERT_TRUE((*store)->AddSample(0, s).ok());
    Sample t = Summary("s1", 2);
    t.target = "plain\ntext";
    ASSERT_TRUE((*store)->AddSample(1, t).ok());
    ASSERT_TRUE((*store)->AddSample(2, Summary("s2", 2)).ok());  // no target
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto data = HtmlReportData({run}, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const nlohmann::json& samples = (*data)["samples"];
  EXPECT_EQ(samples[0]["target"], nlohmann::json::parse(
      R"([["answer", ["* one\n* two", 0]], ["gold", ["7"]], ["total_tags", ["12"]]])"))
      << samples[0]["target"].dump();
  EXPECT_EQ(samples[1]["target"], nlohmann::json::parse(R"([["", ["plain\ntext"]]])"));
  EXPECT_EQ(samples[2]["target"], nlohmann::json::array());
}

// A run of --model builtin/NAME carries the responder's name, so that the page keeps it
// out of the paper's rankings; a model's run (even one whose name holds "builtin") does not.
TEST(HtmlReportTest, BuiltinRunsAreMarkedAsSuch) {
  testing::TempDir dir;
  const std::vector<std::pair<std::string, nlohmann::json>> runs = {
      {"cheat", {{"model", "builtin/loophole"}, {"endpoint", "builtin"}}},
      {"model", {{"model", "openai/builtin/x"}, {"endpoint", "http://localhost/v1"}}},
      {"none", nlohmann::json()}};
  std::vector<std::string> dirs;
  for (const auto& [name, manifest] : runs) {
    dirs.push_back(dir.path() + "/" + name);
    WriteRun(dirs.back(), true);
    if (manifest.is_null()) continue;
    auto store = RunStore::Open(dirs.back());
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE((*store)->SetManifest(*RunManifest::FromJson(manifest, "run.db")).ok());
  }
  auto data = HtmlReportData(dirs, RuleSet::kPaper);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ((*data)["runs"][0]["builtin"], "loophole");
  EXPECT_TRUE((*data)["runs"][1]["builtin"].is_null());
  EXPECT_TRUE((*data)["runs"][2]["builtin"].is_null());
}

TEST(HtmlReportTest, AnUnwritablePathIsAnErrorNamingIt) {
  testing::TempDir dir;
  WriteRun(dir.path() + "/a", true);
  const Status s = WriteHtmlReport({dir.path() + "/a"}, RuleSet::kPaper,
                                   dir.path() + "/no/such/dir/report.html");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no/such/dir/report.html"), std::string::npos) << s.message();
}

TEST(HtmlReportTest, ADirectoryWithoutARunIsRefused) {
  testing::TempDir dir;
  auto data = HtmlReportData({dir.path() + "/nothing"}, RuleSet::kPaper);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find(dir.path() + "/nothing"), std::string::npos)
      << data.status().message();
}

}  // namespace
}  // namespace structtest
