// The self-contained HTML report of one or more stored runs (`structtest report
// --format html`, and report.html in every run directory): one file that opens from disk
// with no server and no network request. It holds the page's script and style
// (web/report.js, web/report.css) and the chart libraries (Vega, Vega-Lite, vega-embed
// from web/node_modules), all compiled into the binary, and the runs' data as one
// gzip-compressed, base64-encoded JSON document that the page inflates with the
// browser's DecompressionStream. In that document every text (prompt message, answer,
// reasoning) is cut at blank lines and each long paragraph of the prompts is stored
// once, so the documents the summarization prompts share, and answers that repeat the
// prompt, cost their size once. The paper's Tables 1-3 (data/paper) come along, for the
// ranks. The document is written as it is read from the stores, straight into the
// compressor: memory holds the compressed page and the prompts' distinct paragraphs,
// not the runs' data.
#ifndef STRUCTTEST_REPORT_HTML_REPORT_H_
#define STRUCTTEST_REPORT_HTML_REPORT_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/cost.h"
#include "report/tally.h"
#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// The report's data before compression: {"rules", "chunks": [paragraph...], "samples":
// [{"id", "domain", "subtask", "params", "derived" (parameters read off the sample for the
// plots, e.g. math_hard's "target_steps", "step_style", "answer_phrase"; {} when none),
// "messages": [[role, text]], "target": [[field, text]] (the target as a person reads it:
// "answer" first, a string field as its text, another as its JSON)}], "runs": [{"dir",
// "date", "builtin": the built-in responder's name for a run of --model builtin/NAME
// (not a model: the page ranks it apart from the paper's), else null, "report": the figures
// of report.json with the manifest and counts and its "usage" block (cost.h's
// AddUsageJson, at the run's price),
// "rows": [[sample, status, answer, reasoning, reason, finish, input_tokens,
// output_tokens, reasoning_tokens, latency_ms]] (in a run of repeated samples, a row a
// sample's repeat, with the repeat after latency_ms)}], "compare": [{"baseline": run index,
// "result": RenderCompareJson's, or "error"}], "paper": {"table1", "table2", "table3"}
// as CSV}, "chart_libraries": their versions}. A text is an array of paragraphs joined by "\n\n", each a string or the
// index of a chunk (chunks hold the prompts' long paragraphs). status is "pass", "fail", "error" (the request failed),
// "unscored" (answered, no verdict) or "unasked". Samples equal in several runs are
// stored once (the same id, domain, subtask, params, context and prompt, as compare.h
// pairs them; the first run's target is kept). Errors: a directory without a run, an
// unreadable store. For tests and tools: the page never builds it.
//
// `prices`, when not empty, holds the price of each run (nullopt: none known), one per
// run dir. Default: the price recorded in DIR/report.json's usage block (what `run`
// costed the run at), else the built-in table's line for the manifest's model.
//
// Pairs: with several runs, the compare results are of the baseline against each other
// run (what the page shows), one pair at a time.
StatusOr<nlohmann::json> HtmlReportData(const std::vector<std::string>& run_dirs,
                                        RuleSet rules,
                                        const std::vector<std::optional<Price>>& prices = {});

// The page of the runs in `run_dirs`, in that order, with HtmlReportData's document
// embedded. Errors: those of HtmlReportData, compression failed.
StatusOr<std::string> RenderHtmlReport(const std::vector<std::string>& run_dirs,
                                       RuleSet rules,
                                       const std::vector<std::optional<Price>>& prices = {});

// What WriteHtmlReport calls as it goes.
struct PageHooks {
  // Called once the samples are written, before the first run's rows are read; an
  // error abandons the page. `run` writes the samples half (the prompts, most of the
  // page) while it asks the model, and lets the page go on when the verdicts are in.
  std::function<Status()> before_rows;
  // Given each run's tally (TallyRun's), made in the same pass as the page's rows.
  std::function<void(size_t run, Tally&& tally)> tallied;
};

// The same page written to `path` as it is made (PATH.PID.tmp, renamed when complete,
// so a reader never sees half a page and an old page stays until the new one is
// whole; such files of processes that died are removed first). Errors: those of RenderHtmlReport, the file cannot be written, that of a
// hook (the page is then abandoned).
Status WriteHtmlReport(const std::vector<std::string>& run_dirs, RuleSet rules,
                       const std::string& path,
                       const std::vector<std::optional<Price>>& prices = {},
                       const PageHooks& hooks = {});

}  // namespace structtest

#endif  // STRUCTTEST_REPORT_HTML_REPORT_H_
