#include "tasks/params.h"

#include <gtest/gtest.h>

namespace structtest {
namespace {

TEST(ParamTest, HoldsItsValueOrTheErrorOfReadingIt) {
  Param<int64_t> n("n_points");
  EXPECT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), "params.n_points: missing");
  EXPECT_EQ(n.get().status().message(), "params.n_points: missing");

  n.Set(IntParam(nlohmann::json(7), "n_points", 0, 1000));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value(), 7);
  EXPECT_EQ(*n.get(), 7);
  EXPECT_TRUE(n.status().ok());

  n.Set(IntParam(nlohmann::json(7.0), "n_points", 0, 1000));  // an integral float
  EXPECT_EQ(*n.get(), 7);
  n.Set(IntParam(nlohmann::json(7.5), "n_points", 0, 1000));
  EXPECT_EQ(n.status().message(), "params.n_points: expected an integer, found 7.5");
  n.Set(IntParam(nlohmann::json("7"), "n_points", 0, 1000));
  EXPECT_EQ(n.status().message(), "params.n_points: expected an integer, found \"7\"");
  n.Set(IntParam(nlohmann::json(1001), "n_points", 0, 1000));
  EXPECT_EQ(n.status().message(), "params.n_points: 1001 is out of range [0, 1000]");

  n.SetNotObject();
  EXPECT_EQ(n.status().message(), "params: expected an object");
}

TEST(ParamTest, ReadsAsGetIntInRangeAndGetStringRead) {
  const nlohmann::json params = {{"a", 3}, {"b", "x"}, {"c", nullptr}, {"d", -2}};
  for (const char* key : {"a", "b", "c", "d", "e"}) {
    const auto it = params.find(key);
    const auto old_int = GetIntInRange(params, "params", key, 0, 10);
    const auto old_string = GetString(params, "params", key);
    Param<int64_t> n(key);
    Param<std::string_view> s(key);
    if (it != params.end()) {
      n.Set(IntParam(*it, key, 0, 10));
      s.Set(StringParam(*it, key));
    }
    ASSERT_EQ(n.ok(), old_int.ok()) << key;
    EXPECT_EQ(n.status().message(), old_int.status().message()) << key;
    if (n.ok()) {
      EXPECT_EQ(n.value(), *old_int);
    }
    ASSERT_EQ(s.ok(), old_string.ok()) << key;
    EXPECT_EQ(s.status().message(), old_string.status().message()) << key;
    if (s.ok()) {
      EXPECT_EQ(s.value(), **old_string);
    }
  }
  const nlohmann::json not_object = nlohmann::json::array();
  Param<int64_t> n("a");
  n.SetNotObject();
  EXPECT_EQ(n.status().message(),
            GetIntInRange(not_object, "params", "a", 0, 1).status().message());
}

}  // namespace
}  // namespace structtest
