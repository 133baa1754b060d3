// Generating a StructTest suite: what `structtest generate` writes and
// `structtest.generate()` returns. A suite is a pure function of its options (and the
// data files it reads): the same options give the same samples, byte for byte, on every
// machine. The eval split is what benchmarks score; the train split draws from source
// items no eval suite of any seed holds, for training without contaminating the test.
#ifndef STRUCTTEST_GENERATE_H_
#define STRUCTTEST_GENERATE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

class SentenceSplitter;
class Suite;

struct GenerateOptions {
  // "default" (built-in sources), "paper" (your files) or "composed" (a base task per
  // domain under rules_per_sample format rules drawn from the domain's rule library;
  // built-in sources or your files; docs/composed.md).
  std::string suite = "default";
  uint64_t seed = 0;
  double size = 1.0;  // scale of the paper's sample counts; at least one sample each
  std::vector<std::string> tasks;  // subtask or domain names; empty: every subtask
  // At most this many samples of each subtask, the first ones of the same suite without
  // the limit; 0: no limit.
  size_t limit = 0;
  std::string split = "eval";  // "eval" or "train" (default suite only)
  // The user's data (required by the paper suite, optional for the default one).
  std::string documents, mbpp, apps, gsm8k;
  // Only the shard_index-th (from 1) of shard_count disjoint parts of the suite, by a
  // hash of the sample id, as `run --shard` splits it. Default: the whole suite.
  int shard_index = 1;
  int shard_count = 1;
  // The composed suite's dial: format rules per sample, 1..8 (default 3); or a
  // difficulty level standing for a number of them ("easy" 2, "medium" 4, "hard" 6,
  // "extreme" 8). Only the composed suite takes either; not both at once.
  int rules_per_sample = 0;
  std::string difficulty;
};

// The samples of one subtask that a generation gave, in the registry's order.
struct GeneratedSubtask {
  std::string domain;
  std::string name;
  std::string split;  // "easy" or "hard"
  size_t samples = 0;
};

// A suite ready to generate: its subtasks resolved and its sources loaded.
class SuiteGenerator {
 public:
  // Errors name the option at fault: an unknown split, suite or task (with a
  // suggestion), missing or unreadable data files. `sentences` splits loaded documents
  // into the sentences of their reference answers; null: documents given are split
  // with nothing, and each of their samples fails to generate.
  static StatusOr<std::unique_ptr<SuiteGenerator>> Open(const GenerateOptions& options,
                                                        const SentenceSplitter* sentences);
  ~SuiteGenerator();
  SuiteGenerator(const SuiteGenerator&) = delete;
  SuiteGenerator& operator=(const SuiteGenerator&) = delete;

  // Subtasks left out because this build cannot generate them yet.
  const std::vector<std::string>& skipped() const;
  // Sentences about the sources to show the user: a data file with fewer items than a
  // subtask's samples, whose items are used again ("--gsm8k F: 10 problems for up to
  // 1319 samples of a subtask: ...").
  const std::vector<std::string>& notes() const;

  // Calls `each` with every sample of the suite (of the shard), in order; a non-ok
  // Status from it stops and is returned. Returns how many samples each subtask gave.
  // Errors: "SUBTASK sample I: why" for a sample that cannot be generated.
  StatusOr<std::vector<GeneratedSubtask>> Generate(
      const std::function<Status(const Sample&)>& each);

  // Generate's samples written to `path` ("-": standard output), a JSON line each: the
  // bytes `structtest generate` writes. Errors: the file cannot be written (naming it),
  // Generate's.
  StatusOr<std::vector<GeneratedSubtask>> WriteJsonl(const std::string& path);

 private:
  SuiteGenerator() = default;
  std::unique_ptr<Suite> suite_;
  int shard_index_ = 1;
  int shard_count_ = 1;
};

// Sets options->shard_index and shard_count from "I/N" (the I-th of N parts, as
// `--shard` takes it). Errors name the text: not I/N, N above the most shards, I out
// of 1..N.
Status SetShard(std::string_view i_of_n, GenerateOptions* options);

// --limit's value: a positive whole number of samples (GenerateOptions::limit). Errors
// say why not.
StatusOr<size_t> ParseSampleLimit(std::string_view text);

// Every sample of the suite, in order: SuiteGenerator's, without a sentence model
// (CheckSuiteOptions' errors first, without reading any file).
StatusOr<std::vector<Sample>> GenerateSuite(const GenerateOptions& options);

}  // namespace structtest

#endif  // STRUCTTEST_GENERATE_H_
