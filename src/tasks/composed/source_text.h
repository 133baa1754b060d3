// What a composed answer's content is checked against under strict: the text it must
// state facts of (summarization: the document; HTML: the listed facts). A point or a
// paragraph that keeps every format rule can still say nothing of it; the checks here
// catch what the format cannot show: numbers and names from elsewhere (another document
// on the same subject shares most of its words, not these), the source's words out of
// their order, and an item that is most of an earlier one's words again.
#ifndef STRUCTTEST_TASKS_COMPOSED_SOURCE_TEXT_H_
#define STRUCTTEST_TASKS_COMPOSED_SOURCE_TEXT_H_

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace structtest::composed {

// Lower-case runs of ASCII letters and digits (an apostrophe dropped: "town's" ->
// "towns"): the words every composed domain's checks compare.
std::vector<std::string> SourceWords(std::string_view s);

class SourceText {
 public:
  // `name`: how problems call the source ("the document"). `format_words`: words the
  // format rules add to an item ("notably" of an opening), which count as the source's.
  SourceText(std::string_view text, std::string_view name,
             std::span<const std::string_view> format_words = {});

  // Whether `word` (lower case) is a word of the source or a format word.
  bool Has(std::string_view word) const;

  // "" when `item` (named `what` in the problem: "point 2") states the source's facts,
  // else the problem:
  //   - a number written in digits that the source does not give (in digits or, up to
  //     ninety, in words: "12" for "twelve" holds);
  //   - a name the source does not have: a capitalized word past the first two of its
  //     sentence (those may open it: "Notably, Researchers") that is no word of the source;
  //   - an item of at least 8 words, 90% of them the source's, that keeps under 35% of its
  //     adjacent word pairs as the source has them (a sentence copied keeps nearly all, a
  //     paraphrase brings words of its own, the source's words shuffled keep 4-23%).
  std::string Problem(std::string_view item, std::string_view what) const;

 private:
  std::string name_;
  std::vector<std::string> sorted_words_;  // with the format words
  std::vector<uint64_t> pairs_;            // hashes of adjacent word pairs, sorted
  std::set<std::string> numbers_;
};

// "" when no item is most of an earlier one's words again: a later item sharing at
// least 80% of the distinct words of the two with an earlier one (one word left out or
// put in) is a repeat. Items of fewer than `min_words` distinct words are not compared.
// `names`: how the problem names an item ("point", "<p>").
std::string NearRepeatProblem(std::span<const std::string> items, std::string_view names,
                              size_t min_words);

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_SOURCE_TEXT_H_
