// The tally of a stored run: every answered sample (each repeat of it, in a run of
// repeated samples: Tally::SetRepeats) by its stored verdict under a rule set, request
// errors and scoring errors as "not scored", unasked samples left out.
// Reads only: `structtest report` uses it on a run in progress too. And the models its
// server says answered it.
#ifndef STRUCTTEST_REPORT_RUN_REPORT_H_
#define STRUCTTEST_REPORT_RUN_REPORT_H_

#include <functional>
#include <optional>

#include "report/cost.h"
#include "report/tally.h"
#include "store/run_store.h"

namespace structtest {

// `on_row`, when given, sees every row as `read` reads it (whole by default: for
// listing failures, or the HTML report); without it the rows are read for the tally
// only, without the prompt, the answer and the reasoning (RunStore::ForEach).
StatusOr<Tally> TallyRun(RunStore& store, RuleSet rules,
                         const std::function<void(const RunRow&)>& on_row = nullptr,
                         RunStore::RowRead read = RunStore::RowRead::kWhole);

// The models the server says answered the run (RunStore::ServedModels) as report.json's
// "served_models": {name: answers}, when one of them is not the model the manifest
// asked for (the name after "PROVIDER/"); null otherwise.
StatusOr<nlohmann::json> ServedModelsJson(RunStore& store,
                                          const std::optional<RunManifest>& manifest);

// The report.json `run` wrote into `dir`; null when there is none or it does not parse.
nlohmann::json StoredReportJson(const std::string& dir);

// The price of the run in `dir`: the one its report.json's usage block records (what
// `run` costed it at), else the built-in table's line for its model.
StatusOr<std::optional<Price>> RecordedPrice(const std::string& dir,
                                             const std::optional<RunManifest>& manifest);

// A run's report.json, the one document `run` writes and `report --format json` prints:
// RenderJsonReport of `tally` under `rules`, the "manifest", the counts ("samples",
// "answered", "errored", "truncated"), "served_models" when the server named another
// model, and with `usage_price` (a model was asked: the price it is costed at, or none)
// the token "usage" and its cost (AddUsageJson).
StatusOr<nlohmann::json> RunReportJson(RunStore& store, const Tally& tally, RuleSet rules,
                                       const std::optional<std::optional<Price>>& usage_price);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_RUN_REPORT_H_
