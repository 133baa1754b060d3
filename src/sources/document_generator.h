// The built-in document source: procedurally generated news, report and science-style
// articles (several genres, 4-8 paragraphs, 300-700 words) full of named people,
// organisations, places, dates and quantities, written from our own word lists and
// sentence templates. Needs no files. A pure function of (seed, index): document i
// does not depend on how many documents are asked for, and the bytes are the same on
// every machine and standard library (only core/rng.h supplies randomness).
#ifndef STRUCTTEST_SOURCES_DOCUMENT_GENERATOR_H_
#define STRUCTTEST_SOURCES_DOCUMENT_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sources/document.h"
#include "sources/split.h"

namespace structtest {

// Bounds every generated document keeps (checked by the tests over many seeds).
inline constexpr size_t kGeneratedDocumentMinWords = 300;
inline constexpr size_t kGeneratedDocumentMaxWords = 700;
inline constexpr size_t kGeneratedDocumentMinParagraphs = 4;
inline constexpr size_t kGeneratedDocumentMaxParagraphs = 8;
inline constexpr size_t kGeneratedDocumentMinKeySentences = 12;

// Document `index` of the stream for `seed` (of the eval or the train split). Its id is
// "doc-" followed by the index with at least four digits ("doc-0007"; "train-doc-0007"
// in the train split). Thread-safe (no shared state).
Document GenerateDocument(uint64_t seed, size_t index, SourceSplit split = SourceSplit::kEval);

// Documents 0..count-1 of the stream for `seed`: the first k are the same whatever
// the count.
std::vector<Document> GenerateDocuments(uint64_t seed, size_t count);

// Number of genres the generator draws from (news on infrastructure, science studies,
// company results, ...). For tests and reports.
size_t GeneratedDocumentGenreCount();

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_DOCUMENT_GENERATOR_H_
