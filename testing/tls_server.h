// A loopback https server for tests: python3's ssl module on a self-signed certificate
// that openssl makes for 127.0.0.1. Every POST is answered with one OpenAI chat
// completion whose text names the request's protocol ("over HTTP/1.1") and whose usage
// is 3 tokens in, 2 out.
#ifndef STRUCTTEST_TESTING_TLS_SERVER_H_
#define STRUCTTEST_TESTING_TLS_SERVER_H_

#include <sys/types.h>

#include <string>

namespace structtest::testing {

class TlsServer {
 public:
  TlsServer() = default;
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;
  ~TlsServer();  // kills the server

  // False, with *why, when python3 or openssl is missing (the caller skips, saying so);
  // true once the server listens. Files go into `dir`. Fails the test on other errors.
  bool Start(const std::string& dir, std::string* why);

  const std::string& cert() const { return cert_; }          // the certificate, PEM
  const std::string& base_url() const { return base_url_; }  // https://127.0.0.1:PORT/v1

 private:
  std::string cert_, base_url_;
  pid_t pid_ = -1;
};

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_TLS_SERVER_H_
