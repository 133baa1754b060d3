#include "tasks/html/family.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "tasks/html/fast_find.h"
#include "tasks/html/generator.h"
#include "tasks/html/html_tokenizer.h"
#include "tasks/html/strict.h"
#include "tasks/params.h"

namespace structtest {

namespace {

using html_internal::ScanResult;
using html_internal::TagVisitor;

constexpr size_t kNpos = std::string_view::npos;

struct AnswerTags {
  std::string_view start = "<html>";
  std::string_view end = "</html>";
};

// Missing tags default to the paper's <html> pair; present but mistyped is an error.
StatusOr<AnswerTags> GetAnswerTags(const nlohmann::json& context) {
  AnswerTags tags;
  if (!context.is_object()) return tags;
  if (context.contains("start_tag")) {
    ASSIGN_OR_RETURN(const std::string* s, GetString(context, "context", "start_tag"));
    tags.start = *s;
  }
  if (context.contains("end_tag")) {
    ASSIGN_OR_RETURN(const std::string* s, GetString(context, "context", "end_tag"));
    tags.end = *s;
  }
  if (tags.start.empty() || tags.end.empty()) {
    return Status::InvalidArgument("context: start_tag and end_tag must not be empty");
  }
  return tags;
}

// The span between the tags, before the newline clean-up (which never changes the
// tag events; see ExtractHtmlAnswer). Points into `response` or into *storage when
// the <think> quirk rewrote the text. False when a tag is missing.
bool LocateAnswer(std::string_view response, const AnswerTags& tags, std::string* storage,
                  std::string_view* span) {
  std::string_view text = response;
  const size_t think = html_internal::FindSubstring(response, "<think>");
  if (think != kNpos) {
    const size_t think_end = html_internal::FindSubstring(response, "</think>");
    if (think_end != kNpos) {
      // The reference cuts from len(start_tag) characters after "<think>".
      size_t from = think;
      for (size_t k = CodePointCount(tags.start); k > 0 && from < response.size(); --k) {
        size_t len;
        DecodeUtf8(response, from, &len);
        from += len;
      }
      if (from < think_end) {
        *storage = ReplaceAll(response, response.substr(from, think_end - from), "");
        text = *storage;
      }
    }
  }
  const size_t a = html_internal::FindSubstring(text, tags.start);
  const size_t b = html_internal::FindSubstring(text, tags.end);
  if (a == kNpos || b == kNpos) return false;
  const size_t begin = a + tags.start.size();
  *span = b > begin ? text.substr(begin, b - begin) : std::string_view();
  return true;
}

using Expected = HtmlTagCount;

// params.ground_truth (`gt`) into *out: (tag, count) in the object's key order.
Status ReadGroundTruth(const nlohmann::json& gt, std::vector<Expected>* out) {
  if (!gt.is_object()) {
    return Status::InvalidArgument(
        fmt::format("params.ground_truth: expected an object of tag counts, found {}",
                    gt.type_name()));
  }
  out->reserve(gt.size());
  for (auto it = gt.begin(); it != gt.end(); ++it) {
    ASSIGN_OR_RETURN(int64_t n,
                     GetIntInRange(gt, "params.ground_truth", it.key(), 0, 1000000000));
    out->push_back({it.key(), n});
  }
  return Status::Ok();
}

struct TagStats {
  std::string name;  // lower-cased, as the reference compares it
  uint64_t key;      // PackName(name), or 0 for names PackName cannot hold
  int64_t opened = 0;
  int64_t closed = 0;
  int64_t open_now = 0;
  int64_t stray_ends = 0;  // end tags seen while none was open
};

// A lower-cased ASCII name of 1..7 bytes as one integer (length in the top byte),
// or 0. Nearly every tag name fits, and then a lookup is a few integer compares.
uint64_t PackName(std::string_view lower) {
  if (lower.empty() || lower.size() > 7) return 0;
  uint64_t key = static_cast<uint64_t>(lower.size()) << 56;
  for (size_t i = 0; i < lower.size(); ++i) {
    const auto c = static_cast<unsigned char>(lower[i]);
    if (c >= 0x80) return 0;
    key |= static_cast<uint64_t>(c) << (8 * i);
  }
  return key;
}

// Counts the events per lower-cased tag name, in order of first occurrence.
class TagCounter : public TagVisitor {
 public:
  void OnStartTag(std::string_view name, size_t) override {
    TagStats& t = Find(name);
    ++t.opened;
    ++t.open_now;
  }
  void OnEndTag(std::string_view name, size_t) override {
    TagStats& t = Find(name);
    ++t.closed;
    if (t.open_now == 0) {
      ++t.stray_ends;
    } else {
      --t.open_now;
    }
  }
  const std::vector<TagStats>& tags() const { return tags_; }

 private:
  static constexpr size_t kLinearLimit = 16;

  TagStats& Find(std::string_view raw) {
    // Short ASCII names: packed, then lower-cased 8 bytes at a time.
    if (!raw.empty() && raw.size() <= 7 && tags_.size() <= kLinearLimit) {
      uint64_t key = static_cast<uint64_t>(raw.size()) << 56;
      for (size_t i = 0; i < raw.size(); ++i) {
        key |= static_cast<uint64_t>(static_cast<unsigned char>(raw[i])) << (8 * i);
      }
      if ((key & 0x8080808080808080ull) == 0) {
        const uint64_t at_least_a =
            key + 0x3F3F3F3F3F3F3F3Full;                       // byte >= 'A' sets bit 7
        const uint64_t above_z = key + 0x2525252525252525ull;  // byte > 'Z' sets bit 7
        key |= ((at_least_a & ~above_z) & 0x8080808080808080ull) >> 2;  // +0x20
        if (last_ != nullptr && last_->key == key) return *last_;
        for (TagStats& t : tags_) {
          if (t.key == key) {
            last_ = &t;
            return t;
          }
        }
      }
    }
    html_internal::PyLowerTagName(raw, &scratch_);
    if (tags_.size() <= kLinearLimit) {
      for (TagStats& t : tags_) {
        if (t.name == scratch_) return t;
      }
    } else if (const auto it = index_.find(scratch_); it != index_.end()) {
      return tags_[it->second];
    }
    last_ = nullptr;  // push_back may move the entries
    tags_.push_back(TagStats{scratch_, PackName(scratch_)});
    if (tags_.size() > kLinearLimit) {
      if (index_.empty()) {
        for (size_t i = 0; i < tags_.size(); ++i) index_.emplace(tags_[i].name, i);
      } else {
        index_.emplace(scratch_, tags_.size() - 1);
      }
    }
    return tags_.back();
  }

  std::vector<TagStats> tags_;
  TagStats* last_ = nullptr;  // the entry found last, checked first
  // Lookup only (never iterated): tags_ keeps the order of first occurrence.
  std::unordered_map<std::string, size_t> index_;
  std::string scratch_;
};

Verdict Pass(std::string reason) {
  Verdict v;
  v.pass = true;
  v.reason = std::move(reason);
  return v;
}

Verdict Fail(std::string reason) {
  Verdict v;
  v.pass = false;
  v.reason = std::move(reason);
  return v;
}

std::string Times(int64_t n) { return n == 1 ? "1 time" : fmt::format("{} times", n); }

// A tag name from the response for a reason: at most 40 code points, valid UTF-8
// (invalid bytes become U+FFFD), since reasons end up in JSON.
std::string Shown(std::string_view name) {
  std::string out;
  size_t shown = 0;
  for (size_t i = 0; i < name.size(); ++shown) {
    if (shown == 40) {
      out += "...";
      break;
    }
    size_t len;
    AppendUtf8(DecodeUtf8(name, i, &len), &out);
    i += len;
  }
  return out;
}

// What is wrong with one tag name, or "" when it passes the paper rule.
std::string TagProblem(const TagStats& t, std::span<const Expected> expected) {
  const Expected* want = nullptr;
  for (const Expected& e : expected) {
    if (e.name == t.name) want = &e;
  }
  if (want == nullptr) {
    return fmt::format("<{}> is not one of the expected tags", Shown(t.name));
  }
  if (t.closed > t.opened) {
    return fmt::format("<{}> closed {} more than opened", t.name,
                       Times(t.closed - t.opened));
  }
  if (t.stray_ends > 0) {
    return fmt::format("</{}> comes before its <{}> is opened ({})", t.name, t.name,
                       t.stray_ends == 1 ? "once" : Times(t.stray_ends));
  }
  if (t.opened > t.closed) {
    return fmt::format("<{}> opened {} more than closed", t.name,
                       Times(t.opened - t.closed));
  }
  if (t.closed != want->count) {
    return fmt::format("expected {} <{}> tags, found {}", want->count, t.name, t.closed);
  }
  return "";
}

std::string StopNote(const ScanResult& scan) {
  if (scan.end != ScanResult::End::kIncomplete) return "";
  return fmt::format(
      " (parsing stopped at byte {} of the answer: {}; as in the reference, nothing "
      "after it counts)",
      scan.stop_pos, scan.what);
}

StatusOr<Verdict> CheckHtmlPaper(const Sample& sample, const SampleParams& params,
                                 std::string_view response, const CheckEnv&) {
  ASSIGN_OR_RETURN(const AnswerTags tags, GetAnswerTags(sample.context));
  ASSIGN_OR_RETURN(const std::span<const Expected> expected, params.html.ground_truth.get());
  if (!params.html.mode.ok()) return params.html.mode.status();

  std::string storage;
  std::string_view answer;
  if (!LocateAnswer(response, tags, &storage, &answer)) {
    return Fail(fmt::format("no {} ... {} in the response", tags.start, tags.end));
  }
  if (PyStrip(answer).empty()) {
    return Fail(fmt::format("nothing between {} and {}", tags.start, tags.end));
  }

  TagCounter counter;
  const ScanResult scan = html_internal::ScanTags(answer, &counter);
  if (scan.end == ScanResult::End::kError) {
    return Fail(
        fmt::format("the reference's HTML parser fails at byte {} of the answer: {}",
                    scan.stop_pos, scan.what));
  }

  if (counter.tags().empty()) {
    return Fail("no start or end tag in the answer (the reference fails an answer in "
                "which its parser sees no tag)" +
                StopNote(scan));
  }
  std::string first_problem;
  int problems = 0;
  for (const TagStats& t : counter.tags()) {
    std::string p = TagProblem(t, expected);
    if (p.empty()) continue;
    if (problems++ == 0) first_problem = std::move(p);
  }
  if (problems > 0) {
    if (problems > 1) {
      first_problem += fmt::format(" (and {} more tag name{} wrong)", problems - 1,
                                   problems == 2 ? "" : "s");
    }
    return Fail(first_problem + StopNote(scan));
  }
  std::string reason = "balanced, and as many as expected:";
  for (const TagStats& t : counter.tags()) {
    fmt::format_to(std::back_inserter(reason), " {} <{}>", t.closed, t.name);
  }
  return Pass(reason + StopNote(scan));
}

constexpr std::string_view kParams =
    "ground_truth (tag -> count), mode; context: start_tag, end_tag";

// The rules each checker lists (RuleSpec): the paper's one count of every tag; strict's
// the table of docs/strict.md: one scan of the document reports the first problem of
// any of its rules, and the counts are checked after it.
constexpr RuleSpec kPaperRules[] = {{"tag-counts", 0}};
constexpr RuleSpec kStrictRules[] = {
    {"document", 0},  {"outside-html", 0},    {"one-document", 0}, {"no-other-tags", 0},
    {"placement", 0}, {"no-other-markup", 0}, {"comment-end", 0},  {"tag-text", 0},
    {"stray-text", 0}, {"well-formed", 0}, {"children-count", 1}};

constexpr SubtaskSpec kSubtasks[] = {
    {"html_easy", Split::kEasy,
     "an HTML skeleton with 2-5 tags per level; balanced tags, counts as asked", kParams,
     &CheckHtmlPaper, false, &html_internal::GenerateHtmlEasy, nullptr,
     &html_internal::CheckHtmlStrict, &html_internal::HtmlSkeleton,
     &html_internal::HtmlLoophole, kPaperRules, kStrictRules},
    {"html_hard", Split::kHard,
     "an HTML skeleton with 2-12 tags per level; balanced tags, counts as asked", kParams,
     &CheckHtmlPaper, false, &html_internal::GenerateHtmlHard, nullptr,
     &html_internal::CheckHtmlStrict, &html_internal::HtmlSkeleton,
     &html_internal::HtmlLoophole, kPaperRules, kStrictRules},
};

constexpr TaskFamily kFamily{
    "html",
    "nested HTML skeletons with exact tag counts per level",
    "paper-2",
    kSubtasks,
    "strict-3",
    /*needs_python=*/false,
    &html_internal::ParseHtmlParams,
};

}  // namespace

const TaskFamily& HtmlFamily() { return kFamily; }

void html_internal::ParseHtmlParams(const nlohmann::json& params, RuleSet rules,
                                    SampleParams* out) {
  HtmlParams& p = out->html;
  p.ground_truth_storage.clear();
  if (!params.is_object()) {
    p.ground_truth.SetNotObject();
    p.no_of_tags.SetNotObject();
    return;
  }
  if (rules == RuleSet::kStrict) {
    if (const auto it = params.find("no_of_tags"); it != params.end()) {
      p.no_of_tags.Set(html_internal::ReadNoOfTags(*it, params));
    }
    return;
  }
  if (const auto it = params.find("ground_truth"); it != params.end()) {
    const Status read = ReadGroundTruth(*it, &p.ground_truth_storage);
    if (read.ok()) {
      p.ground_truth.Set(std::span<const Expected>(p.ground_truth_storage));
    } else {
      p.ground_truth.Set(StatusOr<std::span<const Expected>>(read));
    }
  }
  p.mode.Set(true);  // no mode is the paper's
  if (const auto it = params.find("mode"); it != params.end()) {
    const StatusOr<std::string_view> mode = StringParam(*it, "mode");
    if (!mode.ok()) {
      p.mode.Set(StatusOr<bool>(mode.status()));
    } else if (*mode == "nested_eval") {
      p.mode.Set(StatusOr<bool>(Status::Unimplemented(
          "params.mode: 'nested_eval' (the reference's placement check) is not "
          "implemented; the recorded runs use 'nested'")));
    }
  }
}

std::optional<std::string> ExtractHtmlAnswer(std::string_view response,
                                             std::string_view start_tag,
                                             std::string_view end_tag) {
  std::string storage;
  std::string_view span;
  if (!LocateAnswer(response, AnswerTags{start_tag, end_tag}, &storage, &span)) {
    return std::nullopt;
  }
  // Strip, collapse runs of newlines, drop blank lines.
  std::string out;
  for (std::string_view line : SplitChar(PyStrip(span), '\n')) {
    if (PyStrip(line).empty()) continue;
    if (!out.empty()) out.push_back('\n');
    out.append(line);
  }
  return out;
}

}  // namespace structtest
