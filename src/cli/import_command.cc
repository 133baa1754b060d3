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
#include "report/tally.h"
#include "runner/batch_runner.h"
#include "runner/score_run.h"
#include "store/run_store.h"
#include "tasks/score_stage.h"
#include "text/punkt.h"

namespace structtest::cli {

namespace {

struct ImportOptions {
  std::string run;
  std::string results;
  std::string rules = "paper";
  std::string nltk_data;
  std::string python;
  int jobs = DefaultScoreJobs();
};

int RunImport(const ImportOptions& opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  if (Status s = CheckScoreJobs(opt.jobs); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  // Only an existing run takes answers.
  auto store = OpenExistingRun(opt.run);
  if (!store.ok()) {
    PrintError(store.status().message());
    return kExitFatal;
  }
  auto imported = ImportBatchResults(store->get(), opt.results);
  if (!imported.ok()) {
    PrintError(fmt::format("import: {}", imported.status().message()));
    return kExitFatal;
  }
  std::shared_ptr<const SentenceSplitter> splitter = LoadSentenceSplitter(opt.nltk_data);
  if (splitter == nullptr) return kExitFatal;
  auto tally = ScoreRun(store->get(), splitter.get(), {*rules, opt.jobs, opt.python});
  if (!tally.ok()) {
    PrintError(tally.status().message());
    return kExitFatal;
  }
  auto counts = (*store)->Counts();
  if (!counts.ok()) {
    PrintError(counts.status().message());
    return kExitFatal;
  }
  std::fputs(RenderTextReport(*tally, *rules).c_str(), stdout);
  std::fputs(fmt::format("\nimported {} result(s) from {}: {} answer(s), {} error(s), {} for samples "
                         "answered already (kept); {} of {} samples answered\n",
                         imported->lines, opt.results, imported->answered, imported->errored,
                         imported->skipped, counts->answered, counts->samples)
                 .c_str(),
             stdout);
  if (counts->answered < counts->samples) {
    PrintNote(fmt::format("{} sample(s) still unanswered: the same 'run' command without "
                          "--offline asks them online (or with --offline FILE writes them again)",
                          counts->samples - counts->answered));
  }
  return tally->errors() > 0 ? kExitFailures : kExitOk;
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
  cmd->add_option("--score-jobs,-J", opt->jobs,
                  "threads (and python3 workers) scoring the code subtasks (default: the "
                  "number of cores)");
  cmd->add_option("--nltk-data", opt->nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->python, "python3 for the code subtasks (see 'score')");
  cmd->callback([opt, exit_code]() { *exit_code = RunImport(*opt); });
}

}  // namespace structtest::cli
