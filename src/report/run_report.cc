#include "report/run_report.h"

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
                                          const std::optional<nlohmann::json>& manifest) {
  ASSIGN_OR_RETURN(const auto served, store.ServedModels());
  std::string asked = manifest ? manifest->value("model", std::string()) : "";
  asked.erase(0, asked.find('/') + 1);
  nlohmann::json out = nlohmann::json::object();
  bool other = false;
  for (const auto& [name, answers] : served) {
    out[name] = answers;
    other = other || name != asked;
  }
  return other ? out : nlohmann::json();
}

}  // namespace structtest
