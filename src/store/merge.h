// Merging runs: `structtest merge OUT RUN...` combines the shard runs of one suite (run
// --shard I/N, core/shard.h), or any runs of the same manifest, into one run directory
// that report, export and compare read as they read a single run. The runs must agree
// on every setting of their manifests but the shard; a sample answered in two of them
// must have the same answer. Merging is idempotent and incremental: merging into OUT
// again, as more shards finish, adds what is new. OUT's manifest is the runs' manifest
// without "shard", with "merge" saying which shards it holds; `run` refuses such a
// directory (a merged run is filled by merging its shards again).
#ifndef STRUCTTEST_STORE_MERGE_H_
#define STRUCTTEST_STORE_MERGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/run_store.h"
#include "structtest/status.h"

namespace structtest {

struct MergedRun {
  std::string dir;
  std::string shard;  // "2/3", or "" for an unsharded (or merged) run
  MergeCounts added;
};

struct MergeResult {
  std::vector<MergedRun> runs;
  RunCounts counts;                 // of OUT after the merge
  std::optional<int> shard_count;   // N, when OUT holds shards
  std::vector<std::string> shards;  // the shards OUT holds, "1/3", in order
  std::vector<std::string> missing_shards;  // those of 1..N it does not
  bool unsharded = false;  // OUT holds a whole (unsharded) run: no shard is missing
};

// Merges `runs` into the run directory `out` (created when missing). Everything is
// checked before anything is written: the manifests (naming the setting that differs
// and the runs it differs between), the shard counts, then each run's samples and
// answers as it is merged (RunStore::MergeFrom); a refused run leaves OUT as it was
// before that run. Errors name the run and the problem.
StatusOr<MergeResult> MergeRuns(const std::string& out, const std::vector<std::string>& runs);

}  // namespace structtest

#endif  // STRUCTTEST_STORE_MERGE_H_
