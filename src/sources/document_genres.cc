// Sentence templates and story setups of the built-in document genres. All text here
// was written for structtest. Rules for key templates (checked by the tests through
// NLTK's Punkt over many seeds): no '.', '?', '!' or newline inside, end on a word
// (never on a number or a one-letter word), start with a letter, no abbreviations.
#include "sources/document_genres.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <string>

namespace structtest::internal {

namespace {

constexpr Facet kNo = Facet::kNone;
constexpr Facet kWhat = Facet::kWhat;
constexpr Facet kWhy = Facet::kWhy;
constexpr Facet kWho = Facet::kWho;
constexpr Facet kWhen = Facet::kWhen;
constexpr Facet kWhere = Facet::kWhere;
constexpr bool K = true;   // key sentence
constexpr bool C = false;  // colour sentence

// ---------------------------------------------------------------------------------
// Helpers for the setups.
//
// No expression draws twice: where a slot takes two draws (a name and a word), they are
// written out in statements of their own, in the order GCC drew them (the right-hand
// operand of + first). C++ leaves that order unspecified, and the documents a seed has
// named since are GCC's; written out, every compiler draws the same.

// A value in [lo, hi] rounded down to a multiple of `step` (at least `step`).
int64_t Rounded(Rng* rng, int64_t lo, int64_t hi, int64_t step) {
  const int64_t v = rng->UniformInt(lo, hi) / step * step;
  return v < step ? step : v;
}

std::string Num(int64_t n) { return FormatThousands(n); }
std::string Dollars(int64_t n) { return "$" + FormatThousands(n); }
std::string Millions(int64_t m) { return "$" + FormatThousands(m) + " million"; }

std::string Ordinal(int64_t n) {
  const int64_t mod100 = n % 100;
  const char* suffix = "th";
  if (mod100 < 11 || mod100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::string OrdinalWord(int64_t n) {
  static constexpr std::string_view kWords[] = {
      "zeroth",     "first",      "second",     "third",       "fourth",
      "fifth",      "sixth",      "seventh",    "eighth",      "ninth",
      "tenth",      "eleventh",   "twelfth",    "thirteenth",  "fourteenth",
      "fifteenth",  "sixteenth",  "seventeenth", "eighteenth", "nineteenth",
      "twentieth"};
  assert(n >= 0 && n <= 20);
  return std::string(kWords[n]);
}

int64_t SlotInt(const Slots& s, std::string_view name) {
  const std::string* v = s.Find(name);
  assert(v != nullptr);
  return std::stoll(*v);
}

std::string MonthAfter(int month, int n) {
  return std::string(MonthName((month - 1 + n) % 12 + 1));
}

template <size_t N>
std::string_view PickOne(const std::string_view (&items)[N], Rng* rng) {
  return items[static_cast<size_t>(rng->UniformInt(0, static_cast<int64_t>(N) - 1))];
}

// Sets NAME and NAME_last for a freshly drawn person.
void SetPerson(std::string_view name, NameDrawer* names, Slots* s) {
  const NameDrawer::Person p = names->NextPerson();
  s->Set(name, p.full());
  s->Set(std::string(name) + "_last", p.family);
}

// ---------------------------------------------------------------------------------
// 1. Infrastructure: a transport project about to be built.

struct InfraKind {
  std::string_view kind, name, plural, unit;
  int64_t lo, hi;
  std::string_view features;  // template; {n} is a count drawn in [nlo, nhi]
  int64_t nlo, nhi;
};

constexpr InfraKind kInfraKinds[] = {
    {"bridge", "Bridge", "bridges", "metres", 450, 2600,
     "[two new access roads and a cycle path|a separate lane for cyclists and "
     "pedestrians|a walkway for pedestrians on both sides]",
     0, 0},
    {"rail link", "Rail Link", "rail lines", "kilometres", 14, 85, "{n} new stations", 3, 12},
    {"tunnel", "Tunnel", "tunnels", "kilometres", 2, 9, "{n} ventilation shafts", 2, 6},
    {"ring road", "Ring Road", "roads", "kilometres", 9, 40, "{n} new junctions", 4, 11},
    {"tram line", "Tram Line", "tram lines", "kilometres", 6, 24, "{n} new tram stops", 8, 22},
};

void SetupInfrastructure(Rng* rng, NameDrawer* names, Slots* s) {
  const InfraKind& k = kInfraKinds[RandomInt(rng, 0, std::size(kInfraKinds) - 1)];
  const std::string& city = *s->Find("city");
  static constexpr std::string_view kOrgs[] = {"Transport Authority", "Infrastructure Agency",
                                               "Roads and Transit Board"};
  static constexpr std::string_view kShort[] = {"the authority", "the agency", "the board"};
  const int64_t o = RandomInt(rng, 0, 2);
  s->Set("org", "the " + city + " " + std::string(kOrgs[o]));
  s->Set("org_short", std::string(kShort[o]));
  s->Set("kind", std::string(k.kind));
  s->Set("kind_plural", std::string(k.plural));
  s->Set("subject", "the " + *s->Find("city2") + " " + std::string(k.name));
  s->Set("subject_short", "the " + std::string(k.kind));
  Slots n;
  n.Set("n", NumberWord(RandomInt(rng, k.nlo, k.nhi)));
  s->Set("features", ExpandTemplate(k.features, n, rng));
  const int64_t len =
      k.unit == "metres" ? Rounded(rng, k.lo, k.hi, 10) : RandomInt(rng, k.lo, k.hi);
  s->Set("length", Num(len) + " " + std::string(k.unit));
  static constexpr std::string_view kFirm[] = {"Engineering", "Construction", "Civil Works"};
  const std::string_view firm = PickOne(kFirm, rng);  // drawn before the name (see above)
  s->Set("firm", names->NextPerson().family + " " + std::string(firm));
  static constexpr std::string_view kRoles[] = {"chief executive", "director",
                                                "head of major projects"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
  static constexpr std::string_view kExpert[] = {"professor of civil engineering",
                                                 "transport researcher", "structural engineer"};
  s->Set("expert_role", std::string(PickOne(kExpert, rng)));
  s->Set("expert_org", "the University of " + *s->Find("city3"));
  s->Set("cost", Millions(Rounded(rng, 120, 950, 5)));
  const int64_t year = SlotInt(*s, "year");
  const int64_t plan_years = RandomInt(rng, 5, 18);
  const int64_t build_years = RandomInt(rng, 3, 6);
  const int64_t start_year = year + RandomInt(rng, 0, 1);
  s->Set("plan_years", std::to_string(plan_years));
  s->Set("build_years_word", NumberWord(build_years));
  s->Set("start_year", std::to_string(start_year));
  s->Set("start_month", std::string(MonthName(static_cast<int>(RandomInt(rng, 1, 12)))));
  s->Set("end_year", std::to_string(start_year + build_years));
  s->Set("phase_year", std::to_string(start_year + RandomInt(rng, 1, build_years - 1)));
  s->Set("proposal_year", std::to_string(year - plan_years));
  s->Set("daily_users", Num(Rounded(rng, 8000, 140000, 100)));
  const int64_t old_min = RandomInt(rng, 25, 70);
  s->Set("old_min", std::to_string(old_min));
  s->Set("new_min", std::to_string(old_min - RandomInt(rng, 8, old_min / 2)));
  s->Set("workers", Num(Rounded(rng, 300, 4200, 10)));
  const int64_t national = RandomInt(rng, 40, 75);
  s->Set("national_pct", std::to_string(national));
  s->Set("rest_pct", std::to_string(100 - national));
  s->Set("objections", Num(RandomInt(rng, 200, 3400)));
  s->Set("homes", Num(RandomInt(rng, 40, 900)));
  s->Set("steel", Num(Rounded(rng, 2000, 60000, 100)));
  s->Set("concrete", Num(Rounded(rng, 20000, 900000, 1000)));
}

constexpr std::string_view kInfraTitle =
    "[Work on|Construction of] {subject} to begin in {start_month}||"
    "{city} approves {cost} {kind} to {city2}||"
    "Green light for {subject} after {plan_years} years of planning";

constexpr Fact kInfraLead[] = {
    {kWhat, K, 100,
     "{org} [announced|confirmed] on {date} that construction of {subject} will begin in "
     "{start_month} {start_year} after {plan_years} years of planning."},
    {kWhere, K, 100,
     "{subject} will link {city} with {city2} [across|through] {region}, [replacing|relieving] "
     "a route that [local drivers|commuters] have complained about for years."},
    {kNo, K, 100,
     "The work is expected to cost {cost} and to take about {build_years_word} years."},
};
constexpr Fact kInfraDetails[] = {
    {kNo, K, 100,
     "At {length}, {subject_short} will be [one of the longest {kind_plural}|the longest "
     "{kind}] in {region}."},
    {kNo, K, 80, "The plans also include {features}."},
    {kNo, K, 100,
     "Planners expect about {daily_users} people to use {subject_short} every day once it "
     "opens."},
    {kNo, K, 100,
     "The new route is forecast to cut the journey between {city} and {city2} from {old_min} "
     "minutes to {new_min} minutes."},
    {kNo, C, 60,
     "[Freight operators|Local businesses] have [long argued|argued for years] that a faster "
     "connection would bring new investment to the area."},
    {kNo, K, 100,
     "About {workers} workers will be employed on the site at the peak of construction."},
    {kNo, K, 70, "Construction will require about {steel} tonnes of steel and {concrete} cubic metres of concrete."},
};
constexpr Fact kInfraPeople[] = {
    {kWho, K, 100,
     "The project is led by {leader}, the {leader_role} of {org}, [together with|working "
     "alongside] engineers from {firm}."},
    {kNo, C, 100,
     "\"This is the most important investment in {city} for a generation,\" {leader_last} "
     "told reporters[| at the launch]."},
    {kNo, K, 100,
     "The national government will provide {national_pct} percent of the money, and {org} "
     "will pay the remaining {rest_pct} percent."},
    {kNo, K, 70,
     "{expert}, a {expert_role} at {expert_org}, said the design had been reviewed by "
     "[independent engineers|two separate panels of experts]."},
    {kNo, C, 60,
     "{leader_last} added that the timetable was [ambitious but realistic|tight but "
     "achievable]."},
};
constexpr Fact kInfraBackground[] = {
    {kWhy, K, 100,
     "Officials say {subject_short} is needed because the existing [road|route|crossing] is "
     "[well over|far beyond] its capacity and [is often closed for repairs|suffers long delays "
     "at peak hours]."},
    {kNo, K, 100,
     "The idea was first proposed in {proposal_year}, but it was [delayed|put on hold] "
     "[twice|several times] because of [funding disputes|rising costs|disagreements over the "
     "route]."},
    {kNo, K, 80,
     "A public consultation held in {prev_year} received {objections} written responses."},
    {kNo, C, 70,
     "Traffic on the existing route has grown [steadily|sharply] over the past decade, "
     "according to figures published by {org_short}."},
};
constexpr Fact kInfraConcerns[] = {
    {kNo, K, 100,
     "{critic}, who chairs a residents group in {city}, warned that {homes} homes would be "
     "affected by noise during the works."},
    {kNo, C, 100,
     "\"We are not against the project, but the people who live here need to be heard,\" "
     "{critic_last} said."},
    {kNo, K, 80,
     "Environmental groups have asked for a detailed study of the effect on wildlife along "
     "{river}."},
    {kNo, C, 50,
     "{org_short} said it would publish a plan to limit noise and dust before work begins."},
    {kNo, K, 60, "Some business owners in {city2} fear that [road closures|diversions] during the works will keep customers away."},
};
constexpr Fact kInfraOutlook[] = {
    {kWhen, K, 100,
     "Work will start in {start_month} {start_year}, and {subject_short} is scheduled to open "
     "in {end_year} if the timetable holds."},
    {kNo, K, 80,
     "The first section is due to be finished in {phase_year}, [about|roughly] halfway "
     "through the works."},
    {kNo, C, 50,
     "{official}, a member of the {city} council, said the town would hold information "
     "evenings for residents in {next_month}."},
};
constexpr Section kInfraSections[] = {{kInfraLead},       {kInfraDetails},  {kInfraPeople},
                                      {kInfraBackground}, {kInfraConcerns}, {kInfraOutlook}};

// ---------------------------------------------------------------------------------
// 2. Ecology: a long field survey finds a decline.

struct Species {
  std::string_view name, cause, action, pilot_unit;
};

constexpr Species kSpecies[] = {
    {"wild bees", "the loss of meadows and flowering hedgerows",
     "plant wildflower strips and restore hedges", "farms"},
    {"songbirds", "the removal of hedgerows and the early mowing of fields",
     "restore hedgerows and leave field margins uncut", "farms"},
    {"river trout", "rising water temperatures and the loss of shade along the banks",
     "plant trees along the banks to shade the water", "stretches of river"},
    {"bats", "light pollution from new housing and the felling of old trees",
     "dim street lights and protect old trees", "villages"},
    {"freshwater mussels", "silt and fertiliser washed into the rivers from fields",
     "clean the river gravel and reduce runoff from fields", "stretches of river"},
    {"moths", "bright street lighting and the loss of rough grassland",
     "switch to dimmer street lights and let verges grow", "parishes"},
    {"frogs and toads", "the draining of ponds and the spread of busy roads",
     "dig new ponds and build tunnels under roads", "villages"},
};

void SetupEcology(Rng* rng, NameDrawer* names, Slots* s) {
  const Species& sp = kSpecies[RandomInt(rng, 0, std::size(kSpecies) - 1)];
  s->Set("species", std::string(sp.name));
  s->Set("cause", std::string(sp.cause));
  s->Set("action", std::string(sp.action));
  s->Set("pilot_unit", std::string(sp.pilot_unit));
  static constexpr std::string_view kOrgs[] = {"the University of {city3}",
                                               "the {city3} Institute of Ecology",
                                               "the {region_bare} Wildlife Research Centre"};
  s->Set("org", ExpandTemplate(PickOne(kOrgs, rng), *s, rng));
  // ExpandTemplate capitalises: keep the article lower case inside sentences.
  std::string org = *s->Find("org");
  if (org.rfind("The ", 0) == 0) org[0] = 't';
  s->Set("org", org);
  static constexpr std::string_view kRoles[] = {"ecologist", "biologist", "zoologist"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
  static constexpr std::string_view kExpert[] = {"conservation scientist", "professor of zoology",
                                                 "senior ecologist"};
  s->Set("expert_role", std::string(PickOne(kExpert, rng)));
  s->Set("expert_org", "the " + names->NextPlace() + " Natural History Museum");
  static constexpr std::string_view kJournals[] = {
      "the journal Field Ecology Letters", "the Review of Applied Ecology",
      "the journal Wild Populations", "the Bulletin of Landscape Ecology"};
  s->Set("journal", std::string(PickOne(kJournals, rng)));
  const int64_t years = RandomInt(rng, 4, 15);
  s->Set("study_years_word", NumberWord(years));
  s->Set("decline_years_word", NumberWord(RandomInt(rng, years / 2 + 1, years - 1)));
  s->Set("end_year", std::to_string(SlotInt(*s, "year") + RandomInt(rng, 2, 6)));
  const int64_t decline = RandomInt(rng, 12, 55);
  s->Set("decline_pct", std::to_string(decline));
  s->Set("steep_pct", std::to_string(decline + RandomInt(rng, 8, 30)));
  s->Set("sites", std::to_string(RandomInt(rng, 12, 140)));
  s->Set("counted", Num(Rounded(rng, 2000, 90000, 100)));
  s->Set("team_size", NumberWord(RandomInt(rng, 6, 20)));
  s->Set("volunteers", Num(Rounded(rng, 80, 1500, 10)));
  s->Set("pilot_sites", NumberWord(RandomInt(rng, 4, 20)));
  s->Set("grant", Dollars(Rounded(rng, 60000, 900000, 1000)));
  s->Set("funder", "the " + *s->Find("region_bare") + " Nature Trust");
}

constexpr std::string_view kEcologyTitle =
    "{species} in {region} down by {decline_pct} percent, study finds||"
    "Sharp fall in {species} recorded across {region}||"
    "Survey of {sites} sites shows decline of {species}";

constexpr Fact kEcologyLead[] = {
    {kWhat, K, 100,
     "A study published on {date} found that numbers of {species} in {region} have fallen by "
     "{decline_pct} percent over the past {study_years_word} years."},
    {kWho, K, 100,
     "The research was carried out by a team of {team_size} scientists from {org}, led by "
     "{leader_role} {leader}."},
    {kWhere, K, 100,
     "The team [surveyed|monitored] {sites} sites across {region}, from the banks of {river} "
     "to farmland near {city2}."},
    {kNo, C, 70, "The survey is one of the longest of its kind in the country."},
};
constexpr Fact kEcologyDetails[] = {
    {kNo, K, 100,
     "Over {study_years_word} years, volunteers and researchers counted more than {counted} "
     "{species} during [regular|seasonal] surveys."},
    {kNo, K, 100,
     "The steepest losses were recorded at sites close to [large farms|new roads|housing "
     "developments], where numbers [dropped|fell] by {steep_pct} percent."},
    {kNo, K, 100,
     "Sites inside protected areas showed [a much smaller decline|almost no decline], "
     "according to the study."},
    {kNo, K, 100,
     "The findings appear in {journal}, and the paper was reviewed by [independent "
     "experts|other scientists] before publication."},
    {kNo, C, 60,
     "The survey methods were kept the same throughout so that results from different years "
     "could be compared."},
    {kNo, K, 70,
     "More than {volunteers} volunteers helped to collect the data, [many of them|most of "
     "them] [retired teachers and students|members of local nature clubs]."},
    {kNo, K, 100, "[Counts|Numbers] fell in {decline_years_word} of the {study_years_word} years of the survey, with only [brief|short-lived] recoveries in between."},
    {kNo, K, 60, "[Almost|Nearly] a third of the sites had no {species} at all by the final year of the survey."},
};
constexpr Fact kEcologyCause[] = {
    {kWhy, K, 100,
     "The authors [link|attribute] the decline mainly to {cause}, which [affects|reduces] the "
     "places where {species} feed and breed."},
    {kNo, K, 80,
     "Warmer [springs|summers] may also play a part, since [several|some] of the worst years "
     "followed [unusually hot|very dry] weather."},
    {kNo, C, 100,
     "\"The pattern is clear and it is consistent across the whole region,\" said "
     "{leader_last}[| in an interview]."},
    {kNo, K, 80, "The researchers also found that {species} [were breeding later in the year|raised fewer young] than at the start of the study."},
};
constexpr Fact kEcologyReaction[] = {
    {kNo, K, 100,
     "{expert}, a {expert_role} at {expert_org} who was not involved in the work, called the "
     "results [worrying but not surprising|an important warning]."},
    {kNo, C, 70,
     "{expert_last} said similar [trends|declines] had been [reported|seen] in "
     "[neighbouring regions|other parts of the country].",
     true},
    {kNo, C, 50,
     "Farmers' groups said they would study the report before [commenting|responding] in "
     "detail."},
    {kNo, K, 70, "{official}, who [leads the nature department|is responsible for the environment] at the {region_bare} council, said the findings would [shape|inform] new rules for [land use|planning] in the region."},
};
constexpr Fact kEcologyOutlook[] = {
    {kWhen, K, 100,
     "The team plans to repeat the survey every year until {end_year} and to [test|trial] "
     "ways of reversing the losses."},
    {kNo, K, 100,
     "A pilot project on {pilot_sites} {pilot_unit} near {city} will {action}, starting in "
     "{next_month}."},
    {kNo, K, 100, "The study received a grant of {grant} from {funder}."},
    {kNo, C, 60, "Members of the public can [report sightings|help with the counts] through a [website|phone app] run by {org}."},
};
constexpr Section kEcologySections[] = {{kEcologyLead}, {kEcologyDetails}, {kEcologyCause},
                                        {kEcologyReaction}, {kEcologyOutlook}};

// ---------------------------------------------------------------------------------
// 3. Health study: a trial of a simple intervention.

struct Trial {
  std::string_view intervention, outcome, population, mechanism;
  int64_t age_lo, age_hi;
};

constexpr Trial kTrials[] = {
    {"a daily walking programme", "blood pressure", "adults with mild hypertension",
     "better blood flow and lower levels of stress", 40, 75},
    {"a diet low in salt", "heart health", "middle-aged adults",
     "lower fluid retention and less strain on the heart", 45, 70},
    {"weekly music lessons", "memory", "adults over sixty",
     "the effort of learning something new and the social contact of group lessons", 60, 85},
    {"a free school breakfast", "concentration in class", "primary school children",
     "steadier energy levels through the morning", 7, 11},
    {"a ban on screens in the hour before bed", "sleep quality", "teenagers",
     "less exposure to bright light late in the evening", 13, 18},
    {"a programme of balance exercises", "the risk of falls", "people over seventy",
     "stronger leg muscles and better coordination", 70, 90},
};

void SetupHealthStudy(Rng* rng, NameDrawer* names, Slots* s) {
  const Trial& t = kTrials[RandomInt(rng, 0, std::size(kTrials) - 1)];
  s->Set("intervention", std::string(t.intervention));
  s->Set("outcome", std::string(t.outcome));
  s->Set("population", std::string(t.population));
  s->Set("mechanism", std::string(t.mechanism));
  s->Set("age_lo", std::to_string(t.age_lo));
  s->Set("age_hi", std::to_string(t.age_hi));
  static constexpr std::string_view kOrgs[] = {"the {city3} University Hospital",
                                               "the {region_bare} Medical Research Institute",
                                               "the University of {city3} Medical School"};
  std::string org = ExpandTemplate(PickOne(kOrgs, rng), *s, rng);
  org[0] = 't';
  s->Set("org", org);
  static constexpr std::string_view kRoles[] = {"physician", "professor of medicine",
                                                "senior researcher"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
  static constexpr std::string_view kExpert[] = {"professor of public health", "epidemiologist",
                                                 "family doctor"};
  s->Set("expert_role", std::string(PickOne(kExpert, rng)));
  s->Set("expert_org", "the " + names->NextPlace() + " Health Institute");
  const int64_t participants = Rounded(rng, 120, 4800, 10);
  s->Set("participants", Num(participants));
  s->Set("participants2", Num(participants * RandomInt(rng, 3, 6)));
  s->Set("weeks", std::to_string(RandomInt(rng, 8, 52)));
  s->Set("improve_pct", std::to_string(RandomInt(rng, 6, 35)));
  s->Set("dropouts", Num(participants * RandomInt(rng, 3, 12) / 100 + 1));
  s->Set("hospitals_word", NumberWord(RandomInt(rng, 2, 12)));
  s->Set("cost", Dollars(Rounded(rng, 150000, 2400000, 1000)));
  s->Set("funder", "the " + names->NextPrefix() + " Health Foundation");
  s->Set("start_month", MonthAfter(static_cast<int>(SlotInt(*s, "month")), static_cast<int>(RandomInt(rng, 2, 10))));
  static constexpr std::string_view kJournals[] = {"the Journal of Community Medicine",
                                                   "the Review of Clinical Trials",
                                                   "the journal Public Health Reports"};
  s->Set("journal", std::string(PickOne(kJournals, rng)));
}

constexpr std::string_view kHealthTitle =
    "{intervention} improves {outcome}, trial finds||"
    "Trial of {participants} volunteers links {intervention} to better {outcome}||"
    "Researchers in {city} report gains from {intervention}";

constexpr Fact kHealthLead[] = {
    {kWhat, K, 100,
     "Researchers at {org} reported on {date} that {intervention} [improved|led to a clear "
     "improvement in] {outcome} among {population}."},
    {kWho, K, 100,
     "The trial was led by {leader}, a {leader_role} at {org}, and involved [doctors|staff] "
     "from {hospitals_word} [hospitals|clinics] in {region}."},
    {kWhere, K, 100,
     "All of the participants lived in or around {city}, where the [trial|study] was based."},
    {kNo, C, 60, "The results were presented at a [medical conference|meeting of doctors] in {city2}."},
};
constexpr Fact kHealthDetails[] = {
    {kNo, K, 100,
     "A total of {participants} volunteers aged between {age_lo} and {age_hi} took part in "
     "the study."},
    {kNo, K, 100,
     "Half of them were assigned to {intervention} for {weeks} weeks, while the other half [kept to "
     "their usual routine|made no changes]."},
    {kNo, K, 100,
     "By the end of the trial, the first group showed a {improve_pct} percent improvement in "
     "{outcome} compared with the second."},
    {kNo, K, 80,
     "About {dropouts} participants left the study early, [mostly|largely] for reasons that "
     "were not related to the trial."},
    {kNo, C, 60,
     "Participants [filled in questionnaires|had check-ups] every [two|four] weeks, and a "
     "smaller group also [wore activity trackers|kept a daily diary]."},
    {kNo, K, 100, "Measurements were taken at the start, [halfway through|in the middle] and at the end of the {weeks}-week period."},
    {kNo, K, 70, "[No serious side effects|No safety problems] were reported during the trial, according to the researchers."},
};
constexpr Fact kHealthCause[] = {
    {kWhy, K, 100,
     "The researchers set up the trial because problems with {outcome} have [become more "
     "common|grown] in {region} over the past decade, [putting pressure on|adding to the "
     "workload of] local [health services|clinics]."},
    {kNo, K, 100, "They believe the benefit comes from {mechanism}."},
    {kNo, C, 100,
     "\"We were surprised by how quickly the changes appeared,\" {leader_last} said."},
    {kNo, K, 80, "The benefit was [largest|strongest] among participants who [stuck closely to the programme|took part most regularly]."},
};
constexpr Fact kHealthReaction[] = {
    {kNo, K, 100,
     "{expert}, a {expert_role} at {expert_org}, said the results were [encouraging|"
     "promising] but would need to be confirmed in a larger group."},
    {kNo, C, 70,
     "{expert_last} noted that the volunteers [may have been|were probably] more motivated "
     "than the average person.",
     true},
    {kNo, K, 100, "The study cost about {cost} and was paid for by {funder}."},
    {kNo, C, 60, "{critic}, who [runs a patient group|represents patients] in {city}, welcomed the study but said cost [could be|might be] a problem for [some families|people on low incomes]."},
};
constexpr Fact kHealthOutlook[] = {
    {kWhen, K, 100,
     "A larger trial with about {participants2} people is planned to start in {start_month} "
     "{next_year}, subject to funding."},
    {kNo, K, 100,
     "{org} [will|plans to] share its findings with [family doctors|health authorities] in "
     "{region} [later this year|in the coming months]."},
    {kNo, C, 60, "The full results are [available|published] in {journal}."},
    {kNo, K, 70, "{official}, a health official in {region}, said the authority would [consider|look at] [offering|funding] {intervention} [more widely|across the region] if the larger trial confirms the results."},
};
constexpr Section kHealthSections[] = {{kHealthLead}, {kHealthDetails}, {kHealthCause},
                                       {kHealthReaction}, {kHealthOutlook}};

// ---------------------------------------------------------------------------------
// 4. Business: a company's annual results.

struct Sector {
  std::string_view name, products, outlets, best_line, site;
};

constexpr Sector kSectors[] = {
    {"Foods", "frozen meals and snacks", "supermarkets", "its ready meals", "factory"},
    {"Logistics", "parcel and freight delivery services", "depots", "its next-day delivery service",
     "distribution centre"},
    {"Textiles", "clothing and bedding", "shops", "its outdoor clothing range", "warehouse"},
    {"Furniture", "tables, chairs and fitted kitchens", "showrooms", "its fitted kitchens",
     "workshop"},
    {"Cycles", "bicycles and electric bikes", "stores", "its electric bikes", "assembly plant"},
    {"Software", "accounting and payroll software", "offices", "its cloud payroll service",
     "data centre"},
};

void SetupBusiness(Rng* rng, NameDrawer* names, Slots* s) {
  const Sector& sec = kSectors[RandomInt(rng, 0, std::size(kSectors) - 1)];
  static constexpr std::string_view kBrand[] = {"line", "field", "stone", "wood", "brook",
                                                "crest", "mark", "vale"};
  const std::string prefix = names->NextPrefix();
  std::string_view brand;
  do {
    brand = PickOne(kBrand, rng);
  } while (prefix.back() == brand.front());  // no "Marlline"
  const std::string company = prefix + std::string(brand) + " " + std::string(sec.name);
  s->Set("company", company);
  s->Set("products", std::string(sec.products));
  s->Set("outlet_noun", std::string(sec.outlets));
  s->Set("best_line", std::string(sec.best_line));
  s->Set("site", std::string(sec.site));
  static constexpr std::string_view kRoles[] = {"chief executive", "managing director",
                                                "chair"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
  s->Set("expert_org", names->NextPerson().family + " Capital");
  const int64_t revenue = Rounded(rng, 40, 2400, 5);
  const int64_t growth = RandomInt(rng, 3, 28);
  s->Set("revenue", Millions(revenue));
  s->Set("growth_pct", std::to_string(growth));
  const int64_t profit = revenue * RandomInt(rng, 4, 15) / 100 + 1;
  const int64_t prev_profit = profit * RandomInt(rng, 60, 92) / 100 + 1;
  s->Set("profit", Millions(profit));
  s->Set("prev_profit", Millions(prev_profit));
  s->Set("employees", Num(Rounded(rng, 300, 24000, 10)));
  s->Set("new_jobs", Num(Rounded(rng, 40, 900, 10)));
  s->Set("hire_months", NumberWord(RandomInt(rng, 6, 18)));
  s->Set("outlets", std::to_string(RandomInt(rng, 12, 400)));
  s->Set("new_outlets", NumberWord(RandomInt(rng, 3, 20)));
  s->Set("line_pct", std::to_string(RandomInt(rng, 18, 55)));
  const int64_t dividend = RandomInt(rng, 8, 60);
  s->Set("dividend", std::to_string(dividend));
  s->Set("prev_dividend", std::to_string(dividend - RandomInt(rng, 1, dividend / 3 + 1)));
  s->Set("invest", Millions(Rounded(rng, 10, 180, 5)));
  s->Set("share_pct", std::to_string(RandomInt(rng, 2, 14)));
  s->Set("founded_year", std::to_string(SlotInt(*s, "year") - RandomInt(rng, 12, 90)));
  s->Set("fiscal_month", std::string(MonthName(static_cast<int>(SlotInt(*s, "month")))));
  s->Set("leader_since", std::to_string(SlotInt(*s, "year") - RandomInt(rng, 2, 11)));
  s->Set("export_pct", std::to_string(RandomInt(rng, 8, 45)));
  s->Set("debt_cut", Millions(RandomInt(rng, 2, 60)));
  s->Set("site_jobs", std::to_string(Rounded(rng, 40, 600, 10)));
  s->Set("hq_staff", Num(Rounded(rng, 60, 2000, 10)));
  SetPerson("founder", names, s);
  s->Set("start_month", std::string(MonthName(static_cast<int>(RandomInt(rng, 1, 12)))));
}

constexpr std::string_view kBusinessTitle =
    "{company} profit rises as revenue grows {growth_pct} percent||"
    "Strong year for {company} as sales climb||"
    "{company} to open {new_outlets} new {outlet_noun} after record results";

constexpr Fact kBusinessLead[] = {
    {kWhat, K, 100,
     "{company} [reported|announced] on {date} that its revenue rose by {growth_pct} percent "
     "to {revenue} over the past financial year."},
    {kNo, K, 100,
     "Profit [climbed|grew] from {prev_profit} to {profit}, [beating|ahead of] the forecasts "
     "of [most|several] analysts."},
    {kWhere, K, 100,
     "The company, which is based in {city}, sells {products} through {outlets} {outlet_noun} "
     "across {region}."},
    {kNo, K, 100, "The results cover the twelve months to the end of {fiscal_month}, the end of the company's financial year."},
};
constexpr Fact kBusinessPeople[] = {
    {kWho, K, 100,
     "{leader}, the {leader_role} of {company}, [credited|thanked] staff and [loyal "
     "customers|a strong product range] for the results."},
    {kNo, C, 100,
     "\"It has been a demanding year, but our teams have delivered,\" {leader_last} said in a "
     "statement."},
    {kNo, K, 100,
     "The company employs {employees} people and plans to hire {new_jobs} more over the next "
     "{hire_months} months."},
    {kNo, K, 80, "{leader_last} has [led|run] the company since {leader_since}, after [a career|many years] in [retail|logistics|finance]."},
};
constexpr Fact kBusinessWhy[] = {
    {kWhy, K, 100,
     "The growth was driven mainly by [strong demand for|rising sales of] {best_line}, which "
     "brought in {line_pct} percent of all sales."},
    {kNo, K, 80,
     "The company also benefited from lower [transport|energy] costs [in the second half of "
     "the year|after prices eased in the spring]."},
    {kNo, C, 60,
     "Online orders [grew faster than sales in stores|made up a growing share of the "
     "business], according to the report."},
    {kNo, K, 70, "[Exports|Sales abroad] rose to {export_pct} percent of revenue, [helped by|thanks to] new contracts in [neighbouring countries|overseas markets]."},
    {kNo, C, 60, "The company also [cut|reduced] its debt by {debt_cut} during the year."},
};
constexpr Fact kBusinessPlans[] = {
    {kWhen, K, 100,
     "Starting in {start_month} {next_year}, {company} plans to open {new_outlets} new "
     "{outlet_noun} in {city2} and the surrounding area."},
    {kNo, K, 100,
     "The board proposed a dividend of {dividend} cents per share, [up from|compared with] "
     "{prev_dividend} cents a year earlier."},
    {kNo, K, 80,
     "The company will also invest {invest} in a new {site} near {city3}."},
    {kNo, K, 60, "The new {site} is expected to create about {site_jobs} jobs when it opens."},
};
constexpr Fact kBusinessReaction[] = {
    {kNo, K, 100,
     "Shares in {company} [rose|climbed] {share_pct} percent on the day of the announcement."},
    {kNo, K, 80,
     "{expert}, an analyst at {expert_org}, said the results showed the company was "
     "[gaining ground on|winning customers from] larger [rivals|competitors]."},
    {kNo, K, 70,
     "{expert_last} warned, however, that [rising wages|higher interest rates|a slowing "
     "economy] could [squeeze|reduce] profits in the year ahead.",
     true},
    {kNo, C, 60,
     "{critic}, who represents workers at the company, said employees expected [a fair share "
     "of the gains|higher pay after a strong year]."},
    {kNo, C, 60, "[Trading|Dealing] in the shares was [heavier|busier] than usual, [brokers|traders] said."},
};
constexpr Fact kBusinessHistory[] = {
    {kNo, K, 100,
     "{company} was founded in {founded_year} by {founder} as a small [family business|"
     "workshop] in {city}."},
    {kNo, C, 80,
     "It has [grown|expanded] [steadily|quickly] since then, [buying two smaller rivals|"
     "moving into new markets] along the way."},
    {kNo, K, 80, "Its head office [is still|remains] in {city}, where about {hq_staff} people work."},
};
constexpr Section kBusinessSections[] = {{kBusinessLead},  {kBusinessPeople},
                                         {kBusinessWhy},   {kBusinessPlans},
                                         {kBusinessReaction}, {kBusinessHistory}};

// ---------------------------------------------------------------------------------
// 5. Environment: a restoration project reaches a milestone.

struct Restoration {
  std::string_view project, planted, land;
};

constexpr Restoration kRestorations[] = {
    {"the restoration of the wetlands along {river}", "reeds, willows and native shrubs",
     "wetland"},
    {"the planting of a new forest on former farmland near {city}", "native trees",
     "woodland"},
    {"the restoration of the {marsh} Marshes", "reeds and marsh plants", "marsh"},
    {"the recovery of the heathland above {city}", "heather plants and native grasses",
     "heath"},
    {"the return of meadows to the floodplain of {river}", "wildflowers and native grasses",
     "meadow"},
};

void SetupEnvironment(Rng* rng, NameDrawer* names, Slots* s) {
  s->Set("marsh", names->NextPrefix());
  const Restoration& r = kRestorations[RandomInt(rng, 0, std::size(kRestorations) - 1)];
  s->Set("project", ExpandTemplate(r.project, *s, rng));
  std::string project = *s->Find("project");
  project[0] = 't';
  s->Set("project", project);
  s->Set("planted", std::string(r.planted));
  s->Set("land", std::string(r.land));
  static constexpr std::string_view kOrgs[] = {"the {region_bare} Conservation Trust",
                                               "the {city} Wildlife Partnership",
                                               "the {region_bare} Land Trust"};
  std::string org = ExpandTemplate(PickOne(kOrgs, rng), *s, rng);
  org[0] = 't';
  s->Set("org", org);
  static constexpr std::string_view kExpert[] = {"hydrologist", "soil scientist",
                                                 "professor of environmental science"};
  s->Set("expert_role", std::string(PickOne(kExpert, rng)));
  s->Set("expert_org", "the University of " + *s->Find("city3"));
  const int64_t year = SlotInt(*s, "year");
  s->Set("hectares", Num(RandomInt(rng, 40, 3200)));
  s->Set("plants", Num(Rounded(rng, 12000, 900000, 1000)));
  s->Set("start_year", std::to_string(year - RandomInt(rng, 3, 9)));
  s->Set("species_count", std::to_string(RandomInt(rng, 4, 40)));
  static constexpr std::string_view kReturned[] = {"otters", "kingfishers", "herons",
                                                   "water voles", "dragonflies", "barn owls",
                                                   "great crested newts", "marsh harriers"};
  s->Set("returned", std::string(PickOne(kReturned, rng)));
  s->Set("decade", std::to_string(RandomInt(rng, 196, 199) * 10) + "s");
  s->Set("water_pct", std::to_string(RandomInt(rng, 10, 60)));
  s->Set("staff", NumberWord(RandomInt(rng, 4, 20)));
  s->Set("landowner_hectares", Num(RandomInt(rng, 20, 900)));
  s->Set("flood_year", std::to_string(year - RandomInt(rng, 4, 15)));
  s->Set("flood_homes", Num(RandomInt(rng, 30, 1200)));
  s->Set("litter", std::to_string(RandomInt(rng, 12, 400)));
  s->Set("budget", Millions(RandomInt(rng, 2, 60)));
  static constexpr std::string_view kFunders[] = {"Nature Recovery Fund", "Heritage Lottery",
                                                  "Climate Fund"};
  s->Set("funder", "the national " + std::string(PickOne(kFunders, rng)));
  s->Set("target_month", std::string(MonthName(static_cast<int>(RandomInt(rng, 1, 12)))));
  s->Set("target_year", std::to_string(year + RandomInt(rng, 1, 5)));
}

constexpr std::string_view kEnvironmentTitle =
    "Wildlife returns as {project} passes milestone||"
    "{hectares} hectares restored near {city}||"
    "{returned} back in {region} after decades";

constexpr Fact kEnvironmentLead[] = {
    {kWhat, K, 100,
     "{org} said on {date} that {project} had [reached|passed] [its halfway point|an "
     "important milestone], with {hectares} hectares now [restored|under protection]."},
    {kWhere, K, 100,
     "The site lies [to the north of|just outside|east of] {city}, [along|beside] {river} in "
     "{region}."},
    {kNo, K, 100,
     "Since work began in {start_year}, volunteers have planted more than {plants} "
     "{planted}."},
    {kNo, C, 60, "The site covers land that was [once|formerly] used for [grazing|growing cereals]."},
};
constexpr Fact kEnvironmentDetails[] = {
    {kNo, K, 100,
     "[Surveys|Counts] carried out in {ann_month} found {species_count} species that had not "
     "been seen on the site [for decades|in living memory]."},
    {kNo, K, 100,
     "Among them were {returned}, which had [disappeared from|vanished from] the area in the "
     "{decade}."},
    {kNo, K, 100,
     "Water quality in {river} has improved [markedly|steadily], with [nitrate|pollution] "
     "levels down by {water_pct} percent since the start of the project."},
    {kNo, C, 60,
     "Old drainage ditches were [blocked|filled in] so that water stays on the land for "
     "longer."},
    {kNo, K, 80, "Volunteers have also [cleared|removed] {litter} tonnes of rubbish and old fencing from the site."},
};
constexpr Fact kEnvironmentPeople[] = {
    {kWho, K, 100,
     "The work is managed by {org}, whose [director|project manager] {leader} leads a team of "
     "{staff} staff and [hundreds of|many] volunteers."},
    {kNo, C, 100,
     "\"Every year we see something return that we thought was gone for good,\" {leader_last} "
     "said."},
    {kNo, K, 80,
     "Landowners including {local} have [agreed to|signed up to] manage {landowner_hectares} "
     "hectares of [nearby|neighbouring] land in a [wildlife-friendly|nature-friendly] way."},
    {kNo, K, 70, "Schools from {city} and {city2} have planted [trees|reeds] on the site as part of [lessons on nature|a nature education programme]."},
    {kNo, K, 60, "{critic}, a farmer near {city2}, said some neighbours [worried|were concerned] that [wetter fields|higher water levels] would [damage|affect] their crops."},
};
constexpr Fact kEnvironmentWhy[] = {
    {kWhy, K, 100,
     "The project was launched because [decades of drainage and intensive farming|years of "
     "pollution and neglect] had left the {land} [badly damaged|in poor condition] and "
     "[prone to flooding|short of wildlife]."},
    {kNo, K, 100,
     "Heavy floods in {flood_year} damaged {flood_homes} homes in {city}, [adding urgency "
     "to|strengthening the case for] the work."},
    {kNo, K, 100,
     "The project has a budget of {budget}, [most|much] of it provided by {funder} and local "
     "councils."},
    {kNo, K, 70,
     "{expert}, a {expert_role} at {expert_org}, said the restored land could hold [millions "
     "of litres of|large volumes of] floodwater."},
    {kNo, C, 60, "[Similar|Comparable] projects elsewhere in the country have [reduced flooding|cut flood damage] downstream, according to {org}."},
};
constexpr Fact kEnvironmentOutlook[] = {
    {kWhen, K, 100,
     "{org} aims to finish the restoration by {target_month} {target_year}, when the site "
     "will open to [visitors|the public] with new paths and [a visitor centre|bird hides]."},
    {kNo, K, 80,
     "Plans for a [boardwalk|nature trail] linking the site with {city2} will be [put to|"
     "presented to] the council in {next_month}."},
    {kNo, C, 60, "Volunteers can join planting days held on the first weekend of every month."},
    {kNo, K, 70, "[Bird counts|A survey of birds] will be carried out again in the spring to [measure|track] how the site is changing."},
};
constexpr Section kEnvironmentSections[] = {{kEnvironmentLead}, {kEnvironmentDetails},
                                            {kEnvironmentPeople}, {kEnvironmentWhy},
                                            {kEnvironmentOutlook}};

// ---------------------------------------------------------------------------------
// 6. Sports: a club's season in review.

struct Sport {
  std::string_view name, games_noun, score_noun, scorer_role;
  int64_t win_points, draw_points;  // draw_points < 0: no draws; win rate reported
  int64_t score_lo, score_hi;
};

constexpr Sport kSports[] = {
    {"football", "league matches", "goals", "striker", 3, 1, 12, 31},
    {"rugby", "league matches", "tries", "winger", 4, 2, 8, 21},
    {"ice hockey", "regular season games", "goals", "forward", 2, 1, 18, 44},
    {"basketball", "league games", "points", "guard", 0, -1, 320, 780},
};

void SetupSports(Rng* rng, NameDrawer* names, Slots* s) {
  const Sport& sp = kSports[RandomInt(rng, 0, std::size(kSports) - 1)];
  static constexpr std::string_view kClub[] = {"United", "Rovers", "Athletic", "Wanderers",
                                               "Falcons", "Harriers", "Comets", "Lions"};
  const int64_t c1 = RandomInt(rng, 0, 7);
  int64_t c2 = RandomInt(rng, 0, 6);
  if (c2 >= c1) ++c2;
  s->Set("sport", std::string(sp.name));
  s->Set("club", *s->Find("city") + " " + std::string(kClub[c1]));
  s->Set("rival", *s->Find("city2") + " " + std::string(kClub[c2]));
  s->Set("rival2", *s->Find("city3") + " " + std::string(kClub[c1 == 0 ? 1 : 0]));
  static constexpr std::string_view kLeagues[] = {"League", "Premier League", "Championship"};
  s->Set("league", "the " + *s->Find("region_bare") + " " + std::string(PickOne(kLeagues, rng)));
  s->Set("games_noun", std::string(sp.games_noun));
  s->Set("score_noun", std::string(sp.score_noun));
  s->Set("scorer_role", std::string(sp.scorer_role));
  const int64_t games = sp.draw_points < 0 ? RandomInt(rng, 24, 36) : RandomInt(rng, 18, 38);
  const int64_t wins = RandomInt(rng, games * 2 / 5, games * 4 / 5);
  const int64_t draws = sp.draw_points < 0 ? 0 : RandomInt(rng, 0, (games - wins) / 2);
  const int64_t losses = games - wins - draws;
  s->Set("games", std::to_string(games));
  s->Set("wins", std::to_string(wins));
  if (sp.draw_points < 0) {
    s->Set("record", std::to_string(wins) + " wins and " + std::to_string(losses) + " defeats");
    s->Set("standing", "a win rate of " + std::to_string(wins * 100 / games) + " percent");
  } else {
    s->Set("record", std::to_string(wins) + " wins, " + std::to_string(draws) + " draws and " +
                         std::to_string(losses) + " defeats");
    s->Set("standing",
           std::to_string(wins * sp.win_points + draws * sp.draw_points) + " points");
  }
  // A better record, a higher place: from first for 70 percent wins and more.
  const int64_t win_pct = wins * 100 / games;
  const int64_t position = win_pct >= 70   ? RandomInt(rng, 1, 2)
                           : win_pct >= 55 ? RandomInt(rng, 2, 4)
                                           : RandomInt(rng, 4, 7);
  s->Set("position_word", OrdinalWord(position));
  s->Set("prev_position_word", OrdinalWord(position + RandomInt(rng, 4, 10)));
  static constexpr std::string_view kGrounds[] = {"Stadium", "Arena", "Ground"};
  const std::string_view ground = PickOne(kGrounds, rng);  // drawn before the name
  s->Set("stadium", "the " + names->NextPrefix() + " " + std::string(ground));
  s->Set("capacity", Num(Rounded(rng, 4000, 42000, 500)));
  SetPerson("scorer", names, s);
  SetPerson("captain", names, s);
  s->Set("scorer_count", std::to_string(RandomInt(rng, sp.score_lo, sp.score_hi)));
  s->Set("attendance", Num(Rounded(rng, 2000, 38000, 10)));
  s->Set("att_pct", std::to_string(RandomInt(rng, 3, 25)));
  s->Set("coach_year", std::to_string(SlotInt(*s, "year") - RandomInt(rng, 1, 6)));
  s->Set("missed", NumberWord(RandomInt(rng, 2, 9)));
  s->Set("signings_word", NumberWord(RandomInt(rng, 3, 9)));
  s->Set("academy_word", NumberWord(RandomInt(rng, 2, 6)));
  s->Set("streak_word", NumberWord(RandomInt(rng, 4, std::min<int64_t>(wins, 11))));
  s->Set("home_pct", std::to_string(RandomInt(rng, 52, 70)));
  SetPerson("youngster", names, s);
  s->Set("youngster_games", std::to_string(RandomInt(rng, 8, games - 2)));
  s->Set("seats", Num(Rounded(rng, 800, 6000, 100)));
  s->Set("budget", Millions(RandomInt(rng, 2, 40)));
  s->Set("start_month", MonthAfter(static_cast<int>(SlotInt(*s, "month")), 2));
  static constexpr std::string_view kRoles[] = {"head coach", "coach", "manager"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
}

constexpr std::string_view kSportsTitle =
    "{club} finish {position_word} in {league}||"
    "Season review: {club} climb the table||"
    "{club} end season with win over {rival}";

constexpr Fact kSportsLead[] = {
    {kWhat, K, 100,
     "{club} finished the {sport} season in {position_word} place in {league} after winning "
     "{wins} of their {games} {games_noun}."},
    {kWhen, K, 100,
     "The season ended on {date} with a [narrow|hard-fought] win over {rival} in front of a "
     "home crowd."},
    {kWhere, K, 100,
     "All home games were played at {stadium} in {city}, which holds about {capacity} "
     "spectators."},
    {kNo, C, 60, "It was the club's best finish [in more than a decade|since it joined {league}]."},
};
constexpr Fact kSportsDetails[] = {
    {kNo, K, 100,
     "The team recorded {record}, [finishing|ending the campaign] with {standing}."},
    {kNo, K, 100,
     "{scorer}, the club's [leading|top] {scorer_role}, scored {scorer_count} {score_noun} "
     "over the season."},
    {kNo, K, 100,
     "Average attendance at home games rose to {attendance}, up {att_pct} percent on the "
     "previous season."},
    {kNo, C, 60,
     "The [defence|back line] conceded fewer {score_noun} than any other side in the second "
     "half of the season."},
    {kNo, K, 100, "Their [longest|best] run was {streak_word} [wins|victories] in a row [in the autumn|before the winter break|in the spring]."},
    {kNo, K, 80, "The side scored {home_pct} percent of [its|their] {score_noun} at home, the [best|highest] [record|share] in the league."},
};
constexpr Fact kSportsPeople[] = {
    {kWho, K, 100,
     "The team is [coached|managed] by {leader}, who took charge in {coach_year} after [a "
     "long playing career|several years as an assistant coach]."},
    {kNo, C, 100,
     "\"I am proud of the way the players kept going when things were difficult,\" "
     "{leader_last} said after the final game."},
    {kNo, K, 100,
     "Captain {captain} missed {missed} games with a knee injury but returned for the final "
     "weeks of the season."},
    {kNo, K, 70, "{scorer_last} was named the club's player of the season by the supporters."},
    {kNo, K, 60, "[Young|Teenage] player {youngster} made {youngster_games} appearances in a first full season with the team."},
};
constexpr Fact kSportsWhy[] = {
    {kWhy, K, 100,
     "The improvement [followed|came after] a change of tactics and the arrival of "
     "{signings_word} new players [before|at the start of] the season."},
    {kNo, K, 100,
     "Last season the club finished {prev_position_word}, [narrowly avoiding|only just "
     "escaping] relegation."},
    {kNo, C, 70,
     "[Supporters|Fans] [credited|praised] the youth academy, which supplied {academy_word} "
     "players to the first team."},
    {kNo, C, 60, "The club also replaced its [medical team|fitness staff] in the summer, and injuries [fell|dropped] [sharply|noticeably]."},
};
constexpr Fact kSportsOutlook[] = {
    {kNo, K, 100,
     "The club's board has [promised|approved] {budget} for new [training facilities|players] "
     "ahead of next season."},
    {kNo, K, 80,
     "{official}, the club's [chair|president], said the aim for next season was to [win the "
     "title|finish in the top two|reach the cup final]."},
    {kNo, K, 100,
     "Pre-season training will begin in {start_month}, and the new season opens with an away "
     "game against {rival2}."},
    {kNo, C, 50, "Season tickets for next year go on sale [next month|in the coming weeks]."},
    {kNo, K, 70, "Work on a new stand at {stadium} will add {seats} seats and is due to finish before the next season."},
};
constexpr Section kSportsSections[] = {{kSportsLead}, {kSportsDetails}, {kSportsPeople},
                                       {kSportsWhy}, {kSportsOutlook}};

// ---------------------------------------------------------------------------------
// 7. Culture: a festival closes.

struct FestivalKind {
  std::string_view name, events, artists, highlight;
};

constexpr FestivalKind kFestivals[] = {
    {"Music", "concerts", "musicians", "an open-air concert"},
    {"Film", "screenings", "filmmakers", "the premiere of a documentary"},
    {"Book", "readings", "writers", "a reading"},
    {"Food", "tastings", "chefs and producers", "a cooking demonstration"},
    {"Theatre", "performances", "actors and directors", "a new play"},
    {"Folk", "concerts and dances", "performers", "an evening of traditional songs"},
};

void SetupCulture(Rng* rng, NameDrawer* names, Slots* s) {
  const FestivalKind& f = kFestivals[RandomInt(rng, 0, std::size(kFestivals) - 1)];
  s->Set("festival", *s->Find("city") + " " + std::string(f.name) + " Festival");
  s->Set("events_noun", std::string(f.events));
  s->Set("artists_noun", std::string(f.artists));
  s->Set("highlight", std::string(f.highlight));
  s->Set("org", "the " + *s->Find("city") + " Arts Trust");
  SetPerson("headliner", names, s);
  const int64_t edition = RandomInt(rng, 3, 40);
  s->Set("edition", Ordinal(edition));
  s->Set("days_word", NumberWord(RandomInt(rng, 3, 12)));
  const int64_t visitors = Rounded(rng, 8000, 240000, 100);
  s->Set("visitors", Num(visitors));
  s->Set("prev_visitors", Num(visitors * RandomInt(rng, 70, 95) / 100 / 100 * 100));
  s->Set("venues", NumberWord(RandomInt(rng, 4, 20)));
  s->Set("artists", std::to_string(RandomInt(rng, 30, 900)));
  s->Set("countries", std::to_string(RandomInt(rng, 5, 40)));
  s->Set("ticket_revenue", Dollars(Rounded(rng, 90000, 4800000, 1000)));
  s->Set("director_years_word", NumberWord(RandomInt(rng, 2, 12)));
  s->Set("volunteers", Num(Rounded(rng, 60, 1500, 10)));
  s->Set("anniversary", Ordinal((edition + 4) / 5 * 5));
  s->Set("grant", Dollars(Rounded(rng, 20000, 900000, 1000)));
  const int month = static_cast<int>(SlotInt(*s, "month"));
  s->Set("report_month", MonthAfter(month, static_cast<int>(RandomInt(rng, 2, 4))));
  s->Set("next_edition_month", std::string(MonthName(month)));
  s->Set("free_pct", std::to_string(RandomInt(rng, 20, 60)));
  s->Set("ticket_price", std::to_string(RandomInt(rng, 2, 8) * 5));
  s->Set("visitor_countries", std::to_string(RandomInt(rng, 12, 70)));
  s->Set("pupils", Num(Rounded(rng, 300, 9000, 10)));
  s->Set("transport", Num(Rounded(rng, 4000, 60000, 100)));
}

constexpr std::string_view kCultureTitle =
    "{festival} draws {visitors} visitors||"
    "Record crowds as the {edition} {festival} closes||"
    "{festival} ends after {days_word} days";

constexpr Fact kCultureLead[] = {
    {kWhat, K, 100,
     "The {edition} {festival} [closed|came to an end] on {date} after {days_word} days of "
     "{events_noun}, [talks|workshops] and [street events|family activities]."},
    {kNo, K, 100,
     "Organisers said about {visitors} people attended, [a record for the festival|the highest "
     "number in its history|up from {prev_visitors} the year before]."},
    {kWhere, K, 100,
     "Events took place at {venues} venues across {city}, including [the old harbour|the town "
     "hall|a converted factory] and [several parks|the central square]."},
    {kNo, C, 70, "The festival has grown from a [single weekend|small gathering] into one of the largest events of its kind in {region}."},
};
constexpr Fact kCultureDetails[] = {
    {kNo, K, 100,
     "The programme featured {artists} {artists_noun} from {countries} countries, [more than "
     "half of them|many of them] appearing in {city} for the first time."},
    {kNo, K, 100,
     "[Highlights included|The most talked-about event was] {highlight} by {headliner}, which "
     "[sold out within hours|drew the largest crowd of the week]."},
    {kNo, K, 100,
     "Ticket sales brought in {ticket_revenue}, while [local businesses|hotels and "
     "restaurants] reported [a busy|their busiest] week of the year."},
    {kNo, C, 60,
     "Free events [for children|in the parks] were [especially popular|among the best "
     "attended], organisers said."},
    {kNo, K, 100, "[Around|About] {free_pct} percent of the events were free, and [most|many] of the rest cost less than {ticket_price} dollars."},
    {kNo, K, 80, "[Visitors|Guests] came from {visitor_countries} countries, according to a survey of ticket buyers."},
    {kNo, K, 70, "A [special|dedicated] programme for schools [brought|welcomed] {pupils} pupils to [workshops|morning events] during the week."},
};
constexpr Fact kCulturePeople[] = {
    {kWho, K, 100,
     "The festival is run by {org} and [directed|led] by {leader}, who took over as director "
     "{director_years_word} years ago."},
    {kNo, C, 100,
     "\"We wanted this year to feel open to everyone in {city},\" {leader_last} said."},
    {kNo, K, 80,
     "More than {volunteers} volunteers helped to run the events, [guiding visitors|staffing "
     "information points] and [looking after performers|setting up stages]."},
    {kNo, K, 60, "{headliner_last} said appearing in {city} had been [a highlight|one of the highlights] of [the year|a long tour]."},
    {kNo, C, 60, "Local [cafes|restaurants] [stayed open late|extended their hours] throughout the [week|festival]."},
};
constexpr Fact kCultureWhy[] = {
    {kWhy, K, 100,
     "{org} [expanded|widened] the programme this year to [attract younger audiences|bring "
     "more visitors to the town centre|mark the {anniversary} anniversary of the festival]."},
    {kNo, K, 100,
     "The city council [increased|raised] its [grant|support] to {grant} under a plan to "
     "[boost tourism|support local artists]."},
    {kNo, K, 60,
     "{critic}, who lives near the main stage, said [noise|crowds] late at night had been a "
     "problem for [older residents|families with young children]."},
    {kNo, K, 80, "[Extra buses and trains|Public transport] [carried|brought] more than {transport} visitors to the festival [area|site] on the busiest days."},
};
constexpr Fact kCultureOutlook[] = {
    {kWhen, K, 100,
     "The next festival is planned for {next_edition_month} {next_year}, and organisers hope "
     "to add [a new outdoor stage|events in neighbouring towns|a programme for schools]."},
    {kNo, K, 100,
     "{org} will publish a full report on the [economic impact|finances] of the festival in "
     "{report_month}."},
    {kNo, C, 60, "Early tickets for next year will go on sale in the [spring|autumn]."},
    {kNo, C, 60, "{official}, who [is responsible for culture|leads the culture department] at the city council, said the festival had become [central to|a vital part of] the life of {city}."},
};
constexpr Section kCultureSections[] = {{kCultureLead}, {kCultureDetails}, {kCulturePeople},
                                        {kCultureWhy}, {kCultureOutlook}};

// ---------------------------------------------------------------------------------
// 8. Education: a school programme is evaluated.

struct Programme {
  std::string_view name, area;
};

constexpr Programme kProgrammes[] = {
    {"a free tutoring scheme", "maths and reading"},
    {"a new coding course", "computer science"},
    {"a programme of longer school days", "core subjects"},
    {"a reading mentor scheme", "reading"},
    {"a science club network", "science"},
    {"a language exchange programme", "foreign languages"},
};

void SetupEducation(Rng* rng, NameDrawer* names, Slots* s) {
  const Programme& p = kProgrammes[RandomInt(rng, 0, std::size(kProgrammes) - 1)];
  s->Set("programme", std::string(p.name));
  s->Set("area", std::string(p.area));
  s->Set("org", "the " + *s->Find("city") + " school district");
  static constexpr std::string_view kRoles[] = {"superintendent", "head of education",
                                                "director of schools"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
  s->Set("years_word", NumberWord(RandomInt(rng, 2, 5)));
  s->Set("score_pct", std::to_string(RandomInt(rng, 4, 22)));
  s->Set("schools", std::to_string(RandomInt(rng, 8, 120)));
  const int64_t students = Rounded(rng, 2000, 60000, 10);
  s->Set("students", Num(students));
  s->Set("tutors", Num(students / RandomInt(rng, 12, 40)));
  const int64_t before = RandomInt(rng, 82, 92);
  s->Set("att_before", std::to_string(before));
  s->Set("att_after", std::to_string(before + RandomInt(rng, 1, 6)));
  const int64_t per_pupil = RandomInt(rng, 8, 60) * 10;
  s->Set("per_pupil", std::to_string(per_pupil));
  s->Set("budget", Dollars(per_pupil * students));
  s->Set("funder", "the " + names->NextPrefix() + " Education Foundation");
  static constexpr std::string_view kTerms[] = {"January", "April", "September"};
  s->Set("start_month", std::string(PickOne(kTerms, rng)));
  s->Set("new_schools", NumberWord(RandomInt(rng, 4, 20)));
  s->Set("new_tutors", std::to_string(RandomInt(rng, 20, 400)));
  static constexpr std::string_view kAdd[] = {"science", "writing", "music", "languages"};
  s->Set("added", std::string(PickOne(kAdd, rng)));
  s->Set("other_pct", std::to_string(RandomInt(rng, 3, 18)));
  s->Set("training_hours", std::to_string(RandomInt(rng, 10, 60)));
  s->Set("survey_pct", std::to_string(RandomInt(rng, 55, 90)));
}

constexpr std::string_view kEducationTitle =
    "{programme} lifts results in {city} schools||"
    "Scores in {area} up {score_pct} percent under {programme}||"
    "{city} to expand {programme} after strong results";

constexpr Fact kEducationLead[] = {
    {kWhat, K, 100,
     "{org} said on {date} that {programme} had raised [test scores|results] in {area} by "
     "{score_pct} percent in its first {years_word} years."},
    {kWhere, K, 100,
     "The scheme runs in {schools} schools in {city} and the [surrounding villages|nearby "
     "towns] of {region}."},
    {kNo, K, 100,
     "About {students} pupils [take part|are enrolled], [supported by|working with] {tutors} "
     "[trained tutors|teachers and assistants]."},
    {kNo, C, 70, "The district [published|released] the figures in its [annual|yearly] report on [school performance|pupil progress]."},
};
constexpr Fact kEducationDetails[] = {
    {kNo, K, 100,
     "Attendance at the schools involved rose from {att_before} percent to {att_after} "
     "percent over the same period."},
    {kNo, K, 100,
     "The [largest|biggest] gains were among pupils who had started [well behind|below the "
     "expected level], according to the report."},
    {kNo, C, 60,
     "[Sessions|Lessons] take place in small groups of [four to six|five or six] pupils, "
     "[usually|mostly] after the normal school day."},
    {kNo, K, 100,
     "The programme costs {per_pupil} dollars per pupil each year, or {budget} in total."},
    {kNo, K, 100, "Results also improved for pupils [learning English as a second language|with special educational needs], rising by {other_pct} percent."},
    {kNo, K, 70, "[Teachers|Tutors] [receive|are given] {training_hours} hours of training before they start, [followed by|and] [regular|monthly] [visits from mentors|support sessions]."},
    {kNo, C, 60, "[Many|Most] sessions are run in school libraries, which stay open [later|until the early evening] on [weekdays|school days]."},
};
constexpr Fact kEducationPeople[] = {
    {kWho, K, 100,
     "{leader}, the {leader_role} of {org}, [said|told a meeting of parents] that the results "
     "justified the decision to [expand|continue] the scheme."},
    {kNo, C, 100,
     "\"Our teachers have worked incredibly hard to make this a success,\" {leader_last} "
     "said."},
    {kNo, K, 80,
     "{critic}, who [represents teachers|speaks for the teachers union] in {city}, said staff "
     "[needed|wanted] more time to prepare [lessons|sessions] and [smaller classes|less "
     "paperwork]."},
    {kNo, C, 60,
     "{local}, a parent whose child joined last year, said the extra help had [made a real "
     "difference|been worth every minute]."},
    {kNo, K, 70, "{official}, the chair of the school board, said the board would vote on the expansion in {next_month}."},
};
constexpr Fact kEducationWhy[] = {
    {kWhy, K, 100,
     "The scheme was introduced because results in {area} had [fallen|slipped] below the "
     "national average [for several years|for three years in a row]."},
    {kNo, K, 100,
     "{funder} [pays for|funds] [most of|half of] the programme, with the rest coming from "
     "the district budget."},
    {kNo, K, 80, "A survey [carried out|conducted] in {prev_year} found that {survey_pct} percent of [parents|families] wanted more support for their children [outside lessons|after school]."},
    {kNo, C, 60, "Similar schemes in [other districts|neighbouring regions] have [produced|shown] [mixed|encouraging] results."},
};
constexpr Fact kEducationOutlook[] = {
    {kWhen, K, 100,
     "From {start_month} {next_year}, the scheme will be extended to {new_schools} more "
     "schools and will add {added}."},
    {kNo, K, 100,
     "The district will also [train|recruit] {new_tutors} new tutors over the [coming|next] "
     "year."},
    {kNo, C, 60,
     "An independent review of the programme is due to be published [in the spring|later "
     "this year]."},
    {kNo, K, 60, "{org} also [plans|intends] to publish the results of each school [online|on its website] from {start_month}."},
};
constexpr Section kEducationSections[] = {{kEducationLead}, {kEducationDetails},
                                          {kEducationPeople}, {kEducationWhy},
                                          {kEducationOutlook}};

// ---------------------------------------------------------------------------------
// 9. Agriculture: the harvest figures are in.

struct Crop {
  std::string_view name, plural;
};

constexpr Crop kCrops[] = {{"wheat", "wheat"},   {"apple", "apples"}, {"potato", "potatoes"},
                           {"barley", "barley"}, {"grape", "grapes"}, {"olive", "olives"},
                           {"rice", "rice"},     {"sugar beet", "sugar beet"}};

void SetupAgriculture(Rng* rng, NameDrawer* names, Slots* s) {
  const Crop& crop = kCrops[RandomInt(rng, 0, std::size(kCrops) - 1)];
  s->Set("crop", std::string(crop.name));
  s->Set("crop_plural", std::string(crop.plural));
  s->Set("org", "the " + *s->Find("region_bare") + " Growers Cooperative");
  static constexpr std::string_view kExpert[] = {"the {city3} Agricultural College",
                                                 "the University of {city3}"};
  std::string eo = ExpandTemplate(PickOne(kExpert, rng), *s, rng);
  eo[0] = 't';
  s->Set("expert_org", eo);
  const bool up = rng->Bernoulli(0.5);
  const int64_t change = RandomInt(rng, 4, 30);
  const int64_t tonnes = Rounded(rng, 20000, 900000, 100);
  const int64_t prev = up ? tonnes * 100 / (100 + change) : tonnes * 100 / (100 - change);
  s->Set("trend_verb", up ? "rose" : "fell");
  s->Set("change_pct", std::to_string(change));
  s->Set("tonnes", Num(tonnes));
  s->Set("prev_tonnes", Num(prev / 100 * 100));
  s->Set("farms", Num(RandomInt(rng, 120, 4000)));
  static constexpr std::string_view kGood =
      "Farmers said [a mild spring and steady rain|good weather at planting time and a dry "
      "harvest season] had [helped|boosted] yields across the region";
  static constexpr std::string_view kBad =
      "Farmers blamed [a long drought in the early summer|heavy rain during the harvest|a late "
      "frost in the spring] for the [poor|weak] yields";
  s->Set("weather_story", ExpandTemplate(up ? kGood : kBad, *s, rng));
  const int from = static_cast<int>(RandomInt(rng, 1, 6));
  s->Set("rain_from", std::string(MonthName(from)));
  s->Set("rain_to", std::string(MonthName(from + static_cast<int>(RandomInt(rng, 2, 5)))));
  s->Set("rain_pct", std::to_string(RandomInt(rng, 8, 45)));
  s->Set("rain_dir", up ? "above" : "below");
  const int64_t price = RandomInt(rng, 14, 90) * 10;
  s->Set("price_verb", up ? "fell" : "rose");
  s->Set("price_before", std::to_string(price));
  s->Set("price_after", std::to_string(up ? price - RandomInt(rng, 1, 4) * 10
                                            : price + RandomInt(rng, 1, 6) * 10));
  s->Set("members", Num(RandomInt(rng, 80, 2500)));
  s->Set("seasonal", Num(Rounded(rng, 300, 9000, 10)));
  const int month = static_cast<int>(SlotInt(*s, "month"));
  s->Set("plant_month", MonthAfter(month, static_cast<int>(RandomInt(rng, 1, 4))));
  s->Set("forecast_month", MonthAfter(month, static_cast<int>(RandomInt(rng, 5, 8))));
  s->Set("aid", Millions(RandomInt(rng, 2, 45)));
  const int harvest_from = static_cast<int>(RandomInt(rng, 6, 9));
  s->Set("harvest_from", std::string(MonthName(harvest_from)));
  const int64_t harvest_months = RandomInt(rng, 1, 3);
  s->Set("harvest_to", std::string(MonthName(harvest_from + static_cast<int>(harvest_months))));
  s->Set("harvest_weeks_word", NumberWord(harvest_months * 4 + RandomInt(rng, 1, 4)));
  const int64_t hectares = Rounded(rng, 2000, 90000, 10);
  s->Set("hectares", Num(hectares));
  s->Set("prev_hectares", Num(hectares * RandomInt(rng, 90, 110) / 100 / 10 * 10));
  s->Set("cost_pct", std::to_string(RandomInt(rng, 4, 30)));
  s->Set("grade_pct", std::to_string(RandomInt(rng, 40, 85)));
  (void)names;
}

constexpr std::string_view kAgricultureTitle =
    "{crop} harvest in {region} {trend_verb} {change_pct} percent||"
    "Growers in {region} count the cost of a changeable year||"
    "{crop} yields {trend_verb} across {region}";

constexpr Fact kAgricultureLead[] = {
    {kWhat, K, 100,
     "According to figures released by {org} on {date}, the {crop} harvest in {region} "
     "{trend_verb} by {change_pct} percent this year."},
    {kNo, K, 100,
     "Total production reached about {tonnes} tonnes, compared with {prev_tonnes} tonnes "
     "[last year|a year earlier]."},
    {kWhere, K, 100,
     "[Most of the crop|The bulk of the harvest] comes from {farms} farms around {city} and "
     "along {river}."},
    {kNo, K, 100, "[The|This year's] harvest [ran|lasted] from {harvest_from} to {harvest_to}, [about|roughly] {harvest_weeks_word} weeks [in total|in all]."},
    {kNo, C, 70, "The figures are based on [reports|returns] from [member farms|growers] and [checks|measurements] at [local|regional] [stores|packing stations]."},
};
constexpr Fact kAgricultureWhy[] = {
    {kWhy, K, 100, "{weather_story}."},
    {kNo, K, 100,
     "Rainfall between {rain_from} and {rain_to} was {rain_pct} percent {rain_dir} the "
     "long-term average."},
    {kNo, C, 70,
     "Some growers [switched to|experimented with] [hardier varieties|new irrigation systems] "
     "after recent losses."},
    {kNo, K, 100, "The area planted with {crop_plural} was {hectares} hectares, [compared with|against] {prev_hectares} hectares [last year|the year before]."},
    {kNo, K, 80, "[Storage costs|Fuel and fertiliser prices] [rose|climbed] by {cost_pct} percent over the season, [cutting into|eating into] [farm incomes|growers' margins]."},
};
constexpr Fact kAgriculturePeople[] = {
    {kNo, K, 100,
     "Prices paid to farmers {price_verb} from {price_before} to {price_after} dollars a "
     "tonne over the season."},
    {kWho, K, 100,
     "{leader}, who chairs {org}, said its {members} member farms had [coped well with|"
     "adapted well to] a [changeable|demanding] year."},
    {kNo, C, 100,
     "\"Our members know how to work with the weather, whatever it brings,\" {leader_last} "
     "said."},
    {kNo, K, 100,
     "About {seasonal} seasonal workers were hired to bring in the crop, [many|most] of them "
     "from [other regions|neighbouring towns]."},
    {kNo, K, 80,
     "{expert}, an agronomist at {expert_org}, said soil [health|moisture] would be the main "
     "[worry|concern] for next year's [planting|crop]."},
    {kNo, K, 70, "[Buyers|The cooperative's inspectors] [rated|judged] the quality of the crop [good|above average], [with|and] {grade_pct} percent of the harvest [meeting|reaching] the top grade."},
    {kNo, C, 60, "[Many|Several] farms [brought in|used] [new machinery|extra equipment] to finish the harvest [before the weather changed|ahead of the autumn rains]."},
};
constexpr Fact kAgricultureOutlook[] = {
    {kWhen, K, 100,
     "Planting for next season will begin in {plant_month}, and {org} will [publish|release] "
     "its first forecast in {forecast_month}."},
    {kNo, K, 100,
     "The cooperative [has asked|is asking] the regional government for {aid} to [repair "
     "irrigation channels|buy storage equipment|help young farmers]."},
    {kNo, C, 60,
     "Exports of {crop_plural} from the region are expected to [rise|remain steady] [in the coming "
     "year|next year]."},
    {kNo, C, 50,
     "{critic}, who farms near {city2}, said smaller growers [struggled|found it hard] to "
     "[find enough workers|pay for fuel and fertiliser]."},
    {kNo, K, 70, "{official}, who [advises|works with] growers for the regional government, said [the request|a decision on support] would be [considered|discussed] in {next_month}."},
    {kNo, K, 60, "The cooperative [will also|plans to] [open|build] a new [storage|packing] [hall|centre] near {city3} [next year|in the coming year]."},
};
constexpr Section kAgricultureSections[] = {{kAgricultureLead}, {kAgricultureWhy},
                                            {kAgriculturePeople}, {kAgricultureOutlook}};

// ---------------------------------------------------------------------------------
// 10. Technology: a small satellite is launched.

struct Mission {
  std::string_view kind, purpose, topic;
};

constexpr Mission kMissions[] = {
    {"weather satellite", "measure rainfall and cloud cover", "rainfall"},
    {"small research satellite", "track changes in forests and farmland",
     "changes in land use"},
    {"ocean monitoring satellite", "measure sea temperatures and wave heights",
     "coastal waters"},
    {"air quality satellite", "map pollution from traffic and industry", "air pollution"},
};

void SetupTechnology(Rng* rng, NameDrawer* names, Slots* s) {
  const Mission& m = kMissions[RandomInt(rng, 0, std::size(kMissions) - 1)];
  s->Set("sat_kind", std::string(m.kind));
  const bool vowel = std::string_view("aeiou").find(m.kind[0]) != std::string_view::npos;
  s->Set("sat_kind_a", (vowel ? "an " : "a ") + std::string(m.kind));
  s->Set("purpose", std::string(m.purpose));
  s->Set("topic", std::string(m.topic));
  static constexpr std::string_view kNames[] = {"Observer", "Explorer", "Pathfinder", "Lantern",
                                                "Sentinel"};
  const std::string_view satellite = PickOne(kNames, rng);  // drawn before the name
  s->Set("satellite", names->NextPrefix() + " " + std::string(satellite));
  static constexpr std::string_view kOrgs[] = {"the University of {city}",
                                               "the {city} Space Centre"};
  std::string org = ExpandTemplate(PickOne(kOrgs, rng), *s, rng);
  org[0] = 't';
  s->Set("org", org);
  static constexpr std::string_view kRoles[] = {"professor of physics", "space engineer",
                                                "senior researcher"};
  s->Set("leader_role", std::string(PickOne(kRoles, rng)));
  static constexpr std::string_view kExpert[] = {"space policy researcher",
                                                 "professor of astronomy", "satellite engineer"};
  s->Set("expert_role", std::string(PickOne(kExpert, rng)));
  s->Set("expert_org", "the " + names->NextPlace() + " Observatory");
  s->Set("firm", names->NextPerson().family + " Aerospace");
  s->Set("mass", std::to_string(RandomInt(rng, 20, 900)));
  const int64_t altitude = Rounded(rng, 400, 900, 10);
  s->Set("altitude", std::to_string(altitude));
  s->Set("orbit_min", std::to_string(92 + (altitude - 400) / 25));
  s->Set("images", Num(Rounded(rng, 200, 6000, 10)));
  s->Set("mission_years_word", NumberWord(RandomInt(rng, 3, 8)));
  s->Set("students", std::to_string(RandomInt(rng, 30, 300)));
  s->Set("build_years_word", NumberWord(RandomInt(rng, 3, 7)));
  s->Set("cost", Millions(RandomInt(rng, 3, 80)));
  s->Set("funder", "the national space agency");
  s->Set("resolution", std::to_string(RandomInt(rng, 2, 60)));
  s->Set("ground_staff", NumberWord(RandomInt(rng, 6, 20)));
  s->Set("test_months", NumberWord(RandomInt(rng, 3, 14)));
  s->Set("first_data_month", MonthAfter(static_cast<int>(SlotInt(*s, "month")),
                                        static_cast<int>(RandomInt(rng, 1, 3))));
}

constexpr std::string_view kTechnologyTitle =
    "{satellite} reaches orbit||"
    "{city} satellite launched to {purpose}||"
    "Students help build {satellite}";

constexpr Fact kTechnologyLead[] = {
    {kWhat, K, 100,
     "{satellite}, {sat_kind_a} built by {org}, was launched [successfully|without problems] "
     "on {date} from a site near {city2}."},
    {kNo, K, 100,
     "The spacecraft [weighs|has a mass of] {mass} kilograms and will circle the Earth at a "
     "height of about {altitude} kilometres."},
    {kWhere, K, 100,
     "Its [main|first] task is to {purpose} over {region} and [neighbouring areas|the "
     "surrounding coast]."},
    {kNo, C, 70, "The launch was [watched|followed] [online|live] by [thousands|tens of thousands] of people, [including|among them] [pupils from local schools|families of the team]."},
};
constexpr Fact kTechnologyDetails[] = {
    {kNo, K, 100,
     "It will [send back|transmit] around {images} images a day to a ground station in "
     "{city}."},
    {kNo, K, 100,
     "Each orbit takes about {orbit_min} minutes, so the satellite passes over {region} "
     "[several|many] times a day."},
    {kNo, K, 100,
     "The mission is planned to last {mission_years_word} years, [although|but] engineers "
     "hope it will keep working for longer."},
    {kNo, C, 60,
     "[Solar panels|Two folding solar panels] provide power, and [a small camera|a set of "
     "instruments] sits on the side facing the Earth."},
    {kNo, K, 100, "Its [main|largest] instrument can [see|detect] [objects|features] as small as {resolution} metres across [on the ground|from orbit]."},
    {kNo, K, 70, "The ground station in {city} will be [staffed|run] by {ground_staff} [engineers|technicians] [working in shifts|around the clock]."},
};
constexpr Fact kTechnologyPeople[] = {
    {kWho, K, 100,
     "The project was led by {leader}, a {leader_role} at {org}, with {students} students "
     "[helping to design and test|involved in building] the spacecraft."},
    {kNo, C, 100,
     "\"Seeing it leave the ground after {build_years_word} years of work was "
     "unforgettable,\" {leader_last} said."},
    {kNo, K, 100,
     "The satellite was built in partnership with {firm}, which supplied the [radio|"
     "communication] system and [the solar panels|the onboard computer]."},
    {kNo, K, 70, "[Engineers|The team] spent {test_months} months testing the satellite [in vacuum chambers|for vibration and heat] before the launch."},
    {kNo, K, 60, "{official}, the head of the national space agency, called the launch [an important step|a milestone] for national space research."},
};
constexpr Fact kTechnologyWhy[] = {
    {kWhy, K, 100,
     "The mission was [designed|planned] because [farmers and planners|local authorities] in "
     "{region} [lacked|had no] [reliable|detailed] data on {topic}."},
    {kNo, K, 100,
     "The whole project cost {cost}, [paid for|funded] by {funder} and [several|a group of] "
     "[private donors|local companies]."},
    {kNo, K, 70,
     "{expert}, a {expert_role} at {expert_org}, said [small satellites|missions like this "
     "one] were making space research [affordable|possible] for [smaller universities|"
     "regional institutions]."},
    {kNo, C, 60, "[Existing|Older] satellites [pass over|cover] the region [only rarely|less often] and [lack|do not have] the detail needed for local [planning|decisions]."},
};
constexpr Fact kTechnologyOutlook[] = {
    {kWhen, K, 100,
     "[The first images|First data] are expected in {first_data_month}, after [a period|"
     "several weeks] of [tests|checks] in orbit."},
    {kNo, K, 100,
     "{org} plans to make the data [free to use|freely available] for [schools, farmers and "
     "researchers|anyone who registers]."},
    {kNo, C, 60, "A second satellite is [already being discussed|in the early stages of "
                 "planning]."},
    {kNo, K, 70, "{org} has already started [designing|planning] a [larger|second] spacecraft [with|in partnership with] [universities in neighbouring countries|other research centres]."},
    {kNo, C, 60, "Students will also [use|analyse] the data in [courses|projects] on [climate|geography] and [engineering|computing]."},
};
constexpr Section kTechnologySections[] = {{kTechnologyLead}, {kTechnologyDetails},
                                           {kTechnologyPeople}, {kTechnologyWhy},
                                           {kTechnologyOutlook}};

constexpr Genre kGenres[] = {
    {"infrastructure", SetupInfrastructure, kInfraTitle, kInfraSections},
    {"ecology", SetupEcology, kEcologyTitle, kEcologySections},
    {"health_study", SetupHealthStudy, kHealthTitle, kHealthSections},
    {"business", SetupBusiness, kBusinessTitle, kBusinessSections},
    {"environment", SetupEnvironment, kEnvironmentTitle, kEnvironmentSections},
    {"sports", SetupSports, kSportsTitle, kSportsSections},
    {"culture", SetupCulture, kCultureTitle, kCultureSections},
    {"education", SetupEducation, kEducationTitle, kEducationSections},
    {"agriculture", SetupAgriculture, kAgricultureTitle, kAgricultureSections},
    {"technology", SetupTechnology, kTechnologyTitle, kTechnologySections},
};

}  // namespace

std::span<const Genre> DocumentGenres() { return kGenres; }

}  // namespace structtest::internal
