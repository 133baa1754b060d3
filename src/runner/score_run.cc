#include "runner/score_run.h"

#include "core/status_macros.h"
#include "runner/runner.h"
#include "sandbox/python_pool.h"
#include "text/punkt.h"

namespace structtest {

StatusOr<std::unique_ptr<RunStore>> OpenExistingRun(const std::string& dir) {
  RETURN_IF_ERROR(RunStore::OpenReadOnly(dir).status());
  return RunStore::Open(dir);
}

StatusOr<Tally> ScoreRun(RunStore* store, const SentenceSplitter* sentences,
                         const ScoringSettings& scoring) {
  PythonOptions python_options;
  python_options.python = scoring.python;
  python_options.max_workers = scoring.score_jobs;
  PythonPool python(python_options);
  CheckEnv env;
  env.sentences = sentences;
  env.python = &python;
  RunnerOptions ro;
  ro.scoring = scoring;
  Runner runner(store, nullptr, env, ro);
  return runner.ScoreAndTally();
}

}  // namespace structtest
