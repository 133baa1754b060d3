// Reading the request controls' flags (--header, TEXT|@FILE, --extra-body), and what a
// run's identity keeps of them. Their place in each provider's body is tested with the
// wire formats (providers_test.cc).
#include "backends/request_controls.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/test_support.h"

namespace structtest {
namespace {

using nlohmann::json;

TEST(RequestControlFlagsTest, HeadersParseAndBadOnesAreNamed) {
  const auto h = ParseHeaderFlag("X-Api-Tenant:  acme ");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->name, "X-Api-Tenant");
  EXPECT_EQ(h->value, "acme");
  EXPECT_EQ(ParseHeaderFlag("no colon secret").status().message(),
            "`request.headers`: expected 'Name: value' (no ':' in it)");
  EXPECT_EQ(ParseHeaderFlag("bad name: v").status().message(),
            "`request.headers` 'bad name: ...': expected a header name (letters, digits and "
            "-_.!#$%&'*+^`|~)");
  EXPECT_EQ(ParseHeaderFlag("X: a\nb").status().message(),
            "`request.headers` X: the value holds a line break");
  EXPECT_EQ(ParseHeaderFlag("content-length: 3").status().message(),
            "`request.headers` content-length: structtest writes this header itself");
}

TEST(RequestControlFlagsTest, TextAndExtraBodyComeFromTheFlagOrAFile) {
  testing::TempDir dir;
  const std::string file = dir.path() + "/system.txt";
  testing::WriteFileOrDie(file, "From a file.\n");
  EXPECT_EQ(*ReadTextFlag("`request.system`", "plain"), "plain");
  EXPECT_EQ(*ReadTextFlag("`request.system`", "@" + file), "From a file.\n");
  EXPECT_EQ(ReadTextFlag("`request.system`", "").status().message(), "`request.system`: empty");
  EXPECT_EQ(ReadTextFlag("`request.system`", "@" + dir.path() + "/none").status().message(),
            "`request.system` @" + dir.path() + "/none: cannot read: No such file or directory");
  testing::WriteFileOrDie(file, "");
  EXPECT_EQ(ReadTextFlag("`request.system`", "@" + file).status().message(),
            "`request.system` @" + file + ": the file is empty");

  EXPECT_EQ(*ParseExtraBody(R"({"top_k": 20})"), json({{"top_k", 20}}));
  testing::WriteFileOrDie(file, R"({"min_p": 0.05})");
  EXPECT_EQ(*ParseExtraBody("@" + file), json({{"min_p", 0.05}}));
  EXPECT_EQ(ParseExtraBody("[1]").status().message(),
            "`request.extra_body`: expected a JSON object ({\"key\": value, ...}), not array");
  EXPECT_NE(ParseExtraBody("{top_k: 1}").status().message().find(
                "`request.extra_body`: not JSON: "),
            std::string::npos);
}

TEST(RequestControlFlagsTest, IdentityHoldsWhatIsSetAndHeaderNamesOnly) {
  EXPECT_EQ(ControlsJson({}), json::object());
  RequestControls c;
  c.system = "S";
  c.top_p = 0.5;
  c.stop = {"x"};
  c.seed = 3;
  c.reasoning_effort = "low";
  c.thinking_budget = 2000;
  c.extra_body = {{"k", 1}};
  const json j = ControlsJson(c, HeaderNames({{"X-B", "secret-value-1"}, {"x-a", "secret-2"}}));
  EXPECT_EQ(j, json::parse(R"({"system":"S","top_p":0.5,"stop":["x"],"sampling_seed":3,
                                "reasoning_effort":"low","thinking_budget":2000,
                                "extra_body":{"k":1},"headers":["x-a","x-b"]})"));
  EXPECT_EQ(j.dump().find("secret"), std::string::npos);
}

}  // namespace
}  // namespace structtest
