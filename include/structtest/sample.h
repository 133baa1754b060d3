// The data structtest moves around: a Sample (one benchmark item: a domain task plus
// format rules), the model's Response to it, and the Verdict a checker gives. These
// are the records of the JSONL files `structtest score` reads and writes.
#ifndef STRUCTTEST_SAMPLE_H_
#define STRUCTTEST_SAMPLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/status.h"

namespace structtest {

// One chat message of a prompt.
struct Message {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct Sample {
  std::string id;       // unique within a test set
  std::string domain;   // "summarization", "code", "html", "math"
  std::string subtask;  // e.g. "bullet_points", "html_hard"
  // The format properties the checker enforces (n_points, symbol, ...), exactly as the
  // reference evaluator received them.
  nlohmann::json params = nlohmann::json::object();
  // Everything else the checker needs (answer tags, source code, gold answer, ...).
  nlohmann::json context = nlohmann::json::object();
  std::vector<Message> messages;  // the prompt; empty for scored-only records
  nlohmann::json target;          // what a correct answer must contain; may be null
};

// What a model answered.
struct Response {
  std::string text;       // the final answer that is scored
  std::string reasoning;  // separated reasoning ("thinking"), never scored
};

// A reasoning model's thinking split from its final answer when both arrive in one
// text, as `run` and the Python adapters split them before scoring:
// - leading "<think>R</think>A" (after whitespace)  -> {A, R}
// - "R</think>A" with no "<think>" before the "</think>" (the chat template opened the
//   block) -> {A, R}
// - "<think>R" never closed (cut off while thinking) -> {"", R}
// - anything else -> {text, ""}
// The answer loses its leading whitespace when a block was removed.
Response SplitThinking(std::string_view text);

enum class RuleSet { kPaper, kStrict };

std::string_view RuleSetName(RuleSet rules);
StatusOr<RuleSet> ParseRuleSet(std::string_view name);

// One rule of a prompt (a count, a symbol, sentences per point, the answer's value...) as
// a checker found it. A rule a checker could not get to, because what it reads was not
// there (no list to count sentences in), is not checked.
struct RuleCheck {
  enum class Result : uint8_t { kPass, kFail, kNotChecked };
  std::string name;  // one of the subtask's rule names under its rule set (RuleNames())
  Result result = Result::kNotChecked;
  std::string detail;  // what was found, for a person; may be empty on a pass
};

std::string_view RuleResultName(RuleCheck::Result result);  // "pass", "fail", "not-checked"

// A verdict's partial credit: rules passed / rules listed; 1 on a pass, 0 on a fail that
// lists no rule.
double RulesScore(bool pass, const std::vector<RuleCheck>& checks);

struct Verdict {
  bool pass = false;
  // Why, for a person: "expected 5 bullet points, found 4". Also set on a pass.
  std::string reason;
  std::string_view rules = "paper";     // rule set name
  std::string_view rules_version;      // version of the checker that decided
  // Math only: the paper scores format and answer accuracy separately and a sample
  // passes when both hold.
  std::optional<bool> format;
  std::optional<bool> accuracy;
  // Every rule of the subtask under this rule set, in its declared order (the scorer
  // completes what the checker recorded): `pass` holds exactly when each one passes.
  std::vector<RuleCheck> checks;

  // Rules passed / rules checked, the partial credit of a verdict: 1 on a pass, below 1
  // on a fail (0 when no rule is listed).
  double score() const { return RulesScore(pass, checks); }
};

// A sample read from a JSONL record in the score format: the Sample fields plus
// "response" (and, when present, "reasoning"). Missing id/domain/subtask/response or a
// field of the wrong type is an InvalidArgument naming the field.
struct ScoredRecord {
  Sample sample;
  Response response;
};
StatusOr<ScoredRecord> RecordFromJson(const nlohmann::json& j);

// A sample from a JSONL record in the format `structtest generate` writes (no
// response needed). Errors name the missing or mistyped field.
StatusOr<Sample> SampleFromJson(const nlohmann::json& j);
// The same, taking the large fields (messages, target) out of `j` instead of copying.
StatusOr<Sample> SampleFromJson(nlohmann::json&& j);

// A generated sample as a JSONL record: id, domain, subtask, params, context, messages,
// target (the score format without a response).
nlohmann::json SampleToJson(const Sample& sample);

// A sample from its JSON text (a line of `structtest generate`, a stored row), as
// SampleFromJson reads it, a good deal faster; text that is not JSON sets *not_json
// (when given) and returns InvalidArgument. Without `with_prompt` the messages and the
// target are left out (they are most of a summarization sample; only strict checkers
// read the messages, and no checker the target).
StatusOr<Sample> SampleFromJsonText(std::string_view text, bool* not_json = nullptr,
                                    bool with_prompt = true);

// Appends the sample's JSON line as `structtest generate` writes it (the bytes of
// SampleToJson's dump, no newline) to *out.
void AppendSampleJson(const Sample& sample, std::string* out);

// A verdict's checks as the JSON array `score` writes ([{"detail", "name", "result"}]),
// and back: errors name the entry and field that is not one.
nlohmann::json ChecksToJson(const std::vector<RuleCheck>& checks);
StatusOr<std::vector<RuleCheck>> ChecksFromJson(const nlohmann::json& j);

// The output line of `structtest score` for one record.
nlohmann::json VerdictToJson(const Sample& sample, const Verdict& verdict);

}  // namespace structtest

#endif  // STRUCTTEST_SAMPLE_H_
