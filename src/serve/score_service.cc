#include "serve/score_service.h"

#include <exception>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/jsonl.h"
#include "core/record_io.h"
#include "structtest/checker.h"
#include "structtest/sample.h"
#include "structtest/serve.h"
#include "tasks/registry.h"

namespace structtest {

// One request's records and, as they are scored, their verdicts.
struct ScoreService::Batch {
  RuleSet rules = kServeDefaultRules;
  std::vector<ScoredRecord> records;
  // /v1/score's: each record's line, written by the thread scoring it (as `score`
  // writes it), without the newline. Otherwise each record's verdict, or why there is
  // none, for the reward endpoints.
  bool lines_only = false;
  std::vector<std::string> lines;
  std::vector<Verdict> verdicts;
  std::vector<std::string> errors;
};

namespace {

ServiceReply Error(int status, std::string_view message, std::string_view rules = "") {
  return ServiceReply{status, ErrorBody(message), rules};
}

}  // namespace

std::string ErrorBody(std::string_view message) {
  return DumpJsonLine(nlohmann::json{{"error", message}}) + "\n";
}

ScoreService::ScoreService(ScoreServiceOptions options)
    : options_(options),
      pool_({.threads = options.threads > 0 ? options.threads : DefaultScoreJobs(),
             .max_in_flight = options.max_in_flight}) {}

ScoreService::~ScoreService() = default;

ServiceReply ScoreService::Score(std::string_view body, Clock::time_point deadline,
                                 const QueryArgs& args) {
  if (auto params = ParseRewardParams(Endpoint::kScore, args, {}); !params.ok()) {
    return Error(400, params.status().message());
  }
  if (NestedTooDeep(body)) {
    return Error(400, fmt::format("arrays and objects nested deeper than {} levels", kMaxJsonDepth));
  }
  auto batch = std::make_shared<Batch>();
  batch->lines_only = true;
  nlohmann::json members;
  if (Status s = RecordsFromJsonText(body, "records", &batch->records, &members); !s.ok()) {
    return Error(400, s.message());
  }
  for (const auto& [key, value] : members.items()) {
    if (key != "rules") {
      return Error(400, fmt::format("unknown key '{}' (expected \"rules\" and \"records\")", key));
    }
    if (!value.is_string()) {
      return Error(400, fmt::format("rules: expected \"paper\" or \"strict\", found {}",
                                    value.type_name()));
    }
    auto rules = ParseRuleSet(value.get_ref<const std::string&>());
    if (!rules.ok()) return Error(400, "rules: " + rules.status().message());
    batch->rules = *rules;
  }
  const std::string_view rules = RuleSetName(batch->rules);
  for (size_t i = 0; i < batch->records.size(); ++i) {
    const Sample& sample = batch->records[i].sample;
    if (Status s = FindSubtask(sample.domain, sample.subtask).status(); !s.ok()) {
      return Error(400, fmt::format("records[{}]: {}", i, s.message()), rules);
    }
  }
  if (auto refused = Run(batch, deadline)) return *std::move(refused);

  std::string reply = fmt::format("{{\"rules\":\"{}\",\"verdicts\":[", rules);
  for (size_t i = 0; i < batch->records.size(); ++i) {
    if (i > 0) reply += ',';
    reply += batch->lines[i];
  }
  reply += "]}\n";
  return ServiceReply{200, std::move(reply), rules};
}

ServiceReply ScoreService::Reward(Endpoint endpoint, std::string_view body, const QueryArgs& args,
                                  Clock::time_point deadline) {
  RewardParams defaults;
  defaults.rules = kServeDefaultRules;
  auto params = ParseRewardParams(endpoint, args, defaults);
  if (!params.ok()) return Error(400, params.status().message());
  const std::string_view rules = RuleSetName(params->rules);
  if (NestedTooDeep(body)) {
    return Error(400, fmt::format("arrays and objects nested deeper than {} levels", kMaxJsonDepth),
                 rules);
  }
  auto batch = std::make_shared<Batch>();
  batch->rules = params->rules;
  std::optional<std::vector<ScoredRecord>> fast;
  if (endpoint == Endpoint::kOpenRlhf) fast = OpenRlhfRecordsFast(body, options_.end_tokens);
  nlohmann::json request;
  if (fast) {
    batch->records = std::move(*fast);
  } else if (!ParseJsonLikeNlohmann(body, &request)) {
    return Error(400, "not JSON: " + DescribeInvalidJson(body), rules);
  } else if (endpoint == Endpoint::kOpenRlhf) {
    auto records = OpenRlhfRecords(request, options_.end_tokens);
    if (!records.ok()) return Error(400, records.status().message(), rules);
    batch->records = std::move(*records);
  } else {
    auto record = SlimeRecord(request, options_.end_tokens);
    if (!record.ok()) return Error(400, record.status().message(), rules);
    batch->records.push_back(std::move(*record));
  }
  request = nullptr;
  if (auto refused = Run(batch, deadline)) {
    refused->rules = rules;
    return *std::move(refused);
  }
  for (size_t i = 0; i < batch->errors.size(); ++i) {
    if (!batch->errors[i].empty()) {
      return Error(500, endpoint == Endpoint::kOpenRlhf
                            ? fmt::format("labels[{}]: cannot score it: {}", i, batch->errors[i])
                            : fmt::format("label: cannot score it: {}", batch->errors[i]),
                   rules);
    }
  }
  std::string reply = endpoint == Endpoint::kOpenRlhf ? OpenRlhfReply(batch->verdicts, *params)
                                                      : SlimeReply(batch->verdicts[0], *params);
  return ServiceReply{200, std::move(reply), rules};
}

std::optional<ServiceReply> ScoreService::Run(const std::shared_ptr<Batch>& batch,
                                              Clock::time_point deadline) {
  const size_t n = batch->records.size();
  if (n > options_.max_in_flight) {
    return Error(413, fmt::format("{} records: at most {} per request (--max-in-flight)", n,
                                  options_.max_in_flight));
  }
  if (batch->lines_only) {
    batch->lines.resize(n);
  } else {
    batch->verdicts.resize(n);
    batch->errors.resize(n);
  }
  // Each task holds the batch: records a request gave up on may still be being scored.
  auto submitted =
      pool_.Submit(n, [this, batch](size_t i) { ScoreRecord(*batch, i); }, deadline);
  if (!submitted.ok()) {
    return Error(503, fmt::format("busy: {} before the request's deadline; retry later",
                                  submitted.status().message()));
  }
  if (!pool_.Wait(*submitted, deadline, /*help=*/false)) {
    const size_t scored = submitted->finished();
    pool_.Cancel(*submitted);
    return Error(503, fmt::format("timed out: {} of {} records scored before the request's "
                                  "deadline (--timeout); retry with fewer records or later",
                                  scored, n));
  }
  return std::nullopt;
}

ServiceReply ScoreService::Health() {
  return ServiceReply{200, fmt::format("{{\"max_in_flight\":{},\"records_in_flight\":{},"
                                       "\"status\":\"ok\",\"threads\":{}}}\n",
                                       options_.max_in_flight, pool_.in_flight(), threads())};
}

void ScoreService::ScoreRecord(Batch& batch, size_t index) const {
  const ScoredRecord& record = batch.records[index];
  StatusOr<Verdict> verdict = Status::Internal("not scored");
  // Checkers do not throw; should one (a bug), the record gets an error, and the
  // server stays up.
  try {
    verdict = options_.checker->Check(record.sample, record.response.text, batch.rules);
  } catch (const std::exception& e) {
    verdict = Status::Internal(fmt::format("internal error while scoring: {}", e.what()));
  }
  if (batch.lines_only) {
    std::string& line = batch.lines[index];
    if (verdict.ok()) {
      AppendVerdictLine(record.sample, *verdict, &line);
    } else {
      AppendScoreErrorLine(record.sample, verdict.status().message(), batch.rules, &line);
    }
    line.pop_back();  // the newline
  } else if (verdict.ok()) {
    batch.verdicts[index] = std::move(*verdict);
  } else {
    batch.errors[index] = verdict.status().message();
    // An error with no message is still an error.
    if (batch.errors[index].empty()) batch.errors[index] = "error";
  }
}

}  // namespace structtest
