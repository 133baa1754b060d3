// `structtest tasks`: the subtasks this build knows, generated from the registry.
#include <cstdio>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "structtest/checker.h"

namespace structtest::cli {

void SetupTasks(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("tasks", "List every subtask with its split, params "
                                              "and rules version");
  auto show_rules = std::make_shared<bool>(false);
  cmd->add_flag("--rules", *show_rules,
                "list the rules each subtask's checkers check, in their order (the names "
                "of a verdict's checks), instead");
  cmd->callback([exit_code, show_rules]() {
    std::string out;
    if (*show_rules) {
      for (const SubtaskInfo& t : Subtasks()) {
        for (const auto& [rules, names] : {std::pair{"paper", &t.paper_rules},
                                           std::pair{"strict", &t.strict_rules}}) {
          out += fmt::format("{:<14} {:<24} {:<6} {}\n", t.domain, t.name, rules,
                             names->empty() ? "-" : fmt::format("{}", fmt::join(*names, " ")));
        }
      }
    } else {
      out = fmt::format("{:<14} {:<24} {:<5} {:<8} {:<9} {}\n", "domain", "subtask", "split",
                        "paper", "strict", "params");
      for (const SubtaskInfo& t : Subtasks()) {
        out += fmt::format("{:<14} {:<24} {:<5} {:<8} {:<9} {}\n", t.domain, t.name, t.split,
                           t.paper_version.empty() ? "-" : t.paper_version,
                           t.strict_version.empty() ? "-" : t.strict_version,
                           t.params.empty() ? "-" : t.params);
      }
    }
    std::fputs(out.c_str(), stdout);
    *exit_code = kExitOk;
  });
}

}  // namespace structtest::cli
