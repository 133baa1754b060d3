// `structtest merge OUT RUN...`: the shard runs of one suite (or any runs of the same
// manifest) into one run directory (structtest/across_runs.h), then what is still missing: shards
// not merged yet, samples not answered yet. Run it again as more shards finish.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/across_runs.h"

namespace structtest::cli {

namespace {

struct MergeCliOptions {
  std::string out;
  std::vector<std::string> runs;
  bool quiet = false;
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

int RunMerge(const MergeCliOptions& opt) {
  auto result = MergeRunDirs(opt.out, opt.runs);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitFatal;
  }
  if (!opt.quiet) {
    for (const MergeReport::Added& run : result->runs) {
      PrintNote(fmt::format("merged {}{}: {} new sample(s), {} new answer(s), {} new error(s)",
                            run.dir, run.shard.empty() ? "" : " (shard " + run.shard + ")",
                            run.samples, run.answers, run.errors));
    }
  }
  const MergeReport& c = *result;
  std::string summary = fmt::format("{}: {} samples, {} answered, {} errored", opt.out, c.samples,
                                    c.answered, c.errored);
  if (result->shard_count && !result->unsharded) {
    summary += fmt::format("; shards {} of {} merged", result->shards.size(), *result->shard_count);
  }
  std::fputs((summary + "\n").c_str(), stdout);
  int exit_code = kExitOk;
  if (!result->missing_shards.empty()) {
    PrintNote(fmt::format("still missing: shard(s) {} (merge their runs into {} when they finish)",
                          Join(result->missing_shards), opt.out));
    exit_code = kExitFailures;
  }
  if (c.answered < c.requests) {
    PrintNote(fmt::format("still missing: {} of {} {} not answered in the merged shards "
                          "(resume their runs, then merge again)",
                          c.requests - c.answered, c.requests,
                          c.requests > c.samples ? "request(s) (samples x repeats)" : "sample(s)"));
    exit_code = kExitFailures;
  }
  if (exit_code == kExitOk && !opt.quiet) {
    PrintNote(fmt::format("complete: every sample answered; 'structtest report {}' for the table",
                          opt.out));
  }
  return exit_code;
}

}  // namespace

void SetupMerge(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<MergeCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Combine shard runs (run --shard I/N) or runs of the same manifest into one run "
      "directory; run again as more shards finish. Exit 1 while shards or answers are "
      "missing");
  cmd->add_option("out", opt->out, "the merged run directory (created when missing)")->required();
  cmd->add_option("runs", opt->runs, "the run directories to merge into it")->required();
  cmd->add_flag("--quiet,-q", opt->quiet, "only the summary line and what is missing");
  cmd->callback([opt, exit_code]() { *exit_code = RunMerge(*opt); });
}

}  // namespace structtest::cli
