// structtest/runs.h over report/compare.h, report/correlate.h and store/merge.h.
#include "structtest/runs.h"

#include <fmt/format.h>

#include "report/compare.h"
#include "report/correlate.h"
#include "store/merge.h"

namespace structtest {

namespace {

Status CheckFormat(std::string_view format) {
  if (format == "text" || format == "markdown" || format == "json") return Status::Ok();
  return Status::InvalidArgument(fmt::format("format {}: expected text, markdown or json", format));
}

}  // namespace

StatusOr<std::string> CompareRunsReport(const std::vector<std::string>& run_dirs,
                                        const CompareRunsOptions& options) {
  RETURN_IF_ERROR(CheckFormat(options.format));
  if (run_dirs.size() < 2) {
    return Status::InvalidArgument(
        fmt::format("compare: expected two run directories or more, got {}", run_dirs.size()));
  }
  CompareOptions compare;
  compare.rules = options.rules;
  compare.flips = options.flips;
  ASSIGN_OR_RETURN(const std::vector<Comparison> comparisons, CompareRuns(run_dirs, compare));
  if (options.format == "json") {
    return RenderCompareJson(comparisons, options.rules, options.flips).dump(2) + "\n";
  }
  return options.format == "markdown"
             ? RenderCompareMarkdown(comparisons, options.rules, options.flips)
             : RenderCompareText(comparisons, options.rules, options.flips);
}

StatusOr<std::string> CorrelateRunsReport(const CorrelateRunsOptions& options) {
  RETURN_IF_ERROR(CheckFormat(options.format));
  ASSIGN_OR_RETURN(ModelTable table, options.table.empty()
                                         ? ParseModelTable(PaperTable4Csv(), kPaperTable4Name)
                                         : LoadModelTable(options.table));
  for (const auto& [model, dir] : options.runs) {
    RETURN_IF_ERROR(AddRunColumns(&table, model, dir, options.rules));
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
  return report;
}

}  // namespace structtest
