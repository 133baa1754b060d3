#include "testing/tls_server.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "testing/test_support.h"

extern char** environ;

namespace structtest::testing {
namespace {

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

}  // namespace

TlsServer::~TlsServer() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool TlsServer::Start(const std::string& dir, std::string* why) {
  if (std::system("command -v python3 >/dev/null && command -v openssl >/dev/null") != 0) {
    *why = "python3 or openssl is not installed";
    return false;
  }
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  const std::string make_cert =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout " + key + " -out " + cert +
      " >/dev/null 2>&1";
  EXPECT_EQ(std::system(make_cert.c_str()), 0) << make_cert;
  cert_ = cert;
  WriteFileOrDie(dir + "/server.py", kServer);
  int out[2];
  EXPECT_EQ(pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::vector<std::string> args = {"python3", dir + "/server.py", cert, key};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  EXPECT_EQ(posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  FILE* f = fdopen(out[0], "r");
  char line[32] = {};
  const bool started = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  EXPECT_TRUE(started) << "the test https server did not start";
  if (started) base_url_ = "https://127.0.0.1:" + std::string(line, std::strlen(line) - 1) + "/v1";
  return true;
}

}  // namespace structtest::testing
