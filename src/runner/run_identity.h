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

#include "runner/run_options.h"
#include "store/run_manifest.h"
#include "structtest/status.h"

namespace structtest {

// "http://user:pass@host/v1?key=x" -> "http://host/v1": what a store or report may show.
std::string PublicEndpoint(std::string url);

// "runs/" plus a name made from what defines the run (model, suite or samples file,
// shard), so the same command finds the same directory again, and the same command with
// a larger limit grows the run there. The limit is not part of the name, except for a
// run an older structtest stored under a name with it (it is found there).
std::string DefaultRunDir(const RunSuiteOptions& opt);

// "PATH fnv1a:HEX" of a regular file's bytes (the absolute path alone for a folder), so
// a run directory refuses a data file that changed since the run began.
StatusOr<std::string> FileFingerprint(const std::string& path);

// The settings that define a run asked of `endpoint` ("openai http://host/v1"), as its
// manifest holds them (without the versions that write it). Errors: a data file that
// cannot be read.
StatusOr<RunManifest> RunIdentity(const ResolvedRun& run, const std::string& endpoint);

// What the run directory stores: `identity` with the structtest version and the checker
// versions of `rules`.
RunManifest StampedManifest(RuleSet rules, RunManifest identity);

// The fields that make `identity` another run than the `stored` manifest's
// (DiffManifests); the versions that wrote the manifest do not count.
std::vector<std::string> DifferingKeys(const RunManifest& stored, const RunManifest& identity);

// Refuses the directory `dir` whose run (`stored`) another command made, naming the
// first field that differs, with its old and new values. The model name and the
// generation settings define a run, not the hosts serving it: a run may resume on
// another set of replicas (of the same provider's API).
Status CheckSameRun(std::string_view dir, const RunManifest& stored, const RunManifest& identity);

// A run directory made before structtest had a temperature default holds none (null:
// the provider's default) and keeps it when resumed without --temperature, which the
// default would make another run: resets run->request.temperature then.
void KeepStoredTemperature(const std::optional<RunManifest>& stored, ResolvedRun* run);

// Whether `identity` is the stored run's with a larger limit (or none where it had
// one): the same suite's first samples, so the run may grow.
bool LimitGrows(const RunManifest& stored, const RunManifest& identity);

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_RUN_IDENTITY_H_
