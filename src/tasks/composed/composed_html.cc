#include "tasks/composed/composed_html.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/rng.h"
#include "core/status_macros.h"
#include "tasks/composed/composed_util.h"
#include "tasks/composed/html_rules.h"
#include "tasks/composed/rule_text.h"
#include "tasks/generate_util.h"

namespace structtest {

namespace {

using composed::HtmlDraft;
using composed::HtmlRule;
using composed::HtmlSection;

template <int K>
constexpr std::string_view HtmlSubtaskName() {
  constexpr std::string_view kNames[] = {"html_composed_k1", "html_composed_k2", "html_composed_k3",
                                         "html_composed_k4", "html_composed_k5", "html_composed_k6",
                                         "html_composed_k7", "html_composed_k8"};
  return kNames[K - 1];
}

// The base task's facts: about a town of a made-up name, one fact of each of ten kinds
// (its founding, its bridge, its market, ...), each with its own wording, so that no
// two facts share most of their words. Drawn from the sample's own stream: cheap, and
// needing no source data.
struct FactKind {
  std::string_view heading;
  std::string_view pattern;  // {0} the town, {1} a number, {2} a word of `words`
  int low, high;             // the number's range
  std::string_view words[4];
};
constexpr FactKind kFactKinds[] = {
    {"Founding", "{0} was founded in {1} by a group of {2} from the coast.", 1150, 1890,
     {"fishermen", "weavers", "farmers", "merchants"}},
    {"The bridge", "The main bridge of {0} spans {1} metres across the {2} River.", 40, 420,
     {"Alder", "Moss", "Grey", "Willow"}},
    {"The market", "Its weekly market has {1} stalls and sells mostly {2}.", 12, 160,
     {"cheese", "pottery", "wool", "apples"}},
    {"Population", "About {1} thousand people lived there at the last census, most of them in {2}.",
     3, 90, {"flats", "farmhouses", "terraces", "cottages"}},
    {"The great fire", "A fire in {1} destroyed the wooden {2} near the harbour.", 1600, 1920,
     {"warehouses", "chapels", "stables", "workshops"}},
    {"Schools", "Pupils at the local school learn {1} languages, among them {2}.", 2, 5,
     {"Welsh", "Danish", "Latin", "Basque"}},
    {"Sights", "Visitors climb a hill of {1} metres to see the old {2}.", 90, 640,
     {"lighthouse", "windmill", "abbey", "fortress"}},
    {"The council", "The town council has {1} members and meets in a former {2}.", 7, 31,
     {"granary", "tannery", "brewery", "courthouse"}},
    {"Climate", "Snow falls on fewer than {1} days a year, and {2} winds are common.", 4, 40,
     {"western", "salty", "gusty", "damp"}},
    {"The railway", "The railway station closed in {1} and now houses a {2}.", 1958, 1999,
     {"museum", "bakery", "library", "cinema"}},
};

std::string TownName(Rng* rng) {
  static constexpr std::string_view kFirst[] = {"Bel", "Cor", "Dun", "Har", "Kel", "Mar", "Pen", "Tor"};
  static constexpr std::string_view kLast[] = {"brook", "ford", "haven", "mere", "stow", "wick", "more", "ton"};
  return std::string(composed::PickOf(rng, kFirst)) + std::string(composed::PickOf(rng, kLast));
}

HtmlSection DrawFact(Rng* rng, const FactKind& kind, const std::string& town) {
  const int64_t n = rng->UniformInt(kind.low, kind.high);
  const std::string_view word = composed::PickOf(rng, kind.words);
  return HtmlSection{std::string(kind.heading), fmt::format(fmt::runtime(kind.pattern), town, n, word)};
}

nlohmann::json SectionJson(const HtmlSection& s) { return nlohmann::json::array({s.heading, s.text}); }

StatusOr<Sample> GenerateComposedHtml(const GenerateRequest& request, int k, std::string_view subtask) {
  Rng rng = SampleRng(request, subtask);
  // 4 to 7 kinds of fact for the sections and one more listed but held back, all in the
  // table's order.
  std::vector<size_t> picks(std::size(kFactKinds));
  for (size_t i = 0; i < picks.size(); ++i) picks[i] = i;
  rng.Shuffle(&picks);
  const size_t n = static_cast<size_t>(rng.UniformInt(4, 7));
  const size_t spare = picks[n];
  picks.resize(n + 1);
  std::sort(picks.begin(), picks.end());
  const std::string town = TownName(&rng);
  HtmlDraft draft;
  draft.title = "Facts about " + town;
  for (size_t i : picks) {
    HtmlSection section = DrawFact(&rng, kFactKinds[i], town);
    draft.facts.push_back(section.text);
    if (i == spare) {
      draft.spare = std::move(section);
    } else {
      draft.sections.push_back(std::move(section));
    }
  }
  nlohmann::json base = nlohmann::json::array();
  for (const HtmlSection& s : draft.sections) base.push_back(SectionJson(s));
  ASSIGN_OR_RETURN(composed::AppliedRules drawn,
                   composed::DrawAndApplyRules(&rng, composed::HtmlRules(), &draft, k, "html"));
  Sample s = NewSample(request, "html", subtask,
                       composed::PromptWithRules(composed::HtmlBasePrompt(draft), drawn.instructions));
  s.params = {{"rules", std::move(drawn.params)}};
  s.context = {{"town", town}, {"facts", draft.facts}};
  s.target = {{"answer", composed::RenderHtml(draft)}, {"sections", std::move(base)},
              {"spare", SectionJson(draft.spare)}, {"title", "Facts about " + town}};
  return s;
}

template <int K>
StatusOr<Sample> GenerateHtmlK(const GenerateRequest& request) {
  return GenerateComposedHtml(request, K, HtmlSubtaskName<K>());
}

StatusOr<std::vector<std::string>> FactsOf(const Sample& sample) {
  const auto it = sample.context.is_object() ? sample.context.find("facts") : sample.context.end();
  if (!sample.context.is_object() || it == sample.context.end() || !it->is_array()) {
    return Status::InvalidArgument(fmt::format("sample '{}': context.facts is not an array of facts", sample.id));
  }
  std::vector<std::string> facts;
  for (const auto& f : *it) {
    if (!f.is_string()) return Status::InvalidArgument(fmt::format("sample '{}': context.facts holds a non-string", sample.id));
    facts.push_back(f.get<std::string>());
  }
  return facts;
}

StatusOr<Verdict> CheckComposedHtml(const Sample& sample, std::string_view response, RuleSet rules) {
  ASSIGN_OR_RETURN(const nlohmann::json* list, composed::RulesOfSample(sample, "html", &composed::FindHtmlRule));
  ASSIGN_OR_RETURN(std::vector<std::string> facts, FactsOf(sample));
  const composed::HtmlParsed parsed = composed::ParseHtml(response, std::move(facts));
  Verdict verdict;
  verdict.checks = composed::CheckEachRule(*list, parsed, rules, &composed::FindHtmlRule);
  verdict.checks.push_back(composed::CheckHtmlWellFormed(parsed, rules));
  if (rules == RuleSet::kStrict) verdict.checks.push_back(composed::CheckHtmlContent(parsed));
  return composed::DecidedByChecks(std::move(verdict));
}

StatusOr<Verdict> CheckComposedHtmlPaper(const Sample& sample, const SampleParams&, std::string_view response,
                                 const CheckEnv&) {
  return CheckComposedHtml(sample, response, RuleSet::kPaper);
}
StatusOr<Verdict> CheckComposedHtmlStrict(const Sample& sample, const SampleParams&, std::string_view response,
                                  const CheckEnv&) {
  return CheckComposedHtml(sample, response, RuleSet::kStrict);
}

StatusOr<HtmlSection> ReadSection(const Sample& sample, const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_string()) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': a target section is not a [heading, text] pair of strings", sample.id));
  }
  return HtmlSection{j[0].get<std::string>(), j[1].get<std::string>()};
}

// The reference draft, rebuilt from the target's sections and the rules' parameters
// (the generator's apply steps, replayed).
StatusOr<HtmlDraft> RebuildHtmlDraft(const Sample& sample) {
  ASSIGN_OR_RETURN(const nlohmann::json* list, composed::RulesOfSample(sample, "html", &composed::FindHtmlRule));
  ASSIGN_OR_RETURN(std::vector<std::string> facts, FactsOf(sample));
  const auto& t = sample.target;
  if (!t.is_object() || !t.contains("sections") || !t["sections"].is_array() || !t.contains("spare")) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': no target.sections and target.spare to build the answer from", sample.id));
  }
  HtmlDraft draft;
  draft.facts = std::move(facts);
  for (const auto& s : t["sections"]) {
    ASSIGN_OR_RETURN(HtmlSection section, ReadSection(sample, s));
    draft.sections.push_back(std::move(section));
  }
  ASSIGN_OR_RETURN(draft.spare, ReadSection(sample, t["spare"]));
  if (t.contains("title") && t["title"].is_string()) draft.title = t["title"].get<std::string>();
  for (const auto& r : *list) {
    const HtmlRule* def = composed::FindHtmlRule(r["id"].get<std::string>());
    if (def->apply != nullptr) def->apply(r, &draft);
  }
  return draft;
}

// Every format rule holds, the paragraphs say nothing of the facts.
StatusOr<std::string> ComposedHtmlSkeleton(const Sample& sample) {
  ASSIGN_OR_RETURN(HtmlDraft draft, RebuildHtmlDraft(sample));
  for (HtmlSection& s : draft.sections) s.text = "This section is filled in with words.";
  return composed::RenderHtml(draft);
}

// Every format rule holds, every paragraph states the first fact.
StatusOr<std::string> ComposedHtmlLoophole(const Sample& sample) {
  ASSIGN_OR_RETURN(HtmlDraft draft, RebuildHtmlDraft(sample));
  for (HtmlSection& s : draft.sections) s.text = draft.sections.front().text;
  return composed::RenderHtml(draft);
}

#define STRUCTTEST_COMPOSED_HTML_SPEC(K)                                                   \
  SubtaskSpec {                                                                            \
    HtmlSubtaskName<K>(), Split::kHard,                                                    \
        "a page presenting listed facts under " #K " composed format rules",               \
        "rules (id and parameters of each)", &CheckComposedHtmlPaper, false, &GenerateHtmlK<K>,    \
        nullptr, &CheckComposedHtmlStrict, &ComposedHtmlSkeleton, &ComposedHtmlLoophole            \
  }

const SubtaskSpec kHtmlSubtasks[] = {
    STRUCTTEST_COMPOSED_HTML_SPEC(1), STRUCTTEST_COMPOSED_HTML_SPEC(2),
    STRUCTTEST_COMPOSED_HTML_SPEC(3), STRUCTTEST_COMPOSED_HTML_SPEC(4),
    STRUCTTEST_COMPOSED_HTML_SPEC(5), STRUCTTEST_COMPOSED_HTML_SPEC(6),
    STRUCTTEST_COMPOSED_HTML_SPEC(7), STRUCTTEST_COMPOSED_HTML_SPEC(8),
};
#undef STRUCTTEST_COMPOSED_HTML_SPEC

const TaskFamily kComposedHtml = {
    "html", "composed: an HTML page of listed facts under K format rules drawn from the HTML rule library",
    "paper-c1", kHtmlSubtasks, "strict-c1"};

}  // namespace

const TaskFamily& ComposedHtmlFamily() { return kComposedHtml; }

StatusOr<std::string> HtmlAnswerWithBroken(const Sample& sample,
                                           const std::function<bool(std::string_view)>& broken) {
  ASSIGN_OR_RETURN(HtmlDraft draft, RebuildHtmlDraft(sample));
  for (const auto& r : sample.params["rules"]) {
    const HtmlRule* def = composed::FindHtmlRule(r["id"].get<std::string>());
    if (broken(def->id)) def->violate(r, &draft);
  }
  return composed::RenderHtml(draft);
}

}  // namespace structtest
