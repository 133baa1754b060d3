// Small pieces every generator uses: the per-sample random stream and the skeleton of
// a generated sample.
#ifndef STRUCTTEST_TASKS_GENERATE_UTIL_H_
#define STRUCTTEST_TASKS_GENERATE_UTIL_H_

#include <string>
#include <string_view>

#include "core/rng.h"
#include "structtest/sample.h"
#include "tasks/task.h"

namespace structtest {

// The random stream of one sample: depends on (seed, subtask, index) only, so adding a
// subtask or changing a size never changes the other samples.
inline Rng SampleRng(const GenerateRequest& request, std::string_view subtask) {
  return Rng(request.seed).Fork(subtask).Fork(std::to_string(request.index));
}

// A sample with id "<subtask>-<index>" ("train-<subtask>-<index>" in a train suite) and
// the prompt as one user message.
inline Sample NewSample(const GenerateRequest& request, std::string_view domain,
                        std::string_view subtask, std::string prompt) {
  Sample s;
  const bool train = request.sources != nullptr && request.sources->split == SourceSplit::kTrain;
  s.id = (train ? "train-" : "") + std::string(subtask) + "-" + std::to_string(request.index);
  s.domain = domain;
  s.subtask = subtask;
  s.messages.push_back({"user", std::move(prompt)});
  return s;
}

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_GENERATE_UTIL_H_
