// NLTK's English Punkt model, which the summarization subtasks count sentences with.
// The options that take a `const SentenceSplitter*` (generate.h, run.h,
// score_records.h) load it themselves when given none; load it once here to share it
// among calls.
#ifndef STRUCTTEST_SENTENCES_H_
#define STRUCTTEST_SENTENCES_H_

#include <memory>
#include <string_view>

#include "structtest/status.h"

namespace structtest {

class SentenceSplitter;

// The model in `nltk_data`/tokenizers/punkt_tab/english when `nltk_data` is given; else
// the first folder of $NLTK_DATA (colon-separated) that holds one; else the built-in
// copy of NLTK's model. NLTK's other standard folders are not searched (a copy found by
// chance would change the verdicts). Errors, each starting with where the model was
// looked for ("--nltk-data DIR: " or "$NLTK_DATA: "): NotFound (no model in
// `nltk_data`), InvalidArgument "FILE:LINE: problem" (a malformed model file), IoError.
StatusOr<std::shared_ptr<const SentenceSplitter>> LoadSentenceModel(std::string_view nltk_data);

}  // namespace structtest

#endif  // STRUCTTEST_SENTENCES_H_
