// The red team's math families (testing/red_team.h). Every generated math answer states
// its work as arithmetic statements ("Imani makes 6 * 21 = 126 muffins."); a cheat keeps
// the answer's words, step markers and final answer line and changes the statements so
// that the work is not this problem's: results that do not hold, numbers that are not the
// problem's, work that does not lead to the answer, the last step left out. The twins
// change the same statements in ways a careful grader accepts (other operator symbols,
// thousands separators, currency signs, the result restated on a line of its own).
// Helpers live in the named namespace red_team_math: the testing library is a unity
// build, and the four domain files must not share a name.
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "testing/red_team.h"

namespace structtest::testing {
namespace red_team_math {

bool Digit(char c) { return c >= '0' && c <= '9'; }

// A statement of the answer: "6 * 21 = 126", "$16 * 3 / 2 = $24", "3 + 6 + 3 = 12",
// at [begin, end) of the text; its operands, operators and result as written.
struct Statement {
  size_t begin = 0, end = 0;
  std::vector<int64_t> operands;
  std::vector<char> ops;  // between the operands
  int64_t result = 0;
  bool money = false;     // written with '$'
};

// Reads a whole number at t[*i] (an optional '$' before it); false if none.
bool ReadInt(std::string_view t, size_t* i, int64_t* value, bool* money) {
  size_t k = *i;
  if (k < t.size() && t[k] == '$') {
    *money = true;
    ++k;
  }
  if (k >= t.size() || !Digit(t[k])) return false;
  int64_t v = 0;
  size_t digits = 0;
  while (k < t.size() && Digit(t[k])) {
    if (++digits > 12) return false;
    v = v * 10 + (t[k++] - '0');
  }
  if (k < t.size() && t[k] == '.' && k + 1 < t.size() && Digit(t[k + 1])) return false;
  *i = k;
  *value = v;
  return true;
}

void SkipSpaces(std::string_view t, size_t* i) {
  while (*i < t.size() && t[*i] == ' ') ++*i;
}

std::vector<Statement> FindStatements(std::string_view t) {
  std::vector<Statement> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!(Digit(t[i]) || t[i] == '$') || (i > 0 && (Digit(t[i - 1]) || t[i - 1] == '.'))) continue;
    Statement s;
    size_t k = i;
    int64_t v;
    if (!ReadInt(t, &k, &v, &s.money)) continue;
    s.operands.push_back(v);
    while (true) {
      size_t m = k;
      SkipSpaces(t, &m);
      if (m >= t.size() || (t[m] != '+' && t[m] != '-' && t[m] != '*' && t[m] != '/')) break;
      const char op = t[m++];
      SkipSpaces(t, &m);
      if (!ReadInt(t, &m, &v, &s.money)) break;
      s.ops.push_back(op);
      s.operands.push_back(v);
      k = m;
    }
    size_t m = k;
    SkipSpaces(t, &m);
    if (s.ops.empty() || m >= t.size() || t[m] != '=') continue;
    ++m;
    SkipSpaces(t, &m);
    if (!ReadInt(t, &m, &s.result, &s.money)) continue;
    s.begin = i;
    s.end = m;
    out.push_back(s);
    i = m;
  }
  return out;
}

// The value of operands and operators, '*' and '/' first; nullopt unless it is a whole
// number.
std::optional<int64_t> Evaluate(const std::vector<int64_t>& operands, const std::vector<char>& ops) {
  // terms of products and quotients, left to right, as exact fractions
  int64_t sum_n = 0, sum_d = 1;
  int64_t term_n = operands[0], term_d = 1;
  char sign = '+';
  auto gcd = [](int64_t a, int64_t b) {
    a = a < 0 ? -a : a;
    while (b != 0) {
      const int64_t t = a % b;
      a = b;
      b = t;
    }
    return a == 0 ? 1 : a;
  };
  auto flush = [&]() {
    const int64_t n = sign == '+' ? term_n : -term_n;
    sum_n = sum_n * term_d + n * sum_d;
    sum_d *= term_d;
    const int64_t g = gcd(sum_n, sum_d);
    sum_n /= g;
    sum_d /= g;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t v = operands[i + 1];
    if (ops[i] == '*') {
      term_n *= v;
    } else if (ops[i] == '/') {
      if (v == 0) return std::nullopt;
      term_d *= v;
    } else {
      flush();
      sign = ops[i];
      term_n = v;
      term_d = 1;
    }
    const int64_t g = gcd(term_n, term_d);
    term_n /= g;
    term_d /= g;
    if (term_n > (int64_t{1} << 40) || term_d > (int64_t{1} << 40)) return std::nullopt;
  }
  flush();
  if (sum_d != 1) return std::nullopt;
  return sum_n;
}

std::string Money(bool money, int64_t v) { return fmt::format("{}{}", money ? "$" : "", v); }

std::string Render(const Statement& s, const std::vector<int64_t>& operands, int64_t result,
                   std::string_view times = "*", std::string_view divide = "/") {
  std::string out = Money(s.money, operands[0]);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const std::string_view op = s.ops[i] == '*'   ? times
                                : s.ops[i] == '/' ? divide
                                                  : std::string_view(&s.ops[i], 1);
    out += fmt::format(" {} {}", op, Money(s.money, operands[i + 1]));
  }
  return out + " = " + Money(s.money, result);
}

// The answer with statement k replaced by replace(k).
template <typename F>
std::string Rewrite(std::string_view answer, const std::vector<Statement>& statements, F&& replace) {
  std::string out;
  size_t at = 0;
  for (size_t k = 0; k < statements.size(); ++k) {
    out.append(answer.substr(at, statements[k].begin - at));
    out += replace(k);
    at = statements[k].end;
  }
  out.append(answer.substr(at));
  return out;
}

struct Parsed {
  std::string answer;
  std::vector<Statement> statements;
  int64_t gold = 0;
};

std::optional<Parsed> Parse(const Sample& sample) {
  std::optional<std::string> answer = ReferenceAnswer(sample);
  if (!answer || !sample.context.contains("gold_answer")) return std::nullopt;
  Parsed p;
  p.answer = *std::move(answer);
  const std::string gold = sample.context["gold_answer"].get<std::string>();
  size_t i = 0;
  bool money = false;
  if (!ReadInt(gold, &i, &p.gold, &money) || i != gold.size()) return std::nullopt;
  // The statements of the work: those before the final answer's line.
  const size_t last_line = p.answer.rfind('\n');
  if (last_line == std::string::npos) return std::nullopt;
  p.statements = FindStatements(std::string_view(p.answer).substr(0, last_line));
  if (p.statements.size() < 2) return std::nullopt;
  return p;
}

// Twins: the same work, written another way a grader accepts. The kind is drawn.
std::string Twin(const Parsed& p, uint64_t seed) {
  Rng rng(seed);
  switch (rng.UniformInt(0, 2)) {
    case 0:  // other operator symbols
      return Rewrite(p.answer, p.statements, [&](size_t k) {
        const Statement& s = p.statements[k];
        return Render(s, s.operands, s.result, "\u00D7", "\u00F7");
      });
    case 1:  // currency signs and thousands separators
      return Rewrite(p.answer, p.statements, [&](size_t k) {
        const Statement& s = p.statements[k];
        std::string text = Render(s, s.operands, s.result, "x");
        if (s.result >= 1000) {
          const std::string plain = std::to_string(s.result);
          const std::string grouped =
              plain.substr(0, plain.size() - 3) + "," + plain.substr(plain.size() - 3);
          text = text.substr(0, text.rfind(plain)) + grouped;
        }
        return text;
      });
    default:  // running computations: "a * b = c" becomes "a * b = c, so c = c"
      return Rewrite(p.answer, p.statements, [&](size_t k) {
        const Statement& s = p.statements[k];
        return Render(s, s.operands, s.result) +
               fmt::format(", and {} = {}", Money(s.money, s.result), Money(s.money, s.result));
      });
  }
}

// Cheat: every stated result moved off by a little; the final answer line kept.
std::optional<RedTeamPair> ResultsThatDoNotHold(const Sample& sample, uint64_t seed) {
  if (sample.domain != "math") return std::nullopt;
  auto p = Parse(sample);
  if (!p) return std::nullopt;
  Rng rng(seed);
  RedTeamPair pair;
  pair.cheat = Rewrite(p->answer, p->statements, [&](size_t k) {
    const Statement& s = p->statements[k];
    const int64_t off = rng.UniformInt(1, 9) * (rng.Bernoulli(0.5) ? 1 : -1);
    return Render(s, s.operands, s.result + off == s.result ? s.result + 1 : s.result + off);
  });
  pair.twin = Twin(*p, seed);
  return pair;
}

// Cheat: the problem's numbers replaced by others, every result computed again so that
// each statement holds; the final answer line kept.
std::optional<RedTeamPair> WorkWithOtherNumbers(const Sample& sample, uint64_t seed) {
  if (sample.domain != "math") return std::nullopt;
  auto p = Parse(sample);
  if (!p) return std::nullopt;
  Rng rng(seed);
  std::vector<std::pair<int64_t, int64_t>> renamed;  // old value -> new value
  auto lookup = [&](int64_t v) -> int64_t {
    for (const auto& [from, to] : renamed) {
      if (from == v) return to;
    }
    int64_t to = v + rng.UniformInt(3, 17);
    renamed.emplace_back(v, to);
    return to;
  };
  std::vector<std::string> texts;
  for (const Statement& s : p->statements) {
    std::vector<int64_t> operands;
    for (int64_t v : s.operands) operands.push_back(lookup(v));
    auto value = Evaluate(operands, s.ops);
    if (!value || *value < 0) return std::nullopt;
    // a later use of this result reads the new one
    bool seen = false;
    for (auto& [from, to] : renamed) {
      if (from == s.result) {
        to = *value;
        seen = true;
      }
    }
    if (!seen) renamed.emplace_back(s.result, *value);
    if (*value == p->gold) return std::nullopt;
    texts.push_back(Render(s, operands, *value));
  }
  RedTeamPair pair;
  pair.cheat = Rewrite(p->answer, p->statements, [&](size_t k) { return texts[k]; });
  pair.twin = Twin(*p, seed + 1);
  return pair;
}

// Cheat: statements on the problem's numbers that hold but compute something else, in
// place of the real ones; none of them gives the answer.
std::optional<RedTeamPair> WorkBesideThePoint(const Sample& sample, uint64_t seed) {
  if (sample.domain != "math") return std::nullopt;
  auto p = Parse(sample);
  if (!p) return std::nullopt;
  std::vector<int64_t> numbers;  // the problem's, as the first statement uses them
  for (const Statement& s : p->statements) {
    for (int64_t v : s.operands) numbers.push_back(v);
  }
  Rng rng(seed);
  std::vector<std::string> texts;
  for (const Statement& s : p->statements) {
    const int64_t a = numbers[static_cast<size_t>(rng.UniformInt(0, numbers.size() - 1))];
    const int64_t b = numbers[static_cast<size_t>(rng.UniformInt(0, numbers.size() - 1))];
    const bool add = rng.Bernoulli(0.5);
    const int64_t r = add ? a + b : a * b;
    if (r == p->gold) return std::nullopt;
    Statement shown = s;
    shown.ops = {add ? '+' : '*'};
    texts.push_back(Render(shown, {a, b}, r));
  }
  RedTeamPair pair;
  pair.cheat = Rewrite(p->answer, p->statements, [&](size_t k) { return texts[k]; });
  pair.twin = Twin(*p, seed + 2);
  return pair;
}

// Cheat: the work stops one step short; the last computation is said in words and the
// answer appears only on the answer line.
std::optional<RedTeamPair> LastStepLeftOut(const Sample& sample, uint64_t seed) {
  if (sample.domain != "math") return std::nullopt;
  auto p = Parse(sample);
  if (!p || p->statements.back().result != p->gold) return std::nullopt;
  for (size_t k = 0; k + 1 < p->statements.size(); ++k) {
    if (p->statements[k].result == p->gold) return std::nullopt;
  }
  RedTeamPair pair;
  pair.cheat = Rewrite(p->answer, p->statements, [&](size_t k) {
    const Statement& s = p->statements[k];
    if (k + 1 < p->statements.size()) return Render(s, s.operands, s.result);
    return std::string("what the earlier steps give");
  });
  pair.twin = Twin(*p, seed + 3);
  return pair;
}

// Cheat: another problem's statements (those of a sample drawn from the same suite are
// not at hand, so the statements of this answer read in reverse, each one's numbers
// those of another statement): the look of work, on numbers and results that do not
// chain into this answer.
std::optional<RedTeamPair> StatementsShuffled(const Sample& sample, uint64_t seed) {
  if (sample.domain != "math") return std::nullopt;
  auto p = Parse(sample);
  if (!p || p->statements.size() < 3) return std::nullopt;
  const size_t n = p->statements.size();
  std::vector<std::string> texts;
  Rng rng(seed);
  for (size_t k = 0; k < n; ++k) {
    // statement k gets the operands of statement n-1-k, shifted, and their true value
    const Statement& from = p->statements[n - 1 - k];
    std::vector<int64_t> operands;
    for (int64_t v : from.operands) operands.push_back(v + 2 * rng.UniformInt(5, 25));
    auto value = Evaluate(operands, from.ops);
    if (!value || *value < 0 || *value == p->gold) return std::nullopt;
    Statement shown = p->statements[k];
    shown.ops = from.ops;
    texts.push_back(Render(shown, operands, *value));
  }
  RedTeamPair pair;
  pair.cheat = Rewrite(p->answer, p->statements, [&](size_t k) { return texts[k]; });
  pair.twin = Twin(*p, seed + 4);
  return pair;
}

}  // namespace red_team_math

std::vector<CheatFamily> MathCheatFamilies() {
  using namespace red_team_math;  // NOLINT: this file's own helpers
  return {
      {"math", "math/results-that-do-not-hold",
       "every statement's result moved off by 1-9, the final answer line kept",
       "the same work with other operator symbols, separators, or results restated",
       &ResultsThatDoNotHold},
      {"math", "math/work-with-other-numbers",
       "the problem's numbers replaced by others and every result recomputed, so each "
       "statement holds; the final answer line kept",
       "the same work written another way", &WorkWithOtherNumbers},
      {"math", "math/work-beside-the-point",
       "statements that hold on the problem's numbers but never compute the answer",
       "the same work written another way", &WorkBesideThePoint},
      {"math", "math/last-step-left-out",
       "the last computation replaced by words; the answer appears only on its line",
       "the same work written another way", &LastStepLeftOut},
      {"math", "math/statements-from-elsewhere",
       "each statement replaced by another statement's operations on other numbers, "
       "holding, chaining into nothing",
       "the same work written another way", &StatementsShuffled},
  };
}

}  // namespace structtest::testing
