// The request controls of a run besides the model, its token limit and temperature: a
// system message, nucleus sampling, stop sequences, a sampling seed, a reasoning effort, a
// thinking budget and fields merged into every request body, each sent in the provider's
// own field (providers.h); and extra HTTP headers, which only the transport sees. Here
// they are read from their flags, checked, and written out for a response's cache key. Error messages name the field of RequestSettings (structtest/run.h) that
// set the control, in backticks (`request.top_p`); the CLI shows its flag instead.
#ifndef STRUCTTEST_BACKENDS_REQUEST_CONTROLS_H_
#define STRUCTTEST_BACKENDS_REQUEST_CONTROLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/status.h"

namespace structtest {

// Unset controls are not sent: the provider's default applies.
struct RequestControls {
  std::string system;                     // --system: a system message before every prompt
  std::optional<double> top_p;            // --top-p, in (0, 1]
  std::vector<std::string> stop;          // --stop, each non-empty
  std::optional<int64_t> seed;            // --sampling-seed, 0 to 2^31-1
  std::string reasoning_effort;           // --reasoning-effort: none, minimal, ..., xhigh
  std::optional<int64_t> thinking_budget; // --thinking-budget, in tokens
  // --extra-body: a JSON object merged into every request body, or null.
  nlohmann::json extra_body;
};

// One --header. The value may be a credential: it is sent, never stored or shown.
struct HttpHeader {
  std::string name;
  std::string value;
};

// "Name: value" -> {Name, value} (blanks around the value dropped). Errors: no colon, a
// name that is not an HTTP token, a line break, or a header structtest must write itself
// (Content-Type, Content-Length, Host, Transfer-Encoding, Expect).
StatusOr<HttpHeader> ParseHeaderFlag(std::string_view text);

// Whether `a` and `b` name the same header (names are case-insensitive).
bool SameHeaderName(std::string_view a, std::string_view b);

// A TEXT|@FILE value: the contents of FILE after '@', else the text itself. Errors
// name `field` (as given: "`request.system`"): an unreadable or empty file, an empty text.
StatusOr<std::string> ReadTextFlag(std::string_view field, std::string_view value);

// --extra-body's JSON|@FILE, which must be a JSON object.
StatusOr<nlohmann::json> ParseExtraBody(std::string_view value);

// The controls as a response's cache key holds them (the run's manifest, store/
// run_manifest.h, holds the same keys): a key per control that is set ("system", "top_p", "stop", "sampling_seed",
// "reasoning_effort", "thinking_budget", "extra_body"), and the names of the --header
// flags, lower-cased and sorted ("headers"; never their values). {} when nothing is
// set, so a run without controls has the identity it had before they existed.
nlohmann::json ControlsJson(const RequestControls& controls,
                            const std::vector<std::string>& header_names = {});
// The names of `headers`.
std::vector<std::string> HeaderNames(const std::vector<HttpHeader>& headers);

// Whether the OpenAI model `name` is one of its reasoning models (o1, o3, o4-mini,
// gpt-5, ...), which take max_completion_tokens and only their default temperature.
bool IsOpenAiReasoningModel(std::string_view name);

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_REQUEST_CONTROLS_H_
