// One run's options made whole, before anything is asked or created: the public
// RunSuiteOptions (structtest/run.h), sanitized in place the way LevelDB's
// SanitizeOptions returns the same Options, and beside them what they say in the types
// the layers below take, each made once from its group.
//
// The design, from the public header down:
//   RunSuiteOptions = model, suite (GenerateOptions), samples, out, repeats,
//                     RequestSettings request, Transport transport, Budget budget,
//                     BatchSettings batch, ScoringSettings scoring, dry_run, quiet
//   ResolveRun (run_suite.cc) checks them whole and gives a ResolvedRun:
//     the options sanitized, plus: the model's spec, the request every prompt is sent
//     with (a ModelRequest without messages: RequestSettings typed and settled), the
//     parsed headers, the suite's shard, the price.
//   Each layer takes the piece it needs by const reference: the suite generator the
//   GenerateOptions; the client stack the Transport; Runner a RequestTemplate (the
//   request, its cache key's endpoint and header names), the ScoringSettings and the
//   Budget with the price; the batch runner the same plus the BatchSettings; the run's
//   identity (run_identity.h) the ResolvedRun. Nothing copies a group field by field
//   into a look-alike, and one function (RequestFor, runner.h) makes a sample's request.
#ifndef STRUCTTEST_RUNNER_RUN_OPTIONS_H_
#define STRUCTTEST_RUNNER_RUN_OPTIONS_H_

#include <optional>
#include <vector>

#include "backends/model_client.h"
#include "backends/providers.h"
#include "backends/request_controls.h"
#include "core/shard.h"
#include "report/cost.h"
#include "structtest/run.h"

namespace structtest {

struct ResolvedRun {
  // As given, sanitized: transport.base_urls holds the --endpoints file's URLs after the
  // given ones (endpoints_file is then ""); under -j auto transport.concurrency is
  // max_concurrency (the most per endpoint); scoring.score_jobs is resolved (1 or more).
  // Its request group is read only here, into `request` and `headers`: below, read those.
  RunSuiteOptions options;
  // The model behind an API; nullopt: the built-in responders.
  std::optional<ModelSpec> spec;
  // What every request carries besides the sample's messages: the provider's model name
  // ("" for the built-in responders), max_tokens, the temperature (the model's default
  // when none was given, see temperature_defaulted) and the controls (--system's file
  // read, --extra-body parsed). No messages, id 0.
  ModelRequest request;
  // Set when the temperature was not given and request.temperature is
  // DefaultTemperature's: a run stored without one keeps none (KeepStoredTemperature).
  bool temperature_defaulted = false;
  std::vector<HttpHeader> headers;  // options.request.headers, parsed
  // The part of the suite the run asks (options.suite's shard); nullopt: all of it.
  std::optional<Shard> shard;
  // What the run is costed at (ResolvePrice); nullopt: unknown, or built-in responders.
  std::optional<Price> price;
};

}  // namespace structtest

#endif  // STRUCTTEST_RUNNER_RUN_OPTIONS_H_
