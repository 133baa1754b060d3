#include "core/record_io.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/status_macros.h"
#include "core/bytes.h"
#include "core/json_dom.h"

namespace structtest {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

static_assert(JsonlReader::kLinePadding >= simdjson::SIMDJSON_PADDING);

// nlohmann's type_name() for the same value.
std::string_view TypeName(element e) {
  switch (e.type()) {
    case element_type::ARRAY: return "array";
    case element_type::OBJECT: return "object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE: return "number";
    case element_type::STRING: return "string";
    case element_type::BOOL: return "boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "null";
}

// The value nlohmann's parser gives for the same text: objects keep the last of
// repeated keys, non-negative integers are unsigned. Depth is bounded by simdjson's
// (1024), so the recursion is too.
nlohmann::json ToJson(element e) {
  switch (e.type()) {
    case element_type::ARRAY: {
      nlohmann::json a = nlohmann::json::array();
      // Held in a variable: a range-for over value_unsafe() of a temporary dangles.
      const simdjson::dom::array array = e.get_array().value_unsafe();
      for (element x : array) a.push_back(ToJson(x));
      return a;
    }
    case element_type::OBJECT: {
      nlohmann::json o = nlohmann::json::object();
      const simdjson::dom::object object = e.get_object().value_unsafe();
      for (const auto field : object) {
        o[std::string(field.key)] = ToJson(field.value);
      }
      return o;
    }
    case element_type::INT64: {
      const int64_t i = e.get_int64().value_unsafe();
      return i >= 0 ? nlohmann::json(static_cast<uint64_t>(i)) : nlohmann::json(i);
    }
    case element_type::UINT64: return nlohmann::json(e.get_uint64().value_unsafe());
    case element_type::DOUBLE: return nlohmann::json(e.get_double().value_unsafe());
    case element_type::STRING: return nlohmann::json(std::string(e.get_string().value_unsafe()));
    case element_type::BOOL: return nlohmann::json(e.get_bool().value_unsafe());
    case element_type::NULL_VALUE: return nlohmann::json(nullptr);
  }
  return nlohmann::json(nullptr);
}

// Members of an object read into one that already has the same keys (the next record
// of a file, mostly) are found by a walk that compares sizes first and marked by their
// position in a bit mask: nothing is allocated, and a key the object lacks sends the
// read to the general way.
constexpr size_t kSmallObject = 64;

// The position of `key` in the small `obj`, or obj.size().
size_t MemberAt(nlohmann::json::object_t& obj, std::string_view key,
                nlohmann::json::object_t::iterator* found) {
  size_t i = 0;
  for (auto it = obj.begin(); it != obj.end(); ++it, ++i) {
    if (SameBytes(it->first, key)) {
      *found = it;
      return i;
    }
  }
  return i;
}

void AssignJson(element e, nlohmann::json* out);

// The object case of AssignJson when `obj` has every key of `object` and at most
// kSmallObject members; false (with some members assigned) otherwise.
bool AssignSameKeys(simdjson::dom::object object, nlohmann::json::object_t& obj) {
  if (obj.empty() || obj.size() > kSmallObject) return false;
  uint64_t seen = 0;
  size_t distinct = 0;
  for (const auto field : object) {
    nlohmann::json::object_t::iterator it;
    const size_t at = MemberAt(obj, field.key, &it);
    if (at == obj.size()) return false;
    AssignJson(field.value, &it->second);  // a repeated key: the last one wins
    const uint64_t bit = uint64_t{1} << at;
    distinct += (seen & bit) == 0;
    seen |= bit;
  }
  if (distinct == obj.size()) return true;
  size_t i = 0;  // members this record does not have go
  for (auto it = obj.begin(); it != obj.end(); ++i) {
    it = (seen >> i & 1) != 0 ? std::next(it) : obj.erase(it);
  }
  return true;
}

// *out = ToJson(e), reusing the nodes and string buffers *out already has: records of
// one file mostly share their shape, so reading the next one allocates next to nothing.
void AssignJson(element e, nlohmann::json* out) {
  switch (e.type()) {
    case element_type::OBJECT: {
      if (!out->is_object()) *out = nlohmann::json::object();
      auto& obj = out->get_ref<nlohmann::json::object_t&>();
      const simdjson::dom::object object = e.get_object().value_unsafe();
      if (AssignSameKeys(object, obj)) return;
      // The general way. The entries this object has; any other (left from the last
      // record) goes. They are kept on one stack per thread, this object's above its
      // parents', so that reading a record allocates nothing for them.
      thread_local std::vector<nlohmann::json::object_t::iterator> seen_stack;
      const size_t base = seen_stack.size();
      const auto seen = [&](nlohmann::json::object_t::iterator it) {
        return std::find(seen_stack.begin() + static_cast<ptrdiff_t>(base), seen_stack.end(), it) !=
               seen_stack.end();
      };
      for (const auto field : object) {
        auto it = obj.find(field.key);
        if (it == obj.end()) it = obj.emplace(std::string(field.key), nlohmann::json()).first;
        AssignJson(field.value, &it->second);
        if (!seen(it)) seen_stack.push_back(it);
      }
      if (seen_stack.size() - base != obj.size()) {
        for (auto it = obj.begin(); it != obj.end();) it = seen(it) ? std::next(it) : obj.erase(it);
      }
      seen_stack.resize(base);
      return;
    }
    case element_type::ARRAY: {
      if (!out->is_array()) *out = nlohmann::json::array();
      auto& arr = out->get_ref<nlohmann::json::array_t&>();
      size_t n = 0;
      const simdjson::dom::array array = e.get_array().value_unsafe();
      for (element x : array) {
        if (n == arr.size()) arr.emplace_back();
        AssignJson(x, &arr[n++]);
      }
      arr.resize(n);
      return;
    }
    case element_type::STRING:
      if (out->is_string()) {
        AssignBytes(&out->get_ref<std::string&>(), e.get_string().value_unsafe());
      } else {
        *out = std::string(e.get_string().value_unsafe());
      }
      return;
    default:
      *out = ToJson(e);
  }
}

// A field of an object, the last one when the key repeats (as nlohmann keeps it).
struct Field {
  bool present = false;
  element value;
  bool missing() const { return !present || value.is_null(); }
};

Field Find(element obj, std::string_view key) {
  const std::optional<element> v = LastMember(obj, key);
  return v ? Field{true, *v} : Field{};
}

// SampleFromJson's GetString: `key` in messages only.
Status FieldString(const Field& f, const char* key, bool required, std::string* out) {
  if (f.missing()) {
    if (required) return Status::InvalidArgument(fmt::format("missing field '{}'", key));
    return Status::Ok();
  }
  if (f.value.is_string()) {
    AssignBytes(out, f.value.get_string().value_unsafe());
    return Status::Ok();
  }
  // Ids are sometimes numbers in hand-written files; accept integers for ids only.
  if (std::strcmp(key, "id") == 0) {
    if (f.value.type() == element_type::INT64) {
      *out = std::to_string(f.value.get_int64().value_unsafe());
      return Status::Ok();
    }
    if (f.value.type() == element_type::UINT64) {
      *out = std::to_string(f.value.get_uint64().value_unsafe());
      return Status::Ok();
    }
  }
  return Status::InvalidArgument(
      fmt::format("field '{}' must be a string, found {}", key, TypeName(f.value)));
}

// *out becomes the object (an empty one when the field is missing or null).
Status FieldObject(const Field& f, const char* key, nlohmann::json* out) {
  if (f.missing()) {
    *out = nlohmann::json::object();
    return Status::Ok();
  }
  if (!f.value.is_object()) {
    return Status::InvalidArgument(
        fmt::format("field '{}' must be an object, found {}", key, TypeName(f.value)));
  }
  AssignJson(f.value, out);
  return Status::Ok();
}

// The fields of a record, in one pass over its keys (the last of repeated keys).
struct RecordFields {
  Field id, domain, subtask, params, context, target, messages, response, reasoning;

  explicit RecordFields(simdjson::dom::object obj) {
    for (const auto field : obj) {
      if (Field* f = Of(field.key)) *f = {true, field.value};
    }
  }

 private:
  // The field named `k`, or nullptr; by its size first, as a record has many keys.
  Field* Of(std::string_view k) {
    const auto is = [&](std::string_view name) { return k == name; };
    switch (k.size()) {
      case 2: return is("id") ? &id : nullptr;
      case 6: return is("domain") ? &domain : is("params") ? &params : is("target") ? &target : nullptr;
      case 7: return is("subtask") ? &subtask : is("context") ? &context : nullptr;
      case 8: return is("response") ? &response : is("messages") ? &messages : nullptr;
      case 9: return is("reasoning") ? &reasoning : nullptr;
      default: return nullptr;
    }
  }
};

// Params, context and target are replaced by ReadSample, in place.
void ClearSample(Sample* s) {
  s->id.clear();
  s->domain.clear();
  s->subtask.clear();
  s->messages.clear();
}

// SampleFromJson, field for field and message for message.
Status ReadSample(const RecordFields& r, Sample* s, bool with_prompt = true) {
  RETURN_IF_ERROR(FieldString(r.id, "id", true, &s->id));
  RETURN_IF_ERROR(FieldString(r.domain, "domain", true, &s->domain));
  RETURN_IF_ERROR(FieldString(r.subtask, "subtask", true, &s->subtask));
  RETURN_IF_ERROR(FieldObject(r.params, "params", &s->params));
  RETURN_IF_ERROR(FieldObject(r.context, "context", &s->context));
  if (!with_prompt) return Status::Ok();
  if (r.target.present) {
    AssignJson(r.target.value, &s->target);
  } else {
    s->target = nlohmann::json();
  }
  if (r.messages.missing()) return Status::Ok();
  if (!r.messages.value.is_array()) {
    return Status::InvalidArgument(fmt::format("field 'messages' must be an array, found {}",
                                               TypeName(r.messages.value)));
  }
  const simdjson::dom::array messages = r.messages.value.get_array().value_unsafe();
  for (element m : messages) {
    if (!m.is_object()) {
      return Status::InvalidArgument(fmt::format(
          "field 'messages' must hold objects with role and content, found {}", TypeName(m)));
    }
    Message msg;
    RETURN_IF_ERROR(FieldString(Find(m, "role"), "role", true, &msg.role));
    RETURN_IF_ERROR(FieldString(Find(m, "content"), "content", true, &msg.content));
    s->messages.push_back(std::move(msg));
  }
  return Status::Ok();
}

// Parses `text` with this thread's parser, from a copy padded as simdjson reads (rows
// and requests are read one after another on a thread); false when simdjson refuses
// it. *root is valid until the thread's next call.
bool ParseOnThisThread(std::string_view text, element* root) {
  thread_local simdjson::dom::parser parser;
  thread_local std::string padded;
  padded.assign(text);
  padded.append(JsonlReader::kLinePadding, ' ');
  return !parser.parse(padded.data(), text.size(), /*realloc_if_needed=*/false).get(*root);
}

// RecordFromJson, from the record's parse.
Status ReadRecord(element root, ScoredRecord* record) {
  if (!root.is_object()) {
    return Status::InvalidArgument(
        fmt::format("record must be a JSON object, found {}", TypeName(root)));
  }
  const RecordFields fields(root.get_object().value_unsafe());
  // Cleared field by field rather than replaced, so the strings keep their buffers
  // from one record to the next.
  ClearSample(&record->sample);
  record->response.text.clear();
  record->response.reasoning.clear();
  RETURN_IF_ERROR(ReadSample(fields, &record->sample));
  RETURN_IF_ERROR(FieldString(fields.response, "response", true, &record->response.text));
  return FieldString(fields.reasoning, "reasoning", false, &record->response.reasoning);
}

Status NotAnObjectOfRecords(std::string_view key, std::string_view type) {
  return Status::InvalidArgument(
      fmt::format("expected a JSON object with \"{}\", found {}", key, type));
}
Status MissingRecords(std::string_view key) {
  return Status::InvalidArgument(fmt::format("missing key \"{}\"", key));
}
Status NotAnArrayOfRecords(std::string_view key, std::string_view type) {
  return Status::InvalidArgument(
      fmt::format("{}: expected an array of records, found {}", key, type));
}

// RecordsFromJsonText over nlohmann's parse, for the texts simdjson refuses.
Status RecordsFromJson(nlohmann::json j, std::string_view key, std::vector<ScoredRecord>* records,
                       nlohmann::json* members) {
  if (!j.is_object()) return NotAnObjectOfRecords(key, j.type_name());
  const auto array = j.find(key);
  if (array == j.end() || array->is_null()) return MissingRecords(key);
  if (!array->is_array()) return NotAnArrayOfRecords(key, array->type_name());
  for (size_t i = 0; i < array->size(); ++i) {
    auto record = RecordFromJson((*array)[i]);
    if (!record.ok()) return record.status().WithContext(fmt::format("{}[{}]", key, i));
    records->push_back(std::move(record).value());
  }
  j.erase(array);
  *members = std::move(j);
  return Status::Ok();
}

}  // namespace

class RecordReader::Parser {
 public:
  // Parses `text` (with JsonlReader::kLinePadding readable bytes after it).
  bool Parse(std::string_view text, element* root) {
    return !parser_.parse(text.data(), text.size(), /*realloc_if_needed=*/false).get(*root);
  }

 private:
  simdjson::dom::parser parser_;
};

StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlReader> lines, JsonlReader::Open(path));
  return std::unique_ptr<RecordReader>(new RecordReader(std::move(lines)));
}

RecordReader::RecordReader(std::unique_ptr<JsonlReader> lines)
    : lines_(std::move(lines)), parser_(std::make_unique<Parser>()) {}

RecordReader::~RecordReader() = default;

RecordReader::Result RecordReader::NextRecord(ScoredRecord* record, std::string* problem) {
  std::string_view line;
  const Result r = lines_->NextLine(&line, problem);
  if (r != Result::kRecord) return r;
  auto field_problem = [&](const Status& s) {
    *problem = fmt::format("{}:{}: {}", path(), line_number(), s.message());
    return Result::kBadLine;
  };
  element root;
  if (!parser_->Parse(line, &root)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      *problem = lines_->InvalidJsonProblem(line);
      return Result::kBadLine;
    }
    auto slow = RecordFromJson(j);
    if (!slow.ok()) return field_problem(slow.status());
    *record = std::move(slow).value();
    return Result::kRecord;
  }
  if (Status s = ReadRecord(root, record); !s.ok()) return field_problem(s);
  return Result::kRecord;
}

RecordReader::Result RecordReader::NextSample(Sample* sample, std::string_view* line,
                                              std::string* problem) {
  const Result r = lines_->NextLine(line, problem);
  if (r != Result::kRecord) return r;
  auto field_problem = [&](const Status& s) {
    *problem = fmt::format("{}:{}: {}", path(), line_number(), s.message());
    return Result::kBadLine;
  };
  element root;
  if (!parser_->Parse(*line, &root)) {
    nlohmann::json j = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      *problem = lines_->InvalidJsonProblem(*line);
      return Result::kBadLine;
    }
    auto slow = SampleFromJson(std::move(j));
    if (!slow.ok()) return field_problem(slow.status());
    *sample = std::move(slow).value();
    return Result::kRecord;
  }
  if (!root.is_object()) {
    return field_problem(Status::InvalidArgument(
        fmt::format("record must be a JSON object, found {}", TypeName(root))));
  }
  ClearSample(sample);
  if (Status s = ReadSample(RecordFields(root.get_object().value_unsafe()), sample); !s.ok()) {
    return field_problem(s);
  }
  return Result::kRecord;
}

StatusOr<Sample> SampleFromJsonText(std::string_view text, bool* not_json, bool with_prompt) {
  if (not_json != nullptr) *not_json = false;
  element root;
  if (!ParseOnThisThread(text, &root)) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      if (not_json != nullptr) *not_json = true;
      return Status::InvalidArgument("not valid JSON");
    }
    ASSIGN_OR_RETURN(Sample s, SampleFromJson(std::move(j)));
    if (!with_prompt) {  // as the fast path leaves them
      s.messages.clear();
      s.target = nlohmann::json();
    }
    return s;
  }
  if (!root.is_object()) {
    return Status::InvalidArgument(
        fmt::format("record must be a JSON object, found {}", TypeName(root)));
  }
  Sample s;
  RETURN_IF_ERROR(ReadSample(RecordFields(root.get_object().value_unsafe()), &s, with_prompt));
  return s;
}

Status RecordsFromJsonText(std::string_view text, std::string_view key,
                           std::vector<ScoredRecord>* records, nlohmann::json* members) {
  records->clear();
  *members = nlohmann::json::object();
  element root;
  if (!ParseOnThisThread(text, &root)) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status::InvalidArgument("not JSON: " + DescribeInvalidJson(text));
    return RecordsFromJson(std::move(j), key, records, members);
  }
  if (!root.is_object()) return NotAnObjectOfRecords(key, TypeName(root));
  std::optional<element> array;
  const simdjson::dom::object object = root.get_object().value_unsafe();
  for (const auto field : object) {
    if (field.key == key) {
      array = field.value;  // the last, when the key repeats, as nlohmann keeps it
    } else {
      (*members)[std::string(field.key)] = ToJson(field.value);
    }
  }
  if (!array || array->is_null()) return MissingRecords(key);
  if (!array->is_array()) return NotAnArrayOfRecords(key, TypeName(*array));
  const simdjson::dom::array elements = array->get_array().value_unsafe();
  size_t i = 0;
  for (element e : elements) {
    if (Status s = ReadRecord(e, &records->emplace_back()); !s.ok()) {
      return s.WithContext(fmt::format("{}[{}]", key, i));
    }
    ++i;
  }
  return Status::Ok();
}

bool ParseJsonLikeNlohmann(std::string_view text, nlohmann::json* out) {
  std::string padded(text);
  padded.append(JsonlReader::kLinePadding, ' ');
  simdjson::dom::parser parser;
  element root;
  if (!parser.parse(padded.data(), text.size(), false).get(root)) {
    *out = ToJson(root);
    return true;
  }
  *out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return !out->is_discarded();
}

bool AppendMessagesJson(std::span<const Message> messages, std::string* out) {
  const size_t mark = out->size();
  out->push_back('[');
  bool ok = true;
  for (size_t i = 0; ok && i < messages.size(); ++i) {
    out->append(i == 0 ? "{\"content\":" : ",{\"content\":");
    ok = AppendJsonString(messages[i].content, out);
    out->append(",\"role\":");
    ok = ok && AppendJsonString(messages[i].role, out);
    out->push_back('}');
  }
  out->push_back(']');
  if (!ok) out->resize(mark);
  return ok;
}

namespace {

// AppendSampleJson, and without the prompt and the target AppendSampleHeadJson.
void AppendSampleJsonOf(const Sample& sample, bool with_prompt, std::string* out) {
  // SampleToJson's keys in nlohmann's (sorted) order.
  const size_t mark = out->size();
  out->append("{\"context\":");
  out->append(DumpJsonLine(sample.context));
  out->append(",\"domain\":");
  bool ok = AppendJsonString(sample.domain, out);
  out->append(",\"id\":");
  ok = ok && AppendJsonString(sample.id, out);
  if (with_prompt) {
    out->append(",\"messages\":");
    ok = ok && AppendMessagesJson(sample.messages, out);
  }
  out->append(",\"params\":");
  out->append(DumpJsonLine(sample.params));
  out->append(",\"subtask\":");
  ok = ok && AppendJsonString(sample.subtask, out);
  if (with_prompt) {
    out->append(",\"target\":");
    out->append(DumpJsonLine(sample.target));
  }
  out->push_back('}');
  if (!ok) {  // invalid UTF-8 somewhere: nlohmann's replacement
    out->resize(mark);
    nlohmann::json j = SampleToJson(sample);
    if (!with_prompt) {
      j.erase("messages");
      j.erase("target");
    }
    out->append(DumpJsonLine(j));
  }
}

}  // namespace

void AppendSampleJson(const Sample& sample, std::string* out) {
  AppendSampleJsonOf(sample, /*with_prompt=*/true, out);
}

void AppendSampleHeadJson(const Sample& sample, std::string* out) {
  AppendSampleJsonOf(sample, /*with_prompt=*/false, out);
}

namespace {

// Writes one JSON object's members, in the order given (nlohmann's sorted order is the
// caller's to keep), remembering whether every string was valid UTF-8.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string* out) : out_(out), mark_(out->size()) { out_->push_back('{'); }
  void String(std::string_view key, std::string_view value) {
    Key(key);
    ok_ = ok_ && AppendJsonString(value, out_);
  }
  void Bool(std::string_view key, bool value) {
    Key(key);
    out_->append(value ? std::string_view("true") : std::string_view("false"));
  }
  // Closes the object and a line; false, with what was written taken back, when a
  // string was not valid UTF-8 (the caller then writes nlohmann's replacement).
  bool CloseLine() {
    out_->append("}\n");
    if (!ok_) out_->resize(mark_);
    return ok_;
  }

 private:
  // `,"key":`, appended in one piece.
  void Key(std::string_view key) {
    char piece[32];
    if (key.size() + 4 > sizeof piece) {  // longer than any key written here
      out_->append(first_ ? "\"" : ",\"").append(key).append("\":");
      first_ = false;
      return;
    }
    size_t n = 0;
    if (!first_) piece[n++] = ',';
    first_ = false;
    piece[n++] = '"';
    std::memcpy(piece + n, key.data(), key.size());
    n += key.size();
    piece[n++] = '"';
    piece[n++] = ':';
    out_->append(piece, n);
  }
  std::string* out_;
  size_t mark_;
  bool first_ = true;
  bool ok_ = true;
};

// Copies the literal `text` (its size known here, so no call) to p; returns the end.
template <size_t N>
char* Put(char* p, const char (&text)[N]) {
  std::memcpy(p, text, N - 1);
  return p + N - 1;
}

char* PutBool(char* p, bool b) { return b ? Put(p, "true") : Put(p, "false"); }

// A verdict's score as nlohmann writes the double (the line must equal VerdictToJson's).
// Scores are few distinct fractions, so each is formatted once per thread.
std::string_view ScoreText(const Verdict& verdict) {
  thread_local std::unordered_map<double, std::string> texts;
  const double score = verdict.score();
  auto [it, added] = texts.try_emplace(score);
  if (added) it->second = nlohmann::json(score).dump();
  return it->second;
}

}  // namespace

void AppendVerdictLine(const Sample& sample, const Verdict& verdict, std::string* out) {
  // VerdictToJson's keys in nlohmann's (sorted) order; the line is the hot path of
  // `score`, so it is written here key by key rather than through ObjectWriter, into
  // room for the longest escape of its strings.
  const std::string_view score = ScoreText(verdict);
  size_t bound = sizeof R"({"accuracy":false,"checks":[],"domain":,"format":false,"id":,)"
                 R"("pass":false,"reason":,"rules":,"rules_version":,"score":,"subtask":})" "\n" +
                 score.size();
  for (const std::string_view s : {std::string_view(sample.domain), std::string_view(sample.id),
                                   std::string_view(verdict.reason), verdict.rules,
                                   verdict.rules_version, std::string_view(sample.subtask)}) {
    bound += JsonStringBound(s.size());
  }
  for (const RuleCheck& c : verdict.checks) {
    bound += sizeof R"({"detail":,"name":,"result":"not-checked"},)" +
             JsonStringBound(c.detail.size()) + JsonStringBound(c.name.size());
  }
  const size_t at = out->size();
  out->resize(at + bound);
  char* const begin = out->data() + at;
  char* p = begin;
  bool utf8 = true;
  const auto string = [&](std::string_view s) {
    // On invalid UTF-8, p stays: the rest is written over what this wrote, and dropped.
    if (char* end = WriteJsonStringUnsized(s, p); end != nullptr) {
      p = end;
    } else {
      utf8 = false;
    }
  };
  *p++ = '{';
  if (verdict.accuracy) {
    p = PutBool(Put(p, "\"accuracy\":"), *verdict.accuracy);
    *p++ = ',';
  }
  p = Put(p, "\"checks\":[");
  for (size_t i = 0; i < verdict.checks.size(); ++i) {
    const RuleCheck& c = verdict.checks[i];
    if (i > 0) *p++ = ',';
    p = Put(p, "{\"detail\":");
    string(c.detail);
    p = Put(p, ",\"name\":");
    string(c.name);
    p = Put(p, ",\"result\":\"");
    const std::string_view result = RuleResultName(c.result);
    std::memcpy(p, result.data(), result.size());
    p += result.size();
    p = Put(p, "\"}");
  }
  p = Put(p, "],\"domain\":");
  string(sample.domain);
  if (verdict.format) p = PutBool(Put(p, ",\"format\":"), *verdict.format);
  p = Put(p, ",\"id\":");
  string(sample.id);
  p = PutBool(Put(p, ",\"pass\":"), verdict.pass);
  p = Put(p, ",\"reason\":");
  string(verdict.reason);
  p = Put(p, ",\"rules\":");
  string(verdict.rules);
  p = Put(p, ",\"rules_version\":");
  string(verdict.rules_version);
  p = Put(p, ",\"score\":");
  std::memcpy(p, score.data(), score.size());
  p += score.size();
  p = Put(p, ",\"subtask\":");
  string(sample.subtask);
  if (!utf8) {  // nlohmann's replacement
    out->resize(at);
    out->append(DumpJsonLine(VerdictToJson(sample, verdict)));
    out->push_back('\n');
    return;
  }
  p = Put(p, "}\n");
  out->resize(at + static_cast<size_t>(p - begin));
}

void AppendScoreErrorLine(const Sample& sample, std::string_view error, RuleSet rules,
                          std::string* out) {
  ObjectWriter w(out);
  w.String("domain", sample.domain);
  w.String("error", error);
  w.String("id", sample.id);
  w.String("rules", RuleSetName(rules));
  w.String("subtask", sample.subtask);
  if (!w.CloseLine()) {
    const nlohmann::json j = {{"id", sample.id},
                              {"domain", sample.domain},
                              {"subtask", sample.subtask},
                              {"error", std::string(error)},
                              {"rules", std::string(RuleSetName(rules))}};
    out->append(DumpJsonLine(j));
    out->push_back('\n');
  }
}

}  // namespace structtest
