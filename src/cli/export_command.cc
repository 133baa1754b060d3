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

#include "backends/request_controls.h"
#include "cli/commands.h"
#include "core/jsonl.h"
#include "store/run_store.h"

namespace structtest::cli {

namespace {

struct ExportOptions {
  std::string run;
  std::string format = "jsonl";
  std::string output = "-";
  std::string rules;  // empty: the run's own (StoredRuleSet)
  bool all = false;
};

// `request`: the run's request settings (RequestSettings), the same on every row; null
// for a built-in responder's run, which sends no request. `repeated`: the run asks each
// sample more than once, and the row says which repeat it is.
nlohmann::json RowToJson(const RunRow& row, std::string_view rules,
                         const nlohmann::json& request, bool repeated) {
  nlohmann::json j = SampleToJson(row.sample);
  if (repeated) j["repeat"] = row.repeat;
  if (!row.response) {
    j["status"] = "pending";
    return j;
  }
  const StoredResponse& r = *row.response;
  j["status"] = r.ok ? "answered" : "error";
  if (r.ok) {
    j["response"] = r.text;
    j["reasoning"] = r.reasoning;
  } else {
    j["error"] = r.error;
  }
  j["finish"] = r.finish;
  if (!r.finish_raw.empty()) j["finish_raw"] = r.finish_raw;
  j["usage"] = {{"input_tokens", r.input_tokens},
                {"output_tokens", r.output_tokens},
                {"reasoning_tokens", r.reasoning_tokens}};
  j["latency_ms"] = r.latency_ms;
  j["http_status"] = r.http_status;
  j["attempts"] = r.attempts;
  j["cached"] = r.cached;
  if (!r.served_model.empty()) j["served_model"] = r.served_model;
  if (!request.is_null()) j["request"] = request;
  if (row.verdict) {
    const StoredVerdict& v = *row.verdict;
    nlohmann::json verdict = {{"rules", rules}};
    if (!v.error.empty()) {
      verdict["error"] = v.error;
    } else {
      verdict["pass"] = v.pass;
      verdict["reason"] = v.reason;
      verdict["rules_version"] = v.rules_version;
      if (v.format) verdict["format"] = *v.format;
      if (v.accuracy) verdict["accuracy"] = *v.accuracy;
      if (!v.checks.empty()) {
        verdict["checks"] = ChecksToJson(v.checks);
        verdict["score"] = RulesScore(v.pass, v.checks);
      }
    }
    j["verdict"] = std::move(verdict);
  }
  return j;
}

int RunExport(const ExportOptions& opt) {
  if (opt.format != "jsonl") {
    PrintError(fmt::format("--format {}: expected jsonl", opt.format));
    return kExitFatal;
  }
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
    if (Status s = CheckOutputIsNotInput(file, opt.output); !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
  }
  auto writer = JsonlWriter::Open(opt.output);
  if (!writer.ok()) {
    PrintError(writer.status().message());
    return kExitFatal;
  }
  auto manifest = (*store)->Manifest();
  if (!manifest.ok()) {
    PrintError(manifest.status().message());
    return kExitFatal;
  }
  const nlohmann::json stored = manifest->value_or(nlohmann::json::object());
  const nlohmann::json request = stored.value("model", "").starts_with("builtin/")
                                     ? nlohmann::json()
                                     : RequestSettings(stored);
  const bool repeated = (*store)->repeats() > 1;
  int64_t written = 0, skipped = 0;
  Status s = (*store)->ForEach(RuleSetName(*rules), [&](const RunRow& row) {
    if (!opt.all && !(row.response && row.response->ok)) {
      ++skipped;
      return Status::Ok();
    }
    ++written;
    return (*writer)->Write(RowToJson(row, RuleSetName(*rules), request, repeated));
  });
  if (s.ok()) s = (*writer)->Close();
  if (!s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
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
