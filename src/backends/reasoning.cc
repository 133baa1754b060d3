// SplitThinking (structtest/sample.h).
#include "structtest/sample.h"

#include <string>

namespace structtest {
namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' ||
                        s.front() == '\t')) {
    s.remove_prefix(1);
  }
  return s;
}

std::string_view Trim(std::string_view s) {
  s = TrimLeft(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' ||
                        s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

Response SplitThinking(std::string_view text) {
  const std::string_view lead = TrimLeft(text);
  if (lead.starts_with(kOpen)) {
    const std::string_view rest = lead.substr(kOpen.size());
    const size_t close = rest.find(kClose);
    if (close == std::string_view::npos) {
      return Response{std::string(), std::string(Trim(rest))};
    }
    return Response{std::string(TrimLeft(rest.substr(close + kClose.size()))),
                    std::string(Trim(rest.substr(0, close)))};
  }
  const size_t close = text.find(kClose);
  if (close != std::string_view::npos && text.substr(0, close).find(kOpen) == std::string_view::npos) {
    return Response{std::string(TrimLeft(text.substr(close + kClose.size()))),
                    std::string(Trim(text.substr(0, close)))};
  }
  return Response{std::string(text), std::string()};
}

}  // namespace structtest
