#include "structtest/generate.h"

#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/jsonl.h"
#include "core/record_io.h"
#include "core/shard.h"
#include "sources/split.h"
#include "tasks/registry.h"
#include "tasks/suite.h"

namespace structtest {

StatusOr<std::unique_ptr<SuiteGenerator>> SuiteGenerator::Open(const GenerateOptions& options,
                                                               const SentenceSplitter* sentences) {
  std::unique_ptr<SuiteGenerator> generator(new SuiteGenerator());
  ASSIGN_OR_RETURN(generator->suite_, Suite::Plan(options, sentences));
  generator->shard_index_ = options.shard_index;
  generator->shard_count_ = options.shard_count;
  return generator;
}

SuiteGenerator::~SuiteGenerator() = default;

const std::vector<std::string>& SuiteGenerator::skipped() const { return suite_->skipped(); }
const std::vector<std::string>& SuiteGenerator::notes() const { return suite_->notes(); }

StatusOr<std::vector<GeneratedSubtask>> SuiteGenerator::Generate(
    const std::function<Status(const Sample&)>& each) {
  const Shard shard{shard_index_, shard_count_};
  std::vector<GeneratedSubtask> counts;
  for (const PlannedSubtask& planned : suite_->subtasks()) {
    GeneratedSubtask& count = counts.emplace_back();
    count.domain = planned.ref.family->domain;
    count.name = planned.ref.spec->name;
    count.split = SplitName(planned.ref.spec->split);
    for (size_t i = 0; i < planned.count; ++i) {
      auto sample = suite_->Generate(planned, i);
      if (!sample.ok()) {
        return Status(sample.status().code(),
                      fmt::format("{} sample {}: {}", planned.ref.spec->name, i,
                                  sample.status().message()));
      }
      if (shard.count > 1 && !shard.Contains(sample->id)) continue;
      ++count.samples;
      RETURN_IF_ERROR(each(*sample));
    }
  }
  return counts;
}

StatusOr<std::vector<GeneratedSubtask>> SuiteGenerator::WriteJsonl(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlWriter> writer, JsonlWriter::Open(path));
  std::string line;
  ASSIGN_OR_RETURN(std::vector<GeneratedSubtask> generated, Generate([&](const Sample& sample) {
    line.clear();
    AppendSampleJson(sample, &line);
    line.push_back('\n');
    return writer->WriteLine(line);
  }));
  RETURN_IF_ERROR(writer->Close());
  return generated;
}

Status SetShard(std::string_view i_of_n, GenerateOptions* options) {
  ASSIGN_OR_RETURN(const Shard shard, ParseShard(i_of_n));
  options->shard_index = shard.index;
  options->shard_count = shard.count;
  return Status::Ok();
}

StatusOr<std::vector<Sample>> GenerateSuite(const GenerateOptions& options) {
  RETURN_IF_ERROR(CheckSuiteOptions(options));
  ASSIGN_OR_RETURN(std::unique_ptr<SuiteGenerator> generator,
                   SuiteGenerator::Open(options, nullptr));
  std::vector<Sample> samples;
  RETURN_IF_ERROR(generator->Generate([&](const Sample& sample) {
                                 samples.push_back(sample);
                                 return Status::Ok();
                               }).status());
  return samples;
}

}  // namespace structtest
