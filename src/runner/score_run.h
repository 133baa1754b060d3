// Scoring a stored run after the fact: what `structtest rescore` (another rule set, a
// newer checker) and `structtest import` (answers of an offline engine) both do. The
// answers of the run directory that have no current verdict are scored and stored, and
// the whole run is tallied for its reports; the model is not asked.
#ifndef STRUCTTEST_RUNNER_SCORE_RUN_H_
#define STRUCTTEST_RUNNER_SCORE_RUN_H_

#include <memory>
#include <string>

#include "report/tally.h"
#include "store/run_store.h"
#include "structtest/run.h"
#include "structtest/status.h"
#include "tasks/score_stage.h"
#include "tasks/task.h"

namespace structtest {

class SentenceSplitter;

// The run directory `dir`, opened for writing. Errors: `dir` holds no run (where
// RunStore::Open would make a new one), or cannot be opened.
StatusOr<std::unique_ptr<RunStore>> OpenExistingRun(const std::string& dir);

// Scores the answers of `store` that have no verdict of the current checker under
// scoring.rules (failed scorings again), stores the verdicts, and tallies the whole
// run: answers by their verdicts, request errors as "not scored". Code is scored by
// scoring.score_jobs threads and as many python3 workers (scoring.python); REQUIRES:
// score_jobs resolved (ResolveScoreJobs). `sentences` may be
// null when no answer counts sentences (their scoring then fails, as data).
StatusOr<Tally> ScoreRun(RunStore* store, const SentenceSplitter* sentences,
                         const ScoringSettings& scoring);

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_SCORE_RUN_H_
