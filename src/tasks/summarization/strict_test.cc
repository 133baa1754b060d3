// The strict rules that depend on what the prompt asked (`prose`, `symbol-elsewhere`)
// find the generator's wording, and the generated reference answers never repeat a
// sentence, however many the answer needs (the strict rules fail repeats).
#include "tasks/summarization/strict.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tasks/summarization/generator.h"

namespace structtest::summarization_internal {
namespace {

GenerateRequest Request(const SourceSet& sources, size_t index) {
  GenerateRequest r;
  r.seed = 5;
  r.index = index;
  r.sources = &sources;
  return r;
}

SourceSet Generated() {
  SourceSet s;
  s.generated_seed = 5;
  s.generated_documents = 50;
  return s;
}

TEST(SummarizationStrictTest, PromptsCarryTheInstructionsTheStrictRulesRead) {
  const SourceSet sources = Generated();
  auto length = GenerateLength(Request(sources, 0));
  ASSERT_TRUE(length.ok()) << length.status().message();
  EXPECT_NE(length->messages.back().content.find(kProseInstruction), std::string::npos);
  for (auto generate : {&GenerateBulletPoints, &GenerateBulletPointsLength,
                        &GenerateIndentedBulletPoints}) {
    auto s = generate(Request(sources, 0));
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_NE(s->messages.back().content.find(kSymbolOnlyInstruction), std::string::npos)
        << s->subtask;
  }
}

TEST(SummarizationStrictTest, ReferenceAnswersNeverRepeatALine) {
  const SourceSet sources = Generated();
  int long_answers = 0;  // answers with more lines than a document has key sentences
  for (size_t i = 0; i < 200; ++i) {
    auto s = GenerateIndentedBulletPoints(Request(sources, i));
    ASSERT_TRUE(s.ok()) << s.status().message();
    std::set<std::string> lines;
    size_t n = 0;
    const std::string answer = s->target["answer"].get<std::string>();
    for (size_t b = 0, e; b < answer.size(); b = e + 1) {
      e = answer.find('\n', b);
      if (e == std::string::npos) e = answer.size();
      std::string line = answer.substr(b, e - b);
      line.erase(0, line.find_first_not_of("\t *\u2022"));
      if (line.starts_with("<") || line.empty()) continue;
      ++n;
      EXPECT_TRUE(lines.insert(line).second) << s->id << " repeats: " << line;
    }
    long_answers += n > 20;
  }
  EXPECT_GT(long_answers, 0) << "no sample needed more sentences than its document offers";
}

}  // namespace
}  // namespace structtest::summarization_internal
