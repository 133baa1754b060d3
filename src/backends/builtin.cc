#include "backends/builtin.h"

#include <fmt/format.h>

namespace structtest {

std::vector<std::string_view> BuiltinResponderNames() { return {"oracle", "null", "echo"}; }

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
  return Status::NotFound(fmt::format("unknown built-in responder '{}' (expected oracle, null "
                                      "or echo)",
                                      name));
}

}  // namespace structtest
