// `structtest run`: generate a suite, answer it, score it, print the paper-style table.
// This build answers with the built-in responders only (builtin/oracle, builtin/null,
// builtin/echo): the floor and ceiling of every rule set. API models come with the run
// store (issue 5).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/builtin.h"
#include "cli/commands.h"
#include "python/python_pool.h"
#include "report/tally.h"
#include "tasks/scorer.h"
#include "tasks/suite.h"
#include "text/punkt.h"

namespace structtest::cli {

namespace {

struct RunOptions {
  std::string model;
  SuiteOptions suite;
  std::string tasks;
  std::string rules = "paper";
  std::string nltk_data;
  std::string python;
};

// The responders to run: the one named by --model, or all three built-in ones.
StatusOr<std::vector<std::string>> Responders(const std::string& model) {
  std::vector<std::string> out;
  if (model.empty()) {
    for (std::string_view name : BuiltinResponderNames()) out.emplace_back(name);
    return out;
  }
  constexpr std::string_view kBuiltin = "builtin/";
  if (!std::string_view(model).starts_with(kBuiltin)) {
    return Status::Unimplemented(fmt::format(
        "--model {}: this build runs the built-in responders only (builtin/oracle, "
        "builtin/null, builtin/echo); to score another model, answer the samples of "
        "'structtest generate' and pass them to 'structtest score'",
        model));
  }
  const std::string name = model.substr(kBuiltin.size());
  for (std::string_view known : BuiltinResponderNames()) {
    if (known == name) return std::vector<std::string>{name};
  }
  return Status::NotFound(fmt::format(
      "--model {}: unknown built-in responder (expected builtin/oracle, builtin/null or "
      "builtin/echo)",
      model));
}

int RunRun(RunOptions opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  auto responders = Responders(opt.model);
  if (!responders.ok()) {
    PrintError(responders.status().message());
    return kExitFatal;
  }
  opt.suite.tasks = SplitList(opt.tasks);
  PythonOptions python_options;
  python_options.python = opt.python;
  PythonPool python(python_options);
  auto suite = Suite::Plan(opt.suite, nullptr, &python);
  if (!suite.ok()) {
    PrintError(suite.status().message());
    return kExitFatal;
  }
  // Without the Punkt model the sentence-counting subtasks cannot be scored: they are
  // left out, loudly, and the exit status says the run is incomplete.
  std::unique_ptr<SentenceSplitter> splitter;
  bool sentences_missing = false;
  for (const PlannedSubtask& p : (*suite)->subtasks()) {
    if (!p.ref.spec->needs_sentences || splitter || sentences_missing) continue;
    auto loaded = SentenceSplitter::Load(opt.nltk_data);
    if (loaded.ok()) {
      splitter = std::move(loaded).value();
    } else {
      PrintWarning(loaded.status().message());
      PrintWarning("the sentence-counting subtasks (length, bullet_points_length, "
                   "numbered_points_length) are left out of this run");
      sentences_missing = true;
    }
  }
  CheckEnv env;
  env.sentences = splitter.get();
  env.python = &python;

  int exit_code = sentences_missing ? kExitFailures : kExitOk;
  for (const std::string& responder : *responders) {
    Tally tally;
    for (const PlannedSubtask& p : (*suite)->subtasks()) {
      if (p.ref.spec->needs_sentences && !splitter) continue;
      for (size_t i = 0; i < p.count; ++i) {
        auto sample = (*suite)->Generate(p, i);
        if (!sample.ok()) {
          PrintError(fmt::format("{} sample {}: {}", p.ref.spec->name, i,
                                 sample.status().message()));
          return kExitFatal;
        }
        auto response = BuiltinRespond(responder, *sample);
        if (!response.ok()) {
          PrintError(response.status().message());
          return kExitFatal;
        }
        auto verdict = ScoreResponse(*sample, *response, *rules, env);
        if (verdict.ok()) {
          tally.Add(*sample, *verdict);
        } else {
          tally.AddError(*sample);
          exit_code = kExitFailures;
          PrintError(fmt::format("{}: {}", sample->id, verdict.status().message()));
        }
      }
    }
    std::fputs(fmt::format("== builtin/{} on suite {} (seed {}, {} samples)\n", responder,
                           opt.suite.suite, opt.suite.seed, (*suite)->total())
                   .c_str(),
               stdout);
    std::fputs((RenderTextReport(tally, *rules) + "\n").c_str(), stdout);
  }
  if (opt.model.empty()) {
    std::fputs(
        "These are the built-in responders: oracle answers every sample correctly, null "
        "answers nothing, echo repeats the prompt.\nTo score a model: 'structtest generate "
        "--out samples.jsonl', answer each sample's messages, add the answer as "
        "\"response\" to its line, then 'structtest score --input answered.jsonl'.\n",
        stdout);
  }
  return exit_code;
}

}  // namespace

void SetupRun(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Generate a suite, answer it with a responder, score it and print the table "
             "(this build: built-in responders only)");
  cmd->add_option("--model", opt->model,
                  "builtin/oracle, builtin/null or builtin/echo (default: all three)");
  cmd->add_option("--suite", opt->suite.suite, "default or paper (see 'generate')");
  cmd->add_option("--seed", opt->suite.seed, "seed of the generated suite");
  cmd->add_option("--tasks", opt->tasks, "comma-separated subtasks or domains (default: all)");
  cmd->add_option("--size", opt->suite.size, "scale of the paper's sample counts (default 1)");
  cmd->add_option("--documents", opt->suite.documents, "documents (paper suite)");
  cmd->add_option("--mbpp", opt->suite.mbpp, "MBPP-style JSON (paper suite)");
  cmd->add_option("--apps", opt->suite.apps, "APPS-style JSON (paper suite)");
  cmd->add_option("--gsm8k", opt->suite.gsm8k, "GSM8K JSONL (paper suite)");
  cmd->add_option("--rules", opt->rules, "rule set: paper (default) or strict");
  cmd->add_option("--nltk-data", opt->nltk_data, "Punkt model folder (see 'score')");
  cmd->add_option("--python", opt->python, "python3 for the code subtasks (see 'score')");
  cmd->callback([opt, exit_code]() { *exit_code = RunRun(*opt); });
}

}  // namespace structtest::cli
