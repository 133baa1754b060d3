// Typed, non-throwing access to a sample's params and context (JSON objects). Errors
// name the field: "params.n_points: expected an integer, found string".
#ifndef STRUCTTEST_TASKS_PARAMS_H_
#define STRUCTTEST_TASKS_PARAMS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "structtest/status.h"

namespace structtest {

// `where` is "params" or "context"; it only appears in messages.
StatusOr<int64_t> GetInt(const nlohmann::json& obj, std::string_view where,
                         std::string_view key);
// As GetInt, and the value must lie in [lo, hi].
StatusOr<int64_t> GetIntInRange(const nlohmann::json& obj, std::string_view where,
                                std::string_view key, int64_t lo, int64_t hi);
// Returns a pointer into `obj` (valid while obj lives).
StatusOr<const std::string*> GetString(const nlohmann::json& obj,
                                       std::string_view where, std::string_view key);
StatusOr<bool> GetBool(const nlohmann::json& obj, std::string_view where,
                       std::string_view key);
StatusOr<const nlohmann::json*> GetField(const nlohmann::json& obj,
                                         std::string_view where, std::string_view key);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_PARAMS_H_
