// RunManifest: what defines a run (the model and endpoint it asked, the request
// settings, the suite or samples file, the limit, shard and repeats) and what wrote it
// (the structtest and checker versions), as a run directory stores it. This file holds
// its one JSON codec, which also upgrades the shapes older run directories hold, and
// the field-by-field comparison that resume, grow and merge use to refuse another run.
// No other file reads the manifest's JSON keys.
//
// The JSON written for a run is what structtest always wrote: a key per setting given,
// keys that did not exist when older runs were stored appear only when set (so those
// runs keep their identity), "temperature" and "limit" always (null: none).
#ifndef STRUCTTEST_STORE_RUN_MANIFEST_H_
#define STRUCTTEST_STORE_RUN_MANIFEST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/status.h"

namespace structtest {

// The shards a merged run holds (`structtest merge`, store/merge.h).
struct MergedShards {
  std::optional<int> shard_count;   // N of the I/N shards merged; none: no shard
  std::vector<std::string> shards;  // "1/3", ... as merged
  bool unsharded = false;           // it holds a whole (unsharded) run
};

std::string_view BuiltinResponderOf(std::string_view model);

struct RunManifest {
  // Not an aggregate: a braced list such as {{"model", "m"}, {"repeats", 2}}, the JSON
  // the manifest once was, would otherwise compile, as strings made of two pointers.
  RunManifest() = default;

  // How the run was asked.
  std::string model;     // "openai/gpt-4o-mini", "builtin/oracle"
  std::string endpoint;  // "PROVIDER URL": "openai https://api.openai.com/v1"
  std::vector<std::string> endpoints;  // the replicas' public URLs; empty with one
  int64_t max_tokens = 0;
  std::optional<double> temperature;  // none: the provider's default
  // The request controls (backends/request_controls.h); unset ones are not stored.
  std::string system;
  std::optional<double> top_p;
  std::vector<std::string> stop;
  std::optional<int64_t> sampling_seed;
  std::string reasoning_effort;
  std::optional<int64_t> thinking_budget;
  nlohmann::json extra_body;         // a JSON object, or null: none
  std::vector<std::string> headers;  // --header names, lower-cased and sorted

  // What was asked: a samples file, else a generated suite.
  std::string samples;  // "PATH fnv1a:HEX" (FileFingerprint); "": a suite run
  std::string suite;
  uint64_t seed = 0;
  double size = 1.0;
  std::vector<std::string> tasks;
  // The composed suite's format rules per sample; 0: its default (3), or another suite.
  int rules_per_sample = 0;
  std::string documents, mbpp, apps, gsm8k;  // the data files' fingerprints, or ""
  std::optional<uint64_t> limit;             // none: the whole suite
  std::string shard;                         // "I/N", or "" for a whole run
  int64_t repeats = 1;                       // asks per sample
  std::optional<MergedShards> merge;         // set for a merged run

  // What wrote it; empty in an identity that is not stored yet.
  std::string structtest_version;
  std::map<std::string, std::string> rules_versions;  // family -> checker version

  // Keys this build does not know (a newer structtest wrote them): kept as they are,
  // written back and compared.
  nlohmann::json other = nlohmann::json::object();

  // The manifest from its stored JSON; older shapes are upgraded: no "temperature" or
  // "limit" key reads as null, no "repeats" as 1. Errors name `where` and the key: a
  // value of the wrong type, a "repeats" that is not a whole number from 1 to
  // RunStore::kMaxRepeats.
  static StatusOr<RunManifest> FromJson(const nlohmann::json& j, std::string_view where);
  // The stored JSON (keys in order, as nlohmann writes objects).
  nlohmann::json ToJson() const;

  // The request settings as `run --dry-run` and the run's info show them: "model",
  // "max_tokens", "temperature" and the controls that are set.
  nlohmann::json RequestSettings() const;
  // The built-in responder that answered the run (its model is "builtin/NAME"): NAME,
  // or "" for a model's run.
  std::string_view BuiltinResponder() const { return BuiltinResponderOf(model); }
};

// Whether `model` names a built-in responder ("builtin/NAME").
bool IsBuiltinModel(std::string_view model);
// NAME of a `model` "builtin/NAME"; "" for any other model.
std::string_view BuiltinResponderOf(std::string_view model);

// "openai http://host/v1" -> "openai": what of an endpoint defines a run, since replicas
// of one model may serve parts of it.
std::string ProviderOfEndpoint(std::string_view endpoint);

// One setting in which two manifests differ, by its JSON key.
struct ManifestDifference {
  std::string field;
  nlohmann::json was;                // in the first manifest (null when it has none)
  std::optional<nlohmann::json> now; // in the second, if it has the field
};

// The fields in which `now` differs from `was`: first those `now` has, in key order,
// then those only `was` has. The replicas ("endpoints") never count and of "endpoint"
// only the provider does; a field one manifest lacks reads as null.
std::vector<ManifestDifference> DiffManifests(const RunManifest& was, const RunManifest& now);

}  // namespace structtest

#endif  // STRUCTTEST_STORE_RUN_MANIFEST_H_
