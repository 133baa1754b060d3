#include "sources/split.h"

#include <fmt/format.h>

namespace structtest {

StatusOr<SourceSplit> ParseSourceSplit(std::string_view name) {
  if (name == "eval") return SourceSplit::kEval;
  if (name == "train") return SourceSplit::kTrain;
  return Status::InvalidArgument(
      fmt::format("unknown split '{}' (expected 'eval' or 'train')", name));
}

std::string SourceItemId(std::string_view prefix, size_t index, SourceSplit split) {
  return fmt::format("{}{}-{:04d}", split == SourceSplit::kTrain ? "train-" : "", prefix, index);
}

}  // namespace structtest
