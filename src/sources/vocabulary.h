// Word lists shared by the built-in generators: given names, family names and the
// pieces invented place names are made of. Written for structtest; every entry is a
// plain ASCII word that NLTK's Punkt does not treat as an abbreviation, so a sentence
// may end on it. Internal to src/sources.
#ifndef STRUCTTEST_SOURCES_VOCABULARY_H_
#define STRUCTTEST_SOURCES_VOCABULARY_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "sources/split.h"

namespace structtest::internal {

// A uniform integer in [lo, hi]: the generators' shorthand for rng->UniformInt.
inline int64_t RandomInt(Rng* rng, int64_t lo, int64_t hi) { return rng->UniformInt(lo, hi); }

std::span<const std::string_view> GivenNames();
std::span<const std::string_view> FamilyNames();
std::span<const std::string_view> PlacePrefixes();
std::span<const std::string_view> PlaceSuffixes();
// The train split's own lists (sources/split.h), disjoint from the ones above.
std::span<const std::string_view> TrainGivenNames();
std::span<const std::string_view> TrainFamilyNames();
std::span<const std::string_view> TrainPlacePrefixes();
std::span<const std::string_view> TrainNameSuffixes();

// Uniform pick from a list. REQUIRES: !items.empty().
std::string_view PickFrom(std::span<const std::string_view> items, Rng* rng);

// Draws people and places for one document or problem without repeating a family
// name, a given name or a place; from the train split's lists for a train item.
class NameDrawer {
 public:
  explicit NameDrawer(Rng* rng, SourceSplit split = SourceSplit::kEval);
  // "Given Family".
  struct Person {
    std::string given;
    std::string family;
    std::string full() const { return given + " " + family; }
  };
  Person NextPerson();
  std::string NextGivenName();
  // An invented town name such as "Ravenmouth".
  std::string NextPlace();
  // A place prefix on its own ("Alder"), for rivers, valleys and brands.
  std::string NextPrefix();
  // Whether any name or place was drawn yet.
  bool drawn() const { return !used_.empty(); }

 private:
  Rng* rng_;
  std::span<const std::string_view> given_, family_, prefixes_;
  std::vector<std::string> used_;
  bool Used(std::string_view s) const;
};

}  // namespace structtest::internal

#endif  // STRUCTTEST_SOURCES_VOCABULARY_H_
