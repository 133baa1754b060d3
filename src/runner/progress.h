// Progress of a run on stderr: on a terminal, one bar redrawn in place (done/total,
// errors, requests/s, tokens/s, ETA); otherwise a plain line every few seconds, so
// logs of CI jobs and nohup runs stay readable. Quiet prints nothing.
#ifndef STRUCTTEST_RUNNER_PROGRESS_H_
#define STRUCTTEST_RUNNER_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace structtest {

struct ProgressCounts {
  int64_t total = 0;     // samples in the run
  int64_t done = 0;      // answered, before this session and in it
  int64_t errors = 0;    // requests that ended in an error in this session
  int64_t requests = 0;  // requests finished in this session (answers and errors)
  int64_t output_tokens = 0;  // in this session
  int64_t concurrency_limit = 0;  // the current -j auto limit; 0: fixed -j, not shown
};

class Progress {
 public:
  enum class Mode { kQuiet, kBar, kLines };
  // kBar when `out` is a terminal, else kLines; kQuiet when `quiet`.
  static Mode ModeFor(std::FILE* out, bool quiet);

  Progress(std::FILE* out, Mode mode, std::chrono::milliseconds line_interval = std::chrono::seconds(10));
  // Redraws at most every 100 ms (bar) or every line_interval (lines).
  void Update(const ProgressCounts& counts);
  // The last state, drawn unconditionally, and the bar's line ended.
  void Finish(const ProgressCounts& counts);

  // The text of one report, for tests: "1234/13879 done, 3 errors, 45.2 req/s,
  // 1.2k tok/s, ETA 3m12s" (", -j 12" after the rates under -j auto).
  static std::string Describe(const ProgressCounts& counts, double seconds, int64_t done_at_start);

 private:
  using Clock = std::chrono::steady_clock;
  void Draw(const ProgressCounts& counts);

  std::FILE* out_;
  Mode mode_;
  std::chrono::milliseconds interval_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  int64_t done_at_start_ = -1;
  bool drew_ = false;
};

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_PROGRESS_H_
