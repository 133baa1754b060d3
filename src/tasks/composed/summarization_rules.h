// The summarization rules of the composed suite: a document summarized in points, one
// line each, under K format rules drawn from SummarizationRules(). As for math
// (math_rules.h), the summary as parts (SummaryDraft) is what the rules change and
// RenderSummary writes; a response read back into parts (SummaryParsed) is what they
// check. Besides the drawn rules every verdict has `points` (at least one point, none
// empty) and, under strict, `content` (every point is the document's: most of its words
// are the document's, no point repeats another, and strict summarization's judgement of
// items holds: PointsContentProblem, which reads the points as English).
#ifndef STRUCTTEST_TASKS_COMPOSED_SUMMARIZATION_RULES_H_
#define STRUCTTEST_TASKS_COMPOSED_SUMMARIZATION_RULES_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "structtest/sample.h"
#include "tasks/composed/rule.h"

namespace structtest {
class SentenceSplitter;
}

namespace structtest::composed {

enum class PointMarker { kNone, kSymbol, kNumber };

struct SummaryDraft {
  std::string document;
  std::string title;
  std::string title_marker = "## ";
  std::vector<std::string> points;  // the content of each point, one line, no marker
  std::string spare;                // a fact of the document no point states
  PointMarker marker = PointMarker::kNone;
  std::string symbol;               // "-", "*", "•" for kSymbol
  bool marker_missing_first = false;
  int skip_number = -1;
  std::string opening;
  bool opening_skip_first = false;
  bool full_stops = false;
  bool full_stop_missing = false;
  size_t pad_first_point = 0;
  std::vector<std::string> keywords;  // the keywords line's words; none: no line
  bool keyword_missing = false;
  bool first_person_first = false;  // "We note that" before the first point (a violation)
  bool blank_lines = false;
  bool blank_line_missing = false;
  std::string envelope_key;
  bool envelope_preamble = false;
  // point-sentences: where each point's second sentence starts (a byte offset into
  // points[i]; empty: single facts), and whether the first point's two sentences are
  // joined by a semicolon into one (a violation).
  std::vector<size_t> second_sentence;
  bool sentences_joined_first = false;
};

struct SummaryParsed {
  std::string response;
  bool envelope_read = false;
  std::vector<std::string> lines;
  int title_line = -1;
  int keywords_line = -1;
  std::vector<int> point_lines;
  std::vector<std::string> point_texts;  // without their markers
  // The sentences of each point, by Punkt, when the sample's rules count them
  // (point-sentences); empty otherwise.
  std::vector<size_t> point_sentences;
  std::string document;
};

using SummaryRule = RuleDef<SummaryDraft, SummaryParsed>;

std::span<const SummaryRule> SummarizationRules();
const SummaryRule* FindSummaryRule(std::string_view id);

std::string RenderSummary(const SummaryDraft& draft);
// `sentences` counts the points' sentences when a rule asks for them (point-sentences);
// it may be null otherwise (SummaryRulesCountSentences says which).
SummaryParsed ParseSummary(std::string_view response, const nlohmann::json& rules,
                           std::string document, const SentenceSplitter* sentences);
// Whether the sample's rules count sentences (their check needs a SentenceSplitter).
bool SummaryRulesCountSentences(const nlohmann::json& rules);

// The checks every summarization verdict has: `points`, and under strict `content`.
RuleCheck CheckSummaryPoints(const SummaryParsed& parsed);
RuleCheck CheckSummaryContent(const SummaryParsed& parsed);

std::string SummaryBasePrompt(const SummaryDraft& draft);

}  // namespace structtest::composed

#endif  // STRUCTTEST_TASKS_COMPOSED_SUMMARIZATION_RULES_H_
