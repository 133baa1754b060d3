#include "report/run_report.h"

#include "core/status_macros.h"
#include "core/file_util.h"

namespace structtest {

StatusOr<Tally> TallyRun(RunStore& store, RuleSet rules,
                         const std::function<void(const RunRow&)>& on_row,
                         RunStore::RowRead read) {
  const std::string_view name = RuleSetName(rules);
  Tally tally;
  tally.SetRepeats(store.repeats());
  RETURN_IF_ERROR(store.ForEach(name, [&](const RunRow& row) {
    if (on_row) on_row(row);
    if (!row.response) return Status::Ok();  // not asked yet
    const StoredResponse& r = *row.response;
    tally.AddUsage(row.sample, r.ok, r.input_tokens, r.output_tokens, r.reasoning_tokens,
                   r.cached, r.batch);
    if (!row.response->ok || !row.verdict || !row.verdict->error.empty()) {
      tally.AddError(row.sample, row.repeat);
      return Status::Ok();
    }
    Verdict v;
    v.pass = row.verdict->pass;
    v.reason = row.verdict->reason;
    v.rules = name;
    v.rules_version = row.verdict->rules_version;
    v.format = row.verdict->format;
    v.accuracy = row.verdict->accuracy;
    v.checks = row.verdict->checks;
    tally.Add(row.sample, v, row.repeat);
    return Status::Ok();
  }, on_row ? read : RunStore::RowRead::kTally));
  return tally;
}

StatusOr<nlohmann::json> ServedModelsJson(RunStore& store,
                                          const std::optional<RunManifest>& manifest) {
  ASSIGN_OR_RETURN(const auto served, store.ServedModels());
  std::string asked = manifest ? manifest->model : "";
  asked.erase(0, asked.find('/') + 1);
  nlohmann::json out = nlohmann::json::object();
  bool other = false;
  for (const auto& [name, answers] : served) {
    out[name] = answers;
    other = other || name != asked;
  }
  return other ? out : nlohmann::json();
}

nlohmann::json StoredReportJson(const std::string& dir) {
  const StatusOr<std::string> text = ReadFileToString(dir + "/report.json");
  if (!text.ok()) return nlohmann::json();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json() : j;
}

StatusOr<std::optional<Price>> RecordedPrice(const std::string& dir,
                                             const std::optional<RunManifest>& manifest) {
  const nlohmann::json j = StoredReportJson(dir);
  {
    if (j.is_object() && j.contains("usage") && j["usage"].is_object()) {
      const nlohmann::json& p = j["usage"].value("price", nlohmann::json());
      if (p.is_object() && p.value("input_usd_per_mtok", nlohmann::json()).is_number() &&
          p.value("output_usd_per_mtok", nlohmann::json()).is_number()) {
        Price price;
        price.model = p.value("model", "");
        price.input_per_mtok = p["input_usd_per_mtok"].get<double>();
        price.output_per_mtok = p["output_usd_per_mtok"].get<double>();
        price.date = p.value("date", "");
        price.source = p.value("source", "");
        return std::optional<Price>(price);
      }
    }
  }
  if (!manifest) return std::optional<Price>();
  return BuiltinPrice(manifest->model);
}

StatusOr<nlohmann::json> RunReportJson(RunStore& store, const Tally& tally, RuleSet rules,
                                       const std::optional<std::optional<Price>>& usage_price) {
  nlohmann::json report = RenderJsonReport(tally, rules);
  ASSIGN_OR_RETURN(const std::optional<RunManifest> manifest, store.Manifest());
  ASSIGN_OR_RETURN(const nlohmann::json served, ServedModelsJson(store, manifest));
  ASSIGN_OR_RETURN(const RunCounts counts, store.Counts());
  if (!served.is_null()) report["served_models"] = served;
  report["manifest"] = manifest ? manifest->ToJson() : nlohmann::json();
  report["samples"] = counts.samples;
  report["answered"] = counts.answered;
  report["errored"] = counts.errored;
  report["truncated"] = counts.truncated;
  if (usage_price) AddUsageJson(tally, *usage_price, &report);
  return report;
}

}  // namespace structtest
