// `structtest correlate [FILE.csv] [--run MODEL=RUN ...]`: Pearson and Spearman
// correlations, with 95% intervals, between every pair of numeric columns of a table
// with a `model` column; --run adds a stored run's scores as columns for that model.
// Without FILE: the paper's Table 4 (report/correlate.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "report/correlate.h"

namespace structtest::cli {

namespace {

struct CorrelateOptions {
  std::string file;
  std::vector<std::string> runs;
  std::string format = "text";
  std::string rules = "paper";
};

int RunCorrelate(const CorrelateOptions& opt) {
  if (opt.format != "text" && opt.format != "markdown" && opt.format != "json") {
    PrintError(fmt::format("--format {}: expected text, markdown or json", opt.format));
    return kExitFatal;
  }
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  auto table = opt.file.empty() ? ParseModelTable(PaperTable4Csv(), kPaperTable4Name)
                                : LoadModelTable(opt.file);
  if (!table.ok()) {
    PrintError(table.status().message());
    return kExitFatal;
  }
  for (const std::string& run : opt.runs) {
    const size_t eq = run.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == run.size()) {
      PrintError(fmt::format("--run {}: expected MODEL=RUN_DIR", run));
      return kExitFatal;
    }
    if (Status s = AddRunColumns(&*table, run.substr(0, eq), run.substr(eq + 1), *rules); !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
  }
  const std::vector<ColumnPair> pairs = CorrelateColumns(*table);
  const std::string out = opt.format == "json" ? RenderCorrelationsJson(*table, pairs).dump(2) + "\n"
                          : opt.format == "markdown" ? RenderCorrelationsMarkdown(*table, pairs)
                                                     : RenderCorrelationsText(*table, pairs);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

void SetupCorrelate(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<CorrelateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "correlate", "Pearson and Spearman correlations, with 95% intervals, between the numeric "
                   "columns of a table of models (default: the paper's Table 4)");
  cmd->add_option("file", opt->file, "CSV with a 'model' column (default: the paper's Table 4)");
  cmd->add_option("--run", opt->runs,
                  "MODEL=RUN_DIR: add the run's All, Easy, Hard and domain scores as columns "
                  "for MODEL (repeatable)");
  cmd->add_option("--format", opt->format, "text (default), markdown or json");
  cmd->add_option("--rules", opt->rules, "whose stored verdicts --run reads (default paper)");
  cmd->callback([opt, exit_code]() { *exit_code = RunCorrelate(*opt); });
}

}  // namespace structtest::cli
