#include "core/json_dom.h"

#include <string>

#include <nlohmann/json.hpp>

namespace structtest {

using simdjson::dom::element;
using simdjson::dom::element_type;

bool ParseDom(simdjson::dom::parser& parser, std::string_view text, element* root) {
  const auto first = parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true);
  if (!first.get(*root)) return true;
  if (first.error() == simdjson::DEPTH_ERROR) return false;
  // What simdjson refuses and nlohmann takes: nlohmann's value, written out again.
  // Nesting is bounded first, since writing a value out recurses.
  size_t depth = 0;
  const nlohmann::json j = nlohmann::json::parse(
      text,
      [&](int d, nlohmann::json::parse_event_t, nlohmann::json&) {
        depth = std::max(depth, static_cast<size_t>(d));
        return true;
      },
      /*allow_exceptions=*/false);
  if (j.is_discarded() || depth > simdjson::DEFAULT_MAX_DEPTH) return false;
  const std::string again = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return !parser.parse(again.data(), again.size(), true).get(*root);
}

std::optional<element> LastMember(element obj, std::string_view key) {
  std::optional<element> found;
  if (!obj.is_object()) return found;
  const simdjson::dom::object members = obj.get_object().value_unsafe();
  for (const auto field : members) {
    if (field.key == key) found = field.value;
  }
  return found;
}

std::optional<element> FirstItem(element e) {
  if (!e.is_array()) return std::nullopt;
  const simdjson::dom::array items = e.get_array().value_unsafe();
  if (items.begin() == items.end()) return std::nullopt;
  return *items.begin();
}

std::optional<int64_t> AsInteger(element e) {
  switch (e.type()) {
    case element_type::INT64: return e.get_int64().value_unsafe();
    case element_type::UINT64: return static_cast<int64_t>(e.get_uint64().value_unsafe());
    default: return std::nullopt;
  }
}

std::optional<std::string_view> AsString(element e) {
  if (!e.is_string()) return std::nullopt;
  return e.get_string().value_unsafe();
}

std::optional<std::string_view> StringMember(element obj, std::string_view key) {
  const std::optional<element> v = LastMember(obj, key);
  return v ? AsString(*v) : std::nullopt;
}

std::optional<int64_t> IntegerMember(element obj, std::string_view key) {
  const std::optional<element> v = LastMember(obj, key);
  return v ? AsInteger(*v) : std::nullopt;
}

}  // namespace structtest
