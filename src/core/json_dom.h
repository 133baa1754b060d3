// simdjson's DOM read with nlohmann's semantics, for the readers that left nlohmann for
// speed and must still accept, refuse and read every text exactly as it did: a repeated
// key reads as its last value, and "integer" means what nlohmann's is_number_integer()
// means. ParseDom takes what nlohmann's parser takes (a byte-order mark, integers beyond
// 64 bits) by handing those few texts to nlohmann and its output back to simdjson.
#ifndef STRUCTTEST_CORE_JSON_DOM_H_
#define STRUCTTEST_CORE_JSON_DOM_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include <simdjson.h>

namespace structtest {

// Parses `text` into *root, valid until `parser` parses again. `text` needs no padding
// (it is copied into the parser's buffer). False: nlohmann's parser refuses it too, or
// it nests deeper than simdjson's 1024 levels.
bool ParseDom(simdjson::dom::parser& parser, std::string_view text,
              simdjson::dom::element* root);

// The value of the last member `key` of `obj`; nullopt when it has none or `obj` is not
// an object.
std::optional<simdjson::dom::element> LastMember(simdjson::dom::element obj,
                                                 std::string_view key);

// The first item of the array `e`; nullopt when `e` is empty or not an array.
std::optional<simdjson::dom::element> FirstItem(simdjson::dom::element e);

// `e` as nlohmann's get<int64_t>() reads it when is_number_integer() holds (unsigned
// values above INT64_MAX wrap), else nullopt.
std::optional<int64_t> AsInteger(simdjson::dom::element e);

// The string `e` holds, else nullopt.
std::optional<std::string_view> AsString(simdjson::dom::element e);

// AsString(LastMember(obj, key)) and AsInteger(LastMember(obj, key)).
std::optional<std::string_view> StringMember(simdjson::dom::element obj, std::string_view key);
std::optional<int64_t> IntegerMember(simdjson::dom::element obj, std::string_view key);

}  // namespace structtest

#endif  // STRUCTTEST_CORE_JSON_DOM_H_
