#include "testing/red_team.h"

namespace structtest::testing {

std::vector<CheatFamily> RedTeamFamilies() {
  std::vector<CheatFamily> all;
  for (auto* domain : {&SummarizationCheatFamilies, &CodeCheatFamilies, &HtmlCheatFamilies,
                       &MathCheatFamilies}) {
    std::vector<CheatFamily> families = (*domain)();
    all.insert(all.end(), families.begin(), families.end());
  }
  return all;
}

}  // namespace structtest::testing
