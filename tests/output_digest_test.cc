// What structtest writes must not change by accident: the verdict files of `score`, under
// paper and under strict, on every file of the dev conformance corpus, and the export and report.json of runs of
// the built-in responders on a generated suite, are compared with digests recorded in
// tests/testdata/output_digests.txt (FNV-1a 64 and size of each output). The digests
// were made before the JSON fast path (issue 10) replaced nlohmann on these paths, by
// the build of that time (report.json's again after it gained the manifest's "limit"
// and the intervals, fields added with every other field unchanged; again when the
// aggregates' intervals moved to the exact variance); a change that alters an output
// on purpose (a rules version, a new field) records them again with
//   STRUCTTEST_UPDATE_DIGESTS=1 build/structtest_tests --gtest_filter='OutputDigestTest.*'
// (STRUCTTEST_DIGEST_BINARY=PATH takes another structtest binary, to record an old
// build's outputs). Every verdict is also checked one by one: each record of a file has
// one (none is an error), a failing strict one's reason names its rule, and each lists
// its subtask's rules (`structtest tasks --rules`) in agreement with its pass. (How
// strict's verdicts differ from paper's per file: scripts/strict-table.)
// It is also the conformance test of `score` itself: every paper verdict must be the
// reference's (reference.result of each record, all domains), and the pass% that
// `score` prints for the file must be the published figure (the manifest's; per task
// for simulate_execute). A model's files are scored by one `score` (its subtasks are one
// file each, so its table has a line per file), with -J 1 under one rule set and -J 3
// under the other, so that verdicts that changed with the number of scoring threads
// would differ from the digests.
// Needs ../shared; skipped with a message without it.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace output_digest_test {
namespace {

namespace fs = std::filesystem;
using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::TempDir;

std::string Binary() {
  const char* other = std::getenv("STRUCTTEST_DIGEST_BINARY");
  return other != nullptr ? other : STRUCTTEST_BINARY;
}

// Runs `args` through the shell (paths here are the test's own, without quotes), its
// standard output to `out` ("": dropped), its standard input `in` (a shell command's
// output; "": none).
void RunBinary(const std::string& args, const std::string& out = "", const std::string& in = "") {
  const std::string cmd = (in.empty() ? "" : in + " | ") + Binary() + " " + args + " >" +
                          (out.empty() ? "/dev/null" : out) + " 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  // score exits 1 when some records cannot be scored; that is part of the output.
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) <= 1) << cmd << ": status " << rc;
}

// A strict reason is "<rule-name>: <what was found>" (docs/strict.md).
bool NamesItsRule(std::string_view reason) {
  const size_t colon = reason.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  for (char c : reason.substr(0, colon)) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// Every subtask's rules under each rule set, from `structtest tasks --rules`:
// "domain subtask rules name name ..." -> the names, keyed "subtask rules".
std::map<std::string, std::vector<std::string>> RuleNames(const std::string& dir) {
  const std::string out = dir + "/rules.txt";
  const std::string cmd = Binary() + " tasks --rules >" + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::map<std::string, std::vector<std::string>> names;
  std::istringstream lines(ReadFileOrDie(out));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string domain, subtask, rules, name;
    words >> domain >> subtask >> rules;
    std::vector<std::string>& list = names[subtask + " " + rules];
    while (words >> name) list.push_back(name);
  }
  return names;
}

// The verdicts `verdicts` (score -o's lines) of the records of `input` under `rules`: one per
// record, each a verdict (not an error) with a reason, a paper one the reference's, a
// failing strict one naming its rule; each lists its subtask's rules (`names`) in order, every one passing exactly
// when the verdict passes (a failing one has a failed rule, and its reason's rule
// fails), with the score rules passed / rules listed.
void ExpectVerdicts(const fs::path& input, const std::string& verdicts, const std::string& rules,
                    const std::map<std::string, std::vector<std::string>>& names,
                    const std::string& name) {
  std::vector<int> references;  // each record's reference.result (-1: none)
  {
    std::istringstream records(ReadFileOrDie(input.string()));
    for (std::string line; std::getline(records, line);) {
      const auto r = nlohmann::json::parse(line, nullptr, false);
      const auto ref = r.is_object() ? r.value("reference", nlohmann::json()) : nlohmann::json();
      references.push_back(ref.is_object() ? ref.value("result", -1) : -1);
    }
  }
  std::istringstream lines(verdicts);
  int64_t n = 0, problems = 0, differ = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    const auto v = nlohmann::json::parse(line, nullptr, false);
    std::string problem;
    if (!v.is_object() || v.contains("error") || v.value("reason", "").empty()) {
      problem = "not a verdict with a reason";
    } else if (rules == "paper" &&
               (static_cast<size_t>(n) >= references.size() ||
                references[static_cast<size_t>(n)] != (v.value("pass", false) ? 1 : 0))) {
      problem = fmt::format("not the reference's verdict ({})",
                            static_cast<size_t>(n) < references.size()
                                ? references[static_cast<size_t>(n)]
                                : -1);
      ++differ;
    } else if (rules == "strict" && !v.value("pass", false) &&
               !NamesItsRule(v.value("reason", ""))) {
      problem = "the reason names no rule";
    } else {
      const auto it = names.find(v.value("subtask", "") + " " + rules);
      const nlohmann::json checks = v.value("checks", nlohmann::json());
      std::vector<std::string> listed;
      int passed = 0, failed = 0;
      bool reason_rule_fails = false;
      const std::string reason = v.value("reason", "");
      for (const auto& c : checks) {
        listed.push_back(c.value("name", ""));
        const std::string result = c.value("result", "");
        passed += result == "pass";
        failed += result == "fail";
        if (result == "fail" && reason.starts_with(listed.back() + ": ")) reason_rule_fails = true;
        if (result != "pass" && result != "fail" && result != "not-checked") problem = "bad result";
      }
      const bool pass = v.value("pass", false);
      const double score = checks.empty() ? -1 : static_cast<double>(passed) / checks.size();
      // The subtask's rules in the order they were decided: the passed and failed ones in
      // the declared order, then those not checked (issue 50).
      std::vector<std::string> in_order;
      if (it != names.end()) {
        std::map<std::string, std::string> result_of;
        for (const auto& c : checks) result_of[c.value("name", "")] = c.value("result", "");
        for (const bool decided : {true, false}) {
          for (const std::string& rule : it->second) {
            if ((result_of[rule] != "not-checked") == decided) in_order.push_back(rule);
          }
        }
      }
      if (it == names.end() || listed != in_order) {
        problem = "the checks are not the subtask's rules in the order they were decided";
      } else if (pass != (passed == static_cast<int>(listed.size())) || (!pass && failed == 0)) {
        problem = "the checks disagree with the verdict";
      } else if (rules == "strict" && !pass && !reason_rule_fails) {
        problem = "the reason's rule is not a failed check";
      } else if (v.value("score", -2.0) != (pass ? 1.0 : score)) {
        problem = "the score is not rules passed / rules listed";
      }
    }
    if (!problem.empty() && ++problems <= 3) {
      ADD_FAILURE() << name << ": " << problem << ": " << line;
    }
  }
  if (rules == "paper") {
    const std::string file =
        input.parent_path().filename().string() + "/" + input.filename().string();
    std::printf("conformance %-52s %5lld/%-5zu %7.2f%%\n", file.c_str(),
                static_cast<long long>(n - differ), references.size(),
                n == 0 ? 0.0 : 100.0 * static_cast<double>(n - differ) / static_cast<double>(n));
  }
  EXPECT_EQ(problems, 0) << name;
  EXPECT_EQ(differ, 0) << name << ": paper verdicts that differ from the reference";
  EXPECT_EQ(n, static_cast<int64_t>(references.size())) << name << ": verdicts";
  EXPECT_GT(n, 0) << name;
}

// The pass% `score` printed for the one subtask of `report` (its text report).
double PrintedPassPercent(const std::string& report, const std::string& subtask) {
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    // "<domain> <subtask> <split> <scored> <pass%> ..."
    std::istringstream words(line);
    std::string domain, name, split, scored, pass;
    words >> domain >> name >> split >> scored >> pass;
    if (name == subtask && (split == "easy" || split == "hard")) return std::stod(pass);
  }
  return -1;
}

// The digest of `bytes`, with `dir` (the test's temporary folder, which the manifest
// names) written as "DIR".
std::string DigestOf(std::string bytes, const std::string& dir = "") {
  for (size_t p; !dir.empty() && (p = bytes.find(dir)) != std::string::npos;) {
    bytes.replace(p, dir.size(), "DIR");
  }
  return fmt::format("{:016x} {}", Fnv1a(bytes), bytes.size());
}

std::string Digest(const std::string& path, const std::string& dir = "") {
  return DigestOf(ReadFileOrDie(path), dir);
}

// The lines of `text` cut into pieces of `counts[i]` lines each (and what is left, if
// anything, as one piece more).
std::vector<std::string> SplitLines(const std::string& text, const std::vector<size_t>& counts) {
  std::vector<std::string> pieces;
  size_t at = 0;
  for (size_t count : counts) {
    size_t end = at;
    for (size_t k = 0; k < count && end < text.size(); ++k) {
      const size_t nl = text.find('\n', end);
      end = nl == std::string::npos ? text.size() : nl + 1;
    }
    pieces.push_back(text.substr(at, end - at));
    at = end;
  }
  if (at < text.size()) pieces.push_back(text.substr(at));
  return pieces;
}

TEST(OutputDigestTest, ScoreExportAndReportWriteWhatTheyWroteBefore) {
  const fs::path shared = ::structtest::testing::SharedDir();  // "" when absent
  if (shared.empty() || !fs::exists(shared / "conformance" / "dev")) {
    GTEST_SKIP() << "needs " << shared.string() << "/conformance (not found)";
  }
  TempDir dir;
  std::map<std::string, std::string> digests;  // name -> digest

  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(shared / "conformance" / "dev")) {
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  // The paper digests keep the names they were first recorded under. A model's files
  // are scored by one process (two at a time: most of a process scores on one thread),
  // its verdicts then cut back into the files' by their records.
  std::map<fs::path, std::vector<fs::path>> by_model;
  std::map<fs::path, size_t> records;  // of each file
  for (const fs::path& f : files) {
    by_model[f.parent_path()].push_back(f);
    const std::string text = ReadFileOrDie(f.string());
    ASSERT_TRUE(text.empty() || text.back() == '\n')
        << f << ": the last record has no newline (a model's files are scored as one)";
    records[f] = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  struct Job {
    std::string rules, args, out, report, cat;  // report: score's standard output
    std::vector<fs::path> inputs;
    std::vector<size_t> records;  // of each input
  };
  std::vector<Job> jobs;
  for (const char* rules : {"paper", "strict"}) {
    const bool strict = std::string(rules) == "strict";
    for (const auto& [model, inputs] : by_model) {
      const std::string out = fmt::format("{}/verdicts-{}.jsonl", dir.path(), jobs.size());
      std::string cat = "cat";
      std::vector<size_t> counts;
      for (const fs::path& f : inputs) {
        cat += " " + f.string();
        counts.push_back(records.at(f));
      }
      jobs.push_back({rules,
                      fmt::format("score{} -J {} -i - -o {}", strict ? " --rules strict" : "",
                                  (jobs.size() % by_model.size() + strict) % 2 ? 3 : 1, out),
                      out, out + ".txt", cat, inputs, counts});
    }
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
        RunBinary(jobs[i].args, jobs[i].report, jobs[i].cat);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const auto names = RuleNames(dir.path());
  ASSERT_GE(names.size(), 2u * 19);
  const auto figures = ::structtest::testing::ManifestFigures();
  for (const Job& job : jobs) {
    const std::vector<std::string> verdicts = SplitLines(ReadFileOrDie(job.out), job.records);
    EXPECT_EQ(verdicts.size(), job.inputs.size()) << job.args << ": verdicts left over";
    const std::string report = ReadFileOrDie(job.report);
    for (size_t k = 0; k < job.inputs.size() && k < verdicts.size(); ++k) {
      const fs::path& input = job.inputs[k];
      const std::string file =
          input.parent_path().filename().string() + "/" + input.filename().string();
      const std::string name =
          fmt::format("score{} {}", job.rules == "strict" ? " --rules strict" : "", file);
      digests[name] = DigestOf(verdicts[k]);
      ExpectVerdicts(input, verdicts[k], job.rules, names, name);
      if (job.rules != "paper") continue;
      const auto figure = figures.find(file);
      if (figure == figures.end()) {
        ADD_FAILURE() << file << " is not in the manifest";
        continue;
      }
      EXPECT_NEAR(PrintedPassPercent(report, input.stem().string()), figure->second, 0.005)
          << file << ": the pass% score printed is not the published figure";
    }
  }

  const std::string samples = dir.path() + "/samples.jsonl";
  RunBinary(fmt::format("generate --suite default --seed 3 --size 0.05 --out {}", samples));
  digests["generate default seed 3 size 0.05"] = Digest(samples);
  for (const char* responder : {"oracle", "echo"}) {
    const std::string run = dir.path() + "/run-" + responder;
    RunBinary(fmt::format("run --model builtin/{} --samples {} --out {} --no-cache --quiet",
                          responder, samples, run));
    const std::string exported = dir.path() + "/export.jsonl";
    RunBinary(fmt::format("export {} --all --output {}", run, exported));
    digests[fmt::format("export builtin/{}", responder)] = Digest(exported);
    digests[fmt::format("report.json builtin/{}", responder)] = Digest(run + "/report.json", dir.path());
  }

  const std::string recorded =
      ::structtest::testing::SourceDir() + "/tests/testdata/output_digests.txt";
  if (std::getenv("STRUCTTEST_UPDATE_DIGESTS") != nullptr) {
    std::ofstream out(recorded);
    for (const auto& [name, d] : digests) out << d << " " << name << "\n";
    std::printf("recorded %zu digests in %s\n", digests.size(), recorded.c_str());
    return;
  }
  std::map<std::string, std::string> expected;
  std::istringstream lines(ReadFileOrDie(recorded));
  for (std::string line; std::getline(lines, line);) {
    // "<fnv> <size> <name>"
    const size_t a = line.find(' '), b = line.find(' ', a + 1);
    ASSERT_NE(b, std::string::npos) << recorded << ": " << line;
    expected[line.substr(b + 1)] = line.substr(0, b);
  }
  EXPECT_EQ(expected.size(), digests.size());
  for (const auto& [name, d] : digests) {
    const auto it = expected.find(name);
    if (it == expected.end()) {
      ADD_FAILURE() << name << ": no recorded digest";
      continue;
    }
    EXPECT_EQ(d, it->second) << name << " differs from the recorded output";
  }
}

}  // namespace
}  // namespace output_digest_test
}  // namespace structtest
