// The paper rule set against the recorded verdicts of the StructTest reference: every
// file under ../shared/conformance/dev is scored and each verdict compared with
// reference.result (math: also reference.format and reference.accuracy). Bar: 100.00%
// per file. The sentence counts use the built-in Punkt model (data/nltk_data), and one
// test shows it gives the verdicts of the shared copy of NLTK's model on every
// sentence-counting record. Needs ../shared; skips with a message when it is absent.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/jsonl.h"
#include "report/tally.h"
#include "structtest/sample.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "testing/test_support.h"
#include "sandbox/python_pool.h"
#include "text/punkt.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

struct FileResult {
  std::string file;
  int64_t records = 0;
  int64_t agree = 0;
  std::vector<std::string> mismatches;  // first few, for the log
  double accuracy = 0;  // the subtask's score as the report computes it
};

bool RefBool(const nlohmann::json& ref, const char* key) {
  const auto& v = ref.at(key);
  return v.is_boolean() ? v.get<bool>() : v.get<int>() != 0;
}

FileResult ScoreFile(const fs::path& path, const CheckEnv& env) {
  FileResult fr;
  Tally tally;
  fr.file = path.parent_path().filename().string() + "/" + path.filename().string();
  auto reader = JsonlReader::Open(path.string());
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  if (!reader.ok()) return fr;
  nlohmann::json line;
  std::string problem;
  for (;;) {
    const auto r = (*reader)->Next(&line, &problem);
    if (r == JsonlReader::Result::kEnd) break;
    EXPECT_EQ(r, JsonlReader::Result::kRecord) << problem;
    if (r != JsonlReader::Result::kRecord) continue;
    auto rec = RecordFromJson(line);
    EXPECT_TRUE(rec.ok()) << rec.status().message();
    if (!rec.ok()) continue;
    ++fr.records;
    const nlohmann::json& ref = line.at("reference");
    auto v = ScoreResponse(rec->sample, rec->response.text, RuleSet::kPaper, env);
    std::string ours, theirs;
    bool same;
    if (!v.ok()) {
      same = false;
      ours = "error: " + v.status().message();
    } else {
      ours = fmt::format("pass={}", v->pass);
      same = v->pass == (ref.at("result").get<int>() == 1);
      if (rec->sample.domain == "math") {
        ours += fmt::format(" format={} accuracy={}", v->format.value_or(false),
                            v->accuracy.value_or(false));
        same = same && v->format.value_or(false) == RefBool(ref, "format") &&
               v->accuracy.value_or(false) == RefBool(ref, "accuracy");
      }
      ours += " (" + v->reason + ")";
    }
    theirs = ref.dump();
    if (v.ok()) {
      tally.Add(rec->sample, *v);
    } else {
      tally.AddError(rec->sample);
    }
    if (same) {
      ++fr.agree;
    } else if (fr.mismatches.size() < 10) {
      fr.mismatches.push_back(
          fmt::format("  id {}: ours {} / reference {}", rec->sample.id, ours, theirs));
    }
  }
  const auto subtasks = tally.Subtasks();
  if (subtasks.size() == 1) fr.accuracy = subtasks[0]->Accuracy();
  return fr;
}

// The dev corpus files of `subtasks`, every model's, in a stable order.
std::vector<fs::path> DevFiles(const std::vector<std::string>& subtasks) {
  const fs::path dev = fs::path(::structtest::testing::SharedDir()) / "conformance" / "dev";
  EXPECT_TRUE(fs::is_directory(dev)) << dev;
  std::vector<fs::path> files;
  if (!fs::is_directory(dev)) return files;
  for (const auto& model : fs::directory_iterator(dev)) {
    if (!model.is_directory()) continue;
    for (const std::string& subtask : subtasks) {
      const fs::path f = model.path() / (subtask + ".jsonl");
      if (fs::exists(f)) files.push_back(f);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ConformanceTest : public ::testing::Test {
 protected:
  void RunDomain(const std::vector<std::string>& subtasks) {
    SKIP_WITHOUT_SHARED();
    const std::vector<fs::path> files = DevFiles(subtasks);
    ASSERT_FALSE(files.empty());
    const std::unique_ptr<SentenceSplitter> splitter =
        ::structtest::testing::BuiltinSentenceSplitter();
    PythonPool python;
    CheckEnv env;
    env.sentences = splitter.get();
    env.python = &python;

    const auto figures = ::structtest::testing::ManifestFigures();
    int64_t total = 0, agree = 0;
    for (const fs::path& f : files) {
      const FileResult fr = ScoreFile(f, env);
      // The report's figure must be the published one, to the two decimals printed.
      const auto fig = figures.find(fr.file);
      ASSERT_NE(fig, figures.end()) << fr.file << " is not in the manifest";
      EXPECT_NEAR(fr.accuracy, fig->second, 0.005) << fr.file << ": report figure";
      total += fr.records;
      agree += fr.agree;
      const double pct = fr.records ? 100.0 * fr.agree / fr.records : 0.0;
      std::printf("conformance %-55s %6lld/%-6lld %7.2f%%\n", fr.file.c_str(),
                  static_cast<long long>(fr.agree), static_cast<long long>(fr.records), pct);
      for (const auto& m : fr.mismatches) std::printf("%s\n", m.c_str());
      EXPECT_EQ(fr.agree, fr.records) << fr.file << ": " << fr.records - fr.agree
                                      << " verdicts differ from the reference";
      EXPECT_GT(fr.records, 0) << fr.file;
    }
    std::printf("conformance total: %lld/%lld (%.2f%%) over %zu files\n",
                static_cast<long long>(agree), static_cast<long long>(total),
                total ? 100.0 * agree / total : 0.0, files.size());
  }
};

TEST_F(ConformanceTest, Summarization) {
  RunDomain({"length", "bullet_points", "numbered_points", "questions",
             "bullet_points_length", "numbered_points_length", "indented_bullet_points"});
}

TEST_F(ConformanceTest, Html) { RunDomain({"html_easy", "html_hard"}); }

TEST_F(ConformanceTest, Math) { RunDomain({"math_easy", "math_hard"}); }

// Every file, the code files included (and simulate_execute's figure per task), is also
// scored through `structtest score` by tests/output_digest_test.cc, which checks each
// paper verdict against the reference and the printed pass% against the published
// figure; it also pins strict's verdicts and checks them one by one.

// The built-in model against the shared copy of NLTK's: every record of every
// sentence-counting subtask gets the same verdict and reason from both, under both
// rule sets.
TEST(BuiltinPunktTest, GivesTheSharedModelsVerdictsOnEverySentenceCountingRecord) {
  SKIP_WITHOUT_SHARED();
  const std::string shared_dir = ::structtest::testing::SharedNltkData();
  ASSERT_FALSE(shared_dir.empty()) << "../shared has no nltk_data";
  auto shared = SentenceSplitter::Load(shared_dir);
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  ASSERT_NE((*shared)->source(), SentenceSplitter::kBuiltinSource);
  const std::unique_ptr<SentenceSplitter> builtin =
      ::structtest::testing::BuiltinSentenceSplitter();
  CheckEnv with_builtin, with_shared;
  with_builtin.sentences = builtin.get();
  with_shared.sentences = shared->get();
  std::vector<std::string> subtasks;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& spec : f->subtasks) {
      if (spec.needs_sentences) subtasks.emplace_back(spec.name);
    }
  }
  const std::vector<fs::path> files = DevFiles(subtasks);
  ASSERT_FALSE(files.empty());
  int64_t compared = 0;
  for (const fs::path& path : files) {
    auto reader = JsonlReader::Open(path.string());
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    nlohmann::json line;
    std::string problem;
    while ((*reader)->Next(&line, &problem) == JsonlReader::Result::kRecord) {
      auto rec = RecordFromJson(line);
      ASSERT_TRUE(rec.ok()) << path << ": " << rec.status().message();
      for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
        auto a = ScoreResponse(rec->sample, rec->response.text, rules, with_builtin);
        auto b = ScoreResponse(rec->sample, rec->response.text, rules, with_shared);
        ASSERT_TRUE(a.ok() && b.ok()) << path << ": " << rec->sample.id;
        EXPECT_EQ(a->pass, b->pass) << path << ": " << rec->sample.id;
        EXPECT_EQ(a->reason, b->reason) << path << ": " << rec->sample.id;
        ++compared;
      }
    }
  }
  std::printf("built-in Punkt model: %lld verdicts in %zu files identical to the shared "
              "model's\n",
              static_cast<long long>(compared), files.size());
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace structtest
