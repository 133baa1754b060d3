#include "runner/progress.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace structtest {
namespace {

std::string Compact(double v) {
  if (v >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.1f}", v);
}

std::string Duration(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

Progress::Mode Progress::ModeFor(std::FILE* out, bool quiet) {
  if (quiet) return Mode::kQuiet;
  return isatty(fileno(out)) ? Mode::kBar : Mode::kLines;
}

Progress::Progress(std::FILE* out, Mode mode, std::chrono::milliseconds line_interval)
    : out_(out), mode_(mode), interval_(line_interval) {}

std::string Progress::Describe(const ProgressCounts& c, double seconds, int64_t done_at_start) {
  std::string s = fmt::format("{}/{} done", c.done, c.total);
  if (c.errors > 0) s += fmt::format(", {} error{}", c.errors, c.errors == 1 ? "" : "s");
  if (seconds > 0) {
    s += fmt::format(", {} req/s", Compact(c.requests / seconds));
    // Built-in responders and servers that report no usage have no tokens to show.
    if (c.output_tokens > 0) s += fmt::format(", {} tok/s", Compact(c.output_tokens / seconds));
  }
  if (c.concurrency_limit > 0) s += fmt::format(", -j {}", c.concurrency_limit);
  if (seconds > 0) {
    const int64_t new_done = c.done - done_at_start;
    const int64_t left = c.total - c.done;
    if (new_done > 0 && left > 0) s += ", ETA " + Duration(left * seconds / new_done);
  }
  return s;
}

void Progress::Draw(const ProgressCounts& c) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::string text = Describe(c, seconds, done_at_start_);
  if (mode_ == Mode::kBar) {
    constexpr int kWidth = 24;
    const int filled = c.total > 0 ? static_cast<int>(kWidth * c.done / c.total) : 0;
    std::fputs(fmt::format("\r[{}{}] {}\x1b[K", std::string(filled, '#'),
                           std::string(kWidth - filled, '-'), text)
                   .c_str(),
               out_);
  } else {
    std::fputs(fmt::format("structtest: {}\n", text).c_str(), out_);
  }
  std::fflush(out_);
  drew_ = true;
}

void Progress::Update(const ProgressCounts& c) {
  if (mode_ == Mode::kQuiet) return;
  if (done_at_start_ < 0) done_at_start_ = c.done;
  const Clock::time_point now = Clock::now();
  const auto every = mode_ == Mode::kBar ? std::chrono::milliseconds(100) : interval_;
  if (drew_ && now - last_draw_ < every) return;
  if (!drew_ && mode_ == Mode::kLines && now - start_ < interval_) return;
  last_draw_ = now;
  Draw(c);
}

void Progress::Finish(const ProgressCounts& c) {
  if (mode_ == Mode::kQuiet) return;
  if (done_at_start_ < 0) done_at_start_ = c.done;
  if (mode_ == Mode::kBar) {
    Draw(c);
    std::fputs("\n", out_);
  } else if (drew_) {
    Draw(c);
  }
}

}  // namespace structtest
