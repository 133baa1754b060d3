// The sandboxed python3 worker pool: how structtest gets Python's own judgement for
// the code checkers without ever evaluating model-written text in its own process.
//
// A pool starts long-lived `python3 structtest_worker.py` processes on first use (at
// most max_workers, one request in flight each) and talks to each over a socket, one
// JSON object per line each way (the protocol is described in worker.py). Two kinds of
// request:
//  - Analyze(source): which lines of a task's source code parse and which names its
//    plain assignments bind. Answered by the worker itself (the source comes from task
//    data and is only parsed) and cached here per distinct source, so each source is
//    analysed once per run.
//  - RunJob(request): anything that evaluates, executes or parses text (a model's answer,
//    test inputs, a program). A job that only parses small texts is answered by the
//    worker itself (worker.py's run_inline), with the result a child would give; the
//    worker runs every other job in a fresh child with its own PID and mount
//    namespaces, no network, an empty private working directory, a read-only view of
//    the rest of the file system, an unprivileged user (when structtest runs as root),
//    rlimits (CPU, address space, file size, processes, open files) and a
//    wall-clock limit that kills every process of the job. What the job did wrong (it
//    raised, timed out, was killed) comes back as data in the result, not as an error.
//
// Errors (Status) mean the pool itself could not answer: no usable python3, the worker
// script missing, a worker that died or stopped answering. Thread-safe: any number of
// threads may call in; requests beyond max_workers wait for a free worker.
#ifndef STRUCTTEST_SANDBOX_PYTHON_POOL_H_
#define STRUCTTEST_SANDBOX_PYTHON_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mutex.h"

#include "structtest/status.h"

namespace structtest {

struct PythonOptions {
  // The interpreter. Empty: $STRUCTTEST_PYTHON when set; otherwise the first of
  // /usr/bin/python3 and `python3` (on PATH) that can import numpy (the reference
  // harness imports it), or failing that the first one that starts. Debian's comes
  // first: it is the one install-deps provides numpy for, and verdicts should not change
  // with whatever a PATH puts first (a pyenv shim costs ~1 s a start, too).
  std::string python;
  // The worker script. Empty: $STRUCTTEST_WORKER when set; otherwise
  // structtest_worker.py next to the running binary, then
  // ../share/structtest/structtest_worker.py relative to it, then (for test binaries)
  // the root of the CMake build tree the binary is in, then (for a program linked with
  // an installed libstructtest.so) share/structtest/ one or two folders above the library.
  std::string worker_script;
  // Worker processes started on demand; also the number of requests served at once.
  int max_workers = 1;
  // How long an analysis request (or a worker's start) may take before the worker is
  // killed and the request fails.
  double analysis_timeout_seconds = 60;
};

// What a worker reported about itself when it started, and (see PythonPool::Info)
// whether numpy imports.
struct PythonInfo {
  std::string python;      // the interpreter as started (path or name)
  std::string executable;  // sys.executable
  std::string version;     // "3.11.2"
  bool numpy_installed = false;  // the interpreter finds a numpy package
  std::string numpy;       // numpy version, empty when it cannot be imported
  std::string numpy_error;
  std::string network;     // "none (own network namespace, ...)" or "host"
  std::string user;        // the user jobs run as
  bool pid_namespace = false;
  bool mount_namespace = false;
  bool user_namespace = false;

  // One line for logs and reports: interpreter, numpy and sandbox.
  std::string Describe() const;
};

// One line of a source (source.split('\n') in Python), as the worker sees it.
struct LineAnalysis {
  bool has_equals = false;  // contains '='; only such lines are analysed
  bool parses = false;      // the stripped line alone parses as Python
  std::vector<std::string> names;  // its plain-assignment targets, sorted
};

struct SourceAnalysis {
  bool parses = false;
  std::string error;  // why it does not parse
  // Targets of plain assignments (`x = ...`, `x = y = ...`) anywhere in the source,
  // as Python's ast sees them; sorted.
  std::vector<std::string> names;
  std::vector<LineAnalysis> lines;  // one per '\n'-separated line

  bool HasName(std::string_view name) const;
};

class PythonPool {
 public:
  explicit PythonPool(PythonOptions options = {});
  ~PythonPool();
  PythonPool(const PythonPool&) = delete;
  PythonPool& operator=(const PythonPool&) = delete;

  // The analysis of `source`, computed once per distinct source: a thread asking for
  // one that another thread is computing waits for it. The pointer stays valid as
  // long as the pool.
  StatusOr<const SourceAnalysis*> Analyze(std::string_view source);
  // The same analysis without keeping it: for sources looked at once (the programs a
  // suite prepares), so that the pool's memory does not grow with their number.
  StatusOr<SourceAnalysis> AnalyzeUncached(std::string_view source);

  // Runs one sandboxed job: `request` has "op" ("simulate", "calls", "stdin", "subst";
  // for the strict rules "strict_add_print", "strict_rename", "strict_calls",
  // "strict_simulate", which parse model text and never run it, and "returned", which
  // runs a task's function for strict_simulate; for generating task
  // data "call_values", "stdin_outputs") and its fields (see worker.py); "child": true
  // runs it in a child even when the worker could answer it itself. `wall_seconds`
  // bounds the job; the worker kills it after that. Returns the worker's result object.
  StatusOr<nlohmann::json> RunJob(nlohmann::json request, double wall_seconds);

  // A value derived from task data only (never from a response), computed once per
  // key for the life of the pool, e.g. a source with its renamings applied.
  // `compute` runs without any lock held, once at a time per key (a thread asking for
  // a key being computed waits); the pointer stays valid as long as the pool.
  StatusOr<const std::string*> Memo(std::string_view key,
                                    const std::function<StatusOr<std::string>()>& compute);

  // Starts a worker if none has started yet and returns what it reported, with numpy's
  // version or why it does not import (a worker's child tries, once per pool: ~0.15 s,
  // paid only by pools that ask); the error when no worker can start.
  StatusOr<PythonInfo> Info();

  // Requests answered by a worker (not from a cache), for tests and benchmarks.
  int64_t analysis_requests() const;
  int64_t jobs_run() const;
  // Process ids of the workers started and idle now, for tests that look for strays.
  std::vector<int> IdleWorkerPids() const;

 private:
  class Worker;
  // Transparent hashing, so that lookups by string_view do not copy the key.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  template <typename V>
  using Cache = std::unordered_map<std::string, V, KeyHash, std::equal_to<>>;

  // Hands out an idle worker (starting one if allowed), waiting if all are busy.
  StatusOr<Worker*> Acquire() EXCLUDES(mu_);
  void Release(Worker* worker, bool healthy) EXCLUDES(mu_);
  StatusOr<std::unique_ptr<Worker>> StartWorker() EXCLUDES(mu_);
  StatusOr<nlohmann::json> Call(const nlohmann::json& request, double timeout_seconds);

  const PythonOptions options_;

  mutable Mutex mu_;
  CondVar idle_cv_;  // a worker went idle or away, or the first start chose python
  std::vector<std::unique_ptr<Worker>> idle_ GUARDED_BY(mu_);
  int live_workers_ GUARDED_BY(mu_) = 0;  // idle + in use
  bool resolving_ GUARDED_BY(mu_) = false;  // the first start is choosing python
  std::optional<Status> start_error_ GUARDED_BY(mu_);  // sticky
  std::string resolved_python_ GUARDED_BY(mu_);
  std::string resolved_script_ GUARDED_BY(mu_);
  std::optional<PythonInfo> info_ GUARDED_BY(mu_);
  bool numpy_tried_ GUARDED_BY(mu_) = false;  // info_ has numpy's
  Mutex numpy_mu_;  // held while numpy is tried (before mu_)
  int64_t analysis_requests_ GUARDED_BY(mu_) = 0;
  int64_t jobs_run_ GUARDED_BY(mu_) = 0;

  mutable Mutex cache_mu_;
  CondVar computed_cv_;  // a key left analyzing_ or memoizing_
  Cache<std::unique_ptr<SourceAnalysis>> analyses_ GUARDED_BY(cache_mu_);
  Cache<std::unique_ptr<std::string>> memo_ GUARDED_BY(cache_mu_);
  // Keys some thread is computing now, so that others wait instead of asking a
  // worker the same thing at the same time.
  Cache<bool> analyzing_ GUARDED_BY(cache_mu_);
  Cache<bool> memoizing_ GUARDED_BY(cache_mu_);
};

// Where the worker script would be found for `options` (see worker_script above), or
// NotFound naming the places looked at.
StatusOr<std::string> FindWorkerScript(const PythonOptions& options);

}  // namespace structtest

#endif  // STRUCTTEST_SANDBOX_PYTHON_POOL_H_
