#include "runner/score_run.h"

#include "runner/runner.h"
#include "sandbox/python_pool.h"
#include "text/punkt.h"

namespace structtest {

StatusOr<std::unique_ptr<RunStore>> OpenExistingRun(const std::string& dir) {
  RETURN_IF_ERROR(RunStore::OpenReadOnly(dir).status());
  return RunStore::Open(dir);
}

StatusOr<Tally> ScoreRun(RunStore* store, const SentenceSplitter* sentences,
                         const ScoreRunOptions& options) {
  PythonOptions python_options;
  python_options.python = options.python;
  python_options.max_workers = options.score_jobs;
  PythonPool python(python_options);
  CheckEnv env;
  env.sentences = sentences;
  env.python = &python;
  RunnerOptions ro;
  ro.rules = options.rules;
  ro.score_jobs = options.score_jobs;
  Runner runner(store, nullptr, env, ro);
  return runner.ScoreAndTally();
}

}  // namespace structtest
