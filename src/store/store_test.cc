#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/response_cache.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "testing/test_support.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace store_test {
namespace {

// A manifest from its JSON, as a run directory stores it.
RunManifest ManifestOf(const nlohmann::json& j) {
  auto m = RunManifest::FromJson(j, "run.db");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : RunManifest();
}

// Takes a run back to schema 5, as a build before repeats wrote it: responses,
// verdicts and batch items without a repeat (repeat 0's rows kept).
const std::string kToFifthSchema = R"sql(
ALTER TABLE verdicts RENAME TO verdicts_v6;
ALTER TABLE responses RENAME TO responses_v6;
ALTER TABLE provider_batch_items RENAME TO provider_batch_items_v6;
CREATE TABLE responses (
  idx INTEGER PRIMARY KEY REFERENCES samples(idx), ok INTEGER NOT NULL, text TEXT NOT NULL,
  reasoning TEXT NOT NULL, finish TEXT NOT NULL, finish_raw TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL, latency_ms INTEGER NOT NULL,
  http_status INTEGER NOT NULL, attempts INTEGER NOT NULL, error TEXT NOT NULL,
  cached INTEGER NOT NULL, created_ms INTEGER NOT NULL,
  served_model TEXT NOT NULL DEFAULT '', batch INTEGER NOT NULL DEFAULT 0);
CREATE TABLE verdicts (
  idx INTEGER NOT NULL REFERENCES responses(idx), rules TEXT NOT NULL, pass INTEGER NOT NULL,
  reason TEXT NOT NULL, rules_version TEXT NOT NULL, format INTEGER, accuracy INTEGER,
  error TEXT NOT NULL, checks TEXT NOT NULL DEFAULT '', PRIMARY KEY (idx, rules));
CREATE TABLE provider_batch_items (
  seq INTEGER NOT NULL REFERENCES provider_batches(seq),
  idx INTEGER NOT NULL REFERENCES samples(idx), custom_id TEXT NOT NULL,
  PRIMARY KEY (seq, idx));
INSERT INTO responses SELECT idx, ok, text, reasoning, finish, finish_raw, input_tokens,
  output_tokens, reasoning_tokens, latency_ms, http_status, attempts, error, cached,
  created_ms, served_model, batch FROM responses_v6 WHERE rep = 0;
INSERT INTO verdicts SELECT idx, rules, pass, reason, rules_version, format, accuracy, error,
  checks FROM verdicts_v6 WHERE rep = 0;
INSERT INTO provider_batch_items SELECT seq, idx, custom_id FROM provider_batch_items_v6
  WHERE rep = 0;
DROP TABLE verdicts_v6;
DROP TABLE responses_v6;
DROP TABLE provider_batch_items_v6;
CREATE INDEX responses_ok ON responses(ok, idx);
CREATE INDEX provider_batch_items_custom_id ON provider_batch_items(custom_id);
CREATE INDEX provider_batch_items_idx ON provider_batch_items(idx);
PRAGMA user_version=5;
)sql";

// Takes a run back to schema 4: no provider batches (their tables, responses.batch).
const std::string kToFourthSchema =
    kToFifthSchema +
    "DROP TABLE provider_batch_items; DROP TABLE provider_batches; ALTER TABLE responses DROP "
    "COLUMN batch; ";

Sample MakeSample(int i) {
  Sample s;
  s.id = "s" + std::to_string(i);
  s.domain = "math";
  s.subtask = "math_easy";
  s.params = {{"style", i % 7}};
  s.context = {{"answer", "42"}};
  s.messages = {{"user", "question " + std::to_string(i) + " \xc3\xa9"}};
  s.target = {{"answer", "The answer is 42"}};
  return s;
}

StoredResponse Answer(std::string text) {
  StoredResponse r;
  r.ok = true;
  r.text = std::move(text);
  r.reasoning = "thought";
  r.finish = "stop";
  r.finish_raw = "stop";
  r.input_tokens = 10;
  r.output_tokens = 5;
  r.latency_ms = 12;
  r.http_status = 200;
  r.attempts = 1;
  return r;
}

StoredResponse Failure(std::string error) {
  StoredResponse r;
  r.error = std::move(error);
  r.finish = "unknown";
  r.http_status = 500;
  r.attempts = 6;
  return r;
}

void AddSamples(RunStore& store, int n) {
  ASSERT_TRUE(store.Begin().ok());
  for (int i = 0; i < n; ++i) ASSERT_TRUE(store.AddSample(i, MakeSample(i)).ok());
  ASSERT_TRUE(store.Commit().ok());
}

std::vector<int64_t> PendingIndexes(RunStore& store) {
  std::vector<int64_t> out;
  Slot after = kBeforeFirstSlot;
  for (;;) {
    auto batch = store.PendingSamples(after, 3);
    EXPECT_TRUE(batch.ok()) << batch.status().message();
    if (!batch.ok() || batch->empty()) return out;
    for (const StoredSample& s : *batch) out.push_back(s.index);
    after = batch->back().slot();
  }
}

// Runs `sql` on the run database in `dir`, as another program editing it would.
void ExecOn(const std::string& dir, const std::string& sql) {
  auto db = sqlite::Db::Open(dir + "/run.db");
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_TRUE((*db)->Exec(sql).ok()) << sql;
}

TEST(RunStoreTest, ReopenKeepsManifestSamplesResponsesAndVerdicts) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/run";
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto m = (*store)->Manifest();
    ASSERT_TRUE(m.ok());
    EXPECT_FALSE(m->has_value());
    ASSERT_TRUE((*store)->SetManifest(ManifestOf({{"seed", 7}})).ok());
    AddSamples(**store, 5);
    ASSERT_TRUE((*store)->Begin().ok());
    StoredResponse answer = Answer("The answer is 42");
    answer.served_model = "m-2024-01-01";
    ASSERT_TRUE((*store)->PutResponse(1, answer).ok());
    StoredVerdict v;
    v.pass = true;
    v.reason = "ok";
    v.rules_version = "math-1";
    v.format = true;
    v.accuracy = true;
    ASSERT_TRUE((*store)->PutVerdict(1, "paper", v).ok());
    ASSERT_TRUE((*store)->PutResponse(3, Failure("openai: HTTP 500")).ok());
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto store = RunStore::Open(run);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto m = (*store)->Manifest();
  ASSERT_TRUE(m.ok() && m->has_value());
  EXPECT_EQ((*m)->seed, 7u);
  auto counts = (*store)->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->samples, 5);
  EXPECT_EQ(counts->answered, 1);
  EXPECT_EQ(counts->errored, 1);
  // The errored sample is asked again; the answered one is not.
  EXPECT_EQ(PendingIndexes(**store), (std::vector<int64_t>{0, 2, 3, 4}));

  std::vector<RunRow> rows;
  ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
    rows.push_back(r);
    return Status::Ok();
  }).ok());
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[1].sample.id, "s1");
  EXPECT_EQ(rows[1].sample.messages[0].content, "question 1 \xc3\xa9");
  EXPECT_EQ(rows[1].sample.target["answer"], "The answer is 42");
  ASSERT_TRUE(rows[1].response.has_value());
  EXPECT_EQ(rows[1].response->text, "The answer is 42");
  EXPECT_EQ(rows[1].response->reasoning, "thought");
  EXPECT_EQ(rows[1].response->output_tokens, 5);
  EXPECT_EQ(rows[1].response->served_model, "m-2024-01-01");
  ASSERT_TRUE(rows[1].verdict.has_value());
  EXPECT_TRUE(rows[1].verdict->pass);
  EXPECT_EQ(rows[1].verdict->format, std::optional<bool>(true));
  EXPECT_FALSE(rows[0].response.has_value());
  ASSERT_TRUE(rows[3].response.has_value());
  EXPECT_FALSE(rows[3].response->ok);
  EXPECT_EQ(rows[3].response->error, "openai: HTTP 500");
  EXPECT_FALSE(rows[3].verdict.has_value());

  // Another rule set has no verdicts yet.
  int with_verdict = 0;
  ASSERT_TRUE((*store)->ForEach("strict", [&](const RunRow& r) {
    with_verdict += r.verdict.has_value();
    return Status::Ok();
  }).ok());
  EXPECT_EQ(with_verdict, 0);
}

// A verdict's rules are stored with it and read back as they were; a verdict stored
// before verdicts had rules (an empty column) is dropped with those of another checker
// version, so that a resumed run scores it again; a merge from such a run takes its
// verdicts without rules (and the run scores them again).
TEST(RunStoreTest, VerdictRulesAreStoredAndOldVerdictsWithoutThemAreScoredAgain) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/run", old = dir.path() + "/old";
  StoredVerdict v;
  v.pass = false;
  v.reason = "point-count: expected 3, found 2";
  v.rules_version = "strict-2";
  v.checks = {{"summary-tags", RuleCheck::Result::kPass, ""},
              {"point-count", RuleCheck::Result::kFail, "expected 3, found 2 \xe2\x80\x94 \"q\""},
              {"item-content", RuleCheck::Result::kNotChecked, ""}};
  for (const std::string& d : {run, old}) {
    auto store = RunStore::Open(d);
    ASSERT_TRUE(store.ok()) << store.status().message();
    AddSamples(**store, 3);
    ASSERT_TRUE((*store)->Begin().ok());
    ASSERT_TRUE((*store)->PutResponse(d == run ? 0 : 1, Answer("answer")).ok());
    ASSERT_TRUE((*store)->PutVerdict(d == run ? 0 : 1, "strict", v).ok());
    ASSERT_TRUE((*store)->Commit().ok());
  }
  // `old` as a run of schema 2 wrote it.
  ASSERT_NO_FATAL_FAILURE(
      ExecOn(old, std::string(kToFourthSchema) +
                      "ALTER TABLE verdicts DROP COLUMN checks; ALTER TABLE responses DROP "
                      "COLUMN served_model; PRAGMA user_version=2"));
  const auto verdicts = [](RunStore& store) {
    std::vector<std::optional<StoredVerdict>> out;
    EXPECT_TRUE(store.ForEach("strict", [&](const RunRow& r) {
      out.push_back(r.verdict);
      return Status::Ok();
    }).ok());
    return out;
  };
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok());
    const auto read = verdicts(**store);
    ASSERT_EQ(read.size(), 3u);
    ASSERT_TRUE(read[0].has_value());
    ASSERT_EQ(read[0]->checks.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(read[0]->checks[i].name, v.checks[i].name);
      EXPECT_EQ(read[0]->checks[i].result, v.checks[i].result);
      EXPECT_EQ(read[0]->checks[i].detail, v.checks[i].detail);
    }
    // Merged from the old run: its verdict comes without rules.
    auto merged = (*store)->MergeFrom(old);
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_EQ(merged->answers, 1);
    const auto after = verdicts(**store);
    ASSERT_TRUE(after[1].has_value());
    EXPECT_EQ(after[1]->reason, v.reason);
    EXPECT_TRUE(after[1]->checks.empty());
    // Of the same checker version, only the one without rules is dropped.
    auto dropped = (*store)->DropVerdictsNotOf("strict", "math", "strict-2");
    ASSERT_TRUE(dropped.ok()) << dropped.status().message();
    EXPECT_EQ(*dropped, 1);
    const auto left = verdicts(**store);
    EXPECT_TRUE(left[0].has_value());
    EXPECT_FALSE(left[1].has_value());
  }
  // The old run, opened by this build, is upgraded and its verdict has no rules.
  auto upgraded = RunStore::Open(old);
  ASSERT_TRUE(upgraded.ok()) << upgraded.status().message();
  const auto read = verdicts(**upgraded);
  ASSERT_TRUE(read[1].has_value());
  EXPECT_TRUE(read[1]->checks.empty());
  // A corrupt rules column is an error naming the run and the sample, not a crash.
  upgraded->reset();
  ASSERT_NO_FATAL_FAILURE(ExecOn(old, "UPDATE verdicts SET checks = '[{\"name\": 3}]'"));
  auto again = RunStore::OpenReadOnly(old);
  ASSERT_TRUE(again.ok());
  const Status read_bad = (*again)->ForEach("strict", [](const RunRow&) { return Status::Ok(); });
  EXPECT_FALSE(read_bad.ok());
  EXPECT_NE(read_bad.message().find("sample 1: stored verdict checks"), std::string::npos)
      << read_bad.message();
}

// Before a rescore, the verdicts of a domain that are not this checker version's good
// ones are dropped, to be scored again: another version's, and this version's whose
// checking failed (an error such as a sandbox timeout); a good verdict stays.
TEST(RunStoreTest, VerdictsWhoseCheckingFailedAreDroppedToBeScoredAgain) {
  testing::TempDir dir;
  auto store = RunStore::Open(dir.path() + "/run");
  ASSERT_TRUE(store.ok()) << store.status().message();
  AddSamples(**store, 3);
  ASSERT_TRUE((*store)->Begin().ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*store)->PutResponse(i, Answer("answer")).ok());
    StoredVerdict v;
    v.pass = i == 0;
    v.reason = i == 0 ? "answer-line: 42" : "";
    v.rules_version = i == 2 ? "strict-1" : "strict-2";
    v.error = i == 1 ? "python worker: timed out after 10 s" : "";
    v.checks = {{"answer-line", RuleCheck::Result::kPass, ""}};
    ASSERT_TRUE((*store)->PutVerdict(i, "strict", v).ok());
  }
  ASSERT_TRUE((*store)->Commit().ok());
  auto dropped = (*store)->DropVerdictsNotOf("strict", "math", "strict-2");
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  EXPECT_EQ(*dropped, 2);
  std::vector<bool> kept;
  ASSERT_TRUE((*store)->ForEach("strict", [&](const RunRow& r) {
    kept.push_back(r.verdict.has_value());
    return Status::Ok();
  }).ok());
  EXPECT_EQ(kept, (std::vector<bool>{true, false, false}));
}

// The most frequent request errors, messages that differ only in numbers as one; and
// the rule sets the run holds verdicts under.
// GrowTo: stored samples move to their new indexes with their answers and verdicts, new
// ones are added unanswered; a plan that lacks a stored sample or changes one is
// refused before anything is written.
TEST(RunStoreTest, GrowToMovesAnswersAndAddsTheNewSamples) {
  auto store = RunStore::OpenInMemory();
  ASSERT_TRUE(store.ok());
  AddSamples(**store, 2);  // s0 at 0, s1 at 1
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->PutResponse(1, Answer("one")).ok());
  StoredVerdict v;
  v.pass = true;
  v.reason = "ok";
  ASSERT_TRUE((*store)->PutVerdict(1, "paper", v).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  // The grown suite puts a new sample first and a new one between.
  auto plan = RunStore::OpenInMemory();
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE((*plan)->Begin().ok());
  ASSERT_TRUE((*plan)->AddSample(0, MakeSample(7)).ok());
  ASSERT_TRUE((*plan)->AddSample(1, MakeSample(0)).ok());
  ASSERT_TRUE((*plan)->AddSample(2, MakeSample(8)).ok());
  ASSERT_TRUE((*plan)->AddSample(3, MakeSample(1)).ok());
  ASSERT_TRUE((*plan)->Commit().ok());
  auto added = (*store)->GrowTo(**plan);
  ASSERT_TRUE(added.ok()) << added.status().message();
  EXPECT_EQ(*added, 2);
  std::vector<std::string> order;
  ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
    order.push_back(r.sample.id);
    if (r.sample.id == "s1") {
      EXPECT_EQ(r.index, 3);
      EXPECT_TRUE(r.response && r.response->text == "one");
      EXPECT_TRUE(r.verdict && r.verdict->pass);
    } else {
      EXPECT_FALSE(r.response.has_value()) << r.sample.id;
    }
    return Status::Ok();
  }).ok());
  EXPECT_EQ(order, (std::vector<std::string>{"s7", "s0", "s8", "s1"}));
  EXPECT_EQ(PendingIndexes(**store), (std::vector<int64_t>{0, 1, 2}));

  // A plan without s1, or with another s0, is refused and changes nothing.
  auto other = RunStore::OpenInMemory();
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Begin().ok());
  Sample changed = MakeSample(0);
  changed.params["style"] = 99;
  ASSERT_TRUE((*other)->AddSample(0, changed).ok());
  for (int i : {7, 8, 1}) ASSERT_TRUE((*other)->AddSample(i, MakeSample(i)).ok());
  ASSERT_TRUE((*other)->Commit().ok());
  auto refused = (*store)->GrowTo(**other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("sample 's0' is another sample"), std::string::npos)
      << refused.status().message();
  auto lacking = RunStore::OpenInMemory();
  ASSERT_TRUE(lacking.ok());
  AddSamples(**lacking, 1);
  refused = (*store)->GrowTo(**lacking);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("is not in the grown suite"), std::string::npos)
      << refused.status().message();
  order.clear();
  ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
    order.push_back(r.sample.id);
    return Status::Ok();
  }).ok());
  EXPECT_EQ(order, (std::vector<std::string>{"s7", "s0", "s8", "s1"}));
}

TEST(RunStoreTest, TopErrorsAndScoredRuleSets) {
  auto store = RunStore::OpenInMemory();
  ASSERT_TRUE(store.ok());
  AddSamples(**store, 7);
  auto scored = (*store)->ScoredRuleSets();
  ASSERT_TRUE(scored.ok());
  EXPECT_TRUE(scored->empty());
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->PutResponse(0, Failure("connect failed after 0 ms")).ok());
  ASSERT_TRUE((*store)->PutResponse(1, Failure("connect failed after 12 ms")).ok());
  ASSERT_TRUE((*store)->PutResponse(2, Failure("connect failed after 3 ms")).ok());
  ASSERT_TRUE((*store)->PutResponse(3, Failure("HTTP 500: busy")).ok());
  ASSERT_TRUE((*store)->PutResponse(4, Failure("HTTP 404: no model")).ok());
  ASSERT_TRUE((*store)->PutResponse(5, Failure("HTTP 404: no model")).ok());
  ASSERT_TRUE((*store)->PutResponse(6, Answer("fine")).ok());
  ASSERT_TRUE((*store)->PutVerdict(6, "strict", StoredVerdict{}).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  auto top = (*store)->TopErrors(2);
  ASSERT_TRUE(top.ok()) << top.status().message();
  ASSERT_EQ(top->size(), 2u);
  EXPECT_EQ((*top)[0], (std::pair<std::string, int64_t>{"connect failed after 0 ms", 3}));
  EXPECT_EQ((*top)[1], (std::pair<std::string, int64_t>{"HTTP 404: no model", 2}));
  scored = (*store)->ScoredRuleSets();
  ASSERT_TRUE(scored.ok());
  EXPECT_EQ(*scored, std::vector<std::string>{"strict"});
}

TEST(RunStoreTest, ANewResponseReplacesTheOldAndDropsItsVerdicts) {
  auto store = RunStore::OpenInMemory();
  ASSERT_TRUE(store.ok());
  AddSamples(**store, 2);
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->PutResponse(0, Answer("old")).ok());
  StoredVerdict v;
  v.reason = "wrong";
  ASSERT_TRUE((*store)->PutVerdict(0, "paper", v).ok());
  ASSERT_TRUE((*store)->PutResponse(0, Answer("new")).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
    if (r.index == 0) {
      EXPECT_EQ(r.response->text, "new");
      EXPECT_FALSE(r.verdict.has_value());
    }
    return Status::Ok();
  }).ok());

  // An error replaced by an answer, and a verdict by another: every field is the new one.
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->PutResponse(1, Failure("HTTP 500")).ok());
  StoredResponse answer = Answer("fine");
  answer.cached = true;
  answer.reasoning_tokens = 3;
  ASSERT_TRUE((*store)->PutResponse(1, answer).ok());
  v.pass = false;
  v.format = true;
  v.error = "no model";
  ASSERT_TRUE((*store)->PutVerdict(1, "paper", v).ok());
  StoredVerdict again;
  again.pass = true;
  again.reason = "right";
  again.rules_version = "math-2";
  again.accuracy = false;
  ASSERT_TRUE((*store)->PutVerdict(1, "paper", again).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  int seen = 0;
  ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
    if (r.index != 1) return Status::Ok();
    ++seen;
    EXPECT_TRUE(r.response->ok);
    EXPECT_EQ(r.response->text, "fine");
    EXPECT_EQ(r.response->error, "");
    EXPECT_EQ(r.response->http_status, 200);
    EXPECT_EQ(r.response->attempts, 1);
    EXPECT_EQ(r.response->reasoning_tokens, 3);
    EXPECT_TRUE(r.response->cached);
    EXPECT_TRUE(r.verdict->pass);
    EXPECT_EQ(r.verdict->reason, "right");
    EXPECT_EQ(r.verdict->rules_version, "math-2");
    EXPECT_EQ(r.verdict->format, std::nullopt);
    EXPECT_EQ(r.verdict->accuracy, std::optional<bool>(false));
    EXPECT_EQ(r.verdict->error, "");
    return Status::Ok();
  }).ok());
  EXPECT_EQ(seen, 1);
  auto counts = (*store)->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->answered, 2);
  EXPECT_EQ(counts->errored, 0);
}

// ForEachSample reads in batches: every sample, once, in index order, whole, across
// the batch boundaries, while a writer on another connection goes on committing; an
// error from the callback stops it and comes back.
TEST(RunStoreTest, ForEachSampleReadsEverySampleInOrderBesideAWriter) {
  testing::TempDir dir;
  auto writer = RunStore::Open(dir.path());
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  constexpr int kSamples = 700;  // more than two batches
  AddSamples(**writer, kSamples);
  auto reader = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  std::vector<std::string> ids;
  ASSERT_TRUE((*reader)->ForEachSample([&](const Sample& s) {
    const int i = static_cast<int>(ids.size());
    EXPECT_EQ(s.messages.size(), 1u);
    if (!s.messages.empty()) {
      EXPECT_EQ(s.messages[0].content, MakeSample(i).messages[0].content);
    }
    EXPECT_EQ(s.target, MakeSample(i).target);
    EXPECT_EQ(s.params, MakeSample(i).params);
    ids.push_back(s.id);
    // The run goes on beside the reader.
    if (i % 100 == 0) {
      EXPECT_TRUE((*writer)->Begin().ok());
      EXPECT_TRUE((*writer)->PutResponse(i, Answer("a")).ok());
      EXPECT_TRUE((*writer)->Commit().ok());
    }
    return Status::Ok();
  }).ok());
  ASSERT_EQ(ids.size(), static_cast<size_t>(kSamples));
  for (int i = 0; i < kSamples; ++i) EXPECT_EQ(ids[i], MakeSample(i).id);

  int calls = 0;
  const Status stopped = (*reader)->ForEachSample([&](const Sample&) {
    return ++calls == 300 ? Status::IoError("disk gone") : Status::Ok();
  });
  EXPECT_EQ(stopped.message(), "disk gone");
  EXPECT_EQ(calls, 300);
}

TEST(RunStoreTest, ARepeatedSampleIdIsNamed) {
  auto store = RunStore::OpenInMemory();
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->AddSample(0, MakeSample(7)).ok());
  const Status again = (*store)->AddSample(1, MakeSample(7));
  EXPECT_EQ(again.message(), "sample id 's7' appears twice");
  EXPECT_TRUE((*store)->Commit().ok());
}

TEST(RunStoreTest, AnUncommittedBatchIsLostWholeWhenTheProcessDies) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/run";
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok());
    AddSamples(**store, 4);
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = RunStore::Open(run);
    if (!store.ok()) _exit(3);
    if (!(*store)->Begin().ok() || !(*store)->PutResponse(0, Answer("a")).ok() ||
        !(*store)->Commit().ok()) {
      _exit(4);
    }
    if (!(*store)->Begin().ok() || !(*store)->PutResponse(1, Answer("b")).ok()) _exit(5);
    kill(getpid(), SIGKILL);  // dies inside the second batch
    _exit(6);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  auto store = RunStore::Open(run);  // the dead child's lock is gone
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(PendingIndexes(**store), (std::vector<int64_t>{1, 2, 3}));
}

// The samples of a new run go in under a rollback journal (BeginBulk): a process that
// dies while adding them leaves a run without samples, which the next open of the
// store reads in write-ahead mode as before and fills again.
TEST(RunStoreTest, ABulkLoadIsLostWholeWhenTheProcessDiesAndTheStoreGoesOn) {
  testing::TempDir dir;
  const std::string run = dir.path() + "/run";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = RunStore::Open(run);
    if (!store.ok() || !(*store)->BeginBulk().ok()) _exit(3);
    for (int i = 0; i < 2000; ++i) {
      if (!(*store)->AddSample(i, MakeSample(i)).ok()) _exit(4);
    }
    kill(getpid(), SIGKILL);  // dies before the bulk batch commits
    _exit(6);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  {
    auto store = RunStore::Open(run);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto counts = (*store)->Counts();
    ASSERT_TRUE(counts.ok());
    EXPECT_EQ(counts->samples, 0);
    ASSERT_TRUE((*store)->BeginBulk().ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*store)->AddSample(i, MakeSample(i)).ok());
    ASSERT_TRUE((*store)->Commit().ok());
    ASSERT_TRUE((*store)->Begin().ok());
    ASSERT_TRUE((*store)->PutResponse(0, Answer("a")).ok());
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto store = RunStore::Open(run);
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(PendingIndexes(**store), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(std::filesystem::exists(run + "/run.db-wal"));  // back in write-ahead mode
}

TEST(RunStoreTest, ASecondWriterIsRefusedWithAClearError) {
  testing::TempDir dir;
  auto first = RunStore::Open(dir.path());
  ASSERT_TRUE(first.ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto second = RunStore::Open(dir.path());
    const bool refused = !second.ok() && second.status().message().find(
                                             "another structtest process") != std::string::npos;
    _exit(refused ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // A reader needs no lock.
  auto reader = RunStore::OpenReadOnly(dir.path());
  EXPECT_TRUE(reader.ok()) << reader.status().message();
}

TEST(RunStoreTest, RefusesANewerSchemaAndForeignFiles) {
  testing::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), "PRAGMA user_version=99"));
  auto store = RunStore::Open(dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("schema version 99 is newer than this build"),
            std::string::npos)
      << store.status().message();

  testing::TempDir junk;
  testing::WriteFileOrDie(junk.path() + "/run.db", std::string(4096, 'x'));
  auto bad = RunStore::Open(junk.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("run.db"), std::string::npos) << bad.status().message();
  // The file is left as it was.
  EXPECT_EQ(testing::ReadFileOrDie(junk.path() + "/run.db"), std::string(4096, 'x'));

  auto missing = RunStore::OpenReadOnly(junk.path() + "/nothing");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no run here"), std::string::npos);
}

// Every row as `read` gives it: index, sample (as JSON), response text, verdict.
// A row as RowsAs shows it, with `sample` for its sample.
std::string RowText(const RunRow& r, const Sample& sample) {
  return fmt::format("{} {} {} {}", r.index, SampleToJson(sample).dump(),
                     r.response ? r.response->text + "/" + r.response->finish : "-",
                     r.verdict ? r.verdict->reason : "-");
}

std::vector<std::string> RowsAs(RunStore& store, RunStore::RowRead read) {
  std::vector<std::string> out;
  const Status s = store.ForEach("paper", [&](const RunRow& r) {
    out.push_back(RowText(r, r.sample));
    return Status::Ok();
  }, read);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

// A run of 5 samples, 2 answered (one with a verdict), 1 errored, in `dir`.
void MakeRun(const std::string& dir) {
  auto store = RunStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)->BeginBulk().ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*store)->AddSample(i, MakeSample(i)).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->PutResponse(1, Answer("one")).ok());
  StoredVerdict v;
  v.reason = "because";
  v.rules_version = "math-1";
  ASSERT_TRUE((*store)->PutVerdict(1, "paper", v).ok());
  ASSERT_TRUE((*store)->PutResponse(2, Answer("two")).ok());
  ASSERT_TRUE((*store)->PutResponse(4, Failure("HTTP 500")).ok());
  ASSERT_TRUE((*store)->Commit().ok());
}

// The prompt is most of a sample's bytes: the rows that leave it out are read from
// the sample heads, and are the rows read whole without the prompt.
TEST(RunStoreTest, RowsWithoutThePromptComeFromTheHeadsAndMatchTheWholeRows) {
  testing::TempDir dir;
  MakeRun(dir.path());
  auto store = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<std::string> whole;
  ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
    Sample s = r.sample;
    EXPECT_FALSE(s.messages.empty());
    s.messages.clear();
    s.target = nullptr;
    whole.push_back(RowText(r, s));
    return Status::Ok();
  }).ok());
  ASSERT_EQ(whole.size(), 5u);
  EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kNoPrompt), whole);
  store->reset();

  // What the heads hold is what those rows show: a sample's whole JSON spoilt under
  // its head does not change them.
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), "UPDATE samples SET json = '{}' WHERE idx = 3"));
  store = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kNoPrompt), whole);
}

// A head missing (a store written some other way) is no row missing: those reads go
// back to the whole samples.
TEST(RunStoreTest, AMissingHeadFallsBackToTheWholeSamples) {
  testing::TempDir dir;
  MakeRun(dir.path());
  std::vector<std::string> before;
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok());
    before = RowsAs(**store, RunStore::RowRead::kTally);
  }
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), "DELETE FROM sample_heads WHERE idx = 2"));
  auto store = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kTally), before);
  ASSERT_EQ(before.size(), 5u);
}

// Takes a run back to the first schema: no sample heads, no verdict checks, no served
// models.
const std::string kToFirstSchema =
    kToFifthSchema +
    "DROP TABLE provider_batch_items; DROP TABLE provider_batches; ALTER TABLE responses DROP "
    "COLUMN batch; DROP TABLE sample_heads; ALTER TABLE verdicts DROP COLUMN checks; ALTER TABLE responses "
    "DROP COLUMN served_model; PRAGMA user_version=1";

// A run of the first schema (no sample heads) reads as it is, and the first writer
// that opens it adds the heads.
TEST(RunStoreTest, ARunOfTheFirstSchemaIsReadAndUpgraded) {
  testing::TempDir dir;
  MakeRun(dir.path());
  std::vector<std::string> no_prompt, tally;
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok());
    no_prompt = RowsAs(**store, RunStore::RowRead::kNoPrompt);
    tally = RowsAs(**store, RunStore::RowRead::kTally);
  }
  const auto schema = [&]() -> std::pair<int64_t, bool> {  // (version, has the heads)
    auto db = sqlite::Db::Open(dir.path() + "/run.db", /*read_only=*/true);
    EXPECT_TRUE(db.ok());
    auto q = (*db)->Prepare("SELECT (SELECT user_version FROM pragma_user_version), "
                            "(SELECT COUNT(*) FROM sqlite_master WHERE name = 'sample_heads')");
    EXPECT_TRUE(q.ok() && *q->Step());
    return {q->Int(0), q->Int(1) != 0};
  };
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), kToFirstSchema));
  ASSERT_EQ(schema(), std::make_pair(int64_t{1}, false));
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kNoPrompt), no_prompt);
    EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kTally), tally);
  }
  ASSERT_TRUE(RunStore::Open(dir.path()).ok());
  EXPECT_EQ(schema(), std::make_pair(int64_t{6}, true));
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), "UPDATE samples SET json = '{}' WHERE idx = 3"));
  auto store = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kNoPrompt), no_prompt) << "read from the heads";
}

// A run stored before the served models were kept (schema 3) reads as it is, with no
// served model, merges into a run of this schema, and the first writer that opens it
// keeps every answer and stores the served models from then on.
TEST(RunStoreTest, ARunStoredBeforeServedModelsIsReadMergedAndUpgraded) {
  testing::TempDir dir;
  MakeRun(dir.path());
  std::vector<std::string> rows;
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok());
    rows = RowsAs(**store, RunStore::RowRead::kWhole);
  }
  ASSERT_NO_FATAL_FAILURE(ExecOn(
      dir.path(), std::string(kToFourthSchema) +
                      "ALTER TABLE responses DROP COLUMN served_model; PRAGMA user_version=3"));
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kWhole), rows);
    EXPECT_TRUE((*store)->ServedModels()->empty());
  }
  {
    testing::TempDir whole;
    auto into = RunStore::Open(whole.path());
    ASSERT_TRUE(into.ok());
    auto merged = (*into)->MergeFrom(dir.path());
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_EQ(merged->answers, 2);
    EXPECT_EQ(RowsAs(**into, RunStore::RowRead::kWhole), rows);
  }
  auto store = RunStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kWhole), rows);
  EXPECT_TRUE((*store)->ServedModels()->empty());
  ASSERT_TRUE((*store)->Begin().ok());
  for (const int64_t i : {0, 3}) {
    StoredResponse answer = Answer("new");
    answer.served_model = "m-2025";
    ASSERT_TRUE((*store)->PutResponse(i, answer).ok());
  }
  ASSERT_TRUE((*store)->Commit().ok());
  EXPECT_EQ(*(*store)->ServedModels(),
            (std::vector<std::pair<std::string, int64_t>>{{"m-2025", 2}}));
}

// A sample whose JSON SQLite's json_remove refuses (nested deeper than it reads) gets
// no head from the upgrade, which still goes through; its rows come from the samples.
TEST(RunStoreTest, TheUpgradeLeavesOutASampleSqliteCannotRead) {
  testing::TempDir dir;
  {
    auto store = RunStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Begin().ok());
    for (int i = 0; i < 3; ++i) {
      Sample s = MakeSample(i);
      if (i == 1) {
        nlohmann::json deep = nlohmann::json::array();
        for (int d = 0; d < 2100; ++d) deep = nlohmann::json::array({std::move(deep)});
        s.params["deep"] = std::move(deep);
      }
      ASSERT_TRUE((*store)->AddSample(i, s).ok());
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  std::vector<std::string> rows;
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok());
    rows = RowsAs(**store, RunStore::RowRead::kTally);
    ASSERT_EQ(rows.size(), 3u);
  }
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), kToFirstSchema));
  auto upgraded = RunStore::Open(dir.path());
  ASSERT_TRUE(upgraded.ok()) << upgraded.status().message();
  upgraded->reset();
  {
    auto db = sqlite::Db::Open(dir.path() + "/run.db", /*read_only=*/true);
    ASSERT_TRUE(db.ok());
    auto q = (*db)->Prepare("SELECT group_concat(idx) FROM sample_heads");
    ASSERT_TRUE(q.ok() && *q->Step());
    EXPECT_EQ(q->Text(0), "0,2");
  }
  auto store = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(RowsAs(**store, RunStore::RowRead::kTally), rows);
}

TEST(ResponseCacheTest, ReturnsWhatWasPutUnderTheWholeKey) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/sub/cache.db";
  {
    auto cache = ResponseCache::Open(path);
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    ASSERT_TRUE((*cache)->Put("key-a", Answer("answer a")).ok());
    ASSERT_TRUE((*cache)->Begin().ok());
    ASSERT_TRUE((*cache)->Put("key-b", Answer("answer b")).ok());
    ASSERT_TRUE((*cache)->Commit().ok());
  }
  auto cache = ResponseCache::Open(path);
  ASSERT_TRUE(cache.ok());
  auto a = (*cache)->Get("key-a");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->text, "answer a");
  EXPECT_TRUE((*a)->cached);
  auto b = (*cache)->Get("key-b");
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->text, "answer b");
  auto none = (*cache)->Get("key-a ");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// A cache of the first schema keeps its answers (served by no model it knows), and
// stores the served model of the answers put from then on.
TEST(ResponseCacheTest, ACacheStoredBeforeServedModelsKeepsItsAnswers) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/cache.db";
  ASSERT_TRUE(ResponseCache::Open(path).ok());
  {
    auto db = sqlite::Db::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("ALTER TABLE responses DROP COLUMN served_model; "
                            "INSERT INTO responses VALUES ('old', 'old answer', '', 'stop', "
                            "'stop', 1, 2, 0, 3); PRAGMA user_version=1")
                    .ok());
  }
  auto cache = ResponseCache::Open(path);
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  auto old = (*cache)->Get("old");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->text, "old answer");
  EXPECT_EQ((*old)->served_model, "");
  StoredResponse served = Answer("new answer");
  served.served_model = "m-2025";
  ASSERT_TRUE((*cache)->Put("new", served).ok());
  EXPECT_EQ((*(*cache)->Get("new"))->served_model, "m-2025");
}

}  // namespace
}  // namespace store_test
}  // namespace structtest

namespace structtest {
namespace store_test {
namespace {

// Provider batches (run --batch): a batch's samples are not pending for another batch
// while it is being submitted or at the provider, and are again once it failed or was
// collected with errors; the rows survive a reopen; a batch answer keeps its flag and
// counts apart in the spending.
TEST(RunStoreTest, ProviderBatchesHoldTheirSamplesUntilTheyEnd) {
  testing::TempDir dir;
  auto store = RunStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  AddSamples(**store, 5);
  const auto pending = [&](bool outside) {
    std::vector<int64_t> out;
    auto got = (*store)->PendingSamples(kBeforeFirstSlot, 100, outside);
    EXPECT_TRUE(got.ok());
    for (const StoredSample& s : *got) out.push_back(s.index);
    return out;
  };
  ProviderBatch b;
  b.key = "k1";
  b.provider = "openai";
  b.state = "submitting";
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->AddProviderBatch(&b, {{1, "s1-a"}, {3, "s3-a"}}).ok());
  ProviderBatch dup = b;
  EXPECT_FALSE((*store)->AddProviderBatch(&dup, {{2, "s2-a"}}).ok());  // the key is taken
  ASSERT_TRUE((*store)->Commit().ok());
  EXPECT_EQ(b.seq, 1);
  EXPECT_EQ(b.requests, 2);
  EXPECT_EQ(pending(true), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(pending(false), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  b.state = "submitted";
  b.batch_id = "batch_1";
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->UpdateProviderBatch(b).ok());
  StoredResponse answer = Answer("42");
  answer.batch = true;
  ASSERT_TRUE((*store)->PutResponse(1, answer).ok());
  ASSERT_TRUE((*store)->PutResponse(3, Failure("openai batch: expired")).ok());
  ASSERT_TRUE((*store)->PutResponse(0, Answer("41")).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  EXPECT_EQ(pending(true), (std::vector<int64_t>{2, 4}));
  b.state = "collected";
  ASSERT_TRUE((*store)->Begin().ok());
  ASSERT_TRUE((*store)->UpdateProviderBatch(b).ok());
  ASSERT_TRUE((*store)->Commit().ok());
  EXPECT_EQ(pending(true), (std::vector<int64_t>{2, 3, 4}));
  store->reset();

  auto reopened = RunStore::Open(dir.path());
  ASSERT_TRUE(reopened.ok());
  auto batches = (*reopened)->ProviderBatches();
  ASSERT_TRUE(batches.ok());
  ASSERT_EQ(batches->size(), 1u);
  EXPECT_EQ((*batches)[0].batch_id, "batch_1");
  EXPECT_EQ((*batches)[0].state, "collected");
  EXPECT_TRUE((*reopened)->ProviderBatches("submitted")->empty());
  EXPECT_EQ((*reopened)->AnsweredOfProviderBatch(1).value(), (std::vector<Slot>{Slot{1, 0}}));
  EXPECT_EQ((*reopened)->CustomIdsOf("openai", 3).value(), (std::vector<std::string>{"s3-a"}));
  EXPECT_TRUE((*reopened)->CustomIdsOf("offline", 3)->empty());
  auto row = (*reopened)->Row(1, "paper");
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_TRUE((*row)->response->batch);
  EXPECT_FALSE((*(*reopened)->Row(0, "paper"))->response->batch);
  EXPECT_FALSE((*reopened)->Row(7, "paper")->has_value());
  auto counts = (*reopened)->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->spent_input_tokens, 20);
  EXPECT_EQ(counts->spent_batch_input_tokens, 10);
  EXPECT_EQ(counts->spent_batch_output_tokens, 5);
}

// The largest --repeats allowed is a run like any other: stored, and read back when
// the run is opened again (resume, report); one more is refused.
TEST(RunStoreTest, TheLargestRepeatsAllowedIsStoredAndReopened) {
  testing::TempDir dir;
  {
    auto store = RunStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    RunManifest manifest;
    manifest.model = "m";
    manifest.repeats = RunStore::kMaxRepeats;
    ASSERT_TRUE((*store)->SetManifest(manifest).ok());
    EXPECT_EQ((*store)->repeats(), RunStore::kMaxRepeats);
    manifest.repeats = RunStore::kMaxRepeats + 1;
    EXPECT_FALSE((*store)->SetManifest(manifest).ok());
  }
  auto reopened = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  EXPECT_EQ((*reopened)->repeats(), RunStore::kMaxRepeats);
}

// run --repeats K: each sample's repeats are slots of their own, asked, answered,
// scored and read apart; K comes from the manifest and is kept across reopening.
TEST(RunStoreTest, RepeatsAreSlotsOfTheirOwn) {
  testing::TempDir dir;
  {
    auto store = RunStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->repeats(), 1);
    ASSERT_TRUE((*store)->SetManifest(ManifestOf({{"model", "m"}, {"repeats", 3}})).ok());
    EXPECT_EQ((*store)->repeats(), 3);
    for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(1001), nlohmann::json(2.5),
                                     nlohmann::json("3")}) {
      const Status s = RunManifest::FromJson({{"model", "m"}, {"repeats", bad}}, "run.db").status();
      EXPECT_FALSE(s.ok()) << bad;
      EXPECT_NE(s.message().find("repeats " + bad.dump() + " is not a whole number"),
                std::string::npos)
          << s.message();
    }
    for (const int64_t bad : {int64_t{0}, RunStore::kMaxRepeats + 1}) {
      RunManifest m;
      m.repeats = bad;
      const Status s = (*store)->SetManifest(m);
      EXPECT_NE(s.message().find(fmt::format("repeats {} is not a whole number", bad)),
                std::string::npos)
          << s.message();
    }
    EXPECT_EQ((*store)->repeats(), 3);  // a refused manifest changes nothing
    AddSamples(**store, 2);
    const auto pending = [&](int page) {
      std::vector<Slot> out;
      for (Slot after = kBeforeFirstSlot;;) {
        auto got = (*store)->PendingSamples(after, page);
        EXPECT_TRUE(got.ok()) << got.status().message();
        if (!got.ok() || got->empty()) return out;
        for (const StoredSample& s : *got) {
          out.push_back(s.slot());
          EXPECT_EQ(s.sample.id, "s" + std::to_string(s.index));
        }
        after = got->back().slot();
      }
    };
    EXPECT_EQ(pending(4), (std::vector<Slot>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
    ASSERT_TRUE((*store)->Begin().ok());
    ASSERT_TRUE((*store)->PutResponse(0, Answer("zero-one"), 1).ok());
    ASSERT_TRUE((*store)->PutResponse(1, Failure("HTTP 500"), 2).ok());
    StoredVerdict v;
    v.pass = true;
    v.rules_version = "math-1";
    ASSERT_TRUE((*store)->PutVerdict(0, "paper", v, 1).ok());
    ASSERT_TRUE((*store)->PutResponse(0, Answer("zero-zero"), 0).ok());  // keeps repeat 1's verdict
    ASSERT_TRUE((*store)->Commit().ok());
    EXPECT_EQ(pending(2), (std::vector<Slot>{{0, 2}, {1, 0}, {1, 1}, {1, 2}}));
    auto unscored = (*store)->Unscored("paper", kBeforeFirstSlot, 10);
    ASSERT_TRUE(unscored.ok());
    ASSERT_EQ(unscored->size(), 1u);
    EXPECT_EQ((*unscored)[0].index, 0);
    EXPECT_EQ((*unscored)[0].repeat, 0);
    EXPECT_EQ((*unscored)[0].response->text, "zero-zero");
    auto counts = (*store)->Counts();
    ASSERT_TRUE(counts.ok());
    EXPECT_EQ(counts->samples, 2);
    EXPECT_EQ(counts->slots, 6);
    EXPECT_EQ(counts->answered, 2);
    EXPECT_EQ(counts->errored, 1);
    auto row = (*store)->Row(0, "paper", 1);
    ASSERT_TRUE(row.ok() && row->has_value());
    EXPECT_EQ((*row)->repeat, 1);
    EXPECT_EQ((*row)->response->text, "zero-one");
    EXPECT_TRUE((*row)->verdict.has_value());
  }
  auto store = RunStore::OpenReadOnly(dir.path());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->repeats(), 3);
  std::vector<std::string> rows;
  for (RunStore::RowRead read : {RunStore::RowRead::kWhole, RunStore::RowRead::kTally}) {
    rows.clear();
    ASSERT_TRUE((*store)->ForEach("paper", [&](const RunRow& r) {
      rows.push_back(fmt::format("{}/{}:{}{}", r.index, r.repeat,
                                 r.response ? (r.response->ok ? "ok" : "error") : "-",
                                 r.verdict ? "+verdict" : ""));
      return Status::Ok();
    }, read).ok());
    EXPECT_EQ(rows, (std::vector<std::string>{"0/0:ok", "0/1:ok+verdict", "0/2:-", "1/0:-",
                                              "1/1:-", "1/2:error"}));
  }
}

// A run made before repeats (schema 5) reads as repeat 0 of K = 1, with its batch
// items; the first writer that opens it moves it to schema 6 keeping every row.
TEST(RunStoreTest, ARunStoredBeforeRepeatsIsRepeatZeroOfOne) {
  testing::TempDir dir;
  MakeRun(dir.path());
  {
    auto store = RunStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    ProviderBatch b;
    b.key = "k1";
    b.provider = "openai";
    b.state = "collected";
    ASSERT_TRUE((*store)->Begin().ok());
    ASSERT_TRUE((*store)->AddProviderBatch(&b, {{1, "s1-a"}, {2, "s2-b"}}).ok());
    ASSERT_TRUE((*store)->Commit().ok());
  }
  std::vector<std::string> rows;
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok());
    rows = RowsAs(**store, RunStore::RowRead::kWhole);
  }
  ASSERT_NO_FATAL_FAILURE(ExecOn(dir.path(), kToFifthSchema));
  const auto check = [&](RunStore& store) {
    EXPECT_EQ(store.repeats(), 1);
    EXPECT_EQ(RowsAs(store, RunStore::RowRead::kWhole), rows);
    EXPECT_TRUE(store.ForEach("paper", [](const RunRow& r) {
      EXPECT_EQ(r.repeat, 0);
      return Status::Ok();
    }).ok());
    EXPECT_EQ(store.CustomIdsOf("openai", 2).value(), (std::vector<std::string>{"s2-b"}));
    EXPECT_EQ(store.AnsweredOfProviderBatch(1).value(), (std::vector<Slot>{{1, 0}, {2, 0}}));
    auto row = store.Row(1, "paper");
    ASSERT_TRUE(row.ok() && row->has_value());
    EXPECT_EQ((*row)->response->text, "one");
    EXPECT_TRUE((*row)->verdict.has_value());
  };
  {
    auto store = RunStore::OpenReadOnly(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    check(**store);
  }
  auto store = RunStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().message();
  check(**store);
  auto items = (*store)->ProviderBatchItems(1);
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[1].custom_id, "s2-b");
  EXPECT_EQ((*items)[1].repeat, 0);
  auto pending = (*store)->PendingSamples(kBeforeFirstSlot, 10);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->size(), 3u);  // 0, 3 and the errored 4
}

// Shards of a repeated run merge repeat by repeat; a conflict names the repeat.
TEST(RunStoreTest, RepeatedRunsMergeRepeatByRepeat) {
  testing::TempDir a, b;
  for (const std::string& d : {a.path(), b.path()}) {
    auto store = RunStore::Open(d);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->SetManifest(ManifestOf({{"model", "m"}, {"repeats", 2}})).ok());
    AddSamples(**store, 2);
    ASSERT_TRUE((*store)->Begin().ok());
    ASSERT_TRUE((*store)->PutResponse(0, Answer(d == a.path() ? "a0" : "b0-other"), 0).ok());
    ASSERT_TRUE((*store)->PutResponse(0, Answer("x"), d == a.path() ? 1 : 0).ok());
    if (d == b.path()) {
      ASSERT_TRUE((*store)->PutResponse(1, Answer("b1"), 1).ok());
    }
    ASSERT_TRUE((*store)->Commit().ok());
  }
  auto store = RunStore::Open(a.path());
  ASSERT_TRUE(store.ok());
  // b answered (0, 0) "x" where a has "a0": the same sample answered twice, differently.
  auto refused = (*store)->MergeFrom(b.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("sample 's0' has another answer"), std::string::npos)
      << refused.status().message();
  ExecOn(b.path(), "DELETE FROM responses WHERE idx = 0 AND rep = 0");
  auto merged = (*store)->MergeFrom(b.path());
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->answers, 1);  // (1, 1)
  auto row = (*store)->Row(1, "paper", 1);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->response->text, "b1");
  EXPECT_EQ((*store)->Counts()->answered, 3);
}

}  // namespace
}  // namespace store_test
}  // namespace structtest
