#include "tasks/code/common.h"

#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "tasks/code/rules.h"
#include "tasks/params.h"

namespace structtest {
namespace code_internal {

Verdict MakeVerdict(bool pass, std::string reason) {
  Verdict v;
  v.pass = pass;
  v.reason = std::move(reason);
  return v;
}

Verdict Pass(std::string reason) { return MakeVerdict(true, std::move(reason)); }

std::string Quote(std::string_view s, size_t max) {
  std::string q = "'";
  q += Excerpt(s, max);
  q += '\'';
  return q;
}

std::string Plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string JsonString(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool JsonHas(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key);
}

bool JsonTrue(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

StatusOr<std::string_view> Source(const Sample& sample) {
  ASSIGN_OR_RETURN(const std::string* s, GetString(sample.context, "context", "source_code"));
  return std::string_view(*s);
}

StatusOr<bool> IsCallBased(const Sample& sample) {
  if (sample.context.is_object() && sample.context.contains("call_based")) {
    return GetBool(sample.context, "context", "call_based");
  }
  return sample.context.is_object() && sample.context.contains("fn_name");
}

StatusOr<int64_t> GenN(const Sample& sample) {
  if (sample.context.is_object() && sample.context.contains("gen_n")) {
    return GetIntInRange(sample.context, "context", "gen_n", 1, kMaxInputs);
  }
  return 5;
}

StatusOr<PythonPool*> Pool(const CheckEnv& env) {
  if (env.python == nullptr) {
    return Status::Unavailable(
        "code subtasks need the python3 worker pool, and none was provided to the checker");
  }
  return env.python;
}

std::string SandboxProblem(const nlohmann::json& r, std::string_view what) {
  if (JsonTrue(r, "timeout")) {
    return fmt::format("{} did not finish within the time limit of {} s", what,
                       JsonString(r, "wall_seconds"));
  }
  return fmt::format("{} ended without a result: {}", what, JsonString(r, "sandbox_error"));
}

}  // namespace code_internal
}  // namespace structtest
