// The red team's summarization families (testing/red_team.h). Helpers live in the named
// namespace red_team_summarization: the testing library is a unity build, and the four domain
// files must not share a name.
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_summarization {
namespace {}  // namespace
}  // namespace red_team_summarization

std::vector<CheatFamily> SummarizationCheatFamilies() { return {}; }

}  // namespace structtest::testing
