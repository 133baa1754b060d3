#include "tasks/math/generator.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "sources/math_generator.h"
#include "sources/math_problem.h"
#include "tasks/generate_util.h"
#include "tasks/math/formats.h"

namespace structtest::math_internal {

namespace {

// How each answer phrase is asked for and written; the order is the paper's format
// numbering (Suffix1..7, and 1..4 within each hard step style).
struct AnswerStyle {
  std::string_view phrase;
  std::string_view before;  // written before the answer
  std::string_view after;   // and after it
};

constexpr AnswerStyle kEasyStyles[] = {
    {"The answer is:", "The answer is: ", ""}, {"###", "### ", ""},
    {"The final answer is", "The final answer is ", ""}, {"Result:", "Result: ", ""},
    {"\\boxed{", "\\boxed{", "}"}, {"Result: $", "Result: $", "$"},
    {"<result>", "<result>", "</result>"},
};

constexpr AnswerStyle kHardStyles[] = {
    {"The answer is:", "The answer is: ", ""}, {"####", "#### ", ""},
    {"Final result:", "Final result: ", ""}, {"\\boxed{", "\\boxed{", "}"},
};

StatusOr<MathProblem> GetProblem(const GenerateRequest& request) {
  const SourceSet* sources = request.sources;
  if (sources != nullptr && !sources->math_problems.empty()) {
    return sources->math_problems[request.index % sources->math_problems.size()];
  }
  if (sources != nullptr && sources->generated_math_problems > 0) {
    return GenerateMathProblem(sources->generated_seed,
                               request.index % sources->generated_math_problems, sources->split);
  }
  return Status::InvalidArgument("math needs word problems (none were given)");
}

std::string RenderAnswerLine(const AnswerStyle& style, std::string_view answer) {
  return fmt::format("{}{}{}", style.before, answer, style.after);
}

std::string AnswerInstruction(const AnswerStyle& style) {
  return fmt::format("`{}`, with N replaced by the final answer written as a bare number "
                     "(no units)",
                     RenderAnswerLine(style, "N"));
}

Sample FinishSample(const GenerateRequest& request, std::string_view subtask,
              const MathProblem& problem, int format, std::string prompt, std::string answer) {
  Sample s = NewSample(request, "math", subtask, std::move(prompt));
  s.params = {{"math_format_name",
               subtask == "math_easy" ? fmt::format("Suffix{}PhrasesMathFormat", format)
                                      : fmt::format("BulletPoints{}MathFormat", format)}};
  s.context = {{"problem_id", problem.id},
               {"question", problem.question},
               {"gold_answer", problem.answer}};
  s.target = {{"answer", std::move(answer)}, {"gold_answer", problem.answer}};
  return s;
}

std::string StepInstruction(StepStyle style) {
  switch (style) {
    case StepStyle::kHashHeaders:
      return "Start each step with a header line `### N` (N = 1, 2, 3, ...) and write the "
             "step below it. Separate steps by a blank line.";
    case StepStyle::kNumberedLines:
      return "Write each step as a paragraph starting with `N. ` (N = 1, 2, 3, ...). "
             "Separate steps by a blank line.";
    case StepStyle::kBoldSteps:
      return "Start each step with `**Step N** ` (N = 1, 2, 3, ...) followed by the step. "
             "Separate steps by a blank line.";
    case StepStyle::kJsonList:
      return "Give the steps as a JSON list of strings, one string per step, in a "
             "```json code block.";
    case StepStyle::kJsonObject:
      return "Give the steps as a JSON object whose keys are \"1\", \"2\", \"3\", ... and "
             "whose values are the steps as strings, in a ```json code block.";
  }
  return "";
}

std::string RenderSteps(StepStyle style, const std::vector<std::string>& steps) {
  std::string out;
  switch (style) {
    case StepStyle::kHashHeaders:
    case StepStyle::kNumberedLines:
    case StepStyle::kBoldSteps:
      for (size_t i = 0; i < steps.size(); ++i) {
        if (i) out += "\n\n";
        if (style == StepStyle::kHashHeaders) out += fmt::format("### {}\n{}", i + 1, steps[i]);
        if (style == StepStyle::kNumberedLines) out += fmt::format("{}. {}", i + 1, steps[i]);
        if (style == StepStyle::kBoldSteps) out += fmt::format("**Step {}** {}", i + 1, steps[i]);
      }
      return out;
    case StepStyle::kJsonList:
      return "```json\n" + nlohmann::json(steps).dump(2) + "\n```";
    case StepStyle::kJsonObject: {
      nlohmann::ordered_json obj = nlohmann::ordered_json::object();
      for (size_t i = 0; i < steps.size(); ++i) obj[std::to_string(i + 1)] = steps[i];
      return "```json\n" + obj.dump(2) + "\n```";
    }
  }
  return out;
}

}  // namespace

StatusOr<Sample> GenerateMathEasy(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(const MathProblem problem, GetProblem(request));
  Rng rng = SampleRng(request, "math_easy");
  const int format = static_cast<int>(rng.UniformInt(1, std::size(kEasyStyles)));
  const AnswerStyle& style = kEasyStyles[format - 1];
  const std::string prompt = fmt::format(
      "Solve this math problem. Show your reasoning, then end your response with a last "
      "line of exactly this form: {}.\n\nProblem: {}",
      AnswerInstruction(style), problem.question);
  std::string answer;
  for (const std::string& step : problem.steps) answer += step + "\n";
  answer += RenderAnswerLine(style, problem.answer);
  return FinishSample(request, "math_easy", problem, format, prompt, std::move(answer));
}

StatusOr<Sample> GenerateMathHard(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(const MathProblem problem, GetProblem(request));
  Rng rng = SampleRng(request, "math_hard");
  const int format = static_cast<int>(rng.UniformInt(1, 20));
  const StepStyle step_style = static_cast<StepStyle>((format - 1) / 4);
  const AnswerStyle& style = kHardStyles[(format - 1) % 4];
  const std::string prompt = fmt::format(
      "Solve this math problem step by step, in at least 3 and at most 10 steps. {} After "
      "the steps, write the final answer on its own line as {}.\n\nProblem: {}",
      StepInstruction(step_style), AnswerInstruction(style), problem.question);
  std::string answer = RenderSteps(step_style, problem.steps);
  answer += "\n\n" + RenderAnswerLine(style, problem.answer);
  return FinishSample(request, "math_hard", problem, format, prompt, std::move(answer));
}

}  // namespace structtest::math_internal
