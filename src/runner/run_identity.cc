#include "runner/run_identity.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "backends/providers.h"
#include "core/status_macros.h"
#include "core/hash.h"
#include "store/merge.h"
#include "structtest/version.h"
#include "tasks/registry.h"

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
    for (const std::string& t : opt.suite.tasks) name += "_" + t;
  }
  if (opt.suite.limit > 0) name += fmt::format("_limit{}", opt.suite.limit);
  if (opt.suite.shard_count > 1) {
    name += fmt::format("_shard{}of{}", opt.suite.shard_index, opt.suite.shard_count);
  }
  for (char& c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    if (!keep) c = '-';
  }
  return "runs/" + name;
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

StatusOr<nlohmann::json> RunIdentity(const ResolvedRun& run, const std::string& endpoint) {
  const RunSuiteOptions& opt = run.options;
  const ModelRequest& request = run.request;
  nlohmann::json id = {
      {"model", opt.model}, {"endpoint", endpoint}, {"max_tokens", request.max_tokens}};
  // Only with replicas, so a one-endpoint manifest is what it was before them.
  if (opt.transport.base_urls.size() > 1) {
    nlohmann::json urls = nlohmann::json::array();
    for (const std::string& url : opt.transport.base_urls) urls.push_back(PublicEndpoint(url));
    id["endpoints"] = std::move(urls);
  }
  id["temperature"] =
      request.temperature ? nlohmann::json(*request.temperature) : nlohmann::json();
  // Only the controls given, so a run without them has the identity it had before them.
  id.update(ControlsJson(request.controls, HeaderNames(run.headers)));
  if (!opt.samples.empty()) {
    ASSIGN_OR_RETURN(std::string samples, FileFingerprint(opt.samples));
    id["samples"] = samples;
    // Only when given, so a manifest written before --tasks filtered samples reads the same.
    if (!opt.suite.tasks.empty()) id["tasks"] = opt.suite.tasks;
  } else {
    id["suite"] = opt.suite.suite;
    id["seed"] = opt.suite.seed;
    id["size"] = opt.suite.size;
    id["tasks"] = opt.suite.tasks;
    for (const auto& [key, file] : {std::pair{"documents", &opt.suite.documents},
                                    {"mbpp", &opt.suite.mbpp},
                                    {"apps", &opt.suite.apps},
                                    {"gsm8k", &opt.suite.gsm8k}}) {
      if (file->empty()) continue;
      ASSIGN_OR_RETURN(std::string fingerprint, FileFingerprint(*file));
      id[key] = fingerprint;
    }
  }
  // Null without --limit, which is also what a run stored before --limit existed gives.
  id["limit"] = opt.suite.limit > 0 ? nlohmann::json(opt.suite.limit) : nlohmann::json();
  // Only in shard runs, so an unsharded run's manifest is what it was before --shard.
  if (run.shard) id["shard"] = run.shard->ToString();
  // Only with --repeats above 1, so a run asking each sample once is what it was before.
  if (opt.repeats > 1) id["repeats"] = opt.repeats;
  return id;
}

nlohmann::json RunManifest(RuleSet rules, const nlohmann::json& identity) {
  nlohmann::json m = identity;
  m["structtest_version"] = STRUCTTEST_VERSION;
  nlohmann::json versions = nlohmann::json::object();
  // The checker versions of the rule set this command scores with (a run directory may
  // hold verdicts of both; each verdict names its own).
  for (const TaskFamily* f : Families()) versions[f->domain] = f->version(rules);
  m["rules_versions"] = std::move(versions);
  return m;
}

std::vector<std::string> DifferingKeys(const nlohmann::json& stored,
                                       const nlohmann::json& identity) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : identity.items()) {
    if (key == "endpoints") continue;
    const nlohmann::json old = stored.value(key, nlohmann::json());
    const bool differs = key == "endpoint" ? ProviderOfEndpoint(old) != ProviderOfEndpoint(value)
                                           : old != value;
    if (differs) keys.push_back(key);
  }
  for (const auto& [key, value] : stored.items()) {
    if (!identity.contains(key) && key != "structtest_version" && key != "rules_versions" &&
        key != "endpoints") {
      keys.push_back(key);
    }
  }
  return keys;
}

Status CheckSameRun(std::string_view dir, const nlohmann::json& stored,
                    const nlohmann::json& identity) {
  const std::vector<std::string> keys = DifferingKeys(stored, identity);
  if (keys.empty()) return Status::Ok();
  const std::string& key = keys.front();
  const nlohmann::json old = stored.value(key, nlohmann::json());
  if (key == "repeats") {
    // A run without the key asks each sample once.
    return Status::InvalidArgument(fmt::format(
        "{}: this directory holds another run (`repeats` was {}, now {}); pass another `out` "
        "or remove the directory",
        dir, stored.value("repeats", nlohmann::json(1)).dump(),
        identity.value("repeats", nlohmann::json(1)).dump()));
  }
  return Status::InvalidArgument(fmt::format(
      "{}: this directory holds another run ({} was {}{}); pass another `out` or remove the "
      "directory",
      dir, key, old.dump(),
      identity.contains(key) ? ", now " + identity.at(key).dump() : ""));
}

void KeepStoredTemperature(const std::optional<nlohmann::json>& stored, ResolvedRun* run) {
  if (run->temperature_defaulted && stored &&
      stored->value("temperature", nlohmann::json()).is_null()) {
    run->request.temperature.reset();
  }
}

bool LimitGrows(const nlohmann::json& stored, const nlohmann::json& identity) {
  if (DifferingKeys(stored, identity) != std::vector<std::string>{"limit"}) return false;
  const nlohmann::json old = stored.value("limit", nlohmann::json());
  const nlohmann::json now = identity.value("limit", nlohmann::json());
  return old.is_number_unsigned() && (now.is_null() || (now.is_number_unsigned() && now > old));
}

}  // namespace structtest
