#include "store/merge.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/shard.h"

namespace structtest {

namespace {

// What defines the suite and how it was asked: the manifest without the shard and
// without the hosts.
RunManifest Identity(RunManifest m) {
  m.shard.clear();
  m.merge.reset();
  // The hosts are not the run: runs asked of other replicas of the same model (the
  // same provider) merge. The first run's endpoint stays in the merged manifest.
  m.endpoints.clear();
  m.endpoint = ProviderOfEndpoint(m.endpoint);
  return m;
}

// The first setting in which `a` and `b` differ, as "KEY: A in WHERE_A, B in WHERE_B".
std::optional<std::string> Difference(const RunManifest& a, const std::string& where_a,
                                      const RunManifest& b, const std::string& where_b) {
  const std::vector<ManifestDifference> diff = DiffManifests(b, a);
  if (diff.empty()) return std::nullopt;
  const ManifestDifference& first = *std::min_element(
      diff.begin(), diff.end(), [](const auto& x, const auto& y) { return x.field < y.field; });
  return fmt::format("{}: {} in {}, {} in {}", first.field,
                     first.now.value_or(nlohmann::json()).dump(), where_a, first.was.dump(),
                     where_b);
}

// The shards a manifest stands for: its own, or those a merged run holds.
struct Coverage {
  std::optional<int> count;
  std::set<int> shards;
  bool unsharded = false;
};

Status AddCoverage(const RunManifest& manifest, const std::string& where, Coverage* c) {
  std::vector<std::string> shards;
  bool unsharded = false;
  if (!manifest.shard.empty()) {
    shards.push_back(manifest.shard);
  } else if (manifest.merge) {
    unsharded = manifest.merge->unsharded;
    shards = manifest.merge->shards;
  } else {
    unsharded = true;
  }
  c->unsharded = c->unsharded || unsharded;
  for (const std::string& text : shards) {
    auto shard = ParseShard(text);
    if (!shard.ok()) {
      return Status::InvalidArgument(fmt::format("{}: the manifest's shard '{}' is not I/N", where, text));
    }
    if (c->count && *c->count != shard->count) {
      return Status::InvalidArgument(fmt::format(
          "{}: shard {} of {}, but the other runs are shards of {} (merge the shards of one "
          "--shard I/N split)",
          where, shard->ToString(), shard->count, *c->count));
    }
    c->count = shard->count;
    c->shards.insert(shard->index);
  }
  return Status::Ok();
}

RunManifest MergeManifest(const RunManifest& identity, const Coverage& c) {
  RunManifest m = identity;
  MergedShards merge;
  merge.shard_count = c.count;
  for (int i : c.shards) merge.shards.push_back(fmt::format("{}/{}", i, *c.count));
  merge.unsharded = c.unsharded;
  m.merge = std::move(merge);
  return m;
}

bool SameDir(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
}

}  // namespace

StatusOr<MergeResult> MergeRuns(const std::string& out, const std::vector<std::string>& runs) {
  if (runs.empty()) return Status::InvalidArgument("no runs to merge");
  // Check every manifest before writing anything.
  std::optional<RunManifest> identity;
  std::string identity_of;
  Coverage coverage;
  std::vector<std::pair<std::string, std::string>> shards;  // dir, shard
  for (const std::string& dir : runs) {
    if (SameDir(dir, out)) {
      return Status::InvalidArgument(fmt::format("{}: is the output directory; merge into another", dir));
    }
    ASSIGN_OR_RETURN(auto store, RunStore::OpenReadOnly(dir));
    ASSIGN_OR_RETURN(std::optional<RunManifest> manifest, store->Manifest());
    if (!manifest) {
      return Status::InvalidArgument(fmt::format("{}: the run has no manifest yet (it never got going)", dir));
    }
    const RunManifest id = Identity(*manifest);
    if (!identity) {
      identity = id;
      identity_of = dir;
    } else if (auto diff = Difference(id, dir, *identity, identity_of)) {
      return Status::InvalidArgument(fmt::format(
          "{}: not a run of the same manifest as {} ({}); only the shard may differ", dir,
          identity_of, *diff));
    }
    RETURN_IF_ERROR(AddCoverage(*manifest, dir, &coverage));
    shards.emplace_back(dir, manifest->shard);
  }

  ASSIGN_OR_RETURN(auto merged, RunStore::Open(out));
  ASSIGN_OR_RETURN(std::optional<RunManifest> stored, merged->Manifest());
  ASSIGN_OR_RETURN(RunCounts before, merged->Counts());
  if (stored) {
    if (!stored->merge) {
      return Status::InvalidArgument(fmt::format(
          "{}: holds a run that is not a merge; merge into a new directory", out));
    }
    if (auto diff = Difference(*identity, identity_of, Identity(*stored), out)) {
      return Status::InvalidArgument(fmt::format(
          "{}: not a run of the same manifest as the merge in {} ({}); only the shard may differ",
          identity_of, out, *diff));
    }
    RETURN_IF_ERROR(AddCoverage(*stored, out, &coverage));
  } else if (before.samples > 0) {
    return Status::InvalidArgument(fmt::format(
        "{}: holds samples but no manifest (not a merged run); merge into a new directory", out));
  }

  MergeResult result;
  // The manifest lists a shard only once its samples and answers are in: a merge killed
  // half way is completed by the next.
  Coverage written;
  if (stored) RETURN_IF_ERROR(AddCoverage(*stored, out, &written));
  for (const auto& [dir, shard] : shards) {
    auto added = merged->MergeFrom(dir);
    if (!added.ok()) return added.status();
    ASSIGN_OR_RETURN(auto store, RunStore::OpenReadOnly(dir));
    ASSIGN_OR_RETURN(std::optional<RunManifest> manifest, store->Manifest());
    RETURN_IF_ERROR(AddCoverage(*manifest, dir, &written));
    RETURN_IF_ERROR(merged->SetManifest(MergeManifest(*identity, written)));
    result.runs.push_back({dir, shard, *added});
  }
  ASSIGN_OR_RETURN(result.counts, merged->Counts());
  result.shard_count = written.count;
  result.unsharded = written.unsharded;
  if (written.count) {
    for (int i = 1; i <= *written.count; ++i) {
      const std::string name = fmt::format("{}/{}", i, *written.count);
      (written.shards.contains(i) ? result.shards : result.missing_shards).push_back(name);
    }
  }
  if (result.unsharded) result.missing_shards.clear();
  return result;
}

}  // namespace structtest
