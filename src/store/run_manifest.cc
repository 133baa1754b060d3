#include "store/run_manifest.h"

#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "store/run_store.h"

namespace structtest {
namespace {

constexpr std::string_view kBuiltinPrefix = "builtin/";

// Takes the keys of one stored manifest off a copy, so that what is left is `other`.
class Reader {
 public:
  Reader(const nlohmann::json& j, std::string_view where) : rest_(j), where_(where) {}

  // Moves key's value into `out` when the key is there (and not null, for `null_ok`).
  Status Text(std::string_view key, std::string* out) { return Take(key, out, "text"); }
  Status TextList(std::string_view key, std::vector<std::string>* out) {
    return Take(key, out, "a list of texts");
  }
  template <typename T>
  Status Number(std::string_view key, T* out, std::string_view what) {
    const auto it = rest_.find(key);
    if (it == rest_.end()) return Status::Ok();
    if (!it->is_number() || (std::is_integral_v<T> && !it->is_number_integer()) ||
        (std::is_unsigned_v<T> && !it->is_number_unsigned() && it->get<int64_t>() < 0)) {
      return Wrong(key, *it, what);
    }
    *out = it->get<T>();
    rest_.erase(it);
    return Status::Ok();
  }
  template <typename T>
  Status Optional(std::string_view key, std::optional<T>* out, std::string_view what) {
    const auto it = rest_.find(key);
    if (it == rest_.end()) return Status::Ok();
    if (it->is_null()) {
      rest_.erase(it);
      return Status::Ok();
    }
    T value{};
    RETURN_IF_ERROR(Number(key, &value, what));
    *out = value;
    return Status::Ok();
  }
  // The value as it is (extra_body, merge).
  std::optional<nlohmann::json> Raw(std::string_view key) {
    const auto it = rest_.find(key);
    if (it == rest_.end()) return std::nullopt;
    nlohmann::json v = std::move(*it);
    rest_.erase(it);
    return v;
  }
  bool Has(std::string_view key) const { return rest_.contains(key); }
  Status Wrong(std::string_view key, const nlohmann::json& value, std::string_view what) const {
    return Status::InvalidArgument(
        fmt::format("{}: the manifest's {} {} is not {}", where_, key, value.dump(), what));
  }
  nlohmann::json TakeRest() { return std::move(rest_); }

 private:
  template <typename T>
  Status Take(std::string_view key, T* out, std::string_view what) {
    const auto it = rest_.find(key);
    if (it == rest_.end()) return Status::Ok();
    try {
      *out = it->get<T>();
    } catch (const nlohmann::json::exception&) {
      return Wrong(key, *it, what);
    }
    rest_.erase(it);
    return Status::Ok();
  }

  nlohmann::json rest_;
  std::string_view where_;
};

StatusOr<MergedShards> MergeFromJson(const nlohmann::json& m, const Reader& r) {
  if (!m.is_object()) return r.Wrong("merge", m, "an object");
  MergedShards out;
  if (const auto n = m.find("shard_count"); n != m.end() && n->is_number_integer()) {
    out.shard_count = n->get<int>();
  }
  if (const auto s = m.find("shards"); s != m.end() && s->is_array()) {
    for (const auto& v : *s) {
      if (v.is_string()) out.shards.push_back(v.get<std::string>());
    }
  }
  if (const auto u = m.find("unsharded"); u != m.end() && u->is_boolean()) {
    out.unsharded = u->get<bool>();
  }
  return out;
}

}  // namespace

bool IsBuiltinModel(std::string_view model) { return model.starts_with(kBuiltinPrefix); }

std::string ProviderOfEndpoint(std::string_view endpoint) {
  return std::string(endpoint.substr(0, endpoint.find(' ')));
}

std::string_view BuiltinResponderOf(std::string_view model) {
  return IsBuiltinModel(model) ? model.substr(kBuiltinPrefix.size()) : "";
}

StatusOr<RunManifest> RunManifest::FromJson(const nlohmann::json& j, std::string_view where) {
  if (!j.is_object()) {
    return Status::InvalidArgument(fmt::format("{}: the manifest is not a JSON object", where));
  }
  RunManifest m;
  Reader r(j, where);
  RETURN_IF_ERROR(r.Text("model", &m.model));
  RETURN_IF_ERROR(r.Text("endpoint", &m.endpoint));
  RETURN_IF_ERROR(r.TextList("endpoints", &m.endpoints));
  RETURN_IF_ERROR(r.Number("max_tokens", &m.max_tokens, "a whole number"));
  // Before the temperature default, a run without --temperature stored null or nothing.
  RETURN_IF_ERROR(r.Optional("temperature", &m.temperature, "a number"));
  RETURN_IF_ERROR(r.Text("system", &m.system));
  RETURN_IF_ERROR(r.Optional("top_p", &m.top_p, "a number"));
  RETURN_IF_ERROR(r.TextList("stop", &m.stop));
  RETURN_IF_ERROR(r.Optional("sampling_seed", &m.sampling_seed, "a whole number"));
  RETURN_IF_ERROR(r.Text("reasoning_effort", &m.reasoning_effort));
  RETURN_IF_ERROR(r.Optional("thinking_budget", &m.thinking_budget, "a whole number"));
  if (auto extra = r.Raw("extra_body")) m.extra_body = std::move(*extra);
  RETURN_IF_ERROR(r.TextList("headers", &m.headers));
  RETURN_IF_ERROR(r.Text("samples", &m.samples));
  if (m.samples.empty()) {
    // A samples run has no suite: anything of one stays among the unknown keys.
    RETURN_IF_ERROR(r.Text("suite", &m.suite));
    RETURN_IF_ERROR(r.Number("seed", &m.seed, "a whole number"));
    RETURN_IF_ERROR(r.Number("size", &m.size, "a number"));
    // Before `run --rules-per-sample`, a composed run stored none: the default.
    RETURN_IF_ERROR(r.Number("rules_per_sample", &m.rules_per_sample, "a whole number"));
  }
  RETURN_IF_ERROR(r.TextList("tasks", &m.tasks));
  for (const auto& [key, file] : {std::pair{"documents", &m.documents},
                                  {"mbpp", &m.mbpp},
                                  {"apps", &m.apps},
                                  {"gsm8k", &m.gsm8k}}) {
    RETURN_IF_ERROR(r.Text(key, file));
  }
  // Before --limit, a run stored no "limit": the whole suite.
  RETURN_IF_ERROR(r.Optional("limit", &m.limit, "a whole number of samples"));
  if (r.Has("shard")) RETURN_IF_ERROR(r.Text("shard", &m.shard));
  // Before --repeats, a run stored no "repeats": each sample asked once.
  if (auto repeats = r.Raw("repeats")) {
    if (!repeats->is_number_integer() || repeats->get<int64_t>() < 1 ||
        repeats->get<int64_t>() > RunStore::kMaxRepeats) {
      return Status::InvalidArgument(
          fmt::format("{}: the manifest's repeats {} is not a whole number from 1 to {}", where,
                      repeats->dump(), RunStore::kMaxRepeats));
    }
    m.repeats = repeats->get<int64_t>();
  }
  if (auto merge = r.Raw("merge")) {
    ASSIGN_OR_RETURN(m.merge, MergeFromJson(*merge, r));
  }
  RETURN_IF_ERROR(r.Text("structtest_version", &m.structtest_version));
  if (auto versions = r.Raw("rules_versions")) {
    try {
      m.rules_versions = versions->get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception&) {
      return r.Wrong("rules_versions", *versions, "an object of texts");
    }
  }
  m.other = r.TakeRest();
  return m;
}

nlohmann::json RunManifest::ToJson() const {
  nlohmann::json j = other;
  j["model"] = model;
  j["endpoint"] = endpoint;
  j["max_tokens"] = max_tokens;
  // Only with replicas, so a one-endpoint manifest is what it was before them.
  if (!endpoints.empty()) j["endpoints"] = endpoints;
  j["temperature"] = temperature ? nlohmann::json(*temperature) : nlohmann::json();
  // Only the controls given, so a run without them has the identity it had before them.
  if (!system.empty()) j["system"] = system;
  if (top_p) j["top_p"] = *top_p;
  if (!stop.empty()) j["stop"] = stop;
  if (sampling_seed) j["sampling_seed"] = *sampling_seed;
  if (!reasoning_effort.empty()) j["reasoning_effort"] = reasoning_effort;
  if (thinking_budget) j["thinking_budget"] = *thinking_budget;
  if (!extra_body.is_null()) j["extra_body"] = extra_body;
  if (!headers.empty()) j["headers"] = headers;
  if (!samples.empty()) {
    j["samples"] = samples;
    // Only when given, so a manifest written before --tasks filtered samples reads the same.
    if (!tasks.empty()) j["tasks"] = tasks;
  } else {
    j["suite"] = suite;
    j["seed"] = seed;
    j["size"] = size;
    j["tasks"] = tasks;
    // Only off the composed suite's default, so the runs stored before it read the same.
    if (rules_per_sample != 0) j["rules_per_sample"] = rules_per_sample;
  }
  for (const auto& [key, file] : {std::pair{"documents", &documents},
                                  {"mbpp", &mbpp},
                                  {"apps", &apps},
                                  {"gsm8k", &gsm8k}}) {
    if (!file->empty()) j[key] = *file;
  }
  // Null without --limit, which is also what a run stored before --limit existed gives.
  j["limit"] = limit ? nlohmann::json(*limit) : nlohmann::json();
  // Only in shard runs, so an unsharded run's manifest is what it was before --shard.
  if (!shard.empty()) j["shard"] = shard;
  // Only with --repeats above 1, so a run asking each sample once is what it was before
  // (and below 1, which reading it back refuses).
  if (repeats != 1) j["repeats"] = repeats;
  if (merge) {
    nlohmann::json shards = nlohmann::json::array();
    for (const std::string& s : merge->shards) shards.push_back(s);
    j["merge"] = {{"shard_count", merge->shard_count ? nlohmann::json(*merge->shard_count)
                                                     : nlohmann::json()},
                  {"shards", std::move(shards)},
                  {"unsharded", merge->unsharded}};
  }
  if (!structtest_version.empty()) j["structtest_version"] = structtest_version;
  if (!rules_versions.empty()) j["rules_versions"] = rules_versions;
  return j;
}

nlohmann::json RunManifest::RequestSettings() const {
  const nlohmann::json j = ToJson();
  nlohmann::json out = nlohmann::json::object();
  for (const std::string_view key :
       {"model", "max_tokens", "temperature", "system", "top_p", "stop", "sampling_seed",
        "reasoning_effort", "thinking_budget", "extra_body", "headers"}) {
    if (const auto it = j.find(key); it != j.end()) out[std::string(key)] = *it;
  }
  return out;
}

std::vector<ManifestDifference> DiffManifests(const RunManifest& was, const RunManifest& now) {
  const nlohmann::json a = was.ToJson();
  const nlohmann::json b = now.ToJson();
  std::vector<ManifestDifference> out;
  for (const auto& [key, value] : b.items()) {
    if (key == "endpoints") continue;
    const nlohmann::json old = a.value(key, nlohmann::json());
    const bool differs = key == "endpoint" && old.is_string() && value.is_string()
                             ? ProviderOfEndpoint(old.get<std::string>()) !=
                                   ProviderOfEndpoint(value.get<std::string>())
                             : old != value;
    if (differs) out.push_back({key, old, value});
  }
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) && key != "endpoints") out.push_back({key, value, std::nullopt});
  }
  return out;
}

}  // namespace structtest
