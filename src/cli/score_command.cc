// `structtest score`: scores recorded responses (JSONL in the conformance format),
// writes one verdict line per record and prints the per-subtask table.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/sample.h"
#include "structtest/score_records.h"

namespace structtest::cli {

namespace {

struct ScoreOptions {
  std::string input;
  std::string output;
  std::string rules = "paper";
  std::string nltk_data;
  bool explain = false;
  std::string python;
  int jobs = 0;  // 0: not given (one per core)
};

constexpr int kMaxPrintedProblems = 20;

int RunScore(const ScoreOptions& opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  ScoreRecordsOptions options;
  options.input = opt.input;
  options.output = opt.output;
  options.rules = *rules;
  options.python = opt.python;
  options.score_jobs = opt.jobs;
  // A folder named on the command line is checked before anything is scored, and the
  // error names the flag.
  std::shared_ptr<const SentenceSplitter> named;
  if (!opt.nltk_data.empty()) {
    named = LoadSentenceSplitter(opt.nltk_data);
    if (named == nullptr) return kExitFatal;
    options.sentences = named.get();
  }
  // With the verdicts on stdout (-o -), the table and the failures go to stderr:
  // stdout stays JSONL.
  std::FILE* table = opt.output == "-" ? stderr : stdout;
  int printed = 0;
  bool explained = false;
  ScoreRecordsEvents events;
  events.problem = [&](std::string_view what) {
    if (printed++ < kMaxPrintedProblems) std::fputs(fmt::format("{}\n", what).c_str(), stderr);
  };
  events.error = [](std::string_view what) { PrintError(what); };
  if (opt.explain) {
    events.failed = [&](const Sample& sample, const Verdict& verdict) {
      explained = true;
      std::fputs(fmt::format("FAIL {} {}/{}: {}\n", sample.id, sample.domain, sample.subtask,
                             verdict.reason)
                     .c_str(),
                 table);
    };
  }
  auto result = ScoreRecords(options, events);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitFatal;
  }
  if (printed > kMaxPrintedProblems) {
    std::fputs(fmt::format("... and {} more problems\n", printed - kMaxPrintedProblems).c_str(),
               stderr);
  }
  if (result->scored == 0 && result->errors == 0 && result->bad_lines == 0) {
    // Nothing to score is unusable input (exit 2), not a table of dashes.
    PrintError(fmt::format("{}: no records to score", result->input));
    return kExitFatal;
  }
  if (explained) std::fputs("\n", table);
  std::fputs(result->table.c_str(), table);
  if (result->bad_lines > 0 || result->errors > 0) {
    std::fputs(fmt::format("\n{}: {} record(s) scored, {} malformed line(s) skipped, {} "
                           "record(s) could not be scored\n",
                           result->input, result->scored,
                           result->bad_lines, result->errors)
                   .c_str(),
               stderr);
    return kExitFailures;
  }
  return kExitOk;
}

}  // namespace

void SetupScore(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ScoreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score recorded responses (JSONL: id, domain, subtask, params, context, "
               "response) and print accuracy per subtask");
  cmd->add_option("--input,-i", opt->input, "records to score (JSONL; - for stdin)")
      ->required();
  cmd->add_option("--output,-o", opt->output,
                  "write one verdict per record here (JSONL; - for stdout)");
  cmd->add_option("--rules", opt->rules, "rule set: paper (default) or strict");
  cmd->add_option("--nltk-data", opt->nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->python,
                  "python3 for the code subtasks (default: $STRUCTTEST_PYTHON, else the "
                  "first of /usr/bin/python3 and python3 on PATH that has numpy)");
  AddScoreJobsOption(cmd, &opt->jobs);
  cmd->add_flag("--explain", opt->explain, "also print every failure with its reason");
  cmd->callback([opt, exit_code]() { *exit_code = RunScore(*opt); });
}

}  // namespace structtest::cli
