// ParseDom and its readers must see every text as nlohmann's parser does: the same
// texts accepted, and in each, the same value under every key (the last of repeated
// keys) and the same integers. Each text below, valid, hostile or a random mutation of
// a provider reply, is read both ways and compared node for node.
#include "core/json_dom.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::MutateJson;
using simdjson::dom::element;

// Whether `e` holds what `j` holds, as the readers see it. Sets *why when not.
bool Same(element e, const nlohmann::json& j, std::string* why) {
  auto fail = [&](const std::string& what) {
    *why = what + " at " + j.dump().substr(0, 80);
    return false;
  };
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      if (!e.is_object()) return fail("not an object");
      const simdjson::dom::object members = e.get_object().value_unsafe();
      for (const auto field : members) {
        if (!j.contains(std::string(field.key))) return fail("extra key");
      }
      for (const auto& [k, v] : j.items()) {
        const std::optional<element> m = LastMember(e, k);
        if (!m) return fail("missing key " + k);
        if (!Same(*m, v, why)) return false;
      }
      return true;
    }
    case nlohmann::json::value_t::array: {
      if (!e.is_array()) return fail("not an array");
      size_t i = 0;
      const simdjson::dom::array items = e.get_array().value_unsafe();
      for (const element x : items) {
        if (i >= j.size() || !Same(x, j[i], why)) return i >= j.size() ? fail("longer") : false;
        ++i;
      }
      return i == j.size() || fail("shorter");
    }
    case nlohmann::json::value_t::string:
      return AsString(e) == std::optional<std::string_view>(j.get_ref<const std::string&>()) ||
             fail("string");
    case nlohmann::json::value_t::boolean:
      return (e.is_bool() && e.get_bool().value_unsafe() == j.get<bool>()) || fail("bool");
    case nlohmann::json::value_t::null:
      return e.is_null() || fail("null");
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return AsInteger(e) == std::optional<int64_t>(j.get<int64_t>()) || fail("integer");
    case nlohmann::json::value_t::number_float:
      return (!AsInteger(e) && e.is_double() && e.get_double().value_unsafe() == j.get<double>()) ||
             fail("float");
    default:
      return fail("unexpected type");
  }
}

// ParseDom accepts `text` exactly when nlohmann does, and reads it the same.
void ExpectReadLikeNlohmann(const std::string& text) {
  SCOPED_TRACE(text.substr(0, 120));
  simdjson::dom::parser parser;
  element root;
  const bool ours = ParseDom(parser, text, &root);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  ASSERT_EQ(ours, !j.is_discarded());
  if (!ours) return;
  std::string why;
  EXPECT_TRUE(Same(root, j, &why)) << why;
}

const char* const kReplies[] = {
    R"({"id":"c1","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi \u00e9 \ud83d\ude00","reasoning_content":"think"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}}})",
    R"({"content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Answer"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":7}})",
    R"({"candidates":[{"content":{"parts":[{"text":"x","thought":true},{"text":"y"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"thoughtsTokenCount":1}})",
};

TEST(JsonDomTest, ValidAndHostileTextsReadAsNlohmannReadsThem) {
  const char* const texts[] = {
      "{}", "[]", "null", "0", "-0", "-0.0", "1e2", "0.1", "1e400", "-1e400",
      "18446744073709551615", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "123456789012345678901234567890",
      R"({"a":1,"a":"two","a":[3]})", R"({"a":{"b":1,"b":{"c":2}},"a":{"b":3}})",
      R"({"n":123456789012345678901234567890,"m":5})", "\xEF\xBB\xBF{\"a\":1}",
      R"(  {"a" : [ 1 , 2 ] }  )", R"({"a":"\u0000"})", R"({"a":"\ud800"})",
      "{\"a\":\"\xFF\"}", "{\"a\":\"\x01\"}", R"({"a":1,})", R"({"a":1} x)", "{broken", "",
      "   ", R"("just a string")", R"({"a":true,"b":false,"c":null})",
  };
  for (const char* t : texts) ExpectReadLikeNlohmann(t);
  for (const char* t : kReplies) ExpectReadLikeNlohmann(t);
  ExpectReadLikeNlohmann(std::string("{\"a\":\"\0\"}", 8));  // a NUL byte in a string
  ExpectReadLikeNlohmann(R"({"text":")" + std::string(1 << 20, 'x') + "\"}");
}

TEST(JsonDomTest, NestingBeyondSimdjsonsDepthIsRefusedWithoutCrashing) {
  simdjson::dom::parser parser;
  element root;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(ParseDom(parser, deep, &root));
  // simdjson stops at the big integer first; the depth still bounds the fallback.
  const std::string big_then_deep =
      "[123456789012345678901234567890," + std::string(100000, '[') + std::string(100001, ']');
  EXPECT_FALSE(ParseDom(parser, big_then_deep, &root));
  const std::string shallow = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_TRUE(ParseDom(parser, shallow, &root));
}

TEST(JsonDomTest, RandomMutationsOfRepliesReadTheSame) {
  Rng rng(20261201);
  for (int i = 0; i < 4000; ++i) {
    const std::string text = MutateJson(rng, kReplies[rng.UniformInt(0, 2)]);
    ExpectReadLikeNlohmann(text);
    if (HasFatalFailure()) return;
  }
}

TEST(JsonDomTest, Readers) {
  simdjson::dom::parser parser;
  element root;
  ASSERT_TRUE(ParseDom(parser, R"({"s":"x","s":"y","i":-3,"f":1.5,"a":[],"b":[7,8]})", &root));
  EXPECT_EQ(StringMember(root, "s"), std::optional<std::string_view>("y"));
  EXPECT_EQ(StringMember(root, "i"), std::nullopt);
  EXPECT_EQ(StringMember(root, "none"), std::nullopt);
  EXPECT_EQ(AsInteger(*LastMember(root, "i")), -3);
  EXPECT_EQ(AsInteger(*LastMember(root, "f")), std::nullopt);
  EXPECT_EQ(FirstItem(*LastMember(root, "a")), std::nullopt);
  EXPECT_EQ(AsInteger(*FirstItem(*LastMember(root, "b"))), 7);
  EXPECT_EQ(FirstItem(root), std::nullopt);          // not an array
  EXPECT_EQ(LastMember(*LastMember(root, "b"), "x"), std::nullopt);  // not an object
}

}  // namespace
}  // namespace structtest
