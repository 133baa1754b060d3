// `structtest serve`: scores records over HTTP (structtest/serve.h) until SIGTERM or
// SIGINT.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/serve.h"

namespace structtest::cli {

namespace {

// The environment variable that may hold the token, for orchestrators that inject
// secrets that way.
constexpr char kTokenVariable[] = "STRUCTTEST_SERVE_TOKEN";

int RunServe(ScoringServerOptions options) {
  // The token of the environment is taken out of it before any thread or child
  // starts: nothing this process runs afterwards inherits it.
  if (const char* token = std::getenv(kTokenVariable); token != nullptr) {
    if (!options.token_file.empty()) {
      PrintError(fmt::format("--token-file and ${} are both set: use one", kTokenVariable));
      return kExitFatal;
    }
    options.token = token;
    unsetenv(kTokenVariable);
    if (options.token.empty()) {
      PrintError(fmt::format("${}: the token is empty", kTokenVariable));
      return kExitFatal;
    }
  }

  // A folder named on the command line is checked before anything is served, as `score`
  // checks it; the checker loads its own copy on first need.
  if (!options.nltk_data.empty() && LoadSentenceSplitter(options.nltk_data) == nullptr) {
    return kExitFatal;
  }

  // SIGTERM and SIGINT are taken by sigwait below, on this thread: blocked here, before
  // any thread starts, so that every thread inherits the mask and none is interrupted.
  // A client that hangs up mid-reply must not end the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto server = ScoringServer::Start(options);
  if (!server.ok()) {
    // The field `token` is filled from the environment only: called by its name here.
    std::string message = server.status().message();
    if (message.rfind("token: ", 0) == 0) {
      message = fmt::format("${}{}", kTokenVariable, message.substr(5));
    }
    PrintError(message);
    return kExitFatal;
  }
  const std::string host =
      options.host.find(':') == std::string::npos ? options.host : "[" + options.host + "]";
  // Before the line that says it serves, which tells a waiting parent it has started. On
  // a loopback address only this machine reaches the port: nothing to warn about.
  if (!(*server)->authenticated() && options.allow_unauthenticated && !(*server)->loopback()) {
    PrintWarning(fmt::format("{}: no token (--allow-unauthenticated): anyone who reaches the "
                             "port may have records scored",
                             host));
  }
  PrintNote(fmt::format("serving on {}://{}:{} (POST /v1/score, /get_reward (OpenRLHF), "
                        "/slime/reward (slime){}, GET /healthz; {} rules unless a request "
                        "names others; {} scoring threads); SIGTERM stops it",
                        (*server)->https() ? "https" : "http", host, (*server)->port(),
                        (*server)->authenticated() ? " with the bearer token" : "",
                        RuleSetName(kServeDefaultRules), (*server)->threads()));

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  PrintNote(fmt::format("SIG{}: finishing the requests in flight", sigabbrev_np(signal_number)));
  (*server)->Stop();
  PrintNote("stopped");
  return kExitOk;
}

}  // namespace

void SetupServe(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ScoringServerOptions>();
  const std::string rules(RuleSetName(kServeDefaultRules));
  std::string end_tokens;
  for (const std::string& token : opt->end_tokens) {
    end_tokens += (end_tokens.empty() ? "" : ",") + token;
  }
  CLI::App* cmd = app.add_subcommand(
      "serve",
      fmt::format(
          "Score records over HTTP. POST /v1/score {{\"rules\", \"records\": [{{sample..., "
          "\"response\"}}, ...]}} answers {{\"rules\", \"verdicts\": [...]}}, each verdict "
          "the line `score` writes. RL trainers' reward servers, the structtest sample as "
          "each prompt's label: POST /get_reward answers OpenRLHF (--reward.remote_url) "
          "{{\"rewards\", \"scores\", \"extra_logs\", \"rules\"}}; POST /slime/reward "
          "answers slime (--rm-type remote_rm --rm-url) with the reward, or with ?details=1 a "
          "dict of the verdict (--reward-key reward); their URLs take ?rules=paper|strict and "
          "?partial=1 (the share of rules passed). Every endpoint scores under {} unless the "
          "request names other rules, and every reply names its rules (header "
          "Structtest-Rules). GET /healthz. Stateless; SIGTERM finishes the requests in "
          "flight",
          rules));
  cmd->add_option("--port", opt->port, "port to listen on (0: any free port, printed)")
      ->required()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", opt->host, "address to listen on (default: 127.0.0.1)");
  cmd->add_option("--threads", opt->threads,
                  "threads (and python3 workers) scoring records, shared by all requests, 1 "
                  "to 1024 (default: the number of cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-body", opt->max_body,
                  "largest request body in bytes; larger is answered 413 (default: 16 MiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-in-flight", opt->max_in_flight,
                  "records admitted and not yet scored, over all requests; a request waits "
                  "for room until its timeout, one with more records is answered 413 "
                  "(default: 4096)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-connections", opt->max_connections,
                  "connections open at once; one more is closed at once (default: 128)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--timeout", opt->timeout_seconds,
                  "seconds a request may take, reading its body and scoring; past it the "
                  "reply is 503 (default: 30)")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--nltk-data", opt->nltk_data, kNltkDataHelp);
  cmd->add_option("--python", opt->python, "python3 for the code subtasks (see 'score')");
  cmd->add_option("--token-file", opt->token_file,
                  "file holding the token every request but GET /healthz must send as "
                  "'Authorization: Bearer TOKEN' (401 otherwise); refused when users other "
                  "than its owner may read it (chmod 600). $STRUCTTEST_SERVE_TOKEN may hold "
                  "the token instead");
  cmd->add_flag("--allow-unauthenticated", opt->allow_unauthenticated,
                "serve an address that is not loopback without a token (refused otherwise): "
                "for a network known to be closed");
  cmd->add_option("--tls-cert", opt->tls_cert_file,
                  "PEM certificate (chain): serve HTTPS, with --tls-key");
  cmd->add_option("--tls-key", opt->tls_key_file,
                  "PEM private key of --tls-cert, without a passphrase");
  cmd->add_option("--end-tokens", opt->end_tokens,
                  fmt::format("comma-separated tokens removed from the end of the responses of "
                              "/get_reward and /slime/reward (a response decoded with its "
                              "special tokens ends with one); '' for none (default: {})",
                              end_tokens))
      ->delimiter(',');
  cmd->callback([opt, exit_code]() { *exit_code = RunServe(*opt); });
}

}  // namespace structtest::cli
