// `structtest rescore RUN [--rules strict]`: scores the stored answers of a run under a
// rule set, without asking the model again, and stores the verdicts in the run
// directory: what `report`, `export` and `compare` then read. Verdicts of another
// checker version and failed scorings are scored again; current ones are kept.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/run.h"

namespace structtest::cli {

namespace {

struct RescoreOptions {
  std::string run;
  std::string rules = "paper";
  // --nltk-data, --python and --score-jobs, as the library takes them (its rule set is
  // read from `rules` when the command runs).
  ScoringSettings scoring;
};

int RunRescore(const RescoreOptions& opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  std::shared_ptr<const SentenceSplitter> splitter = LoadSentenceSplitter(opt.scoring.nltk_data);
  if (splitter == nullptr) return kExitFatal;
  structtest::RescoreOptions options;
  options.scoring = opt.scoring;
  options.scoring.rules = *rules;
  options.sentences = splitter.get();
  auto scored = RescoreRun(opt.run, options);
  if (!scored.ok()) {
    PrintError(scored.status().message());
    return kExitFatal;
  }
  std::fputs(scored->table.c_str(), stdout);
  std::fputs(fmt::format("\n{}: verdicts under rules {} stored ('structtest report {} --rules "
                         "{}' shows them)\n",
                         opt.run, RuleSetName(*rules), opt.run, RuleSetName(*rules))
                 .c_str(),
             stdout);
  return scored->errors > 0 ? kExitFailures : kExitOk;
}

}  // namespace

void SetupRescore(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<RescoreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "rescore", "Score the stored answers of a run under a rule set, without asking the "
                 "model again, and store the verdicts in the run");
  cmd->add_option("RUN_DIR", opt->run, "run directory (the --out of 'structtest run')")->required();
  cmd->add_option("--rules", opt->rules, "rule set: paper (default) or strict");
  AddScoreJobsOption(cmd, &opt->scoring.score_jobs);
  cmd->add_option("--nltk-data", opt->scoring.nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->scoring.python, "python3 for the code subtasks (see 'score')");
  cmd->callback([opt, exit_code]() { *exit_code = RunRescore(*opt); });
}

}  // namespace structtest::cli
