// Tests of `structtest serve`: the scoring service on its own (request bodies in,
// replies out), and the real binary on an ephemeral port: 64 clients sending valid and
// hostile requests at once, every verdict compared with `structtest score`'s line for
// the same record; HTTP-level abuse; the timeout; SIGTERM while a request is scored.
// The records are generated (every subtask, every built-in responder's answer: passes
// and fails, code records through python3), so nothing here needs ../shared.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/jsonl.h"
#include "core/rng.h"
#include "serve/bearer_token.h"
#include "serve/score_service.h"
#include "testing/serve_testing.h"
#include "structtest/checker.h"
#include "structtest/serve.h"
#include "tasks/responders.h"
#include "tasks/suite.h"
#include "testing/test_support.h"
#include "text/punkt.h"

namespace structtest {
namespace {

using ::structtest::testing::ReadFileOrDie;
using ::structtest::testing::TempDir;
using ::structtest::testing::WriteFileOrDie;
using namespace std::chrono_literals;

// Records (JSON lines in the score format) of `per_subtask` generated samples of each
// of `tasks` (default: every subtask), each answered by every built-in responder:
// passes and fails of each kind. The prompt is left out: checkers do not read it.
std::vector<std::string> GeneratedRecords(size_t per_subtask, std::vector<std::string> tasks = {}) {
  GenerateOptions options;
  options.seed = 11;
  options.limit = per_subtask;
  options.tasks = std::move(tasks);
  auto sentences = ::structtest::testing::BuiltinSentenceSplitter();
  auto suite = Suite::Plan(options, sentences.get());
  EXPECT_TRUE(suite.ok()) << suite.status().message();
  std::vector<std::string> records;
  if (!suite.ok()) return records;
  for (const PlannedSubtask& subtask : (*suite)->subtasks()) {
    for (size_t i = 0; i < subtask.count; ++i) {
      auto sample = (*suite)->Generate(subtask, i);
      EXPECT_TRUE(sample.ok()) << sample.status().message();
      if (!sample.ok()) continue;
      for (std::string_view responder : BuiltinResponderNames()) {
        auto response = BuiltinRespond(responder, *sample);
        if (!response.ok()) continue;
        nlohmann::json record = SampleToJson(*sample);
        record.erase("messages");
        record["id"] = fmt::format("{}-{}", sample->id, responder);
        record["response"] = *response;
        records.push_back(DumpJsonLine(record));
      }
    }
  }
  return records;
}

// `structtest score`'s output line for each record, under `rules`, in order.
std::vector<std::string> ScoreLines(const std::vector<std::string>& records,
                                    std::string_view rules) {
  TempDir dir;
  std::string in;
  for (const std::string& r : records) in += r + "\n";
  WriteFileOrDie(dir.path() + "/in.jsonl", in);
  const std::string cmd = fmt::format("'{}' score -i '{}/in.jsonl' -o '{}/out.jsonl' --rules {} "
                                      ">/dev/null 2>&1",
                                      STRUCTTEST_BINARY, dir.path(), dir.path(), rules);
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status)) << cmd;
  std::vector<std::string> lines;
  std::istringstream out(ReadFileOrDie(dir.path() + "/out.jsonl"));
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  EXPECT_EQ(lines.size(), records.size()) << cmd;
  return lines;
}

std::string Body(std::string_view rules, const std::vector<std::string>& records) {
  std::string body = fmt::format("{{\"rules\":\"{}\",\"records\":[", rules);
  for (size_t i = 0; i < records.size(); ++i) body += (i > 0 ? "," : "") + records[i];
  return body + "]}";
}

// The reply's verdicts, each as the line `score` writes (nlohmann writes both alike).
std::vector<std::string> BodyVerdicts(const std::string& body) {
  std::vector<std::string> out;
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.contains("verdicts")) return out;
  for (const auto& v : j["verdicts"]) out.push_back(DumpJsonLine(v));
  return out;
}

std::string ErrorOf(const std::string& body) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  return !j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_string()
             ? j["error"].get<std::string>()
             : "(no error in " + body.substr(0, 200) + ")";
}

// A generated math_easy record whose answer, and any other field, is `fields` (JSON
// members, which win over the sample's own of the same name).
std::string MathRecord(std::string_view fields) {
  static const std::string* head = [] {
    auto record = nlohmann::json::parse(GeneratedRecords(1, {"math_easy"}).at(0));
    record.erase("response");
    std::string text = DumpJsonLine(record);
    text.pop_back();  // the closing brace
    return new std::string(text);
  }();
  return fmt::format("{},{}}}", *head, fields);
}
// ... answered with a wrong number, in the asked format or not.
std::string MathRecord() { return MathRecord(R"("response":"The answer is \\boxed{5}.")"); }
// The sample of MathRecord, as a trainer's label: a JSON object.
std::string MathLabel() { return MathRecord(R"("extra":null)"); }

// ----------------------------------------------------------------------------------
// The service alone.

class ScoreServiceTest : public ::testing::Test {
 protected:
  ServiceReply Score(std::string_view body, ScoreServiceOptions options = {}) {
    options.threads = 2;
    options.checker = &checker_;
    ScoreService service(options);
    return service.Score(body, ScoreService::Clock::now() + 10s);
  }
  Checker checker_;
};

TEST_F(ScoreServiceTest, BadBodiesAreRefusedWithWhatIsWrong) {
  const std::string good = MathRecord();
  const std::string deep = "{\"records\":" + std::string(100, '[') + std::string(100, ']') + "}";
  const struct {
    std::string body;
    int status;
    std::string error;
  } cases[] = {
      {"", 400, "not JSON: "},
      {"{\"records\": [", 400, "not JSON: "},
      {std::string("{\"records\": [\"a\0b\"]}", 20), 400, "not JSON: a NUL byte at column 16"},
      {std::string("{\"records\": [\"\xff\"]}"), 400, "not JSON: "},
      {deep, 400, "arrays and objects nested deeper than 64 levels"},
      {"[]", 400, "expected a JSON object with \"records\", found array"},
      {"{}", 400, "missing key \"records\""},
      {"{\"record\":[],\"records\":[]}", 400,
       "unknown key 'record' (expected \"rules\" and \"records\")"},
      {"{\"records\":{}}", 400, "records: expected an array of records, found object"},
      {"{\"rules\":1,\"records\":[]}", 400,
       "rules: expected \"paper\" or \"strict\", found number"},
      {"{\"rules\":\"lenient\",\"records\":[]}", 400,
       "rules: unknown rule set 'lenient' (expected 'paper' or 'strict')"},
      {"{\"records\":[\"x\"]}", 400, "records[0]: record must be a JSON object, found string"},
      {"{\"records\":[" + good + "," + MathRecord(R"("reasoning":"r")") + "]}", 400,
       "records[1]: missing field 'response'"},
      {"{\"records\":[" + good + "," + good + "," + MathRecord(R"("response":42)") + "]}", 400,
       "records[2]: field 'response' must be a string, found number"},
      {"{\"records\":[" + good + ",{\"id\":\"b\",\"domain\":\"summarization\",\"subtask\":"
           "\"bullet_pointz\",\"response\":\"\"}]}",
       400, "records[1]: unknown subtask 'bullet_pointz'"},
  };
  for (const auto& c : cases) {
    const ServiceReply reply = Score(c.body);
    EXPECT_EQ(reply.status, c.status) << c.body.substr(0, 200);
    EXPECT_EQ(ErrorOf(reply.body).substr(0, c.error.size()), c.error) << c.body.substr(0, 200);
  }
}

TEST_F(ScoreServiceTest, VerdictsComeInOrderAndNulBytesAreText) {
  const ServiceReply reply = Score(
      "{\"rules\":\"strict\",\"records\":[" + MathRecord(R"("response":"a\u0000b")") + "," +
      MathRecord() + "," + MathRecord(R"("response":"")") + "]}");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto verdicts = BodyVerdicts(reply.body);
  ASSERT_EQ(verdicts.size(), 3u) << reply.body;
  for (const std::string& v : verdicts) {
    EXPECT_NE(v.find("\"pass\":false"), std::string::npos) << v;
    EXPECT_NE(v.find("\"rules\":\"strict\""), std::string::npos) << v;
  }
  // A request that names no rules is scored under strict, and the reply says so.
  EXPECT_EQ(Score("{\"records\":[]}").body, "{\"rules\":\"strict\",\"verdicts\":[]}\n");
  const ServiceReply unnamed = Score("{\"records\":[" + MathRecord() + "]}");
  EXPECT_EQ(unnamed.rules, "strict");
  EXPECT_NE(unnamed.body.find("\"rules\":\"strict\""), std::string::npos) << unnamed.body;
}

TEST_F(ScoreServiceTest, MoreRecordsThanMayBeInFlightIs413) {
  ScoreServiceOptions options;
  options.max_in_flight = 2;
  const std::string r = MathRecord();
  EXPECT_EQ(Score("{\"records\":[" + r + "," + r + "]}", options).status, 200);
  const ServiceReply reply = Score("{\"records\":[" + r + "," + r + "," + r + "]}", options);
  EXPECT_EQ(reply.status, 413);
  EXPECT_EQ(ErrorOf(reply.body), "3 records: at most 2 per request (--max-in-flight)");
}

TEST_F(ScoreServiceTest, RequestsWaitForRoomAndNeverExceedTheRecordsInFlight) {
  ScoreServiceOptions options;
  options.threads = 1;
  options.max_in_flight = 1000;
  options.checker = &checker_;
  ScoreService service(options);
  // Any two of the three at once would be 1600.
  const std::string body = Body("paper", std::vector<std::string>(800, MathRecord()));
  std::atomic<bool> done{false};
  size_t most = 0;
  std::thread watcher([&] {
    while (!done) {
      const auto health = nlohmann::json::parse(service.Health().body);
      most = std::max(most, health["records_in_flight"].get<size_t>());
    }
  });
  std::vector<std::thread> requests;
  std::atomic<int> ok{0};
  for (int i = 0; i < 3; ++i) {
    requests.emplace_back([&] {
      if (service.Score(body, ScoreService::Clock::now() + 30s).status == 200) ++ok;
    });
  }
  for (std::thread& t : requests) t.join();
  done = true;
  watcher.join();
  EXPECT_EQ(ok.load(), 3);
  EXPECT_GT(most, 0u);
  EXPECT_LE(most, 1000u);
}

TEST_F(ScoreServiceTest, PastTheDeadlineIs503AndTheServiceGoesOn) {
  ScoreServiceOptions options;
  options.threads = 1;
  options.checker = &checker_;
  ScoreService service(options);
  const std::string body = "{\"records\":[" + MathRecord() + "]}";
  std::vector<std::string> many(2000, MathRecord());
  const ServiceReply late = service.Score(Body("paper", many), ScoreService::Clock::now() + 1ms);
  EXPECT_EQ(late.status, 503);
  EXPECT_EQ(ErrorOf(late.body).substr(0, 11), "timed out: ");
  EXPECT_NE(ErrorOf(late.body).find(" of 2000 records scored before the request's deadline"),
            std::string::npos)
      << late.body.substr(0, 300);
  EXPECT_EQ(service.Score(body, ScoreService::Clock::now() + 10s).status, 200);
}

// ----------------------------------------------------------------------------------
// The binary.

// GeneratedRecords(1), made once for the whole test binary.
const std::vector<std::string>& Records() {
  static const auto* records = new std::vector<std::string>(GeneratedRecords(1));
  return *records;
}

bool IsCode(const std::string& record) {
  return nlohmann::json::parse(record)["domain"] == "code";
}

// The records, and `score`'s lines for them under each rule set.
struct Corpus {
  std::vector<std::string> records;
  std::vector<std::string> paper, strict;
  std::vector<size_t> code, other;  // indices of the code records, and of the others
};

// A request of the load test: the body, and what must come back.
struct Exchange {
  std::string body;
  int status = 200;
  std::vector<std::string> verdicts;  // status 200
  std::string error;                  // otherwise: the error's beginning
};

// Request `k` of client `c`: three in five are valid (1-16 records under either rule
// set, one in 20 a code record: each of those takes a python3 job), the rest hostile,
// one kind of each.
Exchange MakeExchange(const Corpus& corpus, int c, int k, size_t max_body) {
  Rng rng(static_cast<uint64_t>(c) * 1000 + static_cast<uint64_t>(k));
  const bool strict = rng.Bernoulli(0.5);
  std::vector<std::string> records;
  Exchange x;
  const size_t n = static_cast<size_t>(rng.UniformInt(1, 16));
  for (size_t i = 0; i < n; ++i) {
    const size_t at = rng.Pick(rng.Bernoulli(0.05) ? corpus.code : corpus.other);
    records.push_back(corpus.records[at]);
    x.verdicts.push_back(strict ? corpus.strict[at] : corpus.paper[at]);
  }
  const std::string rules = strict ? "strict" : "paper";
  if (rng.Bernoulli(0.6)) {
    x.body = Body(rules, records);
    return x;
  }
  x.verdicts.clear();
  x.status = 400;
  const size_t bad = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(n) - 1));
  switch (rng.UniformInt(0, 8)) {
    case 0:  // invalid JSON: cut short
      x.body = Body(rules, records);
      x.body.resize(x.body.size() / 2);
      x.error = "not JSON: ";
      break;
    case 1:  // over --max-body
      x.body = Body(rules, records) + std::string(max_body, ' ');
      x.status = 413;
      x.error = fmt::format("body over {} bytes (--max-body)", max_body);
      break;
    case 2:  // a field of the wrong type
      records[bad] = MathRecord(R"("response":["a"])");
      x.body = Body(rules, records);
      x.error = fmt::format("records[{}]: field 'response' must be a string, found array", bad);
      break;
    case 3:  // an unknown subtask
      records[bad] = R"({"id":"x","domain":"html","subtask":"html_medium","response":""})";
      x.body = Body(rules, records);
      x.error = fmt::format("records[{}]: unknown subtask 'html_medium'", bad);
      break;
    case 4:  // invalid UTF-8
      records[bad] = MathRecord("\"response\":\"\xc3\x28\"");
      x.body = Body(rules, records);
      x.error = "not JSON: ";
      break;
    case 5:  // a NUL byte
      x.body = Body(rules, records);
      x.body.insert(x.body.size() / 2, 1, '\0');
      x.error = "not JSON: ";
      break;
    case 6:  // deep nesting
      records[bad] = MathRecord(R"("response":"","context":)" + std::string(5000, '[') +
                                std::string(5000, ']'));
      x.body = Body(rules, records);
      x.error = "arrays and objects nested deeper than 64 levels";
      break;
    case 7:  // a missing field
      records[bad] = MathRecord(R"("reasoning":"")");
      x.body = Body(rules, records);
      x.error = fmt::format("records[{}]: missing field 'response'", bad);
      break;
    default:  // not a record
      records[bad] = "[]";
      x.body = Body(rules, records);
      x.error = fmt::format("records[{}]: record must be a JSON object, found array", bad);
      break;
  }
  return x;
}

TEST(ServeCliTest, SixtyFourClientsGetScoresVerdictsAndHostileBodiesGetErrors) {
  Corpus corpus;
  corpus.records = Records();
  ASSERT_FALSE(corpus.records.empty());
  std::thread paper([&] { corpus.paper = ScoreLines(corpus.records, "paper"); });
  corpus.strict = ScoreLines(corpus.records, "strict");
  paper.join();
  for (size_t i = 0; i < corpus.records.size(); ++i) {
    (IsCode(corpus.records[i]) ? corpus.code : corpus.other).push_back(i);
  }
  constexpr size_t kMaxBody = 1 << 20;
  ServeProcess server(STRUCTTEST_BINARY,
                      {"--threads", "2", "--max-body", std::to_string(kMaxBody)});
  ASSERT_GT(server.port(), 0) << server.err();

  constexpr int kClients = 64, kRequests = 3;
  std::atomic<int> valid_records{0}, hostile{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      ServeClient client("127.0.0.1", server.port());
      for (int k = 0; k < kRequests; ++k) {
        const Exchange x = MakeExchange(corpus, c, k, kMaxBody);
        auto reply = client.Post("/v1/score", x.body);
        if (!reply.ok()) {
          ADD_FAILURE() << "client " << c << " request " << k << ": " << reply.status().message();
          ++wrong;
          continue;
        }
        if (reply->status != x.status) {
          ADD_FAILURE() << "client " << c << " request " << k << ": status " << reply->status
                        << ", expected " << x.status << ": " << reply->body.substr(0, 300);
          ++wrong;
        } else if (x.status == 200) {
          const auto got = BodyVerdicts(reply->body);
          if (got != x.verdicts) {
            ADD_FAILURE() << "client " << c << " request " << k
                          << ": verdicts differ from score's: " << reply->body.substr(0, 300);
            ++wrong;
          }
          valid_records += static_cast<int>(got.size());
        } else {
          const std::string error = ErrorOf(reply->body);
          if (error.substr(0, x.error.size()) != x.error) {
            ADD_FAILURE() << "client " << c << " request " << k << ": error '" << error
                          << "', expected '" << x.error << "...'";
            ++wrong;
          }
          ++hostile;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(valid_records.load(), 500);
  EXPECT_GT(hostile.load(), 40);
  ServeClient client("127.0.0.1", server.port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health.ok()) << health.status().message();
  EXPECT_EQ(health->status, 200);
  EXPECT_NE(health->body.find("\"records_in_flight\":0"), std::string::npos) << health->body;
  EXPECT_EQ(health->Header("Connection"), "") << health->headers;  // kept open
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(), 0) << server.err();
  EXPECT_EQ(server.err().find("error"), std::string::npos) << server.err();
}

TEST(ServeCliTest, HttpAbuseGetsAnAnswerAndTheServerStaysUp) {
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--max-body", "1000"});
  ASSERT_GT(server.port(), 0) << server.err();
  ServeClient client("127.0.0.1", server.port());
  const std::string record = MathRecord();
  const std::string body = "{\"records\":[" + record + "]}";
  const struct {
    std::string request;
    int status;
  } cases[] = {
      {"GET /v1/score HTTP/1.1\r\nHost: x\r\n\r\n", 405},
      {"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 405},
      {"GET /v2/score HTTP/1.1\r\nHost: x\r\n\r\n", 404},
      {"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n"
       "{}",
       415},
      // Over --max-body, by its length or as it arrives in chunks.
      {"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" +
           std::string(5000, ' '),
       413},
      {"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 413},
      {"POST /v1/score HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
           fmt::format("{:x}\r\n{}\r\n", 3000, std::string(3000, ' ')) + "0\r\n\r\n",
       413},
      // Within it, in chunks.
      {"POST /v1/score HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
           fmt::format("{:x}\r\n{}\r\n", body.size(), body) + "0\r\n\r\n",
       200},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + std::string(100000, 'a') + "\r\n\r\n",
       431},
  };
  for (const auto& c : cases) {
    auto reply = client.SendRaw(c.request);
    ASSERT_TRUE(reply.ok()) << c.request.substr(0, 100) << ": " << reply.status().message();
    EXPECT_EQ(reply->status, c.status) << c.request.substr(0, 100) << ": " << reply->body;
  }
  // Connections that send half a request, or no request, and go away.
  for (const std::string& half :
       {std::string("POST /v1/score HTTP/1.1\r\nContent-Length: 500\r\n\r\n{\"rec"),
        std::string("POST /v1/sc"), std::string("NONSENSE\r\n\r\n")}) {
    ServeClient gone("127.0.0.1", server.port());
    EXPECT_TRUE(gone.SendAndHangUp(half).ok());
  }
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health.ok()) << health.status().message();
  EXPECT_EQ(health->status, 200);
  auto scored = client.Post("/v1/score", body);
  ASSERT_TRUE(scored.ok()) << scored.status().message();
  EXPECT_EQ(scored->status, 200) << scored->body;
}

TEST(ServeCliTest, ConnectionsPastTheLimitAreClosedAndTheServerGoesOn) {
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--max-connections", "2"});
  ASSERT_GT(server.port(), 0) << server.err();
  auto first = std::make_unique<ServeClient>("127.0.0.1", server.port());
  ServeClient second("127.0.0.1", server.port());
  ASSERT_TRUE(first->Get("/healthz").ok());
  ASSERT_TRUE(second.Get("/healthz").ok());  // both kept open
  for (int i = 0; i < 20; ++i) {
    ServeClient refused("127.0.0.1", server.port());
    EXPECT_FALSE(refused.Get("/healthz").ok());
  }
  first.reset();
  bool served = false;
  for (int i = 0; i < 200 && !served; ++i) {
    ServeClient next("127.0.0.1", server.port());
    served = next.Get("/healthz").ok();
    if (!served) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(served);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(), 0) << server.err();
  // libmicrohttpd says so once a connection; a second's worth is one line.
  const std::string err = server.err();
  size_t lines = 0;
  for (size_t at = 0; (at = err.find("structtest: serve: ", at)) != std::string::npos; ++at) ++lines;
  EXPECT_LE(lines, 2u) << err;
}

TEST(ServeCliTest, ARequestPastItsTimeoutIs503) {
  const std::vector<std::string>& records = Records();
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--timeout", "0.2"});
  ASSERT_GT(server.port(), 0) << server.err();
  std::vector<std::string> many;
  for (int i = 0; i < 10; ++i) many.insert(many.end(), records.begin(), records.end());
  ServeClient client("127.0.0.1", server.port());
  auto reply = client.Post("/v1/score", Body("paper", many));
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 503) << reply->body.substr(0, 300);
  EXPECT_EQ(ErrorOf(reply->body).substr(0, 11), "timed out: ");
  EXPECT_EQ(reply->Header("Retry-After"), "1");
  // A body that takes longer than that to arrive.
  const std::string body = Body("paper", {records[0]});
  std::string request = fmt::format("POST /v1/score HTTP/1.1\r\nContent-Length: {}\r\n\r\n{}",
                                    body.size(), body.substr(0, 10));
  ServeClient slow("127.0.0.1", server.port());
  auto cut = slow.SendRaw(request, 300ms, body.substr(10));
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->status, 503);
  EXPECT_EQ(ErrorOf(cut->body),
            "timed out: the body was still arriving at the request's deadline (--timeout)");
}

// A client on a raw socket that sends a request's head and the first bytes of its
// body, then one more byte every `every` (never, when zero) until a reply comes, and
// returns the reply's bytes (until the server closes) and how long it waited for them.
struct SlowClientResult {
  std::string reply;
  std::chrono::milliseconds waited{0};
};
SlowClientResult SendSlowBody(int port, const std::string& body, std::chrono::milliseconds every) {
  SlowClientResult result;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ADD_FAILURE() << "cannot connect to port " << port;
    if (fd >= 0) close(fd);
    return result;
  }
  const std::string head =
      fmt::format("POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{}",
                  body.size(), body.substr(0, 10));
  send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  const auto start = std::chrono::steady_clock::now();
  size_t sent = 10;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int timeout_ms = every.count() > 0 ? static_cast<int>(every.count()) : 60000;
    if (poll(&p, 1, timeout_ms) > 0) {
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      if (result.reply.empty()) {
        result.waited = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - start);
      }
      result.reply.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (every.count() == 0) break;  // a minute of silence: the old behaviour's failure
    if (sent + 1 < body.size()) send(fd, body.data() + sent++, 1, MSG_NOSIGNAL);
  }
  close(fd);
  return result;
}

TEST(ServeCliTest, AStalledOrTricklingBodyIs503AtItsDeadline) {
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--timeout", "0.5"});
  ASSERT_GT(server.port(), 0) << server.err();
  const std::string body = Body("paper", {Records()[0]});
  const std::string said =
      "timed out: the body was still arriving at the request's deadline (--timeout)";
  // A body that stops after ten bytes, and one that comes a byte every 100 ms (it
  // would take minutes): each is answered at its deadline, not when the body ends or
  // the connection has idled out (libmicrohttpd's idle timeout is 15 s past it).
  for (const auto every : {0ms, 100ms}) {
    SCOPED_TRACE(fmt::format("a byte every {} ms", every.count()));
    const SlowClientResult slow = SendSlowBody(server.port(), body, every);
    ASSERT_EQ(slow.reply.substr(0, 12), "HTTP/1.1 503") << slow.reply;
    EXPECT_NE(slow.reply.find("\r\nRetry-After: 1\r\n"), std::string::npos) << slow.reply;
    const size_t at = slow.reply.find("\r\n\r\n");
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(ErrorOf(slow.reply.substr(at + 4)), said);
    EXPECT_GE(slow.waited, 400ms);
    EXPECT_LT(slow.waited, 10s) << "answered after " << slow.waited.count() << " ms";
  }
  // The server still answers, and stops at once: no connection is left holding it.
  ServeClient client("127.0.0.1", server.port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health.ok()) << health.status().message();
  EXPECT_EQ(health->status, 200);
  // a body left stalled while the server is asked to stop
  std::thread stalled([&] { SendSlowBody(server.port(), body, 0ms); });
  std::this_thread::sleep_for(100ms);
  const auto stop = std::chrono::steady_clock::now();
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(), 0) << server.err();
  EXPECT_LT(std::chrono::steady_clock::now() - stop, 10s);
  stalled.join();
}

TEST(ServeCliTest, SigtermFinishesTheRequestInFlightAndExitsZero) {
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1"});
  ASSERT_GT(server.port(), 0) << server.err();
  std::vector<std::string> many;
  for (int i = 0; i < 40; ++i) {
    for (const std::string& record : Records()) {
      if (!IsCode(record)) many.push_back(record);
    }
  }
  StatusOr<HttpReply> reply = Status::Internal("no reply");
  std::thread request([&] {
    ServeClient client("127.0.0.1", server.port());
    reply = client.Post("/v1/score", Body("strict", many));
  });
  // SIGTERM once the records are being scored, with most still to go.
  ServeClient watcher("127.0.0.1", server.port());
  size_t seen = 0;
  for (int i = 0; i < 10000 && seen == 0; ++i) {
    auto health = watcher.Get("/healthz");
    if (!health.ok()) break;
    const auto j = nlohmann::json::parse(health->body, nullptr, false);
    if (!j.is_discarded()) seen = j.value("records_in_flight", size_t{0});
    if (seen == 0) std::this_thread::sleep_for(1ms);
  }
  EXPECT_GT(seen, many.size() / 2);
  server.Signal(SIGTERM);
  request.join();
  ASSERT_TRUE(reply.ok()) << reply.status().message() << "\n" << server.err();
  EXPECT_EQ(reply->status, 200);
  // Every record scored (how well is the load test's to check).
  const auto verdicts = BodyVerdicts(reply->body);
  ASSERT_EQ(verdicts.size(), many.size()) << reply->body.substr(0, 300);
  for (size_t i = 0; i < many.size(); ++i) {
    const auto id = nlohmann::json::parse(many[i])["id"];
    const auto verdict = nlohmann::json::parse(verdicts[i]);
    EXPECT_EQ(verdict["id"], id);
    EXPECT_TRUE(verdict.contains("pass")) << verdicts[i];
  }
  EXPECT_EQ(server.Wait(), 0) << server.err();
  EXPECT_NE(server.err().find("SIGTERM: finishing the requests in flight"), std::string::npos)
      << server.err();
  // Nothing listens any more.
  ServeClient late("127.0.0.1", server.port());
  EXPECT_FALSE(late.Get("/healthz").ok());
}

// structtest/serve.h, the service a program serves itself: verdicts equal the
// checker's, options out of range are refused naming them, Stop is idempotent and a
// stopped server answers no more.
TEST(ScoringServerTest, ServesTheCheckersVerdictsAndRefusesBadOptions) {
  ScoringServerOptions options;
  options.threads = 2;
  auto server = ScoringServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status().message();
  ASSERT_GT((*server)->port(), 0);
  EXPECT_EQ((*server)->threads(), 2);
  const std::vector<std::string> records = GeneratedRecords(1, {"html_easy", "math_hard",
                                                                "replace_variables"});
  ASSERT_FALSE(records.empty());
  std::string body = R"({"rules": "strict", "records": [)";
  for (size_t i = 0; i < records.size(); ++i) body += (i ? "," : "") + records[i];
  body += "]}";
  ServeClient client("127.0.0.1", (*server)->port());
  auto reply = client.Post("/v1/score", body);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_EQ(reply->status, 200) << reply->body;
  const nlohmann::json verdicts = nlohmann::json::parse(reply->body).at("verdicts");
  ASSERT_EQ(verdicts.size(), records.size());
  Checker checker;
  int passed = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    nlohmann::json record = nlohmann::json::parse(records[i]);
    const std::string response = record.at("response");
    auto sample = SampleFromJson(record);
    ASSERT_TRUE(sample.ok()) << sample.status().message();
    auto want = checker.Check(*sample, response, RuleSet::kStrict);
    ASSERT_TRUE(want.ok()) << want.status().message();
    EXPECT_EQ(verdicts[i].at("pass"), want->pass) << records[i];
    EXPECT_EQ(verdicts[i].at("reason"), want->reason) << records[i];
    passed += want->pass;
  }
  EXPECT_GT(passed, 0);
  EXPECT_LT(passed, static_cast<int>(records.size()));
  (*server)->Stop();
  (*server)->Stop();
  ServeClient after("127.0.0.1", (*server)->port());
  EXPECT_FALSE(after.Get("/healthz").ok());

  for (auto [bad, says] : std::vector<std::pair<ScoringServerOptions, std::string>>{
           {{.threads = 2000}, "threads 2000: expected 1 to 1024"},
           {{.threads = -1}, "threads -1: expected 1 to 1024"},
           {{.timeout_seconds = 0}, "timeout 0 s: expected 0.001 to 86400"},
           {{.max_in_flight = 0}, "each must be at least 1"},
           {{.host = "192.0.2.1"}, "192.0.2.1"},
           {{.host = "0.0.0.0"}, "0.0.0.0:0: not a loopback address, and no token is set"},
           {{.token_file = "/x", .token = "y"}, "token and token_file: set one, not both"},
           {{.token = " \n"}, "token: the token is empty"},
           {{.tls_cert_file = "/x"}, "HTTPS needs both a certificate and its key"}}) {
    auto refused = ScoringServer::Start(bad);
    ASSERT_FALSE(refused.ok()) << says;
    EXPECT_NE(refused.status().message().find(says), std::string::npos)
        << refused.status().message();
  }
}

// ---- Who may call: the bearer token, the loopback default, HTTPS ----

// A token file in `dir` holding `token` (and a newline), with `mode`.
std::string TokenFile(const TempDir& dir, const std::string& token, mode_t mode = 0600,
                      const std::string& name = "token") {
  const std::string path = dir.path() + "/" + name;
  WriteFileOrDie(path, token + "\n");
  EXPECT_EQ(chmod(path.c_str(), mode), 0) << path;
  return path;
}

// `structtest serve ARGS` run to its end (it is expected to refuse to start): its exit
// code and everything it wrote. `env` ("NAME=value ...") goes before the command.
std::pair<int, std::string> RunServe(const std::string& args, const std::string& env = "") {
  TempDir dir;
  const std::string cmd = fmt::format("{} timeout 30 '{}' serve {} >'{}/out' 2>&1 </dev/null",
                                      env, STRUCTTEST_BINARY, args, dir.path());
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFileOrDie(dir.path() + "/out")};
}

TEST(BearerTokenTest, TokenFilesTheirOwnerAloneMayOpenAreRead) {
  TempDir dir;
  auto good = ReadTokenFile(TokenFile(dir, "  s3cret-Token_42 \r"));
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(*good, "s3cret-Token_42");
  EXPECT_TRUE(ReadTokenFile(TokenFile(dir, "t", 0400, "read-only")).ok());
  const struct {
    std::string content;
    mode_t mode;
    std::string says;
  } refused[] = {
      {"s3cret", 0644, "mode 0644 lets users other than its owner read or write it; `chmod 600 "},
      {"s3cret", 0640, "mode 0640"},
      {"s3cret", 0604, "mode 0604"},
      {"s3cret", 0620, "mode 0620"},
      {"", 0600, "the file is empty"},
      {" \n\n", 0600, "the file is empty"},
      {"s3cret other", 0600, "the token holds a space"},
      {"s3cr\x01t", 0600, "control"},
      {"s3cr\xc3\xa9t", 0600, "non-ASCII"},
      {std::string(5000, 'a'), 0600, "5001 bytes; a token file holds one token of at most 4096"},
  };
  int i = 0;
  for (const auto& r : refused) {
    const std::string path = TokenFile(dir, r.content, r.mode, fmt::format("t{}", i++));
    auto read = ReadTokenFile(path);
    ASSERT_FALSE(read.ok()) << path;
    const std::string message = read.status().message();
    EXPECT_EQ(message.rfind("token file " + path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(r.says), std::string::npos) << message;
    EXPECT_EQ(message.find("s3cr"), std::string::npos) << message;  // the token is not shown
  }
  auto missing = ReadTokenFile(dir.path() + "/none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "token file " + dir.path() + "/none: No such file or directory");
  auto folder = ReadTokenFile(dir.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("not a regular file"), std::string::npos);
  ASSERT_EQ(mkfifo((dir.path() + "/fifo").c_str(), 0600), 0);
  auto fifo = ReadTokenFile(dir.path() + "/fifo");  // refused at once, not waited on
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.status().message().find("not a regular file"), std::string::npos);
}

TEST(BearerTokenTest, OnlyTheBearerSchemeWithTheWholeTokenMatches) {
  const std::string token = "abc123";
  for (const char* yes : {"Bearer abc123", "bearer abc123", "BEARER  abc123 ", " Bearer\tabc123"}) {
    EXPECT_TRUE(BearerMatches(yes, token)) << yes;
  }
  for (const char* no : {"", "Bearer", "Bearer ", "Bearer abc12", "Bearer abc1234",
                         "Bearer abc124", "Bearer xbc123", "Bearer ABC123", "Bearerabc123",
                         "Basic abc123", "abc123", "Bearer abc123abc123", "Token abc123",
                         "Bearer abc 123"}) {
    EXPECT_FALSE(BearerMatches(no, token)) << no;
  }
  EXPECT_FALSE(BearerMatches(nullptr, token));
}

TEST(ServeCliTest, WithATokenEveryRequestButHealthzNeedsItAndItIsNeverShown) {
  TempDir dir;
  const std::string token = "tok-7f3a9c2e41b85d06";
  const std::string path = TokenFile(dir, token);
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--token-file", path});
  ASSERT_GT(server.port(), 0) << server.err();
  EXPECT_NE(server.err().find("(POST /v1/score, /get_reward (OpenRLHF), /slime/reward (slime) "
                              "with the bearer token, GET /healthz"),
            std::string::npos)
      << server.err();
  const std::string body = Body("paper", {MathRecord()});
  // The trainers' reward endpoints, as OpenRLHF and slime post to them.
  const std::string label = MathLabel();
  const std::string openrlhf = fmt::format(R"({{"query":["Q: 2+2?A: 4<|im_end|>"],)"
                                           R"("prompts":["Q: 2+2?"],"labels":[{}]}})",
                                           label);
  const std::string slime = fmt::format(R"({{"prompt":"Q","response":"4","label":{}}})", label);
  std::string seen;  // every reply's headers and body
  const auto record = [&](const StatusOr<HttpReply>& reply) {
    if (reply.ok()) seen += reply->headers + "\n" + reply->body + "\n";
  };

  ServeClient anyone("127.0.0.1", server.port());
  auto health = anyone.Get("/healthz");
  record(health);
  ASSERT_TRUE(health.ok()) << health.status().message();
  EXPECT_EQ(health->status, 200) << health->body;

  // No token, a wrong one, one a character short or long, another scheme, the right
  // token on a path that does not exist: each 401, the same reply.
  std::string first_refusal;
  for (const std::string& header :
       {std::string(""), std::string("Authorization: Bearer wrong"),
        "Authorization: Bearer " + token.substr(0, token.size() - 1),
        "Authorization: Bearer " + token + "0", "Authorization: Bearer x" + token.substr(1),
        "Authorization: Basic " + token, "Authorization: " + token}) {
    ServeClient client("127.0.0.1", server.port());
    if (!header.empty()) client.AddHeader(header);
    auto reply = client.Post("/v1/score", body);
    record(reply);
    ASSERT_TRUE(reply.ok()) << header << ": " << reply.status().message();
    EXPECT_EQ(reply->status, 401) << header << ": " << reply->body;
    EXPECT_EQ(reply->Header("WWW-Authenticate"), "Bearer realm=\"structtest serve\"");
    EXPECT_EQ(reply->Header("Content-Type"), "application/json");
    EXPECT_EQ(ErrorOf(reply->body),
              "unauthorized: this server needs the header 'Authorization: Bearer <token>' "
              "with the token it was started with");
    if (first_refusal.empty()) first_refusal = reply->body;
    EXPECT_EQ(reply->body, first_refusal) << header;
    auto elsewhere = client.Get("/v2/score");
    record(elsewhere);
    ASSERT_TRUE(elsewhere.ok());
    EXPECT_EQ(elsewhere->status, 401) << header << ": " << elsewhere->body;
    for (const auto& [path, reward_body] :
         {std::pair{"/get_reward", openrlhf}, std::pair{"/slime/reward?details=1", slime}}) {
      auto reward = client.Post(path, reward_body);
      record(reward);
      ASSERT_TRUE(reward.ok()) << path << ": " << reward.status().message();
      EXPECT_EQ(reward->status, 401) << header << " " << path << ": " << reward->body;
      EXPECT_EQ(reward->body, first_refusal) << header << " " << path;
    }
  }

  // The right token: scored, on a connection kept open.
  ServeClient trainer("127.0.0.1", server.port());
  trainer.AddHeader("Authorization: Bearer " + token);
  for (int i = 0; i < 3; ++i) {
    auto reply = trainer.Post("/v1/score", body);
    record(reply);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(reply->status, 200) << reply->body;
    EXPECT_EQ(BodyVerdicts(reply->body).size(), 1u) << reply->body;
    EXPECT_EQ(reply->Header("Connection"), "");
  }
  for (const auto& [path, reward_body] :
       {std::pair{"/get_reward", openrlhf}, std::pair{"/slime/reward", slime}}) {
    auto reward = trainer.Post(path, reward_body);
    record(reward);
    ASSERT_TRUE(reward.ok()) << path << ": " << reward.status().message();
    EXPECT_EQ(reward->status, 200) << path << ": " << reward->body;
    EXPECT_EQ(reward->Header("Structtest-Rules"), "strict") << reward->headers;
  }
  auto missing = trainer.Get("/v2/score");
  record(missing);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  // A body of a refused request is not read: a large one is answered at once.
  auto big = anyone.SendRaw(fmt::format("POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: "
                                        "{}\r\n\r\n",
                                        64 << 20));
  record(big);
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_EQ(big->status, 401);

  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(), 0) << server.err();
  // grep: neither what the server wrote nor any reply holds the token.
  WriteFileOrDie(dir.path() + "/seen", server.err() + seen);
  EXPECT_NE(std::system(fmt::format("grep -q -F -e '{}' '{}/seen'", token, dir.path()).c_str()),
            0)
      << server.err() << seen;
  EXPECT_NE(std::system(fmt::format("grep -q -F -e '{}' '{}/seen'", token.substr(4, 8),
                                    dir.path())
                            .c_str()),
            0);
  EXPECT_NE(seen.find("unauthorized"), std::string::npos);  // what was grepped is there
}

TEST(ServeCliTest, TheTokenMayComeFromTheEnvironment) {
  const std::string token = "env-token-51e0";
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1"},
                      {"STRUCTTEST_SERVE_TOKEN=" + token});
  ASSERT_GT(server.port(), 0) << server.err();
  ServeClient client("127.0.0.1", server.port());
  auto refused = client.Post("/v1/score", Body("paper", {MathRecord()}));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->status, 401);
  client.AddHeader("Authorization: Bearer " + token);
  auto scored = client.Post("/v1/score", Body("paper", {MathRecord()}));
  ASSERT_TRUE(scored.ok());
  EXPECT_EQ(scored->status, 200) << scored->body;
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(), 0);
  EXPECT_EQ(server.err().find(token), std::string::npos) << server.err();

  TempDir dir;
  const std::string path = TokenFile(dir, "other");
  for (const auto& [env, args, says] : std::vector<std::array<std::string, 3>>{
           {"STRUCTTEST_SERVE_TOKEN=" + token, "--port 0 --token-file " + path,
            "error: --token-file and $STRUCTTEST_SERVE_TOKEN are both set: use one"},
           {"STRUCTTEST_SERVE_TOKEN=", "--port 0", "error: $STRUCTTEST_SERVE_TOKEN: the token is empty"},
           {"STRUCTTEST_SERVE_TOKEN='a b'", "--port 0",
            "error: $STRUCTTEST_SERVE_TOKEN: the token holds a space"}}) {
    const auto [code, out] = RunServe(args, env);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find(says), std::string::npos) << out;
    EXPECT_EQ(out.find(token), std::string::npos) << out;
  }
}

TEST(ServeCliTest, ATokenFileOthersMayReadOrAnEmptyOneIsRefused) {
  TempDir dir;
  const std::string token = "tok-3b9d0f";
  const std::string open = TokenFile(dir, token, 0644, "open");
  const std::string group = TokenFile(dir, token, 0640, "group");
  const std::string empty = TokenFile(dir, "", 0600, "empty");
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--port 0 --token-file " + open,
            "error: token file " + open + ": mode 0644 lets users other than its owner read or "
            "write it; `chmod 600 " + open + "`"},
           {"--port 0 --token-file " + group, "error: token file " + group + ": mode 0640"},
           {"--port 0 --token-file " + empty,
            "error: token file " + empty + ": the file is empty"},
           {"--port 0 --token-file " + dir.path() + "/none",
            "error: token file " + dir.path() + "/none: No such file or directory"}}) {
    const auto [code, out] = RunServe(args);
    EXPECT_EQ(code, 2) << args << "\n" << out;
    EXPECT_NE(out.find(says), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(out.find(token), std::string::npos) << out;
    EXPECT_EQ(out.find("serving on"), std::string::npos) << out;
  }
}

TEST(ServeCliTest, ANonLoopbackAddressNeedsATokenOrTheFlagThatAllowsIt) {
  const auto [code, out] = RunServe("--port 0 --host 0.0.0.0");
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("error: 0.0.0.0:0: not a loopback address, and no token is set"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("--token-file"), std::string::npos) << out;
  EXPECT_NE(out.find("--allow-unauthenticated"), std::string::npos) << out;
  EXPECT_EQ(out.find("serving on"), std::string::npos) << out;

  // Loopback, by address or by name, stays open without a token.
  for (const char* host : {"127.0.0.1", "127.0.0.2", "localhost"}) {
    ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--host", host});
    EXPECT_GT(server.port(), 0) << host << ": " << server.err();
  }
  {
    ServeProcess server(STRUCTTEST_BINARY,
                        {"--threads", "1", "--host", "0.0.0.0", "--allow-unauthenticated"});
    ASSERT_GT(server.port(), 0) << server.err();
    EXPECT_NE(server.err().find("warning: 0.0.0.0: no token (--allow-unauthenticated)"),
              std::string::npos)
        << server.err();
    // The same flag on a loopback address warns of nothing: only this machine reaches it.
    ServeProcess local(STRUCTTEST_BINARY,
                       {"--threads", "1", "--host", "127.0.0.1", "--allow-unauthenticated"});
    ASSERT_GT(local.port(), 0) << local.err();
    EXPECT_EQ(local.err().find("warning"), std::string::npos) << local.err();
    ServeClient client("127.0.0.1", server.port());
    auto reply = client.Post("/v1/score", Body("paper", {MathRecord()}));
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(reply->status, 200);
  }
  TempDir dir;
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--host", "0.0.0.0", "--token-file",
                                          TokenFile(dir, "t0ken")});
  ASSERT_GT(server.port(), 0) << server.err();
  EXPECT_EQ(server.err().find("warning"), std::string::npos) << server.err();
  ServeClient client("127.0.0.1", server.port());
  client.AddHeader("Authorization: Bearer t0ken");
  auto reply = client.Post("/v1/score", Body("paper", {MathRecord()}));
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 200);
}

// python3's urllib, as a trainer calls: POST `body` to `url` with `token` (none when
// empty), trusting `cafile` (the system's roots when empty). "STATUS\nBODY", or
// "error REASON" when no HTTP reply came.
std::string PythonPost(const TempDir& dir, const std::string& url, const std::string& cafile,
                       const std::string& token, const std::string& body) {
  WriteFileOrDie(dir.path() + "/client.py", R"PY(
import json, ssl, sys, urllib.error, urllib.request
url, cafile, token, body = sys.argv[1], sys.argv[2], sys.argv[3], open(sys.argv[4], "rb").read()
context = ssl.create_default_context(cafile=cafile or None)
headers = {"Content-Type": "application/json"}
if token:
    headers["Authorization"] = "Bearer " + token
try:
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers),
                                timeout=60, context=context) as reply:
        print(reply.status)
        sys.stdout.write(reply.read().decode())
except urllib.error.HTTPError as refused:
    print(refused.code)
    sys.stdout.write(refused.read().decode())
except (urllib.error.URLError, OSError) as e:
    print("error", getattr(e, "reason", e))
)PY");
  WriteFileOrDie(dir.path() + "/body.json", body);
  const std::string cmd =
      fmt::format("python3 '{0}/client.py' '{1}' '{2}' '{3}' '{0}/body.json' >'{0}/reply' 2>&1",
                  dir.path(), url, cafile, token);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return ReadFileOrDie(dir.path() + "/reply");
}

TEST(ServeCliTest, HttpsWithASelfSignedCertificateAndAToken) {
  if (std::system("command -v openssl >/dev/null && command -v python3 >/dev/null") != 0) {
    GTEST_SKIP() << "openssl or python3 is not installed: HTTPS is not tested";
  }
  TempDir dir;
  const std::string cert = dir.path() + "/cert.pem", key = dir.path() + "/key.pem";
  const std::string make_cert = fmt::format(
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout '{}' -out '{}' >/dev/null 2>&1",
      key, cert);
  ASSERT_EQ(std::system(make_cert.c_str()), 0) << make_cert;
  // Another self-signed certificate, which does not vouch for the server's.
  const std::string other_key_cert = dir.path() + "/other-cert.pem";
  ASSERT_EQ(std::system(fmt::format("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "
                                    "/CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout "
                                    "'{}/other-key.pem' -out '{}' >/dev/null 2>&1",
                                    dir.path(), other_key_cert)
                            .c_str()),
            0);
  const std::string token = "tls-token-6c1d";
  ServeProcess server(STRUCTTEST_BINARY, {"--threads", "1", "--tls-cert", cert, "--tls-key", key,
                                          "--token-file", TokenFile(dir, token)});
  ASSERT_GT(server.port(), 0) << server.err();
  EXPECT_NE(server.err().find("serving on https://127.0.0.1:"), std::string::npos)
      << server.err();
  const std::string url = fmt::format("https://127.0.0.1:{}/v1/score", server.port());
  const std::string body = Body("strict", {MathRecord(), MathRecord(R"("response":"no")")});

  const std::string scored = PythonPost(dir, url, cert, token, body);
  ASSERT_EQ(scored.substr(0, 4), "200\n") << scored;
  const auto verdicts = BodyVerdicts(scored.substr(4));
  ASSERT_EQ(verdicts.size(), 2u) << scored;
  for (const std::string& verdict : verdicts) {
    EXPECT_NE(verdict.find("\"pass\":false"), std::string::npos) << verdict;
  }

  const std::string wrong = PythonPost(dir, url, cert, "tls-token-6c1e", body);
  EXPECT_EQ(wrong.substr(0, 4), "401\n") << wrong;
  // A client that does not trust the certificate does not get through.
  const std::string untrusted = PythonPost(dir, url, "", token, body);
  EXPECT_EQ(untrusted.substr(0, 6), "error ") << untrusted;
  EXPECT_NE(untrusted.find("CERTIFICATE_VERIFY_FAILED"), std::string::npos) << untrusted;
  // The tests' own TLS client (bench/serve_bench's), keeping its connection.
  ServeClient trainer("127.0.0.1", server.port());
  ASSERT_TRUE(trainer.UseTls(cert).ok());
  trainer.AddHeader("Authorization: Bearer " + token);
  for (int i = 0; i < 3; ++i) {
    auto reply = trainer.Post("/v1/score", body);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(reply->status, 200) << reply->body;
    EXPECT_EQ(BodyVerdicts(reply->body).size(), 2u);
  }
  ServeClient stranger("127.0.0.1", server.port());
  ASSERT_TRUE(stranger.UseTls(other_key_cert).ok());
  auto refused = stranger.Get("/healthz");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("TLS handshake: "), std::string::npos)
      << refused.status().message();
  // Nor does plain HTTP.
  ServeClient plain("127.0.0.1", server.port());
  plain.AddHeader("Authorization: Bearer " + token);
  auto reply = plain.Post("/v1/score", body);
  EXPECT_TRUE(!reply.ok() || reply->status != 200);

  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(), 0) << server.err();
  EXPECT_EQ(server.err().find(token), std::string::npos) << server.err();

  // TLS files that will not do: refused at start, named.
  WriteFileOrDie(dir.path() + "/junk.pem", "not a certificate\n");
  const std::string other_key = dir.path() + "/other.pem";
  ASSERT_EQ(std::system(fmt::format("openssl genpkey -algorithm RSA -out '{}' >/dev/null 2>&1",
                                    other_key)
                            .c_str()),
            0);
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--port 0 --tls-cert " + cert,
            "error: HTTPS needs both a certificate and its key (tls_cert_file and tls_key_file)"},
           {"--port 0 --tls-key " + key, "error: HTTPS needs both a certificate and its key"},
           {"--port 0 --tls-cert " + dir.path() + "/junk.pem --tls-key " + key,
            "error: TLS certificate " + dir.path() + "/junk.pem: not a PEM file"},
           {"--port 0 --tls-cert " + cert + " --tls-key " + dir.path() + "/none.pem",
            "error: TLS key " + dir.path() + "/none.pem: No such file or directory"},
           {"--port 0 --tls-cert " + cert + " --tls-key " + other_key,
            "libmicrohttpd did not start: is the certificate PEM"}}) {
    const auto [code, out] = RunServe(args);
    EXPECT_EQ(code, 2) << args << "\n" << out;
    EXPECT_NE(out.find(says), std::string::npos) << args << "\n" << out;
  }
}

TEST(ServeCliTest, BadFlagsAreUsageErrors) {
  TempDir dir;
  for (const std::string& flags : {std::string("--port 70000"), std::string("--port 0 --threads 0"),
                                   std::string("--port 0 --timeout 0"),
                                   std::string("--port 0 --host 192.0.2.1"), std::string("")}) {
    const std::string cmd = fmt::format("'{}' serve {} >{}/out 2>&1", STRUCTTEST_BINARY, flags,
                                        dir.path());
    const int status = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2)
        << cmd << "\n" << ReadFileOrDie(dir.path() + "/out");
    EXPECT_NE(ReadFileOrDie(dir.path() + "/out").find("error"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace structtest
