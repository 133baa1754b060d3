// `structtest compare RUN_A RUN_B [RUN...]`: each run against the first, on the samples
// they share: per subtask, domain split and All, B - A with a 95% interval (report/stats.h),
// the flips and McNemar's exact test with Holm's correction (report/compare.h). Only
// reads the stores.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/across_runs.h"

namespace structtest::cli {

namespace {

struct CompareCliOptions {
  std::vector<std::string> runs;
  std::string format = "text";
  std::string rules;  // empty: the runs' own (CompareRunsOptions::rules)
  bool flips = false;
};

int RunCompare(const CompareCliOptions& opt) {
  if (opt.format != "text" && opt.format != "markdown" && opt.format != "json") {
    PrintError(fmt::format("--format {}: expected text, markdown or json", opt.format));
    return kExitFatal;
  }
  CompareRunsOptions options{std::nullopt, opt.format, opt.flips};
  if (!ParseOptionalRules(opt.rules, &options.rules)) return kExitFatal;
  auto report = CompareRunsReport(opt.runs, options);
  if (!report.ok()) {
    PrintError(report.status().message());
    return kExitFatal;
  }
  std::fputs(report->c_str(), stdout);
  return kExitOk;
}

}  // namespace

void SetupCompare(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<CompareCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare stored runs on the samples they share: B - A per subtask, domain "
                 "and All with 95% intervals, flips, McNemar's test");
  cmd->add_option("runs", opt->runs, "run directories: RUN_A RUN_B [RUN...] (each against RUN_A)")
      ->required();
  cmd->add_option("--format", opt->format, "text (default), markdown or json");
  cmd->add_option("--rules", opt->rules, "whose stored verdicts to compare (default: the rule set the runs were scored under; paper when both)");
  cmd->add_flag("--flips", opt->flips, "list every flipped sample with both reasons");
  cmd->callback([opt, exit_code]() { *exit_code = RunCompare(*opt); });
}

}  // namespace structtest::cli
