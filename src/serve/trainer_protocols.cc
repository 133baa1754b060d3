#include "serve/trainer_protocols.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "core/json_dom.h"
#include "core/jsonl.h"
#include "core/record_io.h"
#include "tasks/registry.h"

namespace structtest {

namespace {

// "1"/"true"/"" (a name alone) or "0"/"false".
StatusOr<bool> ParseFlag(const std::string& name, const std::string& value) {
  if (value.empty() || value == "1" || value == "true") return true;
  if (value == "0" || value == "false") return false;
  return Status::InvalidArgument(
      fmt::format("URL parameter '{}': '{}' is not 1, 0, true or false", name, value));
}

// `value` without the object members that hold null, at any depth.
nlohmann::json WithoutNulls(const nlohmann::json& value) {
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, member] : value.items()) {
      if (!member.is_null()) out[key] = WithoutNulls(member);
    }
    return out;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(WithoutNulls(item));
    return out;
  }
  return value;
}

// The length of the longest end of `prompt` that begins `query` (KMP over the query's
// head as the pattern, the prompt as the text).
size_t PromptOverlap(std::string_view query, std::string_view prompt) {
  const std::string_view pattern = query.substr(0, std::min(query.size(), prompt.size()));
  if (pattern.empty()) return 0;
  std::vector<size_t> fail(pattern.size(), 0);
  for (size_t i = 1, k = 0; i < pattern.size(); ++i) {
    while (k > 0 && pattern[i] != pattern[k]) k = fail[k - 1];
    if (pattern[i] == pattern[k]) ++k;
    fail[i] = k;
  }
  size_t matched = 0;
  for (const char c : prompt) {
    if (matched == pattern.size()) matched = fail[matched - 1];
    while (matched > 0 && c != pattern[matched]) matched = fail[matched - 1];
    if (c == pattern[matched]) ++matched;
  }
  return matched;
}

// The answer a checker reads from a decoded response.
std::string AnswerOf(std::string_view response, std::span<const std::string> end_tokens) {
  return SplitThinking(StripEndTokens(response, end_tokens)).text;
}

// "a number", "an array": a JSON value's type, for a person.
std::string Kind(const nlohmann::json& value) {
  const std::string_view type = value.type_name();
  return fmt::format("{} {}", type[0] == 'a' || type[0] == 'o' ? "an" : "a", type);
}

constexpr char kLabelHelp[] =
    "the label must hold the structtest sample, a JSON object or its JSON text (OpenRLHF: "
    "--data.label_key; slime: --label-key)";

}  // namespace

std::string_view EndpointPath(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kScore:
      return "/v1/score";
    case Endpoint::kOpenRlhf:
      return "/get_reward";
    case Endpoint::kSlime:
      return "/slime/reward";
  }
  return "";
}

StatusOr<RewardParams> ParseRewardParams(Endpoint endpoint, const QueryArgs& args,
                                         const RewardParams& defaults) {
  RewardParams params = defaults;
  for (const auto& [name, value] : args) {
    if (endpoint == Endpoint::kScore) {
      return Status::InvalidArgument(fmt::format(
          "URL parameter '{}': /v1/score takes none (the body holds \"rules\")", name));
    }
    if (name == "rules") {
      ASSIGN_OR_RETURN(params.rules, ParseRuleSet(value));
    } else if (name == "partial") {
      ASSIGN_OR_RETURN(params.partial, ParseFlag(name, value));
    } else if (name == "details" && endpoint == Endpoint::kSlime) {
      ASSIGN_OR_RETURN(params.details, ParseFlag(name, value));
    } else {
      return Status::InvalidArgument(fmt::format(
          "URL parameter '{}': unknown ({} takes rules, partial{})", name,
          EndpointPath(endpoint), endpoint == Endpoint::kSlime ? ", details" : ""));
    }
  }
  return params;
}

std::string_view StripEndTokens(std::string_view text, std::span<const std::string> end_tokens) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const std::string& token : end_tokens) {
      if (!token.empty() && text.ends_with(token)) {
        text.remove_suffix(token.size());
        stripped = true;
      }
    }
  }
  return text;
}

StatusOr<std::string_view> ResponseOfQuery(std::string_view query, std::string_view prompt) {
  if (query.starts_with(prompt)) return query.substr(prompt.size());
  const size_t overlap = PromptOverlap(query, prompt);
  if (overlap >= std::min(prompt.size(), kMinPromptOverlap)) return query.substr(overlap);
  const auto [q, p] = std::mismatch(query.begin(), query.end(), prompt.begin(), prompt.end());
  return Status::InvalidArgument(fmt::format(
      "does not begin with its prompt ({} bytes), nor with the prompt's last {} bytes: they "
      "agree on the first {} bytes, then the query has {} where the prompt has {}",
      prompt.size(), kMinPromptOverlap, q - query.begin(),
      q == query.end() ? "its end" : DumpJsonLine(std::string(q, std::min(q + 16, query.end()))),
      DumpJsonLine(std::string(p, std::min(p + 16, prompt.end())))));
}

StatusOr<Sample> SampleFromLabel(const nlohmann::json& label) {
  nlohmann::json parsed;
  const nlohmann::json* object = &label;
  if (label.is_string()) {
    const std::string& text = label.get_ref<const std::string&>();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      return Status::InvalidArgument(fmt::format("empty: {}", kLabelHelp));
    }
    if (NestedTooDeep(text)) {
      return Status::InvalidArgument(
          fmt::format("its JSON text nests arrays and objects deeper than {} levels", kMaxJsonDepth));
    }
    // Most labels are a sample's JSON text, which holds no null: read at once (the fast
    // path of `score`), the text that may hold one through nlohmann below.
    if (text.find("null") == std::string::npos) {
      bool not_json = false;
      auto sample = SampleFromJsonText(text, &not_json);
      if (sample.ok()) {
        if (Status s = FindSubtask(sample->domain, sample->subtask).status(); !s.ok()) {
          return Status::InvalidArgument("not a structtest sample: " + s.message());
        }
        return sample;
      }
    }
    if (!ParseJsonLikeNlohmann(text, &parsed)) {
      return Status::InvalidArgument(
          fmt::format("a string that is not JSON ({}): {}", DescribeInvalidJson(text), kLabelHelp));
    }
    if (!parsed.is_object()) {
      return Status::InvalidArgument(
          fmt::format("JSON text of {}, not of an object: {}", Kind(parsed), kLabelHelp));
    }
    object = &parsed;
  } else if (!label.is_object()) {
    return Status::InvalidArgument(fmt::format("{}: {}", Kind(label), kLabelHelp));
  }
  auto sample = SampleFromJson(WithoutNulls(*object));
  if (!sample.ok()) {
    return Status::InvalidArgument("not a structtest sample: " + sample.status().message());
  }
  if (Status s = FindSubtask(sample->domain, sample->subtask).status(); !s.ok()) {
    return Status::InvalidArgument("not a structtest sample: " + s.message());
  }
  return sample;
}

StatusOr<std::vector<ScoredRecord>> OpenRlhfRecords(const nlohmann::json& body,
                                                    std::span<const std::string> end_tokens) {
  if (!body.is_object()) {
    return Status::InvalidArgument(fmt::format(
        "expected a JSON object with \"query\", \"prompts\" and \"labels\", found {}",
        body.type_name()));
  }
  const nlohmann::json* lists[3];
  const char* names[3] = {"query", "prompts", "labels"};
  for (int k = 0; k < 3; ++k) {
    const auto it = body.find(names[k]);
    if (it == body.end()) return Status::InvalidArgument(fmt::format("missing key \"{}\"", names[k]));
    if (!it->is_array()) {
      return Status::InvalidArgument(
          fmt::format("{}: expected an array, found {}", names[k], it->type_name()));
    }
    lists[k] = &*it;
  }
  const size_t n = lists[0]->size();
  if (lists[1]->size() != n || lists[2]->size() != n) {
    return Status::InvalidArgument(
        fmt::format("{} queries, {} prompts and {} labels: expected one of each per sample", n,
                    lists[1]->size(), lists[2]->size()));
  }
  std::vector<ScoredRecord> records(n);
  for (size_t i = 0; i < n; ++i) {
    const nlohmann::json& query = (*lists[0])[i];
    const nlohmann::json& prompt = (*lists[1])[i];
    if (!query.is_string()) {
      return Status::InvalidArgument(
          fmt::format("query[{}]: expected a string, found {}", i, query.type_name()));
    }
    if (!prompt.is_string()) {
      return Status::InvalidArgument(
          fmt::format("prompts[{}]: expected a string, found {}", i, prompt.type_name()));
    }
    auto sample = SampleFromLabel((*lists[2])[i]);
    if (!sample.ok()) {
      return Status::InvalidArgument(fmt::format("labels[{}]: {}", i, sample.status().message()));
    }
    auto response = ResponseOfQuery(query.get_ref<const std::string&>(),
                                    prompt.get_ref<const std::string&>());
    if (!response.ok()) {
      return Status::InvalidArgument(
          fmt::format("query[{}]: {}", i, response.status().message()));
    }
    records[i].sample = std::move(*sample);
    records[i].response.text = AnswerOf(*response, end_tokens);
  }
  return records;
}

std::optional<std::vector<ScoredRecord>> OpenRlhfRecordsFast(
    std::string_view body, std::span<const std::string> end_tokens) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (!ParseDom(parser, body, &root)) return std::nullopt;
  simdjson::dom::array lists[3];
  const char* names[3] = {"query", "prompts", "labels"};
  for (int k = 0; k < 3; ++k) {
    const auto member = LastMember(root, names[k]);
    if (!member || member->get_array().get(lists[k]) != simdjson::SUCCESS) return std::nullopt;
  }
  const size_t n = lists[0].size();
  if (lists[1].size() != n || lists[2].size() != n) return std::nullopt;
  std::vector<ScoredRecord> records(n);
  auto query = lists[0].begin(), prompt = lists[1].begin(), label = lists[2].begin();
  for (size_t i = 0; i < n; ++i, ++query, ++prompt, ++label) {
    const auto q = AsString(*query), p = AsString(*prompt), l = AsString(*label);
    if (!q || !p || !l || l->find("null") != std::string_view::npos) return std::nullopt;
    auto sample = SampleFromJsonText(*l);
    if (!sample.ok() || !FindSubtask(sample->domain, sample->subtask).ok()) return std::nullopt;
    auto response = ResponseOfQuery(*q, *p);
    if (!response.ok()) return std::nullopt;
    records[i].sample = std::move(*sample);
    records[i].response.text = AnswerOf(*response, end_tokens);
  }
  return records;
}

StatusOr<ScoredRecord> SlimeRecord(const nlohmann::json& body,
                                   std::span<const std::string> end_tokens) {
  if (!body.is_object()) {
    return Status::InvalidArgument(fmt::format(
        "expected a JSON object with \"prompt\", \"response\" and \"label\", found {}",
        body.type_name()));
  }
  const auto response = body.find("response");
  if (response == body.end()) return Status::InvalidArgument("missing key \"response\"");
  if (!response->is_string()) {
    return Status::InvalidArgument(
        fmt::format("response: expected a string, found {}", response->type_name()));
  }
  const auto label = body.find("label");
  if (label == body.end()) {
    return Status::InvalidArgument(fmt::format("missing key \"label\": {}", kLabelHelp));
  }
  auto sample = SampleFromLabel(*label);
  if (!sample.ok()) return Status::InvalidArgument("label: " + sample.status().message());
  ScoredRecord record;
  record.sample = std::move(*sample);
  record.response.text = AnswerOf(response->get_ref<const std::string&>(), end_tokens);
  return record;
}

double RewardOf(const Verdict& verdict, bool partial) {
  if (partial) return verdict.score();
  return verdict.pass ? 1.0 : 0.0;
}

std::string FailedRule(const Verdict& verdict) {
  if (verdict.pass) return "";
  for (const RuleCheck& check : verdict.checks) {
    if (check.result != RuleCheck::Result::kPass) return check.name;
  }
  return std::string(std::string_view(verdict.reason).substr(0, verdict.reason.find(':')));
}

std::string OpenRlhfReply(std::span<const Verdict> verdicts, const RewardParams& params) {
  nlohmann::json rewards = nlohmann::json::array();
  nlohmann::json passed = nlohmann::json::array();
  nlohmann::json share = nlohmann::json::array();
  for (const Verdict& v : verdicts) {
    rewards.push_back(RewardOf(v, params.partial));
    passed.push_back(v.pass ? 1.0 : 0.0);
    share.push_back(v.score());
  }
  nlohmann::json reply = {
      {"rewards", rewards},
      {"scores", rewards},
      {"extra_logs", {{"structtest_pass", std::move(passed)},
                      {"structtest_rule_share", std::move(share)}}},
      {"rules", RuleSetName(params.rules)},
  };
  return DumpJsonLine(reply) + "\n";
}

std::string SlimeReply(const Verdict& verdict, const RewardParams& params) {
  const double reward = RewardOf(verdict, params.partial);
  if (!params.details) return nlohmann::json(reward).dump() + "\n";
  nlohmann::json reply = {
      {"reward", reward},
      {"pass", verdict.pass},
      {"score", verdict.score()},
      {"rules", RuleSetName(params.rules)},
      {"rules_version", verdict.rules_version},
      {"failed_rule", FailedRule(verdict)},
      {"reason", verdict.reason},
      {"checks", ChecksToJson(verdict.checks)},
  };
  return DumpJsonLine(reply) + "\n";
}

bool NestedTooDeep(std::string_view text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace structtest
