// `structtest correlate [FILE.csv] [--run MODEL=RUN ...]`: Pearson and Spearman
// correlations, with 95% intervals, between every pair of numeric columns of a table
// with a `model` column; --run adds a stored run's scores as columns for that model.
// Without FILE: the paper's Table 4 (report/correlate.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/across_runs.h"

namespace structtest::cli {

namespace {

struct CorrelateCliOptions {
  std::string file;
  std::vector<std::string> runs;
  std::string format = "text";
  std::string rules;  // empty: the runs' own (CompareRunsOptions::rules)
};

int RunCorrelate(const CorrelateCliOptions& opt) {
  if (opt.format != "text" && opt.format != "markdown" && opt.format != "json") {
    PrintError(fmt::format("--format {}: expected text, markdown or json", opt.format));
    return kExitFatal;
  }
  CorrelateRunsOptions options;
  if (!ParseOptionalRules(opt.rules, &options.rules)) return kExitFatal;
  options.table = opt.file;
  options.format = opt.format;
  for (const std::string& run : opt.runs) {
    const size_t eq = run.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == run.size()) {
      PrintError(fmt::format("--run {}: expected MODEL=RUN_DIR", run));
      return kExitFatal;
    }
    options.runs.emplace_back(run.substr(0, eq), run.substr(eq + 1));
  }
  auto report = CorrelateRunsReport(options);
  if (!report.ok()) {
    PrintError(report.status().message());
    return kExitFatal;
  }
  std::fputs(report->c_str(), stdout);
  return kExitOk;
}

}  // namespace

void SetupCorrelate(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<CorrelateCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "correlate", "Pearson and Spearman correlations, with 95% intervals, between the numeric "
                   "columns of a table of models (default: the paper's Table 4)");
  cmd->add_option("file", opt->file, "CSV with a 'model' column (default: the paper's Table 4)");
  cmd->add_option("--run", opt->runs,
                  "MODEL=RUN_DIR: add the run's All, Easy, Hard and domain scores as columns "
                  "for MODEL (repeatable)");
  cmd->add_option("--format", opt->format, "text (default), markdown or json");
  cmd->add_option("--rules", opt->rules, "whose stored verdicts --run reads (default: the rule set the runs were scored under; paper when both)");
  cmd->callback([opt, exit_code]() { *exit_code = RunCorrelate(*opt); });
}

}  // namespace structtest::cli
