// The contract every checker keeps: hostile responses (empty, whitespace only, 10 MB,
// invalid UTF-8, NUL bytes, 100k nested tags, a million list markers) get a failing
// verdict with a reason — never an error, a crash or a hang. Runs over every subtask
// in the registry that this build can score.
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "testing/test_support.h"
#include "sandbox/python_pool.h"
#include "text/punkt.h"

namespace structtest {
namespace {

// Valid params/context for each subtask, so only the response is hostile.
Sample SampleFor(std::string_view domain, std::string_view subtask) {
  Sample s;
  s.id = "hostile";
  s.domain = domain;
  s.subtask = subtask;
  const nlohmann::json tags = {{"start_tag", "<summary>"}, {"end_tag", "</summary>"}};
  static const std::map<std::string, nlohmann::json> kParams = {
      {"length", {{"n_sentences", 3}}},
      {"bullet_points", {{"n_points", 3}, {"symbol", "*"}}},
      {"numbered_points", {{"n_points", 3}}},
      {"questions", nlohmann::json::object()},
      {"bullet_points_length",
       {{"n_points", 3}, {"symbol", "*"}, {"n_sentences_per_point", 2}, {"n_sentences_total", 6}}},
      {"numbered_points_length",
       {{"n_points", 3}, {"n_sentences_per_point", 2}, {"n_sentences_total", 6}}},
      {"indented_bullet_points", {{"n_points", 3}, {"symbol", "*"}, {"n_subpoints", 2}}},
  };
  if (domain == "summarization") {
    s.params = kParams.at(std::string(subtask));
    s.context = tags;
  } else if (domain == "html") {
    const nlohmann::json counts = {{"html", 1}, {"head", 2}, {"title", 2}, {"body", 2},
                                   {"div", 2},  {"footer", 2}, {"h1", 2}, {"h2", 2}, {"p", 2}};
    s.params = {{"no_of_tags", counts},
                {"ground_truth",
                 {{"html", 1}, {"head", 2}, {"title", 4}, {"body", 2}, {"div", 4},
                  {"footer", 4}, {"h1", 8}, {"h2", 8}, {"p", 8}}},
                {"mode", "nested"},
                {"config", "nested"}};
    s.context = {{"start_tag", "<html>"}, {"end_tag", "</html>"}};
  } else if (domain == "code") {
    s.context = {{"start_tag", "<ans>"}, {"end_tag", "</ans>"},
                 {"source_code", "def f(a, b):\n    c = a + b\n    return c"},
                 {"var_mapping", {"a:x", "b:y"}}, {"fn_name", "f"}, {"gen_n", 5},
                 {"call_based", !subtask.ends_with("_v2")},
                 {"expected_output", "3"}};
    if (subtask.ends_with("_v2")) {
      s.context["source_code"] = "a, b = map(int, input().split())\nc = a + b\nprint(c)";
    }
  } else if (domain == "math") {
    s.params = {{"math_format_name", subtask == "math_easy" ? "Suffix1PhrasesMathFormat"
                                                             : "BulletPoints3MathFormat"}};
    s.context = {{"gsm8k_index", 0}, {"question", "How many?"}, {"gold_answer", "18"}};
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> HostileResponses() {
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "<div><summary><html><think>";
  std::string markers;
  for (int i = 0; i < 1000000; ++i) markers += "1. ";
  std::string big(10 << 20, 'a');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = '.';
  for (size_t i = 50; i < big.size(); i += 1013) big[i] = '\n';
  std::string bad_utf8 = "<summary>\xFF\xFE* \xC0\x80 1\xE2. \xED\xA0\x80 \xF4\x90\x80\x80</summary>";
  return {
      {"empty", ""},
      {"whitespace", " \t\n\r\n\xC2\xA0 \n"},
      {"nul bytes", std::string("<summary>\0* a\0\n1.\0 x</summary>\0", 32)},
      {"invalid utf-8", bad_utf8},
      {"100k nested tags", nested},
      {"a million list markers", markers},
      {"10 MB", big},
      {"only periods", std::string(1 << 20, '.')},
      {"only newlines", std::string(1 << 20, '\n')},
      {"garbage", "lorem ipsum ###### \\boxed{ ```json [1, {\"a\": ] } </html> <html>"},
  };
}

TEST(HostileTest, EverySubtaskFailsHostileResponsesWithAReason) {
  const std::unique_ptr<SentenceSplitter> splitter =
      ::structtest::testing::BuiltinSentenceSplitter();
  PythonPool python;
  const auto responses = HostileResponses();
  int checked = 0;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& spec : f->subtasks) {
      const Sample sample = SampleFor(f->domain, spec.name);
      CheckEnv env;
      env.sentences = splitter.get();
      env.python = &python;
      for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
        if (spec.checker(rules) == nullptr) continue;
        for (const auto& [name, text] : responses) {
          auto v = ScoreResponse(sample, text, rules, env);
          const std::string where =
              fmt::format("{} / {} ({})", spec.name, name, RuleSetName(rules));
          ASSERT_TRUE(v.ok()) << where << ": " << v.status().message();
          EXPECT_FALSE(v->pass) << where << ": " << v->reason;
          EXPECT_FALSE(v->reason.empty()) << where;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace structtest
