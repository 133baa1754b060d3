#include "backends/batch_api.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "backends/providers.h"
#include "core/hash.h"

namespace structtest {
namespace {

using nlohmann::json;

constexpr std::string_view kOpenAiBatchUrl = "/v1/chat/completions";
constexpr std::string_view kAnthropicApiVersion = "2023-06-01";
// Bytes a batch's input holds besides its entries (the create call's envelope).
constexpr int64_t kEnvelopeBytes = 4096;

json Parse(std::string_view text) { return json::parse(text, nullptr, /*allow_exceptions=*/false); }

std::string Str(const json& j, std::string_view key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// An integer field that may come as a number or, in Google's JSON, a string.
int64_t Int(const json& j, std::string_view key) {
  if (!j.is_object()) return 0;
  const auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    return end != s.c_str() && *end == '\0' ? v : 0;
  }
  return 0;
}

// An id the provider gave, put into a URL path: letters, digits and -_. (gemini's
// "batches/..." and "files/..." have one slash).
Status CheckId(std::string_view id, Provider provider, std::string_view gemini_kind = "batches/") {
  std::string_view rest = id;
  if (provider == Provider::kGemini) {
    if (!rest.starts_with(gemini_kind)) {
      return Status::InvalidArgument(
          fmt::format("gemini name '{}': expected {}ID", id.substr(0, 80), gemini_kind));
    }
    rest.remove_prefix(gemini_kind.size());
  }
  const bool plain = !rest.empty() && rest.size() <= 200 &&
                     std::all_of(rest.begin(), rest.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
                     });
  if (!plain) {
    return Status::InvalidArgument(
        fmt::format("{}: unexpected batch or file id '{}'", ProviderName(provider),
                    id.substr(0, 80)));
  }
  return Status::Ok();
}

// `text` with every byte but letters, digits and -_.~ percent-encoded: a page token in
// a query.
std::string PercentEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.' || c == '~';
    out += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out;
}

// A request's error as the result of a batch item: retryable unless the provider said
// the request itself is wrong. `source`: "openai batch", "offline batch"...
ModelResult ItemError(std::string_view source, std::string_view message, bool retryable) {
  ModelResult r;
  r.error = retryable ? ErrorKind::kRetryable : ErrorKind::kFatal;
  r.error_message = fmt::format("{}: {}", source, message.empty() ? "no message" : message);
  return r;
}

// "a: b" of the parts that are there.
std::string Joined(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += ": ";
    out += p;
  }
  return out;
}

// A JSON value as words: a string as it is, a number written out, else "".
std::string Words(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  return "";
}

// "2024-09-24T18:37:24.100435Z" -> ms since the epoch; nullopt when unreadable.
std::optional<int64_t> ParseRfc3339(std::string_view text) {
  int y, mo, d, h, mi, s;
  if (std::sscanf(std::string(text).c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

// The lines of a JSONL results file, numbered from 1 (a '\r' before the '\n' dropped,
// blank lines skipped, still counted), each given to `on_line` until one fails.
Status ForEachJsonlLine(std::string_view text,
                        const std::function<Status(std::string_view, size_t)>& on_line) {
  size_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    RETURN_IF_ERROR(on_line(line, number));
  }
  return Status::Ok();
}

}  // namespace

BatchLimits BatchLimitsOf(Provider provider) {
  switch (provider) {
    case Provider::kOpenAi: return {50'000, 200'000'000};
    case Provider::kAnthropic: return {100'000, 256'000'000};
    case Provider::kGemini: return {0, 2'000'000'000};
  }
  return {};
}

std::string BatchCustomId(int64_t index, std::string_view body, int64_t repeat) {
  if (repeat > 0) return fmt::format("s{}r{}-{:016x}", index, repeat, Fnv1a(body));
  return fmt::format("s{}-{:016x}", index, Fnv1a(body));
}

namespace {

// The number `digits` writes (1 to 18 decimal digits, so that it fits), or nullopt.
std::optional<int64_t> ReadNumber(std::string_view digits) {
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

std::optional<CustomIdParts> ParseCustomId(std::string_view id) {
  if (id.size() < 19 || id.front() != 's') return std::nullopt;
  const size_t dash = id.find('-');
  if (dash == std::string_view::npos || dash < 2 || id.size() != dash + 17) return std::nullopt;
  for (char c : id.substr(dash + 1)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  const std::string_view head = id.substr(1, dash - 1);
  const size_t r = head.find('r');
  CustomIdParts parts;
  const std::optional<int64_t> index = ReadNumber(head.substr(0, r));
  if (!index) return std::nullopt;
  parts.index = *index;
  if (r != std::string_view::npos) {
    // "r0" is never written: repeat 0 has the id it had before repeats.
    const std::optional<int64_t> repeat = ReadNumber(head.substr(r + 1));
    if (!repeat || *repeat == 0 || head[r + 1] == '0') return std::nullopt;
    parts.repeat = *repeat;
  }
  return parts;
}

std::optional<int64_t> CustomIdIndex(std::string_view id) {
  const std::optional<CustomIdParts> parts = ParseCustomId(id);
  if (!parts) return std::nullopt;
  return parts->index;
}

StatusOr<BatchEntry> MakeBatchEntry(Provider provider, int64_t index, const ModelRequest& request,
                                    int64_t repeat) {
  ASSIGN_OR_RETURN(HttpRequest http, BuildHttpRequest(provider, request, "", ""));
  BatchEntry e;
  e.custom_id = BatchCustomId(index, http.body, repeat);
  // The body goes in as it is, byte for byte the online request's.
  switch (provider) {
    case Provider::kOpenAi:
      e.json = fmt::format(R"({{"custom_id":"{}","method":"POST","url":"{}","body":{}}})",
                           e.custom_id, kOpenAiBatchUrl, http.body);
      break;
    case Provider::kAnthropic:
      e.json = fmt::format(R"({{"custom_id":"{}","params":{}}})", e.custom_id, http.body);
      break;
    case Provider::kGemini:
      e.json = fmt::format(R"({{"key":"{}","request":{}}})", e.custom_id, http.body);
      break;
  }
  return e;
}

std::vector<size_t> SplitIntoBatches(const std::vector<size_t>& sizes, const BatchLimits& limits) {
  std::vector<size_t> out;
  size_t count = 0;
  int64_t bytes = kEnvelopeBytes;
  for (size_t size : sizes) {
    const int64_t with = bytes + static_cast<int64_t>(size) + 1;  // and a separator
    const bool full = count > 0 && ((limits.max_requests > 0 &&
                                     static_cast<int64_t>(count) >= limits.max_requests) ||
                                    (limits.max_bytes > 0 && with > limits.max_bytes));
    if (full) {
      out.push_back(count);
      count = 0;
      bytes = kEnvelopeBytes;
    }
    ++count;
    bytes += static_cast<int64_t>(size) + 1;
  }
  if (count > 0) out.push_back(count);
  return out;
}

StatusOr<BatchItemResult> ParseOpenAiBatchLine(std::string_view line, std::string_view source) {
  const json j = Parse(line);
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  BatchItemResult out;
  out.custom_id = Str(j, "custom_id");
  if (out.custom_id.empty()) return Status::InvalidArgument("no custom_id");
  const auto response = j.find("response");
  const bool has_response = response != j.end() && response->is_object();
  std::optional<int> status;
  if (has_response) {
    if (const auto s = response->find("status_code"); s != response->end() && s->is_number_integer()) {
      status = s->get<int>();
    }
  }
  const auto error = j.find("error");
  if (error != j.end() && !error->is_null()) {
    // The shapes (the line's `error` is typed Any in vLLM's BatchRequestOutput,
    // vllm/entrypoints/openai/run_batch.py at 0056ae7b2144abbc7b4916a43491c154567e0b76):
    //   "text"                                 vLLM: an exception's str(), status_code 400
    //   {"error": {"message", "type", "code"}} vLLM: ErrorResponse (protocol.py at
    //                                          0052bed36509c7a5a2d8e48265334e40cf2f5a0e)
    //   {"object": "error", "message", "type", "code"}  older vLLM's flat ErrorResponse
    //   {"code", "message", "param", "line"}   OpenAI: BatchError (openai-python
    //                                          src/openai/types/batch_error.py at
    //                                          e43b422412a9e96c9cc5192c61fffbe2d7e04836);
    //                                          "batch_expired", "batch_cancelled"
    const json& e = error->is_object() && error->contains("error") && (*error)["error"].is_object()
                        ? (*error)["error"]
                        : *error;
    std::string message, kind;
    if (e.is_string()) {
      message = e.get<std::string>();
    } else if (e.is_object()) {
      message = Words(e.value("message", json()));
      kind = Words(e.value("type", json()));
      const std::string code = Words(e.value("code", json()));
      // An ErrorResponse's code is the HTTP status the line has already.
      if (!code.empty() && (!status || code != std::to_string(*status))) kind = Joined({code, kind});
    } else {
      message = e.dump();
    }
    if (message.size() > 500) message.resize(500);
    // With an HTTP status, as online; without one (OpenAI's expired and cancelled
    // requests), a request that did not run: asked again.
    const bool retryable = !status || *status == 408 || *status == 429 || *status >= 500 ||
                           *status < 400;
    out.result = ItemError(
        source, Joined({status && *status != 200 ? fmt::format("HTTP {}", *status) : "", kind, message}),
        retryable);
    if (status) out.result.http_status = *status;
    return out;
  }
  if (!has_response) return Status::InvalidArgument("neither a response nor an error");
  if (!status) return Status::InvalidArgument("response has no status_code");
  const auto body = response->find("body");
  if (body == response->end() || (body->is_null() && *status >= 200 && *status <= 299)) {
    return Status::InvalidArgument("response has no body");
  }
  out.result = ParseHttpReply(Provider::kOpenAi, *status,
                              body->is_string() ? body->get<std::string>()
                              : body->is_null() ? std::string()
                                                : body->dump(),
                              "");
  // ParseHttpReply's "openai: HTTP 400: ..." as `source` says it.
  std::string& m = out.result.error_message;
  if (!m.empty()) {
    const std::string prefix = fmt::format("{}: ", ProviderName(Provider::kOpenAi));
    m = fmt::format("{}: {}", source, m.starts_with(prefix) ? m.substr(prefix.size()) : m);
  }
  return out;
}

StatusOr<BatchItemResult> ParseAnthropicBatchLine(std::string_view line) {
  const json j = Parse(line);
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  BatchItemResult out;
  out.custom_id = Str(j, "custom_id");
  if (out.custom_id.empty()) return Status::InvalidArgument("no custom_id");
  const auto result = j.find("result");
  if (result == j.end() || !result->is_object()) return Status::InvalidArgument("no result");
  const std::string type = Str(*result, "type");
  if (type == "succeeded") {
    const auto message = result->find("message");
    if (message == result->end()) return Status::InvalidArgument("a succeeded result with no message");
    out.result = ParseHttpReply(Provider::kAnthropic, 200, message->dump(), "");
  } else if (type == "errored") {
    const json error = result->value("error", json::object());
    const json inner = error.value("error", json::object());
    const std::string kind = Str(inner, "type");
    // A request the API refused is refused again; a server-side error is worth another.
    const bool retryable = kind != "invalid_request_error";
    const std::string message = Str(inner, "message");
    out.result = ItemError("anthropic batch", Joined({kind, message}), retryable);
    out.result.http_status = retryable ? 500 : 400;
  } else if (type == "canceled" || type == "expired") {
    out.result = ItemError("anthropic batch", "request " + type, /*retryable=*/true);
  } else {
    return Status::InvalidArgument(fmt::format("unknown result type '{}'", type));
  }
  return out;
}

ModelResult GeminiItemError(int64_t code, std::string_view message) {
  // google.rpc.Code (googleapis/google/rpc/code.proto): its name, its HTTP mapping, and
  // whether the same request can succeed later.
  struct RpcCode {
    std::string_view name;
    int http;
    bool retryable;
  };
  static constexpr RpcCode kCodes[] = {
      {"OK", 200, true},                     // 0: not an error; asked again
      {"CANCELLED", 499, true},              // 1
      {"UNKNOWN", 500, true},                // 2
      {"INVALID_ARGUMENT", 400, false},      // 3
      {"DEADLINE_EXCEEDED", 504, true},      // 4
      {"NOT_FOUND", 404, false},             // 5
      {"ALREADY_EXISTS", 409, false},        // 6
      {"PERMISSION_DENIED", 403, false},     // 7
      {"RESOURCE_EXHAUSTED", 429, true},     // 8
      {"FAILED_PRECONDITION", 400, false},   // 9
      {"ABORTED", 409, true},                // 10
      {"OUT_OF_RANGE", 400, false},          // 11
      {"UNIMPLEMENTED", 501, false},         // 12
      {"INTERNAL", 500, true},               // 13
      {"UNAVAILABLE", 503, true},            // 14
      {"DATA_LOSS", 500, true},              // 15
      {"UNAUTHENTICATED", 401, false},       // 16
  };
  std::string what;
  int http = 500;
  bool retryable = true;
  if (code >= 0 && code < static_cast<int64_t>(std::size(kCodes))) {
    const RpcCode& c = kCodes[code];
    what = fmt::format("{} ({})", c.name, code);
    http = c.http;
    retryable = c.retryable;
  } else if (code >= 100 && code <= 599) {
    // Not an rpc code: an HTTP status, retryable as online.
    what = fmt::format("HTTP {}", code);
    http = static_cast<int>(code);
    retryable = code == 408 || code == 429 || code >= 500;
  } else {
    what = fmt::format("code {}", code);
  }
  ModelResult r = ItemError("gemini batch", Joined({what, message}), retryable);
  r.http_status = http;
  return r;
}

namespace {

// One Gemini response ({"response"} or {"error"}) as a result; `where` names it.
StatusOr<ModelResult> GeminiItem(const json& item, std::string_view where) {
  if (const auto response = item.find("response"); response != item.end() && response->is_object()) {
    ModelResult r = ParseHttpReply(Provider::kGemini, 200, response->dump(), "");
    // "gemini: HTTP 200: malformed response body: ..." as a batch's.
    if (!r.ok()) {
      std::string_view m = r.error_message;
      if (m.starts_with("gemini: ")) m.remove_prefix(8);
      r.error_message = fmt::format("gemini batch: {}", m);
    }
    return r;
  }
  // The file's lines are "a GenerateContentResponse or a status object" (the batch mode
  // guide): `error`, or `status` for the same google.rpc.Status.
  for (const char* field : {"error", "status"}) {
    const auto error = item.find(field);
    if (error == item.end() || !error->is_object()) continue;
    std::string message = Words(error->value("message", json()));
    if (message.size() > 500) message.resize(500);
    return GeminiItemError(Int(*error, "code"), message);
  }
  return Status::InvalidArgument(fmt::format("{} has neither a response nor an error", where));
}

// The batch's output in `op`: its `response`, else `metadata.output` (google-genai reads
// the latter: _BatchJob_from_mldev in google/genai/batches.py at
// 66807187f2123c6676175ac991f4e34eb09200d1). Null when it has neither.
const json* GeminiOutput(const json& op, std::string_view field) {
  if (const auto r = op.find("response"); r != op.end() && r->is_object() && r->contains(field)) {
    return &*r;
  }
  if (const auto m = op.find("metadata"); m != op.end() && m->is_object()) {
    if (const auto o = m->find("output"); o != m->end() && o->is_object() && o->contains(field)) {
      return &*o;
    }
  }
  return nullptr;
}

}  // namespace

StatusOr<BatchResults> ParseGeminiBatchOutput(std::string_view operation) {
  const json op = Parse(operation);
  if (!op.is_object()) return Status::InvalidArgument("gemini batch: the operation is not a JSON object");
  BatchResults out;
  const json* output = GeminiOutput(op, "inlinedResponses");
  if (output == nullptr) return out;  // none came back: every request is asked again
  const json& wrapper = (*output)["inlinedResponses"];
  const json* items = &wrapper;
  if (wrapper.is_object()) {
    const auto list = wrapper.find("inlinedResponses");
    if (list == wrapper.end()) return out;
    items = &*list;
  }
  if (!items->is_array()) return out;
  for (size_t i = 0; i < items->size(); ++i) {
    const json& item = (*items)[i];
    if (!item.is_object()) {
      return Status::InvalidArgument(fmt::format("gemini batch: response {} is not an object", i));
    }
    // Its key, or nothing: the order of inline responses is not kept (python-genai#1909)
    // and their keys may be missing (python-genai#2008), so one without a key is no
    // one's answer.
    const std::string key = Str(item.value("metadata", json::object()), "key");
    ASSIGN_OR_RETURN(ModelResult result, GeminiItem(item, fmt::format("gemini batch: response {}", i)));
    if (key.empty()) {
      ++out.unkeyed;
      continue;
    }
    out.items.push_back(BatchItemResult{key, std::move(result)});
  }
  return out;
}

std::string GeminiResponsesFile(std::string_view operation) {
  const json op = Parse(operation);
  if (!op.is_object()) return "";
  const json* output = GeminiOutput(op, "responsesFile");
  return output == nullptr ? "" : Str(*output, "responsesFile");
}

StatusOr<BatchResults> ParseGeminiResponsesFile(std::string_view text) {
  BatchResults out;
  RETURN_IF_ERROR(ForEachJsonlLine(text, [&](std::string_view line, size_t number) -> Status {
    const json item = Parse(line);
    if (!item.is_object()) {
      return Status::InvalidArgument(fmt::format("line {}: not a JSON object", number));
    }
    ASSIGN_OR_RETURN(ModelResult result, GeminiItem(item, fmt::format("line {}", number)));
    // The key the input line gave; a line without one is no one's answer.
    std::string key = Str(item, "key");
    if (key.empty()) key = Str(item.value("metadata", json::object()), "key");
    if (key.empty()) {
      ++out.unkeyed;
      return Status::Ok();
    }
    out.items.push_back(BatchItemResult{std::move(key), std::move(result)});
    return Status::Ok();
  }));
  return out;
}

BatchApi::BatchApi(Provider provider, std::string base_url, std::string api_key,
                   std::vector<HttpHeader> headers, HttpTransport* transport)
    : provider_(provider),
      base_url_(base_url.empty() ? std::string(DefaultBaseUrl(provider)) : std::move(base_url)),
      api_key_(std::move(api_key)),
      headers_(std::move(headers)),
      transport_(transport) {}

std::string HeaderValue(const HttpAnswer& answer, std::string_view name) {
  for (std::string_view line : answer.headers) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !SameHeaderName(line.substr(0, colon), name)) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) {
      value.remove_suffix(1);
    }
    return std::string(value);
  }
  return "";
}

std::string BatchApi::Url(std::string_view path) const { return internal::JoinUrl(base_url_, path); }

std::vector<std::string> BatchApi::Headers() const {
  std::vector<std::string> h;
  if (!api_key_.empty()) {
    switch (provider_) {
      case Provider::kOpenAi: h.push_back("Authorization: Bearer " + api_key_); break;
      case Provider::kAnthropic: h.push_back("x-api-key: " + api_key_); break;
      case Provider::kGemini: h.push_back("x-goog-api-key: " + api_key_); break;
    }
  }
  if (provider_ == Provider::kAnthropic) {
    h.push_back(fmt::format("anthropic-version: {}", kAnthropicApiVersion));
  }
  for (const HttpHeader& extra : headers_) {
    std::erase_if(h, [&](std::string_view line) {
      return SameHeaderName(line.substr(0, line.find(':')), extra.name);
    });
    h.push_back(fmt::format("{}: {}", extra.name, extra.value));
  }
  return h;
}

StatusOr<std::string> BatchApi::Call(std::string_view what, std::string method, std::string url,
                                     std::string body, std::vector<std::string> extra_headers) {
  ASSIGN_OR_RETURN(HttpAnswer answer, CallForAnswer(what, std::move(method), std::move(url),
                                                    std::move(body), std::move(extra_headers)));
  return std::move(answer.body);
}

StatusOr<HttpAnswer> BatchApi::CallForAnswer(std::string_view what, std::string method,
                                             std::string url, std::string body,
                                             std::vector<std::string> extra_headers) {
  HttpExchange x;
  x.method = std::move(method);
  x.url = std::move(url);
  x.headers = Headers();
  if (extra_headers.empty() && x.method == "POST") extra_headers.push_back("Content-Type: application/json");
  x.headers.insert(x.headers.end(), extra_headers.begin(), extra_headers.end());
  x.body = std::move(body);
  const std::string_view name = ProviderName(provider_);
  StatusOr<HttpAnswer> answer = transport_->Send(x);
  if (!answer.ok()) {
    return Status::Unavailable(RedactSecret(
        fmt::format("{} batch: {}: {}", name, what, answer.status().message()), api_key_));
  }
  if (answer->status >= 200 && answer->status <= 299) return *std::move(answer);
  // The provider's message, as the online client shows it.
  const ModelResult r = ParseHttpReply(provider_, answer->status, answer->body, api_key_);
  const std::string message = fmt::format("{} batch: {}: {}", name, what, r.error_message);
  if (r.error == ErrorKind::kRetryable) return Status::Unavailable(message);
  return Status::InvalidArgument(message);
}

StatusOr<std::string> BatchApi::Submit(std::string_view key, std::string_view model,
                                       const std::vector<std::string>& entries) {
  std::string joined;
  size_t size = 0;
  for (const std::string& e : entries) size += e.size() + 1;
  joined.reserve(size);
  json made;
  switch (provider_) {
    case Provider::kOpenAi: {
      for (const std::string& e : entries) {
        joined += e;
        joined += '\n';
      }
      // The input file, as multipart/form-data; the boundary cannot occur in JSON lines.
      const std::string boundary = fmt::format("structtest-{:016x}", Fnv1a(joined));
      std::string form = fmt::format(
          "--{0}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{0}\r\n"
          "Content-Disposition: form-data; name=\"file\"; filename=\"structtest-{1}.jsonl\"\r\n"
          "Content-Type: application/jsonl\r\n\r\n",
          boundary, key);
      form += joined;
      form += fmt::format("\r\n--{}--\r\n", boundary);
      ASSIGN_OR_RETURN(const std::string uploaded,
                       Call("uploading the input file", "POST", Url("files"), std::move(form),
                            {"Content-Type: multipart/form-data; boundary=" + boundary}));
      const std::string file_id = Str(Parse(uploaded), "id");
      RETURN_IF_ERROR(CheckId(file_id, provider_));
      const json create = {{"input_file_id", file_id},
                           {"endpoint", kOpenAiBatchUrl},
                           {"completion_window", "24h"},
                           {"metadata", {{"structtest_key", key}}}};
      ASSIGN_OR_RETURN(const std::string created,
                       Call("creating the batch", "POST", Url("batches"), create.dump()));
      made = Parse(created);
      break;
    }
    case Provider::kAnthropic: {
      joined = R"({"requests":[)";
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) joined += ',';
        joined += entries[i];
      }
      joined += "]}";
      ASSIGN_OR_RETURN(const std::string created, Call("creating the batch", "POST",
                                                       Url("v1/messages/batches"), std::move(joined)));
      made = Parse(created);
      break;
    }
    case Provider::kGemini: {
      // A file of {"key", "request"} lines, whose responses file gives each answer its
      // key back: inline requests' answers came without them (python-genai#2008).
      for (const std::string& e : entries) {
        joined += e;
        joined += '\n';
      }
      ASSIGN_OR_RETURN(const std::string file, UploadGeminiFile(key, std::move(joined)));
      // The body google-genai sends for batches.create(src=file name):
      // _CreateBatchJobParameters_to_mldev and _BatchJobSource_to_mldev in
      // google/genai/batches.py (at 66807187f2123c6676175ac991f4e34eb09200d1).
      const json create = {{"batch", {{"displayName", key}, {"inputConfig", {{"fileName", file}}}}}};
      ASSIGN_OR_RETURN(const std::string created,
                       Call("creating the batch", "POST",
                            Url(fmt::format("v1beta/models/{}:batchGenerateContent", model)),
                            create.dump()));
      made = Parse(created);
      break;
    }
  }
  const std::string id = Str(made, provider_ == Provider::kGemini ? "name" : "id");
  if (id.empty()) {
    return Status::Unavailable(fmt::format(
        "{} batch: creating the batch: the answer names no batch", ProviderName(provider_)));
  }
  RETURN_IF_ERROR(CheckId(id, provider_));
  return id;
}

StatusOr<std::string> BatchApi::UploadGeminiFile(std::string_view key, std::string jsonl) {
  // The Files API's resumable upload, as google-genai makes it (files.py upload() and
  // _extra_utils.py prepare_resumable_upload(), _api_client.py upload_file(), at
  // 66807187f2123c6676175ac991f4e34eb09200d1): a start that returns the session's
  // address in x-goog-upload-url, then the bytes in one "upload, finalize" call.
  const json start = {{"file", {{"display_name", key}}}};
  ASSIGN_OR_RETURN(const HttpAnswer session,
                   CallForAnswer("uploading the input file", "POST", Url("upload/v1beta/files"),
                                 start.dump(),
                                 {"Content-Type: application/json",
                                  "X-Goog-Upload-Protocol: resumable",
                                  "X-Goog-Upload-Command: start",
                                  fmt::format("X-Goog-Upload-Header-Content-Length: {}", jsonl.size()),
                                  "X-Goog-Upload-Header-Content-Type: application/jsonl"}));
  const std::string upload_url = HeaderValue(session, "x-goog-upload-url");
  if (!upload_url.starts_with("https://") && !upload_url.starts_with("http://")) {
    return Status::Unavailable(
        "gemini batch: uploading the input file: the answer has no x-goog-upload-url");
  }
  ASSIGN_OR_RETURN(const HttpAnswer done,
                   CallForAnswer("uploading the input file", "POST", upload_url, std::move(jsonl),
                                 {"X-Goog-Upload-Command: upload, finalize", "X-Goog-Upload-Offset: 0"}));
  if (const std::string state = HeaderValue(done, "x-goog-upload-status");
      !state.empty() && state != "final") {
    return Status::Unavailable(fmt::format(
        "gemini batch: uploading the input file: the upload is '{}', not final", state));
  }
  const std::string name = Str(Parse(done.body).value("file", json::object()), "name");
  RETURN_IF_ERROR(CheckId(name, provider_, "files/"));
  return name;
}

StatusOr<std::optional<std::string>> BatchApi::FindByKey(std::string_view key, int64_t requests,
                                                         int64_t since_ms,
                                                         const std::vector<std::string>& known) {
  // A few pages of the newest batches: the one looked for was made minutes ago.
  constexpr int kPages = 10;
  std::string after;
  std::vector<std::string> candidates;
  for (int page = 0; page < kPages; ++page) {
    std::string url;
    switch (provider_) {
      case Provider::kOpenAi:
        url = Url("batches?limit=100" + (after.empty() ? "" : "&after=" + after));
        break;
      case Provider::kAnthropic:
        url = Url("v1/messages/batches?limit=100" + (after.empty() ? "" : "&after_id=" + after));
        break;
      case Provider::kGemini:
        url = Url("v1beta/batches?pageSize=100" + (after.empty() ? "" : "&pageToken=" + after));
        break;
    }
    ASSIGN_OR_RETURN(const std::string text, Call("listing batches", "GET", url, ""));
    const json list = Parse(text);
    const json& items = list.value(provider_ == Provider::kGemini ? "operations" : "data",
                                   json::array());
    if (!items.is_array()) break;
    bool older = false;  // reached batches made before the one looked for
    for (const json& b : items) {
      switch (provider_) {
        case Provider::kOpenAi:
          if (Str(b.value("metadata", json::object()), "structtest_key") == key) {
            return std::optional<std::string>(Str(b, "id"));
          }
          if (Int(b, "created_at") * 1000 < since_ms - 60'000) older = true;
          break;
        case Provider::kAnthropic: {
          const std::optional<int64_t> created = ParseRfc3339(Str(b, "created_at"));
          if (!created || *created < since_ms - 60'000) {
            older = true;
            break;
          }
          const json counts = b.value("request_counts", json::object());
          int64_t total = 0;
          for (const char* k : {"processing", "succeeded", "errored", "canceled", "expired"}) {
            total += Int(counts, k);
          }
          const std::string id = Str(b, "id");
          if (total == requests && std::find(known.begin(), known.end(), id) == known.end()) {
            candidates.push_back(id);
          }
          break;
        }
        case Provider::kGemini: {
          const json meta = b.value("metadata", json::object());
          if (Str(meta, "displayName") == key || Str(meta, "display_name") == key) {
            return std::optional<std::string>(Str(b, "name"));
          }
          break;
        }
      }
    }
    if (older) break;
    if (provider_ == Provider::kGemini) {
      after = Str(list, "nextPageToken");
      if (after.empty()) break;
    } else {
      if (!list.value("has_more", false)) break;
      after = Str(list, "last_id");
      if (after.empty()) break;
    }
    after = PercentEncode(after);
  }
  if (candidates.size() == 1) return std::optional<std::string>(candidates.front());
  return std::optional<std::string>();
}

StatusOr<BatchStatus> BatchApi::Get(std::string_view id) {
  RETURN_IF_ERROR(CheckId(id, provider_));
  BatchStatus s;
  s.id = std::string(id);
  switch (provider_) {
    case Provider::kOpenAi: {
      ASSIGN_OR_RETURN(const std::string text,
                       Call("polling the batch", "GET", Url(fmt::format("batches/{}", id)), ""));
      const json b = Parse(text);
      s.state = Str(b, "status");
      const json counts = b.value("request_counts", json::object());
      s.total = Int(counts, "total");
      s.done = Int(counts, "completed");
      s.failed = Int(counts, "failed");
      s.output_file = Str(b, "output_file_id");
      s.error_file = Str(b, "error_file_id");
      if (s.state == "completed" || s.state == "expired" || s.state == "cancelled") {
        s.phase = BatchPhase::kEnded;
      } else if (s.state == "failed") {
        s.phase = BatchPhase::kFailed;
        const json errors = b.value("errors", json::object());
        for (const json& e : errors.value("data", json::array())) {
          s.detail += (s.detail.empty() ? "" : "; ") + Str(e, "message");
        }
      } else if (s.state.empty()) {
        return Status::Unavailable(fmt::format("openai batch {}: the answer has no status", id));
      }
      break;
    }
    case Provider::kAnthropic: {
      ASSIGN_OR_RETURN(const std::string text,
                       Call("polling the batch", "GET",
                            Url(fmt::format("v1/messages/batches/{}", id)), ""));
      const json b = Parse(text);
      s.state = Str(b, "processing_status");
      const json counts = b.value("request_counts", json::object());
      s.done = Int(counts, "succeeded");
      s.failed = Int(counts, "errored") + Int(counts, "canceled") + Int(counts, "expired");
      s.total = s.done + s.failed + Int(counts, "processing");
      s.results_url = Str(b, "results_url");
      if (s.state == "ended") {
        s.phase = BatchPhase::kEnded;
      } else if (s.state.empty()) {
        return Status::Unavailable(fmt::format("anthropic batch {}: the answer has no status", id));
      }
      break;
    }
    case Provider::kGemini: {
      ASSIGN_OR_RETURN(std::string text,
                       Call("polling the batch", "GET", Url(fmt::format("v1beta/{}", id)), ""));
      const json op = Parse(text);
      if (!op.is_object()) {
        return Status::Unavailable(fmt::format("gemini batch {}: the answer is not JSON", id));
      }
      const json meta = op.value("metadata", json::object());
      s.state = Str(meta, "state");
      const json stats = meta.value("batchStats", json::object());
      s.total = Int(stats, "requestCount");
      s.done = Int(stats, "successfulRequestCount");
      s.failed = Int(stats, "failedRequestCount");
      const bool done = op.value("done", false);
      const bool ended = s.state.ends_with("_SUCCEEDED") || s.state.ends_with("_CANCELLED") ||
                         s.state.ends_with("_EXPIRED");
      if (s.state.ends_with("_FAILED") || (done && op.contains("error") && !op.contains("response"))) {
        s.phase = BatchPhase::kFailed;
        s.detail = Str(op.value("error", json::object()), "message");
      } else if (ended || done) {
        s.phase = BatchPhase::kEnded;
        s.operation = std::move(text);
      } else if (s.state.empty()) {
        return Status::Unavailable(fmt::format("gemini batch {}: the answer has no state", id));
      }
      break;
    }
  }
  return s;
}

StatusOr<BatchResults> BatchApi::Results(const BatchStatus& status) {
  BatchResults out;
  const auto read_lines = [&](std::string_view text, std::string_view what,
                              const std::function<StatusOr<BatchItemResult>(std::string_view)>& parse)
      -> Status {
    return ForEachJsonlLine(text, [&](std::string_view line, size_t number) -> Status {
      StatusOr<BatchItemResult> r = parse(line);
      if (!r.ok()) {
        // A result file cut short or garbled: fetched again at the next poll.
        return Status::Unavailable(fmt::format("{} batch {}: {} line {}: {}",
                                               ProviderName(provider_), status.id, what, number,
                                               r.status().message()));
      }
      out.items.push_back(*std::move(r));
      return Status::Ok();
    });
  };
  switch (provider_) {
    case Provider::kOpenAi:
      for (const auto& [file, what] : {std::pair{status.output_file, "output file"},
                                       {status.error_file, "error file"}}) {
        if (file.empty()) continue;
        RETURN_IF_ERROR(CheckId(file, provider_));
        // With the Accept header openai-python sends for it (src/openai/resources/files.py,
        // Files.content(), at e43b422412a9e96c9cc5192c61fffbe2d7e04836).
        ASSIGN_OR_RETURN(const std::string text,
                         Call(fmt::format("downloading its {}", what), "GET",
                              Url(fmt::format("files/{}/content", file)), "",
                              {"Accept: application/binary"}));
        RETURN_IF_ERROR(read_lines(text, what, [](std::string_view line) {
          return ParseOpenAiBatchLine(line, "openai batch");
        }));
      }
      break;
    case Provider::kAnthropic: {
      // results_url is the provider's own address of the results; a relative one is
      // under the API root.
      std::string url = status.results_url;
      if (url.empty()) url = Url(fmt::format("v1/messages/batches/{}/results", status.id));
      if (!url.starts_with("http://") && !url.starts_with("https://")) url = Url(url);
      // The Accept header the SDK sends for it (anthropic-sdk-python
      // src/anthropic/resources/messages/batches.py, Batches.results(), at
      // 009b035305e0724ce108ebd796935f91711fc6e1).
      ASSIGN_OR_RETURN(const std::string text, Call("downloading its results", "GET", url, "",
                                                    {"Accept: application/binary"}));
      RETURN_IF_ERROR(read_lines(text, "results", &ParseAnthropicBatchLine));
      break;
    }
    case Provider::kGemini: {
      const std::string file = GeminiResponsesFile(status.operation);
      if (file.empty()) {
        // A batch of inline requests (submitted by an earlier version).
        auto parsed = ParseGeminiBatchOutput(status.operation);
        if (!parsed.ok()) return Status::Unavailable(parsed.status().message());
        out = *std::move(parsed);
        break;
      }
      RETURN_IF_ERROR(CheckId(file, provider_, "files/"));
      // files.download() of google-genai's files.py (at the commit above).
      ASSIGN_OR_RETURN(const std::string text,
                       Call("downloading its responses file", "GET",
                            Url(fmt::format("download/v1beta/{}:download?alt=media", file)), ""));
      auto parsed = ParseGeminiResponsesFile(text);
      if (!parsed.ok()) {
        // Cut short or garbled: fetched again at the next poll.
        return Status::Unavailable(fmt::format("gemini batch {}: responses file {}: {}", status.id,
                                               file, parsed.status().message()));
      }
      out = *std::move(parsed);
      break;
    }
  }
  return out;
}

Status BatchApi::Cancel(std::string_view id) {
  RETURN_IF_ERROR(CheckId(id, provider_));
  std::string url;
  switch (provider_) {
    case Provider::kOpenAi: url = Url(fmt::format("batches/{}/cancel", id)); break;
    case Provider::kAnthropic: url = Url(fmt::format("v1/messages/batches/{}/cancel", id)); break;
    case Provider::kGemini: url = Url(fmt::format("v1beta/{}:cancel", id)); break;
  }
  return Call("cancelling the batch", "POST", url, "").status();
}

}  // namespace structtest
