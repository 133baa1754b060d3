// `structtest export RUN`: the records of a run directory as JSONL in the score
// format (the sample, "response", "reasoning"), with what the run learned about each:
// finish reason, token usage, latency, attempts, the model the server says answered,
// the run's request settings and the stored verdict; in a run of repeated samples (run
// --repeats K), a record per sample and repeat, with its "repeat" (0 to K - 1). Piped into
// `structtest score`, it rescores a run with another rule set without asking the
// model again.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/run_reader.h"

namespace structtest::cli {

namespace {

struct ExportOptions {
  std::string run;
  std::string format = "jsonl";
  std::string output = "-";
  std::string rules;  // empty: the run's own (RunReader::ChooseRuleSet)
  bool all = false;
};

int RunExport(const ExportOptions& opt) {
  if (opt.format != "jsonl") {
    PrintError(fmt::format("--format {}: expected jsonl", opt.format));
    return kExitFatal;
  }
  std::optional<ReadRun> run = OpenRunToRead(opt.run, opt.rules);
  if (!run) return kExitFatal;
  auto counts = run->reader->ExportJsonl(run->rules, opt.output, opt.all);
  if (!counts.ok()) {
    PrintError(counts.status().message());
    return kExitFatal;
  }
  const int64_t written = counts->written, skipped = counts->left_out;
  std::fputs(fmt::format("structtest: {} record(s) exported from {}{}\n", written, opt.run,
                         skipped > 0 ? fmt::format("; {} errored or unanswered left out "
                                                   "(--all includes them)",
                                                   skipped)
                                     : "")
                 .c_str(),
             stderr);
  return kExitOk;
}

}  // namespace

void SetupExport(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a run's records (sample, response, reasoning, usage, verdict) as JSONL "
                "in the score format");
  cmd->add_option("RUN_DIR", opt->run, "run directory (the --out of 'structtest run')")->required();
  cmd->add_option("--format", opt->format, "jsonl (the only format so far)");
  cmd->add_option("--output,-o", opt->output, "where to write (default - : stdout)");
  cmd->add_option("--rules", opt->rules,
                  "whose stored verdicts to include (default: the rule set the run was scored "
                  "under, paper when both)");
  cmd->add_flag("--all", opt->all,
                "also the samples that errored or were not asked yet (without a response)");
  cmd->callback([opt, exit_code]() { *exit_code = RunExport(*opt); });
}

}  // namespace structtest::cli
