// Documents for the summarization subtasks, whatever their origin: the built-in
// generator (document_generator.h) or the user's files (document_loader.h). A document
// is plain UTF-8 prose; generated ones also carry the material a correct summary can be
// written from, so the oracle responder can prove every sample satisfiable.
#ifndef STRUCTTEST_SOURCES_DOCUMENT_H_
#define STRUCTTEST_SOURCES_DOCUMENT_H_

#include <string>
#include <vector>

namespace structtest {

// Answers to the five fixed questions of the `questions` subtask, one sentence each.
struct QuestionAnswers {
  std::string what;   // What is the main point?
  std::string why;    // Why is it happening?
  std::string who;    // Who is involved?
  std::string when;   // When is the action happening?
  std::string where;  // Where is the action happening?
};

struct Document {
  std::string id;     // unique within its source
  std::string title;  // may be empty (text folders; JSONL/CSV without a title)
  std::string text;   // paragraphs separated by one blank line ("\n\n")

  // Generated documents only (empty for loaded ones). Each key sentence is a fact of
  // the text, stated in one sentence that NLTK's Punkt (English) counts as exactly one
  // sentence, alone or concatenated with others by spaces or newlines: it ends with a
  // '.' right after an ASCII letter, has no other '.', '?' or '!', no newline or tab,
  // no '*' or '\u2022' (U+2022), and starts with an upper-case ASCII letter. At least 12, all distinct.
  std::vector<std::string> key_sentences;
  // Generated documents only: each answer is also one of key_sentences.
  QuestionAnswers answers;
};

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_DOCUMENT_H_
