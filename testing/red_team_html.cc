// The red team's html families (testing/red_team.h). Helpers live in the named
// namespace red_team_html: the testing library is a unity build, and the four domain
// files must not share a name.
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_html {
namespace {}  // namespace
}  // namespace red_team_html

std::vector<CheatFamily> HtmlCheatFamilies() { return {}; }

}  // namespace structtest::testing
