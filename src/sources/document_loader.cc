#include "sources/document_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "core/jsonl.h"
#include "sources/csv.h"
#include "sources/load_util.h"

namespace structtest {

namespace {

namespace fs = std::filesystem;
using internal::CheckText;
using internal::NormalizeText;

// Largest CSV file read into memory.
constexpr size_t kMaxCsvBytes = size_t{1} << 30;

const char* JsonTypeName(const nlohmann::json& j) { return j.type_name(); }

// Adds a document unless its text is blank; checks ids are unique.
class DocumentCollector {
 public:
  explicit DocumentCollector(std::string file) : file_(std::move(file)) {}

  Status Add(int64_t line, std::string id, std::string title, std::string_view raw_text,
             std::string_view text_what) {
    if (raw_text.size() > kMaxDocumentBytes) {
      return Status::InvalidArgument(fmt::format("{}:{}: {} is {} bytes, more than the {} allowed",
                                                 file_, line, text_what, raw_text.size(),
                                                 kMaxDocumentBytes));
    }
    std::string text = NormalizeText(raw_text);
    if (text.empty()) {
      ++out_.skipped_empty;
      return Status::Ok();
    }
    const auto [it, inserted] = first_line_.emplace(id, line);
    if (!inserted) {
      return Status::InvalidArgument(fmt::format("{}:{}: duplicate id '{}' (first on line {})",
                                                 file_, line, id, it->second));
    }
    Document d;
    d.id = std::move(id);
    d.title = NormalizeText(title);
    d.text = std::move(text);
    out_.documents.push_back(std::move(d));
    return Status::Ok();
  }

  StatusOr<LoadedDocuments> Finish() {
    if (out_.documents.empty()) {
      return Status::InvalidArgument(fmt::format("{}: no documents ({} empty ones skipped)",
                                                 file_, out_.skipped_empty));
    }
    return std::move(out_);
  }

 private:
  std::string file_;
  LoadedDocuments out_;
  std::map<std::string, int64_t> first_line_;
};

std::string Fields(size_t n) { return fmt::format("{} field{}", n, n == 1 ? "" : "s"); }

}  // namespace

StatusOr<LoadedDocuments> LoadDocumentsJsonl(const std::string& path,
                                             const DocumentLoadOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlReader> reader, JsonlReader::Open(path));
  DocumentCollector collector(path);
  nlohmann::json record;
  std::string problem;
  int64_t index = -1;
  for (;;) {
    const JsonlReader::Result r = reader->Next(&record, &problem);
    if (r == JsonlReader::Result::kEnd) break;
    if (r == JsonlReader::Result::kBadLine) return Status::InvalidArgument(problem);
    ++index;
    const int64_t line = reader->line_number();
    if (!record.is_object()) {
      return Status::InvalidArgument(fmt::format("{}:{}: expected a JSON object, found {}",
                                                 path, line, JsonTypeName(record)));
    }
    const auto text_it = record.find(options.text_field);
    if (text_it == record.end()) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: field '{}' missing", path, line, options.text_field));
    }
    if (!text_it->is_string()) {
      return Status::InvalidArgument(fmt::format("{}:{}: field '{}' is not a string (found {})",
                                                 path, line, options.text_field,
                                                 JsonTypeName(*text_it)));
    }
    const std::string& text = text_it->get_ref<const std::string&>();
    RETURN_IF_ERROR(CheckText(text, path, line, fmt::format("field '{}'", options.text_field)));

    std::string id = std::to_string(index);
    if (const auto it = record.find(options.id_field); it != record.end()) {
      if (it->is_string()) {
        id = it->get<std::string>();
        RETURN_IF_ERROR(CheckText(id, path, line, fmt::format("field '{}'", options.id_field)));
      } else if (it->is_number_integer()) {
        id = it->dump();
      } else {
        return Status::InvalidArgument(
            fmt::format("{}:{}: field '{}' is not a string or an integer (found {})", path, line,
                        options.id_field, JsonTypeName(*it)));
      }
    }
    std::string title;
    if (const auto it = record.find(options.title_field); it != record.end() && !it->is_null()) {
      if (!it->is_string()) {
        return Status::InvalidArgument(fmt::format("{}:{}: field '{}' is not a string (found {})",
                                                   path, line, options.title_field,
                                                   JsonTypeName(*it)));
      }
      title = it->get<std::string>();
      RETURN_IF_ERROR(
          CheckText(title, path, line, fmt::format("field '{}'", options.title_field)));
    }
    RETURN_IF_ERROR(collector.Add(line, std::move(id), std::move(title), text,
                                  fmt::format("field '{}'", options.text_field)));
  }
  RETURN_IF_ERROR(reader->io_error());
  return collector.Finish();
}

StatusOr<LoadedDocuments> LoadDocumentsCsv(const std::string& path,
                                           const DocumentLoadOptions& options) {
  ASSIGN_OR_RETURN(const std::string data, internal::ReadWholeFile(path, kMaxCsvBytes));
  ASSIGN_OR_RETURN(std::vector<internal::CsvRecord> records, internal::ParseCsv(data, path));
  if (records.empty()) {
    return Status::InvalidArgument(fmt::format("{}: empty file (expected a header row)", path));
  }
  const internal::CsvRecord& header = records[0];
  for (size_t c = 0; c < header.fields.size(); ++c) {
    RETURN_IF_ERROR(CheckText(header.fields[c], path, header.line, "the header"));
  }
  auto column = [&](const std::string& name) -> int64_t {
    const auto it = std::find(header.fields.begin(), header.fields.end(), name);
    return it == header.fields.end() ? -1 : it - header.fields.begin();
  };
  const int64_t text_col = column(options.text_field);
  const int64_t id_col = column(options.id_field);
  const int64_t title_col = column(options.title_field);
  if (text_col < 0) {
    std::string columns;
    for (const std::string& f : header.fields) columns += (columns.empty() ? "'" : ", '") + f + "'";
    return Status::InvalidArgument(fmt::format("{}:{}: no column '{}' in the header (columns: {})",
                                               path, header.line, options.text_field, columns));
  }
  DocumentCollector collector(path);
  const size_t width = header.fields.size();
  for (size_t r = 1; r < records.size(); ++r) {
    const internal::CsvRecord& rec = records[r];
    if (rec.fields.size() != width) {
      if (rec.fields.size() <= static_cast<size_t>(text_col)) {
        return Status::InvalidArgument(
            fmt::format("{}:{}: column '{}' missing ({} in the row, {} in the header)", path,
                        rec.line, options.text_field, Fields(rec.fields.size()), width));
      }
      return Status::InvalidArgument(fmt::format("{}:{}: {} in the row, {} in the header", path,
                                                 rec.line, Fields(rec.fields.size()), width));
    }
    const std::string& text = rec.fields[static_cast<size_t>(text_col)];
    const std::string what = fmt::format("column '{}'", options.text_field);
    RETURN_IF_ERROR(CheckText(text, path, rec.line, what));
    std::string id = std::to_string(r - 1);
    if (id_col >= 0) {
      id = rec.fields[static_cast<size_t>(id_col)];
      RETURN_IF_ERROR(CheckText(id, path, rec.line, fmt::format("column '{}'", options.id_field)));
      if (id.empty()) {
        return Status::InvalidArgument(
            fmt::format("{}:{}: column '{}' is empty", path, rec.line, options.id_field));
      }
    }
    std::string title;
    if (title_col >= 0) {
      title = rec.fields[static_cast<size_t>(title_col)];
      RETURN_IF_ERROR(
          CheckText(title, path, rec.line, fmt::format("column '{}'", options.title_field)));
    }
    RETURN_IF_ERROR(collector.Add(rec.line, std::move(id), std::move(title), text, what));
  }
  return collector.Finish();
}

StatusOr<LoadedDocuments> LoadDocumentsFromFolder(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::IoError(fmt::format("{}: {}", dir, ec.message()));
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IoError(fmt::format("{}: {}", dir, ec.message()));
    const std::string name = it->path().filename().string();
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".txt") != 0) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;  // follows symlinks
    names.push_back(name);
  }
  if (names.empty()) return Status::InvalidArgument(fmt::format("{}: no .txt files", dir));
  std::sort(names.begin(), names.end());  // byte order: the same on every machine
  DocumentCollector collector(dir);
  for (const std::string& name : names) {
    const std::string file = (fs::path(dir) / name).string();
    ASSIGN_OR_RETURN(const std::string data, internal::ReadWholeFile(file, kMaxDocumentBytes));
    const std::string_view text = internal::StripBom(data);
    RETURN_IF_ERROR(CheckText(text, file, 1, "the text"));
    RETURN_IF_ERROR(collector.Add(1, name.substr(0, name.size() - 4), "", text, "the text"));
  }
  return collector.Finish();
}

StatusOr<LoadedDocuments> LoadDocuments(const std::string& path,
                                        const DocumentLoadOptions& options) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return Status::NotFound(fmt::format("{}: no such file or directory", path));
  }
  if (fs::is_directory(st)) return LoadDocumentsFromFolder(path);
  const std::string ext = AsciiLower(fs::path(path).extension().string());
  if (ext == ".jsonl" || ext == ".ndjson" || ext == ".json") return LoadDocumentsJsonl(path, options);
  if (ext == ".csv") return LoadDocumentsCsv(path, options);
  return Status::InvalidArgument(fmt::format(
      "{}: unknown document format (expected a .jsonl or .csv file, or a folder of .txt files)",
      path));
}

}  // namespace structtest
