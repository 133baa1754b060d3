#include "tasks/composed/composed.h"

#include <algorithm>
#include <functional>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "core/rng.h"
#include "core/status_macros.h"
#include "sources/document.h"
#include "sources/document_generator.h"
#include "sources/math_generator.h"
#include "sources/math_problem.h"
#include "tasks/composed/code_rules.h"
#include "tasks/composed/composed_code.h"
#include "tasks/composed/composed_html.h"
#include "tasks/composed/composed_util.h"
#include "tasks/composed/html_rules.h"
#include "tasks/composed/math_rules.h"
#include "tasks/composed/summarization_rules.h"
#include "tasks/generate_util.h"

namespace structtest {

namespace {

using composed::MathDraft;
using composed::MathRule;

constexpr uint64_t kNoisySeed = 52;  // issue 52; any fixed value would do

StatusOr<MathProblem> ComposedMathProblem(const GenerateRequest& request) {
  const SourceSet* sources = request.sources;
  if (sources != nullptr && !sources->math_problems.empty()) {
    return sources->math_problems[request.index % sources->math_problems.size()];
  }
  if (sources != nullptr && sources->generated_math_problems > 0) {
    return GenerateMathProblem(sources->generated_seed,
                               request.index % sources->generated_math_problems, sources->split);
  }
  return Status::InvalidArgument("composed math needs word problems (none were given)");
}

template <int K>
constexpr std::string_view MathSubtaskName() {
  constexpr std::string_view kNames[] = {"math_composed_k1", "math_composed_k2",
                                         "math_composed_k3", "math_composed_k4",
                                         "math_composed_k5", "math_composed_k6",
                                         "math_composed_k7", "math_composed_k8"};
  return kNames[K - 1];
}

StatusOr<Sample> GenerateComposedMath(const GenerateRequest& request, int k,
                                      std::string_view subtask) {
  ASSIGN_OR_RETURN(const MathProblem problem, ComposedMathProblem(request));
  Rng rng = SampleRng(request, subtask);
  MathDraft draft;
  draft.question = problem.question;
  draft.gold = problem.answer;
  draft.steps = problem.steps;
  ASSIGN_OR_RETURN(composed::AppliedRules drawn,
                   composed::DrawAndApplyRules(&rng, composed::MathRules(), &draft, k, "math"));
  const bool phrase_ruled = std::any_of(drawn.params.begin(), drawn.params.end(), [](const nlohmann::json& p) {
    return p["id"] == "answer-phrase";
  });
  Sample s = NewSample(request, "math", subtask,
                       composed::PromptWithRules(composed::MathBasePrompt(draft, phrase_ruled),
                                                 drawn.instructions));
  s.params = {{"rules", std::move(drawn.params)}};
  s.context = {{"problem_id", problem.id},
               {"question", problem.question},
               {"gold_answer", problem.answer}};
  s.target = {{"answer", composed::RenderMath(draft)},
              {"gold_answer", problem.answer},
              {"steps", problem.steps}};
  return s;
}

template <int K>
StatusOr<Sample> GenerateMathK(const GenerateRequest& request) {
  return GenerateComposedMath(request, K, MathSubtaskName<K>());
}

// What a composed math sample carries for its checks: its rules, question and gold.
struct MathSampleView {
  const nlohmann::json* rules = nullptr;
  std::string question, gold;
};

StatusOr<MathSampleView> ReadMathSample(const Sample& sample) {
  MathSampleView v;
  ASSIGN_OR_RETURN(v.rules, composed::RulesOfSample(sample, "math", &composed::FindMathRule));
  for (auto [key, out] : {std::pair{"question", &v.question}, std::pair{"gold_answer", &v.gold}}) {
    const auto it = sample.context.is_object() ? sample.context.find(key) : sample.context.end();
    if (!sample.context.is_object() || it == sample.context.end() || !it->is_string()) {
      return Status::InvalidArgument(
          fmt::format("sample '{}': context.{} is missing or not a string", sample.id, key));
    }
    *out = it->get<std::string>();
  }
  return v;
}

StatusOr<Verdict> CheckComposedMath(const Sample& sample, std::string_view response,
                                    RuleSet rules) {
  ASSIGN_OR_RETURN(const MathSampleView v, ReadMathSample(sample));
  const composed::MathParsed parsed =
      composed::ParseMath(response, *v.rules, v.question, v.gold);
  Verdict verdict;
  verdict.checks = composed::CheckEachRule(*v.rules, parsed, rules, &composed::FindMathRule);
  verdict.checks.push_back(composed::CheckMathAnswer(parsed, rules));
  if (rules == RuleSet::kStrict) verdict.checks.push_back(composed::CheckMathWork(parsed));
  return composed::DecidedByChecks(std::move(verdict));
}

StatusOr<Verdict> CheckMathPaper(const Sample& sample, const SampleParams&,
                                 std::string_view response, const CheckEnv&) {
  return CheckComposedMath(sample, response, RuleSet::kPaper);
}
StatusOr<Verdict> CheckMathStrict(const Sample& sample, const SampleParams&,
                                  std::string_view response, const CheckEnv&) {
  return CheckComposedMath(sample, response, RuleSet::kStrict);
}

// The reference draft of a composed math sample, rebuilt from its target's steps and
// its rules' parameters (the generator's apply steps, replayed).
StatusOr<MathDraft> RebuildMathDraft(const Sample& sample) {
  ASSIGN_OR_RETURN(const MathSampleView v, ReadMathSample(sample));
  const auto steps = sample.target.is_object() ? sample.target.find("steps") : sample.target.end();
  if (!sample.target.is_object() || steps == sample.target.end() || !steps->is_array()) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': no target.steps to build the answer from", sample.id));
  }
  MathDraft draft;
  draft.question = v.question;
  draft.gold = v.gold;
  for (const auto& s : *steps) {
    if (!s.is_string()) {
      return Status::InvalidArgument(fmt::format("sample '{}': target.steps holds a non-string", sample.id));
    }
    draft.steps.push_back(s.get<std::string>());
  }
  for (const auto& r : *v.rules) {
    const MathRule* def = composed::FindMathRule(r["id"].get<std::string>());
    if (def->apply != nullptr) def->apply(r, &draft);
  }
  return draft;
}

constexpr std::string_view kSkeletonFiller = "This step is filled in with words.";
constexpr std::string_view kLoopholeFiller = "This step is left to the reader.";

StatusOr<std::string> ComposedMathSkeleton(const Sample& sample) {
  ASSIGN_OR_RETURN(MathDraft draft, RebuildMathDraft(sample));
  for (std::string& s : draft.steps) s = kSkeletonFiller;
  draft.answer_override = "N";
  return composed::RenderMath(draft);
}

StatusOr<std::string> ComposedMathLoophole(const Sample& sample) {
  ASSIGN_OR_RETURN(MathDraft draft, RebuildMathDraft(sample));
  for (std::string& s : draft.steps) s = kLoopholeFiller;
  return composed::RenderMath(draft);
}

// ---- Summarization ----

using composed::SummaryDraft;
using composed::SummaryRule;

template <int K>
constexpr std::string_view SummarySubtaskName() {
  constexpr std::string_view kNames[] = {
      "summarization_composed_k1", "summarization_composed_k2", "summarization_composed_k3",
      "summarization_composed_k4", "summarization_composed_k5", "summarization_composed_k6",
      "summarization_composed_k7", "summarization_composed_k8"};
  return kNames[K - 1];
}

// Built-in documents only: their key sentences are the facts the reference states.
StatusOr<Document> ComposedDocument(const GenerateRequest& request) {
  const SourceSet* sources = request.sources;
  if (sources != nullptr && !sources->documents.empty()) {
    return Status::InvalidArgument(
        "the composed suite's summarization draws from the built-in documents only (their "
        "facts make the reference answer); leave out `documents`");
  }
  if (sources != nullptr && sources->generated_documents > 0) {
    return GenerateDocument(sources->generated_seed,
                            request.index % sources->generated_documents, sources->split);
  }
  return Status::InvalidArgument("composed summarization needs documents (none were given)");
}

StatusOr<Sample> GenerateComposedSummary(const GenerateRequest& request, int k,
                                         std::string_view subtask) {
  ASSIGN_OR_RETURN(const Document doc, ComposedDocument(request));
  Rng rng = SampleRng(request, subtask);
  // 4 to 7 of the document's facts, in the document's order, and one more held back.
  std::vector<size_t> picks(doc.key_sentences.size());
  for (size_t i = 0; i < picks.size(); ++i) picks[i] = i;
  rng.Shuffle(&picks);
  const size_t n = static_cast<size_t>(rng.UniformInt(4, 7));
  if (picks.size() < n + 1) {
    return Status::InvalidArgument(fmt::format("document {} has too few facts", doc.id));
  }
  const size_t spare = picks[n];
  picks.resize(n);
  std::sort(picks.begin(), picks.end());
  SummaryDraft draft;
  draft.document = doc.text;
  for (size_t i : picks) draft.points.push_back(doc.key_sentences[i]);
  draft.spare = doc.key_sentences[spare];
  // What the answer is rebuilt from (RebuildSummaryDraft replays the rules' changes).
  const std::vector<std::string> base_points = draft.points;
  const std::string base_spare = draft.spare;
  ASSIGN_OR_RETURN(composed::AppliedRules drawn,
                   composed::DrawAndApplyRules(&rng, composed::SummarizationRules(), &draft, k,
                                               "summarization"));
  Sample s = NewSample(request, "summarization", subtask,
                       composed::PromptWithRules(composed::SummaryBasePrompt(draft), drawn.instructions));
  s.params = {{"rules", std::move(drawn.params)}};
  s.context = {{"document_id", doc.id}, {"document", doc.text}};
  s.target = {{"answer", composed::RenderSummary(draft)},
              {"points", base_points},
              {"spare", base_spare}};
  return s;
}

template <int K>
StatusOr<Sample> GenerateSummaryK(const GenerateRequest& request) {
  return GenerateComposedSummary(request, K, SummarySubtaskName<K>());
}

StatusOr<std::string> DocumentOf(const Sample& sample) {
  const auto it = sample.context.is_object() ? sample.context.find("document") : sample.context.end();
  if (!sample.context.is_object() || it == sample.context.end() || !it->is_string()) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': context.document is missing or not a string", sample.id));
  }
  return it->get<std::string>();
}

StatusOr<Verdict> CheckComposedSummary(const Sample& sample, std::string_view response,
                                       RuleSet rules, const CheckEnv& env) {
  ASSIGN_OR_RETURN(const nlohmann::json* list, composed::RulesOfSample(sample, "summarization", &composed::FindSummaryRule));
  ASSIGN_OR_RETURN(std::string document, DocumentOf(sample));
  if (env.sentences == nullptr && composed::SummaryRulesCountSentences(*list)) {
    return Status::Unavailable(fmt::format(
        "sample '{}': its rule point-sentences counts sentences and the scoring environment "
        "has no Punkt sentence model (CheckEnv::sentences; SentenceSplitter::LoadBuiltin gives one)",
        sample.id));
  }
  const composed::SummaryParsed parsed =
      composed::ParseSummary(response, *list, std::move(document), env.sentences);
  Verdict verdict;
  verdict.checks = composed::CheckEachRule(*list, parsed, rules, &composed::FindSummaryRule);
  verdict.checks.push_back(composed::CheckSummaryPoints(parsed));
  if (rules == RuleSet::kStrict) verdict.checks.push_back(composed::CheckSummaryContent(parsed));
  return composed::DecidedByChecks(std::move(verdict));
}

StatusOr<Verdict> CheckSummaryPaper(const Sample& sample, const SampleParams&,
                                    std::string_view response, const CheckEnv& env) {
  return CheckComposedSummary(sample, response, RuleSet::kPaper, env);
}
StatusOr<Verdict> CheckSummaryStrict(const Sample& sample, const SampleParams&,
                                     std::string_view response, const CheckEnv& env) {
  return CheckComposedSummary(sample, response, RuleSet::kStrict, env);
}

StatusOr<SummaryDraft> RebuildSummaryDraft(const Sample& sample) {
  ASSIGN_OR_RETURN(const nlohmann::json* list, composed::RulesOfSample(sample, "summarization", &composed::FindSummaryRule));
  ASSIGN_OR_RETURN(std::string document, DocumentOf(sample));
  const auto& t = sample.target;
  if (!t.is_object() || !t.contains("points") || !t["points"].is_array() || !t.contains("spare") ||
      !t["spare"].is_string()) {
    return Status::InvalidArgument(
        fmt::format("sample '{}': no target.points and target.spare to build the answer from", sample.id));
  }
  SummaryDraft draft;
  draft.document = std::move(document);
  for (const auto& p : t["points"]) {
    if (!p.is_string()) {
      return Status::InvalidArgument(fmt::format("sample '{}': target.points holds a non-string", sample.id));
    }
    draft.points.push_back(p.get<std::string>());
  }
  draft.spare = t["spare"].get<std::string>();
  for (const auto& r : *list) {
    const SummaryRule* def = composed::FindSummaryRule(r["id"].get<std::string>());
    if (def->apply != nullptr) def->apply(r, &draft);
  }
  return draft;
}

StatusOr<std::string> ComposedSummarySkeleton(const Sample& sample) {
  ASSIGN_OR_RETURN(SummaryDraft draft, RebuildSummaryDraft(sample));
  for (std::string& p : draft.points) p = "This point is filled in with words.";
  return composed::RenderSummary(draft);
}

// The document's first stated fact, once per point: every format rule holds.
StatusOr<std::string> ComposedSummaryLoophole(const Sample& sample) {
  ASSIGN_OR_RETURN(SummaryDraft draft, RebuildSummaryDraft(sample));
  for (std::string& p : draft.points) p = draft.points.front();
  return composed::RenderSummary(draft);
}

#define STRUCTTEST_COMPOSED_SUMMARY_SPEC(K)                                                   \
  SubtaskSpec {                                                                               \
    SummarySubtaskName<K>(), Split::kHard,                                                    \
        "a document summarized in points under " #K " composed format rules",                 \
        "rules (id and parameters of each)", &CheckSummaryPaper, true, &GenerateSummaryK<K>,  \
        nullptr, &CheckSummaryStrict, &ComposedSummarySkeleton, &ComposedSummaryLoophole      \
  }

const SubtaskSpec kSummarySubtasks[] = {
    STRUCTTEST_COMPOSED_SUMMARY_SPEC(1), STRUCTTEST_COMPOSED_SUMMARY_SPEC(2),
    STRUCTTEST_COMPOSED_SUMMARY_SPEC(3), STRUCTTEST_COMPOSED_SUMMARY_SPEC(4),
    STRUCTTEST_COMPOSED_SUMMARY_SPEC(5), STRUCTTEST_COMPOSED_SUMMARY_SPEC(6),
    STRUCTTEST_COMPOSED_SUMMARY_SPEC(7), STRUCTTEST_COMPOSED_SUMMARY_SPEC(8),
};
#undef STRUCTTEST_COMPOSED_SUMMARY_SPEC

const TaskFamily kComposedSummary = {
    "summarization",
    "composed: a document summarized under K format rules drawn from the summarization "
    "rule library",
    // strict-c2: `content` judges points against the document and as English (2026-12-08).
    "paper-c1", kSummarySubtasks, "strict-c2"};

#define STRUCTTEST_COMPOSED_MATH_SPEC(K)                                                      \
  SubtaskSpec {                                                                               \
    MathSubtaskName<K>(), Split::kHard,                                                       \
        "a word problem solved in steps under " #K " composed format rules",                  \
        "rules (id and parameters of each)", &CheckMathPaper, false, &GenerateMathK<K>,       \
        nullptr, &CheckMathStrict, &ComposedMathSkeleton, &ComposedMathLoophole               \
  }

const SubtaskSpec kMathSubtasks[] = {
    STRUCTTEST_COMPOSED_MATH_SPEC(1), STRUCTTEST_COMPOSED_MATH_SPEC(2),
    STRUCTTEST_COMPOSED_MATH_SPEC(3), STRUCTTEST_COMPOSED_MATH_SPEC(4),
    STRUCTTEST_COMPOSED_MATH_SPEC(5), STRUCTTEST_COMPOSED_MATH_SPEC(6),
    STRUCTTEST_COMPOSED_MATH_SPEC(7), STRUCTTEST_COMPOSED_MATH_SPEC(8),
};
#undef STRUCTTEST_COMPOSED_MATH_SPEC

const TaskFamily kComposedMath = {
    "math",
    "composed: a math word problem under K format rules drawn from the math rule library",
    "paper-c1", kMathSubtasks, "strict-c1"};

bool IsIn(const Sample& sample, const TaskFamily& family) {
  if (sample.domain != family.domain) return false;
  for (const SubtaskSpec& s : family.subtasks) {
    if (s.name == sample.subtask) return true;
  }
  return false;
}

StatusOr<std::string> AnswerWithBroken(const Sample& sample,
                                       const std::function<bool(std::string_view)>& broken) {
  if (IsIn(sample, kComposedMath)) {
    ASSIGN_OR_RETURN(MathDraft draft, RebuildMathDraft(sample));
    for (const auto& r : sample.params["rules"]) {
      const MathRule* def = composed::FindMathRule(r["id"].get<std::string>());
      if (broken(def->id)) def->violate(r, &draft);
    }
    return composed::RenderMath(draft);
  }
  if (IsIn(sample, kComposedSummary)) {
    ASSIGN_OR_RETURN(SummaryDraft draft, RebuildSummaryDraft(sample));
    for (const auto& r : sample.params["rules"]) {
      const SummaryRule* def = composed::FindSummaryRule(r["id"].get<std::string>());
      if (broken(def->id)) def->violate(r, &draft);
    }
    return composed::RenderSummary(draft);
  }
  if (IsIn(sample, ComposedHtmlFamily())) return HtmlAnswerWithBroken(sample, broken);
  if (IsIn(sample, ComposedCodeFamily())) return ComposedCodeAnswerWithBroken(sample, broken);
  return Status::InvalidArgument(fmt::format(
      "sample '{}': the noisy responder answers composed samples only ({}/{} is not one)",
      sample.id, sample.domain, sample.subtask));
}

}  // namespace

std::span<const TaskFamily* const> ComposedFamilies() {
  static const TaskFamily* const kFamilies[] = {&kComposedSummary, &kComposedMath,
                                                 &ComposedHtmlFamily(),
                                                 &ComposedCodeFamily()};
  return kFamilies;
}

const SubtaskSpec* ComposedSubtask(const TaskFamily& family, int rules_per_sample) {
  if (rules_per_sample < 1 || rules_per_sample > static_cast<int>(family.subtasks.size())) {
    return nullptr;
  }
  return &family.subtasks[static_cast<size_t>(rules_per_sample - 1)];
}

std::vector<ComposedRuleInfo> ComposedRules() {
  std::vector<ComposedRuleInfo> out;
  for (const SummaryRule& r : composed::SummarizationRules()) {
    out.push_back({"summarization", r.id, r.summary, r.origin == composed::RuleOrigin::kPaper});
  }
  for (const MathRule& r : composed::MathRules()) {
    out.push_back({"math", r.id, r.summary, r.origin == composed::RuleOrigin::kPaper});
  }
  for (const composed::HtmlRule& r : composed::HtmlRules()) {
    out.push_back({"html", r.id, r.summary, r.origin == composed::RuleOrigin::kPaper});
  }
  for (const composed::CodeRule& r : composed::CodeRules()) {
    out.push_back({"code", r.id, r.summary, r.origin == composed::RuleOrigin::kPaper});
  }
  return out;
}

StatusOr<std::string> NoisyComposedAnswer(const Sample& sample, double p) {
  const std::string answer = sample.target.is_object() && sample.target.contains("answer") &&
                                     sample.target["answer"].is_string()
                                 ? sample.target["answer"].get<std::string>()
                                 : std::string();
  Rng rng = Rng(kNoisySeed).Fork(sample.id).Fork(answer).Fork(fmt::format("{}", p));
  return AnswerWithBroken(sample, [&](std::string_view) { return rng.Bernoulli(p); });
}

StatusOr<std::string> ComposedAnswerBreaking(const Sample& sample,
                                             const std::vector<std::string>& broken) {
  return AnswerWithBroken(sample, [&](std::string_view id) {
    return std::find(broken.begin(), broken.end(), id) != broken.end();
  });
}

StatusOr<std::string> ComposedAnswerRewriting(
    const Sample& sample, const std::function<std::string(size_t, const std::string&)>& rewrite) {
  if (IsIn(sample, kComposedMath)) {
    ASSIGN_OR_RETURN(MathDraft draft, RebuildMathDraft(sample));
    for (size_t i = 0; i < draft.steps.size(); ++i) draft.steps[i] = rewrite(i, draft.steps[i]);
    return composed::RenderMath(draft);
  }
  if (IsIn(sample, kComposedSummary)) {
    ASSIGN_OR_RETURN(SummaryDraft draft, RebuildSummaryDraft(sample));
    for (size_t i = 0; i < draft.points.size(); ++i) draft.points[i] = rewrite(i, draft.points[i]);
    return composed::RenderSummary(draft);
  }
  return Status::InvalidArgument(fmt::format("sample '{}': {}/{} is not a composed sample",
                                             sample.id, sample.domain, sample.subtask));
}

StatusOr<int> RulesForDifficulty(std::string_view level) {
  if (level == "easy") return 2;
  if (level == "medium") return 4;
  if (level == "hard") return 6;
  if (level == "extreme") return 8;
  return Status::InvalidArgument(fmt::format(
      "`difficulty`: unknown level '{}' (expected easy, medium, hard or extreme)", level));
}

}  // namespace structtest
