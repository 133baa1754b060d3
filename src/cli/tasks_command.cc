// `structtest tasks`: the subtasks this build knows, generated from the registry.
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "tasks/registry.h"

namespace structtest::cli {

void SetupTasks(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("tasks", "List every subtask with its split, params "
                                              "and rules version");
  cmd->callback([exit_code]() {
    std::string out = fmt::format("{:<14} {:<24} {:<5} {:<8} {:<11} {}\n", "domain",
                                  "subtask", "split", "rules", "scoring", "params");
    for (const TaskFamily* f : Families()) {
      for (const SubtaskSpec& s : f->subtasks) {
        out += fmt::format("{:<14} {:<24} {:<5} {:<8} {:<11} {}\n", f->domain, s.name,
                           SplitName(s.split), f->rules_version,
                           s.check_paper ? "paper" : "-", s.params.empty() ? "-" : s.params);
      }
    }
    std::fputs(out.c_str(), stdout);
    *exit_code = kExitOk;
  });
}

}  // namespace structtest::cli
