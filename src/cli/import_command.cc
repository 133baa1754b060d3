// `structtest import RUN_DIR RESULTS.jsonl`: stores the answers of an offline engine's
// batch output (vLLM's run-batch, fed the file of `run --offline FILE`) into the run
// and scores them. Every line is checked before anything is stored: a line that is
// not a result, or whose custom id the run did not write (a request of other settings
// included), refuses the whole file, naming the line. The same `run` command without
// --offline then asks online whatever is still unanswered.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/run.h"

namespace structtest::cli {

namespace {

struct ImportOptions {
  std::string run;
  std::string results;
  std::string rules = "paper";
  // --nltk-data, --python and --score-jobs, as the library takes them (its rule set is
  // read from `rules` when the command runs).
  ScoringSettings scoring;
};

int RunImport(const ImportOptions& opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  std::shared_ptr<const SentenceSplitter> splitter = LoadSentenceSplitter(opt.scoring.nltk_data);
  if (splitter == nullptr) return kExitFatal;
  RescoreOptions options;
  options.scoring = opt.scoring;
  options.scoring.rules = *rules;
  options.sentences = splitter.get();
  auto imported = ImportResults(opt.run, opt.results, options);
  if (!imported.ok()) {
    PrintError(imported.status().message());
    return kExitFatal;
  }
  std::fputs(imported->scored.table.c_str(), stdout);
  std::fputs(fmt::format("\nimported {} result(s) from {}: {} answer(s), {} error(s), {} for samples "
                         "answered already (kept); {} of {} samples answered\n",
                         imported->lines, opt.results, imported->answered, imported->errored,
                         imported->skipped, imported->samples_answered, imported->samples)
                 .c_str(),
             stdout);
  if (!imported->top_errors.empty()) {
    std::string common;
    for (const auto& [error, n] : imported->top_errors) common += fmt::format("\n  {} x {}", n, error);
    PrintNote(fmt::format("{} error(s) stored; the run's most frequent error(s):{}", imported->errored,
                          common));
  }
  if (imported->samples_answered < imported->samples) {
    PrintNote(fmt::format("{} sample(s) still unanswered: the same 'run' command without "
                          "--offline asks them online (or with --offline FILE writes them again)",
                          imported->samples - imported->samples_answered));
  }
  return imported->scored.errors > 0 ? kExitFailures : kExitOk;
}

}  // namespace

void SetupImport(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Store the answers of an offline batch run (vllm run-batch's output for the file "
                "of 'run --offline FILE') into the run and score them");
  cmd->add_option("RUN_DIR", opt->run, "run directory (the --out of 'structtest run --offline')")
      ->required();
  cmd->add_option("RESULTS", opt->results,
                  "the engine's output file: JSONL of {custom_id, response: {status_code, "
                  "body}, error}")
      ->required();
  cmd->add_option("--rules", opt->rules, "rule set: paper (default) or strict");
  AddScoreJobsOption(cmd, &opt->scoring.score_jobs);
  cmd->add_option("--nltk-data", opt->scoring.nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->scoring.python, "python3 for the code subtasks (see 'score')");
  cmd->callback([opt, exit_code]() { *exit_code = RunImport(*opt); });
}

}  // namespace structtest::cli
