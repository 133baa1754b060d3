#include "sources/csv.h"

#include <fmt/format.h>

#include "sources/load_util.h"

namespace structtest::internal {

StatusOr<std::vector<CsvRecord>> ParseCsv(std::string_view data, std::string_view file) {
  data = StripBom(data);
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  int64_t line = 1;
  record.line = 1;
  size_t i = 0;
  const size_t n = data.size();
  bool field_started = false;  // the record has at least one character or separator

  auto end_field = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    // A blank line is one empty unquoted field: not a record.
    if (field_started) {
      end_field();
      records.push_back(std::move(record));
    }
    record = CsvRecord();
    field.clear();
    field_started = false;
  };
  // Consumes a line break at data[i] if there is one.
  auto take_newline = [&]() -> bool {
    if (data[i] == '\r') {
      i += (i + 1 < n && data[i + 1] == '\n') ? 2 : 1;
      ++line;
      return true;
    }
    if (data[i] == '\n') {
      ++i;
      ++line;
      return true;
    }
    return false;
  };

  while (i < n) {
    if (!field_started) record.line = line;
    const char c = data[i];
    if (c == '"' && field.empty()) {
      // Quoted field: up to the closing quote; "" is a literal quote.
      field_started = true;
      const int64_t open_line = line;
      ++i;
      bool closed = false;
      while (i < n) {
        if (data[i] == '"') {
          if (i + 1 < n && data[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        if (data[i] == '\n') ++line;
        field.push_back(data[i]);
        ++i;
      }
      if (!closed) {
        return Status::InvalidArgument(fmt::format(
            "{}:{}: unterminated quoted field (its opening quote is on line {})", file, line,
            open_line));
      }
      if (i < n && data[i] != ',' && data[i] != '\n' && data[i] != '\r') {
        return Status::InvalidArgument(fmt::format(
            "{}:{}: unexpected character after the closing quote of field {}", file, line,
            record.fields.size() + 1));
      }
      if (i < n && data[i] == ',') {
        end_field();
        ++i;
        continue;
      }
      if (i < n) take_newline();
      end_record();
      continue;
    }
    if (c == ',') {
      field_started = true;
      end_field();
      ++i;
      continue;
    }
    if (take_newline()) {
      end_record();
      continue;
    }
    field_started = true;
    field.push_back(c);
    ++i;
  }
  end_record();
  return records;
}

}  // namespace structtest::internal
