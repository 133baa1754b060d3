#include "sources/math_generator.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/ascii.h"
#include "core/rng.h"
#include "sources/vocabulary.h"

namespace structtest {

namespace {

using internal::NameDrawer;
using internal::RandomInt;

// What a template produces; the answer is the value of the last computation.
struct Draft {
  std::string question;
  std::vector<std::string> steps;
  int64_t answer = 0;
};

using Template = void (*)(Rng* rng, NameDrawer* names, Draft* out);


template <typename T, size_t N>
const T& Pick(const T (&items)[N], Rng* rng) {
  return items[static_cast<size_t>(rng->UniformInt(0, static_cast<int64_t>(N) - 1))];
}

template <typename... Args>
void Step(Draft* d, fmt::format_string<Args...> f, Args&&... args) {
  d->steps.push_back(fmt::format(f, std::forward<Args>(args)...));
}

struct Item {
  std::string_view one, many;
  int64_t lo, hi;  // price range in dollars
};

// 1. Shopping with change from a bill.
void Shopping(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr Item kItems[] = {
      {"notebook", "notebooks", 2, 6},        {"pen", "pens", 1, 3},
      {"box of crayons", "boxes of crayons", 3, 8}, {"bag of apples", "bags of apples", 3, 7},
      {"loaf of bread", "loaves of bread", 2, 5}, {"bag of rice", "bags of rice", 4, 12},
      {"toy car", "toy cars", 3, 9},           {"T-shirt", "T-shirts", 6, 15},
      {"jar of honey", "jars of honey", 5, 11}, {"pack of batteries", "packs of batteries", 4, 10},
  };
  static constexpr std::string_view kShops[] = {"market", "corner shop", "supermarket",
                                                "school fair", "hardware store"};
  const std::string n = names->NextGivenName();
  const int64_t kinds = RandomInt(rng, 2, 3);
  size_t idx[3];
  for (int64_t k = 0; k < kinds; ++k) {
    bool fresh;
    do {
      idx[k] = static_cast<size_t>(RandomInt(rng, 0, std::size(kItems) - 1));
      fresh = true;
      for (int64_t j = 0; j < k; ++j) fresh = fresh && idx[j] != idx[k];
    } while (!fresh);
  }
  int64_t count[3], price[3], cost[3], total = 0;
  std::string list;
  for (int64_t k = 0; k < kinds; ++k) {
    const Item& it = kItems[idx[k]];
    count[k] = RandomInt(rng, 2, 9);
    price[k] = RandomInt(rng, it.lo, it.hi);
    cost[k] = count[k] * price[k];
    total += cost[k];
    if (k > 0) list += k + 1 == kinds ? " and " : ", ";
    list += fmt::format("{} {} for ${} each", count[k], it.many, price[k]);
  }
  int64_t bill = 20;
  for (int64_t b : {20, 50, 100, 200}) {
    bill = b;
    if (b > total) break;
  }
  if (bill <= total) bill = (total / 100 + 1) * 100;
  d->question = fmt::format(
      "{} goes to the {} and buys {}. {} pays with a ${} bill. How much change, in dollars, "
      "does {} get back?",
      n, Pick(kShops, rng), list, n, bill, n);
  for (int64_t k = 0; k < kinds; ++k) {
    Step(d, "The {} cost {} * {} = ${}.", kItems[idx[k]].many, count[k], price[k], cost[k]);
  }
  if (kinds == 2) {
    Step(d, "Altogether {} spends {} + {} = ${}.", n, cost[0], cost[1], total);
  } else {
    Step(d, "Altogether {} spends {} + {} + {} = ${}.", n, cost[0], cost[1], cost[2], total);
  }
  d->answer = bill - total;
  Step(d, "So {} gets back {} - {} = ${} in change.", n, bill, total, d->answer);
}

// 2. A weekly routine over several weeks.
void WeeklyRoutine(Rng* rng, NameDrawer* names, Draft* d) {
  struct Activity {
    std::string_view verb, unit;
    int64_t lo, hi;
  };
  static constexpr Activity kActs[] = {
      {"reads", "pages", 10, 40},     {"swims", "laps", 8, 30},
      {"walks", "kilometers", 2, 9},  {"solves", "puzzles", 2, 12},
      {"writes", "lines of code", 20, 90}, {"practices", "minutes of violin", 15, 45},
  };
  const Activity& a = Pick(kActs, rng);
  const std::string n = names->NextGivenName();
  const int64_t p = RandomInt(rng, a.lo, a.hi);
  const int64_t q = RandomInt(rng, a.lo, a.hi * 2);
  const int64_t weeks = RandomInt(rng, 2, 9);
  d->question = fmt::format(
      "{} {} {} {} every weekday and {} {} on each day of the weekend. How many {} is that "
      "in {} weeks?",
      n, a.verb, p, a.unit, q, a.unit, a.unit, weeks);
  const int64_t wd = 5 * p, we = 2 * q, week = wd + we;
  Step(d, "On the five weekdays {} does 5 * {} = {} {}.", n, p, wd, a.unit);
  Step(d, "On the weekend {} does 2 * {} = {} {}.", n, q, we, a.unit);
  Step(d, "That makes {} + {} = {} {} each week.", wd, we, week, a.unit);
  d->answer = week * weeks;
  Step(d, "In {} weeks that is {} * {} = {} {}.", weeks, week, weeks, d->answer, a.unit);
}

// 3. Baking and sharing equally.
void Sharing(Rng* rng, NameDrawer* names, Draft* d) {
  struct Bake {
    std::string_view things, holder;
  };
  static constexpr Bake kBakes[] = {{"cookies", "trays"}, {"muffins", "trays"},
                                    {"cupcakes", "boxes"}, {"marbles", "bags"},
                                    {"stickers", "sheets"}};
  const Bake& b = Pick(kBakes, rng);
  const std::string n = names->NextGivenName();
  int64_t trays, per, total, keep, rest, friends = 0;
  do {
    trays = RandomInt(rng, 2, 9);
    per = RandomInt(rng, 6, 24);
    total = trays * per;
    keep = RandomInt(rng, 2, total / 3);
    rest = total - keep;
    for (int64_t f : {7, 6, 5, 4, 3}) {
      if (rest % f == 0) {
        friends = f;
        break;
      }
    }
  } while (friends == 0);
  d->question = fmt::format(
      "{} has {} {} with {} {} in each. {} keeps {} {} and shares the rest equally among {} "
      "friends. How many {} does each friend get?",
      n, trays, b.holder, per, b.things, n, keep, b.things, friends, b.things);
  Step(d, "{} has {} * {} = {} {} in all.", n, trays, per, total, b.things);
  Step(d, "After keeping some, {} has {} - {} = {} {} to share.", n, total, keep, rest, b.things);
  d->answer = rest / friends;
  Step(d, "Each friend gets {} / {} = {} {}.", rest, friends, d->answer, b.things);
}

// 4. A percentage discount, with an optional delivery fee.
void Discount(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr Item kItems[] = {
      {"jacket", "jackets", 2, 8},  {"lamp", "lamps", 1, 5},       {"backpack", "backpacks", 1, 6},
      {"chair", "chairs", 2, 9},    {"pair of boots", "pairs of boots", 2, 8},
      {"board game", "board games", 1, 4}};
  const Item& it = Pick(kItems, rng);
  const std::string n = names->NextGivenName();
  const int64_t price = 20 * RandomInt(rng, it.lo, it.hi);
  const int64_t pct = 5 * RandomInt(rng, 2, 10);
  const int64_t k = RandomInt(rng, 2, 6);
  const bool fee = rng->Bernoulli(0.5);
  const int64_t delivery = RandomInt(rng, 5, 15);
  d->question = fmt::format(
      "A store sells a {} for ${}. During a sale everything is {}% off. {} buys {} {}{}. How "
      "much does {} pay in dollars?",
      it.one, price, pct, n, k, it.many,
      fee ? fmt::format(" and pays a ${} delivery fee", delivery) : std::string(), n);
  const int64_t off = price * pct / 100, sale = price - off, goods = sale * k;
  Step(d, "The discount on one {} is {} * {} / 100 = ${}.", it.one, price, pct, off);
  Step(d, "So one {} costs {} - {} = ${} in the sale.", it.one, price, off, sale);
  Step(d, "For {} {} that is {} * {} = ${}.", k, it.many, sale, k, goods);
  d->answer = goods;
  if (fee) {
    d->answer = goods + delivery;
    Step(d, "With delivery {} pays {} + {} = ${}.", n, goods, delivery, d->answer);
  }
}

// 5. Ages now and in some years.
void Ages(Rng* rng, NameDrawer* names, Draft* d) {
  const std::string a = names->NextGivenName();
  const std::string b = names->NextGivenName();
  const std::string c = names->NextGivenName();
  const int64_t age_a = RandomInt(rng, 3, 14);
  const int64_t k = RandomInt(rng, 2, 4);
  const int64_t age_b = age_a * k;
  const int64_t m = RandomInt(rng, 1, age_b - 2);
  const int64_t age_c = age_b - m;
  const int64_t years = RandomInt(rng, 2, 10);
  d->question = fmt::format(
      "{} is {} years old. {} is {} times as old as {}, and {} is {} years younger than {}. "
      "What will be the sum of their ages in {} years?",
      a, age_a, b, k, a, c, m, b, years);
  const int64_t now = age_a + age_b + age_c, added = 3 * years;
  Step(d, "{} is {} * {} = {} years old.", b, age_a, k, age_b);
  Step(d, "{} is {} - {} = {} years old.", c, age_b, m, age_c);
  Step(d, "Today their ages add up to {} + {} + {} = {} years.", age_a, age_b, age_c, now);
  Step(d, "In {} years each of the three is {} years older, which adds 3 * {} = {} years.",
       years, years, years, added);
  d->answer = now + added;
  Step(d, "So the sum of their ages will be {} + {} = {} years.", now, added, d->answer);
}

// 6. Laps of a track or pool, meters to kilometers.
void Laps(Rng* rng, NameDrawer* names, Draft* d) {
  struct Course {
    std::string_view verb, lap, course;
    int64_t lengths[4];
    int64_t lo, hi;  // laps per session
  };
  static constexpr Course kCourses[] = {
      {"runs", "laps", "track", {200, 250, 400, 500}, 2, 25},
      {"swims", "lengths", "pool", {25, 50, 25, 50}, 8, 80},
      {"cycles", "laps", "park loop", {500, 750, 1250, 1500}, 2, 16},
      {"rows", "lengths", "lake course", {250, 500, 750, 1000}, 2, 12},
  };
  const Course& c = Pick(kCourses, rng);
  const std::string n = names->NextGivenName();
  int64_t laps, meters, days;
  do {
    laps = RandomInt(rng, c.lo, c.hi);
    meters = Pick(c.lengths, rng);
    days = RandomInt(rng, 2, 7);
  } while (laps * meters * days % 1000 != 0);
  d->question = fmt::format(
      "{} {} {} {} of a {}-meter {} every training day and trains {} days a week. How many "
      "kilometers does {} cover in a week?",
      n, c.verb, laps, c.lap, meters, c.course, days, n);
  const int64_t daily = laps * meters, weekly = daily * days;
  Step(d, "Each training day {} covers {} * {} = {} meters.", n, laps, meters, daily);
  Step(d, "In a week that is {} * {} = {} meters.", daily, days, weekly);
  d->answer = weekly / 1000;
  Step(d, "A kilometer is 1000 meters, so {} covers {} / 1000 = {} kilometers a week.", n,
       weekly, d->answer);
}

// 7. Wages with overtime at time and a half.
void Wages(Rng* rng, NameDrawer* names, Draft* d) {
  const std::string n = names->NextGivenName();
  const int64_t wage = 2 * RandomInt(rng, 5, 15);
  const int64_t hours = RandomInt(rng, 4, 8);
  const int64_t days = RandomInt(rng, 3, 6);
  const int64_t extra = RandomInt(rng, 2, 9);
  d->question = fmt::format(
      "{} earns ${} an hour for regular work and time and a half for overtime. Last week {} "
      "worked {} regular hours a day for {} days, plus {} hours of overtime. How much did {} "
      "earn last week, in dollars?",
      n, wage, n, hours, days, extra, n);
  const int64_t daily = wage * hours, regular = daily * days, rate = wage * 3 / 2,
                overtime = rate * extra;
  Step(d, "Regular pay for one day is {} * {} = ${}.", wage, hours, daily);
  Step(d, "For {} days that is {} * {} = ${}.", days, daily, days, regular);
  Step(d, "The overtime rate is {} * 3 / 2 = ${} an hour.", wage, rate);
  Step(d, "Overtime pays {} * {} = ${}.", rate, extra, overtime);
  d->answer = regular + overtime;
  Step(d, "In total {} earned {} + {} = ${}.", n, regular, overtime, d->answer);
}

// 8. Saving, spending, and giving half away.
void Savings(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kGifts[] = {"book", "kite", "puzzle", "scarf", "football"};
  static constexpr std::string_view kKin[] = {"brother", "sister", "cousin"};
  const std::string n = names->NextGivenName();
  int64_t start, weekly, weeks, gift, total, rest;
  do {
    start = RandomInt(rng, 5, 60);
    weekly = RandomInt(rng, 3, 15);
    weeks = RandomInt(rng, 3, 12);
    total = start + weekly * weeks;
    gift = RandomInt(rng, 4, total - 2);
    rest = total - gift;
  } while (rest % 2 != 0);
  const std::string_view g = Pick(kGifts, rng);
  d->question = fmt::format(
      "{} has ${} in a piggy bank and saves ${} every week for {} weeks. Then {} spends ${} "
      "on a {} and gives half of the remaining money to a younger {}. How many dollars does "
      "{} have left?",
      n, start, weekly, weeks, n, gift, g, Pick(kKin, rng), n);
  const int64_t saved = weekly * weeks, half = rest / 2;
  Step(d, "{} saves {} * {} = ${}.", n, weekly, weeks, saved);
  Step(d, "Then {} has {} + {} = ${}.", n, start, saved, total);
  Step(d, "After buying the {}, {} has {} - {} = ${}.", g, n, total, gift, rest);
  Step(d, "Half of that is {} / 2 = ${}.", rest, half);
  d->answer = rest - half;
  Step(d, "So {} has {} - {} = ${} left.", n, rest, half, d->answer);
}

// 9. Fractions and percentages of a group.
void Club(Rng* rng, NameDrawer* names, Draft* d) {
  struct Group {
    std::string_view where, members, first, second;
  };
  static constexpr Group kGroups[] = {
      {"school club", "students", "play chess", "play table tennis"},
      {"sports center", "members", "swim", "play tennis"},
      {"summer camp", "children", "go canoeing", "go climbing"},
      {"community choir", "singers", "sing bass", "sing tenor"},
      {"factory", "workers", "cycle to work", "take the bus"},
      {"festival team", "volunteers", "sell tickets", "serve food"},
      {"language school", "students", "learn French", "learn Spanish"},
      {"youth orchestra", "players", "play the violin", "play the flute"},
  };
  static constexpr std::string_view kFractions[] = {"", "", "", "third", "quarter", "fifth"};
  const Group& g = Pick(kGroups, rng);
  const std::string place = names->NextPlace();
  int64_t total, k, pct, first, rest, second;
  do {
    k = RandomInt(rng, 3, 5);
    total = k * RandomInt(rng, 4, 60);
    pct = 5 * RandomInt(rng, 2, 16);
    first = total / k;
    rest = total - first;
    second = rest * pct;
  } while (second % 100 != 0);
  second /= 100;
  d->question = fmt::format(
      "The {} {} has {} {}. A {} of them {}, and {}% of the rest {}. The others do neither. "
      "How many {} do neither?",
      place, g.where, total, g.members, kFractions[k], g.first, pct, g.second, g.members);
  Step(d, "A {} of them is {} / {} = {} {}.", kFractions[k], total, k, first, g.members);
  Step(d, "That leaves {} - {} = {} {}.", total, first, rest, g.members);
  Step(d, "Of those, {} * {} / 100 = {} {}.", rest, pct, second, g.second);
  d->answer = rest - second;
  Step(d, "So {} - {} = {} {} do neither.", rest, second, d->answer, g.members);
}

// 10. Distance at two speeds, there and back.
void Trip(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kVehicles[] = {"train", "bus", "truck", "ferry", "van"};
  const std::string_view v = Pick(kVehicles, rng);
  const std::string from = names->NextPlace(), to = names->NextPlace();
  const int64_t s1 = 5 * RandomInt(rng, 6, 20), h1 = RandomInt(rng, 2, 5);
  const int64_t s2 = 5 * RandomInt(rng, 6, 20), h2 = RandomInt(rng, 2, 4);
  d->question = fmt::format(
      "A {} leaves {} and travels at {} kilometers per hour for {} hours, then at {} "
      "kilometers per hour for {} hours to reach {}. The next day it comes back the same way. "
      "How many kilometers does it travel over the two days?",
      v, from, s1, h1, s2, h2, to);
  const int64_t d1 = s1 * h1, d2 = s2 * h2, one = d1 + d2;
  Step(d, "The first part of the trip is {} * {} = {} kilometers.", s1, h1, d1);
  Step(d, "The second part is {} * {} = {} kilometers.", s2, h2, d2);
  Step(d, "One way is {} + {} = {} kilometers.", d1, d2, one);
  d->answer = one * 2;
  Step(d, "There and back the {} travels {} * 2 = {} kilometers.", v, one, d->answer);
}

// 11. A harvest packed into boxes and sold.
void Harvest(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kCrops[] = {"tomato", "pepper", "bean", "strawberry"};
  static constexpr std::string_view kPlural[] = {"tomatoes", "peppers", "beans", "strawberries"};
  const size_t c = static_cast<size_t>(RandomInt(rng, 0, 3));
  const std::string n = names->NextGivenName();
  int64_t rows, per_row, yield, box = 0;
  do {
    rows = RandomInt(rng, 3, 12);
    per_row = RandomInt(rng, 4, 15);
    yield = RandomInt(rng, 3, 20);
    for (int64_t b : {12, 10, 8, 6, 5, 4}) {
      if (rows * per_row * yield % b == 0) {
        box = b;
        break;
      }
    }
  } while (box == 0);
  const int64_t price = RandomInt(rng, 2, 9);
  d->question = fmt::format(
      "{} plants {} rows of {} plants with {} plants in each row. Each plant gives {} {}. {} "
      "packs them in boxes of {} and sells each box for ${}. How many dollars does {} make?",
      n, rows, kCrops[c], per_row, yield, kPlural[c], n, box, price, n);
  const int64_t plants = rows * per_row, fruit = plants * yield, boxes = fruit / box;
  Step(d, "There are {} * {} = {} plants.", rows, per_row, plants);
  Step(d, "They give {} * {} = {} {}.", plants, yield, fruit, kPlural[c]);
  Step(d, "That fills {} / {} = {} boxes.", fruit, box, boxes);
  d->answer = boxes * price;
  Step(d, "Selling them brings in {} * {} = ${}.", boxes, price, d->answer);
}

// 12. Family tickets against a budget.
void Tickets(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kPlaces[] = {"zoo", "science museum", "aquarium",
                                                 "water park", "botanical garden"};
  const std::string family = names->NextPerson().family;
  const int64_t adult = RandomInt(rng, 10, 30), child = RandomInt(rng, 4, adult - 2);
  const int64_t x = RandomInt(rng, 1, 4), y = RandomInt(rng, 1, 5), parking = RandomInt(rng, 5, 20);
  const int64_t spent = x * adult + y * child + parking;
  const int64_t budget = (spent / 50 + 1) * 50 + 50 * RandomInt(rng, 0, 2);
  d->question = fmt::format(
      "Tickets to the {} cost ${} for adults and ${} for children, and parking costs ${}. The "
      "{} family goes with {} adults and {} children and brings ${}. How much money is left "
      "after paying for the tickets and parking?",
      Pick(kPlaces, rng), adult, child, parking, family, x, y, budget);
  const int64_t a = x * adult, c = y * child, tickets = a + c;
  Step(d, "Adult tickets cost {} * {} = ${}.", x, adult, a);
  Step(d, "Children's tickets cost {} * {} = ${}.", y, child, c);
  Step(d, "The tickets come to {} + {} = ${}.", a, c, tickets);
  Step(d, "With parking the family spends {} + {} = ${}.", tickets, parking, spent);
  d->answer = budget - spent;
  Step(d, "They have {} - {} = ${} left.", budget, spent, d->answer);
}

// 13. Stock sold and restocked.
void Stock(Rng* rng, NameDrawer* names, Draft* d) {
  struct Goods {
    std::string_view unit, crate;
  };
  static constexpr Goods kGoods[] = {{"bottles of juice", "crates"},
                                     {"cans of soup", "cartons"},
                                     {"bags of flour", "pallets"},
                                     {"light bulbs", "boxes"}};
  const Goods& g = Pick(kGoods, rng);
  const int64_t per_day = RandomInt(rng, 8, 40), days = RandomInt(rng, 3, 7);
  const int64_t sold = per_day * days;
  const int64_t start = sold + RandomInt(rng, 5, 200);
  const int64_t crates = RandomInt(rng, 2, 9), per_crate = RandomInt(rng, 6, 30);
  d->question = fmt::format(
      "A shop has {} {} in stock. It sells {} a day for {} days. Then a delivery arrives with "
      "{} {} of {} each. How many {} does the shop have now?",
      start, g.unit, per_day, days, crates, g.crate, per_crate, g.unit);
  (void)names;
  const int64_t left = start - sold, delivered = crates * per_crate;
  Step(d, "The shop sells {} * {} = {} {}.", per_day, days, sold, g.unit);
  Step(d, "That leaves {} - {} = {}.", start, sold, left);
  Step(d, "The delivery brings {} * {} = {} more.", crates, per_crate, delivered);
  d->answer = left + delivered;
  Step(d, "Now the shop has {} + {} = {} {}.", left, delivered, d->answer, g.unit);
}

// 14. Fuel for a round trip.
void Fuel(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kPlaces[] = {"the coast", "a lake", "the mountains",
                                                 "a friend's farm", "the airport"};
  const std::string n = names->NextGivenName();
  static constexpr int64_t kEconomy[] = {8, 10, 12, 15, 16, 20};
  const int64_t per_liter = Pick(kEconomy, rng);
  const int64_t one_way = per_liter * RandomInt(rng, 3, 20);
  const int64_t price = RandomInt(rng, 1, 3);
  d->question = fmt::format(
      "{}'s car can go {} kilometers on one liter of fuel. {} drives {} kilometers to {} and "
      "back home the same way. Fuel costs ${} per liter. How many dollars does the fuel for "
      "the trip cost?",
      n, per_liter, n, one_way, Pick(kPlaces, rng), price);
  const int64_t total = one_way * 2, liters = total / per_liter;
  Step(d, "The round trip is {} * 2 = {} kilometers.", one_way, total);
  Step(d, "The car needs {} / {} = {} liters of fuel.", total, per_liter, liters);
  d->answer = liters * price;
  Step(d, "The fuel costs {} * {} = ${}.", liters, price, d->answer);
}

// 15. Three collectors, then a percentage given away.
void Collectors(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kThings[] = {"shells", "stamps", "pine cones", "coins",
                                                 "postcards"};
  const std::string_view t = Pick(kThings, rng);
  const std::string a = names->NextGivenName(), b = names->NextGivenName(),
                    c = names->NextGivenName();
  int64_t na, k, m, nb, nc, total, pct;
  do {
    na = RandomInt(rng, 4, 30);
    k = RandomInt(rng, 2, 4);
    nb = na * k;
    m = RandomInt(rng, 1, nb - 1);
    nc = nb - m;
    total = na + nb + nc;
    pct = 5 * RandomInt(rng, 2, 12);
  } while (total * pct % 100 != 0);
  d->question = fmt::format(
      "{} has {} {}. {} has {} times as many as {}, and {} has {} fewer than {}. They give "
      "{}% of all their {} to a school. How many {} do they keep?",
      a, na, t, b, k, a, c, m, b, pct, t, t);
  const int64_t given = total * pct / 100;
  Step(d, "{} has {} * {} = {} {}.", b, na, k, nb, t);
  Step(d, "{} has {} - {} = {} {}.", c, nb, m, nc, t);
  Step(d, "Together they have {} + {} + {} = {} {}.", na, nb, nc, total, t);
  Step(d, "They give away {} * {} / 100 = {} {}.", total, pct, given, t);
  d->answer = total - given;
  Step(d, "They keep {} - {} = {} {}.", total, given, d->answer, t);
}

// 16. Practice minutes to hours.
void Practice(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kInstruments[] = {"piano", "guitar", "flute", "drums",
                                                      "cello"};
  const std::string n = names->NextGivenName();
  int64_t days, minutes, weekend;
  do {
    days = RandomInt(rng, 3, 5);
    minutes = 5 * RandomInt(rng, 4, 18);
    weekend = 5 * RandomInt(rng, 6, 24);
  } while ((days * minutes + 2 * weekend) % 60 != 0);
  d->question = fmt::format(
      "{} practices the {} for {} minutes on each of {} weekdays and for {} minutes on both "
      "Saturday and Sunday. How many hours does {} practice in a week?",
      n, Pick(kInstruments, rng), minutes, days, weekend, n);
  const int64_t a = days * minutes, b = 2 * weekend, total = a + b;
  Step(d, "On weekdays {} practices {} * {} = {} minutes.", n, days, minutes, a);
  Step(d, "On the weekend it is 2 * {} = {} minutes.", weekend, b);
  Step(d, "The week adds up to {} + {} = {} minutes.", a, b, total);
  d->answer = total / 60;
  Step(d, "An hour has 60 minutes, so that is {} / 60 = {} hours.", total, d->answer);
}

// 17. Buying crates of fruit, some spoiled, selling the rest.
void Profit(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr std::string_view kFruit[] = {"oranges", "mangoes", "pears", "peaches",
                                                "lemons"};
  const std::string_view f = Pick(kFruit, rng);
  const std::string n = names->NextGivenName();
  const int64_t crates = RandomInt(rng, 2, 8), cost = RandomInt(rng, 10, 40),
                per = RandomInt(rng, 12, 40);
  const int64_t fruit = crates * per;
  const int64_t spoiled = RandomInt(rng, 1, fruit / 5);
  const int64_t good = fruit - spoiled;
  const int64_t paid = crates * cost;
  const int64_t price = paid / good + RandomInt(rng, 1, 3);  // revenue beats the cost
  d->question = fmt::format(
      "{} buys {} crates of {} for ${} per crate. Each crate holds {} {}, but {} of them are "
      "spoiled. {} sells the rest for ${} each. How much profit does {} make, in dollars?",
      n, crates, f, cost, per, f, spoiled, n, price, n);
  const int64_t revenue = good * price;
  Step(d, "The crates cost {} * {} = ${}.", crates, cost, paid);
  Step(d, "There are {} * {} = {} {}.", crates, per, fruit, f);
  Step(d, "Without the spoiled ones, {} - {} = {} can be sold.", fruit, spoiled, good);
  Step(d, "Selling them brings {} * {} = ${}.", good, price, revenue);
  d->answer = revenue - paid;
  Step(d, "The profit is {} - {} = ${}.", revenue, paid, d->answer);
}

// 18. A fenced and seeded garden.
void Garden(Rng* rng, NameDrawer* names, Draft* d) {
  const std::string n = names->NextGivenName();
  const int64_t len = RandomInt(rng, 5, 30), wid = RandomInt(rng, 3, 20);
  const int64_t fence = RandomInt(rng, 2, 9), seed = RandomInt(rng, 1, 4);
  d->question = fmt::format(
      "{} has a rectangular garden {} meters long and {} meters wide. Fencing costs ${} per "
      "meter and grass seed costs ${} per square meter. How many dollars will it cost to "
      "fence the whole garden and seed all of it?",
      n, len, wid, fence, seed);
  const int64_t half = len + wid, perimeter = half * 2, fence_cost = perimeter * fence,
                area = len * wid, seed_cost = area * seed;
  Step(d, "One length and one width make {} + {} = {} meters.", len, wid, half);
  Step(d, "The fence goes all around: {} * 2 = {} meters.", half, perimeter);
  Step(d, "Fencing costs {} * {} = ${}.", perimeter, fence, fence_cost);
  Step(d, "The area is {} * {} = {} square meters.", len, wid, area);
  Step(d, "Seed costs {} * {} = ${}.", area, seed, seed_cost);
  d->answer = fence_cost + seed_cost;
  Step(d, "Together that is {} + {} = ${}.", fence_cost, seed_cost, d->answer);
}

// 19. Pages read over three days.
void Book(Rng* rng, NameDrawer* names, Draft* d) {
  const std::string n = names->NextGivenName();
  const int64_t day1 = RandomInt(rng, 8, 40), more = RandomInt(rng, 2, 15);
  const int64_t day2 = day1 * 2, day3 = day2 + more, read = day1 + day2 + day3;
  const int64_t pages = read + RandomInt(rng, 10, 200);
  d->question = fmt::format(
      "A book has {} pages. {} reads {} pages on Monday, twice as many on Tuesday, and {} "
      "more pages on Wednesday than on Tuesday. How many pages are left to read?",
      pages, n, day1, more);
  Step(d, "On Tuesday {} reads {} * 2 = {} pages.", n, day1, day2);
  Step(d, "On Wednesday {} reads {} + {} = {} pages.", n, day2, more, day3);
  Step(d, "In three days {} reads {} + {} + {} = {} pages.", n, day1, day2, day3, read);
  d->answer = pages - read;
  Step(d, "There are {} - {} = {} pages left.", pages, read, d->answer);
}

// 20. A bake sale: single sales, boxed sales, costs.
void BakeSale(Rng* rng, NameDrawer* names, Draft* d) {
  const std::string n = names->NextGivenName();
  int64_t batches, per, single, box, rest;
  do {
    batches = RandomInt(rng, 2, 6);
    per = RandomInt(rng, 12, 30);
    single = RandomInt(rng, 5, batches * per / 2);
    static constexpr int64_t kBoxes[] = {4, 6, 8};
    box = Pick(kBoxes, rng);
    rest = batches * per - single;
  } while (rest % box != 0);
  const int64_t price = RandomInt(rng, 1, 3), box_price = price * box - RandomInt(rng, 0, box / 2);
  const int64_t income_total = single * price + rest / box * box_price;
  const int64_t cost = RandomInt(rng, std::max<int64_t>(1, income_total / 5), income_total - 1);
  d->question = fmt::format(
      "For a bake sale {} makes {} batches of {} muffins. {} sells {} muffins for ${} each and "
      "packs the rest in boxes of {}, which sell for ${} a box. The ingredients cost ${}. How "
      "much money does the bake sale make after paying for the ingredients?",
      n, batches, per, n, single, price, box, box_price, cost);
  const int64_t made = batches * per, boxes = rest / box, a = single * price,
                b = boxes * box_price, income = a + b;
  Step(d, "{} makes {} * {} = {} muffins.", n, batches, per, made);
  Step(d, "After the single sales, {} - {} = {} muffins are left.", made, single, rest);
  Step(d, "They fill {} / {} = {} boxes.", rest, box, boxes);
  Step(d, "Single muffins bring in {} * {} = ${}.", single, price, a);
  Step(d, "The boxes bring in {} * {} = ${}.", boxes, box_price, b);
  Step(d, "The sale takes {} + {} = ${}.", a, b, income);
  d->answer = income - cost;
  Step(d, "After the ingredients the sale makes {} - {} = ${}.", income, cost, d->answer);
}

// 21. A monthly budget and savings.
void Budget(Rng* rng, NameDrawer* names, Draft* d) {
  const std::string n = names->NextGivenName();
  int64_t salary, pct, food, bills, left;
  do {
    salary = 100 * RandomInt(rng, 15, 60);
    pct = 5 * RandomInt(rng, 4, 8);
    food = 10 * RandomInt(rng, 20, 60);
    bills = 10 * RandomInt(rng, 10, 40);
    left = salary - salary * pct / 100 - food - bills;
  } while (left <= 0 || left % 2 != 0);
  const int64_t months = RandomInt(rng, 2, 12);
  d->question = fmt::format(
      "{} earns ${} a month. Each month {} spends {}% of it on rent, ${} on food and ${} on "
      "bills, and saves half of what is left. How many dollars does {} save in {} months?",
      n, salary, n, pct, food, bills, n, months);
  const int64_t rent = salary * pct / 100, spent = rent + food + bills, saved = left / 2;
  Step(d, "Rent is {} * {} / 100 = ${}.", salary, pct, rent);
  Step(d, "Rent, food and bills come to {} + {} + {} = ${}.", rent, food, bills, spent);
  Step(d, "That leaves {} - {} = ${} each month.", salary, spent, left);
  Step(d, "{} saves {} / 2 = ${} a month.", n, left, saved);
  d->answer = saved * months;
  Step(d, "In {} months {} saves {} * {} = ${}.", months, n, saved, months, d->answer);
}

// 22. A school trip: teachers, buses and tickets.
void SchoolTrip(Rng* rng, NameDrawer* names, Draft* d) {
  static constexpr int64_t kRatios[] = {8, 9, 10, 11, 12, 14, 15};
  static constexpr int64_t kCapacities[] = {50, 45, 44, 40, 36, 33, 30, 26, 25, 24, 20};
  int64_t ratio, teachers, students, people, cap = 0;
  do {
    ratio = Pick(kRatios, rng);
    teachers = RandomInt(rng, 3, 12);
    students = teachers * ratio;
    people = students + teachers;
    for (int64_t c : kCapacities) {
      if (people % c == 0 && people / c >= 2) {
        cap = c;
        break;
      }
    }
  } while (cap == 0);
  const int64_t g4 = RandomInt(rng, students / 4, students - students / 4), g5 = students - g4;
  const int64_t bus = 10 * RandomInt(rng, 8, 30), ticket = RandomInt(rng, 3, 12);
  d->question = fmt::format(
      "A school takes {} fourth graders and {} fifth graders to a museum, with one teacher "
      "for every {} students. Everyone travels in buses that hold {} people each. Each bus "
      "costs ${} and each museum ticket costs ${} per person. What is the total cost of the "
      "trip, in dollars?",
      g4, g5, ratio, cap, bus, ticket);
  (void)names;
  const int64_t buses = people / cap, bus_cost = buses * bus, ticket_cost = people * ticket;
  Step(d, "There are {} + {} = {} students.", g4, g5, students);
  Step(d, "They need {} / {} = {} teachers.", students, ratio, teachers);
  Step(d, "In all {} + {} = {} people go.", students, teachers, people);
  Step(d, "They fill {} / {} = {} buses.", people, cap, buses);
  Step(d, "The buses cost {} * {} = ${}.", buses, bus, bus_cost);
  Step(d, "The tickets cost {} * {} = ${}.", people, ticket, ticket_cost);
  d->answer = bus_cost + ticket_cost;
  Step(d, "The trip costs {} + {} = ${}.", bus_cost, ticket_cost, d->answer);
}

constexpr Template kTemplates[] = {
    Shopping, WeeklyRoutine, Sharing,  Discount, Ages,   Laps,    Wages,  Savings,
    Club,     Trip,          Harvest,  Tickets,  Stock,  Fuel,    Collectors, Practice,
    Profit,   Garden,        Book,     BakeSale, Budget, SchoolTrip,
};

// A train problem whose template named no one and no place is set in a town of the
// train split's ("In Dornford, a shop has ..."), so that it too holds a word no eval
// problem has (sources/split.h).
void PlaceTrainProblem(SourceSplit split, NameDrawer* names, Draft* draft) {
  if (split == SourceSplit::kEval || names->drawn() || draft->question.empty()) return;
  std::string question = draft->question;
  question[0] = AsciiLower(question[0]);
  draft->question = "In " + names->NextPlace() + ", " + question;
}

MathProblem Finish(size_t index, SourceSplit split, Draft draft) {
  assert(draft.answer >= 0 && "a template produced a negative answer");
  assert(draft.steps.size() >= kMinMathSteps && draft.steps.size() <= kMaxMathSteps);
  MathProblem p;
  p.id = SourceItemId("math", index, split);
  p.question = std::move(draft.question);
  p.answer = std::to_string(draft.answer);
  p.steps = std::move(draft.steps);
  for (const std::string& s : p.steps) p.solution += s + "\n";
  p.solution += "#### " + p.answer;
  return p;
}

}  // namespace

MathProblem GenerateMathProblemFromTemplate(uint64_t seed, size_t index,
                                            size_t template_index, SourceSplit split) {
  assert(template_index < std::size(kTemplates));
  Rng rng = SourceRng(seed, split).Fork(fmt::format("math/{}/{}", template_index, index));
  NameDrawer names(&rng, split);
  Draft draft;
  kTemplates[template_index](&rng, &names, &draft);
  PlaceTrainProblem(split, &names, &draft);
  return Finish(index, split, std::move(draft));
}

MathProblem GenerateMathProblem(uint64_t seed, size_t index, SourceSplit split) {
  Rng rng = SourceRng(seed, split).Fork(fmt::format("math/{}", index));
  const size_t t =
      static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(std::size(kTemplates)) - 1));
  NameDrawer names(&rng, split);
  Draft draft;
  kTemplates[t](&rng, &names, &draft);
  PlaceTrainProblem(split, &names, &draft);
  return Finish(index, split, std::move(draft));
}

std::vector<MathProblem> GenerateMathProblems(uint64_t seed, size_t count) {
  std::vector<MathProblem> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) out.push_back(GenerateMathProblem(seed, i));
  return out;
}

size_t MathTemplateCount() { return std::size(kTemplates); }

}  // namespace structtest
