#include "store/merge.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/shard.h"

namespace structtest {

nlohmann::json ProviderOfEndpoint(const nlohmann::json& endpoint) {
  if (!endpoint.is_string()) return endpoint;
  const std::string text = endpoint.get<std::string>();
  return text.substr(0, text.find(' '));
}

namespace {

// What defines the suite and how it was asked: the manifest without the shard and
// without the hosts.
nlohmann::json Identity(const nlohmann::json& manifest) {
  nlohmann::json id = manifest;
  id.erase("shard");
  id.erase(kMergeKey);
  // The hosts are not the run: runs asked of other replicas of the same model (the
  // same provider) merge. The first run's endpoint stays in the merged manifest.
  id.erase("endpoints");
  if (const auto it = id.find("endpoint"); it != id.end()) *it = ProviderOfEndpoint(*it);
  return id;
}

// The first setting in which `a` and `b` differ, as "KEY: A in WHERE_A, B in WHERE_B".
std::optional<std::string> Difference(const nlohmann::json& a, const std::string& where_a,
                                      const nlohmann::json& b, const std::string& where_b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  for (const std::string& k : keys) {
    const nlohmann::json va = a.contains(k) ? a[k] : nlohmann::json();
    const nlohmann::json vb = b.contains(k) ? b[k] : nlohmann::json();
    if (va != vb) {
      return fmt::format("{}: {} in {}, {} in {}", k, va.dump(), where_a, vb.dump(), where_b);
    }
  }
  return std::nullopt;
}

// The shards a manifest stands for: its own, or those a merged run holds.
struct Coverage {
  std::optional<int> count;
  std::set<int> shards;
  bool unsharded = false;
};

Status AddCoverage(const nlohmann::json& manifest, const std::string& where, Coverage* c) {
  std::vector<std::string> shards;
  bool unsharded = false;
  if (const auto it = manifest.find("shard"); it != manifest.end()) {
    if (!it->is_string()) return Status::InvalidArgument(fmt::format("{}: the manifest's shard is not text", where));
    shards.push_back(it->get<std::string>());
  } else if (const auto m = manifest.find(kMergeKey); m != manifest.end()) {
    if (!m->is_object()) return Status::InvalidArgument(fmt::format("{}: the manifest's merge is not an object", where));
    unsharded = m->value("unsharded", false);
    if (const auto s = m->find("shards"); s != m->end() && s->is_array()) {
      for (const auto& v : *s) {
        if (v.is_string()) shards.push_back(v.get<std::string>());
      }
    }
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

nlohmann::json MergeManifest(const nlohmann::json& identity, const Coverage& c) {
  nlohmann::json m = identity;
  nlohmann::json merge = nlohmann::json::object();
  merge["shard_count"] = c.count ? nlohmann::json(*c.count) : nlohmann::json();
  nlohmann::json shards = nlohmann::json::array();
  for (int i : c.shards) shards.push_back(fmt::format("{}/{}", i, *c.count));
  merge["shards"] = std::move(shards);
  merge["unsharded"] = c.unsharded;
  m[kMergeKey] = std::move(merge);
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
  std::optional<nlohmann::json> identity;
  std::string identity_of;
  Coverage coverage;
  std::vector<std::pair<std::string, std::string>> shards;  // dir, shard
  for (const std::string& dir : runs) {
    if (SameDir(dir, out)) {
      return Status::InvalidArgument(fmt::format("{}: is the output directory; merge into another", dir));
    }
    ASSIGN_OR_RETURN(auto store, RunStore::OpenReadOnly(dir));
    ASSIGN_OR_RETURN(std::optional<nlohmann::json> manifest, store->Manifest());
    if (!manifest) {
      return Status::InvalidArgument(fmt::format("{}: the run has no manifest yet (it never got going)", dir));
    }
    const nlohmann::json id = Identity(*manifest);
    if (!identity) {
      identity = id;
      identity_of = dir;
    } else if (auto diff = Difference(id, dir, *identity, identity_of)) {
      return Status::InvalidArgument(fmt::format(
          "{}: not a run of the same manifest as {} ({}); only the shard may differ", dir,
          identity_of, *diff));
    }
    RETURN_IF_ERROR(AddCoverage(*manifest, dir, &coverage));
    shards.emplace_back(dir, manifest->value("shard", std::string()));
  }

  ASSIGN_OR_RETURN(auto merged, RunStore::Open(out));
  ASSIGN_OR_RETURN(std::optional<nlohmann::json> stored, merged->Manifest());
  ASSIGN_OR_RETURN(RunCounts before, merged->Counts());
  if (stored) {
    if (!stored->contains(kMergeKey)) {
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
    ASSIGN_OR_RETURN(std::optional<nlohmann::json> manifest, store->Manifest());
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
