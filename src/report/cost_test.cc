#include "report/cost.h"

#include <gtest/gtest.h>

namespace structtest {
namespace {

TEST(PricesTest, TheBuiltInTableParsesAndNamesItsDates) {
  auto table = ParsePrices(BuiltinPricesCsv(), kBuiltinPricesName);
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_GE(table->size(), 5u);
  for (const Price& p : *table) {
    EXPECT_EQ(p.date.size(), 10u) << p.model;  // YYYY-MM-DD
    EXPECT_GT(p.output_per_mtok, 0) << p.model;
  }
  const auto mini = FindPrice(*table, "openai/gpt-4o-mini");
  ASSERT_TRUE(mini.has_value());
  EXPECT_DOUBLE_EQ(mini->Cost(1'000'000, 1'000'000), mini->input_per_mtok + mini->output_per_mtok);
  EXPECT_FALSE(FindPrice(*table, "openai/no-such-model").has_value());
}

TEST(PricesTest, BadTablesNameTheLineAndTheProblem) {
  const std::string header = "model,input_usd_per_mtok,output_usd_per_mtok,date\n";
  auto bad = ParsePrices(header + "a/b,1.5,x,2025-01-01\n", "p.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p.csv:2: a/b"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParsePrices(header + "a/b,-1,2,2025-01-01\n", "p.csv").ok());
  EXPECT_FALSE(ParsePrices(header + "a/b,1,2,d\na/b,1,2,d\n", "p.csv").ok());
  EXPECT_FALSE(ParsePrices("model,price\na/b,1\n", "p.csv").ok());
  EXPECT_FALSE(ParsePrices(header + "a/b,1\n", "p.csv").ok());
  auto good = ParsePrices(header + "a/b,1,2,2025-01-01\n", "p.csv");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)[0].source, "p.csv");
  EXPECT_DOUBLE_EQ((*good)[0].Cost(500'000, 250'000), 1.0);
}

TEST(UsageTest, TokenTotalsPerSubtaskLeaveCachedAnswersOutOfTheCost) {
  Tally tally;
  Sample a;
  a.domain = "html";
  a.subtask = "x";
  tally.AddUsage(a, true, 100, 20, 5, false);
  tally.AddUsage(a, true, 100, 20, 0, true);
  tally.AddUsage(a, true, 0, 0, 0, false);
  Price p{"m", 1.0, 2.0, "2025-01-01", "test"};
  nlohmann::json report = nlohmann::json::object();
  AddUsageJson(tally, p, &report);
  EXPECT_EQ(report["usage"]["tokens"]["input"], 200);
  EXPECT_EQ(report["usage"]["tokens"]["output"], 40);
  EXPECT_EQ(report["usage"]["tokens"]["reasoning"], 5);
  EXPECT_EQ(report["usage"]["tokens"]["no_usage"], 1);
  EXPECT_EQ(report["usage"]["tokens"]["cached"], 1);
  EXPECT_DOUBLE_EQ(report["usage"]["cost_usd"].get<double>(), (100 * 1.0 + 20 * 2.0) / 1e6);
  ASSERT_EQ(report["usage"]["subtasks"].size(), 1u);
  EXPECT_EQ(report["usage"]["subtasks"][0]["subtask"], "x");
  EXPECT_EQ(report["usage"]["subtasks"][0]["tokens"]["input"], 200);
  const std::string text = RenderUsageText(tally, std::nullopt);
  EXPECT_NE(text.find("1 answer(s) reported no usage"), std::string::npos) << text;
  EXPECT_NE(text.find("no price for this model"), std::string::npos) << text;
}

}  // namespace
}  // namespace structtest
