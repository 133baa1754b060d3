// Fuzz target: a model server's reply bytes, as each provider's parser and the
// reasoning splitter see them. Whatever the bytes, ParseHttpReply must return a result
// (an answer, or an error kind with a message), never crash, never put an error in
// the answer, and never leak the key. The same bytes as a batch's result line or
// output (OpenAI's or vLLM's line, Anthropic's, Gemini's operation or responses file)
// give an answer or an error with words, each naming its request, or a refusal. Under
// GCC the replay driver runs the corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "backends/batch_api.h"
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
  const auto check_item = [](const BatchItemResult& item) {
    Check(!item.custom_id.empty(), "a batch result that names no request");
    if (!item.result.ok()) Check(!item.result.error_message.empty(), "a batch error without words");
  };
  for (const auto& line : {ParseOpenAiBatchLine(body), ParseOpenAiBatchLine(body, "offline batch"),
                           ParseAnthropicBatchLine(body)}) {
    if (line.ok()) check_item(*line);
  }
  for (const auto& results : {ParseGeminiBatchOutput(body), ParseGeminiResponsesFile(body)}) {
    if (!results.ok()) continue;
    Check(results->unkeyed >= 0, "a negative count");
    for (const BatchItemResult& item : results->items) check_item(item);
  }
  (void)GeminiResponsesFile(body);
  return 0;
}
