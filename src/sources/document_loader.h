// Documents from the user's files, for test sets over real text:
//   - JSON Lines: one object per line; the text in a string field ("text" by default),
//     optional "id" (string or integer) and "title" (string);
//   - CSV with a header row (RFC 4180 quoting, multi-line quoted fields): the text in a
//     column ("text" by default), optional "id" and "title" columns;
//   - a folder of .txt files (not recursive), sorted by file name; id = file name
//     without ".txt"; no title.
// Texts are normalised the same way for every format: "\r\n" becomes "\n" and
// surrounding whitespace is stripped. A document whose text is then empty is skipped
// and counted (LoadedDocuments::skipped_empty), not an error, so a spreadsheet with a
// few blank rows still loads; a source with no document left at all is an error.
// Everything else that is wrong is an error naming the file, the line and the field:
//   "docs.csv:17: column 'text' missing (2 fields in the row, 4 in the header)"
//   "docs.jsonl:3: field 'text' is not a string (found number)"
// Texts must be valid UTF-8 without NUL characters and at most kMaxDocumentBytes.
#ifndef STRUCTTEST_SOURCES_DOCUMENT_LOADER_H_
#define STRUCTTEST_SOURCES_DOCUMENT_LOADER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "sources/document.h"
#include "structtest/status.h"

namespace structtest {

inline constexpr size_t kMaxDocumentBytes = size_t{4} << 20;

struct DocumentLoadOptions {
  std::string text_field = "text";    // JSONL field / CSV column with the text
  std::string id_field = "id";        // optional; default id: the 0-based record index
  std::string title_field = "title";  // optional
};

struct LoadedDocuments {
  std::vector<Document> documents;  // in file order
  size_t skipped_empty = 0;         // records whose text was empty or blank
};

// Picks the format from the path: a directory is a folder of .txt files; a file
// ending in .jsonl, .ndjson or .json is JSON Lines; .csv is CSV (case-insensitive).
// Anything else: InvalidArgument naming the accepted formats.
StatusOr<LoadedDocuments> LoadDocuments(const std::string& path,
                                        const DocumentLoadOptions& options = {});

StatusOr<LoadedDocuments> LoadDocumentsJsonl(const std::string& path,
                                             const DocumentLoadOptions& options = {});
StatusOr<LoadedDocuments> LoadDocumentsCsv(const std::string& path,
                                           const DocumentLoadOptions& options = {});
StatusOr<LoadedDocuments> LoadDocumentsFromFolder(const std::string& dir);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_DOCUMENT_LOADER_H_
