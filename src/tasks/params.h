// Typed, non-throwing access to a sample's params and context (JSON objects), and the
// flat struct a sample's params are parsed into once, for its checkers. Errors name the
// field: "params.n_points: expected an integer, found string".
#ifndef STRUCTTEST_TASKS_PARAMS_H_
#define STRUCTTEST_TASKS_PARAMS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/status.h"

namespace structtest {

namespace math_internal {
struct MathFormat;
}  // namespace math_internal

// `where` is "params" or "context"; it only appears in messages.
StatusOr<int64_t> GetInt(const nlohmann::json& obj, std::string_view where,
                         std::string_view key);
// As GetInt, and the value must lie in [lo, hi].
StatusOr<int64_t> GetIntInRange(const nlohmann::json& obj, std::string_view where,
                                std::string_view key, int64_t lo, int64_t hi);
// Returns a pointer into `obj` (valid while obj lives).
StatusOr<const std::string*> GetString(const nlohmann::json& obj,
                                       std::string_view where, std::string_view key);
StatusOr<bool> GetBool(const nlohmann::json& obj, std::string_view where,
                       std::string_view key);
StatusOr<const nlohmann::json*> GetField(const nlohmann::json& obj,
                                         std::string_view where, std::string_view key);

// ---- The flat params of a sample -------------------------------------------------
//
// A family parses a sample's params once (TaskFamily::parse_params) into the flat
// struct below, for the rule set it is scored under, and its checkers read members,
// never the JSON object. Each key any of the family's subtasks reads is a Param: its value, or the
// error a checker returns when it needs the key (missing, mistyped, out of range,
// worded as GetIntInRange and GetString word it). A checker asks for its keys in the
// order it always did, so a sample with several problems reports the same first one;
// a key its subtask does not read is never asked for, whatever it holds.

// "params.KEY: missing" (or "params: expected an object") is made only when asked for,
// and a Param holds no Status until it has an error: most samples lack most keys of
// their family, and a sample's params are parsed on the hot path of scoring.
template <typename T>
class Param {
 public:
  explicit constexpr Param(std::string_view key) : key_(key) {}

  void Set(T value) {
    value_ = std::move(value);
    state_ = State::kOk;
  }
  void Set(StatusOr<T> v) {
    if (v.ok()) {
      Set(std::move(v).value());
    } else {
      error_ = std::make_unique<Status>(v.status());
      state_ = State::kError;
    }
  }
  // The params are not an object: every key reads as GetField words it.
  void SetNotObject() { state_ = State::kNotObject; }

  bool ok() const { return state_ == State::kOk; }
  // REQUIRES: ok().
  const T& value() const { return value_; }
  StatusOr<T> get() const {
    if (ok()) return value_;
    return status();
  }
  Status status() const;

 private:
  enum class State { kMissing, kOk, kError, kNotObject };
  std::string_view key_;
  State state_ = State::kMissing;
  T value_{};
  std::unique_ptr<Status> error_;  // set in kError
};

// The messages of a key that is not there.
Status MissingParam(std::string_view key);
Status ParamsNotObject();

template <typename T>
Status Param<T>::status() const {
  switch (state_) {
    case State::kOk: return Status::Ok();
    case State::kMissing: return MissingParam(key_);
    case State::kError: return *error_;
    case State::kNotObject: return ParamsNotObject();
  }
  return Status::Ok();
}

// The value of params.KEY as GetIntInRange(params, "params", KEY, lo, hi) reads it.
StatusOr<int64_t> IntParam(const nlohmann::json& value, std::string_view key, int64_t lo,
                           int64_t hi);
// As GetString reads it; a view into `value`.
StatusOr<std::string_view> StringParam(const nlohmann::json& value, std::string_view key);

// Summarization: the counts (each in [0, 1000], the total in [0, 10^6]) and the symbol
// (not empty).
struct SummarizationParams {
  Param<int64_t> n_sentences{"n_sentences"};
  Param<int64_t> n_points{"n_points"};
  Param<int64_t> n_subpoints{"n_subpoints"};
  Param<int64_t> n_sentences_per_point{"n_sentences_per_point"};
  Param<int64_t> n_sentences_total{"n_sentences_total"};
  Param<std::string_view> symbol{"symbol"};
};

// HTML. The tags of the prompt, in the order of HtmlParams::no_of_tags.
inline constexpr std::array<std::string_view, 9> kHtmlTagNames = {
    "html", "head", "title", "body", "div", "footer", "h1", "h2", "p"};
struct HtmlTagCount {
  std::string_view name;  // a view into the sample's params
  int64_t count;
};
struct HtmlParams {
  HtmlParams() = default;
  HtmlParams(const HtmlParams&) = delete;  // ground_truth points into it
  HtmlParams& operator=(const HtmlParams&) = delete;

  // The paper's (parsed for it alone): ground_truth, (tag, count) in the object's key
  // order, each count in [0, 10^9]; a view into ground_truth_storage.
  Param<std::span<const HtmlTagCount>> ground_truth{"ground_truth"};
  std::vector<HtmlTagCount> ground_truth_storage;
  // Ok (true) unless params.mode is not a string or asks for 'nested_eval' (not
  // implemented); a sample without a mode is the paper's.
  Param<bool> mode{"mode"};
  // The strict rule set's (parsed for it alone): no_of_tags, how many of each tag
  // (kHtmlTagNames) under its one parent, checked against ground_truth when that is
  // given.
  Param<std::array<int64_t, kHtmlTagNames.size()>> no_of_tags{"no_of_tags"};
};

// Math: math_format_name, and the format it names (null when it names none).
struct MathParams {
  Param<std::string_view> format_name{"math_format_name"};
  const math_internal::MathFormat* format = nullptr;
};

// What TaskFamily::parse_params fills: the member of the sample's family (the others
// keep their defaults). Views point into the sample's params, which must outlive it.
struct SampleParams {
  SummarizationParams summarization;
  HtmlParams html;
  MathParams math;
};

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_PARAMS_H_
