#include "sources/document_generator.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest {
namespace {

uint64_t HashDocuments(const std::vector<Document>& docs) {
  uint64_t h = kFnv1aOffset;
  for (const Document& d : docs) {
    h = Fnv1a(d.id, h);
    h = Fnv1a(d.title, h);
    h = Fnv1a(d.text, h);
    for (const std::string& k : d.key_sentences) h = Fnv1a(k, h);
    h = Fnv1a(d.answers.what + d.answers.why + d.answers.who + d.answers.when +
                  d.answers.where,
              h);
  }
  return h;
}

size_t CountWords(const std::string& s) {
  size_t n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

size_t CountParagraphs(const std::string& text) {
  size_t n = 1;
  for (size_t p = text.find("\n\n"); p != std::string::npos; p = text.find("\n\n", p + 2)) ++n;
  return n;
}

// Many documents from a few seeds, generated once for the quality tests.
const std::vector<Document>& GeneratedCorpus() {
  static const std::vector<Document> corpus = [] {
    std::vector<Document> all;
    for (uint64_t seed : {1ULL, 2ULL, 20250101ULL}) {
      std::vector<Document> docs = GenerateDocuments(seed, 500);
      all.insert(all.end(), docs.begin(), docs.end());
    }
    return all;
  }();
  return corpus;
}

TEST(DocumentGeneratorTest, SameSeedGivesIdenticalDocuments) {
  const std::vector<Document> a = GenerateDocuments(42, 30);
  const std::vector<Document> b = GenerateDocuments(42, 30);
  ASSERT_EQ(a.size(), 30u);
  EXPECT_EQ(HashDocuments(a), HashDocuments(b));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].text, b[i].text);
}

TEST(DocumentGeneratorTest, DocumentIDoesNotDependOnCount) {
  const std::vector<Document> few = GenerateDocuments(9, 3);
  const std::vector<Document> many = GenerateDocuments(9, 40);
  for (size_t i = 0; i < few.size(); ++i) {
    EXPECT_EQ(few[i].text, many[i].text);
    EXPECT_EQ(few[i].key_sentences, many[i].key_sentences);
  }
  EXPECT_EQ(GenerateDocument(9, 17).text, many[17].text);
  EXPECT_EQ(many[17].id, "doc-0017");
}

// Pinned output: a change here means every generated test set changes. That is fine
// when the templates were edited on purpose (update the values and say so in the
// commit); it is a bug when it differs between machines or build types.
TEST(DocumentGeneratorTest, OutputIsPinned) {
  const std::vector<Document> docs = GenerateDocuments(42, 20);
  EXPECT_EQ(docs[0].text.substr(0, 60), "According to figures released by the Stonemere Province Grow");
  EXPECT_EQ(HashDocuments(docs), 11406775973005175386ULL);
}

TEST(DocumentGeneratorTest, NewSeedGivesNewDocuments) {
  const std::vector<Document> a = GenerateDocuments(1, 50);
  const std::vector<Document> b = GenerateDocuments(2, 50);
  std::set<std::string> texts;
  for (const Document& d : a) texts.insert(d.text);
  for (const Document& d : b) EXPECT_EQ(texts.count(d.text), 0u) << d.id;
  // Within a seed too, documents differ from each other.
  EXPECT_EQ(texts.size(), a.size());
}

TEST(DocumentGeneratorTest, DocumentsHaveTheAdvertisedShape) {
  std::set<std::string> ids_seen;
  for (const Document& d : GeneratedCorpus()) {
    SCOPED_TRACE(d.id + ": " + d.title);
    const size_t words = CountWords(d.text);
    EXPECT_GE(words, kGeneratedDocumentMinWords);
    EXPECT_LE(words, kGeneratedDocumentMaxWords);
    const size_t paragraphs = CountParagraphs(d.text);
    EXPECT_GE(paragraphs, kGeneratedDocumentMinParagraphs);
    EXPECT_LE(paragraphs, kGeneratedDocumentMaxParagraphs);
    EXPECT_FALSE(d.title.empty());
    for (const std::string* s : {&d.title, &d.text}) {
      // No template syntax left over, no stray whitespace, plain ASCII.
      EXPECT_EQ(s->find_first_of("{}[]|"), std::string::npos) << *s;
      EXPECT_EQ(s->find("  "), std::string::npos);
      EXPECT_EQ(s->find("\n\n\n"), std::string::npos);
      EXPECT_TRUE(std::all_of(s->begin(), s->end(),
                              [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); }));
    }
    EXPECT_EQ(d.title.find('\n'), std::string::npos);
    EXPECT_NE(d.text.front(), ' ');
    EXPECT_NE(d.text.back(), ' ');
  }
}

TEST(DocumentGeneratorTest, KeySentencesAreUsableByAnOracle) {
  for (const Document& d : GeneratedCorpus()) {
    SCOPED_TRACE(d.id + ": " + d.title);
    EXPECT_GE(d.key_sentences.size(), kGeneratedDocumentMinKeySentences);
    std::set<std::string> distinct(d.key_sentences.begin(), d.key_sentences.end());
    EXPECT_EQ(distinct.size(), d.key_sentences.size());
    for (const std::string& k : d.key_sentences) {
      SCOPED_TRACE(k);
      ASSERT_GE(k.size(), 20u);
      EXPECT_TRUE(k[0] >= 'A' && k[0] <= 'Z');
      EXPECT_EQ(k.back(), '.');
      const char before = k[k.size() - 2];
      EXPECT_TRUE((before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z'));
      EXPECT_EQ(k.find('.'), k.size() - 1);
      EXPECT_EQ(k.find_first_of("?!\n\t\r*#\"\\"), std::string::npos);
      EXPECT_EQ(k.find("\xE2\x80\xA2"), std::string::npos);  // U+2022
      // The last word is not one letter (Punkt would take "B." for an initial).
      const size_t last_space = k.rfind(' ');
      ASSERT_NE(last_space, std::string::npos);
      EXPECT_GT(k.size() - last_space - 1, 2u);
      EXPECT_NE(d.text.find(k), std::string::npos) << "key sentence not in the text";
    }
    for (const std::string* a : {&d.answers.what, &d.answers.why, &d.answers.who,
                                 &d.answers.when, &d.answers.where}) {
      EXPECT_FALSE(a->empty());
      EXPECT_NE(std::find(d.key_sentences.begin(), d.key_sentences.end(), *a),
                d.key_sentences.end());
    }
  }
}

TEST(DocumentGeneratorTest, GenresAndOpeningsVary) {
  EXPECT_GE(GeneratedDocumentGenreCount(), 8u);
  std::set<std::string> openings;  // first three words of the text
  std::set<std::string> titles;
  for (const Document& d : GenerateDocuments(5, 300)) {
    size_t end = 0;
    for (int w = 0; w < 3; ++w) end = d.text.find(' ', end + 1);
    openings.insert(d.text.substr(0, end));
    titles.insert(d.title);
  }
  EXPECT_GE(openings.size(), 150u);
  EXPECT_GE(titles.size(), 285u);
}

// The decisive check: NLTK's Punkt (our conformant re-implementation) sees every key
// sentence as exactly one sentence, alone and in the compositions an oracle writes.
TEST(DocumentGeneratorTest, PunktCountsEachKeySentenceOnce) {
  auto splitter = SentenceSplitter::LoadBuiltin();
  ASSERT_TRUE(splitter.ok()) << splitter.status().message();
  for (const Document& d : GeneratedCorpus()) {
    SCOPED_TRACE(d.id);
    std::string spaced, lined, bulleted;
    for (const std::string& k : d.key_sentences) {
      ASSERT_EQ((*splitter)->Count(k), 1u) << k;
      spaced += k + " ";
      lined += k + "\n";
      bulleted += "* " + k + "\n";
    }
    const size_t n = d.key_sentences.size();
    EXPECT_EQ((*splitter)->Count(spaced), n);
    EXPECT_EQ((*splitter)->Count(lined), n);
    EXPECT_EQ((*splitter)->Count(bulleted), n);
  }
}

}  // namespace
}  // namespace structtest
