// `structtest tasks`: the subtasks this build knows, generated from the registry.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "tasks/registry.h"

namespace structtest::cli {

void SetupTasks(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("tasks", "List every subtask with its split, params "
                                              "and rules version");
  auto show_rules = std::make_shared<bool>(false);
  cmd->add_flag("--rules", *show_rules,
                "list the rules each subtask's checkers check, in their order (the names "
                "of a verdict's checks), instead");
  cmd->callback([exit_code, show_rules]() {
    if (*show_rules) {
      std::string out;
      for (const TaskFamily* f : Families()) {
        for (const SubtaskSpec& s : f->subtasks) {
          for (RuleSet rules : {RuleSet::kPaper, RuleSet::kStrict}) {
            std::string names;
            for (const RuleSpec& r : s.rule_specs(rules)) {
              names += fmt::format("{}{}", names.empty() ? "" : " ", r.name);
            }
            out += fmt::format("{:<14} {:<24} {:<6} {}\n", f->domain, s.name,
                               RuleSetName(rules), names.empty() ? "-" : names);
          }
        }
      }
      std::fputs(out.c_str(), stdout);
      *exit_code = kExitOk;
      return;
    }
    std::string out = fmt::format("{:<14} {:<24} {:<5} {:<8} {:<9} {}\n", "domain",
                                  "subtask", "split", "paper", "strict", "params");
    for (const TaskFamily* f : Families()) {
      for (const SubtaskSpec& s : f->subtasks) {
        out += fmt::format("{:<14} {:<24} {:<5} {:<8} {:<9} {}\n", f->domain, s.name,
                           SplitName(s.split), s.check_paper ? f->rules_version : "-",
                           s.check_strict ? f->strict_rules_version : "-",
                           s.params.empty() ? "-" : s.params);
      }
    }
    std::fputs(out.c_str(), stdout);
    *exit_code = kExitOk;
  });
}

}  // namespace structtest::cli
