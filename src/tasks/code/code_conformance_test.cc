// The code family's paper rules against the recorded verdicts of the StructTest
// reference: every dev/<model>/<code subtask>.jsonl under ../shared/conformance is
// scored and each verdict compared with reference.result. Bar: 100.00% per file.
// Samples are scored on two threads with a pool of two workers (test_case_inputs_gen
// and simulate_execute make thousands of job requests). Skips without ../shared.
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/jsonl.h"
#include "sandbox/python_pool.h"
#include "report/tally.h"
#include "tasks/code/family.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;

constexpr int kThreads = 2;

struct Record {
  ScoredRecord record;
  int reference = 0;
};

std::vector<Record> Load(const fs::path& path) {
  std::vector<Record> out;
  auto reader = JsonlReader::Open(path.string());
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  if (!reader.ok()) return out;
  nlohmann::json line;
  std::string problem;
  while ((*reader)->Next(&line, &problem) == JsonlReader::Result::kRecord) {
    auto rec = RecordFromJson(line);
    EXPECT_TRUE(rec.ok()) << rec.status().message();
    if (!rec.ok()) continue;
    out.push_back({std::move(rec).value(), line.at("reference").at("result").get<int>()});
  }
  return out;
}

class CodeConformanceTest : public ::testing::Test {
 protected:
  void Run(const std::string& subtask) {
    SKIP_WITHOUT_SHARED();
    const fs::path dev = fs::path(::structtest::testing::SharedDir()) / "conformance" / "dev";
    std::vector<fs::path> files;
    for (const auto& model : fs::directory_iterator(dev)) {
      const fs::path f = model.path() / (subtask + ".jsonl");
      if (model.is_directory() && fs::exists(f)) files.push_back(f);
    }
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty());
    const SubtaskSpec* spec = nullptr;
    for (const SubtaskSpec& s : CodeFamily().subtasks) {
      if (s.name == subtask) spec = &s;
    }
    ASSERT_NE(spec, nullptr);

    PythonOptions o;
    o.worker_script = STRUCTTEST_WORKER_SCRIPT;
    o.max_workers = kThreads;
    PythonPool pool(o);
    CheckEnv env;
    env.python = &pool;
    const auto figures = ::structtest::testing::ManifestFigures();
    for (const fs::path& f : files) {
      const std::string name = f.parent_path().filename().string() + "/" + f.filename().string();
      const std::vector<Record> records = Load(f);
      std::atomic<size_t> next{0};
      std::atomic<int64_t> agree{0};
      std::mutex mu;
      std::vector<std::string> mismatches;
      Tally tally;  // GUARDED_BY(mu)
      const auto start = std::chrono::steady_clock::now();
      auto work = [&] {
        for (size_t i = next++; i < records.size(); i = next++) {
          const Record& r = records[i];
          auto v = CodeFamily().Check(*spec, RuleSet::kPaper, r.record.sample,
                                      r.record.response.text, env);
          const bool same = v.ok() && v->pass == (r.reference == 1);
          std::lock_guard<std::mutex> lock(mu);
          if (v.ok()) {
            tally.Add(r.record.sample, *v);
          } else {
            tally.AddError(r.record.sample);
          }
          if (same) {
            ++agree;
            continue;
          }
          mismatches.push_back(fmt::format(
              "  id {}: ours {} / reference {}", r.record.sample.id,
              v.ok() ? fmt::format("pass={} ({})", v->pass, v->reason)
                     : "error: " + v.status().message(),
              r.reference));
        }
      };
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) threads.emplace_back(work);
      for (auto& t : threads) t.join();
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::sort(mismatches.begin(), mismatches.end());
      std::printf("conformance %-50s %4lld/%-4zu %7.2f%%  (%.1f s)\n", name.c_str(),
                  static_cast<long long>(agree.load()), records.size(),
                  records.empty() ? 0.0 : 100.0 * agree / records.size(), secs);
      for (const auto& m : mismatches) std::printf("%s\n", m.c_str());
      EXPECT_EQ(agree.load(), static_cast<int64_t>(records.size()))
          << name << ": " << records.size() - agree << " verdicts differ from the reference";
      EXPECT_GT(records.size(), 0u) << name;
      // The report's figure (per task for simulate_execute) is the published one.
      const auto subtasks = tally.Subtasks();
      const auto fig = figures.find(name);
      ASSERT_NE(fig, figures.end()) << name << " is not in the manifest";
      ASSERT_EQ(subtasks.size(), 1u) << name;
      EXPECT_NEAR(subtasks[0]->Accuracy(), fig->second, 0.005) << name << ": report figure";
    }
    std::printf("conformance %s: %lld job requests (a sandboxed child each, or the worker "
                "itself for those that run nothing), %lld analyses\n", subtask.c_str(),
                static_cast<long long>(pool.jobs_run()),
                static_cast<long long>(pool.analysis_requests()));
  }
};

TEST_F(CodeConformanceTest, AddPrintStatements) { Run("add_print_statements"); }
TEST_F(CodeConformanceTest, ReplaceVariables) { Run("replace_variables"); }
TEST_F(CodeConformanceTest, TestCaseInputsGen) { Run("test_case_inputs_gen"); }
TEST_F(CodeConformanceTest, SimulateExecute) { Run("simulate_execute"); }

}  // namespace
}  // namespace structtest
