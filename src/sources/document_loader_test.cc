#include "sources/document_loader.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace structtest {
namespace {

using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;

class DocumentLoaderTest : public ::testing::Test {
 protected:
  // Writes `contents` to DIR/name and returns the path.
  std::string Write(const std::string& name, const std::string& contents) {
    const std::string path = dir_.path() + "/" + name;
    WriteFileOrDie(path, contents);
    return path;
  }
  // The error message of loading `path`, with the temp dir replaced by "DIR".
  std::string Error(const StatusOr<LoadedDocuments>& r) {
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    std::string m = r.status().message();
    for (size_t p; (p = m.find(dir_.path())) != std::string::npos;) {
      m.replace(p, dir_.path().size(), "DIR");
    }
    return m;
  }
  TempDir dir_;
};

// ---------------------------------------------------------------------------------
// JSON Lines

TEST_F(DocumentLoaderTest, JsonlReadsTextIdAndTitle) {
  const std::string path = Write(
      "docs.jsonl",
      "{\"id\": \"a1\", \"title\": \"First\", \"text\": \"  One.\\r\\nTwo.  \"}\n"
      "\n"
      "{\"id\": 7, \"text\": \"Seven.\"}\n"
      "{\"text\": \"No id here.\", \"title\": null}\n"
      "{\"text\": \"   \\n  \"}\r\n");
  const auto r = LoadDocuments(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->documents.size(), 3u);
  EXPECT_EQ(r->skipped_empty, 1u);
  EXPECT_EQ(r->documents[0].id, "a1");
  EXPECT_EQ(r->documents[0].title, "First");
  EXPECT_EQ(r->documents[0].text, "One.\nTwo.");
  EXPECT_EQ(r->documents[1].id, "7");
  EXPECT_EQ(r->documents[1].title, "");
  // Without an id: the 0-based record index (blank lines do not count).
  EXPECT_EQ(r->documents[2].id, "2");
  EXPECT_TRUE(r->documents[2].key_sentences.empty());
}

TEST_F(DocumentLoaderTest, JsonlTextFieldIsConfigurable) {
  const std::string path = Write("d.ndjson", "{\"body\": \"Hello.\", \"name\": \"x\"}\n");
  DocumentLoadOptions options;
  options.text_field = "body";
  options.id_field = "name";
  const auto r = LoadDocuments(path, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->documents[0].text, "Hello.");
  EXPECT_EQ(r->documents[0].id, "x");
  EXPECT_EQ(Error(LoadDocuments(path)), "DIR/d.ndjson:1: field 'text' missing");
}

TEST_F(DocumentLoaderTest, JsonlErrorsNameFileLineAndField) {
  struct Case {
    std::string contents, error;
  };
  const Case cases[] = {
      {"{\"text\": \"ok\"}\n{\"text\": 3}\n", "DIR/d.jsonl:2: field 'text' is not a string (found number)"},
      {"{\"text\": \"ok\"}\n\n{\"txt\": \"x\"}\n", "DIR/d.jsonl:3: field 'text' missing"},
      {"[1, 2]\n", "DIR/d.jsonl:1: expected a JSON object, found array"},
      {"{\"text\": \"a\\u0000b\"}\n", "DIR/d.jsonl:1: field 'text' contains a NUL character"},
      {"{\"text\": \"a\", \"id\": 1.5}\n",
       "DIR/d.jsonl:1: field 'id' is not a string or an integer (found number)"},
      {"{\"text\": \"a\", \"title\": [\"t\"]}\n",
       "DIR/d.jsonl:1: field 'title' is not a string (found array)"},
      {"{\"text\": \"a\", \"id\": \"x\"}\n{\"text\": \"b\", \"id\": \"x\"}\n",
       "DIR/d.jsonl:2: duplicate id 'x' (first on line 1)"},
      {"", "DIR/d.jsonl: no documents (0 empty ones skipped)"},
      {"{\"text\": \"\"}\n{\"text\": \" \"}\n", "DIR/d.jsonl: no documents (2 empty ones skipped)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.contents);
    EXPECT_EQ(Error(LoadDocuments(Write("d.jsonl", c.contents))), c.error);
  }
}

TEST_F(DocumentLoaderTest, JsonlRejectsBrokenJsonAndBadBytes) {
  std::string m = Error(LoadDocuments(Write("d.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"a\"\n")));
  EXPECT_EQ(m.rfind("DIR/d.jsonl:2: invalid JSON", 0), 0u) << m;
  m = Error(LoadDocuments(Write("d.jsonl", "{\"text\": \"caf\xE9\"}\n")));
  EXPECT_EQ(m.rfind("DIR/d.jsonl:1: invalid JSON", 0), 0u) << m;
  m = Error(LoadDocuments(Write("d.jsonl", std::string("{\"text\": \"a\0b\"}\n", 15))));
  EXPECT_EQ(m.rfind("DIR/d.jsonl:1: invalid JSON", 0), 0u) << m;
}

TEST_F(DocumentLoaderTest, JsonlHugeLines) {
  const std::string big(kMaxDocumentBytes + 10, 'x');
  EXPECT_EQ(Error(LoadDocuments(Write("d.jsonl", "{\"text\": \"" + big + "\"}\n"))),
            "DIR/d.jsonl:1: field 'text' is " + std::to_string(big.size()) +
                " bytes, more than the " + std::to_string(kMaxDocumentBytes) + " allowed");
  const std::string fine(1 << 20, 'y');
  const auto r = LoadDocuments(Write("d.jsonl", "{\"text\": \"" + fine + "\"}\n"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->documents[0].text.size(), fine.size());
}

TEST_F(DocumentLoaderTest, MissingFileAndUnknownFormat) {
  const auto missing = LoadDocuments(dir_.path() + "/nope.jsonl");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Error(missing), "DIR/nope.jsonl: no such file or directory");
  EXPECT_EQ(Error(LoadDocuments(Write("d.xml", "<doc/>"))),
            "DIR/d.xml: unknown document format (expected a .jsonl or .csv file, or a folder "
            "of .txt files)");
  const auto io = LoadDocumentsJsonl(dir_.path() + "/nope.jsonl");
  EXPECT_EQ(io.status().code(), StatusCode::kIoError);
}

// ---------------------------------------------------------------------------------
// CSV

TEST_F(DocumentLoaderTest, CsvReadsQuotedMultiLineFields) {
  const std::string path = Write(
      "docs.CSV",
      "\xEF\xBB\xBFid,title,text\r\n"
      "d1,\"Commas, too\",\"He said \"\"hi\"\".\r\nNext line.\"\r\n"
      "\r\n"
      "d2,,plain text\n"
      "d3,Blank,\"  \"\n"
      "d4,Last,no newline at the end");
  const auto r = LoadDocuments(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->documents.size(), 3u);
  EXPECT_EQ(r->skipped_empty, 1u);
  EXPECT_EQ(r->documents[0].id, "d1");
  EXPECT_EQ(r->documents[0].title, "Commas, too");
  EXPECT_EQ(r->documents[0].text, "He said \"hi\".\nNext line.");
  EXPECT_EQ(r->documents[1].text, "plain text");
  EXPECT_EQ(r->documents[2].text, "no newline at the end");
}

TEST_F(DocumentLoaderTest, CsvWithoutIdColumnNumbersRows) {
  const auto r = LoadDocuments(Write("d.csv", "text\nfirst\nsecond\n"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->documents[0].id, "0");
  EXPECT_EQ(r->documents[1].id, "1");
}

TEST_F(DocumentLoaderTest, CsvErrorsNameFileLineAndColumn) {
  struct Case {
    std::string contents, error;
  };
  const Case cases[] = {
      {"id,body\n1,x\n", "DIR/d.csv:1: no column 'text' in the header (columns: 'id', 'body')"},
      // The record on line 4 starts after a two-line quoted field.
      {"id,text\n1,\"a\nb\"\n2\n", "DIR/d.csv:4: column 'text' missing (1 field in the row, 2 in the header)"},
      {"text,id\nx,1,extra\n", "DIR/d.csv:2: 3 fields in the row, 2 in the header"},
      {"id,text\n1,\"never closed\nstill open\n",
       "DIR/d.csv:4: unterminated quoted field (its opening quote is on line 2)"},
      {"id,text\n1,\"quoted\"junk\n",
       "DIR/d.csv:2: unexpected character after the closing quote of field 2"},
      {"id,text\n1,caf\xE9\n", "DIR/d.csv:2: column 'text' is not valid UTF-8 (byte 0xe9)"},
      {"id,text\n1,\"two\nlines \xFF\"\n", "DIR/d.csv:3: column 'text' is not valid UTF-8 (byte 0xff)"},
      {std::string("id,text\n1,a\0b\n", 14), "DIR/d.csv:2: column 'text' contains a NUL character"},
      {"id,text\n,x\n", "DIR/d.csv:2: column 'id' is empty"},
      {"id,text\na,x\na,y\n", "DIR/d.csv:3: duplicate id 'a' (first on line 2)"},
      {"", "DIR/d.csv: empty file (expected a header row)"},
      {"\n\n", "DIR/d.csv: empty file (expected a header row)"},
      {"id,text\n", "DIR/d.csv: no documents (0 empty ones skipped)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.contents);
    EXPECT_EQ(Error(LoadDocuments(Write("d.csv", c.contents))), c.error);
  }
}

TEST_F(DocumentLoaderTest, CsvTextColumnIsConfigurable) {
  DocumentLoadOptions options;
  options.text_field = "abstract";
  const auto r = LoadDocuments(Write("d.csv", "abstract,title\nSome words.,T\n"), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->documents[0].title, "T");
}

// ---------------------------------------------------------------------------------
// Folders of .txt files

TEST_F(DocumentLoaderTest, FolderReadsTxtFilesInNameOrder) {
  const std::string folder = dir_.path() + "/corpus";
  std::filesystem::create_directory(folder);
  std::filesystem::create_directory(folder + "/sub.txt");  // a directory: ignored
  WriteFileOrDie(folder + "/b.txt", "Second file.\n");
  WriteFileOrDie(folder + "/a.txt", "\xEF\xBB\xBF First file.\r\nLine two.\r\n");
  WriteFileOrDie(folder + "/C.txt", "Capital sorts first.");
  WriteFileOrDie(folder + "/notes.md", "not a document");
  WriteFileOrDie(folder + "/empty.txt", "\n\n");
  const auto r = LoadDocuments(folder);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->documents.size(), 3u);
  EXPECT_EQ(r->skipped_empty, 1u);
  EXPECT_EQ(r->documents[0].id, "C");
  EXPECT_EQ(r->documents[1].id, "a");
  EXPECT_EQ(r->documents[1].text, "First file.\nLine two.");
  EXPECT_EQ(r->documents[2].id, "b");
  EXPECT_EQ(r->documents[2].title, "");
}

TEST_F(DocumentLoaderTest, FolderErrors) {
  const std::string folder = dir_.path() + "/corpus";
  std::filesystem::create_directory(folder);
  EXPECT_EQ(Error(LoadDocuments(folder)), "DIR/corpus: no .txt files");
  WriteFileOrDie(folder + "/x.txt", "fine\nbad \xC3\x28 byte\n");
  EXPECT_EQ(Error(LoadDocuments(folder)),
            "DIR/corpus/x.txt:2: the text is not valid UTF-8 (byte 0xc3)");
  WriteFileOrDie(folder + "/x.txt", std::string("nul\0here", 8));
  EXPECT_EQ(Error(LoadDocuments(folder)), "DIR/corpus/x.txt:1: the text contains a NUL character");
  WriteFileOrDie(folder + "/x.txt", std::string(kMaxDocumentBytes + 1, 'z'));
  EXPECT_EQ(Error(LoadDocuments(folder)),
            "DIR/corpus/x.txt: file is larger than " + std::to_string(kMaxDocumentBytes) +
                " bytes");
}

}  // namespace
}  // namespace structtest
