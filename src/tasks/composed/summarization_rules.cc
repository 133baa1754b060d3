#include "tasks/composed/summarization_rules.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "tasks/composed/rule_text.h"
#include "tasks/composed/source_text.h"
#include "tasks/summarization/strict.h"
#include "text/punkt.h"

namespace structtest::composed {

// The composed library is a unity build: this file's helpers have a namespace of their
// own so as not to meet math_rules.cc's.
namespace summary_internal {

bool Letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The first `n` distinct words of at least 7 letters of the points: the keywords line.
std::vector<std::string> KeywordsOf(const SummaryDraft& d, int n) {
  std::vector<std::string> out;
  for (const std::string& p : d.points) {
    for (std::string& w : SourceWords(p)) {
      if (static_cast<int>(out.size()) == n) return out;
      if (w.size() >= 7 && std::all_of(w.begin(), w.end(), Letter) &&
          std::find(out.begin(), out.end(), w) == out.end()) {
        out.push_back(std::move(w));
      }
    }
  }
  return out;
}

constexpr std::string_view kPadding[] = {"and", "this", "is", "said", "again", "in", "other",
                                         "words", "for", "clarity"};

std::string PointText(const SummaryDraft& d, size_t i) {
  std::string text(TrimBlanks(d.points[i]));
  if (i == 0 && d.sentences_joined_first && !d.second_sentence.empty()) {
    // "A. B." -> "A; B.": the same words, one sentence.
    const size_t at = std::min(d.second_sentence[0], text.size());
    if (at >= 2 && text[at - 2] == '.') text[at - 2] = ';';
  }
  if (i == 0 && d.first_person_first && !text.empty()) {
    text = "We note that " + std::string(1, Lower(text[0])) + text.substr(1);
  }
  if (!d.opening.empty() && !(d.opening_skip_first && i == 0)) text = d.opening + ", " + text;
  if (d.full_stops) {
    while (!text.empty() && (text.back() == '.' || text.back() == '!' || text.back() == '?' ||
                             text.back() == ';' || text.back() == ':' || text.back() == ',')) {
      text.pop_back();
    }
    if (!(d.full_stop_missing && i == 0)) text += '.';
  }
  if (i == 0 && d.pad_first_point > 0) {
    const bool stop = !text.empty() && text.back() == '.';
    if (stop) text.pop_back();
    for (size_t w = 0; w < d.pad_first_point; ++w) {
      text += ' ';
      text += kPadding[w % std::size(kPadding)];
    }
    if (stop) text += '.';
  }
  return text;
}

std::string PointLine(const SummaryDraft& d, size_t i) {
  switch (d.marker) {
    case PointMarker::kNone: break;
    case PointMarker::kSymbol:
      if (!(d.marker_missing_first && i == 0)) return d.symbol + " " + PointText(d, i);
      break;
    case PointMarker::kNumber: {
      int n = static_cast<int>(i) + 1;
      if (d.skip_number >= 0 && static_cast<int>(i) >= d.skip_number) ++n;
      return fmt::format("{}. {}", n, PointText(d, i));
    }
  }
  return PointText(d, i);
}

std::string KeywordsLine(const SummaryDraft& d) {
  std::vector<std::string> words = d.keywords;
  if (d.keyword_missing && !words.empty()) words.pop_back();
  return "Keywords: " + fmt::format("{}", fmt::join(words, ", "));
}

PointMarker MarkerOfRules(const nlohmann::json& rules) {
  for (const auto& r : rules) {
    const std::string id = r.value("id", "");
    if (id == "bullet-marker") return PointMarker::kSymbol;
    if (id == "numbered-points") return PointMarker::kNumber;
  }
  return PointMarker::kNone;
}

std::string_view StripMarker(std::string_view line, PointMarker marker) {
  line = TrimBlanks(line);
  if (marker == PointMarker::kNone) return line;
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space > 6) return line;
  const std::string_view head = line.substr(0, space);
  const bool numbered = head.size() >= 2 && head.back() == '.' &&
                        std::all_of(head.begin(), head.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
  const bool symbol = head == "-" || head == "*" || head == "\xE2\x80\xA2";
  if ((marker == PointMarker::kNumber && numbered) || (marker == PointMarker::kSymbol && symbol)) {
    return TrimBlanks(line.substr(space + 1));
  }
  return line;
}

constexpr std::string_view kNoConflict[] = {""};
constexpr std::span<const std::string_view> kCompatibleWithAll(kNoConflict, 0);

// point-count (paper: the number of bullet points)
nlohmann::json DrawPointCount(Rng* rng, const SummaryDraft& d) {
  const int most = static_cast<int>(d.points.size());
  return {{"n", static_cast<int>(rng->UniformInt(std::min(3, most), most))}};
}
std::string PointCountText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Write exactly {} points.", IntParam(p, "n"));
  return fmt::format("The summary must have exactly {} points, no more and no fewer.", IntParam(p, "n"));
}
void ApplyPointCount(const nlohmann::json& p, SummaryDraft* d) {
  const size_t n = static_cast<size_t>(std::max(1, IntParam(p, "n")));
  if (d->points.size() > n) d->points.resize(n);
}
void ViolatePointCount(const nlohmann::json&, SummaryDraft* d) { d->points.push_back(d->spare); }
RuleCheck CheckPointCount(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const size_t n = static_cast<size_t>(IntParam(p, "n"));
  if (m.point_lines.size() == n) return RulePass("point-count");
  return RuleFail("point-count", fmt::format("expected {} points, found {}", n, m.point_lines.size()));
}

// bullet-marker (paper: the bullet symbol)
constexpr std::string_view kMarkerConflicts[] = {"bullet-marker", "numbered-points"};
constexpr std::string_view kSymbols[] = {"-", "*", "\xE2\x80\xA2"};
nlohmann::json DrawBullet(Rng* rng, const SummaryDraft&) { return {{"symbol", std::string(PickOf(rng, kSymbols))}}; }
std::string BulletText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Start every point with the symbol `{}` and a space.", StrParam(p, "symbol"));
  return fmt::format("Each point is a bullet: its line begins with `{} `.", StrParam(p, "symbol"));
}
void ApplyBullet(const nlohmann::json& p, SummaryDraft* d) {
  d->marker = PointMarker::kSymbol;
  d->symbol = StrParam(p, "symbol");
}
void ViolateBullet(const nlohmann::json&, SummaryDraft* d) { d->marker_missing_first = true; }
RuleCheck CheckBullet(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const std::string want = StrParam(p, "symbol") + " ";
  for (size_t i = 0; i < m.point_lines.size(); ++i) {
    const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.point_lines[i])]);
    if (!line.starts_with(want)) {
      return RuleFail("bullet-marker", fmt::format("point {} does not start with '{}': {}", i + 1, TrimBlanks(want), QuoteText(line)));
    }
  }
  if (m.point_lines.empty()) return RuleFail("bullet-marker", "no points");
  return RulePass("bullet-marker");
}

// numbered-points (paper: numbered_points)
std::string NumberedText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Number the points `1.`, `2.`, `3.`, and so on, each number followed by a space.";
  return "Begin each point with its number and a full stop (`1. `, `2. `, ...), counting from 1.";
}
void ApplyNumbered(const nlohmann::json&, SummaryDraft* d) { d->marker = PointMarker::kNumber; }
void ViolateNumbered(const nlohmann::json&, SummaryDraft* d) { d->skip_number = 1; }
RuleCheck CheckNumbered(const nlohmann::json&, const SummaryParsed& m, RuleSet) {
  for (size_t i = 0; i < m.point_lines.size(); ++i) {
    const std::string want = fmt::format("{}. ", i + 1);
    const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.point_lines[i])]);
    if (!line.starts_with(want)) {
      return RuleFail("numbered-points", fmt::format("point {} does not start with '{}': {}", i + 1, TrimBlanks(want), QuoteText(line)));
    }
  }
  if (m.point_lines.empty()) return RuleFail("numbered-points", "no points");
  return RulePass("numbered-points");
}

// title
constexpr std::string_view kEnvelopeConflict[] = {"json-envelope"};
constexpr std::string_view kSummaryTitles[] = {"Summary", "Key points", "In brief", "The main facts"};
nlohmann::json DrawSummaryTitle(Rng* rng, const SummaryDraft&) { return {{"title", std::string(PickOf(rng, kSummaryTitles))}}; }
std::string SummaryTitleText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Begin with the title line `## {}`.", StrParam(p, "title"));
  return fmt::format("The first line must be the Markdown heading `## {}`, exactly.", StrParam(p, "title"));
}
void ApplySummaryTitle(const nlohmann::json& p, SummaryDraft* d) { d->title = StrParam(p, "title"); }
void ViolateSummaryTitle(const nlohmann::json&, SummaryDraft* d) { d->title_marker = ""; }
RuleCheck CheckSummaryTitle(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const std::string want = "## " + StrParam(p, "title");
  if (m.title_line < 0) return RuleFail("title", "no title line");
  const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.title_line)]);
  if (line != want) return RuleFail("title", fmt::format("the first line is {}, not '{}'", QuoteText(line), want));
  return RulePass("title");
}

// keywords-line
// The reference's keywords are kept with the rule's parameters (the check reads only n),
// so that the cheaters, which rewrite the points, write the same line.
nlohmann::json DrawKeywords(Rng* rng, const SummaryDraft& d) {
  const int available = static_cast<int>(KeywordsOf(d, 5).size());
  const int n = static_cast<int>(rng->UniformInt(std::min(2, available), std::min(5, available)));
  return {{"n", n}, {"words", KeywordsOf(d, n)}};
}
bool HasTwoKeywords(const SummaryDraft& d) { return KeywordsOf(d, 2).size() == 2; }
std::string KeywordsText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) {
    return fmt::format("End with the line `Keywords: ` followed by exactly {} distinct words "
                       "taken from the document, separated by commas.", IntParam(p, "n"));
  }
  return fmt::format("The last line must list exactly {} different keywords, each a word of the "
                     "document, as `Keywords: word, word, ...`.", IntParam(p, "n"));
}
void ApplyKeywords(const nlohmann::json& p, SummaryDraft* d) {
  d->keywords.clear();
  const auto it = p.find("words");
  if (it == p.end() || !it->is_array()) return;
  for (const auto& w : *it) {
    if (w.is_string()) d->keywords.push_back(w.get<std::string>());
  }
}
void ViolateKeywords(const nlohmann::json&, SummaryDraft* d) { d->keyword_missing = true; }
RuleCheck CheckKeywords(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  if (m.keywords_line < 0) return RuleFail("keywords-line", "no keywords line");
  const std::string_view line = TrimBlanks(m.lines[static_cast<size_t>(m.keywords_line)]);
  if (!line.starts_with("Keywords: ")) {
    return RuleFail("keywords-line", fmt::format("the last line {} does not start with 'Keywords: '", QuoteText(line)));
  }
  std::vector<std::string> items;
  std::string_view rest = line.substr(10);
  while (true) {
    const size_t comma = rest.find(',');
    items.emplace_back(TrimBlanks(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  const size_t n = static_cast<size_t>(IntParam(p, "n"));
  if (items.size() != n) return RuleFail("keywords-line", fmt::format("{} keywords, not {}", items.size(), n));
  std::vector<std::string> doc = SourceWords(m.document);
  std::sort(doc.begin(), doc.end());
  std::set<std::string> seen;
  for (const std::string& item : items) {
    const std::vector<std::string> w = SourceWords(item);
    if (w.size() != 1 || !std::binary_search(doc.begin(), doc.end(), w[0])) {
      return RuleFail("keywords-line", fmt::format("{} is not a word of the document", QuoteText(item)));
    }
    if (!seen.insert(w[0]).second) return RuleFail("keywords-line", fmt::format("{} is listed twice", QuoteText(item)));
  }
  return RulePass("keywords-line");
}

// point-opening
constexpr std::string_view kPointOpenings[] = {"Notably", "Also", "Importantly", "Further"};
nlohmann::json DrawPointOpening(Rng* rng, const SummaryDraft& d) {
  std::vector<std::string_view> free;
  for (std::string_view w : kPointOpenings) {
    if (std::none_of(d.points.begin(), d.points.end(), [&](const std::string& s) { return TrimBlanks(s).starts_with(w); })) {
      free.push_back(w);
    }
  }
  if (free.empty()) free.assign(std::begin(kPointOpenings), std::end(kPointOpenings));
  return {{"word", std::string(rng->Pick(free))}};
}
std::string PointOpeningText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Open every point with the word \"{}\" followed by a comma (after its marker, if it has one).", StrParam(p, "word"));
  return fmt::format("The text of each point must begin with \"{},\" (a marker, if any, comes before it).", StrParam(p, "word"));
}
void ApplyPointOpening(const nlohmann::json& p, SummaryDraft* d) { d->opening = StrParam(p, "word"); }
void ViolatePointOpening(const nlohmann::json&, SummaryDraft* d) { d->opening_skip_first = true; }
RuleCheck CheckPointOpening(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const std::string want = StrParam(p, "word") + ",";
  for (size_t i = 0; i < m.point_texts.size(); ++i) {
    if (!m.point_texts[i].starts_with(want)) {
      return RuleFail("point-opening", fmt::format("point {} does not open with \"{}\": {}", i + 1, want, QuoteText(m.point_texts[i])));
    }
  }
  if (m.point_texts.empty()) return RuleFail("point-opening", "no points");
  return RulePass("point-opening");
}

// point-full-stops
std::string PointStopsText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "End every point with a full stop (`.`).";
  return "Each point's line must end with a period.";
}
void ApplyPointStops(const nlohmann::json&, SummaryDraft* d) { d->full_stops = true; }
void ViolatePointStops(const nlohmann::json&, SummaryDraft* d) { d->full_stop_missing = true; }
RuleCheck CheckPointStops(const nlohmann::json&, const SummaryParsed& m, RuleSet) {
  for (size_t i = 0; i < m.point_texts.size(); ++i) {
    if (!m.point_texts[i].ends_with(".")) {
      return RuleFail("point-full-stops", fmt::format("point {} does not end with '.': {}", i + 1, QuoteText(m.point_texts[i])));
    }
  }
  if (m.point_texts.empty()) return RuleFail("point-full-stops", "no points");
  return RulePass("point-full-stops");
}

// point-words: drawn last among the rules that change a point's words, wide enough for
// the others' violations (a first-person lead-in adds three words).
nlohmann::json DrawPointWords(Rng* rng, const SummaryDraft& draft) {
  // The held-back fact too: violating point-count adds it as a point.
  SummaryDraft d = draft;
  d.points.push_back(d.spare);
  size_t shortest = 1000, longest = 0;
  for (size_t i = 0; i < d.points.size(); ++i) {
    const size_t n = CountBlankSeparatedWords(PointText(d, i));
    shortest = std::min(shortest, n);
    longest = std::max(longest, n);
  }
  return {{"min", static_cast<int>(std::min<size_t>(shortest, static_cast<size_t>(rng->UniformInt(3, 4))))},
          {"max", static_cast<int>(longest + 4 + static_cast<size_t>(rng->UniformInt(0, 6)))}};
}
std::string PointWordsText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Each point must have between {} and {} words (its marker not counted).", IntParam(p, "min"), IntParam(p, "max"));
  return fmt::format("Keep every point to at least {} and at most {} words, not counting its marker.", IntParam(p, "min"), IntParam(p, "max"));
}
void ViolatePointWords(const nlohmann::json& p, SummaryDraft* d) {
  d->pad_first_point = 0;
  const size_t n = CountBlankSeparatedWords(PointText(*d, 0));
  const size_t hi = static_cast<size_t>(IntParam(p, "max"));
  d->pad_first_point = hi >= n ? hi - n + 1 : 0;
}
RuleCheck CheckPointWords(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const size_t lo = static_cast<size_t>(IntParam(p, "min")), hi = static_cast<size_t>(IntParam(p, "max"));
  for (size_t i = 0; i < m.point_texts.size(); ++i) {
    const size_t n = CountBlankSeparatedWords(m.point_texts[i]);
    if (n < lo || n > hi) return RuleFail("point-words", fmt::format("point {} has {} words, not {} to {}", i + 1, n, lo, hi));
  }
  if (m.point_texts.empty()) return RuleFail("point-words", "no points");
  return RulePass("point-words");
}

// no-first-person
constexpr std::string_view kFirstPerson[] = {"i", "me", "my", "we", "us", "our"};
bool NoFirstPersonYet(const SummaryDraft& d) {
  for (const std::string& p : d.points) {
    for (const std::string& w : SourceWords(p)) {
      if (std::find(std::begin(kFirstPerson), std::end(kFirstPerson), w) != std::end(kFirstPerson)) return false;
    }
  }
  return true;
}
std::string FirstPersonText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Do not write in the first person: no point may use the words I, me, my, we, us or our.";
  return "Keep the summary impersonal: none of the words \"I\", \"me\", \"my\", \"we\", \"us\", \"our\" in any point.";
}
void ViolateFirstPerson(const nlohmann::json&, SummaryDraft* d) { d->first_person_first = true; }
RuleCheck CheckFirstPerson(const nlohmann::json&, const SummaryParsed& m, RuleSet) {
  for (size_t i = 0; i < m.point_texts.size(); ++i) {
    for (const std::string& w : SourceWords(m.point_texts[i])) {
      if (std::find(std::begin(kFirstPerson), std::end(kFirstPerson), w) != std::end(kFirstPerson)) {
        return RuleFail("no-first-person", fmt::format("point {} says '{}'", i + 1, w));
      }
    }
  }
  return RulePass("no-first-person");
}

// blank-lines
std::string PointBlankText(const nlohmann::json&, int phrasing) {
  if (phrasing == 0) return "Separate consecutive points by exactly one blank line.";
  return "Put one empty line between each point and the next (and no more than one).";
}
void ApplyPointBlank(const nlohmann::json&, SummaryDraft* d) { d->blank_lines = true; }
void ViolatePointBlank(const nlohmann::json&, SummaryDraft* d) { d->blank_line_missing = true; }
RuleCheck CheckPointBlank(const nlohmann::json&, const SummaryParsed& m, RuleSet) {
  for (size_t i = 1; i < m.point_lines.size(); ++i) {
    const int gap = m.point_lines[i] - m.point_lines[i - 1] - 1;
    if (gap != 1) return RuleFail("blank-lines", fmt::format("{} blank lines between points {} and {}", gap, i, i + 1));
  }
  if (m.point_lines.empty()) return RuleFail("blank-lines", "no points");
  return RulePass("blank-lines");
}

// json-envelope
constexpr std::string_view kSummaryEnvelopeConflicts[] = {"title", "keywords-line", "blank-lines"};
constexpr std::string_view kEnvelopeKeysOf[] = {"points", "summary", "key_points"};
nlohmann::json DrawSummaryEnvelope(Rng* rng, const SummaryDraft&) { return {{"key", std::string(PickOf(rng, kEnvelopeKeysOf))}}; }
std::string SummaryEnvelopeText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) {
    return fmt::format("Give the whole answer as one JSON object and nothing else (no code fence), "
                       "with exactly one key, \"{}\": an array of the point lines as strings.", StrParam(p, "key"));
  }
  return fmt::format("Reply with a single JSON object only, whose one key \"{}\" holds the points "
                     "(an array of strings, one per point line); no text outside it.", StrParam(p, "key"));
}
void ApplySummaryEnvelope(const nlohmann::json& p, SummaryDraft* d) { d->envelope_key = StrParam(p, "key"); }
void ViolateSummaryEnvelope(const nlohmann::json&, SummaryDraft* d) { d->envelope_preamble = true; }
RuleCheck CheckSummaryEnvelope(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const std::string key = StrParam(p, "key");
  std::string_view body = m.response;
  while (!body.empty() && (body.front() == '\n' || body.front() == ' ' || body.front() == '\r')) body.remove_prefix(1);
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ' || body.back() == '\r')) body.remove_suffix(1);
  if (!body.starts_with("{") || !body.ends_with("}")) {
    return RuleFail("json-envelope", "the response is not one JSON object alone (text outside the braces)");
  }
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return RuleFail("json-envelope", "the response is not valid JSON");
  if (j.size() != 1 || !j.contains(key)) return RuleFail("json-envelope", fmt::format("the object's keys are not just \"{}\"", key));
  if (!j[key].is_array() || j[key].empty()) return RuleFail("json-envelope", fmt::format("\"{}\" is not an array of points", key));
  for (const auto& e : j[key]) {
    if (!e.is_string()) return RuleFail("json-envelope", fmt::format("\"{}\" holds a value that is not a string", key));
  }
  return RulePass("json-envelope");
}

// point-sentences (paper: the Hard subtasks' sentences per point): every point is two
// sentences. Applied first (the table's order), it pairs the facts, so that the rules
// drawn after it count, measure and number the paired points; the held-back fact is a
// pair too, so point-count's violation (one point more) keeps two sentences a point.
bool FactsPairUp(const SummaryDraft& d) {
  const auto ends_with_stop = [](std::string_view s) { return TrimBlanks(s).ends_with("."); };
  return d.points.size() >= 5 && d.second_sentence.empty() && ends_with_stop(d.spare) &&
         std::all_of(d.points.begin(), d.points.end(), ends_with_stop);
}
nlohmann::json DrawPointSentences(Rng*, const SummaryDraft&) { return {{"n", 2}}; }
std::string PointSentencesText(const nlohmann::json& p, int phrasing) {
  if (phrasing == 0) return fmt::format("Every point must consist of exactly {} sentences.", IntParam(p, "n"));
  return fmt::format("Write each point as {} full sentences, no more and no fewer.", IntParam(p, "n"));
}
void ApplyPointSentences(const nlohmann::json&, SummaryDraft* d) {
  // facts = the points and the held-back one, paired in order (an odd one out dropped):
  // the last pair is held back.
  std::vector<std::string> facts = d->points;
  facts.push_back(d->spare);
  std::vector<std::string> pairs;
  d->second_sentence.clear();
  for (size_t i = 0; i + 1 < facts.size(); i += 2) {
    const std::string first(TrimBlanks(facts[i]));
    pairs.push_back(first + " " + std::string(TrimBlanks(facts[i + 1])));
    d->second_sentence.push_back(first.size() + 1);
  }
  d->spare = pairs.back();
  pairs.pop_back();
  d->second_sentence.pop_back();
  d->points = std::move(pairs);
}
void ViolatePointSentences(const nlohmann::json&, SummaryDraft* d) { d->sentences_joined_first = true; }
RuleCheck CheckPointSentences(const nlohmann::json& p, const SummaryParsed& m, RuleSet) {
  const size_t n = static_cast<size_t>(IntParam(p, "n"));
  for (size_t i = 0; i < m.point_sentences.size(); ++i) {
    if (m.point_sentences[i] != n) {
      return RuleFail("point-sentences", fmt::format("point {} has {} sentence(s), not {}: {}", i + 1,
                                                     m.point_sentences[i], n, QuoteText(m.point_texts[i])));
    }
  }
  if (m.point_texts.empty()) return RuleFail("point-sentences", "no points");
  return RulePass("point-sentences");
}

constexpr SummaryRule kSummaryRules[] = {
    {"point-sentences", "every point is exactly two sentences", RuleOrigin::kPaper,
     kCompatibleWithAll, &FactsPairUp, &DrawPointSentences, 2, &PointSentencesText,
     &ApplyPointSentences, &ViolatePointSentences, &CheckPointSentences},
    {"point-count", "exactly N points", RuleOrigin::kPaper, kCompatibleWithAll, nullptr,
     &DrawPointCount, 2, &PointCountText, &ApplyPointCount, &ViolatePointCount, &CheckPointCount},
    {"bullet-marker", "every point starts with a given symbol, `-`, `*` or `\u2022`",
     RuleOrigin::kPaper, kMarkerConflicts, nullptr, &DrawBullet, 2, &BulletText, &ApplyBullet,
     &ViolateBullet, &CheckBullet},
    {"numbered-points", "points numbered `1.`, `2.`, ...", RuleOrigin::kPaper, kMarkerConflicts,
     nullptr, nullptr, 2, &NumberedText, &ApplyNumbered, &ViolateNumbered, &CheckNumbered},
    {"no-first-person", "no point uses I, me, my, we, us or our", RuleOrigin::kNew,
     kCompatibleWithAll, &NoFirstPersonYet, nullptr, 2, &FirstPersonText, nullptr,
     &ViolateFirstPerson, &CheckFirstPerson},
    {"point-opening", "every point opens with a given word and a comma", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, &DrawPointOpening, 2, &PointOpeningText, &ApplyPointOpening,
     &ViolatePointOpening, &CheckPointOpening},
    {"point-full-stops", "every point ends with a full stop", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, nullptr, 2, &PointStopsText, &ApplyPointStops,
     &ViolatePointStops, &CheckPointStops},
    {"point-words", "every point has between A and B words", RuleOrigin::kNew,
     kCompatibleWithAll, nullptr, &DrawPointWords, 2, &PointWordsText, nullptr,
     &ViolatePointWords, &CheckPointWords},
    {"title", "a given title line first, `## T`", RuleOrigin::kNew, kEnvelopeConflict, nullptr,
     &DrawSummaryTitle, 2, &SummaryTitleText, &ApplySummaryTitle, &ViolateSummaryTitle,
     &CheckSummaryTitle},
    {"keywords-line", "a last line `Keywords: ` with N distinct words of the document",
     RuleOrigin::kNew, kEnvelopeConflict, &HasTwoKeywords, &DrawKeywords, 2, &KeywordsText,
     &ApplyKeywords, &ViolateKeywords, &CheckKeywords},
    {"blank-lines", "one blank line between points", RuleOrigin::kNew, kEnvelopeConflict,
     nullptr, nullptr, 2, &PointBlankText, &ApplyPointBlank, &ViolatePointBlank,
     &CheckPointBlank},
    {"json-envelope", "the points as a JSON object with one given key", RuleOrigin::kNew,
     kSummaryEnvelopeConflicts, nullptr, &DrawSummaryEnvelope, 2, &SummaryEnvelopeText,
     &ApplySummaryEnvelope, &ViolateSummaryEnvelope, &CheckSummaryEnvelope},
};

}  // namespace summary_internal

std::span<const SummaryRule> SummarizationRules() { return summary_internal::kSummaryRules; }

const SummaryRule* FindSummaryRule(std::string_view id) {
  for (const SummaryRule& r : summary_internal::kSummaryRules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string RenderSummary(const SummaryDraft& d) {
  using namespace summary_internal;
  if (!d.envelope_key.empty()) {
    std::string out = d.envelope_preamble ? "Here is the JSON object:\n" : "";
    out += "{\n  " + nlohmann::json(d.envelope_key).dump() + ": [";
    for (size_t i = 0; i < d.points.size(); ++i) {
      out += (i == 0 ? "\n    " : ",\n    ") + nlohmann::json(PointLine(d, i)).dump();
    }
    return out + "\n  ]\n}";
  }
  std::string out;
  if (!d.title.empty()) out += d.title_marker + d.title + "\n";
  for (size_t i = 0; i < d.points.size(); ++i) {
    if (i > 0) out += "\n";
    if (i > 0 && d.blank_lines && !(d.blank_line_missing && i == 1)) out += "\n";
    out += PointLine(d, i);
  }
  if (!d.keywords.empty()) out += "\n" + KeywordsLine(d);
  return out;
}

bool SummaryRulesCountSentences(const nlohmann::json& rules) {
  for (const auto& r : rules) {
    if (r.is_object() && r.value("id", "") == "point-sentences") return true;
  }
  return false;
}

SummaryParsed ParseSummary(std::string_view response, const nlohmann::json& rules,
                           std::string document, const SentenceSplitter* sentences) {
  using namespace summary_internal;
  SummaryParsed m;
  m.response = std::string(response);
  m.document = std::move(document);
  bool title = false, keywords = false;
  std::string key;
  for (const auto& r : rules) {
    const std::string id = r.value("id", "");
    title |= id == "title";
    keywords |= id == "keywords-line";
    if (id == "json-envelope") key = StrParam(r, "key");
  }
  if (!key.empty()) {
    if (const nlohmann::json j = EnvelopeObject(response); !j.is_discarded()) {
      const auto a = j.find(key);
      if (a != j.end() && a->is_array()) {
        m.envelope_read = true;
        for (const auto& e : *a) m.lines.push_back(e.is_string() ? e.get<std::string>() : e.dump());
      }
    }
  }
  if (!m.envelope_read) m.lines = LinesOf(response);
  const std::vector<int> content = NonBlankLines(m.lines);
  size_t first = 0, last = content.size();
  if (title && first < last) m.title_line = content[first++];
  if (keywords && first < last) m.keywords_line = content[--last];
  const PointMarker marker = MarkerOfRules(rules);
  for (size_t i = first; i < last; ++i) {
    m.point_lines.push_back(content[i]);
    m.point_texts.emplace_back(StripMarker(m.lines[static_cast<size_t>(content[i])], marker));
  }
  if (sentences != nullptr && SummaryRulesCountSentences(rules)) {
    for (const std::string& t : m.point_texts) m.point_sentences.push_back(sentences->Count(t));
  }
  return m;
}

RuleCheck CheckSummaryPoints(const SummaryParsed& m) {
  using namespace summary_internal;
  if (m.point_texts.empty()) return RuleFail("points", "no points");
  for (size_t i = 0; i < m.point_texts.size(); ++i) {
    if (CountBlankSeparatedWords(m.point_texts[i]) == 0) return RuleFail("points", fmt::format("point {} is empty", i + 1));
  }
  return RulePass("points");
}

// Strict: a point says something of the document (most of its words are the document's;
// words the format rules add count as the document's), states its facts (SourceText),
// and no point repeats another, nearly or exactly; then strict summarization's own
// judgement of items.
RuleCheck CheckSummaryContent(const SummaryParsed& m) {
  using namespace summary_internal;
  constexpr double kMinDocumentShare = 0.6;
  constexpr size_t kMinWords = 4;
  static const std::vector<std::string_view> kFormatWords = [] {
    std::vector<std::string_view> w = {"we", "note", "that", "notably", "also", "importantly", "further"};
    w.insert(w.end(), std::begin(kPadding), std::end(kPadding));
    return w;
  }();
  const SourceText source(m.document, "the document", kFormatWords);
  for (size_t i = 0; i < m.point_texts.size(); ++i) {
    const std::vector<std::string> words = SourceWords(m.point_texts[i]);
    if (words.size() < kMinWords) {
      return RuleFail("content", fmt::format("point {} has {} words: it says nothing", i + 1, words.size()));
    }
    const auto in_doc = static_cast<size_t>(
        std::count_if(words.begin(), words.end(), [&](const std::string& w) { return source.Has(w); }));
    if (static_cast<double>(in_doc) < kMinDocumentShare * static_cast<double>(words.size())) {
      return RuleFail("content", fmt::format("point {} is not the document's: {} of its {} words are in it",
                                          i + 1, in_doc, words.size()));
    }
    std::string problem = source.Problem(m.point_texts[i], fmt::format("point {}", i + 1));
    if (!problem.empty()) return RuleFail("content", std::move(problem));
  }
  if (m.point_texts.empty()) return RuleFail("content", "no points");
  std::string problem = NearRepeatProblem(m.point_texts, "point", kMinWords);
  // Then strict summarization's own judgement of items: near repeats, the document's
  // subject, and points that read as English.
  if (problem.empty()) problem = summarization_internal::PointsContentProblem(m.point_texts, m.document, kMinWords);
  if (!problem.empty()) return RuleFail("content", std::move(problem));
  return RulePass("content");
}

std::string SummaryBasePrompt(const SummaryDraft& d) {
  return fmt::format(
      "Summarize the following document as a list of points: one point per line, each "
      "stating a fact of the document in your own words or its own.\n\nDocument:\n{}",
      TrimBlanks(d.document));
}

}  // namespace structtest::composed
