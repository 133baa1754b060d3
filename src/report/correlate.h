// `structtest correlate`: correlations between the numeric columns of a table of
// figures per model (a CSV with a `model` column, such as the paper's Table 4:
// StructTest, Chatbot Arena and MMLU), optionally with stored runs' scores added as
// columns for their models. Every pair of numeric columns gets Pearson's r with a
// Fisher z interval and Spearman's rho with a bootstrap interval (stats.h), over the
// models that have both figures.
#ifndef STRUCTTEST_REPORT_CORRELATE_H_
#define STRUCTTEST_REPORT_CORRELATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/stats.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

struct ModelTable {
  std::string name;  // where it came from, for the report
  std::vector<std::string> models;
  // The numeric columns, in file order, then the added ones; values[c][m] is column c
  // of model m, nullopt where the cell is empty ("", "-", "NA", "n/a", "null").
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<double>>> values;
  std::vector<std::string> skipped;  // columns holding text other than numbers
  std::vector<std::string> runs;     // the models given a run's scores (AddRunColumns)
};

// Reads a CSV whose header has a `model` column (any case); the other columns are
// numeric when every non-empty cell is a number (a trailing % is allowed). Errors
// name the file and line: no model column, a row of another width, a model twice, no
// rows.
StatusOr<ModelTable> ParseModelTable(std::string_view csv, std::string_view name);
StatusOr<ModelTable> LoadModelTable(const std::string& path);

// The paper's Table 4 (data/paper/table4_correlation.csv, compiled in).
std::string_view PaperTable4Csv();
inline constexpr std::string_view kPaperTable4Name =
    "the paper's Table 4 (data/paper/table4_correlation.csv)";

// The run columns, in order: the figures of the report (aggregates.h).
inline constexpr std::string_view kRunColumns[] = {
    "run_all", "run_easy", "run_hard",
    "run_summarization_easy", "run_summarization_hard", "run_code_easy", "run_code_hard",
    "run_html_easy", "run_html_hard", "run_math_easy", "run_math_hard"};

// Adds the stored run in `dir`'s All, Easy, Hard and per-domain scores (verdicts under
// `rules`) as the kRunColumns for `model`: its row, found regardless of case, or a new
// one. Errors: no run in `dir`, the model given twice.
Status AddRunColumns(ModelTable* table, const std::string& model, const std::string& dir,
                     RuleSet rules);

struct ColumnPair {
  std::string x, y;
  int64_t n = 0;  // models with both figures
  std::optional<Correlation> pearson, spearman;  // none below 3 models or if constant
};

// Every pair of columns (i < j, in column order). Spearman's stream is "x/y".
std::vector<ColumnPair> CorrelateColumns(const ModelTable& table,
                                         const BootstrapOptions& options = {});

std::string RenderCorrelationsText(const ModelTable& table, const std::vector<ColumnPair>& pairs);
std::string RenderCorrelationsMarkdown(const ModelTable& table,
                                       const std::vector<ColumnPair>& pairs);
nlohmann::json RenderCorrelationsJson(const ModelTable& table,
                                      const std::vector<ColumnPair>& pairs);

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_CORRELATE_H_
