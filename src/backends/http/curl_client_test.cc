#include "backends/http/curl_client.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/http/curl_library.h"
#include "backends/retry_client.h"
#include "testing/fake_server.h"

namespace structtest {
// Its own namespace: the test executable's unity batches hold several test files.
namespace curl_client_test {
namespace {

using std::chrono::milliseconds;
using testing::FakeFault;
using testing::FakeHttpReply;
using testing::FakeHttpRequest;
using testing::FakeHttpServer;

ModelRequest Req(uint64_t id, std::string prompt = "") {
  ModelRequest r;
  r.id = id;
  r.model = "fake-model";
  r.messages = {{"user", prompt.empty() ? "question " + std::to_string(id) : prompt}};
  r.max_tokens = 64;
  return r;
}

// The answer the fake server gives to a chat completion: a function of the prompt.
std::string AnswerFor(const FakeHttpRequest& req) {
  const nlohmann::json j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded()) return "unparseable request";
  return "answer to " + j["messages"].back()["content"].get<std::string>();
}

HttpClientOptions Options(const FakeHttpServer& server, size_t in_flight = 4) {
  HttpClientOptions o;
  o.provider = Provider::kOpenAi;
  o.base_url = server.base_url() + "/v1";
  o.api_key = "sk-test-SECRET-KEY-0123456789";
  o.max_in_flight = in_flight;
  o.connect_timeout = milliseconds(2000);
  o.total_timeout = milliseconds(10'000);
  return o;
}

std::unique_ptr<ModelClient> NewClient(const HttpClientOptions& o) {
  auto c = NewCurlModelClient(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

std::vector<ModelResult> Drain(ModelClient* client, const std::vector<ModelRequest>& requests) {
  std::vector<ModelResult> done;
  size_t next = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((next < requests.size() || client->InFlight() > 0) &&
         std::chrono::steady_clock::now() < give_up) {
    while (next < requests.size() && client->CanStartMore()) {
      EXPECT_TRUE(client->Start(requests[next++]).ok());
    }
    client->WaitForAny(&done, milliseconds(500));
  }
  return done;
}

ModelResult One(const HttpClientOptions& o, ModelRequest req = Req(1)) {
  auto client = NewClient(o);
  auto done = Drain(client.get(), {std::move(req)});
  EXPECT_EQ(done.size(), 1u);
  return done.empty() ? ModelResult{} : done[0];
}

FakeHttpReply OkHttpReply(const FakeHttpRequest& req) {
  return FakeHttpReply{200, {}, testing::OpenAiCompletionBody(AnswerFor(req))};
}

// libcurl is loaded once, and its functions are callable through the table.
TEST(CurlLibraryTest, LoadsOnceAndItsFunctionsWork) {
  auto first = LoadCurl();
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto again = LoadCurl();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(&Curl(), *first);
  // (A function the library lacks fails LoadCurl.) Two that need no handle:
  const CurlLibrary& c = **first;
  EXPECT_STREQ(c.easy_strerror(CURLE_OK), "No error");
  EXPECT_GT(c.getdate("Wed, 21 Oct 2015 07:28:00 GMT", nullptr), 0);
}

TEST(CurlClientTest, OpenAiRoundTrip) {
  FakeHttpServer server(OkHttpReply);
  ASSERT_TRUE(server.Start().ok());
  const HttpClientOptions o = Options(server);
  const ModelResult r = One(o);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.id, 1u);
  EXPECT_EQ(r.response.text, "answer to question 1");
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.finish, FinishReason::kStop);
  EXPECT_EQ(r.usage.input, 10);
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].Header("authorization"), "Bearer " + o.api_key);
  EXPECT_EQ(reqs[0].Header("expect"), "");
  EXPECT_EQ(nlohmann::json::parse(reqs[0].body)["model"], "fake-model");
}

TEST(CurlClientTest, AnthropicAndGeminiRoundTrips) {
  FakeHttpServer server([](const FakeHttpRequest& req) {
    if (req.path == "/v1/messages") {
      return FakeHttpReply{200, {}, testing::AnthropicMessageBody("from claude")};
    }
    return FakeHttpReply{200, {}, testing::GeminiBody("from gemini")};
  });
  ASSERT_TRUE(server.Start().ok());
  HttpClientOptions o = Options(server);
  o.base_url = server.base_url();
  o.provider = Provider::kAnthropic;
  o.api_key = "ant-KEY-123";
  EXPECT_EQ(One(o).response.text, "from claude");
  o.provider = Provider::kGemini;
  o.api_key = "gem-KEY-456";
  EXPECT_EQ(One(o).response.text, "from gemini");
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].Header("x-api-key"), "ant-KEY-123");
  EXPECT_EQ(reqs[0].Header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(reqs[1].path, "/v1beta/models/fake-model:generateContent");
  EXPECT_EQ(reqs[1].Header("x-goog-api-key"), "gem-KEY-456");
}

TEST(CurlClientTest, RateLimitIsRetryableWithRetryAfter) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return FakeHttpReply{429, {"Retry-After: 7"}, R"({"error":{"message":"slow down"}})"};
  });
  ASSERT_TRUE(server.Start().ok());
  const ModelResult r = One(Options(server));
  EXPECT_EQ(r.error, ErrorKind::kRetryable);
  EXPECT_EQ(r.http_status, 429);
  ASSERT_TRUE(r.retry_after.has_value());
  EXPECT_EQ(*r.retry_after, milliseconds(7000));
  EXPECT_EQ(r.error_message, "openai: HTTP 429: slow down");
  EXPECT_EQ(r.response.text, "");
}

TEST(CurlClientTest, RetryAfterAsHttpDate) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return FakeHttpReply{503, {"Retry-After: Wed, 21 Oct 2015 07:28:00 GMT"}, ""};
  });
  ASSERT_TRUE(server.Start().ok());
  const ModelResult r = One(Options(server));
  EXPECT_EQ(r.error, ErrorKind::kRetryable);
  ASSERT_TRUE(r.retry_after.has_value());
  EXPECT_EQ(*r.retry_after, milliseconds(0));  // a date in the past: retry now
}

TEST(CurlClientTest, WaitForAnyReturnsAtItsTimeoutWhileARequestIsSlow) {
  FakeHttpServer server([](const FakeHttpRequest& req) {
    FakeHttpReply r = OkHttpReply(req);
    r.latency = milliseconds(200);
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  auto client = NewClient(Options(server, 1));
  ASSERT_TRUE(client->Start(Req(5)).ok());
  EXPECT_FALSE(client->CanStartMore());
  std::vector<ModelResult> done;
  EXPECT_EQ(client->WaitForAny(&done, milliseconds(20)), 0u);
  EXPECT_EQ(client->InFlight(), 1u);
  while (client->InFlight() > 0) client->WaitForAny(&done, milliseconds(1000));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].ok()) << done[0].error_message;
  EXPECT_GE(done[0].latency, milliseconds(200));
  EXPECT_TRUE(client->CanStartMore());
  EXPECT_EQ(client->WaitForAny(&done, milliseconds(1000)), 0u);  // nothing in flight
}

TEST(CurlClientTest, ServerErrorIsRetryable) {
  FakeHttpServer server([](const FakeHttpRequest&) { return FakeHttpReply{500, {}, "oops"}; });
  ASSERT_TRUE(server.Start().ok());
  const ModelResult r = One(Options(server));
  EXPECT_EQ(r.error, ErrorKind::kRetryable);
  EXPECT_EQ(r.http_status, 500);
}

TEST(CurlClientTest, ConnectionResetIsRetryable) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply r;
    r.fault = FakeFault::kReset;
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  const ModelResult r = One(Options(server));
  EXPECT_EQ(r.error, ErrorKind::kRetryable) << r.error_message;
  EXPECT_EQ(r.http_status, 0);
  EXPECT_FALSE(r.error_message.empty());
}

TEST(CurlClientTest, TruncatedBodyIsRetryable) {
  FakeHttpServer server([](const FakeHttpRequest& req) {
    FakeHttpReply r = OkHttpReply(req);
    r.fault = FakeFault::kTruncate;
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  const ModelResult r = One(Options(server));
  EXPECT_EQ(r.error, ErrorKind::kRetryable) << r.error_message;
  EXPECT_EQ(r.response.text, "");
}

TEST(CurlClientTest, MalformedJsonIsRetryable) {
  FakeHttpServer server(
      [](const FakeHttpRequest&) { return FakeHttpReply{200, {}, R"({"choices": [)"}; });
  ASSERT_TRUE(server.Start().ok());
  const ModelResult r = One(Options(server));
  EXPECT_EQ(r.error, ErrorKind::kRetryable);
  EXPECT_NE(r.error_message.find("malformed response body"), std::string::npos);
}

TEST(CurlClientTest, ClientErrorIsFatalAndNeverShowsTheKey) {
  // A server that echoes the credentials it got, as some proxies do.
  FakeHttpServer server([](const FakeHttpRequest& req) {
    return FakeHttpReply{401, {},
                         nlohmann::json{{"error", {{"message", "bad credentials: " +
                                                                   req.Header("authorization")}}}}
                             .dump()};
  });
  ASSERT_TRUE(server.Start().ok());
  const HttpClientOptions o = Options(server);
  const ModelResult r = One(o);
  EXPECT_EQ(r.error, ErrorKind::kFatal);
  EXPECT_EQ(r.http_status, 401);
  EXPECT_EQ(r.error_message.find(o.api_key), std::string::npos) << r.error_message;
  EXPECT_EQ(r.error_message.find("SECRET"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("bad credentials"), std::string::npos) << r.error_message;
}

TEST(CurlClientTest, ServerThatNeverAnswersEndsInTimeout) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply r;
    r.fault = FakeFault::kNeverAnswer;
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  HttpClientOptions o = Options(server);
  o.total_timeout = milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const ModelResult r = One(o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(r.error, ErrorKind::kRetryable);
  EXPECT_NE(r.error_message.find("Timeout"), std::string::npos) << r.error_message;
}

TEST(CurlClientTest, StalledTransferEndsInIdleTimeout) {
  FakeHttpServer server([](const FakeHttpRequest& req) {
    FakeHttpReply r = OkHttpReply(req);
    r.fault = FakeFault::kStall;
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  HttpClientOptions o = Options(server);
  o.idle_timeout = milliseconds(300);
  o.total_timeout = milliseconds(20'000);
  const auto start = std::chrono::steady_clock::now();
  const ModelResult r = One(o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(r.error, ErrorKind::kRetryable) << r.error_message;
  EXPECT_NE(r.error_message.find("idle timeout"), std::string::npos) << r.error_message;
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.response.text, "");
}

// The descriptors this process has open (/proc/self/fd, less the one reading it).
size_t OpenFileDescriptors() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++n;
  }
  return n - 1;
}

TEST(CurlClientTest, DestroyingTheClientAbandonsTransfersInFlight) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply r;
    r.fault = FakeFault::kNeverAnswer;
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  const size_t fds_before = OpenFileDescriptors();
  auto client = NewClient(Options(server, 4));
  for (uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(client->Start(Req(i)).ok());
  std::vector<ModelResult> done;
  EXPECT_EQ(client->WaitForAny(&done, milliseconds(50)), 0u);
  // The four connections are open, the server holding every request.
  for (int i = 0; i < 200 && server.connections_accepted() < 4; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(server.connections_accepted(), 4u);
  EXPECT_GE(OpenFileDescriptors(), fds_before + 4);
  // Destroying the client neither waits for the replies nor leaves a socket open.
  const auto start = std::chrono::steady_clock::now();
  client.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // The server (in this process) closes its ends once it sees the client's closed: a
  // socket the client kept open would keep both ends, and the count would stay above.
  for (int i = 0; i < 500 && OpenFileDescriptors() > fds_before; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(OpenFileDescriptors(), fds_before);
}

TEST(CurlClientTest, ConnectionRefusedIsRetryable) {
  int port = 0;
  {
    FakeHttpServer server(OkHttpReply);
    ASSERT_TRUE(server.Start().ok());
    port = server.port();
  }
  HttpClientOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  const ModelResult r = One(o);
  EXPECT_EQ(r.error, ErrorKind::kRetryable) << r.error_message;
}

TEST(CurlClientTest, TenMegabyteBody) {
  const std::string big(10 << 20, 'x');
  FakeHttpServer server([&big](const FakeHttpRequest&) {
    return FakeHttpReply{200, {}, testing::OpenAiCompletionBody(big)};
  });
  ASSERT_TRUE(server.Start().ok());
  HttpClientOptions o = Options(server);
  const ModelResult r = One(o);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.response.text.size(), big.size());
  // Over the limit: refused, not buffered.
  o.max_body_bytes = 1 << 20;
  const ModelResult capped = One(o);
  EXPECT_EQ(capped.error, ErrorKind::kFatal);
  EXPECT_NE(capped.error_message.find("larger than"), std::string::npos) << capped.error_message;
}

TEST(CurlClientTest, ReusesConnectionsAndBoundsInFlight) {
  std::atomic<int> active{0};
  std::atomic<int> max_active{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    const int now = ++active;
    int seen = max_active.load();
    while (now > seen && !max_active.compare_exchange_weak(seen, now)) {
    }
    FakeHttpReply r = OkHttpReply(req);
    r.latency = milliseconds(5);
    --active;
    return r;
  });
  ASSERT_TRUE(server.Start().ok());
  auto client = NewClient(Options(server, 4));
  std::vector<ModelRequest> reqs;
  for (uint64_t i = 0; i < 60; ++i) reqs.push_back(Req(i));
  const auto done = Drain(client.get(), reqs);
  EXPECT_EQ(done.size(), 60u);
  EXPECT_LE(server.connections_accepted(), 8u);
  EXPECT_LE(max_active.load(), 4);
}

// The acceptance test of the transport: 200 requests at 16 in flight through the retry
// wrapper, against a server that fails many first attempts in every retryable way.
// Nothing is lost, nothing duplicated, and the answers equal a fault-free run.
TEST(CurlClientTest, MixedFaultsLoseAndDuplicateNothing) {
  constexpr uint64_t kRequests = 200;
  std::mutex mu;
  std::map<std::string, int> attempts;  // by prompt; GUARDED_BY(mu)
  FakeHttpServer faulty([&](const FakeHttpRequest& req) {
    const std::string answer = AnswerFor(req);
    int attempt;
    {
      std::lock_guard<std::mutex> lock(mu);
      attempt = attempts[answer]++;
    }
    FakeHttpReply r{200, {}, testing::OpenAiCompletionBody(answer)};
    const size_t h = std::hash<std::string>()(answer);
    r.latency = milliseconds(h % 7);
    if (attempt >= 2) return r;  // every request succeeds by its third attempt
    switch ((h >> 3) % 8) {
      case 0: r = FakeHttpReply{429, {"Retry-After: 0"}, "{}"}; break;
      case 1: r = FakeHttpReply{500, {}, "internal"}; break;
      case 2: r = FakeHttpReply{503, {}, "unavailable"}; break;
      case 3: r.fault = FakeFault::kReset; break;
      case 4: r.fault = FakeFault::kTruncate; break;
      case 5: if (attempt == 0) r.fault = FakeFault::kNeverAnswer; break;
      default: break;  // answers at once
    }
    return r;
  });
  FakeHttpServer clean(OkHttpReply);
  ASSERT_TRUE(faulty.Start().ok());
  ASSERT_TRUE(clean.Start().ok());

  std::vector<ModelRequest> reqs;
  for (uint64_t i = 0; i < kRequests; ++i) reqs.push_back(Req(i));
  RetryPolicy policy;
  policy.initial_backoff = milliseconds(5);
  policy.max_backoff = milliseconds(50);
  policy.max_attempts = 5;
  policy.seed = 7;

  HttpClientOptions fo = Options(faulty, 16);
  fo.total_timeout = milliseconds(400);  // the silent first attempts end here
  RetryingModelClient client(NewClient(fo), policy);
  const auto got = Drain(&client, reqs);
  auto plain = NewClient(Options(clean, 16));
  const auto want = Drain(plain.get(), reqs);

  ASSERT_EQ(want.size(), kRequests);
  ASSERT_EQ(got.size(), kRequests);
  std::map<uint64_t, std::string> got_text, want_text;
  for (const ModelResult& r : want) {
    ASSERT_TRUE(r.ok()) << r.error_message;
    want_text[r.id] = r.response.text;
  }
  int retried = 0;
  for (const ModelResult& r : got) {
    ASSERT_TRUE(r.ok()) << r.id << ": " << r.error_message;
    EXPECT_TRUE(got_text.emplace(r.id, r.response.text).second) << "duplicate " << r.id;
    if (r.attempts > 1) ++retried;
  }
  EXPECT_EQ(got_text, want_text);
  EXPECT_GT(retried, 50);
  EXPECT_GT(client.retries(), 50u);
  EXPECT_GE(faulty.requests().size(), kRequests + client.retries());
}

TEST(CurlClientTest, RetryWrapperHonoursRetryAfterFromTheWire) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest& req) {
    if (calls++ == 0) return FakeHttpReply{429, {"Retry-After: 1"}, "{}"};
    return OkHttpReply(req);
  });
  ASSERT_TRUE(server.Start().ok());
  RetryPolicy policy;
  policy.initial_backoff = milliseconds(1);
  RetryingModelClient client(NewClient(Options(server)), policy);
  const auto start = std::chrono::steady_clock::now();
  const auto done = Drain(&client, {Req(1)});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].ok()) << done[0].error_message;
  EXPECT_EQ(done[0].attempts, 2);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(1000));
}

// Several replicas through one client: each request goes to the base URL of its
// endpoint index, answers carry the index back, timeouts are flagged, and an index
// the client does not have is refused at Start().
TEST(CurlClientTest, OneClientServesSeveralEndpoints) {
  std::atomic<int> hits[2] = {0, 0};
  FakeHttpServer a([&](const FakeHttpRequest& req) {
    ++hits[0];
    return OkHttpReply(req);
  });
  FakeHttpServer b([&](const FakeHttpRequest& req) {
    ++hits[1];
    if (AnswerFor(req).find("slow") != std::string::npos) {
      FakeHttpReply reply;
      reply.fault = FakeFault::kNeverAnswer;
      return reply;
    }
    return OkHttpReply(req);
  });
  ASSERT_TRUE(a.Start().ok());
  ASSERT_TRUE(b.Start().ok());
  HttpClientOptions o = Options(a, 8);
  o.base_urls = {a.base_url() + "/v1", b.base_url() + "/v1"};
  o.total_timeout = milliseconds(1500);
  o.idle_timeout = milliseconds(1500);
  auto client = NewClient(o);
  std::vector<ModelRequest> requests;
  for (uint64_t id = 0; id < 6; ++id) {
    requests.push_back(Req(id));
    requests.back().endpoint = id % 2;
  }
  requests.push_back(Req(6, "slow one"));
  requests.back().endpoint = 1;
  ModelRequest outside = Req(99);
  outside.endpoint = 2;
  const Status refused = client->Start(outside);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("endpoint 2 out of range"), std::string::npos) << refused.message();
  const std::vector<ModelResult> done = Drain(client.get(), requests);
  ASSERT_EQ(done.size(), 7u);
  for (const ModelResult& r : done) {
    EXPECT_EQ(r.endpoint, r.id == 6 ? 1u : r.id % 2) << r.id;
    if (r.id == 6) {
      EXPECT_EQ(r.error, ErrorKind::kRetryable);
      EXPECT_TRUE(r.timed_out) << r.error_message;
    } else {
      EXPECT_TRUE(r.ok()) << r.error_message;
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.response.text, "answer to question " + std::to_string(r.id));
    }
  }
  EXPECT_EQ(hits[0].load(), 3);
  EXPECT_EQ(hits[1].load(), 4);
}

}  // namespace
}  // namespace curl_client_test
}  // namespace structtest
