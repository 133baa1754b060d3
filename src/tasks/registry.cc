#include "tasks/registry.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/bytes.h"
#include "structtest/suggest.h"
#include "tasks/code/family.h"
#include "tasks/composed/composed.h"
#include "tasks/html/family.h"
#include "tasks/math/family.h"
#include "tasks/summarization/family.h"

namespace structtest {

namespace {

// Code joins this table in the code-domain issue.
const TaskFamily* const* Table() {
  static const TaskFamily* const kFamilies[] = {
      &SummarizationFamily(),
      &CodeFamily(),
      &HtmlFamily(),
      &MathFamily(),
  };
  return kFamilies;
}
constexpr size_t kFamilyCount = 4;

std::string Suggest(std::string_view name, const std::vector<std::string_view>& known) {
  const std::string best = NearestName(name, known);
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

}  // namespace

std::span<const TaskFamily* const> Families() { return {Table(), kFamilyCount}; }

std::string_view SplitName(Split split) { return split == Split::kEasy ? "easy" : "hard"; }

std::string DidYouMean(std::string_view name) {
  std::vector<std::string_view> known;
  for (const TaskFamily* f : Families()) {
    known.push_back(f->domain);
    for (const SubtaskSpec& s : f->subtasks) known.push_back(s.name);
  }
  return Suggest(name, known);
}

StatusOr<const TaskFamily*> FindFamily(std::string_view domain) {
  for (const TaskFamily* f : Families()) {
    if (f->domain == domain) return f;
  }
  std::vector<std::string_view> names;
  for (const TaskFamily* f : Families()) names.push_back(f->domain);
  return Status::NotFound(fmt::format("unknown domain '{}'{}", domain, Suggest(domain, names)));
}

StatusOr<SubtaskRef> FindSubtask(std::string_view domain, std::string_view subtask) {
  // Subtask names are unique across families; the index is built once. Scoring looks
  // up every record, so this is on the hot path.
  static const auto* const kIndex = [] {
    auto* index = new std::unordered_map<std::string_view, SubtaskRef>();
    // The composed suite's families (tasks/composed/composed.h) are scored like the
    // others, though no paper or default suite draws them.
    for (std::span<const TaskFamily* const> table : {Families(), ComposedFamilies()}) {
      for (const TaskFamily* f : table) {
        for (const SubtaskSpec& s : f->subtasks) {
          const bool fresh = index->emplace(s.name, SubtaskRef{f, &s}).second;
          assert(fresh && "two subtasks share a name");
          (void)fresh;
        }
      }
    }
    return index;
  }();
  // Records mostly come in runs of one subtask: the last found is tried first.
  thread_local SubtaskRef last{};
  if (last.spec != nullptr && SameBytes(last.spec->name, subtask) &&
      SameBytes(last.family->domain, domain)) {
    return last;
  }
  if (const auto it = kIndex->find(subtask); it != kIndex->end()) {
    if (it->second.family->domain != domain) {
      return Status::InvalidArgument(fmt::format("subtask '{}' belongs to domain '{}', not '{}'",
                                                 subtask, it->second.family->domain, domain));
    }
    last = it->second;
    return it->second;
  }
  ASSIGN_OR_RETURN(const TaskFamily* family, FindFamily(domain));
  std::vector<std::string_view> names;
  for (const SubtaskSpec& s : family->subtasks) names.push_back(s.name);
  return Status::NotFound(fmt::format("unknown subtask '{}' of domain '{}'{}", subtask, domain,
                                      Suggest(subtask, names)));
}

}  // namespace structtest
