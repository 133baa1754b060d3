#include "sources/vocabulary.h"

#include <algorithm>
#include <cassert>

namespace structtest::internal {

namespace {

constexpr std::string_view kGivenNames[] = {
    "Amara",  "Tomas",   "Ingrid",  "Rahul",   "Mei",     "Kwame",   "Elena",   "Joaquin",
    "Sofia",  "Yusuf",   "Hannah",  "Dmitri",  "Aiko",    "Lucas",   "Fatima",  "Oren",
    "Priya",  "Mateo",   "Leila",   "Connor",  "Nadia",   "Samuel",  "Ayesha",  "Felix",
    "Chloe",  "Tariq",   "Maren",   "Diego",   "Grace",   "Kenji",   "Olivia",  "Emeka",
    "Anika",  "Rafael",  "Zara",    "Henrik",  "Imani",   "Jonah",   "Lucia",   "Arjun",
    "Freya",  "Malik",   "Noor",    "Stefan",  "Ines",    "Kofi",    "Mira",    "Pablo",
    "Astrid", "Hugo",    "Lena",    "Omar",    "Rosa",    "Viktor",  "Yara",    "Daniel",
    "Keiko",  "Farah",   "Elias",   "Talia",   "Marcus",  "Signe",   "Ravi",    "Clara",
    "Ibrahim", "Julia",  "Tobias",  "Amina",   "Nikolai", "Esther",  "Andre",   "Wen",
    "Bianca", "Caleb",   "Sana",    "Gustav",  "Lila",    "Patrice", "Hiroshi", "Carmen",
    "Ethan",  "Zainab",  "Ruben",   "Maya",    "Anton",   "Nia",     "Jasper",  "Leona",
    "Sami",   "Eva",     "Dario",   "Ruth",    "Kai",     "Alma",    "Theo",    "Dalia",
    "Isaac",  "Nora",    "Bruno",   "Selin",   "Adaeze",  "Mikael",  "Paloma",  "Soren",
};

constexpr std::string_view kFamilyNames[] = {
    "Okafor",     "Lindqvist",  "Moreau",     "Hartley",    "Nakamura",   "Castellanos",
    "Brennan",    "Adeyemi",    "Kowalski",   "Fairbairn",  "Haddad",     "Marchetti",
    "Osei",       "Valdez",     "Whitcombe",  "Iyer",       "Sorensen",   "Delacroix",
    "Mwangi",     "Petrov",     "Abernathy",  "Quintero",   "Takahashi",  "Holloway",
    "Bergstrom",  "Chaudhry",   "Ferreira",   "Gallagher",  "Novak",      "Ashworth",
    "Mensah",     "Rinaldi",    "Ostrowski",  "Kimura",     "Thornbury",  "Alvarez",
    "Lindgren",   "Pemberton",  "Sato",       "Kovacs",     "Drummond",   "Fontaine",
    "Hassan",     "Yilmaz",     "Ruiz",       "Castillo",   "Whitaker",   "Engstrom",
    "Nkemelu",    "Varga",      "Harrow",     "Calloway",   "Esposito",   "Moller",
    "Sandoval",   "Adler",      "Banerjee",   "Dunmore",    "Eriksen",    "Okonkwo",
    "Rasmussen",  "Tanaka",     "Villanueva", "Bakshi",     "Corrigan",   "Lachance",
    "Oyelaran",   "Pacheco",    "Strand",     "Wojcik",     "Achterberg", "Bellamy",
    "Cardenas",   "Dahl",       "Ekwueme",    "Falk",       "Guerrero",   "Hollis",
    "Ibarra",     "Jansen",     "Kaplan",     "Lorenzo",    "Mahlangu",   "Nordin",
    "Oduya",      "Pereira",    "Quist",      "Rahman",     "Sheridan",   "Tavares",
    "Underwood",  "Vasquez",    "Wexley",     "Yamada",     "Zielinski",  "Arnaud",
    "Boateng",    "Carver",     "Desai",      "Eklund",     "Ferraro",    "Grieve",
    "Halvorsen",  "Ishikawa",   "Jovanovic",  "Kessler",    "Lundqvist",  "Mercier",
    "Nwosu",      "Orlov",      "Prescott",   "Renfrew",    "Salonen",    "Toivonen",
};

constexpr std::string_view kPlacePrefixes[] = {
    "Ash",    "Bram",   "Calder", "Dun",    "Elder",  "Fern",   "Glen",   "Hollin",
    "Iver",   "Kestrel", "Lark",  "Marl",   "North",  "Oak",    "Pember", "Quill",
    "Raven",  "Sedge",  "Thorn",  "Umber",  "Wester", "Willow", "Yarrow", "Bright",
    "Cold",   "Fox",    "Hazel",  "Kings",  "Lynd",   "Mill",   "Nether", "Rook",
    "Stone",  "Tarn",   "Wend",   "Alder",  "Birch",  "Copper", "Heron",  "Amber",
};

constexpr std::string_view kPlaceSuffixes[] = {
    "ford", "bridge", "ton",  "wick",  "field", "haven", "mouth", "dale", "mere", "port",
    "stead", "bury",  "cliff", "holm", "by",    "worth", "ley",   "gate", "combe", "hurst",
};

// The train split's own words (sources/split.h): no eval list holds them, no eval
// template contains them as words, and every train item holds at least one.
constexpr std::string_view kTrainGivenNames[] = {
    "Aurelio",  "Brisa",     "Cassian",  "Delphine", "Eamon",     "Fenna",    "Gideon",
    "Halima",   "Ilario",    "Jessamy",  "Kasimir",  "Liesel",    "Mathis",   "Nerys",
    "Octavio",  "Pernille",  "Quentin",  "Ysolde"  , "Severin",   "Thandiwe", "Ulrike",
    "Valentin", "Wilhelmina", "Ximena",  "Yannick",  "Zuleika",   "Anouk",    "Bertil",
    "Cosima",   "Dorian",    "Eberhard",  "Florentina", "Gaspard", "Hestia",   "Ignatius",
    "Jolanda",  "Leander",   "Marisol",  "Ottilie",  "Perpetua",  "Quirin",   "Romilly",
    "Sigrun",   "Tancredi",  "Umaima",   "Gwendolyn", "Casimira", "Benedek",
};

constexpr std::string_view kTrainFamilyNames[] = {
    "Aldershaw",   "Brimblecombe", "Cattermole",  "Dewhurst",     "Ellingboe",   "Fennimore",
    "Gorringe",    "Hemsworthy",   "Inchbald",    "Jellicoe",     "Kittredge",   "Loxley",
    "Mountjoy",    "Nettleship",   "Ockenden",    "Pennycook",    "Quartermaine", "Ravensworth",
    "Scrimgeour",  "Tolliver",     "Upshaw",      "Vavasour",     "Wetherell",   "Yardley",
    "Zabriskie",   "Ainsworthy",   "Brackenbury", "Chetwynd",     "Esterhazy",   "Fotheringham",
    "Greathead",   "Hathersage",   "Illingworth", "Jagoe",        "Kingscote",   "Lightbody",
    "Mallender",   "Northcote",    "Oldroyd",     "Postlethwaite", "Quayle",     "Rushbrooke",
    "Sackville",   "Trelawney",    "Uttley",      "Venables",     "Whitlock",    "Gribble",
};

constexpr std::string_view kTrainPlacePrefixes[] = {
    "Auber", "Bexel", "Corvin", "Dross", "Emmer", "Falder", "Gorse", "Harth", "Islen",
    "Jorv",  "Kelder", "Lorn",  "Merrow", "Nesk", "Orrin",  "Penth", "Quarn", "Rillo",
    "Sarn",  "Tolv",  "Ulm",    "Varn",  "Wyth",  "Yelm",   "Zenn",  "Brisk", "Cresh",
    "Dorn",  "Ebbor", "Frey",   "Grann", "Hesk",  "Ivel",   "Jarr",  "Kyrle", "Lynth",
};

// Suffixes of the train split's function names ("count_vowels_zorvic").
constexpr std::string_view kTrainNameSuffixes[] = {
    "zorvic", "quandle", "pelsk", "vintral", "mossery", "grelt", "tusk", "brindle",
};

}  // namespace

std::span<const std::string_view> TrainGivenNames() { return kTrainGivenNames; }
std::span<const std::string_view> TrainFamilyNames() { return kTrainFamilyNames; }
std::span<const std::string_view> TrainPlacePrefixes() { return kTrainPlacePrefixes; }
std::span<const std::string_view> TrainNameSuffixes() { return kTrainNameSuffixes; }

NameDrawer::NameDrawer(Rng* rng, SourceSplit split)
    : rng_(rng),
      given_(split == SourceSplit::kTrain ? std::span<const std::string_view>(kTrainGivenNames)
                                          : kGivenNames),
      family_(split == SourceSplit::kTrain ? std::span<const std::string_view>(kTrainFamilyNames)
                                           : kFamilyNames),
      prefixes_(split == SourceSplit::kTrain
                    ? std::span<const std::string_view>(kTrainPlacePrefixes)
                    : kPlacePrefixes) {}

std::span<const std::string_view> GivenNames() { return kGivenNames; }
std::span<const std::string_view> FamilyNames() { return kFamilyNames; }
std::span<const std::string_view> PlacePrefixes() { return kPlacePrefixes; }
std::span<const std::string_view> PlaceSuffixes() { return kPlaceSuffixes; }

std::string_view PickFrom(std::span<const std::string_view> items, Rng* rng) {
  assert(!items.empty());
  return items[static_cast<size_t>(rng->UniformInt(0, static_cast<int64_t>(items.size()) - 1))];
}

bool NameDrawer::Used(std::string_view s) const {
  return std::find(used_.begin(), used_.end(), s) != used_.end();
}

NameDrawer::Person NameDrawer::NextPerson() {
  Person p;
  p.given = NextGivenName();
  do {
    p.family = std::string(PickFrom(family_, rng_));
  } while (Used(p.family));
  used_.push_back(p.family);
  return p;
}

std::string NameDrawer::NextGivenName() {
  std::string given;
  do {
    given = std::string(PickFrom(given_, rng_));
  } while (Used(given));
  used_.push_back(given);
  return given;
}

std::string NameDrawer::NextPlace() {
  std::string place;
  std::string prefix;
  do {
    prefix = std::string(PickFrom(prefixes_, rng_));
    place = prefix + std::string(PickFrom(kPlaceSuffixes, rng_));
  } while (Used(place) || Used(prefix));
  // A prefix names at most one thing per document, so "Ashford" and "the Ash River"
  // never meet in the same text.
  used_.push_back(place);
  used_.push_back(prefix);
  return place;
}

std::string NameDrawer::NextPrefix() {
  std::string prefix;
  do {
    prefix = std::string(PickFrom(prefixes_, rng_));
  } while (Used(prefix));
  used_.push_back(prefix);
  return prefix;
}

}  // namespace structtest::internal
