#include "sources/gsm8k_loader.h"

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "core/jsonl.h"
#include "core/pytext.h"
#include "sources/load_util.h"

namespace structtest {

std::string StripCalculatorAnnotations(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    const size_t open = line.find("<<", i);
    if (open == std::string_view::npos) break;
    const size_t close = line.find(">>", open + 2);
    if (close == std::string_view::npos) break;
    out.append(line.substr(i, open - i));
    i = close + 2;
  }
  out.append(line.substr(i));
  return out;
}

namespace {

StatusOr<std::string> StringField(const nlohmann::json& record, const char* name,
                                  const std::string& path, int64_t line) {
  const auto it = record.find(name);
  if (it == record.end()) {
    return Status::InvalidArgument(fmt::format("{}:{}: field '{}' missing", path, line, name));
  }
  if (!it->is_string()) {
    return Status::InvalidArgument(fmt::format("{}:{}: field '{}' is not a string (found {})",
                                               path, line, name, it->type_name()));
  }
  std::string value = it->get<std::string>();
  RETURN_IF_ERROR(internal::CheckText(value, path, line, fmt::format("field '{}'", name)));
  return value;
}

}  // namespace

StatusOr<std::vector<MathProblem>> LoadGsm8k(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlReader> reader, JsonlReader::Open(path));
  std::vector<MathProblem> problems;
  nlohmann::json record;
  std::string problem;
  for (;;) {
    const JsonlReader::Result r = reader->Next(&record, &problem);
    if (r == JsonlReader::Result::kEnd) break;
    if (r == JsonlReader::Result::kBadLine) return Status::InvalidArgument(problem);
    const int64_t line = reader->line_number();
    if (!record.is_object()) {
      return Status::InvalidArgument(fmt::format("{}:{}: expected a JSON object, found {}", path,
                                                 line, record.type_name()));
    }
    MathProblem p;
    ASSIGN_OR_RETURN(p.question, StringField(record, "question", path, line));
    ASSIGN_OR_RETURN(p.solution, StringField(record, "answer", path, line));
    if (PyStrip(p.question).empty()) {
      return Status::InvalidArgument(fmt::format("{}:{}: field 'question' is empty", path, line));
    }
    const size_t mark = p.solution.rfind("####");
    if (mark == std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: field 'answer' has no '####' final answer", path, line));
    }
    p.answer = std::string(PyStrip(std::string_view(p.solution).substr(mark + 4)));
    if (p.answer.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: field 'answer' has nothing after its last '####'", path, line));
    }
    std::vector<std::string> steps;
    for (std::string_view l : SplitChar(std::string_view(p.solution).substr(0, mark), '\n')) {
      std::string step(PyStrip(StripCalculatorAnnotations(l)));
      // Keep steps on one line with single spaces: "\r" or tabs would upset the
      // oracle's step styles.
      for (char& c : step) {
        if (c == '\r' || c == '\t') c = ' ';
      }
      if (!step.empty()) steps.push_back(std::move(step));
    }
    p.steps = FitSteps(std::move(steps), p.answer);
    p.id = std::to_string(problems.size());
    problems.push_back(std::move(p));
  }
  RETURN_IF_ERROR(reader->io_error());
  if (problems.empty()) return Status::InvalidArgument(fmt::format("{}: no problems", path));
  return problems;
}

}  // namespace structtest
