// `structtest report RUN`: the table of a stored run, from its stored verdicts, without
// asking or scoring anything: as text, Markdown (to paste next to the paper's tables)
// or JSON. --explain lists every failing sample with its reason. It only reads, so it
// also shows a run still in progress.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "store/run_store.h"

namespace structtest::cli {

namespace {

struct ReportOptions {
  std::string run;
  std::string format = "text";
  std::string rules = "paper";
  bool explain = false;
};

int RunReport(const ReportOptions& opt) {
  if (opt.format != "text" && opt.format != "markdown" && opt.format != "json") {
    PrintError(fmt::format("--format {}: expected text, markdown or json", opt.format));
    return kExitFatal;
  }
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  auto store = RunStore::OpenReadOnly(opt.run);
  if (!store.ok()) {
    PrintError(store.status().message());
    return kExitFatal;
  }
  std::string failures;
  auto tally = TallyRun(**store, *rules, [&](const RunRow& row) {
    if (!opt.explain || !row.response) return;
    const std::string where = fmt::format("{} {}/{}", row.sample.id, row.sample.domain,
                                          row.sample.subtask);
    if (!row.response->ok) {
      failures += fmt::format("ERROR {}: {}\n", where, row.response->error);
    } else if (!row.verdict) {
      failures += fmt::format("UNSCORED {}: no verdict under rules {} yet\n", where, opt.rules);
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
  std::fputs(failures.c_str(), stdout);
  if (!failures.empty()) std::fputs("\n", stdout);
  if (opt.format == "json") {
    nlohmann::json j = RenderJsonReport(*tally, *rules);
    j["samples"] = counts->samples;
    j["answered"] = counts->answered;
    j["errored"] = counts->errored;
    j["truncated"] = counts->truncated;
    std::fputs((j.dump(2) + "\n").c_str(), stdout);
    return kExitOk;
  }
  std::fputs((opt.format == "markdown" ? RenderMarkdownReport(*tally, *rules)
                                       : RenderTextReport(*tally, *rules))
                 .c_str(),
             stdout);
  std::fputs(fmt::format("\n{}: answered {} of {} samples, {} errored, {} not asked yet\n",
                         opt.run, counts->answered, counts->samples, counts->errored,
                         counts->samples - counts->answered - counts->errored)
                 .c_str(),
             stdout);
  return kExitOk;
}

}  // namespace

void SetupReport(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print the table of a stored run (text, markdown or json) from its verdicts, "
                "without asking or scoring; also while it runs");
  cmd->add_option("run", opt->run, "run directory (the --out of 'structtest run')")->required();
  cmd->add_option("--format", opt->format, "text (default), markdown or json");
  cmd->add_option("--rules", opt->rules, "whose stored verdicts to use (default paper)");
  cmd->add_flag("--explain", opt->explain,
                "also list every failing, errored or unscored sample with its reason");
  cmd->callback([opt, exit_code]() { *exit_code = RunReport(*opt); });
}

}  // namespace structtest::cli
