// The train split (sources/split.h) is disjoint from the eval split by construction: its
// word lists share nothing with the eval lists, every train item holds one of its words,
// and no eval item of many seeds holds any. The eval stream is unchanged by it (the
// output digest test checks `generate`'s bytes).
#include "sources/split.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "sources/document_generator.h"
#include "sources/math_generator.h"
#include "sources/program_generator.h"
#include "sources/vocabulary.h"

namespace structtest {
namespace {

using internal::FamilyNames;
using internal::GivenNames;
using internal::PlacePrefixes;
using internal::TrainFamilyNames;
using internal::TrainGivenNames;
using internal::TrainNameSuffixes;
using internal::TrainPlacePrefixes;

// The train split's words: its people's names, its places (a prefix alone or with a
// suffix) and its function-name suffixes.
std::set<std::string, std::less<>> TrainWords() {
  std::set<std::string, std::less<>> words;
  for (auto list : {TrainGivenNames(), TrainFamilyNames(), TrainNameSuffixes(),
                    TrainPlacePrefixes()}) {
    for (std::string_view w : list) words.emplace(w);
  }
  for (std::string_view prefix : TrainPlacePrefixes()) {
    for (std::string_view suffix : internal::PlaceSuffixes()) {
      words.emplace(std::string(prefix) + std::string(suffix));
    }
  }
  return words;
}

// The first train word of `text` as a whole run of letters ("Ulrike", the "zorvic" of
// "count_zorvic"), or "".
std::string FirstTrainWord(std::string_view text, const std::set<std::string, std::less<>>& words) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i && words.contains(text.substr(i, j - i))) return std::string(text.substr(i, j - i));
    i = j;
  }
  return "";
}

TEST(SourceSplitTest, TheTrainListsShareNothingWithTheEvalLists) {
  for (auto [train, eval] : {std::pair{TrainGivenNames(), GivenNames()},
                             std::pair{TrainFamilyNames(), FamilyNames()},
                             std::pair{TrainPlacePrefixes(), PlacePrefixes()}}) {
    for (std::string_view w : train) {
      for (std::string_view e : eval) {
        EXPECT_FALSE(e.starts_with(w) || w.starts_with(e)) << w << " / " << e;
      }
    }
  }
  // Every list is long enough for the most names one item draws (the drawer never
  // repeats a name within an item).
  EXPECT_GE(TrainGivenNames().size(), 40u);
  EXPECT_GE(TrainFamilyNames().size(), 40u);
  EXPECT_GE(TrainPlacePrefixes().size(), PlacePrefixes().size() - 8);
}

// Over many seeds: every train item holds a train word, no eval item holds one, and
// the ids say which split an item is of.
TEST(SourceSplitTest, EveryTrainItemHoldsATrainWordAndNoEvalItemDoes) {
  const auto words = TrainWords();
  int checked = 0;
  for (uint64_t seed : {0ull, 1ull, 7ull, 42ull, 12345ull, 0xFFFFFFFFFFFFFFFFull}) {
    for (size_t i = 0; i < 40; ++i) {
      const Document train = GenerateDocument(seed, i, SourceSplit::kTrain);
      const Document eval = GenerateDocument(seed, i);
      EXPECT_NE(FirstTrainWord(train.title + "\n" + train.text, words), "") << train.id;
      EXPECT_EQ(FirstTrainWord(eval.title + "\n" + eval.text, words), "") << eval.id;
      EXPECT_NE(train.text, eval.text);
      EXPECT_TRUE(train.id.starts_with("train-doc-")) << train.id;

      for (size_t k = 0; k < 3; ++k) {
        const MathProblem tm = GenerateMathProblem(seed, i * 3 + k, SourceSplit::kTrain);
        const MathProblem em = GenerateMathProblem(seed, i * 3 + k);
        EXPECT_NE(FirstTrainWord(tm.question, words), "") << tm.id << ": " << tm.question;
        EXPECT_EQ(FirstTrainWord(em.question + "\n" + em.solution, words), "") << em.id;
        EXPECT_TRUE(tm.id.starts_with("train-math-")) << tm.id;
      }

      for (const auto candidate : {&FunctionProgramCandidate, &StdinProgramCandidate}) {
        const Program tp = candidate(seed, i, SourceSplit::kTrain);
        const Program ep = candidate(seed, i, SourceSplit::kEval);
        EXPECT_NE(FirstTrainWord(tp.source, words), "") << tp.id;
        EXPECT_EQ(FirstTrainWord(ep.source, words), "") << ep.id;
        EXPECT_TRUE(tp.id.starts_with("train-")) << tp.id;
      }
      ++checked;
    }
  }
  // Every math template and every function template, in both splits.
  for (size_t t = 0; t < MathTemplateCount(); ++t) {
    for (size_t i = 0; i < 20; ++i) {
      const MathProblem tm = GenerateMathProblemFromTemplate(3, i, t, SourceSplit::kTrain);
      EXPECT_NE(FirstTrainWord(tm.question, words), "") << "math template " << t << ": "
                                                        << tm.question;
      const MathProblem em = GenerateMathProblemFromTemplate(3, i, t);
      EXPECT_EQ(FirstTrainWord(em.question, words), "") << "math template " << t;
    }
  }
  for (size_t t = 0; t < FunctionTemplateCount(); ++t) {
    EXPECT_NE(FirstTrainWord(FunctionProgramFromTemplate(5, 0, t, SourceSplit::kTrain).source,
                             words),
              "")
        << "function template " << t;
    EXPECT_EQ(FirstTrainWord(FunctionProgramFromTemplate(5, 0, t).source, words), "")
        << "function template " << t;
  }
  EXPECT_EQ(checked, 6 * 40);
}

TEST(SourceSplitTest, NamesParseBack) {
  EXPECT_EQ(*ParseSourceSplit("train"), SourceSplit::kTrain);
  EXPECT_EQ(*ParseSourceSplit("eval"), SourceSplit::kEval);
  const auto bad = ParseSourceSplit("test");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown split 'test'"), std::string::npos);
  EXPECT_EQ(SourceItemId("doc", 7, SourceSplit::kTrain), "train-doc-0007");
  EXPECT_EQ(SourceItemId("doc", 7, SourceSplit::kEval), "doc-0007");
}

}  // namespace
}  // namespace structtest
