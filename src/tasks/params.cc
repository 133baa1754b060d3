#include "tasks/params.h"

#include <fmt/format.h>

#include "core/status_macros.h"

namespace structtest {

StatusOr<const nlohmann::json*> GetField(const nlohmann::json& obj,
                                         std::string_view where, std::string_view key) {
  if (!obj.is_object()) {
    return Status::InvalidArgument(fmt::format("{}: expected an object", where));
  }
  const auto it = obj.find(key);
  if (it == obj.end()) {
    return Status::InvalidArgument(fmt::format("{}.{}: missing", where, key));
  }
  return &*it;
}

namespace {

StatusOr<int64_t> IntValue(const nlohmann::json& v, std::string_view where,
                           std::string_view key) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
  }
  return Status::InvalidArgument(
      fmt::format("{}.{}: expected an integer, found {}", where, key, v.dump()));
}

StatusOr<int64_t> IntValueInRange(const nlohmann::json& value, std::string_view where,
                                  std::string_view key, int64_t lo, int64_t hi) {
  ASSIGN_OR_RETURN(int64_t v, IntValue(value, where, key));
  if (v < lo || v > hi) {
    return Status::InvalidArgument(
        fmt::format("{}.{}: {} is out of range [{}, {}]", where, key, v, lo, hi));
  }
  return v;
}

StatusOr<const std::string*> StringValue(const nlohmann::json& v, std::string_view where,
                                         std::string_view key) {
  if (!v.is_string()) {
    return Status::InvalidArgument(
        fmt::format("{}.{}: expected a string, found {}", where, key, v.type_name()));
  }
  return v.get_ptr<const std::string*>();
}

}  // namespace

StatusOr<int64_t> GetInt(const nlohmann::json& obj, std::string_view where,
                         std::string_view key) {
  ASSIGN_OR_RETURN(const nlohmann::json* v, GetField(obj, where, key));
  return IntValue(*v, where, key);
}

StatusOr<int64_t> GetIntInRange(const nlohmann::json& obj, std::string_view where,
                                std::string_view key, int64_t lo, int64_t hi) {
  ASSIGN_OR_RETURN(const nlohmann::json* v, GetField(obj, where, key));
  return IntValueInRange(*v, where, key, lo, hi);
}

StatusOr<const std::string*> GetString(const nlohmann::json& obj,
                                       std::string_view where, std::string_view key) {
  ASSIGN_OR_RETURN(const nlohmann::json* v, GetField(obj, where, key));
  return StringValue(*v, where, key);
}

StatusOr<bool> GetBool(const nlohmann::json& obj, std::string_view where,
                       std::string_view key) {
  ASSIGN_OR_RETURN(const nlohmann::json* v, GetField(obj, where, key));
  if (!v->is_boolean()) {
    return Status::InvalidArgument(
        fmt::format("{}.{}: expected true or false, found {}", where, key,
                    v->type_name()));
  }
  return v->get<bool>();
}

Status MissingParam(std::string_view key) {
  return Status::InvalidArgument(fmt::format("params.{}: missing", key));
}

Status ParamsNotObject() { return Status::InvalidArgument("params: expected an object"); }

StatusOr<int64_t> IntParam(const nlohmann::json& value, std::string_view key, int64_t lo,
                           int64_t hi) {
  return IntValueInRange(value, "params", key, lo, hi);
}

StatusOr<std::string_view> StringParam(const nlohmann::json& value, std::string_view key) {
  ASSIGN_OR_RETURN(const std::string* s, StringValue(value, "params", key));
  return std::string_view(*s);
}

}  // namespace structtest
