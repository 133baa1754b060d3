// The subcommands of the structtest binary. Each Setup* adds its CLI11 subcommand and
// arranges for *exit_code to be set when it runs. Exit codes: 0 done; 1 finished with
// failures (malformed lines, records that could not be scored); 2 usage or fatal error.
#ifndef STRUCTTEST_CLI_COMMANDS_H_
#define STRUCTTEST_CLI_COMMANDS_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "structtest/run_reader.h"

namespace structtest {
class SentenceSplitter;
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
void SetupRescore(CLI::App& app, int* exit_code);
void SetupServe(CLI::App& app, int* exit_code);
void SetupImport(CLI::App& app, int* exit_code);

// The one table of the library's option fields and the flags that set them
// (flag_table.cc). The library names a field in its messages in backticks
// (`transport.concurrency`, `tasks`: the path in RunSuiteOptions, or the field of
// GenerateOptions or ScoringSettings), so that a Python or C++ caller reads the name it
// set; the CLI shows its users the flag they typed instead (--concurrency): every error
// it prints goes through WithFlagNames (PrintError). `run` adds its options under the
// names the table gives them (FlagNames), so that a flag is spelled in one place.
//
// The flag of `field`; REQUIRES: the table has it.
std::string_view FlagOf(std::string_view field);
// CLI11's names of the flag of `field` (the flag and its short form, if any);
// REQUIRES: the table has it.
std::string FlagNames(std::string_view field);
// `message` with every `field` in backticks that the table knows replaced by its flag;
// anything else (a backtick in a server's error text, say) is left as it is.
std::string WithFlagNames(std::string_view message);

// "a, b,c" -> {"a", "b", "c"}: a comma-separated option value, items trimmed, empty
// ones dropped.
std::vector<std::string> SplitList(const std::string& list);

// Sets *out (a suite's limit) from --limit when it was given; false (with the error
// printed) when it is not a positive whole number.
bool ApplySampleLimit(const std::optional<std::string>& limit, size_t* out);

// --seed's check: a whole number from 0 to 2^64 - 1, written in decimal digits (CLI11
// alone would read "-3" as 2^64 - 3).
CLI::Validator SeedValidator();

// --tasks' check: the value names at least one subtask or domain; an empty one (an unset
// shell variable) is refused rather than read as the whole suite.
CLI::Validator TaskListValidator();

// Adds --score-jobs,-J N to `cmd`, read into *jobs (1 to 1024, checked as the flags are
// read); *jobs stays as it is when the flag is not given (0: the library's one per core).
void AddScoreJobsOption(CLI::App* cmd, int* jobs);

// --nltk-data's help, the same in every command that counts sentences.
inline constexpr const char* kNltkDataHelp =
    "folder holding tokenizers/punkt_tab/english, to count sentences with another copy "
    "of NLTK's Punkt model (default: the first such folder in $NLTK_DATA, else the "
    "built-in model, NLTK's English punkt_tab)";

// The Punkt model of `--nltk-data DIR` (empty: $NLTK_DATA's, else the built-in one);
// null, with the error printed naming the flag or the variable, when it does not load.
// (A shared_ptr: a command file can hold it without the model's header.)
std::shared_ptr<const SentenceSplitter> LoadSentenceSplitter(const std::string& nltk_data);

// A run read by `export` or `report`: its reader and the rule set `asked` chooses
// (RunReader::ChooseRuleSet); nullopt, with the error printed, when it does not open.
// (Their writers refuse an output that is one of the run's own files themselves.)
struct ReadRun {
  std::unique_ptr<RunReader> reader;
  RuleSet rules = RuleSet::kPaper;
};
std::optional<ReadRun> OpenRunToRead(const std::string& dir, const std::string& asked);

// --rules TEXT where leaving it out has a meaning of its own: "" -> nullopt in *rules.
// False, with the error printed, when TEXT names no rule set.
bool ParseOptionalRules(const std::string& text, std::optional<RuleSet>* rules);

// "structtest: error: MESSAGE" on stderr, the library's fields in MESSAGE shown as the
// flags that set them (WithFlagNames), as in PrintWarning and PrintNote.
void PrintError(std::string_view message);
void PrintWarning(std::string_view message);
// "structtest: MESSAGE" on stderr: what a person running the command should know.
void PrintNote(std::string_view message);

}  // namespace structtest::cli

#endif  // STRUCTTEST_CLI_COMMANDS_H_
