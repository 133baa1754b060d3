// A CSV reader for user data files (RFC 4180): comma-separated fields, double-quoted
// fields that may hold commas, doubled quotes and line breaks, records ended by "\r\n",
// "\n" or "\r". Lenient where Python's csv module is (a quote inside an unquoted field
// is kept as a character); strict where the file is surely broken (an unterminated
// quoted field, text right after a closing quote). Internal to src/sources, and to
// report/correlate.cc, which reads tables of figures per model.
#ifndef STRUCTTEST_SOURCES_CSV_H_
#define STRUCTTEST_SOURCES_CSV_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/status.h"

namespace structtest::internal {

struct CsvRecord {
  std::vector<std::string> fields;
  int64_t line = 0;  // 1-based line the record starts on
};

// Parses all of `data` (a leading UTF-8 byte order mark is skipped). Blank lines are
// skipped. `file` names the input in errors: InvalidArgument "FILE:LINE: problem".
StatusOr<std::vector<CsvRecord>> ParseCsv(std::string_view data, std::string_view file);

}  // namespace structtest::internal

#endif  // STRUCTTEST_SOURCES_CSV_H_
