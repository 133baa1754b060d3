// Fuzz target: every paper checker on arbitrary response bytes, and the Punkt splitter
// on the same bytes. Any crash, hang, sanitizer report or error Status (a hostile
// response must give a failing verdict, never an error) is a finding.
// Built with clang -fsanitize=fuzzer for fuzzing; under GCC the replay driver
// (fuzz/replay_main.cc) runs the saved corpus as a regular test.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "sandbox/python_pool.h"
#include "text/punkt.h"

namespace structtest {
namespace {

Sample MakeSample(std::string_view domain, std::string_view subtask) {
  Sample s;
  s.id = "fuzz";
  s.domain = domain;
  s.subtask = subtask;
  s.params = {{"n_sentences", 2},
              {"n_points", 2},
              {"symbol", "*"},
              {"n_sentences_per_point", 1},
              {"n_sentences_total", 2},
              {"n_subpoints", 1}};
  s.context = {{"start_tag", "<summary>"}, {"end_tag", "</summary>"}};
  if (domain == "code") {
    s.context = {{"start_tag", "<ans>"}, {"end_tag", "</ans>"},
                 {"source_code", "def f(a, b):\n    c = a + b\n    return c"},
                 {"var_mapping", {"a:x", "b:y"}}};
    return s;
  }
  if (domain == "html") {
    const nlohmann::json gt = {{"html", 1}, {"head", 1}, {"title", 1}, {"body", 1}, {"div", 1},
                               {"footer", 1}, {"h1", 1}, {"h2", 1}, {"p", 1}};
    s.params = {{"no_of_tags", gt}, {"ground_truth", gt}, {"mode", "nested"}, {"config", "nested"}};
    s.context = {{"start_tag", "<html>"}, {"end_tag", "</html>"}};
  } else if (domain == "math") {
    s.context = {{"gold_answer", "18"}, {"question", "q"}, {"gsm8k_index", 0}};
  }
  return s;
}

const SentenceSplitter* Splitter() {
  static const std::unique_ptr<SentenceSplitter> splitter = [] {
    auto s = SentenceSplitter::LoadBuiltin();
    return s.ok() ? std::move(s).value() : nullptr;
  }();
  return splitter.get();
}

}  // namespace
}  // namespace structtest

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace structtest;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static PythonPool python;
  CheckEnv env;
  env.sentences = Splitter();
  env.python = &python;
  if (env.sentences != nullptr) {
    size_t last = 0;
    for (const auto& span : env.sentences->Split(text)) {
      if (span.begin < last || span.end < span.begin || span.end > size) std::abort();
      last = span.end;
    }
  }
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& spec : f->subtasks) {
      if (spec.needs_sentences && env.sentences == nullptr) continue;
      // These run a sandboxed job per input (milliseconds, seconds when it loops).
      if (spec.name.starts_with("test_case_inputs_gen") ||
          spec.name.starts_with("simulate_execute")) {
        continue;
      }
      // Both rule sets; math under each of its answer formats.
      for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
        if (spec.checker(rules) == nullptr) continue;
        Sample sample = MakeSample(f->domain, spec.name);
        const int formats = f->domain != "math" ? 1 : spec.name == "math_easy" ? 7 : 20;
        for (int k = 1; k <= formats; ++k) {
          if (f->domain == "math") {
            sample.params = {{"math_format_name",
                              spec.name == "math_easy"
                                  ? "Suffix" + std::to_string(k) + "PhrasesMathFormat"
                                  : "BulletPoints" + std::to_string(k) + "MathFormat"}};
          }
          auto v = ScoreResponse(sample, text, rules, env);
          if (!v.ok() || v->reason.empty()) {
            std::fprintf(stderr, "%s (%s): %s\n", spec.name.data(), RuleSetName(rules).data(),
                         v.ok() ? "empty reason" : v.status().message().c_str());
            std::abort();
          }
        }
      }
    }
  }
  return 0;
}
