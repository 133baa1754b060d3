// The genres of the built-in document generator: for each one, a setup function that
// draws the story (people, places, numbers that agree with each other) into slots, a
// title template, and the sentence templates of each section in reading order.
// Internal to src/sources; document_generator.cc assembles documents from these.
#ifndef STRUCTTEST_SOURCES_DOCUMENT_GENRES_H_
#define STRUCTTEST_SOURCES_DOCUMENT_GENRES_H_

#include <span>
#include <string_view>

#include "core/rng.h"
#include "sources/text_template.h"
#include "sources/vocabulary.h"

namespace structtest::internal {

// Which of the five `questions` a sentence answers, if any.
enum class Facet { kNone, kWhat, kWhy, kWho, kWhen, kWhere };

struct Fact {
  Facet facet;
  // A key sentence: a fact a summary may use. Key templates must expand to one
  // Punkt sentence (see Document::key_sentences); colour sentences (quotes, asides)
  // only need to read well.
  bool key;
  // Chance in percent that the sentence appears; 100 = always.
  int percent;
  std::string_view text;
  // Appears only if the fact before it in the section did (it refers back to it).
  bool needs_previous = false;
};

struct Section {
  std::span<const Fact> facts;
};

struct Genre {
  std::string_view name;
  // Fills the genre's slots. The common slots (see document_generator.cc) are
  // already set.
  void (*setup)(Rng* rng, NameDrawer* names, Slots* slots);
  std::string_view title;
  std::span<const Section> sections;
};

std::span<const Genre> DocumentGenres();

}  // namespace structtest::internal

#endif  // STRUCTTEST_SOURCES_DOCUMENT_GENRES_H_
