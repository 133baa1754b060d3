#include "tasks/html/generator.h"

#include <string>

#include <fmt/format.h>

#include "tasks/generate_util.h"

namespace structtest::html_internal {

namespace {

// Per-level counts: how many of each tag inside one parent.
struct Counts {
  int head, title, body, div, footer, h1, h2, p;

  int64_t Total() const {
    return 1 + head + int64_t{head} * title + body + int64_t{body} * (div + footer) +
           int64_t{body} * div * (h1 + h2 + p);
  }
};

// The paper resamples while a document would exceed this many tags.
constexpr int64_t kMaxTotalTags = 700;

Counts Draw(Rng* rng, int lo, int hi) {
  for (;;) {
    auto n = [&] { return static_cast<int>(rng->UniformInt(lo, hi)); };
    Counts c;
    c.head = n(), c.title = n(), c.body = n(), c.div = n(), c.footer = n();
    c.h1 = n(), c.h2 = n(), c.p = n();
    if (c.Total() <= kMaxTotalTags) return c;
  }
}

std::string Render(const Counts& c) {
  std::string s = "<html>\n";
  for (int i = 0; i < c.head; ++i) {
    s += "  <head>\n";
    for (int j = 0; j < c.title; ++j) s += "    <title></title>\n";
    s += "  </head>\n";
  }
  for (int i = 0; i < c.body; ++i) {
    s += "  <body>\n";
    for (int j = 0; j < c.div; ++j) {
      s += "    <div>\n";
      for (int k = 0; k < c.h1; ++k) s += "      <h1></h1>\n";
      for (int k = 0; k < c.h2; ++k) s += "      <h2></h2>\n";
      for (int k = 0; k < c.p; ++k) s += "      <p></p>\n";
      s += "    </div>\n";
    }
    for (int j = 0; j < c.footer; ++j) s += "    <footer></footer>\n";
    s += "  </body>\n";
  }
  return s + "</html>";
}

std::string Tags(int n, std::string_view tag) {
  return fmt::format("{} <{}> element{}", n, tag, n == 1 ? "" : "s");
}

StatusOr<Sample> Generate(const GenerateRequest& request, std::string_view subtask, int lo,
                          int hi) {
  // A train suite (sources/split.h) has no source item to keep apart here: its own
  // stream of counts, and a prompt worded as no eval prompt is ("Produce ...").
  const bool train = request.sources != nullptr && request.sources->split == SourceSplit::kTrain;
  Rng rng = train ? SourceRng(request.seed, SourceSplit::kTrain).Fork(subtask).Fork(
                        std::to_string(request.index))
                  : SampleRng(request, subtask);
  const Counts c = Draw(&rng, lo, hi);
  const std::string prompt = fmt::format(
      "{} an HTML document with exactly this structure and no other tags:\n"
      "- one <html> element, containing {} and {};\n"
      "- each <head> contains {};\n"
      "- each <body> contains {} and {};\n"
      "- each <div> contains {}, {} and {}.\n"
      "Close every element you open. Elements may be empty. Start the document with "
      "<html> and end it with </html>.",
      train ? "Produce" : "Write", Tags(c.head, "head"), Tags(c.body, "body"), Tags(c.title, "title"),
      Tags(c.div, "div"), Tags(c.footer, "footer"), Tags(c.h1, "h1"), Tags(c.h2, "h2"),
      Tags(c.p, "p"));
  Sample s = NewSample(request, "html", subtask, prompt);
  const nlohmann::json per_level = {{"html", 1},        {"head", c.head}, {"title", c.title},
                                    {"body", c.body},   {"div", c.div},   {"footer", c.footer},
                                    {"h1", c.h1},       {"h2", c.h2},     {"p", c.p}};
  const int64_t divs = int64_t{c.body} * c.div;
  const nlohmann::json nested = {{"html", 1},
                                 {"head", c.head},
                                 {"title", int64_t{c.head} * c.title},
                                 {"body", c.body},
                                 {"div", divs},
                                 {"footer", int64_t{c.body} * c.footer},
                                 {"h1", divs * c.h1},
                                 {"h2", divs * c.h2},
                                 {"p", divs * c.p}};
  s.params = {{"no_of_tags", per_level},
              {"ground_truth", nested},
              {"mode", "nested"},
              {"config", "nested"}};
  s.context = {{"start_tag", "<html>"}, {"end_tag", "</html>"}};
  s.target = {{"answer", Render(c)}, {"total_tags", c.Total()}};
  return s;
}

}  // namespace

// The paper's ranges: Easy 2..5 per level, Hard 2..12.
StatusOr<Sample> GenerateHtmlEasy(const GenerateRequest& request) {
  return Generate(request, "html_easy", 2, 5);
}

StatusOr<Sample> GenerateHtmlHard(const GenerateRequest& request) {
  return Generate(request, "html_hard", 2, 12);
}

}  // namespace structtest::html_internal
