// The project's red team: families of cheating answers that have the look of a correct
// answer (its counts, markers, words and numbers) without doing the work, each with a
// harmless twin that does the work in a form a careful grader accepts. The strict rule
// set must fail the cheats and pass the twins (tests/red_team_test.cc); docs/strict.md
// lists every family with its pass rates under paper and each strict version.
//
// A family is built from a sample's oracle answer (target.answer), so it applies to any
// generated suite. Families are written to probe a general property strict claims
// (sentences say something, points are distinct, arithmetic holds and leads to the
// answer, ...), never a string strict happens to look for.
#ifndef STRUCTTEST_TESTING_RED_TEAM_H_
#define STRUCTTEST_TESTING_RED_TEAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "structtest/sample.h"

namespace structtest::testing {

struct RedTeamPair {
  std::string cheat;  // must fail strict
  std::string twin;   // must pass strict (and paper, where the paper's rules allow it)
};

struct CheatFamily {
  std::string_view domain;  // "summarization", "code", "html", "math"
  std::string_view name;    // unique, kebab-case: "math/equations-that-do-not-hold"
  // The cheat in one sentence: what it looks like and which property it lacks.
  std::string_view cheat;
  // The twin in one sentence.
  std::string_view twin;
  // The pair for `sample`, made from its oracle answer with draws from `seed`; nullopt
  // when the family does not apply to this sample (another subtask, nothing to alter).
  std::optional<RedTeamPair> (*make)(const Sample& sample, uint64_t seed);
};

// The sample's reference answer (target.answer), what every family starts from; nullopt
// when the sample carries none.
std::optional<std::string> ReferenceAnswer(const Sample& sample);

// Every family, domain by domain (each domain's table lives in red_team_<domain>.cc).
std::vector<CheatFamily> RedTeamFamilies();

std::vector<CheatFamily> SummarizationCheatFamilies();
std::vector<CheatFamily> CodeCheatFamilies();
std::vector<CheatFamily> HtmlCheatFamilies();
std::vector<CheatFamily> MathCheatFamilies();

// The families that apply to composed samples only (suite "composed"), run by the
// composed part of tests/red_team_test.cc besides every family above.
std::vector<CheatFamily> ComposedCheatFamilies();
std::vector<CheatFamily> ComposedHtmlCheatFamilies();
// Families for the composed suite's code samples (code_composed_k*), run by the composed
// red team (tests/red_team_test.cc) and not by the default suite's, which has none.
std::vector<CheatFamily> ComposedCodeCheatFamilies();

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_RED_TEAM_H_
