// Separating a reasoning model's thinking from its final answer when both arrive in
// one text: "<think>...</think>answer", or "...</think>answer" when the chat template
// already opened the block. Only the final answer is scored.
#ifndef STRUCTTEST_BACKENDS_REASONING_H_
#define STRUCTTEST_BACKENDS_REASONING_H_

#include <string_view>

#include "structtest/sample.h"

namespace structtest {

// Splits `text` into {answer, reasoning}:
// - leading "<think>R</think>A" (after whitespace)  -> {A, R}
// - "R</think>A" with no "<think>" before the "</think>" -> {A, R}
// - "<think>R" never closed (cut off while thinking) -> {"", R}
// - anything else -> {text, ""}
// The answer loses its leading whitespace when a block was removed.
Response SplitThinking(std::string_view text);

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_REASONING_H_
