#include "tasks/responders.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "tasks/composed/composed.h"
#include "tasks/registry.h"

namespace structtest {

std::vector<std::string_view> BuiltinResponderNames() {
  return {"oracle", "null", "echo", "skeleton", "loophole"};
}

namespace {

// P of "noisy-P": a decimal in [0, 1]; nullopt for any other name.
std::optional<double> NoisyP(std::string_view name) {
  if (!name.starts_with("noisy-")) return std::nullopt;
  const std::string_view p = name.substr(6);
  if (p.empty() || p.size() > 8 ||
      !std::all_of(p.begin(), p.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) ||
      std::count(p.begin(), p.end(), '.') > 1 || p.front() == '.') {
    return std::nullopt;
  }
  const double value = std::stod(std::string(p));
  if (value > 1) return std::nullopt;
  return value;
}

}  // namespace

bool IsBuiltinResponder(std::string_view name) {
  const auto names = BuiltinResponderNames();
  return std::find(names.begin(), names.end(), name) != names.end() || NoisyP(name).has_value();
}

StatusOr<std::string> BuiltinRespond(std::string_view name, const Sample& sample) {
  if (const auto p = NoisyP(name)) return NoisyComposedAnswer(sample, *p);
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
                                      "echo, skeleton, loophole or noisy-P, 0 <= P <= 1)",
                                      name));
}

}  // namespace structtest
