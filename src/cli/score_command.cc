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
#include "tasks/score_stage.h"
#include "sandbox/python_pool.h"
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
  int jobs = DefaultScoreJobs();
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
      splitter_ = LoadSentenceSplitter(dir_);
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
  if (Status s = CheckScoreJobs(opt.jobs); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
  }
  auto reader = RecordReader::Open(opt.input);
  if (!reader.ok()) {
    PrintError(reader.status().message());
    return kExitFatal;
  }
  std::unique_ptr<JsonlWriter> writer;
  if (!opt.output.empty()) {
    if (Status s = CheckOutputIsNotInput(opt.input, opt.output); !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
    auto w = JsonlWriter::Open(opt.output);
    if (!w.ok()) {
      PrintError(w.status().message());
      return kExitFatal;
    }
    writer = std::move(w).value();
  }

  LazySplitter splitter(opt.nltk_data);
  // A folder named on the command line is checked before anything is scored.
  if (!opt.nltk_data.empty() && splitter.Get() == nullptr) return kExitFatal;
  PythonOptions python_options;
  python_options.python = opt.python;  // empty: $STRUCTTEST_PYTHON, else auto
  python_options.max_workers = opt.jobs;  // one python3 worker per scoring thread
  PythonPool python(python_options);   // starts nothing until a code record needs it
  Tally tally;
  int64_t bad_lines = 0;
  int printed = 0;
  auto problem = [&](const std::string& what) {
    if (printed < kMaxPrintedProblems) std::fputs((what + "\n").c_str(), stderr);
    ++printed;
  };
  std::string explained;

  RecordReader& in = **reader;
  // Verdicts come back in input order, so the output is the same for any --score-jobs.
  // Their lines are written straight into the writer's buffer.
  ScoreStage stage(*rules, opt.jobs, [&](ScoreItem& item) -> Status {
    const Sample& sample = item.record.sample;
    const auto& verdict = item.verdict;
    if (!verdict.ok()) {
      tally.AddError(sample);
      problem(fmt::format("{}:{}: record '{}' ({}/{}): {}", in.path(), item.tag, sample.id,
                          sample.domain, sample.subtask, verdict.status().message()));
      if (writer) AppendScoreErrorLine(sample, verdict.status().message(), *rules, writer->buffer());
    } else {
      tally.Add(sample, *verdict);
      if (writer) AppendVerdictLine(sample, *verdict, writer->buffer());
      if (opt.explain && !verdict->pass) {
        explained += fmt::format("FAIL {} {}/{}: {}\n", sample.id, sample.domain,
                                 sample.subtask, verdict->reason);
      }
    }
    if (writer) RETURN_IF_ERROR(writer->FlushIfFull());
    if (explained.size() > (1 << 16)) {
      std::fputs(explained.c_str(), stdout);
      explained.clear();
    }
    return Status::Ok();
  });

  ScoreItem item;
  std::string bad;
  for (;;) {
    const auto r = in.NextRecord(&item.record, &bad);
    if (r == RecordReader::Result::kEnd) break;
    if (r == RecordReader::Result::kBadLine) {
      // Reported after the records before it, as a single thread would.
      if (Status s = stage.Finish(); !s.ok()) {
        PrintError(s.message());
        return kExitFatal;
      }
      ++bad_lines;
      problem(bad);
      continue;
    }
    const Sample& sample = item.record.sample;
    item.env = CheckEnv{};
    item.env.python = &python;
    if (auto ref = FindSubtask(sample.domain, sample.subtask);
        ref.ok() && ref->spec->needs_sentences) {
      item.env.sentences = splitter.Get();
    }
    item.tag = in.line_number();
    if (Status s = stage.Add(&item); !s.ok()) {
      PrintError(s.message());
      return kExitFatal;
    }
  }
  if (Status s = stage.Finish(); !s.ok()) {
    PrintError(s.message());
    return kExitFatal;
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
  if (tally.scored() == 0 && tally.errors() == 0 && bad_lines == 0) {
    PrintError(fmt::format("{}: no records to score", in.path()));
    return kExitFailures;
  }
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
  cmd->add_option("--nltk-data", opt->nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->python,
                  "python3 for the code subtasks (default: $STRUCTTEST_PYTHON, else the "
                  "first of /usr/bin/python3 and python3 on PATH that has numpy)");
  cmd->add_option("--score-jobs,-J", opt->jobs,
                  "threads (and python3 workers) scoring the code subtasks; the others "
                  "are scored on the main thread (default: the number of cores)");
  cmd->add_flag("--explain", opt->explain, "also print every failure with its reason");
  cmd->callback([opt, exit_code]() { *exit_code = RunScore(*opt); });
}

}  // namespace structtest::cli
