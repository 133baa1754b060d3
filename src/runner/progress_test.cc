#include "runner/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace structtest {
namespace {

TEST(ProgressTest, DescribesRatesAndTimeLeft) {
  ProgressCounts c;
  c.total = 1000;
  c.done = 600;
  c.errors = 3;
  c.requests = 503;
  c.output_tokens = 25000;
  // 500 done in this session in 10 s: 400 left take 8 s.
  EXPECT_EQ(Progress::Describe(c, 10.0, 100),
            "600/1000 done, 3 errors, 50.3 req/s, 2500.0 tok/s, ETA 8s");
  c.errors = 0;
  c.done = 1000;
  EXPECT_EQ(Progress::Describe(c, 0, 0), "1000/1000 done");
  c.output_tokens = 0;
  EXPECT_EQ(Progress::Describe(c, 10.0, 0), "1000/1000 done, 50.3 req/s");
}

TEST(ProgressTest, ShowsTheAdaptiveLimitUnderJAuto) {
  ProgressCounts c;
  c.total = 1000;
  c.done = 600;
  c.requests = 500;
  c.concurrency_limit = 12;
  EXPECT_EQ(Progress::Describe(c, 10.0, 100), "600/1000 done, 50.0 req/s, -j 12, ETA 8s");
  EXPECT_EQ(Progress::Describe(c, 0, 0), "600/1000 done, -j 12");
}

std::string Captured(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) s.append(buf, n);
  return s;
}

TEST(ProgressTest, LinesModeWritesPlainLinesAndQuietNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress lines(f, Progress::Mode::kLines, std::chrono::milliseconds(0));
  ProgressCounts c;
  c.total = 10;
  c.done = 5;
  lines.Update(c);
  c.done = 10;
  lines.Finish(c);
  const std::string out = Captured(f);
  EXPECT_NE(out.find("structtest: 5/10 done"), std::string::npos) << out;
  EXPECT_NE(out.find("structtest: 10/10 done"), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos);
  std::fclose(f);

  std::FILE* q = std::tmpfile();
  Progress quiet(q, Progress::Mode::kQuiet);
  quiet.Update(c);
  quiet.Finish(c);
  EXPECT_EQ(Captured(q), "");
  std::fclose(q);
  EXPECT_EQ(Progress::ModeFor(stderr, true), Progress::Mode::kQuiet);
}

TEST(ProgressTest, BarModeRedrawsInPlaceAndEndsTheLine) {
  std::FILE* f = std::tmpfile();
  Progress bar(f, Progress::Mode::kBar);
  ProgressCounts c;
  c.total = 4;
  c.done = 2;
  bar.Update(c);
  c.done = 4;
  bar.Finish(c);
  const std::string out = Captured(f);
  EXPECT_EQ(out.rfind("\r[############------------] 2/4 done", 0), 0u) << out;
  EXPECT_NE(out.find("\r[########################] 4/4 done"), std::string::npos) << out;
  EXPECT_EQ(out.back(), '\n');
  std::fclose(f);
}

}  // namespace
}  // namespace structtest
