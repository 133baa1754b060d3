// `structtest score`: scores recorded responses (JSONL in the conformance format),
// writes one verdict line per record and prints the per-subtask table.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/jsonl.h"
#include "core/record_io.h"
#include "report/tally.h"
#include "structtest/sample.h"
#include "tasks/registry.h"
#include "tasks/scorer.h"
#include "python/python_pool.h"
#include "text/punkt.h"

namespace structtest::cli {

namespace {

struct ScoreOptions {
  std::string input;
  std::string output;
  std::string rules = "paper";
  std::string nltk_data;
  bool explain = false;
  std::string python;
};

constexpr int kMaxPrintedProblems = 20;

// Loads the Punkt model on first need, once; remembers a failure so it is reported
// one time, not once per record.
class LazySplitter {
 public:
  explicit LazySplitter(std::string dir) : dir_(std::move(dir)) {}
  const SentenceSplitter* Get() {
    if (!tried_) {
      tried_ = true;
      auto loaded = SentenceSplitter::Load(dir_);
      if (loaded.ok()) {
        splitter_ = std::move(loaded).value();
      } else {
        PrintError(loaded.status().message());
      }
    }
    return splitter_.get();
  }

 private:
  std::string dir_;
  bool tried_ = false;
  std::unique_ptr<SentenceSplitter> splitter_;
};

int RunScore(const ScoreOptions& opt) {
  auto rules = ParseRuleSet(opt.rules);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return kExitFatal;
  }
  auto reader = RecordReader::Open(opt.input);
  if (!reader.ok()) {
    PrintError(reader.status().message());
    return kExitFatal;
  }
  std::unique_ptr<JsonlWriter> writer;
  if (!opt.output.empty()) {
    auto w = JsonlWriter::Open(opt.output);
    if (!w.ok()) {
      PrintError(w.status().message());
      return kExitFatal;
    }
    writer = std::move(w).value();
  }

  LazySplitter splitter(opt.nltk_data);
  PythonOptions python_options;
  python_options.python = opt.python;  // empty: $STRUCTTEST_PYTHON, else auto
  PythonPool python(python_options);   // starts nothing until a code record needs it
  Tally tally;
  int64_t bad_lines = 0;
  int printed = 0;
  auto problem = [&](const std::string& what) {
    if (printed < kMaxPrintedProblems) std::fputs((what + "\n").c_str(), stderr);
    ++printed;
  };
  std::string explained;

  ScoredRecord record;
  std::string bad;
  std::string out;  // the verdict line
  RecordReader& in = **reader;
  for (;;) {
    const auto r = in.NextRecord(&record, &bad);
    if (r == RecordReader::Result::kEnd) break;
    if (r == RecordReader::Result::kBadLine) {
      ++bad_lines;
      problem(bad);
      continue;
    }
    const Sample& sample = record.sample;
    CheckEnv env;
    env.python = &python;
    if (auto ref = FindSubtask(sample.domain, sample.subtask);
        ref.ok() && ref->spec->needs_sentences) {
      env.sentences = splitter.Get();
    }
    auto verdict = ScoreResponse(sample, record.response.text, *rules, env);
    out.clear();
    if (!verdict.ok()) {
      tally.AddError(sample);
      problem(fmt::format("{}:{}: record '{}' ({}/{}): {}", in.path(), in.line_number(),
                          sample.id, sample.domain, sample.subtask,
                          verdict.status().message()));
      if (writer) AppendScoreErrorLine(sample, verdict.status().message(), *rules, &out);
    } else {
      tally.Add(sample, *verdict);
      if (writer) AppendVerdictLine(sample, *verdict, &out);
      if (opt.explain && !verdict->pass) {
        explained += fmt::format("FAIL {} {}/{}: {}\n", sample.id, sample.domain,
                                 sample.subtask, verdict->reason);
      }
    }
    if (writer) {
      if (Status s = writer->WriteLine(out); !s.ok()) {
        PrintError(s.message());
        return kExitFatal;
      }
    }
    if (explained.size() > (1 << 16)) {
      std::fputs(explained.c_str(), stdout);
      explained.clear();
    }
  }
  if (!in.io_error().ok()) {
    PrintError(in.io_error().message());
    return kExitFatal;
  }
  if (writer) {
    if (Status s = writer->Close(); !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
  }
  if (printed > kMaxPrintedProblems) {
    std::fputs(fmt::format("... and {} more problems\n", printed - kMaxPrintedProblems).c_str(),
               stderr);
  }
  // With the verdicts on stdout (-o -), the table goes to stderr: stdout stays JSONL.
  std::FILE* table = opt.output == "-" ? stderr : stdout;
  std::fputs(explained.c_str(), table);
  if (!explained.empty()) std::fputs("\n", table);
  std::fputs(RenderTextReport(tally, *rules).c_str(), table);
  if (bad_lines > 0 || tally.errors() > 0) {
    std::fputs(fmt::format("\n{}: {} record(s) scored, {} malformed line(s) skipped, {} "
                           "record(s) could not be scored\n",
                           in.path(), tally.scored(), bad_lines, tally.errors())
                   .c_str(),
               stderr);
    return kExitFailures;
  }
  return kExitOk;
}

}  // namespace

void SetupScore(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ScoreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score recorded responses (JSONL: id, domain, subtask, params, context, "
               "response) and print accuracy per subtask");
  cmd->add_option("--input,-i", opt->input, "records to score (JSONL; - for stdin)")
      ->required();
  cmd->add_option("--output,-o", opt->output,
                  "write one verdict per record here (JSONL; - for stdout)");
  cmd->add_option("--rules", opt->rules, "rule set: paper (default) or strict");
  cmd->add_option("--nltk-data", opt->nltk_data,
                  "folder holding tokenizers/punkt_tab/english (default: $NLTK_DATA, "
                  "~/nltk_data and NLTK's standard folders)");
  cmd->add_option("--python", opt->python,
                  "python3 for the code subtasks (default: $STRUCTTEST_PYTHON, else the "
                  "first of python3 on PATH and /usr/bin/python3 that has numpy)");
  cmd->add_flag("--explain", opt->explain, "also print every failure with its reason");
  cmd->callback([opt, exit_code]() { *exit_code = RunScore(*opt); });
}

}  // namespace structtest::cli
