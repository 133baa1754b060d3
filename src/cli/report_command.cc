// `structtest report RUN`: the table of a stored run, from its stored verdicts, without
// asking or scoring anything: as text, Markdown (to paste next to the paper's tables)
// or JSON, or as one self-contained HTML page of one or more runs (html_report.h).
// --explain lists every failing sample with its reason. It only reads, so it also shows a
// run still in progress.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/file_util.h"
#include "core/jsonl.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "store/run_store.h"

namespace structtest::cli {

namespace {

struct ReportOptions {
  std::vector<std::string> runs;
  std::string run;  // runs[0]
  std::string format = "text";
  std::string output;
  std::string rules;  // empty: the run's own (StoredRuleSet)
  bool explain = false;
};

int RunHtmlReport(const ReportOptions& opt, RuleSet rules) {
  if (opt.output.empty()) {
    PrintError("--format html: needs --output FILE (the page is several megabytes)");
    return kExitFatal;
  }
  if (const Status written = WriteHtmlReport(opt.runs, rules, opt.output); !written.ok()) {
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
  if (opt.format == "html") {
    auto rules = ParseRuleSet(opt.rules.empty() ? "paper" : opt.rules);
    if (!rules.ok()) {
      PrintError(rules.status().message());
      return kExitFatal;
    }
    return RunHtmlReport(opt, *rules);
  }
  if (opt.runs.size() != 1) {
    PrintError(fmt::format("--format {}: takes one run (html shows several; 'structtest "
                           "compare' compares them)",
                           opt.format));
    return kExitFatal;
  }
  opt.run = opt.runs[0];
  auto store = RunStore::OpenReadOnly(opt.run);
  if (!store.ok()) {
    PrintError(store.status().message());
    return kExitFatal;
  }
  const std::optional<RuleSet> rules = StoredRuleSet(**store, opt.rules);
  if (!rules) return kExitFatal;
  // The run's database and its log are the input: writing over them would lose the run.
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string file = opt.run + "/" + std::string(RunStore::kFileName) + suffix;
    if (Status s = CheckOutputIsNotInput(file, opt.output); !opt.output.empty() && !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
  }
  std::string failures;
  auto tally = TallyRun(**store, *rules, [&](const RunRow& row) {
    if (!opt.explain || !row.response) return;
    const std::string where = fmt::format("{} {}/{}", row.sample.id, row.sample.domain,
                                          row.sample.subtask);
    if (!row.response->ok) {
      failures += fmt::format("ERROR {}: {}\n", where, row.response->error);
    } else if (!row.verdict) {
      failures += fmt::format("UNSCORED {}: no verdict under rules {} yet\n", where,
                              RuleSetName(*rules));
    } else if (!row.verdict->error.empty()) {
      failures += fmt::format("UNSCORED {}: {}\n", where, row.verdict->error);
    } else if (!row.verdict->pass) {
      failures += fmt::format("FAIL {}: {}\n", where, row.verdict->reason);
    }
  });
  auto counts = (*store)->Counts();
  if (!tally.ok() || !counts.ok()) {
    PrintError(!tally.ok() ? tally.status().message() : counts.status().message());
    return kExitFatal;
  }
  std::string out = failures;
  if (!failures.empty()) out += "\n";
  if (opt.format == "json") {
    nlohmann::json j = RenderJsonReport(*tally, *rules);
    j["samples"] = counts->samples;
    j["answered"] = counts->answered;
    j["errored"] = counts->errored;
    j["truncated"] = counts->truncated;
    out += j.dump(2) + "\n";
  } else {
    out += opt.format == "markdown" ? RenderMarkdownReport(*tally, *rules)
                                    : RenderTextReport(*tally, *rules);
    out += fmt::format("\n{}: answered {} of {} {}, {} errored, {} not asked yet\n", opt.run,
                       counts->answered, counts->slots,
                       counts->slots > counts->samples
                           ? fmt::format("requests ({} samples x {} repeats)", counts->samples,
                                         counts->slots / counts->samples)
                           : "samples",
                       counts->errored, counts->slots - counts->answered - counts->errored);
  }
  if (opt.output.empty() || opt.output == "-") {
    std::fputs(out.c_str(), stdout);
  } else if (const Status s = WriteFileAtomically(opt.output, out); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
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
