// The subcommands of the structtest binary. Each Setup* adds its CLI11 subcommand and
// arranges for *exit_code to be set when it runs. Exit codes: 0 done; 1 finished with
// failures (malformed lines, records that could not be scored); 2 usage or fatal error.
#ifndef STRUCTTEST_CLI_COMMANDS_H_
#define STRUCTTEST_CLI_COMMANDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace structtest {
struct SuiteOptions;
}  // namespace structtest

namespace structtest::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;
inline constexpr int kExitFatal = 2;

void SetupScore(CLI::App& app, int* exit_code);
void SetupTasks(CLI::App& app, int* exit_code);
void SetupGenerate(CLI::App& app, int* exit_code);
void SetupRun(CLI::App& app, int* exit_code);
void SetupExport(CLI::App& app, int* exit_code);
void SetupReport(CLI::App& app, int* exit_code);
void SetupCompare(CLI::App& app, int* exit_code);
void SetupCorrelate(CLI::App& app, int* exit_code);
void SetupMerge(CLI::App& app, int* exit_code);

// "a, b,c" -> {"a", "b", "c"}: a comma-separated option value, items trimmed, empty
// ones dropped.
std::vector<std::string> SplitList(const std::string& list);

// Sets suite->limit from --limit when it was given; false (with the error printed)
// when it is not a positive whole number.
bool ApplySampleLimit(const std::optional<std::string>& limit, SuiteOptions* suite);

// "structtest: error: MESSAGE" on stderr.
void PrintError(std::string_view message);
void PrintWarning(std::string_view message);
// "structtest: MESSAGE" on stderr: what a person running the command should know.
void PrintNote(std::string_view message);

}  // namespace structtest::cli

#endif  // STRUCTTEST_CLI_COMMANDS_H_
