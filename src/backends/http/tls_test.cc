// The HTTP client over TLS: a loopback https server (testing/tls_server.h, on a
// self-signed certificate) is trusted only when its certificate is named with ca_file,
// and a client that does not trust it fails with an error that says how to fix it.
// Skips, saying so, where python3 or openssl is missing.
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/http/curl_client.h"
#include "testing/test_support.h"
#include "testing/tls_server.h"

namespace structtest {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;
using testing::WriteFileOrDie;

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!server_.Start(dir_.path(), &why)) {
      GTEST_SKIP() << "SKIPPED: " << why << "; the TLS client is not tested";
    }
    ASSERT_FALSE(server_.base_url().empty());
    cert_ = server_.cert();
    base_url_ = server_.base_url();
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
  testing::TlsServer server_;
  std::string cert_;
  std::string base_url_;
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
