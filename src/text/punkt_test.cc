#include "text/punkt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/pytext.h"
#include "core/rng.h"
#include "testing/test_support.h"
#include "text/punkt_model.h"

namespace structtest {
namespace {

namespace fs = std::filesystem;
using ::structtest::testing::SharedDir;
using ::structtest::testing::SharedNltkData;
using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

std::vector<std::string> Sentences(const SentenceSplitter& s, std::string_view text) {
  std::vector<std::string> out;
  for (const SentenceSplitter::Span& sp : s.Split(text)) {
    out.emplace_back(text.substr(sp.begin, sp.end - sp.begin));
  }
  return out;
}

std::string SpansToString(const std::vector<SentenceSplitter::Span>& spans) {
  std::string out;
  for (const SentenceSplitter::Span& sp : spans) {
    out += "[" + std::to_string(sp.begin) + "," + std::to_string(sp.end) + ")";
  }
  return out;
}

// Spans are in order, non-empty, inside the text, and Count agrees with Split.
void ExpectWellFormed(const SentenceSplitter& s, std::string_view text) {
  const std::vector<SentenceSplitter::Span> spans = s.Split(text);
  size_t pos = 0;
  for (const SentenceSplitter::Span& sp : spans) {
    ASSERT_LE(pos, sp.begin);
    ASSERT_LT(sp.begin, sp.end);
    ASSERT_LE(sp.end, text.size());
    pos = sp.end;
  }
  EXPECT_EQ(s.Count(text), spans.size());
}

// A small model written to a temp folder, for tests that must run without ../shared.
class TinyModel {
 public:
  TinyModel() {
    dir_ = (fs::path(tmp_.path()) / "tokenizers" / "punkt_tab" / "english").string();
    fs::create_directories(dir_);
    Write("abbrev_types.txt", "dr\nu.s\ne.g\np.m\nmr\n");
    Write("collocations.tab", "##number##\tpepper\nb\tsmith\n");
    Write("sent_starters.txt", "however\nthe\n");
    Write("ortho_context.tab", "the\t114\nsmith\t4\nmost\t94\n");
  }
  void Write(const std::string& name, const std::string& contents) const {
    WriteFileOrDie(dir_ + "/" + name, contents);
  }
  const std::string& root() const { return tmp_.path(); }
  const std::string& dir() const { return dir_; }

 private:
  TempDir tmp_;
  std::string dir_;
};

std::unique_ptr<SentenceSplitter> LoadTiny(const TinyModel& m) {
  auto s = SentenceSplitter::LoadFromModelDir(m.dir());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

// ---- loading

TEST(PunktLoadTest, ExplicitFolderWithModel) {
  TinyModel m;
  auto s = SentenceSplitter::Load(m.root());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->source(), m.dir());
  EXPECT_EQ((*s)->Count("Dr. Smith came. He left."), 2u);
}

TEST(PunktLoadTest, AFolderWithoutTheModelIsNotFound) {
  TempDir empty;
  auto s = SentenceSplitter::Load(empty.path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_NE(s.status().message().find(empty.path() + "/tokenizers/punkt_tab/english"),
            std::string::npos)
      << s.status().message();
}

// Sets NLTK_DATA for the scope, restoring it after.
class ScopedNltkData {
 public:
  explicit ScopedNltkData(const char* value) {
    if (const char* old = std::getenv("NLTK_DATA")) saved_ = old;
    if (value) {
      setenv("NLTK_DATA", value, 1);
    } else {
      unsetenv("NLTK_DATA");
    }
  }
  ~ScopedNltkData() {
    if (saved_) {
      setenv("NLTK_DATA", saved_->c_str(), 1);
    } else {
      unsetenv("NLTK_DATA");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(PunktLoadTest, SearchesNltkDataVariable) {
  TinyModel m;
  TempDir empty;
  ScopedNltkData env((empty.path() + "::" + m.root()).c_str());
  auto s = SentenceSplitter::Load("");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->source(), m.dir());
}

TEST(PunktLoadTest, WithoutAFolderTheBuiltinModelIsUsed) {
  for (const char* value : {static_cast<const char*>(nullptr), "", "/nonexistent:/also/not"}) {
    ScopedNltkData env(value);
    auto s = SentenceSplitter::Load("");
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ((*s)->source(), SentenceSplitter::kBuiltinSource) << (value ? value : "unset");
  }
}

// ---- the built-in model

// The compiled-in files are data/nltk_data's, which are NLTK's: byte for byte with the
// shared copy (when ../shared is there), with the digests NLTK publishes for them.
TEST(PunktBuiltinTest, FilesAreNltksByteForByte) {
  const std::pair<internal::PunktFile, const char*> files[] = {
      {internal::PunktFile::kAbbrevTypes, "abbrev_types.txt"},
      {internal::PunktFile::kCollocations, "collocations.tab"},
      {internal::PunktFile::kSentStarters, "sent_starters.txt"},
      {internal::PunktFile::kOrthoContext, "ortho_context.tab"}};
  const std::string model = "/tokenizers/punkt_tab/english/";
  const std::string data = ::structtest::testing::SourceDir() + "/data/nltk_data" + model;
  for (const auto& [file, name] : files) {
    const std::string_view builtin = internal::BuiltinPunktFile(file);
    EXPECT_GT(builtin.size(), 100u) << name;
    EXPECT_EQ(builtin, ::structtest::testing::ReadFileOrDie(data + name)) << name;
    if (!SharedNltkData().empty()) {
      EXPECT_EQ(builtin, ::structtest::testing::ReadFileOrDie(SharedNltkData() + model + name))
          << name;
    }
  }
  if (SharedNltkData().empty()) {
    std::printf("PunktBuiltinTest: ../shared/nltk_data is absent: the built-in files are "
                "compared with data/nltk_data only\n");
  }
  auto s = SentenceSplitter::LoadBuiltin();
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->source(), SentenceSplitter::kBuiltinSource);
  // "Dr." is one of the model's abbreviations, "However" one of its sentence starters.
  EXPECT_EQ((*s)->Count("Dr. Smith came at 5 p.m. today. However, he left."), 2u);
}

TEST(PunktLoadTest, MissingFileIsNotFound) {
  TinyModel m;
  fs::remove(m.dir() + "/sent_starters.txt");
  auto s = SentenceSplitter::LoadFromModelDir(m.dir());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_NE(s.status().message().find("sent_starters.txt"), std::string::npos);
}

TEST(PunktLoadTest, MalformedLinesNameFileAndLine) {
  {
    TinyModel m;
    m.Write("ortho_context.tab", "the\t114\nsmith 4\n");
    auto s = SentenceSplitter::LoadFromModelDir(m.dir());
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find("ortho_context.tab:2:"), std::string::npos)
        << s.status().message();
  }
  {
    TinyModel m;
    m.Write("ortho_context.tab", "the\tmany\n");
    auto s = SentenceSplitter::LoadFromModelDir(m.dir());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("ortho_context.tab:1:"), std::string::npos);
  }
  {
    TinyModel m;
    m.Write("collocations.tab", "b\tsmith\nlonely\n");
    auto s = SentenceSplitter::LoadFromModelDir(m.dir());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("collocations.tab:2:"), std::string::npos);
  }
  {
    TinyModel m;
    m.Write("abbrev_types.txt", "dr\r\nbad\xff\n");
    auto s = SentenceSplitter::LoadFromModelDir(m.dir());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("abbrev_types.txt:2: invalid UTF-8"), std::string::npos)
        << s.status().message();
  }
}

TEST(PunktLoadTest, UniversalNewlinesAndMissingFinalNewline) {
  TinyModel m;
  m.Write("abbrev_types.txt", "dr\r\nmr\rprof");
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Count("Ask Prof. Plum. And Mr. Green."), 2u);
}

// ---- behaviour with the tiny model (runs everywhere)

TEST(PunktTinyModelTest, AbbreviationsInitialsAndCollocations) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Sentences(*s, "Dr. Smith came. He left."),
            (std::vector<std::string>{"Dr. Smith came.", "He left."}));
  // Hyphenated word whose last part is an abbreviation.
  EXPECT_EQ(s->Count("The ex-Dr. Who came."), 1u);
  // Collocations keep the period inside the sentence.
  EXPECT_EQ(s->Count("Item 5. Pepper is hot."), 1u);
  EXPECT_EQ(s->Count("Item 5. Salt is hot."), 2u);
  EXPECT_EQ(s->Count("Mr. B. Smith came."), 1u);
  // A frequent sentence starter after an abbreviation starts a sentence.
  EXPECT_EQ(s->Count("It was 5 p.m. However, we stayed."), 2u);
  EXPECT_EQ(s->Count("It was 5 p.m. on time."), 1u);
}

TEST(PunktTinyModelTest, QuestionAndExclamationMarks) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Sentences(*s, "Really?! Yes! (Sure.) Fine"),
            (std::vector<std::string>{"Really?!", "Yes!", "(Sure.)", "Fine"}));
}

TEST(PunktTinyModelTest, EmptyAndWhitespaceOnly) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->Split("").empty());
  EXPECT_EQ(s->Count(""), 0u);
  EXPECT_EQ(s->Count(" \n\t\r\x0b\x0c"), 0u);
  EXPECT_EQ(s->Count("\xC2\xA0\xE3\x80\x80\xE2\x80\xA8"), 0u);
  EXPECT_EQ(s->Count("."), 1u);
}

TEST(PunktTinyModelTest, InvalidUtf8AndNulBytes) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  const std::vector<std::string> texts = {
      "Hello.\xFF World. \xC3 Bad\x80. End.",
      "\xFF\xFE\xFD. \xE2\x80. \xF0\x9F\x98. x",
      "A.\xC2",
      "A. \xC2",
      "\x80\x80\x80. \xED\xA0\x80. Zed.",
      std::string("A.\0 B. C.\0", 10),
      std::string("\0\0\0. \0. \0", 10),
      std::string(1000, '\xFF') + ". " + std::string(1000, '\x80'),
  };
  for (const std::string& t : texts) {
    SCOPED_TRACE(t);
    ExpectWellFormed(*s, t);
  }
  EXPECT_EQ(Sentences(*s, "Hello.\xFF World. Bye."),
            (std::vector<std::string>{"Hello.\xFF World.", "Bye."}));
  EXPECT_EQ(Sentences(*s, std::string("Hello.\0 World. Bye.", 19)),
            (std::vector<std::string>{std::string("Hello.\0 World.", 14), "Bye."}));
}

TEST(PunktTinyModelTest, TenMegabyteInput) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  const std::string sentence = "This is a sentence with Dr. Smith and 3.5 things. ";
  std::string text;
  const size_t n = (10u << 20) / sentence.size() + 1;
  text.reserve(n * sentence.size());
  for (size_t i = 0; i < n; ++i) text += sentence;
  EXPECT_EQ(s->Count(text), n);
  const auto spans = s->Split(text);
  ASSERT_EQ(spans.size(), n);
  EXPECT_EQ(spans.back().end, text.size() - 1);
}

// Long runs that a backtracking or rescanning implementation would make quadratic.
// The expected counts are NLTK's with the same tiny model.
TEST(PunktTinyModelTest, PathologicalRuns) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  constexpr size_t kM = 1000000;
  auto rep = [](std::string_view unit, size_t times) {
    std::string out;
    out.reserve(unit.size() * times);
    for (size_t i = 0; i < times; ++i) out.append(unit);
    return out;
  };
  struct Case {
    const char* name;
    std::string text;
    size_t count;
  };
  const std::vector<Case> cases = {
      {"dots", std::string(kM, '.'), 1},
      {"question_marks", std::string(kM, '?'), 3},
      {"bangs_then_word", std::string(kM, '!') + " x", 3},
      {"dot_space", rep(". ", kM / 2), kM / 2},
      {"letter_dot", rep("a.", kM / 2), 1},
      {"lower_initials", rep("a. ", kM / 3), 1},
      {"upper_initials", rep("A. ", kM / 3), 1},
      {"closers", "x." + std::string(kM, ')') + " y", 2},
      {"spaced_closers", "x. " + rep(") ", kM / 2) + "y", 2},
      {"spaces", "." + std::string(kM, ' ') + "x", 2},
      {"dashes", "x." + std::string(kM, '-'), 1},
      {"spaced_ellipsis", rep(". ", kM / 2) + ".", kM / 2 + 1},
      {"long_word", std::string(kM, 'x') + ". Y", 2},
      {"abbreviations", rep("Dr. ", kM / 4), 1},
      {"comma_dot", rep(",.", kM / 2) + " x", 2},
      {"question_close", rep("?)", kM / 2) + " x", 3},
      {"numbers", rep("1. ", kM / 3), kM / 3},
      {"quotes", rep("a.\" ", kM / 4), kM / 4},
      {"invalid_bytes", rep("\xE2\x80. ", kM / 4), kM / 4},
      {"tabs_in_ellipsis", rep(".\t", kM / 2) + ".", kM / 2 + 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(s->Count(c.text), c.count);
    ExpectWellFormed(*s, c.text);
  }
}

TEST(PunktTinyModelTest, ConcurrentCallsAgree) {
  TinyModel m;
  auto s = LoadTiny(m);
  ASSERT_NE(s, nullptr);
  const std::string text = "Dr. Smith came. He left! Did he? Yes. (Really.) Fine.";
  const size_t expected = s->Count(text);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (s->Count(text) != expected) ++mismatches;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// ---- the real English model

class PunktEnglishTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = SentenceSplitter::LoadBuiltin();
    ASSERT_TRUE(s.ok()) << s.status().message();
    splitter_ = std::move(s).value();
  }
  std::unique_ptr<SentenceSplitter> splitter_;
};

// Cases with NLTK's answers, in testdata/punkt_golden.jsonl.
TEST_F(PunktEnglishTest, GoldenCases) {
  const std::string path =
      ::structtest::testing::SourceDir() + "/src/text/testdata/punkt_golden.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    const std::string text = j.at("text");
    SCOPED_TRACE(j.at("name").get<std::string>());
    EXPECT_EQ(Sentences(*splitter_, text), j.at("sentences").get<std::vector<std::string>>());
    EXPECT_EQ(splitter_->Count(text), j.at("sentences").size());
    ++cases;
  }
  EXPECT_GT(cases, 30);
}

// ---- differential test against NLTK itself

bool PythonHasNltk() {
  return std::system("/usr/bin/python3 -c 'import nltk.tokenize.punkt' >/dev/null 2>&1") == 0;
}

// The summary text the summarization rules score: between the first <summary> and
// the last </summary>, tags replaced, spaces collapsed, empty lines dropped.
std::string ExtractSummary(std::string_view r) {
  constexpr std::string_view kOpen = "<summary>";
  constexpr std::string_view kClose = "</summary>";
  const size_t open = r.find(kOpen);
  const size_t close = r.rfind(kClose);
  if (open != std::string_view::npos && close != std::string_view::npos &&
      close >= open + kOpen.size()) {
    r = r.substr(open + kOpen.size(), close - open - kOpen.size());
  }
  std::string body = ReplaceAll(ReplaceAll(r, kOpen, " "), kClose, " ");
  std::string collapsed;
  for (char c : body) {
    if (c == ' ' && !collapsed.empty() && collapsed.back() == ' ') continue;
    collapsed.push_back(c);
  }
  std::string out;
  for (std::string_view line : SplitChar(PyStrip(collapsed), '\n')) {
    if (line.empty()) continue;
    if (!out.empty()) out.push_back('\n');
    out.append(line);
  }
  return out;
}

// The length rule's removal of "\b\d\. " (list numbers).
std::string DropListNumbers(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool boundary =
        i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_' ||
                    static_cast<unsigned char>(s[i - 1]) >= 0x80);
    if (boundary && i + 2 < s.size() && s[i] >= '0' && s[i] <= '9' && s[i + 1] == '.' &&
        s[i + 2] == ' ') {
      i += 2;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

// Random texts built from the pieces Punkt treats specially.
std::vector<std::string> SyntheticTexts(size_t n) {
  // clang-format off
  static const std::vector<std::string> kAtoms = {
      "Dr.", "dr.", "U.S.", "u.s.", "e.g.", "i.e.", "etc.", "Mr.", "Mrs.", "No.", "no.", "vs.",
      "Inc.", "Jan.", "St.", "p.m.", "a.m.", "J.", "j.", "A.", "x.", "_.", "\xC3\xA9.",
      "\xC3\x89.", "\xC3\x9F.", "\xC4\xB0.", "\xE2\x84\xAA.", "\xC2\xB2.", "\xC2\xBD.",
      "\xD9\xA3.", "3.5", "5.", "10.", "1,000.", "-5.", "-.5", ".5", "1.2.3", ",5.",
      "##number##.", "##NUMBER##.", "...", "..", ". . .", ". . . .", ".\t. .", "--", "---", "-",
      "?", "!", "?!", "!!!", "??", ".", ",", ";", ":", "\"", "'", "(", ")", "[", "]", "{", "}",
      "`", "&", "#", "*", "@", "\xE2\x80\x9C", "\xE2\x80\x9D", "\xE2\x80\x99", "The", "the",
      "He", "he", "However", "however", "Smith", "smith", "Bach", "It", "it", "In", "in",
      "Most", "most", "Sales", "i", "I", "A", "a", "And", "and", "But", "but", "Pepper",
      "pepper", "Stewart", "Toussie", "International", "Number", "number", "Colgate", "CBOT",
      "foo", "bar", "Zzyzx", "\xC3\x89" "COLE", "\xC3\xA9" "cole", "\xCE\xA9mega",
      "\xCF\x89mega", "\xC7\x85" "emal", "\xE4\xB8\xAD\xE6\x96\x87", "\xF0\x9F\x98\x80",
      "\xEF\xBF\xBD", "word,", "a,b", "x,", ",y", "self-employed", "co-Inc.", "ex-Gov.",
      "pre-Dr.", "U.S.-based", "Ph.D.", "ph.d.", "U.S.S.R.", "http://x.y/z.", "a.b", "e.g.,",
      "(e.g.", "(Dr.", "Dr.)", "end.)", "end.\"", "end.'", "end.\xE2\x80\x9D", "end?)", "end!]",
      "end.}", "end.)--", "end.\")",
  };
  static const std::vector<std::string> kSpaces = {
      " ", " ", " ", "  ", "\n", "\n\n", "\t", "\r\n", "\xC2\xA0", "\xE2\x80\xA8",
      "\xE3\x80\x80", "\x1C", "\xC2\x85", "\xE2\x80\x8B", "\x0B", "\x0C", " \n ",
  };
  static const std::vector<std::string> kChars = {
      ".", ".", ".", "?", "!", " ", " ", "\n", ",", ";", ":", "-", "-", "\"", "'", "(", ")",
      "[", "]", "{", "}", "`", "&", "#", "*", "@", "_", "a", "A", "b", "B", "j", "J", "i", "I",
      "s", "S", "0", "5", "\xD9\xA3", "\xC2\xB2", "\xC2\xBD", "\xC2\xA0", "\xE2\x80\xA8",
      "\x1C", "\xC2\x85", "\xC3\xA9", "Dr", "e.g", "U.S", "No", "the", "The", "He", "he",
      "##number##", "\r\n", "\t",
  };
  // clang-format on
  Rng rng(20240607);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string t;
    if (i % 2 == 0) {
      const int64_t k = rng.UniformInt(1, 30);
      for (int64_t j = 0; j < k; ++j) {
        t += rng.Pick(kAtoms);
        if (rng.Bernoulli(0.15)) t += rng.Pick(kAtoms);
        const double r = rng.UniformDouble();
        if (r < 0.55) {
          t += " ";
        } else if (r < 0.75) {
          t += rng.Pick(kSpaces);
        }
      }
    } else {
      const int64_t k = rng.UniformInt(0, 40);
      for (int64_t j = 0; j < k; ++j) t += rng.Pick(kChars);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Distinct texts: the dev corpus responses, the texts the summarization rules split
// (whole summaries, single points), synthetic texts and long pathological runs.
// *sources says how many of each.
std::vector<std::string> DifferentialCorpus(std::string* sources) {
  std::vector<std::string> texts;
  std::set<std::string> seen;
  auto add = [&](std::string t) {
    if (seen.insert(t).second) texts.push_back(std::move(t));
  };
  size_t mark = 0;
  auto source = [&](const char* name) {
    *sources += (sources->empty() ? "" : ", ") + std::to_string(texts.size() - mark) + " " + name;
    mark = texts.size();
  };
  const fs::path dev = fs::path(SharedDir()) / "conformance" / "dev";
  std::vector<fs::path> files;
  for (const auto& model : fs::directory_iterator(dev)) {
    for (const char* sub : {"length", "bullet_points_length", "numbered_points_length"}) {
      const fs::path f = model.path() / (std::string(sub) + ".jsonl");
      if (fs::is_regular_file(f)) files.push_back(f);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<bool, std::string>> responses;  // (from length.jsonl, response)
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      responses.emplace_back(f.filename() == "length.jsonl",
                             nlohmann::json::parse(line).at("response").get<std::string>());
    }
  }
  for (const auto& [is_length, response] : responses) add(response);
  source("responses");
  for (const auto& [is_length, response] : responses) {
    const std::string summary = ExtractSummary(response);
    if (is_length) {
      add(DropListNumbers(summary));
      continue;
    }
    // Each point of a list is split on its own: the text after the bullet or number.
    for (std::string_view l : SplitChar(summary, '\n')) {
      l = PyStrip(l);
      while (!l.empty() &&
             (std::string_view("*-.)0123456789").find(l.front()) != std::string_view::npos)) {
        l.remove_prefix(1);
      }
      if (l.substr(0, 3) == "\xE2\x80\xA2") l.remove_prefix(3);
      l = PyStrip(l);
      if (!l.empty()) add(std::string(l));
    }
  }
  source("summaries and points");
  for (std::string& t : SyntheticTexts(12000)) add(std::move(t));
  source("synthetic");
  // Pathological shapes, small enough for the Python reference.
  for (std::string_view unit : {"?", "!", ". ", "a.", "A. ", "?)", ".\t", "a.\" ", "Dr. ", ") "}) {
    std::string t = "x.";
    for (int i = 0; i < 3000; ++i) t.append(unit);
    add(t + " y");
  }
  source("pathological");
  return texts;
}

TEST(PunktDifferentialTest, AgreesWithNltk) {
  SKIP_WITHOUT_SHARED();
  const fs::path oracle = fs::path(SharedDir()) / "tools" / "punkt_oracle.py";
  if (!fs::is_regular_file(oracle) || !PythonHasNltk()) {
    GTEST_SKIP() << "/usr/bin/python3 with nltk (Debian python3-nltk) or " << oracle.string()
                 << " is absent: cannot compare with NLTK";
  }
  // The built-in model here, NLTK with the shared copy of its model there.
  auto loaded = SentenceSplitter::LoadBuiltin();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const SentenceSplitter& splitter = **loaded;

  std::string sources;
  const std::vector<std::string> texts = DifferentialCorpus(&sources);
  TempDir tmp;
  const std::string in_path = tmp.path() + "/in.jsonl";
  const std::string out_path = tmp.path() + "/out.jsonl";
  {
    std::ofstream in(in_path, std::ios::binary);
    for (const std::string& t : texts) in << nlohmann::json{{"text", t}}.dump() << "\n";
  }
  const std::string cmd = "/usr/bin/python3 '" + oracle.string() + "' --nltk-data '" +
                          SharedNltkData() + "' < '" + in_path + "' > '" + out_path + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  std::ifstream out(out_path);
  std::string line;
  size_t index = 0;
  size_t texts_agreeing = 0;
  size_t spans_total = 0;
  size_t spans_agreeing = 0;
  int reported = 0;
  while (std::getline(out, line)) {
    ASSERT_LT(index, texts.size());
    const std::string& text = texts[index++];
    // NLTK's offsets count characters; map them to bytes.
    std::vector<size_t> byte_at;
    for (size_t i = 0; i < text.size();) {
      byte_at.push_back(i);
      size_t len;
      DecodeUtf8(text, i, &len);
      i += len;
    }
    byte_at.push_back(text.size());
    const nlohmann::json record = nlohmann::json::parse(line);
    std::vector<SentenceSplitter::Span> want;
    for (const auto& sp : record.at("spans")) {
      want.push_back({byte_at.at(sp.at(0).get<size_t>()), byte_at.at(sp.at(1).get<size_t>())});
    }
    const std::vector<SentenceSplitter::Span> got = splitter.Split(text);
    EXPECT_EQ(splitter.Count(text), got.size());
    spans_total += want.size();
    std::set<std::pair<size_t, size_t>> ours;
    for (const auto& g : got) ours.emplace(g.begin, g.end);
    for (const auto& w : want) spans_agreeing += ours.count({w.begin, w.end});
    if (got == want) {
      ++texts_agreeing;
    } else if (reported++ < 10) {
      ADD_FAILURE() << "differs from NLTK on " << nlohmann::json(text).dump()
                    << "\n  nltk: " << SpansToString(want) << "\n  ours: " << SpansToString(got);
    }
  }
  EXPECT_EQ(index, texts.size());
  EXPECT_EQ(texts_agreeing, texts.size());
  std::printf("punkt vs nltk: %zu/%zu texts identical, %zu/%zu spans agree (texts: %s)\n",
              texts_agreeing, texts.size(), spans_agreeing, spans_total, sources.c_str());
  RecordProperty("texts", static_cast<int>(texts.size()));
  RecordProperty("texts_identical", static_cast<int>(texts_agreeing));
  RecordProperty("spans", static_cast<int>(spans_total));
  RecordProperty("spans_agreeing", static_cast<int>(spans_agreeing));
}

}  // namespace
}  // namespace structtest
