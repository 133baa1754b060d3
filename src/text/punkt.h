// Sentence splitting with NLTK's Punkt algorithm and its English model (punkt_tab).
// The summarization checkers count sentences the way the reference scorer does, which
// is nltk.tokenize.punkt.PunktSentenceTokenizer.span_tokenize (NLTK 3.8) run on a
// Python str. This is a re-implementation of that decision procedure on UTF-8 bytes:
// the same candidate contexts, word tokens, first- and second-pass annotations and
// boundary realignment, with Python's Unicode character classes. Spans are byte
// offsets; any byte string is accepted (an invalid UTF-8 byte behaves as one
// non-space, non-letter character) and the work is linear in the input size.
#ifndef STRUCTTEST_TEXT_PUNKT_H_
#define STRUCTTEST_TEXT_PUNKT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/status.h"

namespace structtest {

namespace internal {
struct PunktModel;
}  // namespace internal

// Thread-safety: after Load, all const methods may be called concurrently.
class SentenceSplitter {
 public:
  // The English punkt_tab model. If nltk_data_dir is non-empty, the one in
  // DIR/tokenizers/punkt_tab/english/ (NotFound when there is no such folder).
  // Otherwise the first entry of $NLTK_DATA (colon-separated) that holds that folder,
  // and failing that the built-in model (LoadBuiltin). NLTK's other standard folders
  // (~/nltk_data, /usr/share/nltk_data...) are not searched: a copy found there by
  // chance would silently replace the model the verdicts are defined with.
  // Errors: NotFound as above; InvalidArgument "FILE:LINE: problem" for a malformed
  // model file; IoError when a file cannot be read.
  static StatusOr<std::unique_ptr<SentenceSplitter>> Load(std::string_view nltk_data_dir);
  // Loads the four model files (abbrev_types.txt, collocations.tab,
  // sent_starters.txt, ortho_context.tab) from `english_dir`.
  static StatusOr<std::unique_ptr<SentenceSplitter>> LoadFromModelDir(std::string_view english_dir);
  // NLTK's English punkt_tab model as compiled into the binary from
  // data/nltk_data/tokenizers/punkt_tab/english/ (NLTK's files, byte for byte). Fails
  // only if those files were malformed at build time.
  static StatusOr<std::unique_ptr<SentenceSplitter>> LoadBuiltin();

  // What source() says for the built-in model.
  static constexpr std::string_view kBuiltinSource = "built-in";

  ~SentenceSplitter();
  SentenceSplitter(const SentenceSplitter&) = delete;
  SentenceSplitter& operator=(const SentenceSplitter&) = delete;

  // Byte offsets [begin, end) of one sentence, as NLTK's span_tokenize gives them
  // (in characters there). Sentences never overlap and come in text order.
  struct Span {
    size_t begin;
    size_t end;
  };
  std::vector<Span> Split(std::string_view text) const;
  // Split(text).size(), without building the vector.
  size_t Count(std::string_view text) const;

  // Where the model was read from: the folder (DIR/tokenizers/punkt_tab/english) or
  // kBuiltinSource.
  const std::string& source() const { return source_; }

 private:
  SentenceSplitter(std::string source, std::unique_ptr<const internal::PunktModel> model);

  std::string source_;
  std::unique_ptr<const internal::PunktModel> model_;
};

inline bool operator==(const SentenceSplitter::Span& a, const SentenceSplitter::Span& b) {
  return a.begin == b.begin && a.end == b.end;
}

}  // namespace structtest

#endif  // STRUCTTEST_TEXT_PUNKT_H_
