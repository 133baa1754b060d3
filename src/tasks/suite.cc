#include "tasks/suite.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "sources/document_generator.h"
#include "sources/document_loader.h"
#include "sources/gsm8k_loader.h"
#include "sources/math_generator.h"
#include "sources/program_generator.h"
#include "sources/program_loader.h"
#include "sandbox/python_pool.h"
#include "tasks/code/generator.h"
#include "tasks/composed/composed.h"

namespace structtest {

size_t PaperSampleCount(const SubtaskRef& ref) {
  const std::string_view d = ref.family->domain;
  if (d == "summarization") return 1200;
  if (d == "code") {
    if (ref.spec->name == "simulate_execute") return 725;
    return ref.spec->split == Split::kEasy ? 240 : 199;
  }
  if (d == "html") return 300;
  if (d == "math") return 1319;
  return 100;
}

StatusOr<std::vector<SubtaskRef>> ResolveTasks(const std::vector<std::string>& tasks) {
  std::vector<SubtaskRef> all;
  for (const TaskFamily* f : Families()) {
    for (const SubtaskSpec& s : f->subtasks) all.push_back({f, &s});
  }
  if (tasks.empty()) return all;
  std::vector<bool> wanted(all.size(), false);
  for (const std::string& t : tasks) {
    bool matched = false;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].family->domain == t || all[i].spec->name == t) {
        wanted[i] = true;
        matched = true;
      }
    }
    if (!matched) {
      return Status::NotFound(fmt::format(
          "`tasks`: '{}' is neither a subtask nor a domain{}; run 'structtest tasks' for "
          "the list",
          t, DidYouMean(t)));
    }
  }
  std::vector<SubtaskRef> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (wanted[i]) out.push_back(all[i]);
  }
  return out;
}

StatusOr<size_t> ParseSampleLimit(std::string_view text) {
  size_t n = 0;
  const bool digits = !text.empty() && text.size() <= 12 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    for (char c : text) n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (!digits || n == 0) {
    return Status::InvalidArgument(fmt::format(
        "`limit`: '{}' is not a positive whole number (of samples per subtask)", text));
  }
  return n;
}

namespace {

// The sink of the program builders: each program kept is prepared and stored.
ProgramSink PrepareInto(uint64_t seed, PythonPool* python, ProgramStore* store) {
  return [seed, python, store](Program p) -> Status {
    RETURN_IF_ERROR(PrepareCodeProgram(seed, python, &p));
    return store->Append(p);
  };
}

// Prepares and stores the user's programs in order, only as many as the samples draw
// from: the first `programs` of them, and enough for `test_pairs` simulate_execute
// samples (all of them when they are fewer). Sample i then gets the same program, or
// (program, test) pair, as it would from the whole file.
Status StoreLoaded(uint64_t seed, PythonPool* python, std::vector<Program> loaded,
                   size_t programs, size_t test_pairs, ProgramStore* store) {
  for (Program& p : loaded) {
    if (store->size() >= programs && store->test_pairs() >= test_pairs) break;
    RETURN_IF_ERROR(PrepareCodeProgram(seed, python, &p));
    RETURN_IF_ERROR(store->Append(p));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<int> ComposedRulesPerSample(const GenerateOptions& options) {
  const bool composed = options.suite == "composed";
  if (!composed && (options.rules_per_sample != 0 || !options.difficulty.empty())) {
    return Status::InvalidArgument(fmt::format(
        "`{}`: only the composed suite takes it (the suite is '{}')",
        options.rules_per_sample != 0 ? "rules_per_sample" : "difficulty", options.suite));
  }
  if (!composed) return 0;
  if (options.rules_per_sample != 0 && !options.difficulty.empty()) {
    return Status::InvalidArgument(
        "`rules_per_sample` and `difficulty`: give one of them, not both");
  }
  if (!options.difficulty.empty()) return RulesForDifficulty(options.difficulty);
  if (options.rules_per_sample == 0) return kDefaultRulesPerSample;
  if (options.rules_per_sample < 1 || options.rules_per_sample > kMaxRulesPerSample) {
    return Status::InvalidArgument(fmt::format("`rules_per_sample`: {} is not in 1..{}",
                                               options.rules_per_sample, kMaxRulesPerSample));
  }
  return options.rules_per_sample;
}

namespace {

StatusOr<std::vector<SubtaskRef>> ResolveComposedTasks(const std::vector<std::string>& tasks,
                                                       int rules_per_sample) {
  std::vector<SubtaskRef> all;
  for (const TaskFamily* f : ComposedFamilies()) {
    all.push_back({f, ComposedSubtask(*f, rules_per_sample)});
  }
  if (tasks.empty()) return all;
  std::vector<SubtaskRef> out;
  for (const SubtaskRef& ref : all) {
    const bool wanted = std::any_of(tasks.begin(), tasks.end(), [&](const std::string& t) {
      return t == ref.family->domain || t == ref.spec->name;
    });
    if (wanted) out.push_back(ref);
  }
  for (const std::string& t : tasks) {
    const bool known = std::any_of(all.begin(), all.end(), [&](const SubtaskRef& ref) {
      return t == ref.family->domain || t == ref.spec->name;
    });
    if (!known) {
      std::string domains;
      for (const SubtaskRef& ref : all) domains += (domains.empty() ? "" : ", ") + std::string(ref.family->domain);
      return Status::NotFound(fmt::format(
          "`tasks`: '{}' is not a domain of the composed suite (it has: {})", t, domains));
    }
  }
  return out;
}

}  // namespace

Status CheckSuiteOptions(const GenerateOptions& options) {
  ASSIGN_OR_RETURN(const SourceSplit split, ParseSourceSplit(options.split));
  if (options.suite != "default" && options.suite != "paper" && options.suite != "composed") {
    return Status::InvalidArgument(fmt::format(
        "`suite`: unknown suite '{}' (expected 'default', 'paper' or 'composed')", options.suite));
  }
  if (!(options.size > 0) || !std::isfinite(options.size) || options.size > 1000) {
    return Status::InvalidArgument(
        fmt::format("`size`: {} is not a scale in (0, 1000]", options.size));
  }
  ASSIGN_OR_RETURN(const int rules_per_sample, ComposedRulesPerSample(options));
  if (options.suite == "composed") {
    RETURN_IF_ERROR(ResolveComposedTasks(options.tasks, rules_per_sample).status());
  } else {
    RETURN_IF_ERROR(ResolveTasks(options.tasks).status());
  }
  if (split == SourceSplit::kTrain) {
    if (options.suite == "paper") {
      return Status::InvalidArgument(fmt::format(
          "`split` train: the {} suite has no train split (its items are the paper's test "
          "items); use the default suite",
          options.suite));
    }
    for (const auto& [flag, file] : {std::pair{"`documents`", &options.documents},
                                     std::pair{"`mbpp`", &options.mbpp},
                                     std::pair{"`apps`", &options.apps},
                                     std::pair{"`gsm8k`", &options.gsm8k}}) {
      if (!file->empty()) {
        return Status::InvalidArgument(fmt::format(
            "`split` train takes no {} FILE: the train split draws only from the built-in "
            "sources, whose train items no eval suite holds; the items of a file may be in "
            "one",
            flag));
      }
    }
  }
  if (options.suite != "paper") return Status::Ok();
  ASSIGN_OR_RETURN(std::vector<SubtaskRef> refs, ResolveTasks(options.tasks));
  bool docs = false, problems = false, functions = false, stdin_programs = false;
  for (const SubtaskRef& ref : refs) {
    if (ref.spec->generate == nullptr) continue;
    const std::string_view domain = ref.family->domain;
    docs |= domain == "summarization";
    problems |= domain == "math";
    if (domain == "code") {
      (ref.spec->split == Split::kHard ? stdin_programs : functions) = true;
    }
  }
  std::string missing;
  if (docs && options.documents.empty()) {
    missing += "\n  `documents` FILE (1200 documents for the summarization subtasks)";
  }
  if (functions && options.mbpp.empty()) {
    missing += "\n  `mbpp` FILE (MBPP-style functions for the Easy code subtasks)";
  }
  if (stdin_programs && options.apps.empty()) {
    missing += "\n  `apps` FILE (APPS-style programs for the Hard code subtasks)";
  }
  if (problems && options.gsm8k.empty()) {
    missing += "\n  `gsm8k` FILE (the GSM8K test split, 1319 problems)";
  }
  if (!missing.empty()) {
    return Status::InvalidArgument("the paper suite needs the user's data:" + missing);
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<Suite>> Suite::Plan(const GenerateOptions& options,
                                             const SentenceSplitter* sentences,
                                             PythonPool* python) {
  RETURN_IF_ERROR(CheckSuiteOptions(options));
  ASSIGN_OR_RETURN(const SourceSplit split, ParseSourceSplit(options.split));
  ASSIGN_OR_RETURN(const int rules_per_sample, ComposedRulesPerSample(options));
  ASSIGN_OR_RETURN(std::vector<SubtaskRef> refs,
                   options.suite == "composed" ? ResolveComposedTasks(options.tasks, rules_per_sample)
                                               : ResolveTasks(options.tasks));

  std::unique_ptr<Suite> suite(new Suite());
  suite->options_ = options;
  suite->sentences_ = sentences;
  size_t max_docs = 0, max_problems = 0;
  size_t max_functions = 0, max_stdin_programs = 0;
  size_t max_easy_code = 0, simulate_samples = 0;  // for loaded functions
  for (const SubtaskRef& ref : refs) {
    if (ref.spec->generate == nullptr) {
      suite->skipped_.push_back(std::string(ref.spec->name));
      continue;
    }
    size_t count = std::max<size_t>(
        1, static_cast<size_t>(std::llround(PaperSampleCount(ref) * options.size)));
    if (options.limit > 0) count = std::min(count, options.limit);
    suite->subtasks_.push_back({ref, count});
    if (ref.family->domain == "summarization") max_docs = std::max(max_docs, count);
    if (ref.family->domain == "math") max_problems = std::max(max_problems, count);
    if (ref.family->domain == "code") {
      // The composed suite's code subtasks (Hard, as every composed subtask) rewrite the
      // Easy subtasks' functions.
      if (ref.spec->split == Split::kHard && options.suite != "composed") {
        max_stdin_programs = std::max(max_stdin_programs, count);
      } else if (ref.spec->name == "simulate_execute") {
        max_functions = std::max(max_functions, CodeProgramsForSimulateSamples(count));
        simulate_samples = count;
      } else {
        max_functions = std::max(max_functions, count);
        max_easy_code = std::max(max_easy_code, count);
      }
    }
  }
  if (suite->subtasks_.empty()) {
    return Status::Unimplemented("none of the selected subtasks can be generated by this build");
  }


  // A data file with fewer items than a subtask's samples is used again from its start:
  // said, not done silently.
  const auto note_reuse = [&](std::string_view field, const std::string& file, size_t items,
                              size_t samples, std::string_view what) {
    if (items == 0 || items >= samples) return;
    suite->notes_.push_back(fmt::format(
        "{} {}: {} {} for up to {} samples of a subtask: each is used by about {} samples "
        "(the intervals count an item's samples together)",
        field, file, items, what, samples, (samples + items - 1) / items));
  };
  if (max_docs > 0) {
    if (!options.documents.empty()) {
      ASSIGN_OR_RETURN(LoadedDocuments loaded, LoadDocuments(options.documents));
      suite->documents_ = std::move(loaded.documents);
      note_reuse("`documents`", options.documents, suite->documents_.size(), max_docs,
                 "documents");
    } else {
      suite->sources_.generated_documents = max_docs;
    }
  }
  if (max_problems > 0) {
    if (!options.gsm8k.empty()) {
      ASSIGN_OR_RETURN(suite->math_problems_, LoadGsm8k(options.gsm8k));
      note_reuse("`gsm8k`", options.gsm8k, suite->math_problems_.size(), max_problems,
                 "problems");
    } else {
      suite->sources_.generated_math_problems = max_problems;
    }
  }
  if (max_functions > 0 || max_stdin_programs > 0) {
    std::unique_ptr<PythonPool> own_python;
    if (python == nullptr) {
      own_python = std::make_unique<PythonPool>();
      python = own_python.get();
    }
    if (max_functions > 0) {
      ASSIGN_OR_RETURN(suite->functions_, ProgramStore::Create());
      if (!options.mbpp.empty()) {
        ASSIGN_OR_RETURN(std::vector<Program> loaded, LoadMbpp(options.mbpp));
        RETURN_IF_ERROR(StoreLoaded(options.seed, python, std::move(loaded), max_easy_code,
                                    simulate_samples, suite->functions_.get()));
        note_reuse("`mbpp`", options.mbpp, suite->functions_->size(), max_easy_code,
                   "functions");
      } else {
        RETURN_IF_ERROR(BuildFunctionPrograms(
            options.seed, max_functions, python,
            PrepareInto(options.seed, python, suite->functions_.get()), &suite->sandbox_runs_,
            split));
      }
    }
    if (max_stdin_programs > 0) {
      ASSIGN_OR_RETURN(suite->stdin_programs_, ProgramStore::Create());
      if (!options.apps.empty()) {
        ASSIGN_OR_RETURN(std::vector<Program> loaded, LoadApps(options.apps));
        RETURN_IF_ERROR(StoreLoaded(options.seed, python, std::move(loaded), max_stdin_programs,
                                    0, suite->stdin_programs_.get()));
        note_reuse("`apps`", options.apps, suite->stdin_programs_->size(), max_stdin_programs,
                   "programs");
      } else {
        RETURN_IF_ERROR(BuildStdinPrograms(
            options.seed, max_stdin_programs, python,
            PrepareInto(options.seed, python, suite->stdin_programs_.get()),
            &suite->sandbox_runs_, split));
      }
    }
  }
  suite->sources_.generated_seed = options.seed;
  suite->sources_.split = split;
  suite->sources_.documents = suite->documents_;
  suite->sources_.math_problems = suite->math_problems_;
  suite->sources_.functions = suite->functions_.get();
  suite->sources_.stdin_programs = suite->stdin_programs_.get();
  return suite;
}

size_t Suite::total() const {
  size_t n = 0;
  for (const auto& s : subtasks_) n += s.count;
  return n;
}

StatusOr<Sample> Suite::Generate(const PlannedSubtask& planned, size_t index) const {
  GenerateRequest request;
  request.seed = options_.seed;
  request.index = index;
  request.sources = &sources_;
  request.sentences = sentences_;
  return planned.ref.spec->generate(request);
}

}  // namespace structtest
