#include "tasks/code/generator.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/status_macros.h"
#include "sandbox/python_pool.h"
#include "sources/program_generator.h"
#include "sources/program_loader.h"
#include "sources/program_store.h"
#include "tasks/code/code_test_util.h"
#include "tasks/code/family.h"
#include "testing/test_support.h"

namespace structtest {
namespace {

int CountOf(std::string_view text, std::string_view what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Prepares each program into a store, as Suite::Plan does.
struct Prepared {
  std::vector<Program> programs;
  std::unique_ptr<ProgramStore> store;
};

class CodeGeneratorTest : public ::testing::Test {
 protected:
  // The first `count` built-in functions (or stdin programs) of `seed`, prepared, as a
  // list and in a store.
  Prepared Build(uint64_t seed, size_t count, bool functions) {
    Prepared out;
    auto store = ProgramStore::Create();
    EXPECT_TRUE(store.ok()) << store.status().message();
    if (!store.ok()) return out;
    out.store = std::move(store).value();
    ProgramSink keep = [&](Program p) -> Status {
      RETURN_IF_ERROR(PrepareCodeProgram(seed, &pool_, &p));
      out.programs.push_back(p);
      return out.store->Append(p);
    };
    const Status s = functions ? BuildFunctionPrograms(seed, count, &pool_, keep)
                               : BuildStdinPrograms(seed, count, &pool_, keep);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(out.programs.size(), count);
    return out;
  }

  void SetUp() override {
    auto info = pool_.Info();
    if (!info.ok()) GTEST_SKIP() << "no usable python3: " << info.status().message();
    env_.python = &pool_;
  }

  // Generates `count` samples (every `step`-th index) of `subtask` and checks that the
  // oracle answer passes and an empty answer fails.
  void ExpectOraclePasses(std::string_view subtask, const SourceSet& sources, size_t count,
                          size_t step = 1) {
    const SubtaskSpec& spec = Spec(subtask);
    ASSERT_NE(spec.generate, nullptr) << subtask;
    for (size_t i = 0; i < count; i += step) {
      GenerateRequest request;
      request.seed = 4;
      request.index = i;
      request.sources = &sources;
      auto sample = spec.generate(request);
      ASSERT_TRUE(sample.ok()) << subtask << " " << i << ": " << sample.status().message();
      EXPECT_EQ(sample->subtask, subtask);
      const std::string& prompt = sample->messages.at(0).content;
      EXPECT_NE(prompt.find("<ans>"), std::string::npos);
      EXPECT_NE(prompt.find("</ans>"), std::string::npos);
      const std::string answer = sample->target.at("answer").get<std::string>();
      auto v = CodeFamily().Check(spec, RuleSet::kPaper, *sample, answer, env_);
      ASSERT_TRUE(v.ok()) << subtask << " " << i << ": " << v.status().message();
      EXPECT_TRUE(v->pass) << subtask << " " << i << ": " << v->reason << "\n" << answer;
      auto empty = CodeFamily().Check(spec, RuleSet::kPaper, *sample, "", env_);
      ASSERT_TRUE(empty.ok()) << empty.status().message();
      EXPECT_FALSE(empty->pass) << subtask << " " << i;
    }
  }

  PythonPool pool_;
  CheckEnv env_;
};

TEST_F(CodeGeneratorTest, BuiltInTargetsAreNonTrivial) {
  const Prepared functions = Build(2, 40, true);
  const Prepared programs = Build(2, 15, false);
  for (const auto* list : {&functions.programs, &programs.programs}) {
    for (const Program& p : *list) {
      EXPECT_GT(CountOf(p.printed_source, "print(\""), CountOf(p.source, "print(\"")) << p.source;
      EXPECT_FALSE(p.var_mapping.empty()) << p.id;
      EXPECT_NE(p.renamed_source, p.source) << p.id;
      EXPECT_LE(p.var_mapping.size(), 4u);
    }
  }
  // Same seed, same preparation.
  const Prepared again = Build(2, 40, true);
  ASSERT_EQ(again.programs.size(), functions.programs.size());
  for (size_t i = 0; i < again.programs.size(); ++i) {
    EXPECT_EQ(again.programs[i].var_mapping, functions.programs[i].var_mapping);
    EXPECT_EQ(again.programs[i].printed_source, functions.programs[i].printed_source);
    EXPECT_EQ(again.programs[i].outputs, functions.programs[i].outputs);
  }
}

TEST_F(CodeGeneratorTest, PrintsFollowTheCheckersRules) {
  Program p;
  p.id = "p";
  p.source =
      "def f(a, b):\n    x = y = a\n    a[0] = 1\n    t, u = 1, 2\n    if x == y:\n"
      "        return x\n    z += 1\n    w = 3\n    q = x == y\n    a[1] = 2";
  ASSERT_TRUE(PrepareCodeProgram(1, &pool_, &p).ok());
  EXPECT_EQ(p.printed_source,
            "def f(a, b):\n    x = y = a\n    print(\"x: \", str(x), \"y: \", str(y))\n"
            "    a[0] = 1\n    t, u = 1, 2\n    if x == y:\n        return x\n    z += 1\n"
            "    w = 3\n    print(\"w: \", str(w))\n    q = x == y\n    print(\"q: \", str(q))\n"
            "    a[1] = 2\n    pass");
}

TEST_F(CodeGeneratorTest, OraclePassesOnBuiltInPrograms) {
  const Prepared functions = Build(4, 12, true);
  const Prepared programs = Build(4, 6, false);
  ASSERT_TRUE(functions.store && programs.store);
  SourceSet sources;
  sources.functions = functions.store.get();
  sources.stdin_programs = programs.store.get();
  for (std::string_view t : {"add_print_statements", "replace_variables", "test_case_inputs_gen",
                             "simulate_execute"}) {
    ExpectOraclePasses(t, sources, 12);
  }
  for (std::string_view t : {"add_print_statements_v2", "replace_variables_v2",
                             "test_case_inputs_gen_v2", "simulate_execute_v2"}) {
    ExpectOraclePasses(t, sources, 6);
  }
}

TEST_F(CodeGeneratorTest, MissingSourcesAreAnError) {
  SourceSet empty;
  GenerateRequest request;
  request.sources = &empty;
  for (const SubtaskSpec& s : CodeFamily().subtasks) {
    auto r = s.generate(request);
    EXPECT_FALSE(r.ok()) << s.name;
  }
}

// The paper suite's Easy data: the oracle passes on the MBPP functions too (the
// sandbox-heavy subtasks on a sample of them).
TEST_F(CodeGeneratorTest, OraclePassesOnThePapersMbppData) {
  SKIP_WITHOUT_SHARED();
  auto functions =
      LoadMbpp(::structtest::testing::SharedDir() + "/conformance/data/mbpp_structtest.json");
  ASSERT_TRUE(functions.ok()) << functions.status().message();
  auto store = ProgramStore::Create();
  ASSERT_TRUE(store.ok()) << store.status().message();
  for (Program& p : *functions) {
    ASSERT_TRUE(PrepareCodeProgram(0, &pool_, &p).ok()) << p.id;
    ASSERT_TRUE((*store)->Append(p).ok());
  }
  SourceSet sources;
  sources.functions = store->get();
  ExpectOraclePasses("add_print_statements", sources, 240);
  ExpectOraclePasses("replace_variables", sources, 240);
  ExpectOraclePasses("test_case_inputs_gen", sources, 240, 7);
  ExpectOraclePasses("simulate_execute", sources, 725, 11);
}

}  // namespace
}  // namespace structtest
