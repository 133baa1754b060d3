// What the code family's paper and strict checkers share: sample fields, the worker
// pool, the worker's replies and the pieces of a reason.
#ifndef STRUCTTEST_TASKS_CODE_COMMON_H_
#define STRUCTTEST_TASKS_CODE_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/task.h"

namespace structtest {
namespace code_internal {

inline constexpr int kMaxInputs = 100;        // sanity bound for gen_n
inline constexpr int kJobMarginSeconds = 20;  // loading the source, the input lines
inline constexpr std::string_view kSplitMarker = "<SPLIT>";

Verdict MakeVerdict(bool pass, std::string reason);
Verdict Pass(std::string reason);

// 's' cut to `max` code points, quoted.
std::string Quote(std::string_view s, size_t max = 60);
std::string Plural(int64_t n, std::string_view word);

// nlohmann::json accessors that cannot throw, for the worker's replies.
std::string JsonString(const nlohmann::json& j, const char* key);
bool JsonHas(const nlohmann::json& j, const char* key);
bool JsonTrue(const nlohmann::json& j, const char* key);

StatusOr<std::string_view> Source(const Sample& sample);
// Function style (call the function named fn_name) or stdin style (run the program on
// an input): context.call_based when given, else whether fn_name is given.
StatusOr<bool> IsCallBased(const Sample& sample);
// context.gen_n, 5 when absent.
StatusOr<int64_t> GenN(const Sample& sample);
StatusOr<PythonPool*> Pool(const CheckEnv& env);
// Why a sandboxed job gave no result (time limit, killed, crashed).
std::string SandboxProblem(const nlohmann::json& r, std::string_view what);

}  // namespace code_internal
}  // namespace structtest

#endif  // STRUCTTEST_TASKS_CODE_COMMON_H_
