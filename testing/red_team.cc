#include "testing/red_team.h"

namespace structtest::testing {

std::optional<std::string> ReferenceAnswer(const Sample& sample) {
  if (!sample.target.is_object()) return std::nullopt;
  const auto it = sample.target.find("answer");
  if (it == sample.target.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::vector<CheatFamily> RedTeamFamilies() {
  std::vector<CheatFamily> all;
  for (auto* domain : {&SummarizationCheatFamilies, &CodeCheatFamilies, &HtmlCheatFamilies,
                       &MathCheatFamilies}) {
    std::vector<CheatFamily> families = (*domain)();
    all.insert(all.end(), families.begin(), families.end());
  }
  return all;
}

std::vector<CheatFamily> ComposedCheatFamilies() { return ComposedHtmlCheatFamilies(); }

}  // namespace structtest::testing
