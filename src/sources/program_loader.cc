#include "sources/program_loader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "sources/load_util.h"

namespace structtest {

namespace {

constexpr size_t kMaxFileBytes = size_t{1} << 30;

struct Where {
  const std::string& path;
  size_t index;

  Status Error(std::string_view field, std::string_view problem) const {
    return Status::InvalidArgument(
        fmt::format("{}: record {}: field '{}' {}", path, index, field, problem));
  }
};

StatusOr<std::string> Text(const nlohmann::json& value, const Where& at, std::string_view field) {
  if (!value.is_string()) {
    return at.Error(field, fmt::format("is not a string (found {})", value.type_name()));
  }
  std::string s = value.get<std::string>();
  size_t bad = 0;
  if (!internal::IsValidUtf8(s, &bad)) return at.Error(field, "is not valid UTF-8");
  if (s.find('\0') != std::string::npos) return at.Error(field, "contains a NUL character");
  return s;
}

// obj[key] as a list of strings; `field` names it in messages.
StatusOr<std::vector<std::string>> TextList(const nlohmann::json& obj, const Where& at,
                                            const char* key, std::string_view field,
                                            bool required) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return at.Error(field, "missing");
    return std::vector<std::string>{};
  }
  if (!it->is_array()) {
    return at.Error(field, fmt::format("is not a list (found {})", it->type_name()));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < it->size(); ++i) {
    ASSIGN_OR_RETURN(std::string s, Text((*it)[i], at, fmt::format("{}[{}]", field, i)));
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<std::string> IdField(const nlohmann::json& obj, const Where& at, std::string_view field,
                         std::string fallback) {
  const auto it = obj.find(field);
  if (it == obj.end()) return fallback;
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  if (it->is_string()) return it->get<std::string>();
  return at.Error(field, fmt::format("is not a number or string (found {})", it->type_name()));
}

Status CheckMapping(const std::vector<std::string>& mapping, const Where& at) {
  for (size_t i = 0; i < mapping.size(); ++i) {
    const size_t colon = mapping[i].find(':');
    if (colon == std::string::npos || mapping[i].find(':', colon + 1) != std::string::npos) {
      return at.Error(fmt::format("var_mapping[{}]", i),
                      fmt::format("'{}' is not of the form old:new", mapping[i]));
    }
  }
  return Status::Ok();
}

StatusOr<nlohmann::json> ReadList(const std::string& path) {
  ASSIGN_OR_RETURN(std::string data, internal::ReadWholeFile(path, kMaxFileBytes));
  nlohmann::json list = nlohmann::json::parse(internal::StripBom(data), nullptr, false);
  if (list.is_discarded()) return Status::InvalidArgument(fmt::format("{}: not valid JSON", path));
  if (!list.is_array()) {
    return Status::InvalidArgument(
        fmt::format("{}: expected a JSON list of records, found {}", path, list.type_name()));
  }
  if (list.empty()) return Status::InvalidArgument(fmt::format("{}: no records", path));
  return list;
}

Status CheckPairs(const Program& p, const Where& at) {
  if (p.inputs.empty()) return at.Error("inputs", "is empty");
  if (p.outputs.size() != p.inputs.size()) {
    return at.Error("outputs", fmt::format("has {} entries for {} inputs", p.outputs.size(),
                                           p.inputs.size()));
  }
  if (PyStrip(p.source).empty()) return at.Error("source", "is empty");
  return Status::Ok();
}

// The programs of the JSON list at `path`: what every format shares (an object per
// record, an id, an optional var_mapping, inputs and outputs that pair up) around
// `fill`, which reads the format's source, inputs and outputs.
using FillFn = Status (*)(const nlohmann::json& r, const Where& at, Program* p);
StatusOr<std::vector<Program>> LoadPrograms(const std::string& path, const char* id_key,
                                            std::string_view id_prefix, FillFn fill) {
  ASSIGN_OR_RETURN(nlohmann::json list, ReadList(path));
  std::vector<Program> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const Where at{path, i};
    const nlohmann::json& r = list[i];
    if (!r.is_object()) {
      return Status::InvalidArgument(
          fmt::format("{}: record {}: expected an object, found {}", path, i, r.type_name()));
    }
    Program p;
    ASSIGN_OR_RETURN(p.task_id, IdField(r, at, id_key, std::to_string(i)));
    p.id = std::string(id_prefix) + p.task_id;
    RETURN_IF_ERROR(fill(r, at, &p));
    ASSIGN_OR_RETURN(p.var_mapping, TextList(r, at, "var_mapping", "var_mapping", false));
    RETURN_IF_ERROR(CheckMapping(p.var_mapping, at));
    RETURN_IF_ERROR(CheckPairs(p, at));
    out.push_back(std::move(p));
  }
  return out;
}

Status FillMbpp(const nlohmann::json& r, const Where& at, Program* p) {
  if (!r.contains("code")) return at.Error("code", "missing");
  ASSIGN_OR_RETURN(p->source, Text(r["code"], at, "code"));
  const auto io = r.find("input_output");
  if (io == r.end()) return at.Error("input_output", "missing");
  if (!io->is_object()) return at.Error("input_output", "is not an object");
  if (!io->contains("fn_name")) return at.Error("input_output.fn_name", "missing");
  ASSIGN_OR_RETURN(p->fn_name, Text((*io)["fn_name"], at, "input_output.fn_name"));
  if (p->fn_name.empty()) return at.Error("input_output.fn_name", "is empty");
  ASSIGN_OR_RETURN(p->inputs, TextList(*io, at, "inputs", "input_output.inputs", true));
  ASSIGN_OR_RETURN(p->outputs, TextList(*io, at, "outputs", "input_output.outputs", true));
  return Status::Ok();
}

Status FillApps(const nlohmann::json& r, const Where& at, Program* p) {
  const char* field = r.contains("source_code") ? "source_code" : "solution";
  if (!r.contains(field)) return at.Error("source_code", "missing (or 'solution')");
  ASSIGN_OR_RETURN(p->source, Text(r[field], at, field));
  ASSIGN_OR_RETURN(p->inputs, TextList(r, at, "inputs", "inputs", true));
  ASSIGN_OR_RETURN(p->outputs, TextList(r, at, "outputs", "outputs", true));
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<Program>> LoadMbpp(const std::string& path) {
  return LoadPrograms(path, "task_id", "mbpp-", FillMbpp);
}

StatusOr<std::vector<Program>> LoadApps(const std::string& path) {
  return LoadPrograms(path, "id", "apps-", FillApps);
}

}  // namespace structtest
