#include "testing/fake_batch_server.h"

#include <algorithm>
#include <chrono>

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
    const bool fails = !expired && faults_.fail_every > 0 && seen_ids_[item.custom_id] == 1 &&
                       ++requests_seen_ % faults_.fail_every == 0;
    const std::string prompt = PromptOf(b.provider, item.body);
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
      if (expired) {
        r = {{"id", fmt::format("batch_req_{}", i)},
             {"custom_id", item.custom_id},
             {"response", nullptr},
             {"error", {{"code", b.cancelled ? "batch_cancelled" : "batch_expired"},
                        {"message", "This request could not be executed before the end"}}}};
      } else {
        r = {{"id", fmt::format("batch_req_{}", i)},
             {"custom_id", item.custom_id},
             {"response",
              {{"status_code", fails ? 500 : 200},
               {"request_id", fmt::format("req_{}", i)},
               {"body", fails ? json{{"error", {{"message", "server error"}}}}
                              : json::parse(OpenAiCompletionBody(answer))}}},
             {"error", nullptr}};
      }
    } else if (b.provider == "anthropic") {
      json result;
      if (expired) {
        result = {{"type", b.cancelled ? "canceled" : "expired"}};
      } else if (fails) {
        result = {{"type", "errored"},
                  {"error", {{"type", "error"}, {"error", {{"type", "api_error"}, {"message", "overloaded"}}}}}};
      } else {
        result = {{"type", "succeeded"}, {"message", json::parse(AnthropicMessageBody(answer))}};
      }
      r = {{"custom_id", item.custom_id}, {"result", result}};
    } else {
      if (expired || fails) {
        r = {{"error", {{"code", 500}, {"message", expired ? "expired" : "internal error"}}}};
      } else {
        r = {{"response", json::parse(GeminiBody(answer))}};
      }
      r["metadata"] = {{"key", item.custom_id}};
    }
    b.results.push_back(std::move(r));
  }
  if (faults_.reverse && b.provider != "gemini") std::reverse(b.results.begin(), b.results.end());
  if (b.provider == "openai") {
    std::string out, err;
    for (const json& r : b.results) {
      const bool ok = !r["response"].is_null() && r["response"]["status_code"] == 200;
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
    op["response"] = {
        {"@type", "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput"},
        {"inlinedResponses", {{"inlinedResponses", b.results}}}};
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
  if (req.method == "POST" && path.starts_with("/v1beta/models/") &&
      path.ends_with(":batchGenerateContent")) {
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("batch")) return Error(400, "no batch");
    const json& batch = body["batch"];
    std::vector<Item> items;
    for (const json& r : batch["input_config"]["requests"]["requests"]) {
      items.push_back(Item{r["metadata"].value("key", ""), r["request"]});
    }
    return created(Create("gemini", batch.value("display_name", ""), std::move(items), ""));
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
    const std::string id = path.substr(10, path.size() - 10 - 8);
    const auto f = files_.find(id);
    if (f == files_.end()) return Error(404, "no such file");
    FakeHttpReply r;
    r.body = f->second;
    return r;
  }
  if (path.starts_with("/v1/messages/batches/") && path.ends_with("/results")) {
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

}  // namespace structtest::testing
