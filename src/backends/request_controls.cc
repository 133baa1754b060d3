#include "backends/request_controls.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/file_util.h"
#include "core/ascii.h"

namespace structtest {

namespace {

// RFC 9110's token characters.
bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

StatusOr<HttpHeader> ParseHeaderFlag(std::string_view text) {
  const size_t colon = text.find(':');
  // The value is never part of a message: it may be a credential.
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("`request.headers`: expected 'Name: value' (no ':' in it)");
  }
  HttpHeader h{std::string(TrimBlanks(text.substr(0, colon))),
               std::string(TrimBlanks(text.substr(colon + 1)))};
  if (h.name.empty() || !std::all_of(h.name.begin(), h.name.end(), IsTokenChar)) {
    return Status::InvalidArgument(fmt::format(
        "`request.headers` '{}: ...': expected a header name (letters, digits and -_.!#$%&'*+^`|~)",
        h.name));
  }
  if (h.value.find_first_of("\r\n") != std::string::npos || h.value.find('\0') != std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("`request.headers` {}: the value holds a line break", h.name));
  }
  const std::string lower = AsciiLower(h.name);
  for (const char* own : {"content-type", "content-length", "host", "transfer-encoding", "expect"}) {
    if (lower == own) {
      return Status::InvalidArgument(
          fmt::format("`request.headers` {}: structtest writes this header itself", h.name));
    }
  }
  return h;
}

StatusOr<std::string> ReadTextFlag(std::string_view field, std::string_view value) {
  if (!value.starts_with('@')) {
    if (value.empty()) return Status::InvalidArgument(fmt::format("{}: empty", field));
    return std::string(value);
  }
  const std::string path(value.substr(1));
  StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    return Status::IoError(
        fmt::format("{} @{}: cannot read: {}", field, path, text.status().message()));
  }
  if (text->empty()) {
    return Status::InvalidArgument(fmt::format("{} @{}: the file is empty", field, path));
  }
  return text;
}

StatusOr<nlohmann::json> ParseExtraBody(std::string_view value) {
  ASSIGN_OR_RETURN(const std::string text, ReadTextFlag("`request.extra_body`", value));
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) {
      return Status::InvalidArgument(fmt::format(
          "`request.extra_body`: expected a JSON object ({{\"key\": value, ...}}), not "
          "{}", j.type_name()));
    }
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    return Status::InvalidArgument(
        fmt::format("`request.extra_body`: not JSON: {}", e.what()));
  }
}

nlohmann::json ControlsJson(const RequestControls& c, const std::vector<std::string>& header_names) {
  nlohmann::json j = nlohmann::json::object();
  if (!c.system.empty()) j["system"] = c.system;
  if (c.top_p) j["top_p"] = *c.top_p;
  if (!c.stop.empty()) j["stop"] = c.stop;
  if (c.seed) j["sampling_seed"] = *c.seed;
  if (!c.reasoning_effort.empty()) j["reasoning_effort"] = c.reasoning_effort;
  if (c.thinking_budget) j["thinking_budget"] = *c.thinking_budget;
  if (!c.extra_body.is_null()) j["extra_body"] = c.extra_body;
  if (!header_names.empty()) {
    std::vector<std::string> names;
    for (const std::string& name : header_names) names.push_back(AsciiLower(name));
    std::sort(names.begin(), names.end());
    j["headers"] = names;
  }
  return j;
}

bool SameHeaderName(std::string_view a, std::string_view b) {
  return AsciiLower(a) == AsciiLower(b);
}

std::vector<std::string> HeaderNames(const std::vector<HttpHeader>& headers) {
  std::vector<std::string> names;
  for (const HttpHeader& h : headers) names.push_back(h.name);
  return names;
}

bool IsOpenAiReasoningModel(std::string_view name) {
  const bool o_series = name.size() >= 2 && name[0] == 'o' && name[1] >= '1' && name[1] <= '9';
  return o_series || name.starts_with("gpt-5");
}

}  // namespace structtest
