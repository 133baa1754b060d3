#include "structtest/score_records.h"

#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/jsonl.h"
#include "core/record_io.h"
#include "report/tally.h"
#include "sandbox/python_pool.h"
#include "tasks/registry.h"
#include "tasks/score_stage.h"
#include "text/punkt.h"

namespace structtest {

namespace {

// The sentence model: the caller's, or loaded on first need, once; a failure is
// reported one time, not once per record.
class LazySplitter {
 public:
  LazySplitter(const ScoreRecordsOptions& options, const ScoreRecordsEvents& events)
      : dir_(options.nltk_data), given_(options.sentences), events_(events) {}

  // A folder named explicitly that does not hold the model is an error before anything
  // is scored (the built-in model is not used in its place).
  Status CheckNamedFolder() {
    if (given_ != nullptr || dir_.empty()) return Status::Ok();
    tried_ = true;
    ASSIGN_OR_RETURN(loaded_, SentenceSplitter::Load(dir_));
    return Status::Ok();
  }

  const SentenceSplitter* Get() {
    if (given_ != nullptr) return given_;
    if (!tried_) {
      tried_ = true;
      auto loaded = SentenceSplitter::Load(dir_);
      if (loaded.ok()) {
        loaded_ = std::move(loaded).value();
      } else if (events_.error) {
        events_.error(fmt::format("{}: {}", dir_.empty() ? "$NLTK_DATA" : dir_,
                                  loaded.status().message()));
      }
    }
    return loaded_.get();
  }

 private:
  const std::string dir_;
  const SentenceSplitter* const given_;
  const ScoreRecordsEvents& events_;
  bool tried_ = false;
  std::unique_ptr<SentenceSplitter> loaded_;
};

}  // namespace

StatusOr<ScoreRecordsResult> ScoreRecords(const ScoreRecordsOptions& options,
                                          const ScoreRecordsEvents& events) {
  ASSIGN_OR_RETURN(const int jobs, ResolveScoreJobs(options.score_jobs));
  ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader, RecordReader::Open(options.input));
  LazySplitter splitter(options, events);
  RETURN_IF_ERROR(splitter.CheckNamedFolder());
  std::unique_ptr<JsonlWriter> writer;
  if (!options.output.empty()) {
    RETURN_IF_ERROR(CheckOutputIsNotInput(options.input, options.output));
    ASSIGN_OR_RETURN(writer, JsonlWriter::Open(options.output));
  }
  PythonOptions python_options;
  python_options.python = options.python;  // empty: $STRUCTTEST_PYTHON, else auto
  python_options.max_workers = jobs;        // one python3 worker per scoring thread
  PythonPool python(python_options);        // starts nothing until a code record needs it

  ScoreRecordsResult result;
  Tally tally;
  RecordReader& in = *reader;
  const auto problem = [&](std::string_view what) {
    if (events.problem) events.problem(what);
  };
  // Verdicts come back in input order, so the output is the same for any number of
  // jobs. Their lines are written straight into the writer's buffer.
  ScoreStage stage(options.rules, jobs, [&](ScoreItem& item) -> Status {
    const Sample& sample = item.record.sample;
    const auto& verdict = item.verdict;
    if (!verdict.ok()) {
      tally.AddError(sample);
      problem(fmt::format("{}:{}: record '{}' ({}/{}): {}", in.path(), item.tag, sample.id,
                          sample.domain, sample.subtask, verdict.status().message()));
      if (writer) {
        AppendScoreErrorLine(sample, verdict.status().message(), options.rules, writer->buffer());
      }
    } else {
      tally.Add(sample, *verdict);
      if (writer) AppendVerdictLine(sample, *verdict, writer->buffer());
      if (!verdict->pass && events.failed) events.failed(sample, *verdict);
    }
    if (writer) RETURN_IF_ERROR(writer->FlushIfFull());
    return Status::Ok();
  });

  ScoreItem item;
  std::string bad;
  for (;;) {
    const auto r = in.NextRecord(&item.record, &bad);
    if (r == RecordReader::Result::kEnd) break;
    if (r == RecordReader::Result::kBadLine) {
      // Reported after the records before it, as a single thread would.
      RETURN_IF_ERROR(stage.Finish());
      ++result.bad_lines;
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
    RETURN_IF_ERROR(stage.Add(&item));
  }
  RETURN_IF_ERROR(stage.Finish());
  RETURN_IF_ERROR(in.io_error());
  if (writer) RETURN_IF_ERROR(writer->Close());
  result.input = in.path();
  result.scored = tally.scored();
  result.errors = tally.errors();
  result.table = RenderTextReport(tally, options.rules);
  return result;
}

}  // namespace structtest
