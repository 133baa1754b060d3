#include "sources/document_generator.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/rng.h"
#include "sources/document_genres.h"
#include "sources/text_template.h"
#include "sources/vocabulary.h"

namespace structtest {

namespace {

using internal::ExpandTemplate;
using internal::Facet;
using internal::Genre;
using internal::NameDrawer;
using internal::Slots;

struct Sentence {
  std::string text;
  bool key;
  bool optional;  // drawn with a chance below 100 percent
  bool padding;   // added only to reach the minimum length
  Facet facet;
  size_t words;
};

size_t CountWords(std::string_view s) {
  size_t n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

// The slots every genre may use: places, people, the date of the story.
void SetCommonSlots(Rng* rng, NameDrawer* names, Slots* s) {
  s->Set("city", names->NextPlace());
  s->Set("city2", names->NextPlace());
  s->Set("city3", names->NextPlace());
  s->Set("river", "the " + names->NextPrefix() + " River");
  const int64_t region_kind = rng->UniformInt(0, 4);
  if (region_kind <= 2) {
    static constexpr std::string_view kLand[] = {"Valley", "Coast", "Hills"};
    const std::string bare = names->NextPrefix() + " " + std::string(kLand[region_kind]);
    s->Set("region_bare", bare);
    s->Set("region", "the " + bare);
  } else {
    const std::string bare =
        names->NextPlace() + (region_kind == 3 ? " County" : " Province");
    s->Set("region_bare", bare);
    s->Set("region", bare);
  }
  const int year = static_cast<int>(rng->UniformInt(2016, 2030));
  const int month = static_cast<int>(rng->UniformInt(1, 12));
  const int day = static_cast<int>(rng->UniformInt(1, 28));
  const int style = static_cast<int>(rng->UniformInt(0, 1));
  s->Set("year", std::to_string(year));
  s->Set("prev_year", std::to_string(year - 1));
  s->Set("next_year", std::to_string(year + 1));
  s->Set("month", std::to_string(month));
  s->Set("ann_month", std::string(internal::MonthName(month)));
  s->Set("next_month", std::string(internal::MonthName(month % 12 + 1)));
  s->Set("date", internal::FormatDate(day, month, year, style));
  const int64_t population = rng->UniformInt(12, 900) * 1000;
  s->Set("city_population", internal::FormatThousands(population));
  s->Set("settlement", population >= 100000 ? "city" : "town");
  s->Set("distance", std::to_string(rng->UniformInt(8, 140)));
  static constexpr std::string_view kEconomy[] = {
      "farming and food processing", "shipping and fishing", "engineering and manufacturing",
      "timber and paper mills",      "quarrying and building materials",
      "textile mills",               "tourism and hospitality"};
  s->Set("economy", std::string(kEconomy[rng->UniformInt(0, std::size(kEconomy) - 1)]));
  s->Set("unemployment", std::to_string(rng->UniformInt(3, 11)));
  for (std::string_view role : {"leader", "expert", "critic", "local", "official"}) {
    const NameDrawer::Person p = names->NextPerson();
    s->Set(role, p.full());
    s->Set(std::string(role) + "_last", p.family);
  }
}

// A paragraph of local background every genre gets, before its last section.
constexpr internal::Fact kContext[] = {
    {Facet::kNone, true, 100,
     "{city} is a {settlement} of about {city_population} people, [about|roughly] {distance} "
     "kilometres from {city2}."},
    {Facet::kNone, true, 70,
     "The local economy [has long depended on|was built on] {economy}, [although|while] "
     "[services|tourism and small businesses] have grown in recent years."},
    {Facet::kNone, true, 50,
     "Unemployment in {region} [stands at|is] {unemployment} percent, [slightly above|close "
     "to|just below] the national [figure|average]."},
};

// Sentences that fit any story, used only when a document comes out too short.
constexpr std::string_view kPadding[] = {
    "{city} lies [in the heart|at the edge] of {region}.",
    "[Local newspapers|Regional broadcasters] in {city} have followed the story closely since "
    "{ann_month}.",
    "Residents of {city2} and {city3} [are also expected|are likely] to feel the effects in "
    "the years ahead.",
    "Officials in {region} said they would [keep the public informed|publish regular updates] "
    "as the work goes on.",
};

std::vector<std::vector<Sentence>> RenderSections(const Genre& genre, const Slots& slots,
                                                  Rng* rng) {
  std::vector<internal::Section> all(genre.sections.begin(), genre.sections.end());
  all.insert(all.end() - 1, internal::Section{kContext});
  std::vector<std::vector<Sentence>> sections;
  for (const internal::Section& section : all) {
    std::vector<Sentence> out;
    bool previous_included = false;
    for (const internal::Fact& fact : section.facts) {
      bool include = rng->UniformInt(1, 100) <= fact.percent;
      if (fact.needs_previous && !previous_included) include = false;
      previous_included = include;
      if (!include) continue;
      Sentence s;
      s.text = ExpandTemplate(fact.text, slots, rng);
      s.key = fact.key;
      s.optional = fact.percent < 100;
      s.padding = false;
      s.facet = fact.facet;
      s.words = CountWords(s.text);
      out.push_back(std::move(s));
    }
    sections.push_back(std::move(out));
  }
  return sections;
}

size_t TotalWords(const std::vector<std::vector<Sentence>>& sections) {
  size_t n = 0;
  for (const auto& sec : sections) {
    for (const Sentence& s : sec) n += s.words;
  }
  return n;
}

size_t KeyCount(const std::vector<std::vector<Sentence>>& sections) {
  size_t n = 0;
  for (const auto& sec : sections) {
    for (const Sentence& s : sec) n += s.key ? 1 : 0;
  }
  return n;
}

// Drops sentences, last first, matching `droppable`, until the text fits.
template <typename Pred>
void DropWhileTooLong(std::vector<std::vector<Sentence>>* sections, Pred droppable) {
  for (size_t si = sections->size(); si-- > 0;) {
    auto& sec = (*sections)[si];
    for (size_t i = sec.size(); i-- > 0;) {
      if (TotalWords(*sections) <= kGeneratedDocumentMaxWords) return;
      if (sec.size() > 1 && droppable(sec[i])) sec.erase(sec.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

void FitLength(std::vector<std::vector<Sentence>>* sections, const Slots& slots, Rng* rng) {
  DropWhileTooLong(sections, [](const Sentence& s) { return !s.key && s.optional; });
  DropWhileTooLong(sections, [](const Sentence& s) { return !s.key; });
  DropWhileTooLong(sections, [&](const Sentence& s) {
    return s.key && s.optional && s.facet == Facet::kNone &&
           KeyCount(*sections) > kGeneratedDocumentMinKeySentences + 2;
  });
  // Too short: add general background to the next-to-last section.
  auto& target = (*sections)[sections->size() >= 2 ? sections->size() - 2 : 0];
  for (std::string_view tmpl : kPadding) {
    if (TotalWords(*sections) >= kGeneratedDocumentMinWords) break;
    Sentence s;
    s.text = ExpandTemplate(tmpl, slots, rng);
    s.key = true;
    s.optional = false;
    s.padding = true;
    s.facet = Facet::kNone;
    s.words = CountWords(s.text);
    target.push_back(std::move(s));
  }
}

// Turns sections into 4..8 paragraphs: adjacent short ones merge, long ones split.
std::vector<std::vector<Sentence>> Paragraphs(std::vector<std::vector<Sentence>> sections,
                                              Rng* rng) {
  // A one-sentence section joins the paragraph before it.
  std::vector<std::vector<Sentence>> paras;
  for (auto& sec : sections) {
    if (sec.empty()) continue;
    if (sec.size() == 1 && !paras.empty()) {
      paras.back().push_back(std::move(sec[0]));
    } else {
      paras.push_back(std::move(sec));
    }
  }
  const size_t target = static_cast<size_t>(
      rng->UniformInt(kGeneratedDocumentMinParagraphs, kGeneratedDocumentMaxParagraphs));
  while (paras.size() > target) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < paras.size(); ++i) {
      if (paras[i].size() + paras[i + 1].size() < paras[best].size() + paras[best + 1].size()) {
        best = i;
      }
    }
    auto& a = paras[best];
    for (auto& s : paras[best + 1]) a.push_back(std::move(s));
    paras.erase(paras.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  while (paras.size() < target) {
    size_t best = 0;
    for (size_t i = 1; i < paras.size(); ++i) {
      if (paras[i].size() > paras[best].size()) best = i;
    }
    if (paras[best].size() < 4) break;
    std::vector<Sentence>& p = paras[best];
    const size_t half = p.size() / 2;
    std::vector<Sentence> tail(std::make_move_iterator(p.begin() + static_cast<std::ptrdiff_t>(half)),
                               std::make_move_iterator(p.end()));
    p.resize(half);
    paras.insert(paras.begin() + static_cast<std::ptrdiff_t>(best) + 1, std::move(tail));
  }
  return paras;
}

}  // namespace

Document GenerateDocument(uint64_t seed, size_t index, SourceSplit split) {
  Rng rng = SourceRng(seed, split).Fork(fmt::format("document/{}", index));
  const auto genres = internal::DocumentGenres();
  const Genre& genre =
      genres[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(genres.size()) - 1))];
  Slots slots;
  NameDrawer names(&rng, split);
  SetCommonSlots(&rng, &names, &slots);
  genre.setup(&rng, &names, &slots);

  Document doc;
  doc.id = SourceItemId("doc", index, split);
  doc.title = ExpandTemplate(genre.title, slots, &rng);
  std::vector<std::vector<Sentence>> sections = RenderSections(genre, slots, &rng);
  FitLength(&sections, slots, &rng);
  const std::vector<std::vector<Sentence>> paras = Paragraphs(std::move(sections), &rng);

  for (size_t p = 0; p < paras.size(); ++p) {
    if (p > 0) doc.text += "\n\n";
    for (size_t i = 0; i < paras[p].size(); ++i) {
      const Sentence& s = paras[p][i];
      if (i > 0) doc.text += ' ';
      doc.text += s.text;
      if (!s.key) continue;
      if (std::find(doc.key_sentences.begin(), doc.key_sentences.end(), s.text) ==
          doc.key_sentences.end()) {
        doc.key_sentences.push_back(s.text);
      }
      std::string* answer = nullptr;
      switch (s.facet) {
        case Facet::kWhat: answer = &doc.answers.what; break;
        case Facet::kWhy: answer = &doc.answers.why; break;
        case Facet::kWho: answer = &doc.answers.who; break;
        case Facet::kWhen: answer = &doc.answers.when; break;
        case Facet::kWhere: answer = &doc.answers.where; break;
        case Facet::kNone: break;
      }
      if (answer != nullptr && answer->empty()) *answer = s.text;
    }
  }
  return doc;
}

std::vector<Document> GenerateDocuments(uint64_t seed, size_t count) {
  std::vector<Document> docs;
  docs.reserve(count);
  for (size_t i = 0; i < count; ++i) docs.push_back(GenerateDocument(seed, i));
  return docs;
}

size_t GeneratedDocumentGenreCount() { return internal::DocumentGenres().size(); }

}  // namespace structtest
