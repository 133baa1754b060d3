// Token usage and what it costs: model prices (a compiled-in table of dated list
// prices, data/prices/prices.csv, a user's table of the same columns, or prices given
// on the command line), the token and cost figures of a tallied run (per subtask and in
// all, for the text table and report.json) and the dry-run estimate of what a run
// would send. A price is USD per million tokens; output tokens include the reasoning
// tokens, as every provider bills them.
#ifndef STRUCTTEST_REPORT_COST_H_
#define STRUCTTEST_REPORT_COST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/tally.h"
#include "structtest/status.h"

namespace structtest {

struct Price {
  std::string model;  // the --model value it applies to; "" for command-line prices
  double input_per_mtok = 0;   // USD per million input tokens
  double output_per_mtok = 0;  // USD per million output tokens
  std::string date;            // when the price was listed; "" when not known
  std::string source;          // "--price-in/--price-out", "FILE:LINE", built-in table

  double Cost(int64_t input_tokens, int64_t output_tokens) const {
    return (input_tokens * input_per_mtok + output_tokens * output_per_mtok) / 1e6;
  }
  // "USD 0.15 in / 0.60 out per million tokens (openai/gpt-4o-mini, list price of
  // 2024-07-18, built-in table)".
  std::string Describe() const;
};

// The share of the online price that a batch API bills: OpenAI's Batch API,
// Anthropic's Message Batches and Gemini's batch mode all bill half. A run's answers
// that came through one (StoredResponse::batch) are costed at it.
inline constexpr double kBatchPriceShare = 0.5;
// `price` at the batch price: both rates times kBatchPriceShare, the source saying so.
Price BatchPrice(const Price& price);

// data/prices/prices.csv, compiled in.
std::string_view BuiltinPricesCsv();
inline constexpr std::string_view kBuiltinPricesName = "the built-in price table";

// Parses a price table: a header line "model,input_usd_per_mtok,output_usd_per_mtok,
// date[,note]" and one model a line. `name` names the input in errors
// ("FILE:LINE: problem"): a missing column, a price that is not a number >= 0, a model
// listed twice.
StatusOr<std::vector<Price>> ParsePrices(std::string_view csv, std::string_view name);

// The price of `model` ("PROVIDER/NAME") in `table`, or nullopt.
std::optional<Price> FindPrice(const std::vector<Price>& table, std::string_view model);
// FindPrice in the built-in table.
StatusOr<std::optional<Price>> BuiltinPrice(std::string_view model);

// The token figures of a tally (Tally::AddUsage) and, with a price, their cost: a few
// lines under the table, one per subtask and the total. Says how many answers
// reported no usage, and that cached answers cost nothing.
std::string RenderUsageText(const Tally& tally, const std::optional<Price>& price);

// The same for report.json: report["usage"] = {"tokens": {"input", "output",
// "reasoning", "responses", "no_usage", "cached"}, "cost_usd" (null without a price),
// "subtasks": [{"domain", "subtask", "tokens", "cost_usd"}] in report order, "price":
// {"model", "input_usd_per_mtok", "output_usd_per_mtok", "date", "source"} or null}.
// report["subtasks"] is left as RenderJsonReport made it, the same as `report` prints.
void AddUsageJson(const Tally& tally, const std::optional<Price>& price, nlohmann::json* report);

// The dry-run cost range of `requests` requests of `prompt_tokens` tokens in all, at
// `price`: "$low to $high" (output of 0 to `max_tokens` a request), "$low and up"
// without max_tokens.
std::string CostRange(const Price& price, int64_t requests, int64_t prompt_tokens, int max_tokens);

// What a run would send, per subtask, for `run --dry-run`.
struct PlannedRequests {
  std::string domain;
  std::string subtask;
  int64_t requests = 0;
  int64_t prompt_chars = 0;  // of every message of every request
};

// Prompt tokens estimated from characters: 4 characters a token.
inline int64_t EstimateTokens(int64_t chars) { return (chars + 3) / 4; }

// The dry-run table: requests and estimated prompt tokens per subtask and in all and,
// with a price, the cost range (the estimated input, plus output of 0 to `max_tokens`
// per request; no upper bound when max_tokens is 0, the provider's default).
std::string RenderDryRun(const std::vector<PlannedRequests>& plan, const std::optional<Price>& price,
                         int max_tokens);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_COST_H_
