#include "testing/fake_batch_server.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <sstream>

#include <fmt/format.h>

namespace structtest::testing {
namespace {

using nlohmann::json;

FakeHttpReply Reply(int status, const json& body) {
  FakeHttpReply r;
  r.status = status;
  r.body = body.dump();
  return r;
}

FakeHttpReply Error(int status, const std::string& message) {
  return Reply(status, json{{"error", {{"message", message}, {"type", "invalid_request_error"}}}});
}

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Rfc3339(int64_t s) {
  const time_t t = static_cast<time_t>(s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The file part of a multipart/form-data body.
std::string MultipartFile(const FakeHttpRequest& req) {
  const std::string type = req.Header("content-type");
  const size_t b = type.find("boundary=");
  if (b == std::string::npos) return "";
  const std::string boundary = "--" + type.substr(b + 9);
  const size_t name = req.body.find("name=\"file\"");
  if (name == std::string::npos) return "";
  const size_t start = req.body.find("\r\n\r\n", name);
  const size_t end = req.body.find("\r\n" + boundary, start);
  if (start == std::string::npos || end == std::string::npos) return "";
  return req.body.substr(start + 4, end - start - 4);
}

}  // namespace

FakeBatchServer::FakeBatchServer(FakeAnswerFn answer, FakeBatchFaults faults)
    : answer_(std::move(answer)),
      faults_(faults),
      server_([this](const FakeHttpRequest& req) { return Handle(req); }) {}

void FakeBatchServer::OnCreate(std::function<void()> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  on_create_ = std::move(hook);
}

int FakeBatchServer::batches_created() const {
  std::lock_guard<std::mutex> lock(mu_);
  return creates_;
}
int FakeBatchServer::cancels() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancels_;
}
int FakeBatchServer::online_requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return online_;
}
std::map<std::string, int> FakeBatchServer::answers_sent() const {
  std::lock_guard<std::mutex> lock(mu_);
  return answers_;
}
std::map<std::string, int> FakeBatchServer::prompts_submitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return submitted_;
}
std::vector<std::string> FakeBatchServer::results_accept_headers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return accept_headers_;
}
int FakeBatchServer::gemini_file_batches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return gemini_file_batches_;
}
int FakeBatchServer::gemini_inline_batches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return gemini_inline_batches_;
}

std::string FakeBatchServer::PromptOf(const std::string& provider, const json& body) {
  if (provider == "gemini") {
    return body.at("contents").back().at("parts").at(0).at("text").get<std::string>();
  }
  return body.at("messages").back().at("content").get<std::string>();
}

FakeHttpReply FakeBatchServer::Online(const FakeHttpRequest& req) {
  const json body = json::parse(req.body, nullptr, false);
  const std::string provider = req.path.ends_with("/chat/completions") ? "openai"
                               : req.path == "/v1/messages"            ? "anthropic"
                                                                       : "gemini";
  std::string prompt;
  try {
    prompt = PromptOf(provider, body);
  } catch (const json::exception&) {
    return Error(400, "no prompt");
  }
  const std::string answer = answer_(prompt);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++online_;
    ++answers_[prompt];
  }
  FakeHttpReply r;
  r.body = provider == "openai"      ? OpenAiCompletionBody(answer)
           : provider == "anthropic" ? AnthropicMessageBody(answer)
                                     : GeminiBody(answer);
  return r;
}

FakeHttpReply FakeBatchServer::Create(const std::string& provider, const std::string& key,
                                      std::vector<Item> items, std::string model) {
  if (items.empty()) return Error(400, "no requests");
  Batch b;
  b.provider = provider;
  b.key = key;
  b.created_s = NowS();
  const int n = next_id_++;
  b.id = provider == "openai" ? fmt::format("batch_{:04d}", n)
         : provider == "anthropic" ? fmt::format("msgbatch_{:04d}", n)
                                   : fmt::format("batches/{:04d}", n);
  b.expire = faults_.expire_first && creates_ == 0;
  for (const Item& i : items) {
    ++seen_ids_[i.custom_id];
    try {
      ++submitted_[PromptOf(provider, i.body)];
    } catch (const json::exception&) {
      return Error(400, "a request without a prompt: " + i.custom_id);
    }
  }
  b.items = std::move(items);
  ++creates_;
  batches_.push_back(std::move(b));
  return FakeHttpReply{};  // filled in by the caller
}

void FakeBatchServer::End(Batch& b) {
  b.ended = true;
  const size_t n = b.items.size();
  for (size_t i = 0; i < n; ++i) {
    const Item& item = b.items[i];
    const bool expired = (b.expire && i >= n / 2) || b.cancelled;
    const std::string prompt = PromptOf(b.provider, item.body);
    const bool fails = !expired && ((faults_.fail_every > 0 && seen_ids_[item.custom_id] == 1 &&
                                     ++requests_seen_ % faults_.fail_every == 0) ||
                                    (faults_.fail_prompt_every > 0 &&
                                     std::hash<std::string>()(prompt) % faults_.fail_prompt_every == 0));
    std::string answer;
    if (!expired && !fails) {
      answer = answer_(prompt);
      ++answers_[prompt];
      ++b.succeeded;
    } else {
      ++b.failed;
    }
    json r;
    if (b.provider == "openai") {
      r = {{"id", fmt::format("batch_req_{}", i)}, {"custom_id", item.custom_id}};
      const int status = faults_.fail_invalid ? 400 : 500;
      const std::string message = faults_.fail_invalid
                                      ? "Invalid 'max_tokens': integer below minimum value"
                                      : "The server had an error while processing your request";
      if (expired) {
        // A request that never ran: `error` is a BatchError {code, message}
        // (openai-python src/openai/types/batch_error.py at
        // e43b422412a9e96c9cc5192c61fffbe2d7e04836).
        r["response"] = nullptr;
        r["error"] = {{"code", b.cancelled ? "batch_cancelled" : "batch_expired"},
                      {"message", "This request could not be executed before the end"}};
      } else if (!fails) {
        r["response"] = {{"status_code", 200},
                         {"request_id", fmt::format("req_{}", i)},
                         {"body", json::parse(OpenAiCompletionBody(answer))}};
        r["error"] = nullptr;
      } else if (faults_.openai_error_line == FakeBatchFaults::OpenAiErrorLine::kHttpBody) {
        r["response"] = {{"status_code", status},
                         {"request_id", fmt::format("req_{}", i)},
                         {"body", {{"error", {{"message", message},
                                              {"type", faults_.fail_invalid ? "invalid_request_error"
                                                                            : "server_error"},
                                              {"param", nullptr},
                                              {"code", nullptr}}}}}};
        r["error"] = nullptr;
      } else {
        r["response"] = {{"status_code", status}, {"request_id", fmt::format("vllm-batch-{}", i)},
                         {"body", nullptr}};
        if (faults_.openai_error_line == FakeBatchFaults::OpenAiErrorLine::kVllmString) {
          r["error"] = message;
        } else {
          r["error"] = {{"error", {{"message", message},
                                   {"type", faults_.fail_invalid ? "BadRequestError"
                                                                 : "InternalServerError"},
                                   {"param", nullptr},
                                   {"code", status}}}};
        }
      }
    } else if (b.provider == "anthropic") {
      json result;
      if (expired) {
        result = {{"type", b.cancelled ? "canceled" : "expired"}};
      } else if (fails) {
        result = {{"type", "errored"},
                  {"error", {{"type", "error"},
                             {"error", faults_.fail_invalid
                                           ? json{{"type", "invalid_request_error"},
                                                  {"message", "max_tokens: must be at least 1"}}
                                           : json{{"type", "api_error"}, {"message", "overloaded"}}}}}};
      } else {
        result = {{"type", "succeeded"}, {"message", json::parse(AnthropicMessageBody(answer))}};
      }
      r = {{"custom_id", item.custom_id}, {"result", result}};
    } else {
      // A google.rpc.Status {code, message} (google-genai's JobError, types.py at
      // 66807187f2123c6676175ac991f4e34eb09200d1).
      if (expired) {
        r = {{"error", {{"code", b.cancelled ? 1 : 4},
                        {"message", b.cancelled ? "The batch was cancelled" : "The batch expired"}}}};
      } else if (fails) {
        r = {{"error", faults_.fail_invalid
                           ? json{{"code", 3}, {"message", "Request contains an invalid argument."}}
                           : json{{"code", faults_.gemini_error_code},
                                  {"message", "Internal error encountered."}}}};
      } else {
        r = {{"response", json::parse(GeminiBody(answer))}};
      }
      const bool keyless = faults_.drop_key_every > 0 &&
                           (i + 1) % static_cast<size_t>(faults_.drop_key_every) == 0;
      if (!keyless) {
        // A file's line carries its key as the input line did; an inline response in
        // its metadata.
        if (b.from_file) {
          r["key"] = item.custom_id;
        } else {
          r["metadata"] = {{"key", item.custom_id}};
        }
      }
    }
    b.results.push_back(std::move(r));
    if (b.provider == "anthropic" && faults_.repeat_failed_every > 0 &&
        (i + 1) % static_cast<size_t>(faults_.repeat_failed_every) == 0) {
      b.results.push_back(
          {{"custom_id", item.custom_id},
           {"result", {{"type", "errored"},
                       {"error", {{"type", "error"},
                                  {"error", {{"type", "api_error"}, {"message", "overloaded"}}}}}}}});
    }
  }
  if (faults_.reverse) std::reverse(b.results.begin(), b.results.end());
  if (b.provider == "gemini" && b.from_file) {
    std::string out;
    for (const json& r : b.results) out += r.dump() + "\n";
    b.output_file = fmt::format("files/batch-out-{}", b.id.substr(b.id.find('/') + 1));
    files_[b.output_file] = out;
  }
  if (b.provider == "openai") {
    std::string out, err;
    for (const json& r : b.results) {
      const bool ok = !r["response"].is_null() && r["response"]["status_code"] == 200 &&
                      r["error"].is_null();
      (ok ? out : err) += r.dump() + "\n";
    }
    if (!out.empty()) {
      b.output_file = fmt::format("file-out-{}", b.id);
      files_[b.output_file] = out;
    }
    if (!err.empty()) {
      b.error_file = fmt::format("file-err-{}", b.id);
      files_[b.error_file] = err;
    }
  }
}

void FakeBatchServer::Advance(Batch& b) {
  if (b.ended) return;
  if (b.cancelled || ++b.polls > faults_.polls_until_done) End(b);
}

json FakeBatchServer::View(const Batch& b) const {
  const int64_t total = static_cast<int64_t>(b.items.size());
  if (b.provider == "openai") {
    std::string status = b.ended ? (b.cancelled ? "cancelled" : b.expire ? "expired" : "completed")
                                 : (b.cancelled ? "cancelling"
                                    : b.polls == 0 ? "validating"
                                                   : "in_progress");
    json j = {{"id", b.id},
              {"object", "batch"},
              {"endpoint", "/v1/chat/completions"},
              {"status", status},
              {"created_at", b.created_s},
              {"metadata", {{"structtest_key", b.key}}},
              {"request_counts", {{"total", total},
                                  {"completed", b.ended ? b.succeeded : 0},
                                  {"failed", b.ended ? b.failed : 0}}},
              {"output_file_id", b.output_file.empty() ? json() : json(b.output_file)},
              {"error_file_id", b.error_file.empty() ? json() : json(b.error_file)}};
    return j;
  }
  if (b.provider == "anthropic") {
    json counts = {{"processing", b.ended ? 0 : total},
                   {"succeeded", b.ended ? b.succeeded : 0},
                   {"errored", 0},
                   {"canceled", 0},
                   {"expired", 0}};
    if (b.ended) {
      for (const json& r : b.results) {
        const std::string type = r["result"]["type"];
        if (type == "errored") counts["errored"] = counts["errored"].get<int>() + 1;
        if (type == "canceled") counts["canceled"] = counts["canceled"].get<int>() + 1;
        if (type == "expired") counts["expired"] = counts["expired"].get<int>() + 1;
      }
    }
    return {{"id", b.id},
            {"type", "message_batch"},
            {"processing_status", b.ended ? "ended" : b.cancelled ? "canceling" : "in_progress"},
            {"request_counts", counts},
            {"created_at", Rfc3339(b.created_s)},
            {"results_url", b.ended ? json(base_url() + "/v1/messages/batches/" + b.id + "/results")
                                    : json()}};
  }
  std::string state = b.ended ? (b.cancelled ? "BATCH_STATE_CANCELLED"
                                 : b.expire  ? "BATCH_STATE_EXPIRED"
                                             : "BATCH_STATE_SUCCEEDED")
                              : (b.polls == 0 ? "BATCH_STATE_PENDING" : "BATCH_STATE_RUNNING");
  json op = {{"name", b.id},
             {"metadata",
              {{"@type", "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"},
               {"name", b.id},
               {"displayName", b.key},
               {"state", state},
               {"batchStats", {{"requestCount", std::to_string(total)},
                               {"successfulRequestCount", std::to_string(b.ended ? b.succeeded : 0)},
                               {"failedRequestCount", std::to_string(b.ended ? b.failed : 0)},
                               {"pendingRequestCount", std::to_string(b.ended ? 0 : total)}}}}},
             {"done", b.ended}};
  if (b.ended) {
    json output = {
        {"@type", "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput"}};
    if (b.from_file) {
      output["responsesFile"] = b.output_file;
    } else {
      output["inlinedResponses"] = {{"inlinedResponses", b.results}};
    }
    const auto at = faults_.gemini_output_at;
    if (at != FakeBatchFaults::GeminiOutputAt::kMetadata) op["response"] = output;
    if (at != FakeBatchFaults::GeminiOutputAt::kResponse) {
      output.erase("@type");
      op["metadata"]["output"] = output;
    }
  }
  return op;
}

FakeHttpReply FakeBatchServer::Handle(const FakeHttpRequest& req) {
  const std::string path = req.path.substr(0, req.path.find('?'));
  if (req.method == "POST" &&
      (path.ends_with("/chat/completions") || path == "/v1/messages" ||
       path.ends_with(":generateContent"))) {
    return Online(req);
  }
  std::unique_lock<std::mutex> lock(mu_);
  const auto find = [&](const std::string& id) -> Batch* {
    for (Batch& b : batches_) {
      if (b.id == id) return &b;
    }
    return nullptr;
  };
  // Creates: the batch is taken, then the hook and the (maybe faulty) answer.
  const auto created = [&](FakeHttpReply made) {
    if (made.status != 200) return made;
    Batch& b = batches_.back();
    const json view = View(b);
    const bool fault = creates_ <= faults_.create_500_after_accept;
    std::function<void()> hook = on_create_;
    lock.unlock();
    if (hook) hook();
    return fault ? Error(500, "internal server error") : Reply(200, view);
  };
  if (req.method == "POST" && path == "/v1/files") {
    const std::string content = MultipartFile(req);
    if (content.empty() || req.body.find("name=\"purpose\"\r\n\r\nbatch") == std::string::npos) {
      return Error(400, "expected a multipart upload of a file with purpose batch");
    }
    const std::string id = fmt::format("file-in-{:04d}", next_id_++);
    files_[id] = content;
    return Reply(200, {{"id", id}, {"object", "file"}, {"purpose", "batch"},
                       {"bytes", content.size()}});
  }
  if (req.method == "POST" && path == "/v1/batches") {
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || body.value("endpoint", "") != "/v1/chat/completions" ||
        body.value("completion_window", "") != "24h") {
      return Error(400, "expected endpoint /v1/chat/completions and completion_window 24h");
    }
    const auto file = files_.find(body.value("input_file_id", ""));
    if (file == files_.end()) return Error(404, "no such file");
    std::vector<Item> items;
    std::string model;
    size_t pos = 0;
    const std::string& text = file->second;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      const json line = json::parse(text.substr(pos, end - pos), nullptr, false);
      pos = end + 1;
      if (!line.is_object() || line.value("method", "") != "POST" ||
          line.value("url", "") != "/v1/chat/completions" || !line.contains("body")) {
        return Error(400, "a line is not a batch request");
      }
      if (!model.empty() && line["body"].value("model", "") != model) {
        return Error(400, "a batch holds one model");
      }
      model = line["body"].value("model", "");
      items.push_back(Item{line.value("custom_id", ""), line["body"]});
    }
    return created(Create("openai", body["metadata"].value("structtest_key", ""), std::move(items), model));
  }
  if (req.method == "POST" && path == "/v1/messages/batches") {
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("requests")) return Error(400, "no requests");
    std::vector<Item> items;
    for (const json& r : body["requests"]) items.push_back(Item{r.value("custom_id", ""), r["params"]});
    return created(Create("anthropic", "", std::move(items), ""));
  }
  // The Files API's resumable upload as google-genai makes it (files.py upload(),
  // _extra_utils.py prepare_resumable_upload(), _api_client.py upload_file(), at
  // 66807187f2123c6676175ac991f4e34eb09200d1): a start answered with the session's
  // address in x-goog-upload-url, then the bytes with "upload, finalize".
  if (req.method == "POST" && path == "/upload/v1beta/files") {
    const std::string command = req.Header("x-goog-upload-command");
    if (command == "start") {
      if (req.Header("x-goog-upload-protocol") != "resumable" ||
          req.Header("x-goog-upload-header-content-length").empty()) {
        return Error(400, "expected a resumable upload start with its content length");
      }
      FakeHttpReply r = Reply(200, json::object());
      r.headers = {fmt::format("x-goog-upload-url: {}/upload/v1beta/files?upload_id=u{:04d}",
                               base_url(), next_id_++),
                   "x-goog-upload-status: active"};
      return r;
    }
    const size_t id = req.path.find("upload_id=");
    if (command != "upload, finalize" || id == std::string::npos ||
        req.Header("x-goog-upload-offset") != "0") {
      return Error(400, "expected the whole file with 'upload, finalize' at offset 0");
    }
    const std::string name = "files/" + req.path.substr(id + 10);
    files_[name] = req.body;
    FakeHttpReply r = Reply(200, {{"file", {{"name", name},
                                            {"mimeType", "application/jsonl"},
                                            {"sizeBytes", std::to_string(req.body.size())},
                                            {"state", "ACTIVE"}}}});
    r.headers = {"x-goog-upload-status: final"};
    return r;
  }
  if (req.method == "POST" && path.starts_with("/v1beta/models/") &&
      path.ends_with(":batchGenerateContent")) {
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("batch")) return Error(400, "no batch");
    const json& batch = body["batch"];
    std::vector<Item> items;
    // Proto JSON takes either spelling of a field: google-genai sends camelCase.
    const auto field = [](const json& j, const char* camel, const char* snake) {
      return j.contains(camel) ? j[camel] : j.value(snake, json());
    };
    const json config = field(batch, "inputConfig", "input_config");
    if (!config.is_object()) return Error(400, "no inputConfig");
    const json file_name = field(config, "fileName", "file_name");
    const bool from_file = file_name.is_string();
    if (from_file) {
      // The input file's lines: {"key", "request"} (the batch mode guide's format).
      const auto file = files_.find(file_name.get<std::string>());
      if (file == files_.end()) return Error(404, "no such file");
      std::istringstream in(file->second);
      for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        const json j = json::parse(line, nullptr, false);
        if (!j.is_object() || !j.contains("request")) return Error(400, "a line is not a request");
        items.push_back(Item{j.value("key", ""), j["request"]});
      }
    } else {
      const json requests = config.value("requests", json::object()).value("requests", json::array());
      for (const json& r : requests) {
        if (!r.is_object() || !r.contains("request")) return Error(400, "a request without its body");
        items.push_back(Item{r.value("metadata", json::object()).value("key", ""), r["request"]});
      }
    }
    const json display = field(batch, "displayName", "display_name");
    FakeHttpReply made =
        Create("gemini", display.is_string() ? display.get<std::string>() : "", std::move(items), "");
    if (made.status == 200) {
      batches_.back().from_file = from_file;
      ++(from_file ? gemini_file_batches_ : gemini_inline_batches_);
    }
    return created(std::move(made));
  }
  // Cancels.
  for (const auto& [prefix, suffix] : {std::pair{"/v1/batches/", "/cancel"},
                                       {"/v1/messages/batches/", "/cancel"},
                                       {"/v1beta/", ":cancel"}}) {
    if (req.method == "POST" && path.starts_with(prefix) && path.ends_with(suffix)) {
      std::string id = path.substr(std::string_view(prefix).size());
      id.resize(id.size() - std::string_view(suffix).size());
      Batch* b = find(id);
      if (b == nullptr) return Error(404, "no such batch");
      ++cancels_;
      b->cancelled = true;
      return Reply(200, View(*b));
    }
  }
  if (req.method != "GET") return Error(404, "unknown call " + req.method + " " + path);
  // Lists, newest first.
  if (path == "/v1/batches" || path == "/v1/messages/batches" || path == "/v1beta/batches") {
    const std::string provider = path == "/v1/batches" ? "openai"
                                 : path == "/v1beta/batches" ? "gemini" : "anthropic";
    json data = json::array();
    for (auto it = batches_.rbegin(); it != batches_.rend(); ++it) {
      if (it->provider == provider) data.push_back(View(*it));
    }
    if (provider == "gemini") return Reply(200, {{"operations", data}});
    return Reply(200, {{"data", data}, {"has_more", false}});
  }
  if (path.starts_with("/v1/files/") && path.ends_with("/content")) {
    accept_headers_.push_back(req.Header("accept"));
    const std::string id = path.substr(10, path.size() - 10 - 8);
    const auto f = files_.find(id);
    if (f == files_.end()) return Error(404, "no such file");
    FakeHttpReply r;
    r.body = f->second;
    return r;
  }
  if (path.starts_with("/download/v1beta/files/") && path.ends_with(":download")) {
    const std::string name = path.substr(17, path.size() - 17 - 9);
    const auto f = files_.find(name);
    if (f == files_.end() || req.path.find("alt=media") == std::string::npos) {
      return Error(404, "no such file");
    }
    FakeHttpReply r;
    r.body = f->second;
    return r;
  }
  if (path.starts_with("/v1/messages/batches/") && path.ends_with("/results")) {
    accept_headers_.push_back(req.Header("accept"));
    const std::string id = path.substr(21, path.size() - 21 - 8);
    Batch* b = find(id);
    if (b == nullptr || !b->ended) return Error(404, "no results");
    FakeHttpReply r;
    for (const json& line : b->results) r.body += line.dump() + "\n";
    return r;
  }
  for (const char* prefix : {"/v1/batches/", "/v1/messages/batches/", "/v1beta/"}) {
    if (!path.starts_with(prefix)) continue;
    Batch* b = find(path.substr(std::string_view(prefix).size()));
    if (b == nullptr) return Error(404, "no such batch");
    Advance(*b);
    return Reply(200, View(*b));
  }
  return Error(404, "unknown call GET " + path);
}

std::string FakeRunBatch(const std::string& input, const FakeAnswerFn& answer,
                         const FakeRunBatchOptions& options) {
  std::string out;
  std::istringstream in(input);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json request = json::parse(line, nullptr, false);
    if (!request.is_object()) continue;
    ++n;
    json o = {{"id", fmt::format("vllm-{:032x}", n)}, {"custom_id", request.value("custom_id", "")}};
    const std::string request_id = fmt::format("vllm-batch-{:032x}", n);
    // An ErrorResponse: {"error": {"message", "type", "param", "code"}}, the status in the
    // response (run_request()).
    const auto error_response = [&](int code, const std::string& type, const std::string& message) {
      o["response"] = {{"status_code", code}, {"request_id", request_id}, {"body", nullptr}};
      o["error"] = {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}};
    };
    const json& body = request.value("body", json::object());
    const std::string model = body.value("model", "");
    if (!options.served_model.empty() && model != options.served_model) {
      error_response(404, "NotFoundError", fmt::format("The model `{}` does not exist.", model));
    } else if (options.exception_every > 0 && n % options.exception_every == 0) {
      // make_error_request_output(): status 400, no body, the exception's words.
      o["response"] = {{"status_code", 400}, {"request_id", request_id}, {"body", nullptr}};
      o["error"] = "CUDA out of memory. Tried to allocate 2.00 GiB";
    } else if (options.too_long_every > 0 && n % options.too_long_every == 0) {
      error_response(400, "BadRequestError",
                     "This model's maximum context length is 4096 tokens. However, you requested "
                     "5000 tokens in the messages. Please reduce the length of the messages.");
    } else {
      std::string prompt;
      try {
        prompt = body.at("messages").back().at("content").get<std::string>();
      } catch (const json::exception&) {
      }
      o["response"] = {{"status_code", 200},
                       {"request_id", request_id},
                       {"body", json::parse(OpenAiCompletionBody(answer(prompt)))}};
      o["error"] = nullptr;
    }
    out += o.dump() + "\n";
  }
  return out;
}

}  // namespace structtest::testing
