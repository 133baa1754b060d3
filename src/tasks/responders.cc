#include "tasks/responders.h"

#include <fmt/format.h>

#include "core/status_macros.h"
#include "tasks/registry.h"

namespace structtest {

std::vector<std::string_view> BuiltinResponderNames() {
  return {"oracle", "null", "echo", "skeleton", "loophole"};
}

StatusOr<std::string> BuiltinRespond(std::string_view name, const Sample& sample) {
  if (name == "oracle") {
    const auto it = sample.target.is_object() ? sample.target.find("answer") : sample.target.end();
    if (!sample.target.is_object() || it == sample.target.end() || !it->is_string()) {
      return Status::InvalidArgument(fmt::format(
          "sample '{}': no target.answer for the oracle to return", sample.id));
    }
    return it->get<std::string>();
  }
  if (name == "null") return std::string();
  if (name == "echo") {
    std::string out;
    for (const Message& m : sample.messages) {
      if (m.role != "user") continue;
      if (!out.empty()) out += "\n\n";
      out += m.content;
    }
    return out;
  }
  if (name == "skeleton" || name == "loophole") {
    ASSIGN_OR_RETURN(SubtaskRef ref, FindSubtask(sample.domain, sample.subtask));
    const CheatFn cheat = name == "skeleton" ? ref.spec->skeleton : ref.spec->loophole;
    if (cheat == nullptr) return std::string();
    return cheat(sample);
  }
  return Status::NotFound(fmt::format("unknown built-in responder '{}' (expected oracle, null, "
                                      "echo, skeleton or loophole)",
                                      name));
}

}  // namespace structtest
