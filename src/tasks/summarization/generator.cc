#include "tasks/summarization/generator.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "core/pytext.h"
#include "sources/document.h"
#include "sources/document_generator.h"
#include "tasks/generate_util.h"
#include "tasks/summarization/family.h"
#include "tasks/summarization/strict.h"
#include "text/punkt.h"

namespace structtest::summarization_internal {

namespace {

constexpr std::string_view kStartTag = "<summary>";
constexpr std::string_view kEndTag = "</summary>";

// The paper's sampling ranges.
constexpr int kMinCount = 2, kMaxCount = 10;
constexpr int kMinPerPoint = 1, kMaxPerPoint = 4;
constexpr int kMinSubpoints = 1, kMaxSubpoints = 4;
constexpr std::string_view kSymbols[] = {"*", "\u2022"};

struct Material {
  Document document;
  std::vector<std::string> sentences;  // each one Punkt sentence, safe in any list
};

// Is `s` safe as one line of a reference answer under every summarization checker?
bool UsableSentence(std::string_view s, const SentenceSplitter& splitter) {
  if (s.size() < 20 || s.size() > 400) return false;
  if (!(s[0] >= 'A' && s[0] <= 'Z')) return false;
  if (s.find_first_of("\n\r\t*[<>") != std::string_view::npos) return false;
  if (s.find("\u2022") != std::string_view::npos) return false;
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9' && s[i + 1] == '.' && s[i + 2] == ' ') return false;
  }
  return splitter.Count(s) == 1;
}

StatusOr<Material> GetMaterial(const GenerateRequest& request) {
  const SourceSet* sources = request.sources;
  Material m;
  if (sources != nullptr && !sources->documents.empty()) {
    m.document = sources->documents[request.index % sources->documents.size()];
  } else if (sources != nullptr && sources->generated_documents > 0) {
    m.document = GenerateDocument(sources->generated_seed,
                                  request.index % sources->generated_documents, sources->split);
  } else {
    return Status::InvalidArgument("summarization needs documents (none were given)");
  }
  if (!m.document.key_sentences.empty()) {
    m.sentences = m.document.key_sentences;
    return m;
  }
  if (request.sentences == nullptr) {
    return Status::Unavailable(fmt::format(
        "document '{}': loaded documents need the Punkt sentence model to write "
        "reference answers (none was given)",
        m.document.id));
  }
  const std::string& text = m.document.text;
  for (const auto& span : request.sentences->Split(text)) {
    const std::string_view s = PyStrip(std::string_view(text).substr(span.begin, span.end - span.begin));
    if (UsableSentence(s, *request.sentences)) m.sentences.emplace_back(s);
  }
  if (m.sentences.empty()) {
    return Status::InvalidArgument(fmt::format(
        "document '{}': no sentence of it can serve in a reference answer", m.document.id));
  }
  return m;
}

// The i-th sentence of a reference answer. Past the document's last usable sentence,
// two of them joined into one ("A; B."), a new pair each time (n * (n - 1) of them),
// so that a long answer never repeats itself (the strict rules fail repeats) and every
// item is still one Punkt sentence. A sentence that does not end in '.' cannot be
// joined that way; then, and for a one-sentence document, the sentences cycle.
std::string Nth(const Material& m, size_t i) {
  const size_t n = m.sentences.size();
  if (i < n) return m.sentences[i];
  if (n < 2) return m.sentences[0];
  const size_t j = (i - n) % (n * (n - 1));
  const size_t a = j % n;
  const size_t b = (a + 1 + j / n) % n;  // never a: the offset is 1..n-1
  const std::string& first = m.sentences[a];
  if (!first.ends_with('.')) return m.sentences[i % n];
  return fmt::format("{}; {}", std::string_view(first).substr(0, first.size() - 1),
                     m.sentences[b]);
}

std::string Prompt(const Material& m, std::string_view instruction) {
  std::string p = fmt::format(
      "Summarize the document below.\n\n{}\n\nWrite the summary between {} and {}, and "
      "put nothing else between those tags.\n\nDocument:\n",
      instruction, kStartTag, kEndTag);
  if (!m.document.title.empty()) p += m.document.title + "\n\n";
  p += m.document.text;
  return p;
}

std::string Wrap(std::string_view body) {
  return fmt::format("{}\n{}\n{}", kStartTag, body, kEndTag);
}

void Finish(Sample* s, const Material& m, std::string answer) {
  s->context = {{"start_tag", kStartTag}, {"end_tag", kEndTag}, {"document_id", m.document.id}};
  s->target = {{"answer", std::move(answer)}};
}

std::string_view SymbolName(std::string_view symbol) {
  return symbol == "*" ? "an asterisk (*)" : "a bullet (\u2022)";
}

}  // namespace

StatusOr<Sample> GenerateLength(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  Rng rng = SampleRng(request, "length");
  const int n = static_cast<int>(rng.UniformInt(kMinCount, kMaxCount));
  Sample s = NewSample(request, "summarization", "length",
                       Prompt(m, fmt::format("The summary must be exactly {} sentences long, {}.",
                                             n, kProseInstruction)));
  s.params = {{"n_sentences", n}};
  std::string body;
  for (int i = 0; i < n; ++i) body += (i ? " " : "") + Nth(m, i);
  Finish(&s, m, Wrap(body));
  return s;
}

StatusOr<Sample> GenerateBulletPoints(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  Rng rng = SampleRng(request, "bullet_points");
  const int n = static_cast<int>(rng.UniformInt(kMinCount, kMaxCount));
  const std::string symbol(kSymbols[rng.UniformInt(0, 1)]);
  Sample s = NewSample(
      request, "summarization", "bullet_points",
      Prompt(m, fmt::format("Write the summary as exactly {} bullet points, one per line, "
                            "each starting with {} followed by a space. Use that symbol "
                            "nowhere else, not even for emphasis.",
                            n, SymbolName(symbol))));
  s.params = {{"n_points", n}, {"symbol", symbol}};
  std::string body;
  for (int i = 0; i < n; ++i) body += fmt::format("{}{} {}", i ? "\n" : "", symbol, Nth(m, i));
  Finish(&s, m, Wrap(body));
  return s;
}

StatusOr<Sample> GenerateNumberedPoints(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  Rng rng = SampleRng(request, "numbered_points");
  const int n = static_cast<int>(rng.UniformInt(kMinCount, kMaxCount));
  Sample s = NewSample(request, "summarization", "numbered_points",
                       Prompt(m, fmt::format("Write the summary as exactly {} numbered "
                                             "points, one per line: \"1. \", \"2. \" and so "
                                             "on, counting up by one.",
                                             n)));
  s.params = {{"n_points", n}};
  std::string body;
  for (int i = 0; i < n; ++i) body += fmt::format("{}{}. {}", i ? "\n" : "", i + 1, Nth(m, i));
  Finish(&s, m, Wrap(body));
  return s;
}

StatusOr<Sample> GenerateQuestions(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  std::string instruction =
      "Answer these five questions about the document, each on its own line that starts "
      "with the question in square brackets, exactly as written here, followed by the "
      "answer:";
  for (std::string_view q : kSummaryQuestions) instruction += fmt::format("\n[{}]", q);
  Sample s = NewSample(request, "summarization", "questions", Prompt(m, instruction));
  s.params = nlohmann::json::object();
  const QuestionAnswers& a = m.document.answers;
  const std::string* given[] = {&a.what, &a.why, &a.who, &a.when, &a.where};
  std::string body;
  for (size_t i = 0; i < std::size(kSummaryQuestions); ++i) {
    const std::string& answer = given[i]->empty() ? Nth(m, i) : *given[i];
    body += fmt::format("{}[{}] {}", i ? "\n" : "", kSummaryQuestions[i], answer);
  }
  Finish(&s, m, Wrap(body));
  return s;
}

namespace {

struct PointsLength {
  int points, per_point;
};

PointsLength DrawPointsLength(Rng* rng) {
  const int points = static_cast<int>(rng->UniformInt(kMinCount, kMaxCount));
  return {points, static_cast<int>(rng->UniformInt(kMinPerPoint, kMaxPerPoint))};
}

std::string SentencesOfPoint(const Material& m, int point, int per_point) {
  std::string out;
  for (int k = 0; k < per_point; ++k) out += (k ? " " : "") + Nth(m, point * per_point + k);
  return out;
}

std::string PerPointText(int per_point) {
  return per_point == 1 ? "exactly 1 sentence" : fmt::format("exactly {} sentences", per_point);
}

}  // namespace

StatusOr<Sample> GenerateBulletPointsLength(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  Rng rng = SampleRng(request, "bullet_points_length");
  const PointsLength p = DrawPointsLength(&rng);
  const std::string symbol(kSymbols[rng.UniformInt(0, 1)]);
  Sample s = NewSample(
      request, "summarization", "bullet_points_length",
      Prompt(m, fmt::format("Write the summary as exactly {} bullet points, one per line, "
                            "each starting with {} followed by a space. Each bullet point "
                            "has {}, so the summary has {} sentences in all. Use that "
                            "symbol nowhere else.",
                            p.points, SymbolName(symbol), PerPointText(p.per_point),
                            p.points * p.per_point)));
  s.params = {{"n_points", p.points},
              {"symbol", symbol},
              {"n_sentences_per_point", p.per_point},
              {"n_sentences_total", p.points * p.per_point}};
  std::string body;
  for (int i = 0; i < p.points; ++i) {
    body += fmt::format("{}{} {}", i ? "\n" : "", symbol, SentencesOfPoint(m, i, p.per_point));
  }
  Finish(&s, m, Wrap(body));
  return s;
}

StatusOr<Sample> GenerateNumberedPointsLength(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  Rng rng = SampleRng(request, "numbered_points_length");
  const PointsLength p = DrawPointsLength(&rng);
  Sample s = NewSample(
      request, "summarization", "numbered_points_length",
      Prompt(m, fmt::format("Write the summary as exactly {} numbered points, one per line: "
                            "\"1. \", \"2. \" and so on. Each point has {}, so the summary "
                            "has {} sentences in all.",
                            p.points, PerPointText(p.per_point), p.points * p.per_point)));
  s.params = {{"n_points", p.points},
              {"n_sentences_per_point", p.per_point},
              {"n_sentences_total", p.points * p.per_point}};
  std::string body;
  for (int i = 0; i < p.points; ++i) {
    body += fmt::format("{}{}. {}", i ? "\n" : "", i + 1, SentencesOfPoint(m, i, p.per_point));
  }
  Finish(&s, m, Wrap(body));
  return s;
}

StatusOr<Sample> GenerateIndentedBulletPoints(const GenerateRequest& request) {
  ASSIGN_OR_RETURN(Material m, GetMaterial(request));
  Rng rng = SampleRng(request, "indented_bullet_points");
  const int n = static_cast<int>(rng.UniformInt(kMinCount, kMaxCount));
  const int subs = static_cast<int>(rng.UniformInt(kMinSubpoints, kMaxSubpoints));
  const std::string symbol(kSymbols[rng.UniformInt(0, 1)]);
  Sample s = NewSample(
      request, "summarization", "indented_bullet_points",
      Prompt(m, fmt::format("Write the summary as exactly {} bullet points, each starting "
                            "with {} followed by a space. Under each bullet point put "
                            "exactly {} sub-point{}: lines indented with one tab that start "
                            "with the same symbol. Use that symbol nowhere else.",
                            n, SymbolName(symbol), subs, subs == 1 ? "" : "s")));
  s.params = {{"n_points", n}, {"symbol", symbol}, {"n_subpoints", subs}};
  std::string body;
  size_t k = 0;
  for (int i = 0; i < n; ++i) {
    body += fmt::format("{}{} {}", i ? "\n" : "", symbol, Nth(m, k++));
    for (int j = 0; j < subs; ++j) body += fmt::format("\n\t{} {}", symbol, Nth(m, k++));
  }
  Finish(&s, m, Wrap(body));
  return s;
}

}  // namespace structtest::summarization_internal
