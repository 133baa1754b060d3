#include "sources/program_generator.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "core/rng.h"
#include "sandbox/python_pool.h"
#include "sources/vocabulary.h"

namespace structtest {

namespace {

using Vars = std::vector<std::pair<std::string, std::string>>;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Replaces every $name in `tmpl` by its value in `vars`. REQUIRES: every name is set.
std::string Fill(std::string_view tmpl, const Vars& vars) {
  std::string out;
  out.reserve(tmpl.size() + 64);
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl[i] != '$') {
      out += tmpl[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < tmpl.size() && IsNameChar(tmpl[j])) ++j;
    const std::string_view key = tmpl.substr(i + 1, j - i - 1);
    bool found = false;
    for (const auto& [k, v] : vars) {
      if (k == key) {
        out += v;
        found = true;
        break;
      }
    }
    assert(found && "program template: unset variable");
    (void)found;
    i = j;
  }
  return out;
}

const std::vector<std::string> kWords = {
    "apple",  "river", "stone",  "level", "cloud",  "tiger",  "noon",   "paper",
    "green",  "radar", "light",  "ocean", "piano",  "civic",  "maple",  "zebra",
    "delta",  "orbit", "lemon",  "kayak", "amber",  "quiet",  "north",  "flame",
    "garden", "ivory", "jungle", "robot", "silver", "window", "anna",   "eve"};

// Picks names for roles so that no two roles of one program share a name.
class Namer {
 public:
  explicit Namer(Rng* rng) : rng_(rng) {}
  std::string Pick(const std::vector<std::string>& choices) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      const std::string& c = rng_->Pick(choices);
      if (std::find(used_.begin(), used_.end(), c) == used_.end()) {
        used_.push_back(c);
        return c;
      }
    }
    std::string c = choices.front() + "_" + std::to_string(used_.size());
    used_.push_back(c);
    return c;
  }

 private:
  Rng* rng_;
  std::vector<std::string> used_;
};

std::string IntText(Rng* rng, int64_t lo, int64_t hi) { return std::to_string(rng->UniformInt(lo, hi)); }

std::string IntList(Rng* rng, int min_len, int max_len, int64_t lo, int64_t hi,
                    bool sorted = false) {
  std::vector<int64_t> v(static_cast<size_t>(rng->UniformInt(min_len, max_len)));
  for (auto& x : v) x = rng->UniformInt(lo, hi);
  if (sorted) std::sort(v.begin(), v.end());
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string Quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

std::string RandomSentence(Rng* rng, int min_words, int max_words) {
  const int n = static_cast<int>(rng->UniformInt(min_words, max_words));
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + rng->Pick(kWords);
  return s;
}

// ---- Easy: function templates ---------------------------------------------------------

struct FunctionTemplate {
  std::vector<std::string> fn_names;
  std::string_view code;
  // Names for the roles ($-variables other than $f), the constants, and one input.
  void (*vars)(Namer* namer, Rng* rng, Vars* vars);
  std::string (*input)(Rng* rng, const Vars& vars);
};

const std::vector<std::string> kListNames = {"items", "values", "nums", "data", "arr", "seq"};
const std::vector<std::string> kCountNames = {"count", "total", "hits", "tally", "acc"};
const std::vector<std::string> kLoopNames = {"x", "v", "item", "elem", "num"};
const std::vector<std::string> kIndexNames = {"i", "idx", "k", "pos"};
const std::vector<std::string> kTextNames = {"text", "s", "word", "phrase", "line"};
const std::vector<std::string> kResultNames = {"result", "out", "res", "answer", "built"};
const std::vector<std::string> kCharNames = {"ch", "c", "letter", "char"};

// Where one expression draws twice (an input "A, B"), the draws are written out in
// statements of their own, B first: C++ leaves the order of the operands of + (and of a
// call's arguments) unspecified, GCC drew the right-hand one first, and the test sets a
// seed has named since are GCC's. Written out, every compiler draws the same.
const FunctionTemplate kFunctionTemplates[] = {
    {{"count_above", "count_greater", "tally_over", "num_above"},
     R"PY(def $f($items, $limit):
    $count = 0
    for $x in $items:
        if $x > $limit:
            $count = $count + $step
    return $count)PY",
     [](Namer* n, Rng* r, Vars* v) {
       *v = {{"items", n->Pick(kListNames)}, {"limit", n->Pick({"limit", "bound", "cut", "t"})},
             {"count", n->Pick(kCountNames)}, {"x", n->Pick(kLoopNames)},
             {"step", IntText(r, 1, 3)}};
     },
     [](Rng* r, const Vars&) {
       const std::string step = IntText(r, -5, 25);  // drawn first: see kFunctionTemplates
       return IntList(r, 0, 8, -20, 40) + ", " + step;
     }},
    {{"running_totals", "prefix_scaled", "cumulative", "scan_sums"},
     R"PY(def $f($nums, $factor):
    $total = 0
    $out = []
    for $i in range(len($nums)):
        $total = $total + $nums[$i] * $factor
        $out.append($total)
    return $out)PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"nums", n->Pick(kListNames)}, {"factor", n->Pick({"factor", "scale", "mult", "w"})},
             {"total", n->Pick(kCountNames)}, {"out", n->Pick(kResultNames)},
             {"i", n->Pick(kIndexNames)}};
     },
     [](Rng* r, const Vars&) {
       const std::string factor = IntText(r, -3, 5);  // drawn first
       return IntList(r, 0, 7, -9, 30) + ", " + factor;
     }},
    {{"digit_squares", "digit_power_sum", "sum_digit_squares"},
     R"PY(def $f($n):
    $acc = 0
    $m = abs($n)
    while $m > 0:
        $d = $m % $base
        $acc = $acc + $d * $d
        $m = $m // $base
    return $acc)PY",
     [](Namer* n, Rng* r, Vars* v) {
       *v = {{"n", n->Pick({"n", "number", "value", "num"})}, {"acc", n->Pick(kCountNames)},
             {"m", n->Pick({"m", "rest", "left", "q"})}, {"d", n->Pick({"d", "digit", "low"})},
             {"base", IntText(r, 2, 10)}};
     },
     [](Rng* r, const Vars&) { return IntText(r, -5000, 200000); }},
    {{"shuffle_vowels", "mirror_consonants", "vowel_twist"},
     R"PY(def $f($text):
    $result = ""
    for $ch in $text:
        if $ch in "$letters":
            $result = $result + $ch.upper()
        else:
            $result = $ch + $result
    return $result)PY",
     [](Namer* n, Rng* r, Vars* v) {
       static const std::vector<std::string> kSets = {"aeiou", "aei", "ou", "rstln", "aeiouy"};
       *v = {{"text", n->Pick(kTextNames)}, {"result", n->Pick(kResultNames)},
             {"ch", n->Pick(kCharNames)}, {"letters", r->Pick(kSets)}};
     },
     [](Rng* r, const Vars&) { return Quoted(RandomSentence(r, 1, 3)); }},
    {{"longest_word", "find_longest", "widest_word"},
     R"PY(def $f($sentence):
    $words = $sentence.split()
    $best = ""
    for $w in $words:
        if len($w) > len($best):
            $best = $w
    $size = len($words)
    return ($best, $size))PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"sentence", n->Pick(kTextNames)}, {"words", n->Pick({"words", "parts", "tokens"})},
             {"best", n->Pick({"best", "longest", "top"})}, {"w", n->Pick(kLoopNames)},
             {"size", n->Pick({"size", "n_words", "length"})}};
     },
     [](Rng* r, const Vars&) { return Quoted(RandomSentence(r, 1, 6)); }},
    {{"lcm", "least_multiple", "common_multiple"},
     R"PY(def $f($a, $b):
    $x = $a
    $y = $b
    while $y:
        $x, $y = $y, $x % $y
    $result = $a * $b // $x
    return $result)PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"a", n->Pick({"a", "p", "first"})}, {"b", n->Pick({"b", "q", "second"})},
             {"x", n->Pick({"x", "u", "g"})}, {"y", n->Pick({"y", "w", "h"})},
             {"result", n->Pick(kResultNames)}};
     },
     [](Rng* r, const Vars&) {
       const std::string b = IntText(r, 1, 300);  // drawn first
       return IntText(r, 1, 300) + ", " + b;
     }},
    {{"most_common", "mode_of", "top_item"},
     R"PY(def $f($items):
    $counts = {}
    for $it in $items:
        $counts[$it] = $counts.get($it, 0) + 1
    $best = None
    $best_n = 0
    for $key in sorted($counts):
        if $counts[$key] > $best_n:
            $best = $key
            $best_n = $counts[$key]
    return $best)PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"items", n->Pick(kListNames)}, {"counts", n->Pick({"counts", "freq", "seen"})},
             {"it", n->Pick(kLoopNames)}, {"best", n->Pick({"best", "winner", "top"})},
             {"best_n", n->Pick({"best_n", "most", "max_count"})},
             {"key", n->Pick({"key", "k", "cand"})}};
     },
     [](Rng* r, const Vars&) { return IntList(r, 1, 9, 0, 5); }},
    {{"merge_sorted", "merge_lists", "combine_sorted"},
     R"PY(def $f($a, $b):
    $merged = []
    $i = 0
    $j = 0
    while $i < len($a) and $j < len($b):
        if $a[$i] <= $b[$j]:
            $merged.append($a[$i])
            $i = $i + 1
        else:
            $merged.append($b[$j])
            $j = $j + 1
    $merged = $merged + $a[$i:] + $b[$j:]
    return $merged)PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"a", n->Pick({"a", "left", "xs"})}, {"b", n->Pick({"b", "right", "ys"})},
             {"merged", n->Pick(kResultNames)}, {"i", n->Pick({"i", "p"})},
             {"j", n->Pick({"j", "q"})}};
     },
     [](Rng* r, const Vars&) {
       const std::string b = IntList(r, 0, 5, -10, 20, true);  // drawn first
       return IntList(r, 0, 5, -10, 20, true) + ", " + b;
     }},
    {{"fizz_words", "replace_multiples", "word_every"},
     R"PY(def $f($n, $word):
    $parts = []
    for $i in range(1, $n + 1):
        if $i % $m == 0:
            $parts.append($word)
        else:
            $parts.append(str($i))
    $joined = "$sep".join($parts)
    return $joined)PY",
     [](Namer* n, Rng* r, Vars* v) {
       static const std::vector<std::string> kSeps = {",", "-", " ", "|", ""};
       *v = {{"n", n->Pick({"n", "limit", "upto"})}, {"word", n->Pick(kTextNames)},
             {"parts", n->Pick({"parts", "pieces", "bits"})}, {"i", n->Pick(kIndexNames)},
             {"joined", n->Pick(kResultNames)}, {"m", IntText(r, 2, 5)}, {"sep", r->Pick(kSeps)}};
     },
     [](Rng* r, const Vars&) {
       const std::string word = Quoted(r->Pick(kWords));  // drawn first
       return IntText(r, 0, 16) + ", " + word;
     }},
    {{"grid_diagonal", "table_trace", "diag_sum"},
     R"PY(def $f($rows, $cols):
    $grid = []
    for $r in range($rows):
        $row = []
        for $c in range($cols):
            $row.append(($r + 1) * ($c + $k))
        $grid.append($row)
    $diag = 0
    for $t in range(min($rows, $cols)):
        $diag = $diag + $grid[$t][$t]
    return $diag)PY",
     [](Namer* n, Rng* r, Vars* v) {
       *v = {{"rows", n->Pick({"rows", "height", "nr"})}, {"cols", n->Pick({"cols", "width", "nc"})},
             {"grid", n->Pick({"grid", "table", "matrix"})}, {"r", n->Pick({"r", "y"})},
             {"row", n->Pick({"row", "line", "cells"})}, {"c", n->Pick({"c", "x"})},
             {"diag", n->Pick(kCountNames)}, {"t", n->Pick({"t", "d", "z"})},
             {"k", IntText(r, 0, 4)}};
     },
     [](Rng* r, const Vars&) {
       const std::string c = IntText(r, 0, 7);  // drawn first
       return IntText(r, 0, 7) + ", " + c;
     }},
    {{"is_palindrome", "reads_same", "mirror_check"},
     R"PY(def $f($s):
    $clean = ""
    for $ch in $s.lower():
        if $ch.isalpha():
            $clean = $clean + $ch
    $rev = $clean[::-1]
    $same = $clean == $rev
    return $same)PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"s", n->Pick(kTextNames)}, {"clean", n->Pick({"clean", "letters", "kept"})},
             {"ch", n->Pick(kCharNames)}, {"rev", n->Pick({"rev", "backwards", "flipped"})},
             {"same", n->Pick({"same", "ok", "flag"})}};
     },
     [](Rng* r, const Vars&) {
       std::string w = r->Pick(kWords);
       if (r->Bernoulli(0.3)) w += " " + std::string(w.rbegin(), w.rend());
       return Quoted(w);
     }},
    {{"second_largest", "runner_up", "next_biggest"},
     R"PY(def $f($values):
    $first = None
    $second = None
    for $v in $values:
        if $first is None or $v > $first:
            $second = $first
            $first = $v
        elif $v != $first and ($second is None or $v > $second):
            $second = $v
    return $second)PY",
     [](Namer* n, Rng*, Vars* v) {
       *v = {{"values", n->Pick(kListNames)}, {"first", n->Pick({"first", "top", "high"})},
             {"second", n->Pick({"second", "runner", "next_high"})}, {"v", n->Pick(kLoopNames)}};
     },
     [](Rng* r, const Vars&) { return IntList(r, 0, 8, -30, 30); }},
};

// "" in the eval split; in the train split "_" and a word of its own, which every
// function name of a train program ends with (sources/split.h).
std::string TrainSuffix(SourceSplit split, Rng* rng) {
  if (split == SourceSplit::kEval) return "";
  return "_" + std::string(internal::PickFrom(internal::TrainNameSuffixes(), rng));
}

// ---- Hard: stdin programs -------------------------------------------------------------

// What a helper takes: the list of integers, the list of words, or the number n.
enum class Arg { kValues, kWords, kNumber, kValuesAndNumber };

struct HelperBlock {
  std::vector<std::string> fn_names;
  Arg arg;
  std::string_view code;
  std::vector<std::pair<std::string, std::vector<std::string>>> roles;  // $role -> names
  std::string_view constant;  // name of an integer constant ($k), may be empty
  int k_lo = 0, k_hi = 0;
};

const HelperBlock kHelpers[] = {
    {{"best_window", "max_subarray", "best_stretch"},
     Arg::kValues,
     R"PY(def $fn($arr):
    $best = $arr[0]
    $cur = 0
    for $v in $arr:
        $cur = max($v, $cur + $v)
        $best = max($best, $cur)
    return $best)PY",
     {{"arr", {"arr", "nums", "seq"}}, {"best", {"best", "top"}}, {"cur", {"cur", "run_sum"}},
      {"v", {"v", "x"}}}},
    {{"divisible_pairs", "count_pairs", "pair_hits"},
     Arg::kValues,
     R"PY(def $fn($arr):
    $pairs = 0
    for $i in range(len($arr)):
        for $j in range($i + 1, len($arr)):
            if ($arr[$i] + $arr[$j]) % $k == 0:
                $pairs = $pairs + 1
    return $pairs)PY",
     {{"arr", {"arr", "nums", "seq"}}, {"pairs", {"pairs", "found"}}, {"i", {"i", "a"}},
      {"j", {"j", "b"}}},
     "k", 2, 7},
    {{"distinct_sorted", "unique_values", "dedupe"},
     Arg::kValues,
     R"PY(def $fn($arr):
    $seen = []
    for $v in sorted($arr):
        if not $seen or $seen[-1] != $v:
            $seen.append($v)
    $text = " ".join(str(x) for x in $seen)
    return $text)PY",
     {{"arr", {"arr", "nums", "seq"}}, {"seen", {"seen", "kept"}}, {"v", {"v", "val"}},
      {"text", {"text", "joined"}}}},
    {{"longest_rise", "increasing_run", "climb_length"},
     Arg::kValues,
     R"PY(def $fn($arr):
    $longest = 1
    $run = 1
    for $i in range(1, len($arr)):
        if $arr[$i] > $arr[$i - 1]:
            $run = $run + 1
        else:
            $run = 1
        if $run > $longest:
            $longest = $run
    return $longest)PY",
     {{"arr", {"arr", "nums", "seq"}}, {"longest", {"longest", "best_run"}},
      {"run", {"run", "streak"}}, {"i", {"i", "pos"}}}},
    {{"word_counts", "frequency_table", "tally_words"},
     Arg::kWords,
     R"PY(def $fn($words):
    $freq = {}
    for $w in $words:
        $freq[$w] = $freq.get($w, 0) + 1
    $lines = []
    for $w in sorted($freq):
        $lines.append($w + "=" + str($freq[$w]))
    $summary = ", ".join($lines)
    return $summary)PY",
     {{"words", {"words", "tokens"}}, {"freq", {"freq", "counts"}}, {"w", {"w", "word"}},
      {"lines", {"lines", "entries"}}, {"summary", {"summary", "report"}}}},
    {{"shift_words", "caesar", "rotate_letters"},
     Arg::kWords,
     R"PY(def $fn($words):
    $shifted = []
    for $w in $words:
        $chars = []
        for $ch in $w:
            $code = (ord($ch) - ord("a") + $k) % 26
            $chars.append(chr(ord("a") + $code))
        $shifted.append("".join($chars))
    $joined = " ".join($shifted)
    return $joined)PY",
     {{"words", {"words", "tokens"}}, {"shifted", {"shifted", "moved"}}, {"w", {"w", "word"}},
      {"chars", {"chars", "letters"}}, {"ch", {"ch", "c"}}, {"code", {"code", "offset"}},
      {"joined", {"joined", "line"}}},
     "k", 1, 25},
    {{"gcd_all", "common_divisor", "overall_gcd"},
     Arg::kValues,
     R"PY(def $fn($arr):
    $g = 0
    for $v in $arr:
        $a = abs($v)
        $b = $g
        while $b:
            $a, $b = $b, $a % $b
        $g = $a
    return $g)PY",
     {{"arr", {"arr", "nums", "seq"}}, {"g", {"g", "div"}}, {"v", {"v", "x"}},
      {"a", {"a", "p"}}, {"b", {"b", "q"}}}},
    {{"table_sum", "mod_table", "grid_total"},
     Arg::kNumber,
     R"PY(def $fn($n):
    $total = 0
    for $i in range(1, $n + 1):
        $row = 0
        for $j in range(1, $n + 1):
            $row = $row + ($i * $j) % $k
        $total = $total + $row
    return $total)PY",
     {{"n", {"n", "size"}}, {"total", {"total", "acc"}}, {"i", {"i", "r"}},
      {"row", {"row", "line_sum"}}, {"j", {"j", "c"}}},
     "k", 3, 11},
    {{"vowel_counts", "count_vowels", "vowels_per_word"},
     Arg::kWords,
     R"PY(def $fn($words):
    $counts = []
    for $w in $words:
        $c = 0
        for $ch in $w:
            if $ch in "aeiou":
                $c = $c + 1
        $counts.append($c)
    return $counts)PY",
     {{"words", {"words", "tokens"}}, {"counts", {"counts", "per_word"}}, {"w", {"w", "word"}},
      {"c", {"c", "num"}}, {"ch", {"ch", "letter"}}}},
    {{"insert_position", "lower_bound", "rank_of"},
     Arg::kValuesAndNumber,
     R"PY(def $fn($arr, $target):
    $data = sorted($arr)
    $lo = 0
    $hi = len($data)
    while $lo < $hi:
        $mid = ($lo + $hi) // 2
        if $data[$mid] < $target:
            $lo = $mid + 1
        else:
            $hi = $mid
    return $lo)PY",
     {{"arr", {"arr", "nums", "seq"}}, {"target", {"target", "goal"}},
      {"data", {"data", "ordered"}}, {"lo", {"lo", "left"}}, {"hi", {"hi", "right"}},
      {"mid", {"mid", "half"}}}},
    {{"palindrome_count", "count_mirrors", "symmetric_words"},
     Arg::kWords,
     R"PY(def $fn($words):
    $found = 0
    for $w in $words:
        $rev = $w[::-1]
        if $w == $rev:
            $found = $found + 1
    return $found)PY",
     {{"words", {"words", "tokens"}}, {"found", {"found", "hits"}}, {"w", {"w", "word"}},
      {"rev", {"rev", "back"}}}},
    {{"collatz_steps", "hailstone", "steps_to_one"},
     Arg::kNumber,
     R"PY(def $fn($n):
    $steps = 0
    $cur = $n
    while $cur != 1 and $steps < 1000:
        if $cur % 2 == 0:
            $cur = $cur // 2
        else:
            $cur = 3 * $cur + 1
        $steps = $steps + 1
    return $steps)PY",
     {{"n", {"n", "start"}}, {"steps", {"steps", "moves"}}, {"cur", {"cur", "val"}}}},
    {{"spread", "value_range", "min_max_gap"},
     Arg::kValues,
     R"PY(def $fn($arr):
    $low = $arr[0]
    $high = $arr[0]
    for $v in $arr:
        if $v < $low:
            $low = $v
        if $v > $high:
            $high = $v
    $gap = $high - $low
    return ($low, $high, $gap))PY",
     {{"arr", {"arr", "nums", "seq"}}, {"low", {"low", "smallest"}},
      {"high", {"high", "largest"}}, {"v", {"v", "x"}}, {"gap", {"gap", "width"}}}},
};

int CountLines(std::string_view s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1;
}

std::string StdinInput(Rng* rng) {
  const int n = static_cast<int>(rng->UniformInt(1, 30));
  std::string values = IntList(rng, 2, 12, -50, 50);
  values = values.substr(1, values.size() - 2);
  std::string cleaned;
  for (char c : values) {
    if (c != ',') cleaned += c;
  }
  return fmt::format("{}\n{}\n{}\n", n, cleaned, RandomSentence(rng, 1, 8));
}

}  // namespace

size_t FunctionTemplateCount() { return std::size(kFunctionTemplates); }

Program FunctionProgramFromTemplate(uint64_t seed, size_t index, size_t template_index,
                                    SourceSplit split) {
  assert(template_index < FunctionTemplateCount());
  Rng rng = SourceRng(seed, split).Fork("program-fn").Fork(std::to_string(index));
  const FunctionTemplate& t = kFunctionTemplates[template_index];
  Namer namer(&rng);
  Vars vars;
  const std::string suffix = TrainSuffix(split, &rng);  // drawn first: see kFunctionTemplates
  const std::string fn_name = namer.Pick(t.fn_names) + suffix;
  t.vars(&namer, &rng, &vars);
  vars.push_back({"f", fn_name});
  Program p;
  p.id = SourceItemId("fn", index, split);
  p.task_id = p.id;
  p.source = Fill(t.code, vars);
  p.fn_name = fn_name;
  p.test_inputs = 3;
  for (size_t i = 0; i < kProgramInputs; ++i) p.inputs.push_back(t.input(&rng, vars));
  return p;
}

Program FunctionProgramCandidate(uint64_t seed, size_t index, SourceSplit split) {
  Rng rng = SourceRng(seed, split).Fork("program-fn-template").Fork(std::to_string(index));
  const size_t t = static_cast<size_t>(rng.UniformInt(0, FunctionTemplateCount() - 1));
  return FunctionProgramFromTemplate(seed, index, t, split);
}

Program StdinProgramCandidate(uint64_t seed, size_t index, SourceSplit split) {
  Rng rng = SourceRng(seed, split).Fork("program-stdin").Fork(std::to_string(index));
  std::vector<size_t> order(std::size(kHelpers));
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  rng.Shuffle(&order);
  const int want_lines = static_cast<int>(rng.UniformInt(50, 140));

  Namer namer(&rng);
  const std::string lines = namer.Pick({"lines", "rows", "raw"});
  const std::string n = namer.Pick({"n", "count", "size_n"});
  const std::string values = namer.Pick({"values", "numbers", "ints"});
  const std::string words = namer.Pick({"words", "names", "tokens"});
  const std::string checksum = namer.Pick({"checksum", "digest", "signature"});
  // The train split's suffix, on every function name of the program.
  const std::string suffix = TrainSuffix(split, &rng);
  const std::string main_name = namer.Pick({"main", "solve", "run"}) + suffix;

  std::string helpers, calls;
  int lines_so_far = 14;  // the fixed part of the program
  for (size_t h = 0; h < order.size() && (lines_so_far < want_lines || h < 3); ++h) {
    const HelperBlock& block = kHelpers[order[h]];
    Vars vars;
    Namer local(&rng);
    const std::string fn = namer.Pick(block.fn_names) + suffix;
    vars.push_back({"fn", fn});
    for (const auto& [role, names] : block.roles) vars.push_back({role, local.Pick(names)});
    if (!block.constant.empty()) {
      vars.push_back({std::string(block.constant), IntText(&rng, block.k_lo, block.k_hi)});
    }
    const std::string code = Fill(block.code, vars);
    const int block_lines = CountLines(code);
    if (lines_so_far + block_lines + 4 > 195) break;
    helpers += code + "\n\n\n";
    std::string args;
    switch (block.arg) {
      case Arg::kValues: args = values; break;
      case Arg::kWords: args = words; break;
      case Arg::kNumber: args = n; break;
      case Arg::kValuesAndNumber: args = values + ", " + n; break;
    }
    const std::string result = fmt::format("r{}", h + 1);
    calls += fmt::format("    {} = {}({})\n    print(\"{}:\", {})\n", result, fn, args, fn, result);
    lines_so_far += block_lines + 5;
  }
  Program p;
  p.id = SourceItemId("prog", index, split);
  p.task_id = p.id;
  p.source = Fill(R"PY(import sys


$helpers
def $main():
    $lines = sys.stdin.read().split("\n")
    $n = int($lines[0])
    $values = [int(x) for x in $lines[1].split()]
    $words = $lines[2].split()
$calls    $checksum = 0
    for v in $values:
        $checksum = ($checksum * 31 + v) % 1000003
    print("checksum:", $checksum)


$main())PY",
                  {{"helpers", helpers},
                   {"main", main_name},
                   {"lines", lines},
                   {"n", n},
                   {"values", values},
                   {"words", words},
                   {"calls", calls},
                   {"checksum", checksum}});
  for (size_t i = 0; i < kProgramInputs; ++i) p.inputs.push_back(StdinInput(&rng));
  return p;
}

namespace {

constexpr size_t kJobResultCap = size_t{1} << 20;  // RESULT_CAP of worker.py
constexpr double kSecondsPerRun = 1.0;

// Bytes of result a program may take in a job: each input's result is at most
// kProgramOutputCap bytes of JSON (the worker enforces it), plus the JSON around them.
// A call's result may add `, "exact": false` after the cap.
size_t ResultBudget(const Program& p) { return 32 + p.inputs.size() * (kProgramOutputCap + 18); }
constexpr size_t kJobResultEnvelope = 64;  // {"programs": [...], "late": true}

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 300);
}

int64_t IntField(const nlohmann::json& j, const char* key, int64_t otherwise) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : otherwise;
}

std::string TextField(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// What went wrong with one input ("input 3: time limit (more than 1 s)").
std::string InputProblem(size_t k, const nlohmann::json& one) {
  const std::string limit = TextField(one, "limit");
  const std::string error = TextField(one, "error");
  if (!limit.empty()) return fmt::format("input {}: {} limit ({})", k + 1, limit, error);
  return fmt::format("input {}: {}", k + 1, error.empty() ? "failed" : error);
}

// Why the job of programs [begin, end) gave no usable result, naming the program and
// input it was running when the worker could tell.
Status JobProblem(const std::vector<Program>& programs, size_t begin, size_t end,
                  const nlohmann::json& r, double wall_seconds) {
  std::string what;
  if (!r.is_object() || !r.contains("sandbox_error")) {
    what = "the job's result is malformed: " + Dump(r);
  } else if (r.value("timeout", false)) {
    what = fmt::format("time limit ({} s for the job)", wall_seconds);
  } else if (r.contains("result_limit")) {
    what = fmt::format("result size limit: {}", TextField(r, "sandbox_error"));
  } else {
    what = TextField(r, "sandbox_error");
  }
  const int64_t at = r.is_object() ? IntField(r, "at_program", -1) : -1;
  if (at >= 0 && static_cast<size_t>(at) < end - begin) {
    const Program& p = programs[begin + static_cast<size_t>(at)];
    const int64_t input = IntField(r, "at_input", -1);
    const std::string where =
        input >= 0 ? fmt::format("input {} of {}", input + 1, p.inputs.size()) : "loading it";
    return Status::Internal(
        fmt::format("running program '{}' in the sandbox ({}): {}", p.id, where, what));
  }
  return Status::Internal(fmt::format("running programs '{}' to '{}' in the sandbox: {}",
                                      programs[begin].id, programs[end - 1].id, what));
}

// Runs programs [begin, end) of `programs` in one sandbox job.
Status RunJob(PythonPool* pool, std::vector<Program>* programs, size_t begin, size_t end,
              std::vector<std::pair<size_t, std::string>>* failures, size_t* sandbox_runs) {
  const bool call_based = (*programs)[begin].call_based();
  nlohmann::json list = nlohmann::json::array();
  size_t runs = 0;
  for (size_t i = begin; i < end; ++i) {
    const Program& p = (*programs)[i];
    nlohmann::json inputs = p.inputs;
    runs += p.inputs.size() * 2;  // the worker runs each input twice
    nlohmann::json entry = {{"source", p.source}, {"inputs", std::move(inputs)}};
    if (call_based) entry["fn_name"] = p.fn_name;
    list.push_back(std::move(entry));
  }
  nlohmann::json request = {{"op", call_based ? "call_values" : "stdin_outputs"},
                            {"programs", std::move(list)},
                            {"timeout", kSecondsPerRun},
                            {"output_cap", kProgramOutputCap}};
  const double wall = 30 + kSecondsPerRun * static_cast<double>(runs);
  ASSIGN_OR_RETURN(nlohmann::json r, pool->RunJob(std::move(request), wall));
  if (sandbox_runs != nullptr) *sandbox_runs += runs;
  const auto it = r.is_object() ? r.find("programs") : r.end();
  if (it == r.end() || !it->is_array() || it->size() != end - begin) {
    return JobProblem(*programs, begin, end, r, wall);
  }
  for (size_t i = begin; i < end; ++i) {
    Program& p = (*programs)[i];
    const nlohmann::json& res = (*it)[i - begin];
    p.outputs.clear();
    const auto results_it = res.is_object() ? res.find("results") : res.end();
    if (results_it == res.end() || !results_it->is_array()) {
      failures->push_back(
          {i, "does not load: " + (res.is_object() ? TextField(res, "load_error") : "")});
      continue;
    }
    const nlohmann::json& results = *results_it;
    std::vector<std::string> outs;
    std::string exact;
    std::string problem;
    for (size_t k = 0; k < results.size(); ++k) {
      const nlohmann::json& one = results[k];
      if (!one.is_object() || !one.value("ok", false)) {
        problem = InputProblem(k, one.is_object() ? one : nlohmann::json::object());
        break;
      }
      outs.push_back(TextField(one, call_based ? "repr" : "stdout"));
      if (call_based) exact.push_back(one.value("exact", false) ? '1' : '0');
    }
    if (problem.empty() && outs.size() != p.inputs.size()) problem = "missing results";
    if (!problem.empty()) {
      failures->push_back({i, problem});
      continue;
    }
    p.outputs = std::move(outs);
    p.exact_outputs = std::move(exact);
  }
  return Status::Ok();
}

}  // namespace

Status RunPrograms(PythonPool* pool, std::vector<Program>* programs,
                   std::vector<std::pair<size_t, std::string>>* failures,
                   size_t* sandbox_runs, size_t programs_per_job) {
  assert(programs_per_job > 0);
  for (size_t begin = 0; begin < programs->size();) {
    size_t end = begin;
    size_t bytes = kJobResultEnvelope;
    while (end < programs->size() && end - begin < programs_per_job) {
      const Program& p = (*programs)[end];
      assert(p.call_based() == (*programs)[begin].call_based());
      assert(p.inputs.size() <= kMaxProgramInputs);
      if (end > begin && bytes + ResultBudget(p) > kJobResultCap) break;
      bytes += ResultBudget(p);
      ++end;
    }
    RETURN_IF_ERROR(RunJob(pool, programs, begin, end, failures, sandbox_runs));
    begin = end;
  }
  return Status::Ok();
}

namespace {

// The builders' loop: candidates in order, at most kProgramsPerJob at a time, the clean
// ones passed on until `count` are. Failures are counted only up to the last candidate
// needed, so the outcome does not depend on how many ran past it.
Status Build(uint64_t seed, SourceSplit split, size_t count, PythonPool* pool,
             const ProgramSink& keep, size_t* sandbox_runs,
             Program (*candidate)(uint64_t, size_t, SourceSplit)) {
  size_t kept = 0;
  size_t next = 0;
  size_t failed = 0;
  std::string first_failure;
  while (kept < count) {
    // A few spare candidates, for the ones that fail.
    const size_t batch = std::min(kProgramsPerJob, count - kept + 2);
    std::vector<Program> programs;
    programs.reserve(batch);
    for (size_t i = 0; i < batch; ++i) programs.push_back(candidate(seed, next + i, split));
    std::vector<std::pair<size_t, std::string>> failures;
    RETURN_IF_ERROR(RunPrograms(pool, &programs, &failures, sandbox_runs));
    size_t f = 0;
    for (size_t i = 0; i < programs.size() && kept < count; ++i, ++next) {
      if (f < failures.size() && failures[f].first == i) {
        if (first_failure.empty()) first_failure = programs[i].id + ": " + failures[f].second;
        ++f;
        if (++failed > 16 + count / 4) {
          return Status::Internal(fmt::format(
              "built-in programs: {} of {} candidates failed in the sandbox (first: {})",
              failed, next + 1, first_failure));
        }
        continue;
      }
      RETURN_IF_ERROR(keep(std::move(programs[i])));
      ++kept;
    }
  }
  return Status::Ok();
}

}  // namespace

Status BuildFunctionPrograms(uint64_t seed, size_t count, PythonPool* pool,
                             const ProgramSink& keep, size_t* sandbox_runs, SourceSplit split) {
  return Build(seed, split, count, pool, keep, sandbox_runs, &FunctionProgramCandidate);
}

Status BuildStdinPrograms(uint64_t seed, size_t count, PythonPool* pool,
                          const ProgramSink& keep, size_t* sandbox_runs, SourceSplit split) {
  return Build(seed, split, count, pool, keep, sandbox_runs, &StdinProgramCandidate);
}

}  // namespace structtest
