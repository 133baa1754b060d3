#include "tasks/summarization/family.h"

#include <fmt/format.h>
#include <unicode/uchar.h>

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "core/ascii.h"
#include "core/pytext.h"
#include "tasks/params.h"
#include "tasks/summarization/generator.h"
#include "tasks/summarization/strict.h"
#include "text/punkt.h"

namespace structtest {

namespace {

constexpr int kMaxCount = 1000;  // sanity bound for counts in params

}  // namespace

namespace summarization_internal {

// Missing tags default to the paper's <summary> pair; present but mistyped is an error.
StatusOr<SummaryTags> GetSummaryTags(const Sample& sample) {
  SummaryTags tags;
  if (sample.context.is_object()) {
    for (auto [key, tag] : {std::pair{"start_tag", &tags.start}, std::pair{"end_tag", &tags.end}}) {
      const auto it = sample.context.find(key);
      if (it == sample.context.end()) continue;
      if (!it->is_string()) {
        return Status::InvalidArgument(
            fmt::format("context.{}: expected a string, found {}", key, it->type_name()));
      }
      *tag = it->get_ref<const std::string&>();
    }
  }
  if (tags.start.empty() || tags.end.empty()) {
    return Status::InvalidArgument("context: start_tag and end_tag must not be empty");
  }
  return tags;
}

void ParseSummarizationParams(const nlohmann::json& params, RuleSet, SampleParams* out) {
  SummarizationParams& p = out->summarization;
  if (!params.is_object()) {
    for (Param<int64_t>* n : {&p.n_sentences, &p.n_points, &p.n_subpoints,
                              &p.n_sentences_per_point, &p.n_sentences_total}) {
      n->SetNotObject();
    }
    p.symbol.SetNotObject();
    return;
  }
  // One pass over the (sorted) keys.
  for (const auto& [key, value] : params.get_ref<const nlohmann::json::object_t&>()) {
    if (key == "symbol") {
      StatusOr<std::string_view> symbol = StringParam(value, key);
      if (symbol.ok() && symbol->empty()) {
        symbol = Status::InvalidArgument("params.symbol: must not be empty");
      }
      p.symbol.Set(std::move(symbol));
      continue;
    }
    Param<int64_t>* n = key == "n_sentences"             ? &p.n_sentences
                        : key == "n_points"              ? &p.n_points
                        : key == "n_subpoints"           ? &p.n_subpoints
                        : key == "n_sentences_per_point" ? &p.n_sentences_per_point
                        : key == "n_sentences_total"     ? &p.n_sentences_total
                                                         : nullptr;
    if (n == nullptr) continue;
    n->Set(IntParam(value, key, 0, n == &p.n_sentences_total ? kMaxCount * kMaxCount : kMaxCount));
  }
}

}  // namespace summarization_internal

namespace {

using summarization_internal::GetSummaryTags;
using summarization_internal::SummaryTags;

StatusOr<std::string> Summary(const Sample& sample, std::string_view response) {
  ASSIGN_OR_RETURN(SummaryTags tags, GetSummaryTags(sample));
  return ExtractSummary(response, tags.start, tags.end);
}

Status NeedSentences(const CheckEnv& env) {
  if (env.sentences == nullptr) {
    return Status::Unavailable(
        "this subtask counts sentences and the scoring environment has no Punkt "
        "sentence model (CheckEnv::sentences; SentenceSplitter::LoadBuiltin gives one)");
  }
  return Status::Ok();
}

// Sentences of `text` as the reference counts them: Punkt, empty ones dropped.
size_t CountSentences(const SentenceSplitter& splitter, std::string_view text) {
  size_t n = 0;
  for (const auto& span : splitter.Split(text)) {
    if (!PyStrip(text.substr(span.begin, span.end - span.begin)).empty()) ++n;
  }
  return n;
}

std::string Plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

Verdict Pass(std::string reason) { return Verdict{true, std::move(reason)}; }
Verdict Fail(std::string reason) { return Verdict{false, std::move(reason)}; }

std::string Quote(std::string_view line) {
  constexpr size_t kMax = 60;
  std::string s(line.substr(0, kMax));
  if (line.size() > kMax) s += "...";
  return fmt::format("'{}'", s);
}

// ---- length ----------------------------------------------------------------------

// Python's re.sub(r'\b\d\. ', '', text): drops list markers like "1. " so they do not
// count as sentences. Only the ". " pairs (found with memchr) are candidates: a match
// needs a decimal digit (\d is Unicode) right before the '.', and no word character
// (\w: alphanumeric or '_') before that digit. Boundaries are judged on the original
// text, as the regex does.
std::string DropDigitDotSpace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;  // text[0, copied) is in `out` or was dropped
  size_t pos = 0;
  while (pos + 1 < text.size()) {
    const char* dot = static_cast<const char*>(
        std::memchr(text.data() + pos, '.', text.size() - pos - 1));
    if (dot == nullptr) break;
    const size_t d = dot - text.data();
    pos = d + 1;
    if (text[d + 1] != ' ' || d == 0) continue;
    const size_t digit = PrevCodePointStart(text, d);
    size_t len;
    if (digit < copied || !IsPyDecimal(DecodeUtf8(text, digit, &len))) continue;
    if (digit > 0) {
      const char32_t before = DecodeUtf8(text, PrevCodePointStart(text, digit), &len);
      if (before == '_' || IsPyAlnum(before)) continue;
    }
    out.append(text.substr(copied, digit - copied));
    copied = d + 2;
    pos = copied;
  }
  out.append(text.substr(copied));
  return out;
}

StatusOr<Verdict> CheckLength(const Sample& sample, const SampleParams& params,
                              std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(int64_t n, params.summarization.n_sentences.get());
  RETURN_IF_ERROR(NeedSentences(env));
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  const std::string cleaned = DropDigitDotSpace(text);
  const size_t found = env.sentences->Count(cleaned);
  if (static_cast<int64_t>(found) == n) return Pass(fmt::format("{} as asked", Plural(n, "sentence")));
  return Fail(fmt::format("expected {}, found {}", Plural(n, "sentence"), found));
}

// ---- bullet_points ---------------------------------------------------------------

size_t CountOccurrences(std::string_view text, std::string_view needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string_view::npos;
       p = text.find(needle, p + needle.size())) {
    ++n;
  }
  return n;
}

StatusOr<Verdict> CheckBulletPoints(const Sample& sample, const SampleParams& params,
                                    std::string_view response, const CheckEnv&) {
  ASSIGN_OR_RETURN(int64_t n, params.summarization.n_points.get());
  ASSIGN_OR_RETURN(std::string_view symbol, params.summarization.symbol.get());
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  const size_t found = CountOccurrences(text, symbol);
  if (static_cast<int64_t>(found) == n) {
    return Pass(fmt::format("{} '{}' symbols as asked", n, symbol));
  }
  return Fail(fmt::format("expected {} '{}' bullet symbols, found {} (every occurrence "
                          "counts, also inside the text)",
                          n, symbol, found));
}

// ---- numbered walk (numbered_points, numbered_points_length) ---------------------

bool IsListSeparator(char32_t c) {
  return c == '-' || c == '.' || c == '/' || c == ')' || c == ']';
}

struct NumberPrefix {
  enum Kind { kNumber, kBadPrefix, kNotDecimal } kind;
  int number = 0;
  size_t prefix_bytes = 0;  // up to and including the separator
};

int DigitValue(char32_t c) {
  return c < 0x80 ? static_cast<int>(c - '0') : u_charDigitValue(static_cast<UChar32>(c));
}

// REQUIRES: line has at least two code points and the first is numeric.
NumberPrefix ParseNumberPrefix(std::string_view line) {
  size_t l0, l1, l2 = 0;
  const char32_t c0 = DecodeUtf8(line, 0, &l0);
  const char32_t c1 = DecodeUtf8(line, l0, &l1);
  char32_t c2 = 0;
  const bool has_third = l0 + l1 < line.size();
  if (has_third) c2 = DecodeUtf8(line, l0 + l1, &l2);
  if (IsListSeparator(c1)) {
    if (!IsPyDecimal(c0)) return {NumberPrefix::kNotDecimal};
    return {NumberPrefix::kNumber, DigitValue(c0), l0 + l1};
  }
  if (has_third && IsPyNumeric(c1) && IsListSeparator(c2)) {
    if (!IsPyDecimal(c0) || !IsPyDecimal(c1)) return {NumberPrefix::kNotDecimal};
    return {NumberPrefix::kNumber, DigitValue(c0) * 10 + DigitValue(c1), l0 + l1 + l2};
  }
  return {NumberPrefix::kBadPrefix};
}

bool StartsNumeric(std::string_view line) {
  if (line.empty()) return false;
  size_t len;
  return IsPyNumeric(DecodeUtf8(line, 0, &len));
}

bool HasTwoCodePoints(std::string_view line) {
  if (line.empty()) return false;
  size_t len;
  DecodeUtf8(line, 0, &len);
  return len < line.size();
}

// Walks the numbered list of `lines` as the reference does. For each point calls
// on_point(number, content_after_prefix); a non-empty returned string fails the walk
// with that reason. Returns the number of points, or the failure reason.
template <typename OnPoint>
std::variant<int, std::string> WalkNumbered(const std::vector<std::string_view>& lines,
                                            OnPoint on_point) {
  size_t i = 0;
  while (i < lines.size() && !StartsNumeric(lines[i])) ++i;
  int prev = 0;
  for (; i < lines.size() && HasTwoCodePoints(lines[i]) && StartsNumeric(lines[i]); ++i) {
    const NumberPrefix p = ParseNumberPrefix(lines[i]);
    if (p.kind == NumberPrefix::kBadPrefix) {
      return fmt::format("line {} does not start with a number followed by one of - . / ) ]",
                         Quote(lines[i]));
    }
    if (p.kind == NumberPrefix::kNotDecimal) {
      return fmt::format("line {} starts with a numeric character that is not a digit",
                         Quote(lines[i]));
    }
    if (p.number != prev + 1) {
      return fmt::format("point {} follows point {}: numbers must count up from 1 by one",
                         p.number, prev);
    }
    prev = p.number;
    std::string why = on_point(p.number, lines[i].substr(p.prefix_bytes));
    if (!why.empty()) return why;
  }
  return prev;
}

StatusOr<Verdict> CheckNumberedPoints(const Sample& sample, const SampleParams& params,
                                      std::string_view response, const CheckEnv&) {
  ASSIGN_OR_RETURN(int64_t n, params.summarization.n_points.get());
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  if (text.empty()) return Fail("the answer is empty");
  const auto walk = WalkNumbered(SplitChar(text, '\n'),
                                 [](int, std::string_view) { return std::string(); });
  if (const auto* why = std::get_if<std::string>(&walk)) return Fail(*why);
  const int found = std::get<int>(walk);
  if (found == n) return Pass(fmt::format("{} as asked", Plural(n, "numbered point")));
  return Fail(fmt::format("expected {}, found {}", Plural(n, "numbered point"), found));
}

// ---- questions -------------------------------------------------------------------

// line.lower().startswith(lowered_prefix) with Python's full lower-casing. ASCII
// lines are compared byte by byte; others go through PyLower, since a non-ASCII
// character can lower-case to ASCII (the Kelvin sign becomes 'k').
bool StartsWithIgnoreCase(std::string_view line, std::string_view lowered_prefix) {
  bool ascii = true;
  const size_t n = std::min(line.size(), lowered_prefix.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    const char lower = AsciiLower(static_cast<char>(c));
    if (lower != lowered_prefix[i]) return false;
  }
  if (ascii) return n == lowered_prefix.size();
  // Lower-casing shrinks a code point to no less than a third of its bytes (the
  // Kelvin sign), so 4x the prefix length of the line is more than enough.
  const std::string lowered =
      PyLower(line.substr(0, std::min(line.size(), lowered_prefix.size() * 4)));
  return std::string_view(lowered).starts_with(lowered_prefix);
}

StatusOr<Verdict> CheckQuestions(const Sample& sample, const SampleParams&,
                                 std::string_view response, const CheckEnv&) {
  // "[question]" lower-cased, once.
  static const std::vector<std::string> kPrefixes = [] {
    std::vector<std::string> v;
    for (std::string_view q : kSummaryQuestions) v.push_back(PyLower(fmt::format("[{}]", q)));
    return v;
  }();
  constexpr size_t kCount = std::size(kSummaryQuestions);
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  bool found[kCount] = {};
  size_t found_count = 0;
  for (std::string_view line : SplitChar(text, '\n')) {
    // Every prefix starts with '['; only a non-ASCII first character could lower-case
    // to it, and none does.
    if (line.empty() || line[0] != '[') continue;
    for (size_t q = 0; q < kCount; ++q) {
      if (!found[q] && StartsWithIgnoreCase(line, kPrefixes[q])) {
        found[q] = true;
        ++found_count;
      }
    }
    if (found_count == kCount) break;
  }
  if (found_count == kCount) return Pass("all five questions are answered in [brackets]");
  std::string list;
  for (size_t q = 0; q < kCount; ++q) {
    if (!found[q]) list += fmt::format("{}[{}]", list.empty() ? "" : ", ", kSummaryQuestions[q]);
  }
  return Fail(fmt::format("no line starts with {}", list));
}

// ---- bullet_points_length --------------------------------------------------------

std::vector<std::string_view> StrippedNonEmptyLines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::string_view line : SplitChar(text, '\n')) {
    line = PyStrip(line);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

struct LengthParams {
  int64_t points, per_point, total;
};

StatusOr<LengthParams> GetLengthParams(const SummarizationParams& params) {
  LengthParams p;
  ASSIGN_OR_RETURN(p.points, params.n_points.get());
  ASSIGN_OR_RETURN(p.per_point, params.n_sentences_per_point.get());
  ASSIGN_OR_RETURN(p.total, params.n_sentences_total.get());
  return p;
}

// The per-point rule shared by bullet and numbered points with sentence counts.
// Returns "" when the point is fine.
std::string CheckPointSentences(const SentenceSplitter& splitter, const LengthParams& p,
                                int point, std::string_view content, int64_t* total) {
  const size_t n = CountSentences(splitter, PyStrip(content));
  if (static_cast<int64_t>(n) != p.per_point) {
    return fmt::format("point {} has {}, expected {}", point, Plural(n, "sentence"),
                       p.per_point);
  }
  *total += n;
  if (*total > p.total) {
    return fmt::format("{} so far after point {}, more than the {} asked in total",
                       Plural(*total, "sentence"), point, p.total);
  }
  return "";
}

Verdict PointsAndTotal(const LengthParams& p, int64_t points, int64_t total,
                       std::string_view what) {
  if (points == p.points && total == p.total) {
    return Pass(fmt::format("{} of {} each, {} in total", Plural(points, what),
                            Plural(p.per_point, "sentence"), total));
  }
  if (points != p.points) {
    return Fail(fmt::format("expected {}, found {}", Plural(p.points, what), points));
  }
  return Fail(fmt::format("expected {} in total, found {}",
                          Plural(p.total, "sentence"), total));
}

StatusOr<Verdict> CheckBulletPointsLength(const Sample& sample, const SampleParams& params,
                                          std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(LengthParams p, GetLengthParams(params.summarization));
  ASSIGN_OR_RETURN(std::string_view symbol, params.summarization.symbol.get());
  RETURN_IF_ERROR(NeedSentences(env));
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  const auto lines = StrippedNonEmptyLines(text);
  size_t i = 0;
  while (i < lines.size() && !lines[i].starts_with(symbol)) ++i;
  int64_t points = 0, total = 0;
  for (; i < lines.size() && lines[i].starts_with(symbol); ++i) {
    ++points;
    std::string why = CheckPointSentences(*env.sentences, p, static_cast<int>(points),
                                          lines[i].substr(symbol.size()), &total);
    if (!why.empty()) return Fail(std::move(why));
  }
  return PointsAndTotal(p, points, total, fmt::format("'{}' point", symbol));
}

// ---- numbered_points_length ------------------------------------------------------

StatusOr<Verdict> CheckNumberedPointsLength(const Sample& sample, const SampleParams& params,
                                            std::string_view response, const CheckEnv& env) {
  ASSIGN_OR_RETURN(LengthParams p, GetLengthParams(params.summarization));
  RETURN_IF_ERROR(NeedSentences(env));
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  int64_t total = 0;
  const auto walk = WalkNumbered(
      StrippedNonEmptyLines(text), [&](int number, std::string_view content) {
        return CheckPointSentences(*env.sentences, p, number, content, &total);
      });
  if (const auto* why = std::get_if<std::string>(&walk)) return Fail(*why);
  return PointsAndTotal(p, std::get<int>(walk), total, "numbered point");
}

// ---- indented_bullet_points ------------------------------------------------------

bool IsSubPoint(std::string_view line, std::string_view symbol) {
  if (line.empty() || (line[0] != ' ' && line[0] != '\t')) return false;
  const size_t b = line.find_first_not_of(" \t");
  return b != std::string_view::npos && line.substr(b).starts_with(symbol);
}

StatusOr<Verdict> CheckIndentedBulletPoints(const Sample& sample, const SampleParams& params,
                                            std::string_view response, const CheckEnv&) {
  ASSIGN_OR_RETURN(int64_t n, params.summarization.n_points.get());
  ASSIGN_OR_RETURN(int64_t n_sub, params.summarization.n_subpoints.get());
  ASSIGN_OR_RETURN(std::string_view symbol, params.summarization.symbol.get());
  ASSIGN_OR_RETURN(std::string text, Summary(sample, response));
  std::vector<std::string_view> lines;
  for (std::string_view line : SplitChar(text, '\n')) {
    if (!PyStrip(line).empty()) lines.push_back(line);
  }
  size_t i = 0;
  while (i < lines.size() && !lines[i].starts_with(symbol)) ++i;
  int64_t points = 0;
  auto verdict = [&]() {
    if (points == n) {
      return Pass(fmt::format("{} with {} each", Plural(n, "point"), Plural(n_sub, "sub-point")));
    }
    return Fail(fmt::format("expected {} top-level '{}' points, found {}", n, symbol, points));
  };
  while (i + 1 < lines.size() && lines[i].starts_with(symbol)) {
    ++points;
    size_t j = i + 1;
    int64_t subs = 0;
    while (j < lines.size() && IsSubPoint(lines[j], symbol)) {
      ++subs;
      ++j;
    }
    if (subs != n_sub) {
      return Fail(fmt::format("point {} has {}, expected {} (indented with spaces or a tab)",
                              points, Plural(subs, "sub-point"), n_sub));
    }
    if (j == lines.size()) return verdict();
    i = j;
  }
  return verdict();
}

namespace gen = summarization_internal;

// The rules each checker lists (RuleSpec): the paper's are one count each; strict's are
// the tables of docs/strict.md, in the order its checkers reach them.
constexpr RuleSpec kPaperLength[] = {{"sentence-count", 0}};
constexpr RuleSpec kPaperBullets[] = {{"symbol-count", 0}};
constexpr RuleSpec kPaperNumbered[] = {{"numbered-points", 0}};
constexpr RuleSpec kPaperQuestions[] = {{"questions", 0}};
constexpr RuleSpec kPaperPointsLength[] = {{"points-and-sentences", 0}};
constexpr RuleSpec kPaperIndented[] = {{"points-and-subpoints", 0}};
// Strict: the summary's own rules are one scan (stage 0), the content rules come last.
constexpr RuleSpec kStrictLength[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"prose", 1}, {"sentence-count", 2},
    {"item-content", 3}, {"items-distinct", 4}, {"about-document", 5}, {"language", 6}};
constexpr RuleSpec kStrictBullets[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"only-list", 1}, {"flat-list", 2}, {"point-count", 3}, {"symbol-elsewhere", 4},
    {"item-content", 5}, {"items-distinct", 6}, {"about-document", 7}, {"language", 8}};
constexpr RuleSpec kStrictNumbered[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"only-list", 1}, {"flat-list", 2}, {"numbering", 3}, {"point-count", 4},
    {"item-content", 5}, {"items-distinct", 6}, {"about-document", 7}, {"language", 8}};
constexpr RuleSpec kStrictQuestions[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"questions-once", 1}, {"questions", 2}, {"only-answers", 3}, {"answer-content", 4},
    {"item-content", 5}, {"items-distinct", 6}, {"about-document", 7}, {"language", 8}};
constexpr RuleSpec kStrictBulletsLength[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"only-list", 1}, {"flat-list", 2}, {"point-count", 3}, {"symbol-elsewhere", 4}, {"point-sentences", 5},
    {"item-content", 6}, {"items-distinct", 7}, {"about-document", 8}, {"language", 9}};
constexpr RuleSpec kStrictNumberedLength[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"only-list", 1}, {"flat-list", 2}, {"numbering", 3}, {"point-count", 4}, {"point-sentences", 5},
    {"item-content", 6}, {"items-distinct", 7}, {"about-document", 8}, {"language", 9}};
constexpr RuleSpec kStrictIndented[] = {
    {"summary-tags", 0}, {"valid-text", 0}, {"summary-empty", 0},
    {"only-list", 1}, {"indentation", 2}, {"point-count", 3}, {"subpoint-count", 4}, {"symbol-elsewhere", 5},
    {"item-content", 6}, {"items-distinct", 7}, {"about-document", 8}, {"language", 9}};

constexpr SubtaskSpec kSubtasks[] = {
    {"length", Split::kEasy, "a summary of exactly N sentences", "n_sentences",
     &CheckLength, true, &gen::GenerateLength, nullptr, &gen::StrictLength,
     &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperLength, kStrictLength},
    {"bullet_points", Split::kEasy, "N bullet points with a given symbol",
     "n_points, symbol", &CheckBulletPoints, false, &gen::GenerateBulletPoints, nullptr,
     &gen::StrictBulletPoints, &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperBullets, kStrictBullets},
    {"numbered_points", Split::kEasy, "N points numbered 1., 2., ...", "n_points",
     &CheckNumberedPoints, false, &gen::GenerateNumberedPoints, nullptr,
     &gen::StrictNumberedPoints, &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperNumbered, kStrictNumbered},
    {"questions", Split::kEasy, "answer the five Wh-questions, each in [brackets]", "",
     &CheckQuestions, false, &gen::GenerateQuestions, nullptr, &gen::StrictQuestions,
     &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperQuestions, kStrictQuestions},
    {"bullet_points_length", Split::kHard,
     "N bullet points of K sentences each (N*K in total)",
     "n_points, symbol, n_sentences_per_point, n_sentences_total",
     &CheckBulletPointsLength, true, &gen::GenerateBulletPointsLength, nullptr,
     &gen::StrictBulletPointsLength, &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperPointsLength, kStrictBulletsLength},
    {"numbered_points_length", Split::kHard,
     "N numbered points of K sentences each (N*K in total)",
     "n_points, n_sentences_per_point, n_sentences_total", &CheckNumberedPointsLength,
     true, &gen::GenerateNumberedPointsLength, nullptr, &gen::StrictNumberedPointsLength,
     &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperPointsLength, kStrictNumberedLength},
    {"indented_bullet_points", Split::kHard,
     "N bullet points, each followed by M tab-indented sub-bullets",
     "n_points, symbol, n_subpoints", &CheckIndentedBulletPoints, false,
     &gen::GenerateIndentedBulletPoints, nullptr, &gen::StrictIndentedBulletPoints,
     &gen::SkeletonAnswer, &gen::LoopholeAnswer, kPaperIndented, kStrictIndented},
};

}  // namespace

namespace {

// True when occurrences of the two tags can neither overlap nor be created by
// replacing the other tag with a space: both look like "<name>" with no inner '<', '>'
// or whitespace. Then one left-to-right pass gives what the reference's two successive
// str.replace calls give.
bool SimpleTags(std::string_view a, std::string_view b) {
  for (std::string_view t : {a, b}) {
    if (t.size() < 2 || t.front() != '<' || t.back() != '>') return false;
    if (t.substr(1, t.size() - 2).find_first_of("<> \n") != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// The reference's steps one by one; used for tags that SimpleTags rejects.
std::string ExtractSummarySlow(std::string_view span, std::string_view start_tag,
                               std::string_view end_tag) {
  const std::string replaced = ReplaceAll(ReplaceAll(span, start_tag, " "), end_tag, " ");
  std::string collapsed;
  for (char c : replaced) {
    if (c == ' ' && !collapsed.empty() && collapsed.back() == ' ') continue;
    collapsed.push_back(c);
  }
  std::string out;
  for (std::string_view line : SplitChar(PyStrip(collapsed), '\n')) {
    if (line.empty()) continue;
    if (!out.empty()) out.push_back('\n');
    out.append(line);
  }
  return out;
}

// Word-at-a-time helpers: a byte of 0x80 in the result marks each byte of `v` equal
// to `c` (exact, no false positives).
inline uint64_t Broadcast(char c) { return 0x0101010101010101ULL * static_cast<uint8_t>(c); }
inline uint64_t ByteEq(uint64_t v, uint64_t pattern) {
  const uint64_t x = v ^ pattern;
  constexpr uint64_t k7f = 0x7F7F7F7F7F7F7F7FULL;
  return ~(((x & k7f) + k7f) | x | k7f);
}

}  // namespace

// One pass over the span: tags become a space, runs of spaces and runs of newlines
// collapse to one (collapsing newlines before the strip gives the same text as
// dropping empty lines after it), then strip. Eight bytes at a time are copied as they
// are unless they hold a '<', two spaces or two newlines in a row (also across the
// word boundary); only such words are looked at byte by byte.
std::string ExtractSummary(std::string_view response, std::string_view start_tag,
                           std::string_view end_tag) {
  std::string_view span = response;
  const size_t s = response.find(start_tag);
  const size_t e = RFind(response, end_tag);
  if (s != std::string_view::npos && e != std::string_view::npos && e > s) {
    const size_t from = s + start_tag.size();
    span = from <= e ? response.substr(from, e - from) : std::string_view();
  }
  if (!SimpleTags(start_tag, end_tag)) return ExtractSummarySlow(span, start_tag, end_tag);

  std::string out(span.size() + 16, '\0');
  char* const begin = out.data();
  char* w = begin;
  const char* p = span.data();
  const char* const end = p + span.size();
  const uint64_t kSpace = Broadcast(' '), kNewline = Broadcast('\n'), kLt = Broadcast('<');
  while (p < end) {
#if defined(__SSE2__)
    // Sixteen bytes at a time: one compare per special byte, masks as 16-bit ints.
    if (end - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const unsigned sp = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
      const unsigned nl = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))));
      const unsigned lt = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('<'))));
      const unsigned prev_sp = (w != begin && w[-1] == ' ') ? 1 : 0;
      const unsigned prev_nl = (w != begin && w[-1] == '\n') ? 1 : 0;
      // Bit i is byte i: "the byte before" is a shift left by one.
      if (((sp & ((sp << 1) | prev_sp)) | (nl & ((nl << 1) | prev_nl)) | lt) == 0) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(w), v);
        w += 16;
        p += 16;
        continue;
      }
    }
#endif
    if (end - p >= 8) {
      uint64_t v;
      std::memcpy(&v, p, 8);
      const uint64_t sp = ByteEq(v, kSpace), nl = ByteEq(v, kNewline);
      // The byte before this word, as written: a run may continue across words.
      const uint64_t prev_sp = (w != begin && w[-1] == ' ') ? 0x80 : 0;
      const uint64_t prev_nl = (w != begin && w[-1] == '\n') ? 0x80 : 0;
      // Little-endian: byte i of the word is bits 8i..8i+7, so "the byte before" is
      // a shift left by 8.
      const uint64_t runs = (sp & ((sp << 8) | prev_sp)) | (nl & ((nl << 8) | prev_nl));
      if ((runs | ByteEq(v, kLt)) == 0) {
        std::memcpy(w, p, 8);
        w += 8;
        p += 8;
        continue;
      }
    }
    // Byte by byte up to the next word boundary.
    const char* const stop = std::min(end, p + 8);
    while (p < stop) {
      const char c = *p;
      if (c == '<') {
        const std::string_view rest(p, end - p);
        size_t tag = 0;
        if (rest.starts_with(start_tag)) {
          tag = start_tag.size();
        } else if (rest.starts_with(end_tag)) {
          tag = end_tag.size();
        }
        if (tag != 0) {
          if (w == begin || w[-1] != ' ') *w++ = ' ';
          p += tag;
          break;  // realign the word loop after the tag
        }
      } else if ((c == ' ' || c == '\n') && w != begin && w[-1] == c) {
        ++p;
        continue;
      }
      *w++ = c;
      ++p;
    }
  }
  const std::string_view stripped = PyStrip(std::string_view(begin, w - begin));
  const size_t lead = stripped.data() - begin;
  out.resize(lead + stripped.size());
  out.erase(0, lead);
  return out;
}

const TaskFamily& SummarizationFamily() {
  static constexpr TaskFamily kFamily{
      "summarization", "summarize a document under format rules", "paper-1", kSubtasks,
      summarization_internal::kStrictRulesVersion, /*needs_python=*/false,
      &summarization_internal::ParseSummarizationParams};
  return kFamily;
}

}  // namespace structtest
