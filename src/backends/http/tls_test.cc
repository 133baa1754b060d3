// The HTTP client over TLS: a loopback https server (python3's ssl module, on a
// self-signed certificate openssl makes for the test) is trusted only when its
// certificate is named with ca_file, and a client that does not trust it fails with an
// error that says how to fix it. Skips, saying so, where python3 or openssl is missing.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/http/curl_client.h"
#include "testing/test_support.h"

extern char** environ;

namespace structtest {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;
using testing::WriteFileOrDie;

// Answers every POST with one chat completion naming the protocol of the request;
// prints its port once it listens.
constexpr char kServer[] = R"PY(
import http.server, json, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "over " + self.request_version}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
)PY";

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string cert = dir_.path() + "/cert.pem", key = dir_.path() + "/key.pem";
    const std::string make_cert =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " + key + " -out " + cert +
        " >/dev/null 2>&1";
    if (std::system("command -v python3 >/dev/null && command -v openssl >/dev/null") != 0) {
      GTEST_SKIP() << "SKIPPED: python3 or openssl is not installed; the TLS client is not tested";
    }
    ASSERT_EQ(std::system(make_cert.c_str()), 0) << make_cert;
    cert_ = cert;
    WriteFileOrDie(dir_.path() + "/server.py", kServer);
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<std::string> args = {"python3", dir_.path() + "/server.py", cert, key};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawnp(&server_pid_, "python3", &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[32] = {};
    ASSERT_NE(std::fgets(line, sizeof line, f), nullptr) << "the test server did not start";
    std::fclose(f);
    base_url_ = "https://127.0.0.1:" + std::string(line, std::strlen(line) - 1) + "/v1";
  }

  void TearDown() override {
    if (server_pid_ > 0) {
      kill(server_pid_, SIGKILL);
      waitpid(server_pid_, nullptr, 0);
    }
  }

  // One request through a client with `options` (base URL and timeouts filled in).
  ModelResult Ask(HttpClientOptions options) {
    options.base_url = base_url_;
    options.connect_timeout = milliseconds(5000);
    options.total_timeout = milliseconds(20'000);
    auto client = NewCurlModelClient(options);
    EXPECT_TRUE(client.ok()) << client.status().message();
    ModelRequest request;
    request.id = 7;
    request.model = "m";
    request.messages = {{"user", "hi"}};
    EXPECT_TRUE((*client)->Start(request).ok());
    std::vector<ModelResult> done;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (done.empty() && std::chrono::steady_clock::now() < give_up) {
      (*client)->WaitForAny(&done, milliseconds(200));
    }
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ModelResult() : done[0];
  }

  TempDir dir_;
  std::string cert_;
  std::string base_url_;
  pid_t server_pid_ = -1;
};

TEST_F(TlsTest, TrustsTheServerWhoseCertificateIsNamed) {
  HttpClientOptions options;
  options.ca_file = cert_;
  const ModelResult r = Ask(options);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.response.text, "over HTTP/1.1");
  EXPECT_EQ(r.usage.input, 3);

  options.http_version = HttpClientOptions::HttpVersion::kHttp11;
  const ModelResult r11 = Ask(options);
  ASSERT_TRUE(r11.ok()) << r11.error_message;
  EXPECT_EQ(r11.response.text, "over HTTP/1.1");
}

TEST_F(TlsTest, AnUntrustedCertificateFailsFatallyAndSaysWhatToDo) {
  const ModelResult r = Ask(HttpClientOptions());
  EXPECT_EQ(r.error, ErrorKind::kFatal) << r.error_message;
  EXPECT_NE(r.error_message.find("certificate"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("--ca-cert FILE"), std::string::npos) << r.error_message;
}

TEST_F(TlsTest, ACaFileOfAnotherCertificateIsNamedInTheError) {
  const std::string other = dir_.path() + "/other.pem";
  const std::string make_other =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other -keyout " +
      dir_.path() + "/other-key.pem -out " + other + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(make_other.c_str()), 0);
  HttpClientOptions options;
  options.ca_file = other;
  const ModelResult r = Ask(options);
  EXPECT_EQ(r.error, ErrorKind::kFatal) << r.error_message;
  EXPECT_NE(r.error_message.find("the CAs trusted are those of " + other), std::string::npos)
      << r.error_message;
}

}  // namespace
}  // namespace structtest
