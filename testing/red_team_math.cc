// The red team's math families (testing/red_team.h). Helpers live in the named
// namespace red_team_math: the testing library is a unity build, and the four domain
// files must not share a name.
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_math {
namespace {}  // namespace
}  // namespace red_team_math

std::vector<CheatFamily> MathCheatFamilies() { return {}; }

}  // namespace structtest::testing
