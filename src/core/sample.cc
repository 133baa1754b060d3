#include "structtest/sample.h"

#include <type_traits>

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest {

std::string_view RuleSetName(RuleSet rules) {
  return rules == RuleSet::kPaper ? "paper" : "strict";
}

StatusOr<RuleSet> ParseRuleSet(std::string_view name) {
  if (name == "paper") return RuleSet::kPaper;
  if (name == "strict") return RuleSet::kStrict;
  return Status::InvalidArgument(
      fmt::format("unknown rule set '{}' (expected 'paper' or 'strict')", name));
}

std::string_view RuleResultName(RuleCheck::Result result) {
  switch (result) {
    case RuleCheck::Result::kPass:
      return "pass";
    case RuleCheck::Result::kFail:
      return "fail";
    case RuleCheck::Result::kNotChecked:
      break;
  }
  return "not-checked";
}

double RulesScore(bool pass, const std::vector<RuleCheck>& checks) {
  if (pass) return 1.0;
  if (checks.empty()) return 0.0;
  size_t passed = 0;
  for (const RuleCheck& c : checks) passed += c.result == RuleCheck::Result::kPass ? 1 : 0;
  return static_cast<double>(passed) / static_cast<double>(checks.size());
}

namespace {

// Reads field `key` of `j` into *out. Given a json the caller owns (non-const), the
// value is moved out of it rather than copied.
template <typename Json>
Status GetString(Json& j, const char* key, bool required, std::string* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(fmt::format("missing field '{}'", key));
    return Status::Ok();
  }
  if (it->is_string()) {
    if constexpr (std::is_const_v<Json>) {
      *out = it->template get<std::string>();
    } else {
      *out = std::move(it->template get_ref<std::string&>());
    }
    return Status::Ok();
  }
  // Ids are sometimes numbers in hand-written files; accept integers for ids only.
  if (std::string_view(key) == "id" && it->is_number_integer()) {
    *out = it->dump();
    return Status::Ok();
  }
  return Status::InvalidArgument(
      fmt::format("field '{}' must be a string, found {}", key, it->type_name()));
}

Status GetObject(nlohmann::json& j, const char* key, nlohmann::json* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) {
    return Status::InvalidArgument(
        fmt::format("field '{}' must be an object, found {}", key, it->type_name()));
  }
  *out = std::move(*it);
  return Status::Ok();
}

}  // namespace

// Moves the messages out of `messages` (a "messages" field) into `*out`.
Status TakeMessages(nlohmann::json& messages, std::vector<Message>* out) {
  if (messages.is_null()) return Status::Ok();
  if (!messages.is_array()) {
    return Status::InvalidArgument(
        fmt::format("field 'messages' must be an array, found {}", messages.type_name()));
  }
  for (auto& m : messages) {
    if (!m.is_object()) {
      return Status::InvalidArgument(fmt::format(
          "field 'messages' must hold objects with role and content, found {}", m.type_name()));
    }
    Message msg;
    RETURN_IF_ERROR(GetString(m, "role", true, &msg.role));
    RETURN_IF_ERROR(GetString(m, "content", true, &msg.content));
    out->push_back(std::move(msg));
  }
  return Status::Ok();
}

StatusOr<Sample> SampleFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return SampleFromJson(nlohmann::json(j));  // the error
  // A copy of the sample's fields only: a record's response may be large.
  nlohmann::json fields = nlohmann::json::object();
  for (const char* key : {"id", "domain", "subtask", "params", "context", "target", "messages"}) {
    if (const auto it = j.find(key); it != j.end()) fields[key] = *it;
  }
  return SampleFromJson(std::move(fields));
}

StatusOr<Sample> SampleFromJson(nlohmann::json&& j) {
  if (!j.is_object()) {
    return Status::InvalidArgument(
        fmt::format("record must be a JSON object, found {}", j.type_name()));
  }
  Sample s;
  RETURN_IF_ERROR(GetString(j, "id", true, &s.id));
  RETURN_IF_ERROR(GetString(j, "domain", true, &s.domain));
  RETURN_IF_ERROR(GetString(j, "subtask", true, &s.subtask));
  RETURN_IF_ERROR(GetObject(j, "params", &s.params));
  RETURN_IF_ERROR(GetObject(j, "context", &s.context));
  if (const auto it = j.find("target"); it != j.end()) s.target = std::move(*it);
  if (const auto it = j.find("messages"); it != j.end()) {
    RETURN_IF_ERROR(TakeMessages(*it, &s.messages));
  }
  return s;
}

StatusOr<ScoredRecord> RecordFromJson(const nlohmann::json& j) {
  ScoredRecord r;
  ASSIGN_OR_RETURN(r.sample, SampleFromJson(j));
  RETURN_IF_ERROR(GetString(j, "response", true, &r.response.text));
  RETURN_IF_ERROR(GetString(j, "reasoning", false, &r.response.reasoning));
  return r;
}

nlohmann::json SampleToJson(const Sample& sample) {
  nlohmann::json j = nlohmann::json::object();
  j["id"] = sample.id;
  j["domain"] = sample.domain;
  j["subtask"] = sample.subtask;
  j["params"] = sample.params;
  j["context"] = sample.context;
  nlohmann::json messages = nlohmann::json::array();
  for (const Message& m : sample.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  j["messages"] = std::move(messages);
  j["target"] = sample.target;
  return j;
}

nlohmann::json ChecksToJson(const std::vector<RuleCheck>& checks) {
  nlohmann::json out = nlohmann::json::array();
  for (const RuleCheck& c : checks) {
    out.push_back(
        {{"name", c.name}, {"result", std::string(RuleResultName(c.result))}, {"detail", c.detail}});
  }
  return out;
}

StatusOr<std::vector<RuleCheck>> ChecksFromJson(const nlohmann::json& j) {
  if (!j.is_array()) {
    return Status::InvalidArgument(fmt::format("checks must be an array, found {}", j.type_name()));
  }
  std::vector<RuleCheck> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& e = j[i];
    const auto field = [&](const char* key) -> StatusOr<const std::string*> {
      const auto it = e.is_object() ? e.find(key) : e.end();
      if (it == e.end() || !it->is_string()) {
        return Status::InvalidArgument(fmt::format("checks[{}].{}: missing or not a string", i, key));
      }
      return it->get_ptr<const std::string*>();
    };
    RuleCheck c;
    ASSIGN_OR_RETURN(const std::string* name, field("name"));
    ASSIGN_OR_RETURN(const std::string* detail, field("detail"));
    ASSIGN_OR_RETURN(const std::string* result, field("result"));
    c.name = *name;
    c.detail = *detail;
    if (*result == "pass") {
      c.result = RuleCheck::Result::kPass;
    } else if (*result == "fail") {
      c.result = RuleCheck::Result::kFail;
    } else if (*result == "not-checked") {
      c.result = RuleCheck::Result::kNotChecked;
    } else {
      return Status::InvalidArgument(fmt::format(
          "checks[{}].result: '{}' is not pass, fail or not-checked", i, *result));
    }
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json VerdictToJson(const Sample& sample, const Verdict& verdict) {
  nlohmann::json j = nlohmann::json::object();
  j["id"] = sample.id;
  j["domain"] = sample.domain;
  j["subtask"] = sample.subtask;
  j["pass"] = verdict.pass;
  j["reason"] = verdict.reason;
  j["rules"] = std::string(verdict.rules);
  j["rules_version"] = std::string(verdict.rules_version);
  if (verdict.format) j["format"] = *verdict.format;
  if (verdict.accuracy) j["accuracy"] = *verdict.accuracy;
  j["checks"] = ChecksToJson(verdict.checks);
  j["score"] = verdict.score();
  return j;
}

}  // namespace structtest
