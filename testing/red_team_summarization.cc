// The red team's summarization families (testing/red_team.h). A generated reference
// answer is a list (or a paragraph) of the document's sentences, each on a line after its
// marker ("* ", "3. ", "[Who is involved?] ", a tab and "* "). A cheat keeps every
// marker and count and changes what the sentences say: words that are the document's
// but not a sentence of English (shuffled, strung together without function words,
// drawn at random), or a point that repeats an earlier one with a label or one word
// changed. The twins change the same answers in ways a careful grader accepts (points
// in another order, sentences led in by a clause, labels on every point, a synonym in a
// point that repeats nothing).
// Helpers live in the named namespace red_team_summarization: the testing library is a
// unity build, and the four domain files must not share a name.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_summarization {

// One line of the summary: its marker (indentation, symbol, number or question, and the
// space after it) and its text.
struct SummaryLine {
  std::string marker;
  std::string text;
};

struct Summary {
  std::string before, after;  // the answer around the lines: "<summary>\n", "\n</summary>"
  std::vector<SummaryLine> lines;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

std::optional<Summary> Parse(std::string_view answer) {
  constexpr std::string_view kStart = "<summary>\n", kEnd = "\n</summary>";
  const size_t b = answer.find(kStart);
  const size_t e = answer.rfind(kEnd);
  if (b == std::string_view::npos || e == std::string_view::npos || e < b + kStart.size()) {
    return std::nullopt;
  }
  Summary s;
  s.before = std::string(answer.substr(0, b + kStart.size()));
  s.after = std::string(answer.substr(e));
  std::string_view body = answer.substr(b + kStart.size(), e - b - kStart.size());
  while (!body.empty()) {
    const size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    size_t m = 0;
    while (m < line.size() && (line[m] == ' ' || line[m] == '\t')) ++m;
    if (line.substr(m).starts_with("* ") || line.substr(m).starts_with("- ")) {
      m += 2;
    } else if (m < line.size() && line[m] == '[') {
      const size_t close = line.find("] ", m);
      if (close == std::string_view::npos) return std::nullopt;
      m = close + 2;
    } else {
      size_t d = m;
      while (d < line.size() && IsDigit(line[d])) ++d;
      if (d > m && d + 1 < line.size() && line[d] == '.' && line[d + 1] == ' ') m = d + 2;
    }
    // Another bullet symbol ("• ", "– ") is two or three bytes and a space.
    if (m < line.size() && static_cast<unsigned char>(line[m]) >= 0x80) {
      const size_t space = line.find(' ', m);
      if (space != std::string_view::npos && space <= m + 4) m = space + 1;
    }
    s.lines.push_back({std::string(line.substr(0, m)), std::string(line.substr(m))});
  }
  if (s.lines.empty()) return std::nullopt;
  return s;
}

// The sample's reference answer as a summary; nullopt when it has none or it is not one.
std::optional<Summary> ParseAnswer(const Sample& sample) {
  const std::optional<std::string> answer = ReferenceAnswer(sample);
  if (!answer) return std::nullopt;
  return Parse(*answer);
}

std::string Render(const Summary& s) {
  std::string out = s.before;
  for (size_t i = 0; i < s.lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += s.lines[i].marker + s.lines[i].text;
  }
  return out + s.after;
}

// The sentences of a line of the reference answer: it joins whole sentences of the
// document, which end with ". " before a capital letter or a digit (or "; " where a long
// answer joined two).
std::vector<std::string> SplitSentences(std::string_view text) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] == '.' && text[i + 1] == ' ' && (IsUpper(text[i + 2]) || IsDigit(text[i + 2]))) {
      out.emplace_back(text.substr(begin, i + 1 - begin));
      begin = i + 2;
    }
  }
  out.emplace_back(text.substr(begin));
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// The words of a sentence as written (letters, digits and the marks inside a word:
// "635,300", "long-term", "company's"); its punctuation between words is dropped.
std::vector<std::string> Words(std::string_view sentence) {
  std::vector<std::string> out;
  std::string w;
  auto inner = [&](size_t i) {
    const char c = sentence[i];
    if (c != ',' && c != '.' && c != '-' && c != '\'') return false;
    return i > 0 && i + 1 < sentence.size() && std::isalnum(static_cast<unsigned char>(sentence[i - 1])) &&
           std::isalnum(static_cast<unsigned char>(sentence[i + 1]));
  };
  for (size_t i = 0; i < sentence.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(sentence[i]);
    if (std::isalnum(c) || c >= 0x80 || c == '$' || c == '%' || inner(i)) {
      w.push_back(static_cast<char>(c));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

// Words as a sentence: the first capitalized, a full stop at the end.
std::string AsSentence(std::vector<std::string> words) {
  if (words.empty()) return "";
  if (IsLower(words[0][0])) words[0][0] = static_cast<char>(words[0][0] - 32);
  return Join(words, " ") + ".";
}

bool IsFunctionWord(std::string_view w) {
  static constexpr std::string_view kFunction[] = {
      "a", "an", "the", "of", "in", "on", "at", "by", "for", "with", "from", "into", "to",
      "and", "or", "but", "nor", "is", "are", "was", "were", "be", "been", "has", "have",
      "had", "it", "its", "their", "his", "her", "they", "he", "she", "which", "who", "that",
      "this", "these", "those", "as", "than", "about", "over", "after", "before", "during",
      "between", "while", "will", "would", "can", "could", "should", "may", "not", "also",
      "along", "around", "across", "through", "since", "against", "each", "every"};
  std::string lower(w);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view f : kFunction) {
    if (lower == f) return true;
  }
  return false;
}

// The first word of a sentence as it would stand inside one: a function word in lower
// case ("The" -> "the"); any other word as it is, since it may be a name ("Marlcliff").
std::string Uncapitalized(std::string w) {
  if (IsFunctionWord(w) && IsUpper(w[0])) w[0] = static_cast<char>(w[0] + 32);
  return w;
}

// A sentence led in by `lead` ("It is reported that "), its first word uncapitalized.
std::string LedIn(std::string_view lead, const std::string& sentence) {
  const std::vector<std::string> words = Words(sentence);
  std::string rest = sentence;
  if (!words.empty() && Uncapitalized(words[0]) != words[0]) rest[0] = static_cast<char>(rest[0] + 32);
  return std::string(lead) + rest;
}

// The answer with `change` applied to every sentence of every line.
template <typename Change>
std::string EverySentence(Summary s, Change change) {
  for (SummaryLine& line : s.lines) {
    std::vector<std::string> sentences = SplitSentences(line.text);
    for (std::string& sentence : sentences) sentence = change(sentence);
    line.text = Join(sentences, " ");
  }
  return Render(s);
}

// The twin of the families that take the sentences apart: every sentence led in by
// `lead`, which adds function words and stays English.
std::string EverySentenceLedIn(const Summary& s, std::string_view lead) {
  return EverySentence(s, [&](const std::string& sentence) { return LedIn(lead, sentence); });
}

std::optional<RedTeamPair> WordsOutOfOrder(const Sample& sample, uint64_t seed) {
  const std::optional<Summary> s = ParseAnswer(sample);
  if (!s) return std::nullopt;
  Rng rng(seed);
  std::string cheat = EverySentence(*s, [&](const std::string& sentence) {
    std::vector<std::string> words = Words(sentence);
    if (words.size() < 3) return sentence;
    words[0] = Uncapitalized(words[0]);
    rng.Shuffle(&words);
    return AsSentence(std::move(words));
  });
  return RedTeamPair{std::move(cheat), EverySentenceLedIn(*s, "According to the report, ")};
}

std::optional<RedTeamPair> WordsStrungTogether(const Sample& sample, uint64_t) {
  const std::optional<Summary> s = ParseAnswer(sample);
  if (!s) return std::nullopt;
  std::string cheat = EverySentence(*s, [](const std::string& sentence) {
    std::vector<std::string> kept;
    for (std::string& w : Words(sentence)) {
      if (!IsFunctionWord(w)) kept.push_back(std::move(w));
    }
    return kept.size() < 2 ? sentence : AsSentence(std::move(kept));
  });
  return RedTeamPair{std::move(cheat), EverySentenceLedIn(*s, "It is reported that ")};
}

// The document: what follows "Document:" in the prompt.
std::string_view DocumentOf(const Sample& sample) {
  for (auto m = sample.messages.rbegin(); m != sample.messages.rend(); ++m) {
    if (m->role != "user") continue;
    const size_t p = m->content.find("\nDocument:\n");
    if (p != std::string::npos) return std::string_view(m->content).substr(p + 11);
  }
  return "";
}

std::optional<RedTeamPair> DocumentWordsAtRandom(const Sample& sample, uint64_t seed) {
  const std::vector<std::string> pool = Words(DocumentOf(sample));
  const std::optional<Summary> s = ParseAnswer(sample);
  if (pool.size() < 50 || !s) return std::nullopt;
  Rng rng(seed);
  std::string cheat = EverySentence(*s, [&](const std::string& sentence) {
    std::vector<std::string> words(Words(sentence).size());
    for (std::string& w : words) w = rng.Pick(pool);
    return AsSentence(std::move(words));
  });
  return RedTeamPair{std::move(cheat), EverySentenceLedIn(*s, "In particular, ")};
}

// The line whose text a repeat replaces, and the earlier line it repeats: the last line
// and the first of the same depth (so the nesting of the indented task stays); nullopt
// for a one-line answer, whose sentences are the items.
std::optional<std::pair<size_t, size_t>> LastAndFirst(const Summary& s) {
  if (s.lines.size() < 2) return std::nullopt;
  const size_t last = s.lines.size() - 1;
  for (size_t i = 0; i < last; ++i) {
    const bool indented = !s.lines[i].marker.empty() && s.lines[i].marker[0] == '\t';
    const bool last_indented = !s.lines[last].marker.empty() && s.lines[last].marker[0] == '\t';
    if (indented == last_indented) return std::make_pair(last, i);
  }
  return std::nullopt;
}

// Replaces the last item (line, or sentence of a one-line answer) by `repeat(first)`.
template <typename Repeat>
std::optional<std::string> RepeatLast(const Sample& sample, Repeat repeat) {
  std::optional<Summary> s = ParseAnswer(sample);
  if (!s) return std::nullopt;
  if (s->lines.size() == 1) {
    std::vector<std::string> sentences = SplitSentences(s->lines[0].text);
    if (sentences.size() < 2) return std::nullopt;
    std::optional<std::string> r = repeat(sentences.front());
    if (!r) return std::nullopt;
    sentences.back() = *r;
    s->lines[0].text = Join(sentences, " ");
    return Render(*s);
  }
  const auto at = LastAndFirst(*s);
  if (!at) return std::nullopt;
  std::optional<std::string> r = repeat(s->lines[at->second].text);
  if (!r) return std::nullopt;
  s->lines[at->first].text = *r;
  return Render(*s);
}

std::optional<RedTeamPair> RepeatWithALabel(const Sample& sample, uint64_t seed) {
  Rng rng(seed);
  const int64_t form = rng.UniformInt(0, 4);
  const int64_t n = rng.UniformInt(2, 9);
  std::optional<std::string> cheat = RepeatLast(sample, [&](const std::string& text) {
    switch (form) {
      case 0: return std::optional<std::string>(fmt::format("Point {}: {}", n, text));
      case 1: return std::optional<std::string>(fmt::format("({}) {}", n, text));
      case 2: return std::optional<std::string>(fmt::format("{} [{}]", text, n));
      case 3: return std::optional<std::string>(fmt::format("Again, {}", text));
      default: return std::optional<std::string>(fmt::format("#{} {}", n, text));
    }
  });
  if (!cheat) return std::nullopt;
  // The twin: every line (or sentence) labelled, none repeating another.
  std::optional<Summary> s = ParseAnswer(sample);
  if (s->lines.size() == 1) {
    std::vector<std::string> sentences = SplitSentences(s->lines[0].text);
    for (size_t i = 0; i < sentences.size(); ++i) {
      sentences[i] = fmt::format("Part {}: {}", i + 1, sentences[i]);
    }
    s->lines[0].text = Join(sentences, " ");
  } else {
    for (size_t i = 0; i < s->lines.size(); ++i) {
      s->lines[i].text = fmt::format("Part {}: {}", i + 1, s->lines[i].text);
    }
  }
  return RedTeamPair{*cheat, Render(*s)};
}

// A word in place of another: one of these that the document does not have.
constexpr std::string_view kStandIns[] = {"notable", "considerable", "remarkable",
                                          "substantial", "meaningful", "sizeable"};

// The text with its first plain word of at least five letters (not a name, not a
// number, not a function word) replaced by a stand-in the document does not have.
std::optional<std::string> OneWordChanged(const std::string& text, std::string_view document,
                                          Rng& rng) {
  std::vector<std::string_view> stand_ins;
  for (std::string_view w : kStandIns) {
    if (document.find(w) == std::string_view::npos) stand_ins.push_back(w);
  }
  if (stand_ins.empty()) return std::nullopt;
  const std::string_view stand_in = stand_ins[static_cast<size_t>(
      rng.UniformInt(0, static_cast<int64_t>(stand_ins.size()) - 1))];
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsLower(text[i]) && !IsUpper(text[i])) ++i;
    const size_t b = i;
    while (i < text.size() && IsLower(text[i])) ++i;
    if (b < text.size() && IsUpper(text[b])) {
      ++i;
      while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    const bool whole = i >= text.size() || !std::isalnum(static_cast<unsigned char>(text[i]));
    if (whole && i - b >= 5 && !IsFunctionWord(text.substr(b, i - b))) {
      return text.substr(0, b) + std::string(stand_in) + text.substr(i);
    }
    while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
  }
  return std::nullopt;
}

std::optional<RedTeamPair> RepeatWithAWordChanged(const Sample& sample, uint64_t seed) {
  const std::string_view document = DocumentOf(sample);
  Rng rng(seed);
  std::optional<std::string> cheat = RepeatLast(
      sample, [&](const std::string& text) { return OneWordChanged(text, document, rng); });
  if (!cheat) return std::nullopt;
  // The twin: the same word changed in the first item, which no item repeats.
  std::optional<Summary> s = ParseAnswer(sample);
  SummaryLine& first = s->lines[0];
  std::vector<std::string> sentences = SplitSentences(first.text);
  Rng twin_rng(seed);
  std::optional<std::string> changed = OneWordChanged(sentences[0], document, twin_rng);
  if (!changed) return std::nullopt;
  sentences[0] = *changed;
  first.text = Join(sentences, " ");
  return RedTeamPair{*cheat, Render(*s)};
}

}  // namespace red_team_summarization

std::vector<CheatFamily> SummarizationCheatFamilies() {
  using namespace red_team_summarization;  // NOLINT: this file's own helpers
  return {
      {"summarization", "summarization/words-out-of-order",
       "the words of every sentence shuffled: the document's words and a sentence's length, "
       "capital and full stop, but no sentence of English",
       "every sentence led in by \"According to the report,\"", &WordsOutOfOrder},
      {"summarization", "summarization/words-strung-together",
       "every sentence without its function words: the document's words in order, strung "
       "together",
       "every sentence led in by \"It is reported that\"", &WordsStrungTogether},
      {"summarization", "summarization/document-words-at-random",
       "every sentence replaced by as many words drawn at random from the document",
       "every sentence led in by \"In particular,\"", &DocumentWordsAtRandom},
      {"summarization", "summarization/repeat-with-a-label",
       "the last point replaced by the first with a counter or tag added (\"Point 3:\", "
       "\"(4)\", \"[5]\", \"Again,\", \"#6\")",
       "every point labelled \"Part N:\", none repeated", &RepeatWithALabel},
      {"summarization", "summarization/repeat-with-a-word-changed",
       "the last point replaced by the first with one word changed for one the document "
       "does not have",
       "the same word changed in the first point, which no point repeats",
       &RepeatWithAWordChanged},
  };
}

}  // namespace structtest::testing
