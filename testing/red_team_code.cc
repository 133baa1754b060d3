// The red team's code families (testing/red_team.h). Helpers live in the named
// namespace red_team_code: the testing library is a unity build, and the four domain
// files must not share a name.
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_code {
namespace {}  // namespace
}  // namespace red_team_code

std::vector<CheatFamily> CodeCheatFamilies() { return {}; }

}  // namespace structtest::testing
