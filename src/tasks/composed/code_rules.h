// The code rules of the composed suite. The base task: "rewrite this given Python
// function" (a function of the code family's built-in source, the program the code
// subtasks show), keeping what it does, under K format rules drawn from CodeRules().
//
// Why this base task: its domain check is decided on the text alone, without running
// anything, so composed code needs the python sandbox only where the code family's own
// C++ API already uses it (building and preparing the suite's functions). Under paper,
// `program` asks that the function's statements survive: the multiset of its names,
// keywords and values (numbers, strings by their value) equals the given function's,
// once what the rules may change is set aside (comments, docstrings, reading prints,
// the `__main__` guard, type annotations, the names the rules rename). Under strict,
// `statements` asks for the same program: the same logical lines, with the same
// tokens (operators too) at the same nesting, in the same order, so that an empty,
// stubbed or altered function fails; only prints that just read names (`str(x)`) are
// set aside, not a print that hides code.
//
// As for math (math_rules.h), the answer as parts (CodeDraft) is what the rules change
// and RenderCode writes; a response read back into parts (CodeParsed, by ParseCode
// given the sample's rules) is what they check: its code (the body of its fenced block
// when it has one, else its text without the closing line a rule asks for), tokenized
// into Python's logical lines.
#ifndef STRUCTTEST_TASKS_COMPOSED_CODE_RULES_H_
#define STRUCTTEST_TASKS_COMPOSED_CODE_RULES_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sources/program.h"
#include "structtest/sample.h"
#include "structtest/status.h"
#include "tasks/composed/rule.h"

namespace structtest::composed {

// A one-function program as parts, and what the rules did to it.
struct CodeDraft {
  std::string fn_name;                              // as in the given source
  std::vector<std::string> params;                  // the parameters' names
  std::vector<std::pair<int, std::string>> body;    // (depth >= 1, text) per line
  std::string call_args;                            // the first input: "[1, 2], 3"
  // What the rules change (a flag named *_missing, *_kept, ... is a violation).
  std::string new_fn_name;
  bool fn_name_kept = false;
  std::string rename_prefix;
  std::vector<std::string> renamed;                 // the names given the prefix
  std::string rename_skipped;                       // one of them left as it was
  std::vector<std::string> param_types;             // "" none; one per parameter
  bool hint_missing_first = false;
  bool prints = false;
  bool print_missing_first = false;
  std::string docstring;
  bool docstring_missing = false;
  std::string header;                               // the text of `# header`
  std::string return_comment;
  bool return_comment_missing = false;
  bool guard = false;
  int indent = 4;
  bool single_quotes = false;
  bool single_quote_missing_first = false;
  bool trailing_space = false;
  size_t long_comment = 0;                          // a comment line this long above the def
  bool fenced = false;
  std::string fence_tag = "python";
  std::string closing;
  // The built-in cheaters: the body replaced by `pass`, or its operators swapped.
  bool stub = false;
  bool swap_operators = false;
};

// A token of Python source, as the rules read it.
struct CodeToken {
  enum class Kind { kName, kNumber, kString, kOp };
  Kind kind = Kind::kOp;
  std::string text;
  size_t pos = 0;  // byte offset in the text tokenized
};

// A logical line: one statement's tokens (comments and line breaks inside brackets
// dropped), the physical line it starts on and its indentation.
struct CodeLine {
  int line = 0;
  std::string indent;
  std::vector<CodeToken> tokens;
};

struct CodeParsed {
  std::string response;
  std::vector<std::string> lines;       // the response's lines
  std::vector<int> fence_lines;         // lines opening or closing a fenced block
  int closing_line = -1;
  std::vector<std::string> code;        // the code's physical lines
  std::vector<CodeLine> logical;        // the code's logical lines
  // The given function, for `program` and `statements`, and the names the sample's
  // rules rename (new name -> given name).
  std::vector<CodeLine> source;
  std::vector<std::pair<std::string, std::string>> renames;
};

using CodeRule = RuleDef<CodeDraft, CodeParsed>;

std::span<const CodeRule> CodeRules();
const CodeRule* FindCodeRule(std::string_view id);

// The draft of `program`, a built-in function: one `def` line with plain parameters,
// then its body, four spaces a level, one statement a line, no comments, strings on
// their own or prints. Errors name the program and what does not fit.
StatusOr<CodeDraft> CodeDraftOf(const Program& program);

std::string RenderCode(const CodeDraft& draft);
CodeParsed ParseCode(std::string_view response, const nlohmann::json& rules,
                     std::string_view source, std::string_view fn_name);

// The checks every code verdict has: `program`, and under strict `statements`.
RuleCheck CheckCodeProgram(const CodeParsed& parsed);
RuleCheck CheckCodeStatements(const CodeParsed& parsed);

std::string CodeBasePrompt(std::string_view source);

// Python's logical lines of `code` (exposed for tests).
std::vector<CodeLine> CodeLogicalLines(std::string_view code);

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_CODE_RULES_H_
