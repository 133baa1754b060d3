#include "report/cost.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "sources/csv.h"

namespace structtest {
namespace {

// A price as written in a table: a plain decimal number >= 0.
std::optional<double> ParsePriceField(const std::string& s) {
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end || !(v >= 0) || v > 1e6) return std::nullopt;
  return v;
}

struct UsageTotals {
  int64_t input = 0, output = 0, reasoning = 0, responses = 0, no_usage = 0, cached = 0;
  int64_t paid_input = 0, paid_output = 0;
  int64_t batch_input = 0, batch_output = 0;  // of paid_*: through a batch API
  void Add(const SubtaskTally& t) {
    batch_input += t.paid_batch_input_tokens;
    batch_output += t.paid_batch_output_tokens;
    input += t.input_tokens;
    output += t.output_tokens;
    reasoning += t.reasoning_tokens;
    responses += t.responses;
    no_usage += t.no_usage;
    cached += t.cached;
    paid_input += t.paid_input_tokens;
    paid_output += t.paid_output_tokens;
  }
};

UsageTotals Of(const SubtaskTally& t) {
  UsageTotals u;
  u.Add(t);
  return u;
}

std::string Usd(double v) { return fmt::format("${:.4f}", v); }

// What `u` cost at `price`: the answers asked online at it, those through a batch API
// at the batch price.
double CostOf(const Price& price, const UsageTotals& u) {
  return price.Cost(u.paid_input - u.batch_input, u.paid_output - u.batch_output) +
         kBatchPriceShare * price.Cost(u.batch_input, u.batch_output);
}

std::string UsageLine(std::string_view name, const UsageTotals& u,
                      const std::optional<Price>& price) {
  std::string line = fmt::format("{:<39} {:>10} {:>10} {:>10}", name, u.input, u.output,
                                 u.reasoning);
  line += price ? fmt::format(" {:>10}", Usd(CostOf(*price, u)))
                : fmt::format(" {:>10}", "-");
  std::string notes;
  if (u.no_usage > 0) notes += fmt::format("  {} answer(s) reported no usage", u.no_usage);
  if (u.cached > 0) notes += fmt::format("  {} from the cache (cost nothing)", u.cached);
  return line + notes + "\n";
}

nlohmann::json TokensJson(const UsageTotals& u) {
  return {{"input", u.input},         {"output", u.output},     {"reasoning", u.reasoning},
          {"responses", u.responses}, {"no_usage", u.no_usage}, {"cached", u.cached}};
}

}  // namespace

Price BatchPrice(const Price& price) {
  Price p = price;
  p.input_per_mtok *= kBatchPriceShare;
  p.output_per_mtok *= kBatchPriceShare;
  p.source = fmt::format("{}{}batch price: {:g}% of it", p.source, p.source.empty() ? "" : "; ",
                         100 * kBatchPriceShare);
  return p;
}

std::string CostRange(const Price& price, int64_t requests, int64_t prompt_tokens, int max_tokens) {
  const double low = price.Cost(prompt_tokens, 0);
  if (max_tokens <= 0) return fmt::format("{} and up", Usd(low));
  return fmt::format("{} to {}", Usd(low), Usd(price.Cost(prompt_tokens, requests * max_tokens)));
}

std::string Price::Describe() const {
  std::string what = fmt::format("USD {} in / {} out per million tokens", input_per_mtok,
                                 output_per_mtok);
  std::string from;
  if (!model.empty()) from = model;
  if (!date.empty()) from += fmt::format("{}list price of {}", from.empty() ? "" : ", ", date);
  if (!source.empty()) from += fmt::format("{}{}", from.empty() ? "" : ", ", source);
  return from.empty() ? what : fmt::format("{} ({})", what, from);
}

StatusOr<std::vector<Price>> ParsePrices(std::string_view csv, std::string_view name) {
  ASSIGN_OR_RETURN(std::vector<internal::CsvRecord> records, internal::ParseCsv(csv, name));
  if (records.empty()) return Status::InvalidArgument(fmt::format("{}: empty price table", name));
  const std::vector<std::string> want = {"model", "input_usd_per_mtok", "output_usd_per_mtok",
                                         "date"};
  const auto& header = records.front().fields;
  if (header.size() < want.size() || !std::equal(want.begin(), want.end(), header.begin())) {
    return Status::InvalidArgument(fmt::format(
        "{}:{}: expected the header model,input_usd_per_mtok,output_usd_per_mtok,date[,note]",
        name, records.front().line));
  }
  std::vector<Price> out;
  std::set<std::string> seen;
  for (size_t i = 1; i < records.size(); ++i) {
    const internal::CsvRecord& r = records[i];
    if (r.fields.size() < 4) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: expected 4 or 5 fields, got {}", name, r.line, r.fields.size()));
    }
    Price p;
    p.model = r.fields[0];
    if (p.model.empty()) return Status::InvalidArgument(fmt::format("{}:{}: no model", name, r.line));
    const auto in = ParsePriceField(r.fields[1]);
    const auto price_out = ParsePriceField(r.fields[2]);
    if (!in || !price_out) {
      return Status::InvalidArgument(fmt::format(
          "{}:{}: {}: a price is a number of USD per million tokens, 0 or more (got '{}', '{}')",
          name, r.line, p.model, r.fields[1], r.fields[2]));
    }
    if (!seen.insert(p.model).second) {
      return Status::InvalidArgument(fmt::format("{}:{}: {} is listed twice", name, r.line, p.model));
    }
    p.input_per_mtok = *in;
    p.output_per_mtok = *price_out;
    p.date = r.fields[3];
    p.source = std::string(name);
    out.push_back(std::move(p));
  }
  return out;
}

std::optional<Price> FindPrice(const std::vector<Price>& table, std::string_view model) {
  for (const Price& p : table) {
    if (p.model == model) return p;
  }
  return std::nullopt;
}

StatusOr<std::optional<Price>> BuiltinPrice(std::string_view model) {
  ASSIGN_OR_RETURN(const std::vector<Price> table, ParsePrices(BuiltinPricesCsv(), kBuiltinPricesName));
  return FindPrice(table, model);
}

std::string RenderUsageText(const Tally& tally, const std::optional<Price>& price) {
  std::string out = fmt::format("\n{:<39} {:>10} {:>10} {:>10} {:>10}\n", "tokens", "input",
                                "output", "reasoning", "cost");
  UsageTotals all;
  for (const SubtaskTally* t : tally.Subtasks()) {
    all.Add(*t);
    out += UsageLine(fmt::format("{}/{}", t->domain, t->subtask), Of(*t), price);
  }
  out += UsageLine("total", all, price);
  out += "output includes reasoning; ";
  out += price ? fmt::format("cost at {}{}", price->Describe(),
                             all.batch_input + all.batch_output > 0
                                 ? fmt::format("; the answers of batches at {:g}% of it",
                                               100 * kBatchPriceShare)
                                 : std::string())
               : std::string("no price for this model: pass --price-in and --price-out (USD per "
                             "million tokens) or --prices FILE for the cost");
  out += "\n";
  if (all.responses > 0 && all.no_usage == all.responses) {
    out += "the server reported no token usage: the figures above are not counts\n";
  }
  return out;
}

void AddUsageJson(const Tally& tally, const std::optional<Price>& price, nlohmann::json* report) {
  const auto cost = [&](const UsageTotals& u) {
    return price ? nlohmann::json(CostOf(*price, u)) : nlohmann::json();
  };
  UsageTotals all;
  nlohmann::json subtasks = nlohmann::json::array();
  for (const SubtaskTally* t : tally.Subtasks()) {
    all.Add(*t);
    subtasks.push_back({{"domain", t->domain},
                        {"subtask", t->subtask},
                        {"tokens", TokensJson(Of(*t))},
                        {"cost_usd", cost(Of(*t))}});
  }
  nlohmann::json usage = {{"tokens", TokensJson(all)}, {"cost_usd", cost(all)},
                          {"subtasks", std::move(subtasks)}};
  usage["price"] = price ? nlohmann::json{{"model", price->model},
                                          {"input_usd_per_mtok", price->input_per_mtok},
                                          {"output_usd_per_mtok", price->output_per_mtok},
                                          {"date", price->date},
                                          {"source", price->source}}
                         : nlohmann::json();
  usage["note"] = "output includes reasoning tokens; answers from the response cache cost nothing; "
                  "no_usage counts answers whose server reported no token usage";
  // Only in a run with answers of batches, so that the others' reports are as before.
  if (all.batch_input + all.batch_output > 0) {
    usage["batch_tokens"] = {{"input", all.batch_input}, {"output", all.batch_output}};
    usage["batch_price_share"] = kBatchPriceShare;
    usage["note"] = usage["note"].get<std::string>() +
                    "; the batch_tokens (answers through a batch API) cost batch_price_share of "
                    "the price";
  }
  (*report)["usage"] = std::move(usage);
}

std::string RenderDryRun(const std::vector<PlannedRequests>& plan, const std::optional<Price>& price,
                         int max_tokens) {
  const auto range = [&](int64_t requests, int64_t prompt_tokens) -> std::string {
    if (!price) return "-";
    return CostRange(*price, requests, prompt_tokens, max_tokens);
  };
  std::string out = fmt::format("{:<39} {:>9} {:>14}  {}\n", "subtask", "requests",
                                "prompt tokens~", "cost");
  int64_t requests = 0, chars = 0;
  for (const PlannedRequests& p : plan) {
    requests += p.requests;
    chars += p.prompt_chars;
    out += fmt::format("{:<39} {:>9} {:>14}  {}\n", fmt::format("{}/{}", p.domain, p.subtask),
                       p.requests, EstimateTokens(p.prompt_chars),
                       range(p.requests, EstimateTokens(p.prompt_chars)));
  }
  out += fmt::format("{:<39} {:>9} {:>14}  {}\n", "total", requests, EstimateTokens(chars),
                     range(requests, EstimateTokens(chars)));
  out += "prompt tokens~: an estimate, 4 characters a token; the cost range is the input of the "
         "estimate plus output of 0 to --max-tokens a request";
  if (max_tokens <= 0) out += " (no upper bound without --max-tokens)";
  out += "\n";
  out += price ? fmt::format("price: {}\n", price->Describe())
               : std::string("no price for this model: pass --price-in and --price-out or --prices "
                             "FILE for the cost\n");
  return out;
}

}  // namespace structtest
