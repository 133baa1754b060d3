// The strict rule set for the HTML family (docs/strict.md): the answer's element
// tree, built parent by parent, must be exactly the asked one: one <html> holding the
// asked heads and bodies, each head the asked titles, each body the asked divs and
// footers, each div the asked h1, h2 and p; no other tags, no text directly inside a
// structural element, every element closed in order. Also the built-in cheating
// answers the strict checker is tested against (builtin/skeleton, builtin/loophole).
#ifndef STRUCTTEST_TASKS_HTML_STRICT_H_
#define STRUCTTEST_TASKS_HTML_STRICT_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tasks/task.h"

namespace structtest::html_internal {

// The first bare word in a start tag's interior (what lies between its name and its
// '>') that is no HTML attribute name (global and presentational attributes, data-*,
// aria-*, on*, xml*), or "": text written inside a tag. Shared with the composed HTML
// rules (tasks/composed/html_rules.cc).
std::string_view NonAttributeWord(std::string_view interior);

// Why HTML ends the comment `text` (`<!--` ... `>`, as html.parser delimits it)
// elsewhere than html.parser does, or "" when both end it at its end.
std::string_view CommentEndsElsewhere(std::string_view text);

// The family's TaskFamily::parse_params (family.cc).
void ParseHtmlParams(const nlohmann::json& params, RuleSet rules, SampleParams* out);

// params.no_of_tags (`counts`), the per-parent counts the prompt states, as
// HtmlParams::no_of_tags holds them; ground_truth, when `params` has it, must hold the
// same totals. Errors: malformed counts, totals that differ.
StatusOr<std::array<int64_t, kHtmlTagNames.size()>> ReadNoOfTags(const nlohmann::json& counts,
                                                                 const nlohmann::json& params);

// Reads the parsed params.no_of_tags.
StatusOr<Verdict> CheckHtmlStrict(const Sample& sample, const SampleParams& params,
                                  std::string_view response, const CheckEnv& env);

// The asked tags with the right totals but misplaced, chosen by the sample id: every
// tag closed at once with no nesting, all divs in the first body, or the asked tree
// with filler text written directly inside its structural elements. Passes the paper
// rule, fails strict.
StatusOr<std::string> HtmlSkeleton(const Sample& sample);

// The cheapest answer the paper rule passes: `<html><html/></html>` (the span between
// the tags holds one matched <html> pair, ground_truth says html 1, and the names that
// do not occur are never checked).
StatusOr<std::string> HtmlLoophole(const Sample& sample);

}  // namespace structtest::html_internal

#endif  // STRUCTTEST_TASKS_HTML_STRICT_H_
