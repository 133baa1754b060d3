// Scoring recorded responses: what `structtest score` does, as a call. A records file
// holds one sample per line with the "response" to score (the conformance format, or
// what `structtest export` writes); every record gets a verdict under the rule set, in
// input order whatever the number of threads, and the file's per-subtask table. For
// one sample at a time, in memory, use structtest/checker.h.
#ifndef STRUCTTEST_SCORE_RECORDS_H_
#define STRUCTTEST_SCORE_RECORDS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

class SentenceSplitter;

struct ScoreRecordsOptions {
  std::string input;   // the records (JSONL); "-": standard input
  std::string output;  // one verdict line per record, in input order; "": none; "-": stdout
  RuleSet rules = RuleSet::kPaper;
  // The Punkt model, loaded on the first record that counts sentences: from this
  // folder (holding tokenizers/punkt_tab/english), else $NLTK_DATA's, else the built-in
  // one. `sentences`, when given, is used instead (it must outlive the call).
  std::string nltk_data;
  const SentenceSplitter* sentences = nullptr;
  std::string python;  // python3 for the code subtasks; "": as `score` finds it
  // Threads and python3 workers scoring the code subtasks, 1 to 1024; 0: one per core.
  int score_jobs = 0;
};

// What happened as it happens, each on the calling thread, in input order. Each may be
// empty.
struct ScoreRecordsEvents {
  // A record that could not be scored or a malformed line, "INPUT:LINE: ...".
  std::function<void(std::string_view)> problem;
  // Once, a problem that is not one record's: the sentence model did not load (each
  // record that counts sentences is then a problem of its own).
  std::function<void(std::string_view)> error;
  // A record scored that failed, with its verdict.
  std::function<void(const Sample&, const Verdict&)> failed;
};

struct ScoreRecordsResult {
  std::string input;      // the input as messages name it ("<stdin>" for "-")
  int64_t scored = 0;     // records with a verdict
  int64_t errors = 0;     // records that could not be scored
  int64_t bad_lines = 0;  // malformed lines, skipped
  std::string table;      // the per-subtask table `structtest score` prints
};

// Scores every record of options.input. Errors, before anything is written unless
// said: score_jobs out of range, the input unreadable, the output the input itself or
// not writable, and, once scoring started, a read or write that failed. Records that
// cannot be scored are not errors: they are counted and reported (events.problem), and
// their verdict lines say why.
StatusOr<ScoreRecordsResult> ScoreRecords(const ScoreRecordsOptions& options,
                                          const ScoreRecordsEvents& events = {});

}  // namespace structtest

#endif  // STRUCTTEST_SCORE_RECORDS_H_
