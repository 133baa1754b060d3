// structtest._core: the C++ side of `import structtest`. Samples cross the boundary as
// the JSON text `structtest generate` writes (json.loads / json.dumps on the Python
// side, in __init__.py), so a sample means the same bytes here as in a file, and the
// field checks and their messages are the CLI's. Scoring and generating release the
// GIL; score_batch spreads the records over threads.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "backends/reasoning.h"
#include "core/record_io.h"
#include "structtest/checker.h"
#include "structtest/sample.h"
#include "tasks/score_stage.h"
#include "tasks/suite.h"

namespace py = pybind11;

namespace structtest {
namespace {

// The checker of every call, made on first need and kept for the life of the process
// (its sentence model and python3 workers too): never destroyed, as worker threads may
// outlive main.
Checker& TheChecker() {
  static Checker* checker = new Checker;
  return *checker;
}

RuleSet RulesOrThrow(const std::string& rules) {
  auto parsed = ParseRuleSet(rules);
  if (!parsed.ok()) {
    throw py::value_error(fmt::format("rules='{}': {}", rules, parsed.status().message()));
  }
  return *parsed;
}

// Every rule of a verdict: (name, passed, detail); a rule not checked is not passed,
// its detail says so.
using RuleTuple = std::tuple<std::string, bool, std::string>;
// (passed, reason, rules_version, format, accuracy, rules, score) or, when the record
// cannot be scored, the error text in the last slot.
using VerdictTuple = std::tuple<bool, std::string, std::string, std::optional<bool>,
                                std::optional<bool>, std::vector<RuleTuple>, double,
                                std::optional<std::string>>;

VerdictTuple ScoreOne(const std::string& sample_json, const std::string& response, RuleSet rules) {
  const auto fail = [](std::string message) {
    return VerdictTuple{false, "", "", std::nullopt, std::nullopt, {}, 0.0, std::move(message)};
  };
  bool not_json = false;
  auto sample = SampleFromJsonText(sample_json, &not_json, /*with_prompt=*/true);
  if (not_json) return fail("the sample is not JSON");
  if (!sample.ok()) return fail(sample.status().message());
  auto verdict = TheChecker().Check(*sample, response, rules);
  if (!verdict.ok()) return fail(verdict.status().message());
  std::vector<RuleTuple> checks;
  checks.reserve(verdict->checks.size());
  for (RuleCheck& c : verdict->checks) {
    const bool checked = c.result != RuleCheck::Result::kNotChecked;
    checks.emplace_back(std::move(c.name), c.result == RuleCheck::Result::kPass,
                        checked || !c.detail.empty() ? std::move(c.detail)
                                                     : std::string("not checked (an earlier rule failed)"));
  }
  return VerdictTuple{verdict->pass,     verdict->reason,   std::string(verdict->rules_version),
                      verdict->format,   verdict->accuracy, std::move(checks),
                      verdict->score(),  std::nullopt};
}

std::vector<VerdictTuple> ScoreBatch(std::vector<std::string> samples,
                                     std::vector<std::string> responses, const std::string& rules,
                                     int threads) {
  if (samples.size() != responses.size()) {
    throw py::value_error(fmt::format("{} samples but {} responses: one response per sample",
                                      samples.size(), responses.size()));
  }
  if (threads < 0) throw py::value_error(fmt::format("threads={}: expected 0 (every core) or more", threads));
  const RuleSet rule_set = RulesOrThrow(rules);
  std::vector<VerdictTuple> out(samples.size());
  {
    py::gil_scoped_release release;
    const size_t n = samples.size();
    size_t workers = threads == 0 ? static_cast<size_t>(DefaultScoreJobs())
                                  : static_cast<size_t>(threads);
    workers = std::min(workers, n);
    std::atomic<size_t> next{0};
    const auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        out[i] = ScoreOne(samples[i], responses[i], rule_set);
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }
  return out;
}

std::vector<std::string> Generate(const std::string& suite, uint64_t seed, double size,
                                  std::vector<std::string> tasks, std::optional<size_t> limit,
                                  const std::string& split) {
  SuiteOptions options;
  auto parsed = ParseSourceSplit(split);
  if (!parsed.ok()) throw py::value_error(fmt::format("split='{}': {}", split, parsed.status().message()));
  options.split = *parsed;
  options.suite = suite;
  options.seed = seed;
  options.size = size;
  options.tasks = std::move(tasks);
  if (limit) {
    if (*limit == 0) throw py::value_error("limit=0: expected a positive number of samples");
    options.limit = *limit;
  }
  std::vector<std::string> lines;
  std::optional<std::string> error;
  {
    py::gil_scoped_release release;
    if (Status s = CheckSuiteOptions(options); !s.ok()) {
      error = s.message();
    } else if (auto planned = Suite::Plan(options, nullptr); !planned.ok()) {
      error = planned.status().message();
    } else {
      for (const PlannedSubtask& subtask : (*planned)->subtasks()) {
        for (size_t i = 0; i < subtask.count && !error; ++i) {
          auto sample = (*planned)->Generate(subtask, i);
          if (!sample.ok()) {
            error = fmt::format("{} sample {}: {}", subtask.ref.spec->name, i,
                                sample.status().message());
            break;
          }
          std::string line;
          AppendSampleJson(*sample, &line);
          lines.push_back(std::move(line));
        }
      }
    }
  }
  if (error) throw py::value_error(*error);
  return lines;
}

py::list SubtaskList() {
  py::list out;
  for (const SubtaskInfo& info : Subtasks()) {
    py::dict d;
    d["domain"] = info.domain;
    d["name"] = info.name;
    d["split"] = info.split;
    d["description"] = info.description;
    d["params"] = info.params;
    d["paper_version"] = info.paper_version;
    d["strict_version"] = info.strict_version;
    d["counts_sentences"] = info.counts_sentences;
    d["runs_python"] = info.runs_python;
    d["paper_rules"] = info.paper_rules;
    d["strict_rules"] = info.strict_rules;
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace structtest

PYBIND11_MODULE(_core, m) {
  m.doc() = "structtest's C++ core; use the structtest package, not this module";
  m.def("score_batch", &structtest::ScoreBatch, py::arg("samples"), py::arg("responses"),
        py::arg("rules"), py::arg("threads"));
  m.def("generate", &structtest::Generate, py::arg("suite"), py::arg("seed"), py::arg("size"),
        py::arg("tasks"), py::arg("limit"), py::arg("split"));
  m.def("subtasks", &structtest::SubtaskList);
  m.def("split_thinking", [](const std::string& text) {
    const structtest::Response r = structtest::SplitThinking(text);
    return std::make_pair(r.text, r.reasoning);
  });
}

