#include "tasks/composed/source_text.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

namespace structtest::composed {

namespace {

constexpr size_t kMinWordsForOrder = 8;
constexpr double kCopiedShare = 0.9;
constexpr double kMinKeptPairs = 0.35;
constexpr double kRepeatShare = 0.8;

bool Alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool Digit(char c) { return c >= '0' && c <= '9'; }

// A key for two adjacent words (a hash: a collision only counts a pair as the source's,
// the lenient side).
uint64_t PairKey(const std::string& a, const std::string& b) {
  const uint64_t ha = std::hash<std::string>{}(a);
  return ha * 0x9E3779B97F4A7C15ULL ^ (std::hash<std::string>{}(b) + (ha << 6) + (ha >> 2));
}

// The numbers written in digits in `text` ("2,180" -> "2180", "1.5").
std::set<std::string> DigitNumbers(std::string_view text) {
  std::set<std::string> out;
  for (size_t i = 0; i < text.size();) {
    if (!Digit(text[i])) {
      ++i;
      continue;
    }
    std::string n;
    for (; i < text.size(); ++i) {
      const char ch = text[i];
      const bool inner = (ch == ',' || ch == '.') && i + 1 < text.size() && Digit(text[i + 1]);
      if (Digit(ch)) {
        n += ch;
      } else if (inner) {
        if (ch == '.') n += ch;
      } else {
        break;
      }
    }
    out.insert(std::move(n));
  }
  return out;
}

// The numbers up to ninety written as one word, as digits ("twelve" -> "12").
void AddNumberWords(const std::vector<std::string>& words, std::set<std::string>* out) {
  static const std::unordered_map<std::string_view, std::string> kNumbers = [] {
    constexpr std::string_view kSmall[] = {
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen", "twenty"};
    constexpr std::string_view kTens[] = {"thirty", "forty", "fifty", "sixty",
                                          "seventy", "eighty", "ninety"};
    std::unordered_map<std::string_view, std::string> m;
    for (size_t k = 0; k < std::size(kSmall); ++k) m.emplace(kSmall[k], std::to_string(k));
    for (size_t k = 0; k < std::size(kTens); ++k) m.emplace(kTens[k], std::to_string(30 + 10 * k));
    return m;
  }();
  for (const std::string& w : words) {
    if (const auto it = kNumbers.find(w); it != kNumbers.end()) out->insert(it->second);
  }
}

}  // namespace

std::vector<std::string> SourceWords(std::string_view s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s) {
    if (Alnum(c)) {
      w += c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    } else if (c != '\'' && !w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

SourceText::SourceText(std::string_view text, std::string_view name,
                       std::span<const std::string_view> format_words)
    : name_(name) {
  sorted_words_ = SourceWords(text);
  pairs_.reserve(sorted_words_.size());
  for (size_t k = 1; k < sorted_words_.size(); ++k) {
    pairs_.push_back(PairKey(sorted_words_[k - 1], sorted_words_[k]));
  }
  std::sort(pairs_.begin(), pairs_.end());
  numbers_ = DigitNumbers(text);
  AddNumberWords(sorted_words_, &numbers_);
  for (std::string_view w : format_words) sorted_words_.emplace_back(w);
  std::sort(sorted_words_.begin(), sorted_words_.end());
}

bool SourceText::Has(std::string_view word) const {
  return std::binary_search(sorted_words_.begin(), sorted_words_.end(), word);
}

std::string SourceText::Problem(std::string_view item, std::string_view what) const {
  for (const std::string& n : DigitNumbers(item)) {
    if (!numbers_.contains(n)) return fmt::format("{} gives the number {}, which {} does not", what, n, name_);
  }
  // Names: a capitalized word past the first two of its sentence.
  size_t in_sentence = 0;
  std::string word, lower;
  for (size_t i = 0; i <= item.size(); ++i) {
    const char ch = i < item.size() ? item[i] : ' ';
    if (Alnum(ch) || ch == '\'' || ch == '-') {
      word += ch;
      continue;
    }
    if (!word.empty()) {
      if (word[0] >= 'A' && word[0] <= 'Z' && in_sentence >= 2) {
        lower.clear();
        for (char c : word) {
          if (Alnum(c)) lower += c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        }
        // "Kowalski-Smith" is two words of the source or not one: judged whole only.
        if (word.find('-') == std::string::npos && !Has(lower)) {
          return fmt::format("{} names '{}', which {} does not", what, word, name_);
        }
      }
      ++in_sentence;
      word.clear();
    }
    if (ch == '.' || ch == '!' || ch == '?' || ch == ';' || ch == ':') in_sentence = 0;
  }
  // The source's words out of their order.
  const std::vector<std::string> words = SourceWords(item);
  if (words.size() < kMinWordsForOrder) return "";
  const auto own = static_cast<size_t>(std::count_if(words.begin(), words.end(), [&](const std::string& w) { return Has(w); }));
  if (static_cast<double>(own) < kCopiedShare * static_cast<double>(words.size())) return "";
  size_t kept = 0;
  for (size_t w = 1; w < words.size(); ++w) {
    kept += std::binary_search(pairs_.begin(), pairs_.end(), PairKey(words[w - 1], words[w]));
  }
  if (static_cast<double>(kept) < kMinKeptPairs * static_cast<double>(words.size() - 1)) {
    return fmt::format("{} is the words of {} out of their order: {} of its {} word pairs "
                       "stand together there",
                       what, name_, kept, words.size() - 1);
  }
  return "";
}

std::string NearRepeatProblem(std::span<const std::string> items, std::string_view names,
                              size_t min_words) {
  std::vector<std::set<std::string>> sets;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::vector<std::string> words = SourceWords(items[i]);
    std::set<std::string> set(words.begin(), words.end());
    for (size_t j = 0; j < sets.size() && set.size() >= min_words; ++j) {
      size_t shared = 0;
      for (const std::string& w : set) shared += sets[j].contains(w);
      const size_t either = set.size() + sets[j].size() - shared;
      if (static_cast<double>(shared) >= kRepeatShare * static_cast<double>(either)) {
        return fmt::format("{} {} says {} {} again: {} of the {} words of either are in both", names,
                           i + 1, names, j + 1, shared, either);
      }
    }
    sets.push_back(std::move(set));
  }
  return "";
}

}  // namespace structtest::composed
