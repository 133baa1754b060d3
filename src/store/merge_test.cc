#include "store/merge.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/shard.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace merge_test {
namespace {

Sample MakeSample(int i) {
  Sample s;
  s.id = "s" + std::to_string(i);
  s.domain = "math";
  s.subtask = "math_easy";
  s.messages = {{"user", "question " + std::to_string(i)}};
  s.target = {{"answer", "42"}};
  return s;
}

StoredResponse Answer(std::string text) {
  StoredResponse r;
  r.ok = true;
  r.text = std::move(text);
  r.finish = "stop";
  r.http_status = 200;
  r.attempts = 1;
  return r;
}

StoredResponse ErrorResponse() {
  StoredResponse r;
  r.error = "HTTP 500";
  r.finish = "unknown";
  r.http_status = 500;
  return r;
}

StoredVerdict StoredPass(bool pass) {
  StoredVerdict v;
  v.pass = pass;
  v.reason = pass ? "ok" : "wrong";
  v.rules_version = "math-1";
  return v;
}

nlohmann::json BaseManifest() { return {{"model", "openai/m"}, {"seed", 3}, {"limit", nullptr}}; }

// A shard run of n samples: the samples of `shard`, each answered "a<i>" (passing when
// i is even), except those in `errors` (a request error) and `unanswered`.
void MakeShardRun(const std::string& dir, int n, const Shard& shard, std::vector<int> errors = {},
                  std::vector<int> unanswered = {}, std::string prefix = "a") {
  auto store = RunStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status().message();
  nlohmann::json m = BaseManifest();
  if (shard.count > 1) m["shard"] = shard.ToString();
  ASSERT_TRUE((*store)->SetManifest(*RunManifest::FromJson(m, "run.db")).ok());
  ASSERT_TRUE((*store)->Begin().ok());
  for (int i = 0; i < n; ++i) {
    const Sample s = MakeSample(i);
    if (!shard.Contains(s.id)) continue;
    ASSERT_TRUE((*store)->AddSample(i, s).ok());
    if (std::find(unanswered.begin(), unanswered.end(), i) != unanswered.end()) continue;
    if (std::find(errors.begin(), errors.end(), i) != errors.end()) {
      ASSERT_TRUE((*store)->PutResponse(i, ErrorResponse()).ok());
      continue;
    }
    ASSERT_TRUE((*store)->PutResponse(i, Answer(prefix + std::to_string(i))).ok());
    ASSERT_TRUE((*store)->PutVerdict(i, "paper", StoredPass(i % 2 == 0)).ok());
    ASSERT_TRUE((*store)->PutVerdict(i, "strict", StoredPass(false)).ok());
  }
  ASSERT_TRUE((*store)->Commit().ok());
}

// index -> "answer pass" under `rules`, "error", or "-" (no response).
std::map<int64_t, std::string> Rows(const std::string& dir, const char* rules,
                                     RunStore::RowRead read = RunStore::RowRead::kWhole) {
  std::map<int64_t, std::string> out;
  auto store = RunStore::OpenReadOnly(dir);
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return out;
  EXPECT_TRUE((*store)
                  ->ForEach(rules,
                            [&](const RunRow& row) {
                              std::string v = "-";
                              if (row.response && !row.response->ok) v = "error";
                              if (row.response && row.response->ok) {
                                v = row.response->text + " " +
                                    (row.verdict ? (row.verdict->pass ? "pass" : "fail") : "none");
                              }
                              out[row.index] = v;
                              return Status::Ok();
                            },
                            read)
                  .ok());
  return out;
}

TEST(ShardTest, ParsesIOfNAndRefusesBadValues) {
  auto s = ParseShard("2/3");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 3);
  EXPECT_EQ(s->ToString(), "2/3");
  EXPECT_EQ(ParseShard("0/3").status().message(), "--shard 0/3: I must be 1 to 3 (shards count from 1)");
  EXPECT_EQ(ParseShard("4/3").status().message(), "--shard 4/3: I must be 1 to 3 (shards count from 1)");
  EXPECT_EQ(ParseShard("1/0").status().message(), "--shard 1/0: N must be 1 to 100000");
  EXPECT_EQ(ParseShard("x").status().message(), "--shard x: expected I/N, e.g. 1/4");
  for (const char* bad : {"", "/", "1/", "/3", "a/3", "1/b", "-1/3", "1/-3", "1.5/3", "1/3/4",
                          " 1/3", "99999999999/3", "1/200000"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
}

TEST(ShardTest, TheShardsSplitTheIdsDisjointlyAndWhole) {
  std::vector<int> sizes(5);
  for (int i = 0; i < 1000; ++i) {
    const std::string id = "id" + std::to_string(i);
    int in = 0;
    for (int k = 1; k <= 5; ++k) {
      if (Shard{k, 5}.Contains(id)) {
        ++in;
        ++sizes[k - 1];
      }
    }
    EXPECT_EQ(in, 1) << id;
    EXPECT_TRUE((Shard{1, 1}.Contains(id)));
  }
  for (int size : sizes) EXPECT_GT(size, 150);  // about 200 each
  // Fixed for every machine: FNV-1a of the id, mod N.
  EXPECT_TRUE((Shard{static_cast<int>(Fnv1a("s0") % 3) + 1, 3}.Contains("s0")));
}

TEST(MergeTest, ShardsMergeIntoTheWholeRunIncrementallyAndIdempotently) {
  testing::TempDir dir;
  const int n = 60;
  const std::string s1 = dir.path() + "/s1", s2 = dir.path() + "/s2", s3 = dir.path() + "/s3";
  const std::string whole = dir.path() + "/whole", out = dir.path() + "/merged";
  MakeShardRun(s1, n, {1, 3});
  MakeShardRun(s2, n, {2, 3});
  MakeShardRun(s3, n, {3, 3});
  MakeShardRun(whole, n, {1, 1});

  auto first = MergeRuns(out, {s1, s2});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->missing_shards, std::vector<std::string>{"3/3"});
  EXPECT_EQ(first->shards, (std::vector<std::string>{"1/3", "2/3"}));
  EXPECT_LT(first->counts.samples, n);

  auto second = MergeRuns(out, {s3, s1});  // s1 again: adds nothing
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->missing_shards.empty());
  EXPECT_EQ(second->counts.samples, n);
  EXPECT_EQ(second->counts.answered, n);
  EXPECT_EQ(second->runs[1].added.samples, 0);
  EXPECT_EQ(second->runs[1].added.answers, 0);
  EXPECT_GT(second->runs[0].added.answers, 0);
  EXPECT_EQ(Rows(out, "paper"), Rows(whole, "paper"));
  EXPECT_EQ(Rows(out, "strict"), Rows(whole, "strict"));
  // Read from the sample heads, which the merge wrote for the samples it took.
  EXPECT_EQ(Rows(out, "paper", RunStore::RowRead::kNoPrompt), Rows(whole, "paper"));
  {
    auto db = sqlite::Db::Open(out + "/run.db", /*read_only=*/true);
    ASSERT_TRUE(db.ok());
    auto q = (*db)->Prepare("SELECT COUNT(*) FROM sample_heads");
    ASSERT_TRUE(q.ok() && *q->Step());
    EXPECT_EQ(q->Int(0), n);
  }

  auto manifest = (*RunStore::OpenReadOnly(out))->Manifest();
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  EXPECT_EQ((*manifest)->shard, "");
  ASSERT_TRUE((*manifest)->merge.has_value());
  EXPECT_EQ((*manifest)->merge->shards, (std::vector<std::string>{"1/3", "2/3", "3/3"}));
  EXPECT_EQ((*manifest)->seed, 3u);
}

TEST(MergeTest, AnAnswerReplacesAnErrorAndUnansweredSamplesAreCounted) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b", out = dir.path() + "/out";
  MakeShardRun(a, 10, {1, 1}, /*errors=*/{2, 3}, /*unanswered=*/{4});
  MakeShardRun(b, 10, {1, 1}, /*errors=*/{3}, /*unanswered=*/{4, 5});
  auto merged = MergeRuns(out, {a, b});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->counts.samples, 10);
  EXPECT_EQ(merged->counts.answered, 8);  // 7 from a, then 2 from b
  EXPECT_EQ(merged->counts.errored, 1);   // 3
  const auto rows = Rows(out, "paper");
  EXPECT_EQ(rows.at(2), "a2 pass");
  EXPECT_EQ(rows.at(3), "error");
  EXPECT_EQ(rows.at(4), "-");
  EXPECT_EQ(rows.at(5), "a5 fail");
  EXPECT_TRUE(merged->unsharded);
  EXPECT_TRUE(merged->missing_shards.empty());
}

TEST(MergeTest, RefusesMismatchedRunsAndConflictingAnswersWithoutWriting) {
  testing::TempDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b", out = dir.path() + "/out";
  MakeShardRun(a, 10, {1, 2});
  MakeShardRun(b, 10, {2, 2});
  {
    auto store = RunStore::Open(b);
    nlohmann::json m = BaseManifest();
    m["seed"] = 4;
    m["shard"] = "2/2";
    ASSERT_TRUE((*store)->SetManifest(*RunManifest::FromJson(m, "run.db")).ok());
  }
  auto mismatched = MergeRuns(out, {a, b});
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.status().message(),
            b + ": not a run of the same manifest as " + a + " (seed: 4 in " + b + ", 3 in " + a +
                "); only the shard may differ");
  EXPECT_FALSE(RunStore::OpenReadOnly(out).ok()) << "nothing written";

  const std::string c = dir.path() + "/c";
  MakeShardRun(c, 10, {1, 3});
  auto counts = MergeRuns(out, {a, c});
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.status().message().find("shard 1/3 of 3, but the other runs are shards of 2"),
            std::string::npos)
      << counts.status().message();

  // The same samples answered differently.
  const std::string d = dir.path() + "/d", e = dir.path() + "/e";
  MakeShardRun(d, 10, {1, 1});
  MakeShardRun(e, 10, {1, 1}, {}, {}, "other");
  ASSERT_TRUE(MergeRuns(out, {d}).ok());
  const auto before = Rows(out, "paper");
  auto conflict = MergeRuns(out, {e});
  ASSERT_FALSE(conflict.ok());
  EXPECT_NE(conflict.status().message().find(e + ": sample 's0' has another answer"),
            std::string::npos)
      << conflict.status().message();
  EXPECT_EQ(Rows(out, "paper"), before);

  auto self = MergeRuns(d, {d});
  ASSERT_FALSE(self.ok());
  EXPECT_NE(self.status().message().find("is the output directory"), std::string::npos);
  auto into_plain = MergeRuns(d, {e});
  ASSERT_FALSE(into_plain.ok());
  EXPECT_NE(into_plain.status().message().find("holds a run that is not a merge"), std::string::npos);
  auto missing = MergeRuns(out, {dir.path() + "/nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no run here"), std::string::npos);
}

}  // namespace
}  // namespace merge_test
}  // namespace structtest
