// The text rules of the code family that need no Python: answer extraction, the
// fenced-block rule, whole-word renaming and whitespace removal, each with the
// semantics of the reference's Python (str.strip, Unicode \w and \s). The checkers
// that need Python's judgement are in family.cc and go through the worker pool.
#ifndef STRUCTTEST_TASKS_CODE_RULES_H_
#define STRUCTTEST_TASKS_CODE_RULES_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace structtest {

// The paper's code answer: the text from the end of the FIRST start tag to the start
// of the LAST end tag when both exist and the end comes after the start, else the whole
// response; leftover tags replaced by a space; stripped (Python str.strip). Returns a
// view into `response`, or into *storage when tags had to be replaced.
std::string_view ExtractCodeSpan(std::string_view response, std::string_view start_tag,
                                 std::string_view end_tag, std::string* storage);

// Python's re.search(r"```(\w*)\n(.*?)```", text, re.DOTALL): the body of the first
// fenced block, stripped; or the stripped text when there is none. Returns a view
// into `text`.
std::string_view FirstFencedBlockOrText(std::string_view text);

// True when `s` is non-empty and every code point matches Python's \w (str.isalnum()
// or '_').
bool IsPyWord(std::string_view s);

// One old:new entry of a var_mapping.
using Renaming = std::pair<std::string, std::string>;

// The reference's renaming, re.sub(r"(?<!\.)\b" + old + r"\b", new, code) for each
// entry in order, for entries whose old and new are both IsPyWord: then every maximal
// \w run not preceded by '.' goes through the entries in order (a run equal to `old`
// becomes `new`), which is what the sequence of re.sub calls does.
// REQUIRES: IsPyWord(old) && IsPyWord(new) for every entry.
std::string RenameWholeWords(std::string_view source, const std::vector<Renaming>& renamings);

// `s` without any character Python's str.isspace() accepts (re.sub(r"\s+", "", s)),
// stopping once about `max_out` bytes are kept.
std::string RemovePyWhitespace(std::string_view s, size_t max_out = std::string_view::npos);

// Compares RemovePyWhitespace(s) with `without_space` without building the string:
// npos when equal, else the offset in `without_space` where they first differ (its size
// when RemovePyWhitespace(s) is longer); *s_offset is then the matching offset in `s`.
size_t MismatchIgnoringPyWhitespace(std::string_view s, std::string_view without_space,
                                    size_t* s_offset);

// Byte offset of the first difference of a and b (the shorter size when one is a
// prefix of the other); npos when equal.
size_t FirstDifference(std::string_view a, std::string_view b);

// `s` cut to about `max` bytes (at a code point boundary) with "..." when cut, and
// control characters shown as escapes, for use in a verdict's reason.
std::string Excerpt(std::string_view s, size_t max = 60);

}  // namespace structtest

#endif  // STRUCTTEST_TASKS_CODE_RULES_H_
