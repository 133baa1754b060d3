#include "report/correlate.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "core/file_util.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "sources/csv.h"
#include "store/run_store.h"

namespace structtest {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool Missing(std::string_view cell) {
  const std::string v = AsciiLower(Trim(cell));
  return v.empty() || v == "-" || v == "na" || v == "n/a" || v == "null";
}

std::optional<double> Number(std::string_view cell) {
  std::string_view v = Trim(cell);
  if (!v.empty() && v.back() == '%') v = Trim(v.substr(0, v.size() - 1));
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  double out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty() || !std::isfinite(out)) {
    return std::nullopt;
  }
  return out;
}

size_t ModelRow(ModelTable* table, const std::string& model) {
  const std::string key = AsciiLower(model);
  for (size_t m = 0; m < table->models.size(); ++m) {
    if (AsciiLower(table->models[m]) == key) return m;
  }
  table->models.push_back(model);
  for (auto& column : table->values) column.push_back(std::nullopt);
  return table->models.size() - 1;
}

std::string Fixed(double v) { return fmt::format("{:.3f}", v); }

std::string CoefficientCiText(const std::optional<Interval>& i) {
  return i ? fmt::format("[{:6.3f}, {:6.3f}]", i->low, i->high) : std::string("-");
}

nlohmann::json CorrelationJson(const std::optional<Correlation>& c, bool bootstrap) {
  if (!c) return nlohmann::json();
  nlohmann::json j = {{"value", c->value}};
  j["low"] = c->ci ? nlohmann::json(c->ci->low) : nlohmann::json();
  j["high"] = c->ci ? nlohmann::json(c->ci->high) : nlohmann::json();
  if (bootstrap) j["replicates_used"] = c->replicates_used;
  return j;
}

std::string ColumnsLine(const ModelTable& table) {
  std::string out = fmt::format("{}: {} models; numeric columns:", table.name, table.models.size());
  for (const std::string& c : table.columns) out += " " + c;
  if (!table.skipped.empty()) {
    out += "; not numeric:";
    for (const std::string& c : table.skipped) out += " " + c;
  }
  return out;
}

size_t TooFew(const std::vector<ColumnPair>& pairs) {
  return static_cast<size_t>(std::count_if(pairs.begin(), pairs.end(),
                                           [](const ColumnPair& p) { return !p.pearson; }));
}

std::string PairNotes(const std::vector<ColumnPair>& pairs) {
  std::string out = fmt::format(
      "Pearson's r with a Fisher z 95% CI; Spearman's rho with a percentile bootstrap 95% CI "
      "({} replicates resampling the models, seed {}); n: models with both figures; "
      "'-': no interval, where r or rho is 1 or -1, or n is below 4 (Fisher) or {} (bootstrap)",
      kBootstrapReplicates, kBootstrapSeed, kMinBootstrapPairs);
  if (const size_t few = TooFew(pairs); few > 0) {
    out += fmt::format("; {} pair(s) left out: fewer than 3 models with both figures, or a "
                       "constant column",
                       few);
  }
  return out;
}

}  // namespace

StatusOr<ModelTable> ParseModelTable(std::string_view csv, std::string_view name) {
  ASSIGN_OR_RETURN(const std::vector<internal::CsvRecord> records, internal::ParseCsv(csv, name));
  if (records.empty()) return Status::InvalidArgument(fmt::format("{}: empty table", name));
  const std::vector<std::string>& header = records[0].fields;
  size_t model = header.size();
  for (size_t c = 0; c < header.size(); ++c) {
    if (AsciiLower(Trim(header[c])) == "model") model = c;
  }
  if (model == header.size()) {
    return Status::InvalidArgument(fmt::format("{}:1: no 'model' column in the header", name));
  }
  if (records.size() < 2) return Status::InvalidArgument(fmt::format("{}: no rows", name));
  ModelTable table;
  table.name = name;
  std::vector<std::vector<std::optional<double>>> values(header.size());
  std::vector<bool> numeric(header.size(), true);
  for (size_t r = 1; r < records.size(); ++r) {
    const internal::CsvRecord& rec = records[r];
    if (rec.fields.size() != header.size()) {
      return Status::InvalidArgument(fmt::format("{}:{}: {} fields, the header has {}", name,
                                                 rec.line, rec.fields.size(), header.size()));
    }
    const std::string m(Trim(rec.fields[model]));
    if (m.empty()) return Status::InvalidArgument(fmt::format("{}:{}: no model name", name, rec.line));
    for (const std::string& seen : table.models) {
      if (AsciiLower(seen) == AsciiLower(m)) {
        return Status::InvalidArgument(
            fmt::format("{}:{}: model '{}' appears twice", name, rec.line, m));
      }
    }
    table.models.push_back(m);
    for (size_t c = 0; c < header.size(); ++c) {
      if (c == model) continue;
      if (Missing(rec.fields[c])) {
        values[c].push_back(std::nullopt);
        continue;
      }
      const std::optional<double> v = Number(rec.fields[c]);
      if (!v) numeric[c] = false;
      values[c].push_back(v);
    }
  }
  for (size_t c = 0; c < header.size(); ++c) {
    if (c == model) continue;
    const std::string column(Trim(header[c]));
    const bool any = std::any_of(values[c].begin(), values[c].end(),
                                 [](const std::optional<double>& v) { return v.has_value(); });
    if (!numeric[c] || !any) {
      table.skipped.push_back(column);
      continue;
    }
    table.columns.push_back(column);
    table.values.push_back(std::move(values[c]));
  }
  return table;
}

StatusOr<ModelTable> LoadModelTable(const std::string& path) {
  StatusOr<std::string> data = ReadFileToString(path);
  if (!data.ok()) return Status::IoError(fmt::format("{}: {}", path, data.status().message()));
  return ParseModelTable(*data, path);
}

Status AddRunColumns(ModelTable* table, const std::string& model, const std::string& dir,
                     RuleSet rules) {
  for (const std::string& m : table->runs) {
    if (AsciiLower(m) == AsciiLower(model)) {
      return Status::InvalidArgument(
          fmt::format("--run {}={}: {} already has a run's scores", model, dir, m));
    }
  }
  ASSIGN_OR_RETURN(auto store, RunStore::OpenReadOnly(dir));
  ASSIGN_OR_RETURN(const Tally tally, TallyRun(*store, rules));
  table->runs.push_back(model);
  const Aggregates agg = tally.Compute();
  std::vector<std::optional<double>> figures = {agg.all, agg.overall_easy, agg.overall_hard};
  for (std::string_view d : kPaperDomains) {
    figures.push_back(agg.easy.at(std::string(d)));
    figures.push_back(agg.hard.at(std::string(d)));
  }
  const size_t row = ModelRow(table, model);
  for (size_t f = 0; f < std::size(kRunColumns); ++f) {
    auto it = std::find(table->columns.begin(), table->columns.end(), kRunColumns[f]);
    if (it == table->columns.end()) {
      table->columns.emplace_back(kRunColumns[f]);
      table->values.emplace_back(table->models.size(), std::nullopt);
      it = table->columns.end() - 1;
    }
    table->values[static_cast<size_t>(it - table->columns.begin())][row] = figures[f];
  }
  return Status::Ok();
}

std::vector<ColumnPair> CorrelateColumns(const ModelTable& table, const BootstrapOptions& options) {
  std::vector<ColumnPair> out;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    for (size_t j = i + 1; j < table.columns.size(); ++j) {
      ColumnPair p;
      p.x = table.columns[i];
      p.y = table.columns[j];
      std::vector<double> x, y;
      for (size_t m = 0; m < table.models.size(); ++m) {
        if (table.values[i][m] && table.values[j][m]) {
          x.push_back(*table.values[i][m]);
          y.push_back(*table.values[j][m]);
        }
      }
      p.n = static_cast<int64_t>(x.size());
      p.pearson = Pearson(x, y);
      p.spearman = Spearman(x, y, p.x + "/" + p.y, options);
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::string RenderCorrelationsText(const ModelTable& table, const std::vector<ColumnPair>& pairs) {
  std::string out = ColumnsLine(table) + "\n\n";
  size_t wx = 1, wy = 1;
  for (const ColumnPair& p : pairs) {
    if (!p.pearson) continue;  // not shown
    wx = std::max(wx, p.x.size());
    wy = std::max(wy, p.y.size());
  }
  out += fmt::format("{:<{}}  {:<{}}  {:>3}  {:>9}  {:<16}  {:>12}  {}\n", "x", wx, "y", wy, "n",
                     "pearson r", "95% CI (Fisher)", "spearman rho", "95% CI (bootstrap)");
  for (const ColumnPair& p : pairs) {
    if (!p.pearson) continue;
    out += fmt::format("{:<{}}  {:<{}}  {:>3}  {:>9}  {:<16}  {:>12}  {}\n", p.x, wx, p.y, wy, p.n,
                       Fixed(p.pearson->value), CoefficientCiText(p.pearson->ci),
                       p.spearman ? Fixed(p.spearman->value) : "-",
                       CoefficientCiText(p.spearman ? p.spearman->ci : std::nullopt));
  }
  out += "\n" + PairNotes(pairs) + "\n";
  return out;
}

std::string RenderCorrelationsMarkdown(const ModelTable& table,
                                       const std::vector<ColumnPair>& pairs) {
  const auto ci = [](const std::optional<Interval>& i) {
    return i ? fmt::format("{:.3f} to {:.3f}", i->low, i->high) : std::string("-");
  };
  std::string out = ColumnsLine(table) + "\n\n";
  out += "| x | y | n | Pearson r | 95% CI (Fisher z) | Spearman ρ | 95% CI (bootstrap) |\n"
         "|---|---|---:|---:|---:|---:|---:|\n";
  for (const ColumnPair& p : pairs) {
    if (!p.pearson) continue;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", p.x, p.y, p.n,
                       Fixed(p.pearson->value), ci(p.pearson->ci),
                       p.spearman ? Fixed(p.spearman->value) : "-",
                       ci(p.spearman ? p.spearman->ci : std::nullopt));
  }
  out += "\n" + PairNotes(pairs) + ".\n";
  return out;
}

nlohmann::json RenderCorrelationsJson(const ModelTable& table, const std::vector<ColumnPair>& pairs) {
  nlohmann::json list = nlohmann::json::array();
  for (const ColumnPair& p : pairs) {
    list.push_back({{"x", p.x},
                    {"y", p.y},
                    {"n", p.n},
                    {"pearson", CorrelationJson(p.pearson, false)},
                    {"spearman", CorrelationJson(p.spearman, true)}});
  }
  return {{"table", table.name},
          {"models", table.models},
          {"columns", table.columns},
          {"skipped_columns", table.skipped},
          {"pairs", std::move(list)},
          {"intervals",
           {{"confidence", 0.95},
            {"pearson", "Fisher z"},
            {"spearman", "percentile bootstrap over the models"},
            {"replicates", kBootstrapReplicates},
            {"seed", kBootstrapSeed}}}};
}

}  // namespace structtest
