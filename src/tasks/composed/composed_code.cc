#include "tasks/composed/composed_code.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/rng.h"
#include "core/status_macros.h"
#include "sources/program.h"
#include "sources/program_store.h"
#include "tasks/composed/code_rules.h"
#include "tasks/composed/composed_util.h"
#include "tasks/generate_util.h"

namespace structtest {

// Named, not anonymous: the composed library is a unity build, and composed.cc's
// helpers for the other domains live in an anonymous namespace of the same unit.
namespace composed_code_internal {

using composed::CodeDraft;
using composed::CodeRule;



template <int K>
constexpr std::string_view CodeSubtaskName() {
  constexpr std::string_view kNames[] = {"code_composed_k1", "code_composed_k2", "code_composed_k3",
                                         "code_composed_k4", "code_composed_k5", "code_composed_k6",
                                         "code_composed_k7", "code_composed_k8"};
  return kNames[K - 1];
}

StatusOr<Program> ComposedFunction(const GenerateRequest& request) {
  const SourceSet* sources = request.sources;
  if (sources == nullptr || sources->functions == nullptr || sources->functions->size() == 0) {
    return Status::InvalidArgument("composed code needs functions (none were given)");
  }
  return sources->functions->Get(request.index % sources->functions->size());
}

StatusOr<Sample> GenerateComposedCode(const GenerateRequest& request, int k,
                                      std::string_view subtask) {
  ASSIGN_OR_RETURN(const Program program, ComposedFunction(request));
  ASSIGN_OR_RETURN(CodeDraft draft, composed::CodeDraftOf(program));
  Rng rng = SampleRng(request, subtask);
  ASSIGN_OR_RETURN(composed::AppliedRules drawn,
                   composed::DrawAndApplyRules(&rng, composed::CodeRules(), &draft, k, "code"));
  Sample s = NewSample(request, "code", subtask,
                       composed::PromptWithRules(composed::CodeBasePrompt(program.source),
                                                 drawn.instructions));
  s.params = {{"rules", std::move(drawn.params)}};
  s.context = {{"program_id", program.id},
               {"source_code", program.source},
               {"fn_name", program.fn_name},
               {"call_args", draft.call_args}};
  s.target = {{"answer", composed::RenderCode(draft)}};
  return s;
}

template <int K>
StatusOr<Sample> GenerateCodeK(const GenerateRequest& request) {
  return GenerateComposedCode(request, K, CodeSubtaskName<K>());
}

// What a composed code sample carries for its checks and its rebuilt answer.
struct CodeSampleView {
  const nlohmann::json* rules = nullptr;
  std::string source, fn_name, call_args;
};

StatusOr<CodeSampleView> ReadCodeSample(const Sample& sample) {
  CodeSampleView v;
  ASSIGN_OR_RETURN(v.rules, composed::RulesOfSample(sample, "code", &composed::FindCodeRule));
  for (auto [key, out] : {std::pair{"source_code", &v.source}, std::pair{"fn_name", &v.fn_name},
                          std::pair{"call_args", &v.call_args}}) {
    const auto it = sample.context.is_object() ? sample.context.find(key) : sample.context.end();
    if (!sample.context.is_object() || it == sample.context.end() || !it->is_string()) {
      return Status::InvalidArgument(
          fmt::format("sample '{}': context.{} is missing or not a string", sample.id, key));
    }
    *out = it->get<std::string>();
  }
  return v;
}

StatusOr<Verdict> CheckComposedCode(const Sample& sample, std::string_view response,
                                    RuleSet rules) {
  ASSIGN_OR_RETURN(const CodeSampleView v, ReadCodeSample(sample));
  const composed::CodeParsed parsed = composed::ParseCode(response, *v.rules, v.source, v.fn_name);
  Verdict verdict;
  verdict.checks = composed::CheckEachRule(*v.rules, parsed, rules, &composed::FindCodeRule);
  verdict.checks.push_back(composed::CheckCodeProgram(parsed));
  if (rules == RuleSet::kStrict) verdict.checks.push_back(composed::CheckCodeStatements(parsed));
  return composed::DecidedByChecks(std::move(verdict));
}

StatusOr<Verdict> CheckCodePaper(const Sample& sample, const SampleParams&,
                                 std::string_view response, const CheckEnv&) {
  return CheckComposedCode(sample, response, RuleSet::kPaper);
}
StatusOr<Verdict> CheckCodeStrict(const Sample& sample, const SampleParams&,
                                  std::string_view response, const CheckEnv&) {
  return CheckComposedCode(sample, response, RuleSet::kStrict);
}

// The reference draft, rebuilt from the given function and the rules' parameters (the
// generator's apply steps, replayed).
StatusOr<CodeDraft> RebuildCodeDraft(const Sample& sample) {
  ASSIGN_OR_RETURN(const CodeSampleView v, ReadCodeSample(sample));
  Program program;
  program.id = sample.context.value("program_id", sample.id);
  program.source = v.source;
  program.fn_name = v.fn_name;
  if (!v.call_args.empty()) program.inputs.push_back(v.call_args);
  ASSIGN_OR_RETURN(CodeDraft draft, composed::CodeDraftOf(program));
  for (const auto& r : *v.rules) {
    const CodeRule* def = composed::FindCodeRule(r["id"].get<std::string>());
    if (def->apply != nullptr) def->apply(r, &draft);
  }
  return draft;
}

// Every format rule held, the function's body gone: `pass`.
StatusOr<std::string> ComposedCodeSkeleton(const Sample& sample) {
  ASSIGN_OR_RETURN(CodeDraft draft, RebuildCodeDraft(sample));
  draft.stub = true;
  return composed::RenderCode(draft);
}

// Every format rule held, every name and value kept, and each operator swapped for
// another (`+` for `-`, `<` for `>`, `==` for `!=`): what the paper's `program`, which
// counts names and values, cannot see.
StatusOr<std::string> ComposedCodeLoophole(const Sample& sample) {
  ASSIGN_OR_RETURN(CodeDraft draft, RebuildCodeDraft(sample));
  draft.swap_operators = true;
  return composed::RenderCode(draft);
}

#define STRUCTTEST_COMPOSED_CODE_SPEC(K)                                                      \
  SubtaskSpec {                                                                               \
    CodeSubtaskName<K>(), Split::kHard,                                                       \
        "a given Python function rewritten under " #K " composed format rules",               \
        "rules (id and parameters of each)", &CheckCodePaper, false, &GenerateCodeK<K>,       \
        nullptr, &CheckCodeStrict, &ComposedCodeSkeleton, &ComposedCodeLoophole              \
  }

// Hard, as every composed subtask; the suite prepares the Easy code subtasks' functions
// for them (Suite::Plan).
const SubtaskSpec kCodeSubtasks[] = {
    STRUCTTEST_COMPOSED_CODE_SPEC(1), STRUCTTEST_COMPOSED_CODE_SPEC(2),
    STRUCTTEST_COMPOSED_CODE_SPEC(3), STRUCTTEST_COMPOSED_CODE_SPEC(4),
    STRUCTTEST_COMPOSED_CODE_SPEC(5), STRUCTTEST_COMPOSED_CODE_SPEC(6),
    STRUCTTEST_COMPOSED_CODE_SPEC(7), STRUCTTEST_COMPOSED_CODE_SPEC(8),
};
#undef STRUCTTEST_COMPOSED_CODE_SPEC

const TaskFamily kComposedCode = {
    "code",
    "composed: a given Python function rewritten under K format rules drawn from the code "
    "rule library",
    "paper-c1", kCodeSubtasks, "strict-c1"};

}  // namespace composed_code_internal

const TaskFamily& ComposedCodeFamily() { return composed_code_internal::kComposedCode; }

StatusOr<std::string> ComposedCodeAnswerWithBroken(
    const Sample& sample, const std::function<bool(std::string_view)>& broken) {
  using namespace composed_code_internal;  // NOLINT: this file's own helpers
  ASSIGN_OR_RETURN(CodeDraft draft, RebuildCodeDraft(sample));
  for (const auto& r : sample.params["rules"]) {
    const CodeRule* def = composed::FindCodeRule(r["id"].get<std::string>());
    if (broken(def->id)) def->violate(r, &draft);
  }
  return composed::RenderCode(draft);
}

}  // namespace structtest
