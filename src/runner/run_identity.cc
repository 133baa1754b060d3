#include "runner/run_identity.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <algorithm>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "core/hash.h"
#include "store/run_store.h"
#include "structtest/version.h"
#include "tasks/composed/composed.h"
#include "tasks/registry.h"
#include "tasks/suite.h"

namespace structtest {

std::string PublicEndpoint(std::string url) {
  if (const size_t q = url.find_first_of("?#"); q != std::string::npos) url.resize(q);
  const size_t scheme = url.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t at = url.find('@', host);
  if (at != std::string::npos && url.find('/', host) > at) url.erase(host, at + 1 - host);
  return url;
}

std::string DefaultRunDir(const RunSuiteOptions& opt) {
  std::string name = opt.model;
  if (!opt.samples.empty()) {
    name += "_" + std::filesystem::path(opt.samples).stem().string();
  } else {
    name += fmt::format("_{}_seed{}", opt.suite.suite, opt.suite.seed);
    if (opt.suite.size != 1.0) name += fmt::format("_size{}", opt.suite.size);
    // A composed run off the default 3 rules per sample (an unknown level: the run
    // refuses it before the name is used).
    if (const auto k = ComposedRulesPerSample(opt.suite); k.ok() && *k != 0 &&
                                                            *k != kDefaultRulesPerSample) {
      name += fmt::format("_k{}", *k);
    }
    for (const std::string& t : opt.suite.tasks) name += "_" + t;
  }
  const std::string limit = opt.suite.limit > 0 ? fmt::format("_limit{}", opt.suite.limit) : "";
  const std::string shard = opt.suite.shard_count > 1
                                ? fmt::format("_shard{}of{}", opt.suite.shard_index,
                                              opt.suite.shard_count)
                                : "";
  const auto dir = [](std::string n) {
    for (char& c : n) {
      const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
      if (!keep) c = '-';
    }
    return "runs/" + n;
  };
  // The limit is not in the name, so that the same command with a larger one grows the
  // run (OpenRun). A run an older structtest made under a name with its limit resumes
  // where it is.
  const std::string named = dir(name + shard);
  if (!limit.empty()) {
    const std::string older = dir(name + limit + shard);
    const auto holds_run = [](const std::string& d) {
      return std::filesystem::exists(std::filesystem::path(d) / RunStore::kFileName);
    };
    if (!holds_run(named) && holds_run(older)) return older;
  }
  return named;
}

StatusOr<std::string> FileFingerprint(const std::string& path) {
  const std::string absolute = std::filesystem::absolute(path).string();
  if (!std::filesystem::is_regular_file(path)) return absolute;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Status::IoError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  }
  uint64_t h = kFnv1aOffset;
  char buf[1 << 16];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) h = Fnv1a(std::string_view(buf, n), h);
  std::fclose(f);
  return fmt::format("{} fnv1a:{:016x}", absolute, h);
}

StatusOr<RunManifest> RunIdentity(const ResolvedRun& run, const std::string& endpoint) {
  const RunSuiteOptions& opt = run.options;
  const ModelRequest& request = run.request;
  RunManifest id;
  id.model = opt.model;
  id.endpoint = endpoint;
  id.max_tokens = request.max_tokens;
  if (opt.transport.base_urls.size() > 1) {
    for (const std::string& url : opt.transport.base_urls) id.endpoints.push_back(PublicEndpoint(url));
  }
  id.temperature = request.temperature;
  const RequestControls& c = request.controls;
  id.system = c.system;
  id.top_p = c.top_p;
  id.stop = c.stop;
  id.sampling_seed = c.seed;
  id.reasoning_effort = c.reasoning_effort;
  id.thinking_budget = c.thinking_budget;
  id.extra_body = c.extra_body;
  for (const HttpHeader& h : run.headers) id.headers.push_back(AsciiLower(h.name));
  std::sort(id.headers.begin(), id.headers.end());
  id.tasks = opt.suite.tasks;
  if (!opt.samples.empty()) {
    ASSIGN_OR_RETURN(id.samples, FileFingerprint(opt.samples));
  } else {
    id.suite = opt.suite.suite;
    id.seed = opt.suite.seed;
    id.size = opt.suite.size;
    ASSIGN_OR_RETURN(const int k, ComposedRulesPerSample(opt.suite));
    id.rules_per_sample = k == kDefaultRulesPerSample ? 0 : k;
    for (const auto& [file, fingerprint] : {std::pair{&opt.suite.documents, &id.documents},
                                            {&opt.suite.mbpp, &id.mbpp},
                                            {&opt.suite.apps, &id.apps},
                                            {&opt.suite.gsm8k, &id.gsm8k}}) {
      if (file->empty()) continue;
      ASSIGN_OR_RETURN(*fingerprint, FileFingerprint(*file));
    }
  }
  if (opt.suite.limit > 0) id.limit = opt.suite.limit;
  if (run.shard) id.shard = run.shard->ToString();
  id.repeats = opt.repeats;
  return id;
}

RunManifest StampedManifest(RuleSet rules, RunManifest identity) {
  identity.structtest_version = STRUCTTEST_VERSION;
  // The checker versions of the rule set this command scores with (a run directory may
  // hold verdicts of both; each verdict names its own).
  identity.rules_versions.clear();
  for (const TaskFamily* f : Families()) {
    identity.rules_versions[std::string(f->domain)] = std::string(f->version(rules));
  }
  return identity;
}

namespace {

// What of `stored` is compared with an identity: the versions that wrote it do not count.
std::vector<ManifestDifference> Differences(RunManifest stored, const RunManifest& identity) {
  stored.structtest_version.clear();
  stored.rules_versions.clear();
  return DiffManifests(stored, identity);
}

}  // namespace

std::vector<std::string> DifferingKeys(const RunManifest& stored, const RunManifest& identity) {
  std::vector<std::string> keys;
  for (const ManifestDifference& d : Differences(stored, identity)) keys.push_back(d.field);
  return keys;
}

Status CheckSameRun(std::string_view dir, const RunManifest& stored, const RunManifest& identity) {
  const std::vector<ManifestDifference> diff = Differences(stored, identity);
  if (diff.empty()) return Status::Ok();
  const ManifestDifference& first = diff.front();
  if (first.field == "repeats") {
    // A run without the key asks each sample once.
    return Status::InvalidArgument(fmt::format(
        "{}: this directory holds another run (`repeats` was {}, now {}); pass another `out` "
        "or remove the directory",
        dir, stored.repeats, identity.repeats));
  }
  return Status::InvalidArgument(fmt::format(
      "{}: this directory holds another run ({} was {}{}); pass another `out` or remove the "
      "directory",
      dir, first.field, first.was.dump(), first.now ? ", now " + first.now->dump() : ""));
}

void KeepStoredTemperature(const std::optional<RunManifest>& stored, ResolvedRun* run) {
  if (run->temperature_defaulted && stored && !stored->temperature) run->request.temperature.reset();
}

bool LimitGrows(const RunManifest& stored, const RunManifest& identity) {
  if (DifferingKeys(stored, identity) != std::vector<std::string>{"limit"}) return false;
  return stored.limit && (!identity.limit || *identity.limit > *stored.limit);
}

}  // namespace structtest
