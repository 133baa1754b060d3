// The identity of a run: the settings that define it, stored as the run directory's
// manifest, so that the same command finds its run again and resumes it, and another
// command is refused instead of mixing two runs in one directory. A larger --limit is
// the one change a run may take: it grows.
#ifndef STRUCTTEST_RUNNER_RUN_IDENTITY_H_
#define STRUCTTEST_RUNNER_RUN_IDENTITY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/run_options.h"
#include "structtest/status.h"

namespace structtest {

// "http://user:pass@host/v1?key=x" -> "http://host/v1": what a store or report may show.
std::string PublicEndpoint(std::string url);

// "runs/" plus a name made from what defines the run (model, suite or samples file,
// limit, shard), so the same command finds the same directory again.
std::string DefaultRunDir(const RunSuiteOptions& opt);

// "PATH fnv1a:HEX" of a regular file's bytes (the absolute path alone for a folder), so
// a run directory refuses a data file that changed since the run began.
StatusOr<std::string> FileFingerprint(const std::string& path);

// The settings that define a run asked of `endpoint` ("openai http://host/v1"): keys
// appear only when they are given, so that a run stored before a setting existed keeps
// its identity. Errors: a data file that cannot be read.
StatusOr<nlohmann::json> RunIdentity(const ResolvedRun& run, const std::string& endpoint);

// What the run directory stores: `identity` plus the structtest version and the checker
// versions of `rules`.
nlohmann::json RunManifest(RuleSet rules, const nlohmann::json& identity);

// The keys that make `identity` another run than the `stored` manifest's: the
// identity's keys whose value differs (a key the manifest lacks reads as null; for
// "endpoint" only the provider counts), then the manifest's keys the identity lacks.
// The replicas ("endpoints") and the versions that wrote the manifest do not count.
std::vector<std::string> DifferingKeys(const nlohmann::json& stored,
                                       const nlohmann::json& identity);

// Refuses the directory `dir` whose run (`stored`) another command made, naming the
// first key that differs, with its old and new values. The model name and the
// generation settings define a run, not the hosts serving it: a run may resume on
// another set of replicas (of the same provider's API).
Status CheckSameRun(std::string_view dir, const nlohmann::json& stored,
                    const nlohmann::json& identity);

// A run directory made before structtest had a temperature default holds none (null:
// the provider's default) and keeps it when resumed without --temperature, which the
// default would make another run: resets run->request.temperature then.
void KeepStoredTemperature(const std::optional<nlohmann::json>& stored, ResolvedRun* run);

// Whether `identity` is the stored run's with a larger limit (or none where it had
// one): the same suite's first samples, so the run may grow.
bool LimitGrows(const nlohmann::json& stored, const nlohmann::json& identity);

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_RUN_IDENTITY_H_
