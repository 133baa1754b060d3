// Fuzz target: a model server's reply bytes, as each provider's parser and the
// reasoning splitter see them. Whatever the bytes, ParseHttpReply must return a result
// (an answer, or an error kind with a message), never crash, never put an error in
// the answer, and never leak the key. Under GCC the replay driver runs the corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "backends/providers.h"

namespace {

constexpr std::string_view kKey = "sk-fuzz-key-0123456789";

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "replies_fuzz: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace structtest;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  for (Provider p : {Provider::kOpenAi, Provider::kAnthropic, Provider::kGemini}) {
    for (int status : {200, 400, 429, 500}) {
      const ModelResult r = ParseHttpReply(p, status, body, kKey);
      if (r.ok()) {
        Check(status == 200, "an error status parsed as an answer");
        Check(r.error_message.empty(), "an answer with an error message");
      } else {
        Check(!r.error_message.empty(), "an error without a message");
        Check(r.response.text.empty(), "an error with answer text");
      }
      Check(r.error_message.find(kKey) == std::string::npos, "the key in an error message");
    }
  }
  return 0;
}
