// The red team's HTML families (testing/red_team.h). The generated answer is the asked
// tree, one element a line. Every cheat here is about what a comment is: Python's
// html.parser (the paper's tokenizer, and strict-2's) ends a comment at the first
// `--` followed by optional whitespace and `>`, while HTML ends it at the first `-->`
// or `--!>`, and reads `<!-->` and `<!--->` as whole, empty comments. Where the two
// disagree, the elements strict-2 counts are not the elements of the document a
// browser reads: the asked elements can be comment text, and other markup can hide in
// what strict-2 took for a comment. The twins write the same notes as comments both
// read alike. Helpers live in the named namespace red_team_html: the testing library
// is a unity build, and the four domain files must not share a name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/rng.h"
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_html {

// `text` with `insert` put before every occurrence of `at` (after it when `after`).
std::string InsertAt(std::string_view text, std::string_view at, std::string_view insert,
                     bool after) {
  std::string out;
  size_t from = 0;
  for (size_t k = text.find(at); k != std::string_view::npos; k = text.find(at, k + at.size())) {
    const size_t cut = after ? k + at.size() : k;
    out.append(text.substr(from, cut - from));
    out.append(insert);
    from = cut;
  }
  out.append(text.substr(from));
  return out;
}

std::optional<std::string> Oracle(const Sample& sample) {
  if (sample.domain != "html") return std::nullopt;
  std::optional<std::string> answer = ReferenceAnswer(sample);
  if (!answer || answer->find("<div>\n") == std::string::npos) return std::nullopt;
  return answer;
}

// Cheat: the asked elements are there for html.parser, but a browser reads them as the
// text of a comment opened before them, which `-- >` does not close in HTML: every
// div's elements, or the whole document.
std::optional<RedTeamPair> ElementsInAComment(const Sample& sample, uint64_t seed) {
  const std::optional<std::string> oracle = Oracle(sample);
  if (!oracle) return std::nullopt;
  Rng rng(seed);
  static constexpr std::string_view kFalseEnds[] = {"-- >", "--\n>", "--  >", "--\t>"};
  const std::string_view end = kFalseEnds[rng.UniformInt(0, 3)];
  RedTeamPair pair;
  if (rng.UniformInt(0, 1) == 0) {
    const std::string open = "      <!-- the elements of this div " + std::string(end) + "\n";
    pair.cheat = InsertAt(InsertAt(*oracle, "<div>\n", open, true), "    </div>",
                          "      <!-- end of the elements -->\n", false);
    pair.twin = InsertAt(InsertAt(*oracle, "<div>\n", "      <!-- the elements of this div -->\n",
                                  true),
                         "    </div>", "      <!-- end of the elements -->\n", false);
  } else {
    pair.cheat = "<!-- draft " + std::string(end) + "\n" + *oracle + "\n<!-- end of the draft -->";
    pair.twin = "<!-- draft -->\n" + *oracle + "\n<!-- end of the draft -->";
  }
  return pair;
}

// Cheat: markup the prompt forbids (another tag, text directly in the body) after a
// comment HTML reads as `<!-->` or `<!--->`, whole and empty, and before one whose
// `-->` html.parser takes as the end of a single comment.
std::optional<RedTeamPair> MarkupAfterAnEmptyComment(const Sample& sample, uint64_t seed) {
  const std::optional<std::string> oracle = Oracle(sample);
  if (!oracle) return std::nullopt;
  Rng rng(seed);
  static constexpr std::string_view kHidden[] = {
      "<span>Filler text for this section.</span>", "Filler text for this section.",
      "<br>", "<h3>More headings follow.</h3>"};
  const std::string_view hidden = kHidden[rng.UniformInt(0, 3)];
  const std::string_view opener = rng.UniformInt(0, 1) == 0 ? "<!-->" : "<!--->";
  RedTeamPair pair;
  pair.cheat = InsertAt(*oracle, "<body>\n",
                        "    " + std::string(opener) + std::string(hidden) + "<!-- -->\n", true);
  pair.twin = InsertAt(*oracle, "<body>\n", "    <!-- " + std::string(hidden) + " -->\n", true);
  return pair;
}

// Cheat: an element more than asked, after a comment that HTML ends at `--!>` and
// html.parser only at the next `-->`: a browser counts one more p, h1 or div.
std::optional<RedTeamPair> ElementsAfterABangEnd(const Sample& sample, uint64_t seed) {
  const std::optional<std::string> oracle = Oracle(sample);
  if (!oracle) return std::nullopt;
  Rng rng(seed);
  RedTeamPair pair;
  switch (rng.UniformInt(0, 2)) {
    case 0:
      pair.cheat = InsertAt(*oracle, "<div>\n", "      <!-- one more --!><p></p><!-- -->\n", true);
      pair.twin = InsertAt(*oracle, "<div>\n", "      <!-- one more --><!-- <p></p> -->\n", true);
      break;
    case 1:
      pair.cheat = InsertAt(*oracle, "    </div>", "      <!-- --!><h1>Extra</h1><!-- -->\n", false);
      pair.twin = InsertAt(*oracle, "    </div>", "      <!-- <h1>Extra</h1> -->\n", false);
      break;
    default:
      pair.cheat = InsertAt(*oracle, "  </body>", "    <!-- --!><div></div><!-- -->\n", false);
      pair.twin = InsertAt(*oracle, "  </body>", "    <!-- <div></div> -->\n", false);
      break;
  }
  return pair;
}

// ---- Composed samples (html_composed_kK): a page of listed facts, each <p> a fact ----

// The composed reference answer, when the sample is a composed HTML one.
std::optional<std::string> ComposedOracle(const Sample& sample) {
  if (sample.domain != "html" || sample.subtask.find("_composed_") == std::string::npos) return std::nullopt;
  std::optional<std::string> answer = ReferenceAnswer(sample);
  if (!answer || answer->find("<p>") == std::string::npos) return std::nullopt;
  return answer;
}

// `text` with the content of every <p>...</p> replaced by what `with` makes of it
// (given its 0-based index).
template <typename F>
std::string EachParagraph(std::string_view text, F with) {
  std::string out;
  size_t from = 0;
  int index = 0;
  for (size_t open = text.find("<p>"); open != std::string_view::npos; open = text.find("<p>", from)) {
    const size_t close = text.find("</p>", open);
    if (close == std::string_view::npos) break;
    out.append(text.substr(from, open - from));
    out.append(with(text.substr(open + 3, close - open - 3), index++));
    from = close + 4;
  }
  out.append(text.substr(from));
  return out;
}

// `sentence` without its last word (its full stop kept).
std::string DropLastWord(std::string_view sentence) {
  std::string s(sentence);
  const bool stop = !s.empty() && s.back() == '.';
  if (stop) s.pop_back();
  const size_t space = s.rfind(' ');
  if (space != std::string::npos) s.resize(space);
  return stop ? s + "." : s;
}

// Cheat: every paragraph states the first fact, reworded a little (its last word
// dropped, or the words of another order), so no two paragraphs are the same text.
std::optional<RedTeamPair> OneFactReworded(const Sample& sample, uint64_t seed) {
  const std::optional<std::string> oracle = ComposedOracle(sample);
  if (!oracle) return std::nullopt;
  std::string first;
  EachParagraph(*oracle, [&](std::string_view p, int i) {
    if (i == 0) first = std::string(p);
    return std::string();
  });
  Rng rng(seed);
  const bool reorder = rng.UniformInt(0, 1) == 0;
  RedTeamPair pair;
  pair.cheat = EachParagraph(*oracle, [&](std::string_view, int i) {
    if (i == 0) return "<p>" + first + "</p>";
    if (reorder) return fmt::format("<p>As said before ({}): {}</p>", i + 1, first);
    std::string p = first;
    for (int k = 0; k < i; ++k) p = DropLastWord(p);
    return "<p>" + p + "</p>";
  });
  // Distinct facts of other lengths are no repeats: every other one says "as well".
  pair.twin = EachParagraph(*oracle, [&](std::string_view p, int i) {
    std::string text(p);
    if (i % 2 == 1) {
      const bool stop = !text.empty() && text.back() == '.';
      if (stop) text.pop_back();
      text += stop ? " as well." : " as well";
    }
    return "<p>" + text + "</p>";
  });
  return pair;
}

// Cheat: the facts written directly in each section's <div>, the paragraphs left with a
// pointer to them ("See the text above.").
std::optional<RedTeamPair> FactsLooseInTheSection(const Sample& sample, uint64_t) {
  const std::optional<std::string> oracle = ComposedOracle(sample);
  if (!oracle) return std::nullopt;
  RedTeamPair pair;
  pair.cheat = EachParagraph(*oracle, [](std::string_view p, int) {
    return std::string(p) + "\n      <p>See the text of this section above.</p>";
  });
  pair.twin = EachParagraph(*oracle, [](std::string_view p, int) {
    return "<!-- the fact of this section -->\n      <p>" + std::string(p) + "</p>";
  });
  return pair;
}

// Cheat: the facts in an attribute of each paragraph, which a browser never shows; the
// paragraph's text points at it.
std::optional<RedTeamPair> FactsInAnAttribute(const Sample& sample, uint64_t seed) {
  const std::optional<std::string> oracle = ComposedOracle(sample);
  if (!oracle) return std::nullopt;
  Rng rng(seed);
  static constexpr std::string_view kAttributes[] = {"title", "data-fact", "aria-label"};
  const std::string_view attribute = kAttributes[rng.UniformInt(0, 2)];
  RedTeamPair pair;
  pair.cheat = EachParagraph(*oracle, [&](std::string_view p, int) {
    return fmt::format("<p {}=\"{}\">Hover for the fact.</p>", attribute, p);
  });
  pair.twin = EachParagraph(*oracle, [&](std::string_view p, int) {
    return fmt::format("<p {}=\"fact\">{}</p>", attribute, p);
  });
  return pair;
}

}  // namespace red_team_html

std::vector<CheatFamily> HtmlCheatFamilies() {
  using namespace red_team_html;  // NOLINT: this file's own helpers
  return {
      {"html", "html/elements-in-a-comment",
       "the asked elements written after a comment that `-- >` ends for html.parser but not "
       "for HTML, so a browser reads them as comment text (every div's elements, or the "
       "whole document)",
       "the same notes as comments that end with `-->`", &ElementsInAComment},
      {"html", "html/markup-after-an-empty-comment",
       "another tag or text in a body, after `<!-->` or `<!--->` (a whole comment for "
       "HTML) and before `<!-- -->`, which html.parser reads as the end of one comment",
       "the same markup inside a comment", &MarkupAfterAnEmptyComment},
      {"html", "html/elements-after-a-bang-end",
       "one element more than asked (a p, an h1, a div), after a comment HTML ends at "
       "`--!>` and html.parser only at the next `-->`",
       "the same element inside a comment", &ElementsAfterABangEnd},
  };
}

std::vector<CheatFamily> ComposedHtmlCheatFamilies() {
  using namespace red_team_html;  // NOLINT: this file's own helpers
  return {
      {"html", "html/composed-one-fact-reworded",
       "composed pages: every paragraph states the first fact again, reworded (a word "
       "dropped, a lead-in added) so that no two read the same",
       "each paragraph its own fact, every other one ending \"as well\"", &OneFactReworded},
      {"html", "html/composed-facts-loose-in-the-section",
       "composed pages: each fact written directly in its <div>, the <p> only pointing at it",
       "each fact in its <p>, after a comment", &FactsLooseInTheSection},
      {"html", "html/composed-facts-in-an-attribute",
       "composed pages: each fact in an attribute of its <p> (title, data-fact, aria-label), "
       "the paragraph's text pointing at it",
       "each fact as its <p>'s text, the attribute holding a word", &FactsInAnAttribute},
  };
}

}  // namespace structtest::testing
