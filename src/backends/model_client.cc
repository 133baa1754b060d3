#include "backends/model_client.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

namespace structtest {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone: return "none";
    case ErrorKind::kRetryable: return "retryable";
    case ErrorKind::kFatal: return "fatal";
  }
  return "unknown";
}

std::string_view FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kUnknown: return "unknown";
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kOther: return "other";
  }
  return "unknown";
}

std::string_view ProviderName(Provider provider) {
  switch (provider) {
    case Provider::kOpenAi: return "openai";
    case Provider::kAnthropic: return "anthropic";
    case Provider::kGemini: return "gemini";
  }
  return "unknown";
}

std::string_view ApiKeyEnvVar(Provider provider) {
  switch (provider) {
    case Provider::kOpenAi: return "OPENAI_API_KEY";
    case Provider::kAnthropic: return "ANTHROPIC_API_KEY";
    case Provider::kGemini: return "GEMINI_API_KEY";
  }
  return "";
}

std::string_view DefaultBaseUrl(Provider provider) {
  switch (provider) {
    case Provider::kOpenAi: return "https://api.openai.com/v1";
    case Provider::kAnthropic: return "https://api.anthropic.com";
    case Provider::kGemini: return "https://generativelanguage.googleapis.com";
  }
  return "";
}

StatusOr<ModelSpec> ParseModelSpec(std::string_view spec) {
  const size_t slash = spec.find('/');
  if (slash == std::string_view::npos || slash + 1 == spec.size()) {
    return Status::InvalidArgument(fmt::format(
        "model '{}': expected PROVIDER/NAME (openai/..., anthropic/..., gemini/...)", spec));
  }
  const std::string_view provider = spec.substr(0, slash);
  ModelSpec out;
  out.name = std::string(spec.substr(slash + 1));
  if (provider == "openai") {
    out.provider = Provider::kOpenAi;
  } else if (provider == "anthropic") {
    out.provider = Provider::kAnthropic;
  } else if (provider == "gemini") {
    out.provider = Provider::kGemini;
  } else {
    return Status::InvalidArgument(fmt::format(
        "model '{}': unknown provider '{}' (expected openai, anthropic or gemini)", spec,
        provider));
  }
  return out;
}

std::string RedactSecret(std::string_view text, std::string_view secret) {
  if (secret.empty()) return std::string(text);
  const size_t min_run = secret.size() < 8 ? secret.size() : 8;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    // Longest run starting at i that occurs somewhere in the secret.
    size_t best = 0;
    for (size_t j = 0; j < secret.size(); ++j) {
      size_t n = 0;
      while (i + n < text.size() && j + n < secret.size() && text[i + n] == secret[j + n]) ++n;
      if (n > best) best = n;
    }
    if (best >= min_run) {
      out += "[redacted]";
      i += best;
    } else {
      out += text[i];
      ++i;
    }
  }
  return out;
}

ClientClock* SteadyClientClock() {
  class Steady : public ClientClock {
   public:
    time_point Now() const override { return std::chrono::steady_clock::now(); }
    void SleepUntil(time_point t) override { std::this_thread::sleep_until(t); }
  };
  static Steady* clock = new Steady;
  return clock;
}

size_t WaitInnerUntil(ModelClient& inner, std::chrono::steady_clock::time_point wake,
                      std::vector<ModelResult>* done, ClientClock* clock) {
  if (inner.InFlight() == 0) {
    clock->SleepUntil(wake);
    return 0;
  }
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake - clock->Now());
  return inner.WaitForAny(done, std::max(wait, std::chrono::milliseconds(0)));
}

}  // namespace structtest
