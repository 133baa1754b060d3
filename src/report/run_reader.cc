#include "structtest/run_reader.h"

#include <algorithm>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/file_util.h"
#include "core/jsonl.h"
#include "report/aggregates.h"
#include "report/html_report.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "store/run_store.h"

namespace structtest {

RunReader::RunReader(std::unique_ptr<RunStore> store) : store_(std::move(store)) {}
RunReader::~RunReader() = default;

StatusOr<std::unique_ptr<RunReader>> RunReader::Open(const std::string& dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, RunStore::OpenReadOnly(dir));
  return std::unique_ptr<RunReader>(new RunReader(std::move(store)));
}

StatusOr<std::vector<std::string>> RunReader::ScoredRuleSets() {
  return store_->ScoredRuleSets();
}

StatusOr<RuleSet> ChooseStoredRuleSet(const std::vector<std::string>& scored,
                                      std::string_view asked, std::string_view dir) {
  const auto has = [&](std::string_view name) {
    return std::find(scored.begin(), scored.end(), name) != scored.end();
  };
  if (asked.empty()) return !has("paper") && has("strict") ? RuleSet::kStrict : RuleSet::kPaper;
  ASSIGN_OR_RETURN(const RuleSet rules, ParseRuleSet(asked));
  // A run with no verdicts at all (nothing answered yet) shows as not scored.
  if (!scored.empty() && !has(RuleSetName(rules))) {
    std::string under;
    for (const std::string& name : scored) under += (under.empty() ? "" : " and ") + name;
    return Status::InvalidArgument(
        fmt::format("{}: no verdicts under rules {} (it was scored under {}); score its "
                    "answers with 'structtest rescore {} --rules {}'",
                    dir, asked, under, dir, asked));
  }
  return rules;
}

StatusOr<RuleSet> RunReader::ChooseRuleSet(std::string_view asked) {
  ASSIGN_OR_RETURN(const std::vector<std::string> scored, store_->ScoredRuleSets());
  return ChooseStoredRuleSet(scored, asked, store_->dir());
}

StatusOr<RunInfo> RunReader::Info() {
  ASSIGN_OR_RETURN(const std::optional<RunManifest> manifest, store_->Manifest());
  const RunManifest stored = manifest.value_or(RunManifest());
  RunInfo info;
  info.dir = store_->dir();
  info.model = stored.model;
  info.repeats = store_->repeats();
  if (!IsBuiltinModel(info.model)) info.request = stored.RequestSettings();
  for (const char* suffix : {"", "-wal", "-shm"}) {
    info.files.push_back(info.dir + "/" + std::string(RunStore::kFileName) + suffix);
  }
  return info;
}

Status RunReader::ForEachResult(RuleSet rules,
                                const std::function<Status(const SampleResult&)>& fn,
                                bool with_samples) {
  return store_->ForEach(
      RuleSetName(rules),
      [&](const RunRow& row) {
        SampleResult r;
        r.index = row.index;
        r.repeat = row.repeat;
        r.id = row.sample.id;
        r.domain = row.sample.domain;
        r.subtask = row.sample.subtask;
        if (with_samples) r.sample = row.sample;
        if (row.response) {
          const StoredResponse& reply = *row.response;
          r.asked = true;
          r.answered = reply.ok;
          if (reply.ok) {
            r.response = reply.text;
            r.reasoning = reply.reasoning;
          } else {
            r.error = reply.error;
          }
          r.finish = reply.finish;
          r.finish_raw = reply.finish_raw;
          r.input_tokens = reply.input_tokens;
          r.output_tokens = reply.output_tokens;
          r.reasoning_tokens = reply.reasoning_tokens;
          r.latency_ms = reply.latency_ms;
          r.http_status = reply.http_status;
          r.attempts = reply.attempts;
          r.cached = reply.cached;
          r.served_model = reply.served_model;
        }
        if (row.verdict) {
          if (row.verdict->error.empty()) {
            r.scored = true;
            r.passed = row.verdict->pass;
            r.reason = row.verdict->reason;
            r.rules_version = row.verdict->rules_version;
            r.checks = row.verdict->checks;
            r.format = row.verdict->format;
            r.accuracy = row.verdict->accuracy;
          } else {
            r.scoring_error = row.verdict->error;
          }
        }
        return fn(r);
      },
      with_samples ? RunStore::RowRead::kWhole : RunStore::RowRead::kNoPrompt);
}

nlohmann::json ExportRecord(const SampleResult& r, RuleSet rules, const RunInfo& info) {
  nlohmann::json j = r.sample ? SampleToJson(*r.sample)
                              : nlohmann::json{{"id", r.id}, {"domain", r.domain},
                                               {"subtask", r.subtask}};
  if (info.repeats > 1) j["repeat"] = r.repeat;
  if (!r.asked) {
    j["status"] = "pending";
    return j;
  }
  j["status"] = r.answered ? "answered" : "error";
  if (r.answered) {
    j["response"] = r.response;
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
  if (!info.request.is_null()) j["request"] = info.request;
  if (r.scored || !r.scoring_error.empty()) {
    nlohmann::json verdict = {{"rules", RuleSetName(rules)}};
    if (!r.scoring_error.empty()) {
      verdict["error"] = r.scoring_error;
    } else {
      verdict["pass"] = r.passed;
      verdict["reason"] = r.reason;
      verdict["rules_version"] = r.rules_version;
      if (r.format) verdict["format"] = *r.format;
      if (r.accuracy) verdict["accuracy"] = *r.accuracy;
      if (!r.checks.empty()) {
        verdict["checks"] = ChecksToJson(r.checks);
        verdict["score"] = RulesScore(r.passed, r.checks);
      }
    }
    j["verdict"] = std::move(verdict);
  }
  return j;
}

namespace {

// CheckNotOwnFile of the run `info` describes.
Status CheckNotOwnFileOf(const RunInfo& info, const std::string& path) {
  for (const std::string& file : info.files) RETURN_IF_ERROR(CheckOutputIsNotInput(file, path));
  return Status::Ok();
}

}  // namespace

Status RunReader::CheckNotOwnFile(const std::string& path) {
  ASSIGN_OR_RETURN(const RunInfo info, Info());
  return CheckNotOwnFileOf(info, path);
}

Status RunReader::WriteReport(RuleSet rules, std::string_view format, bool explain,
                              const std::string& path) {
  RETURN_IF_ERROR(CheckNotOwnFile(path));
  ASSIGN_OR_RETURN(const std::string text, Report(rules, format, explain));
  return WriteFileAtomically(path, text);
}

StatusOr<RunReader::ExportCounts> RunReader::ExportJsonl(RuleSet rules, const std::string& path,
                                                         bool all) {
  ASSIGN_OR_RETURN(const RunInfo info, Info());
  RETURN_IF_ERROR(CheckNotOwnFileOf(info, path));
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlWriter> writer, JsonlWriter::Open(path));
  ExportCounts counts;
  RETURN_IF_ERROR(ForEachResult(
      rules,
      [&](const SampleResult& r) {
        if (!all && !r.answered) {
          ++counts.left_out;
          return Status::Ok();
        }
        ++counts.written;
        return writer->Write(ExportRecord(r, rules, info));
      },
      /*with_samples=*/true));
  RETURN_IF_ERROR(writer->Close());
  return counts;
}

StatusOr<std::string> RunReader::Report(RuleSet rules, std::string_view format, bool explain) {
  if (format != "text" && format != "markdown" && format != "json") {
    return Status::InvalidArgument(
        fmt::format("report format {}: expected text, markdown or json", format));
  }
  // With `explain`, the requests that did not pass: lines before the table, or in JSON
  // an "explained" list of the document (its stdout stays one JSON value).
  std::string out;
  nlohmann::json explained = nlohmann::json::array();
  ASSIGN_OR_RETURN(const Tally tally, TallyRun(*store_, rules, [&](const RunRow& row) {
    if (!explain || !row.response) return;
    std::string_view kind;
    std::string reason;
    if (!row.response->ok) {
      kind = "error";
      reason = row.response->error;
    } else if (!row.verdict) {
      kind = "unscored";
      reason = fmt::format("no verdict under rules {} yet", RuleSetName(rules));
    } else if (!row.verdict->error.empty()) {
      kind = "unscored";
      reason = row.verdict->error;
    } else if (!row.verdict->pass) {
      kind = "fail";
      reason = row.verdict->reason;
    } else {
      return;
    }
    if (format == "json") {
      explained.push_back({{"id", row.sample.id},
                           {"domain", row.sample.domain},
                           {"subtask", row.sample.subtask},
                           {"result", kind},
                           {"reason", reason}});
      return;
    }
    out += fmt::format("{} {} {}/{}: {}\n",
                       kind == "error" ? "ERROR" : kind == "fail" ? "FAIL" : "UNSCORED",
                       row.sample.id, row.sample.domain, row.sample.subtask, reason);
  }));
  ASSIGN_OR_RETURN(const RunCounts counts, store_->Counts());
  if (!out.empty()) out += "\n";
  if (format == "json") {
    // report.json as `run` wrote it: with the usage block when it has one, at its price.
    std::optional<std::optional<Price>> usage_price;
    if (const nlohmann::json stored = StoredReportJson(store_->dir());
        stored.is_object() && stored.contains("usage")) {
      ASSIGN_OR_RETURN(const std::optional<RunManifest> manifest, store_->Manifest());
      ASSIGN_OR_RETURN(usage_price, RecordedPrice(store_->dir(), manifest));
    }
    ASSIGN_OR_RETURN(nlohmann::json j, RunReportJson(*store_, tally, rules, usage_price));
    if (explain) j["explained"] = std::move(explained);
    return j.dump(2) + "\n";
  }
  out += format == "markdown" ? RenderMarkdownReport(tally, rules) : RenderTextReport(tally, rules);
  out += fmt::format("\n{}: answered {} of {} {}, {} errored, {} not asked yet\n", store_->dir(),
                     counts.answered, counts.slots,
                     counts.slots > counts.samples
                         ? fmt::format("requests ({} samples x {} repeats)", counts.samples,
                                       counts.slots / counts.samples)
                         : "samples",
                     counts.errored, counts.slots - counts.answered - counts.errored);
  return out;
}

Status WriteRunsPage(const std::vector<std::string>& run_dirs, std::string_view rules,
                     const std::string& path) {
  // Every run must hold verdicts under the rule set shown (a page of dashes would say
  // nothing); without one asked, the rule set each was scored under, which must agree.
  std::optional<RuleSet> shown;
  std::string first_dir;
  for (const std::string& dir : run_dirs) {
    ASSIGN_OR_RETURN(const std::unique_ptr<RunReader> reader, RunReader::Open(dir));
    ASSIGN_OR_RETURN(const RuleSet chosen, reader->ChooseRuleSet(rules));
    if (shown && *shown != chosen) {
      return Status::InvalidArgument(fmt::format(
          "{} and {} were scored under different rules ({} and {}): choose one with "
          "--rules, after rescoring the other run with 'structtest rescore RUN_DIR --rules ...'",
          first_dir, dir, RuleSetName(*shown), RuleSetName(chosen)));
    }
    if (!shown) first_dir = dir;
    shown = chosen;
  }
  return WriteHtmlReport(run_dirs, shown.value_or(RuleSet::kPaper), path);
}

Status WriteRunReports(const std::string& dir) {
  ASSIGN_OR_RETURN(const std::unique_ptr<RunStore> opened, RunStore::OpenReadOnly(dir));
  RunStore& store = *opened;
  ASSIGN_OR_RETURN(const std::vector<std::string> scored, store.ScoredRuleSets());
  if (scored.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(const RuleSet rules, ChooseStoredRuleSet(scored, "", dir));
  ASSIGN_OR_RETURN(const std::optional<RunManifest> manifest, store.Manifest());
  std::optional<std::optional<Price>> usage_price;
  if (manifest && !IsBuiltinModel(manifest->model)) {
    ASSIGN_OR_RETURN(usage_price, RecordedPrice(dir, manifest));
  }
  // The page tallies the run as it reads its rows: report.json takes that tally, as
  // `run` does, rather than reading the run a second time.
  Tally tally;
  PageHooks hooks;
  hooks.tallied = [&](size_t, Tally&& t) { tally = std::move(t); };
  RETURN_IF_ERROR(WriteHtmlReport({dir}, rules, dir + "/report.html",
                                  {usage_price ? *usage_price : std::optional<Price>()}, hooks));
  ASSIGN_OR_RETURN(const nlohmann::json report, RunReportJson(store, tally, rules, usage_price));
  return WriteFileAtomically(dir + "/report.json", report.dump(2) + "\n");
}

StatusOr<RunResults> RunReader::Results(RuleSet rules) {
  ASSIGN_OR_RETURN(const RunCounts counts, store_->Counts());
  ASSIGN_OR_RETURN(const Tally tally, TallyRun(*store_, rules, nullptr, RunStore::RowRead::kTally));
  RunResults out;
  out.samples = counts.samples;
  out.requests = counts.slots;
  out.answered = counts.answered;
  out.errored = counts.errored;
  for (const SubtaskTally* s : tally.Subtasks()) {
    out.subtasks.push_back({s->domain, s->subtask, s->scored, s->passed, s->errors});
  }
  const Aggregates agg = tally.Compute();
  out.easy = agg.easy;
  out.hard = agg.hard;
  out.overall_easy = agg.overall_easy;
  out.overall_hard = agg.overall_hard;
  out.all = agg.all;
  return out;
}

}  // namespace structtest
