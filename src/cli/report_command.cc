// `structtest report RUN`: the table of a stored run, from its stored verdicts, without
// asking or scoring anything: as text, Markdown (to paste next to the paper's tables)
// or JSON, or as one self-contained HTML page of one or more runs (html_report.h).
// --explain lists every failing sample with its reason. It only reads, so it also shows a
// run still in progress.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/run_reader.h"

namespace structtest::cli {

namespace {

struct ReportOptions {
  std::vector<std::string> runs;
  std::string run;  // runs[0]
  std::string format = "text";
  std::string output;
  std::string rules;  // empty: the run's own (RunReader::ChooseRuleSet)
  bool explain = false;
};

int RunHtmlReport(const ReportOptions& opt) {
  if (opt.output.empty()) {
    PrintError("--format html: needs --output FILE (the page is several megabytes)");
    return kExitFatal;
  }
  if (const Status written = WriteRunsPage(opt.runs, opt.rules, opt.output); !written.ok()) {
    PrintError(written.message());
    return kExitFatal;
  }
  return kExitOk;
}

int RunReport(ReportOptions opt) {
  if (opt.format != "text" && opt.format != "markdown" && opt.format != "json" &&
      opt.format != "html") {
    PrintError(fmt::format("--format {}: expected text, markdown, json or html", opt.format));
    return kExitFatal;
  }
  if (opt.format == "html") return RunHtmlReport(opt);
  if (opt.runs.size() != 1) {
    PrintError(fmt::format("--format {}: takes one run (html shows several; 'structtest "
                           "compare' compares them)",
                           opt.format));
    return kExitFatal;
  }
  opt.run = opt.runs[0];
  std::optional<ReadRun> run = OpenRunToRead(opt.run, opt.rules);
  if (!run) return kExitFatal;
  if (!opt.output.empty() && opt.output != "-") {
    if (const Status s = run->reader->WriteReport(run->rules, opt.format, opt.explain, opt.output);
        !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
    return kExitOk;
  }
  auto out = run->reader->Report(run->rules, opt.format, opt.explain);
  if (!out.ok()) {
    PrintError(out.status().message());
    return kExitFatal;
  }
  std::fputs(out->c_str(), stdout);
  return kExitOk;
}

}  // namespace

void SetupReport(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print the table of a stored run (text, markdown or json) from its verdicts, "
                "or write an HTML page of one or more runs, without asking or scoring; "
                "also while it runs");
  cmd->add_option("RUN_DIR", opt->runs,
                  "run directory (the --out of 'structtest run'); several for --format html")
      ->required();
  cmd->add_option("--format", opt->format, "text (default), markdown, json or html");
  cmd->add_option("--output,-o", opt->output,
                  "write the report to FILE instead of stdout (required for --format html)");
  cmd->add_option("--rules", opt->rules,
                  "whose stored verdicts to use (default: the rule set the run was scored "
                  "under, paper when both)");
  cmd->add_flag("--explain", opt->explain,
                "also list every failing, errored or unscored sample with its reason");
  cmd->callback([opt, exit_code]() { *exit_code = RunReport(*opt); });
}

}  // namespace structtest::cli
