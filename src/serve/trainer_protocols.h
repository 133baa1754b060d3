// The reward-server protocols of RL trainers that `structtest serve` answers, as their
// own source makes the calls: OpenRLHF's remote reward model (POST /get_reward, from
// openrlhf/utils/agent.py, SingleTurnAgentExecutor._fetch_rewards_via_http, at OpenRLHF
// 3c3be6234e0cb353e76bb8019947db9dfe99fca7) and slime's remote reward (POST
// /slime/reward, from slime/rollout/rm_hub/__init__.py, remote_rm, at slime
// 624b824a898ab0ec1fcb4d373004c7f3852bf515). Requests in, records to score out; verdicts
// in, reply bodies out. Nothing here scores or does I/O: ScoreService does the scoring.
//
// Both trainers pass the structtest sample as the label (their datasets' --label_key
// column): a JSON object, or its JSON text. Their payloads cannot carry options, so the
// options ride in the URL the trainer is given (?rules=paper&partial=1).
#ifndef STRUCTTEST_SERVE_TRAINER_PROTOCOLS_H_
#define STRUCTTEST_SERVE_TRAINER_PROTOCOLS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// Request bodies nest arrays and objects at most this deep: nlohmann parses any depth
// without recursion, but copies and destroys values recursively. A sample's params and
// context are a few levels deep.
inline constexpr size_t kMaxJsonDepth = 64;
// Whether arrays and objects in `text` nest deeper than kMaxJsonDepth (brackets inside
// strings do not count).
bool NestedTooDeep(std::string_view text);

// The endpoints `serve` scores at.
enum class Endpoint { kScore, kOpenRlhf, kSlime };
std::string_view EndpointPath(Endpoint endpoint);  // "/v1/score", ...

// The options of a reward request, from its URL's query:
//   rules=paper|strict   the rule set (default: the server's, strict);
//   partial=0|1          reward the share of rules passed instead of 1.0/0.0 (default 0);
//   details=0|1          slime only: reply a dict of the verdict instead of a number.
// "true"/"false" are read as 1/0, and a name alone ("?details") as 1.
struct RewardParams {
  RuleSet rules = RuleSet::kStrict;
  bool partial = false;
  bool details = false;
};

// The URL query's (name, value) pairs, in order; a name without '=' has an empty value.
using QueryArgs = std::vector<std::pair<std::string, std::string>>;

// `args` read for `endpoint`, starting from `defaults`. Errors name the argument:
// "URL parameter 'rule': unknown (/get_reward takes rules, partial)". /v1/score takes none
// (its body holds "rules").
StatusOr<RewardParams> ParseRewardParams(Endpoint endpoint, const QueryArgs& args,
                                         const RewardParams& defaults);

// `text` without the end-of-turn tokens at its end (any of `end_tokens`, as many as are
// there, in any order): a decoded response keeps its tokenizer's end token when special
// tokens are not skipped, and a checker must not read it as the answer's last line.
std::string_view StripEndTokens(std::string_view text, std::span<const std::string> end_tokens);

// The response in an OpenRLHF query: what follows `prompt` when `query` begins with it.
// Otherwise, when the query begins with the prompt's last bytes (OpenRLHF cuts a prompt
// too long for its budget from the left, then decodes what is left with the response),
// what follows the longest such end of the prompt, provided it is at least
// kMinPromptOverlap bytes (or the whole prompt, when shorter). Else an error saying how
// far the two agree.
inline constexpr size_t kMinPromptOverlap = 32;
StatusOr<std::string_view> ResponseOfQuery(std::string_view query, std::string_view prompt);

// The structtest sample a trainer passes as a label: a JSON object, or a string holding
// one (JSON text). Keys whose value is null are dropped at any depth first: a dataset
// stores a column of objects (Arrow's struct) with every row's keys, a row's missing ones
// as null, and no sample holds a null. Errors say what the label is instead.
StatusOr<Sample> SampleFromLabel(const nlohmann::json& label);

// An OpenRLHF request body {"query": [...], "prompts": [...], "labels": [...]}: one record
// a query, the response cut out of the query (ResponseOfQuery, StripEndTokens, then
// SplitThinking). Members other than these are ignored (the trainer's, not ours to
// refuse). Errors name the item: "labels[3]: not a structtest sample: missing field
// 'subtask'", "query[1]: does not begin with its prompt (812 bytes), nor ...".
StatusOr<std::vector<ScoredRecord>> OpenRlhfRecords(const nlohmann::json& body,
                                                    std::span<const std::string> end_tokens);

// OpenRlhfRecords of the body's text, read without building nlohmann values (simdjson,
// the labels through SampleFromJsonText): the hot path of /get_reward. nullopt when the
// text is not one it reads, or not all is well (a label that is not a string or holds
// "null", an item refused): OpenRlhfRecords of the parsed body then gives the records or
// the error, so both agree.
std::optional<std::vector<ScoredRecord>> OpenRlhfRecordsFast(
    std::string_view body, std::span<const std::string> end_tokens);

// A slime request body {"prompt", "response", "label"}: the record, its response.text the
// answer scored (the response through StripEndTokens and SplitThinking). The prompt is
// not read: the label holds it. Errors name the member.
StatusOr<ScoredRecord> SlimeRecord(const nlohmann::json& body,
                                   std::span<const std::string> end_tokens);

// The reward of a verdict: 1.0 or 0.0, or with `partial` the share of rules passed.
double RewardOf(const Verdict& verdict, bool partial);

// The first rule of a failing verdict that did not pass ("" on a pass).
std::string FailedRule(const Verdict& verdict);

// OpenRLHF's reply: {"rewards": [...], "scores": [...] (the same), "extra_logs":
// {"structtest_pass": [1.0 or 0.0, ...], "structtest_rule_share": [...]}, "rules": ...}.
// extra_logs holds numbers only: OpenRLHF makes a tensor of each value.
std::string OpenRlhfReply(std::span<const Verdict> verdicts, const RewardParams& params);

// slime's reply: the reward as a JSON number; with `details`, {"reward", "pass", "score",
// "rules", "rules_version", "failed_rule", "reason", "checks"} (slime reads the reward
// with --reward-key reward).
std::string SlimeReply(const Verdict& verdict, const RewardParams& params);

}  // namespace structtest

#endif  // STRUCTTEST_SERVE_TRAINER_PROTOCOLS_H_
