// structtest/across_runs.h over report/compare.h, report/correlate.h and store/merge.h.
#include "structtest/across_runs.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "report/compare.h"
#include "report/correlate.h"
#include "structtest/run_reader.h"
#include "store/merge.h"

namespace structtest {

namespace {

Status CheckFormat(std::string_view format) {
  if (format == "text" || format == "markdown" || format == "json") return Status::Ok();
  return Status::InvalidArgument(fmt::format("format {}: expected text, markdown or json", format));
}

// The rule set runs default to: the one each was scored under (paper first, as for one
// run: RunReader::ChooseRuleSet). Runs that do not open, or hold no verdict yet, have
// no say; what is wrong with them is reported where they are read.
RuleSet SharedRuleSet(const std::vector<std::string>& run_dirs) {
  bool all_paper = true, all_strict = true;
  for (const std::string& dir : run_dirs) {
    auto reader = RunReader::Open(dir);
    if (!reader.ok()) continue;
    auto scored = (*reader)->ScoredRuleSets();
    if (!scored.ok() || scored->empty()) continue;
    const auto has = [&](std::string_view name) {
      return std::find(scored->begin(), scored->end(), name) != scored->end();
    };
    all_paper = all_paper && has("paper");
    all_strict = all_strict && has("strict");
  }
  return !all_paper && all_strict ? RuleSet::kStrict : RuleSet::kPaper;
}

}  // namespace

StatusOr<std::string> CompareRunsReport(const std::vector<std::string>& run_dirs,
                                        const CompareRunsOptions& options) {
  RETURN_IF_ERROR(CheckFormat(options.format));
  if (run_dirs.size() < 2) {
    return Status::InvalidArgument(
        fmt::format("compare: expected two run directories or more, got {}", run_dirs.size()));
  }
  const RuleSet rules = options.rules.value_or(SharedRuleSet(run_dirs));
  CompareOptions compare;
  compare.rules = rules;
  compare.flips = options.flips;
  ASSIGN_OR_RETURN(const std::vector<Comparison> comparisons, CompareRuns(run_dirs, compare));
  if (options.format == "json") {
    return RenderCompareJson(comparisons, rules, options.flips).dump(2) + "\n";
  }
  return options.format == "markdown" ? RenderCompareMarkdown(comparisons, rules, options.flips)
                                      : RenderCompareText(comparisons, rules, options.flips);
}

StatusOr<std::string> CorrelateRunsReport(const CorrelateRunsOptions& options) {
  RETURN_IF_ERROR(CheckFormat(options.format));
  ASSIGN_OR_RETURN(ModelTable table, options.table.empty()
                                         ? ParseModelTable(PaperTable4Csv(), kPaperTable4Name)
                                         : LoadModelTable(options.table));
  std::vector<std::string> dirs;
  for (const auto& run : options.runs) dirs.push_back(run.second);
  const RuleSet rules = options.rules.value_or(SharedRuleSet(dirs));
  for (const auto& [model, dir] : options.runs) {
    RETURN_IF_ERROR(AddRunColumns(&table, model, dir, rules));
  }
  const std::vector<ColumnPair> pairs = CorrelateColumns(table);
  if (options.format == "json") return RenderCorrelationsJson(table, pairs).dump(2) + "\n";
  return options.format == "markdown" ? RenderCorrelationsMarkdown(table, pairs)
                                      : RenderCorrelationsText(table, pairs);
}

StatusOr<MergeReport> MergeRunDirs(const std::string& out,
                                   const std::vector<std::string>& run_dirs) {
  auto result = MergeRuns(out, run_dirs);
  if (!result.ok()) return result.status().WithContext("merge");
  const MergeResult& merged = *result;
  MergeReport report;
  for (const MergedRun& run : merged.runs) {
    report.runs.push_back(
        {run.dir, run.shard, run.added.samples, run.added.answers, run.added.errors});
  }
  report.samples = merged.counts.samples;
  report.requests = merged.counts.slots;
  report.answered = merged.counts.answered;
  report.errored = merged.counts.errored;
  report.shard_count = merged.shard_count;
  report.shards = merged.shards;
  report.missing_shards = merged.missing_shards;
  report.unsharded = merged.unsharded;
  RETURN_IF_ERROR(WriteRunReports(out).WithContext("merge"));
  return report;
}

}  // namespace structtest
