// structtest/serve.h: a Checker, the ScoreService over it and the HttpServer in front.
#include "structtest/serve.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "core/status_macros.h"
#include "serve/bearer_token.h"
#include "serve/http_server.h"
#include "serve/score_service.h"
#include "structtest/checker.h"
#include "tasks/score_stage.h"

namespace structtest {

namespace {

// A TLS file's text; errors name it and what it is for.
StatusOr<std::string> ReadPemFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(fmt::format("{} {}: read error", what, path));
  std::string pem = std::move(text).str();
  if (pem.find("-----BEGIN ") == std::string::npos) {
    return Status::InvalidArgument(fmt::format("{} {}: not a PEM file (no -----BEGIN line)",
                                               what, path));
  }
  return pem;
}

}  // namespace

struct ScoringServer::State {
  std::unique_ptr<Checker> checker;
  std::unique_ptr<ScoreService> service;
  std::unique_ptr<HttpServer> http;  // stopped and destroyed before the service
  bool https = false;
  bool authenticated = false;
};

ScoringServer::ScoringServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

ScoringServer::~ScoringServer() { Stop(); }

StatusOr<std::unique_ptr<ScoringServer>> ScoringServer::Start(
    const ScoringServerOptions& options) {
  const int threads = options.threads == 0 ? DefaultScoreJobs() : options.threads;
  if (threads < 1 || threads > 1024) {
    return Status::InvalidArgument(fmt::format("threads {}: expected 1 to 1024", threads));
  }
  if (!(options.timeout_seconds >= 0.001 && options.timeout_seconds <= 86400)) {
    return Status::InvalidArgument(
        fmt::format("timeout {} s: expected 0.001 to 86400", options.timeout_seconds));
  }
  if (options.max_body == 0 || options.max_in_flight == 0 || options.max_connections == 0) {
    return Status::InvalidArgument(
        "max_body, max_in_flight and max_connections: each must be at least 1");
  }
  if (!options.token_file.empty() && !options.token.empty()) {
    return Status::InvalidArgument("token and token_file: set one, not both");
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return Status::InvalidArgument(
        "HTTPS needs both a certificate and its key (tls_cert_file and tls_key_file)");
  }
  HttpServerOptions http;
  if (!options.token_file.empty()) {
    ASSIGN_OR_RETURN(http.token, ReadTokenFile(options.token_file));
  } else if (!options.token.empty()) {
    ASSIGN_OR_RETURN(http.token, CleanToken(options.token, "token"));
  }
  if (!options.tls_cert_file.empty()) {
    ASSIGN_OR_RETURN(http.tls_cert_pem, ReadPemFile(options.tls_cert_file, "TLS certificate"));
    ASSIGN_OR_RETURN(http.tls_key_pem, ReadPemFile(options.tls_key_file, "TLS key"));
  }
  http.allow_unauthenticated = options.allow_unauthenticated;
  auto state = std::make_unique<State>();
  state->https = !http.tls_cert_pem.empty();
  state->authenticated = !http.token.empty();
  CheckerOptions checker_options;
  checker_options.nltk_data = options.nltk_data;
  checker_options.python = options.python;   // empty: $STRUCTTEST_PYTHON, else auto
  checker_options.python_workers = threads;  // one python3 worker per scoring thread
  state->checker = std::make_unique<Checker>(checker_options);
  ScoreServiceOptions service_options;
  service_options.threads = threads;
  service_options.max_in_flight = options.max_in_flight;
  service_options.checker = state->checker.get();
  for (const std::string& token : options.end_tokens) {
    if (!token.empty()) service_options.end_tokens.push_back(token);
  }
  state->service = std::make_unique<ScoreService>(service_options);
  http.host = options.host;
  http.port = options.port;
  http.max_body = options.max_body;
  http.max_connections = options.max_connections;
  http.timeout = std::chrono::milliseconds(std::llround(options.timeout_seconds * 1000));
  ASSIGN_OR_RETURN(state->http, HttpServer::Start(http, state->service.get()));
  return std::unique_ptr<ScoringServer>(new ScoringServer(std::move(state)));
}

int ScoringServer::port() const { return state_->http->port(); }

int ScoringServer::threads() const { return state_->service->threads(); }

bool ScoringServer::https() const { return state_->https; }

bool ScoringServer::authenticated() const { return state_->authenticated; }

bool ScoringServer::loopback() const { return state_->http->loopback(); }

void ScoringServer::Stop() { state_->http->Stop(); }

}  // namespace structtest
