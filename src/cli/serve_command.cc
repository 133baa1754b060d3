// `structtest serve`: scores records over HTTP (structtest/serve.h) until SIGTERM or
// SIGINT.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "structtest/serve.h"

namespace structtest::cli {

namespace {

int RunServe(const ScoringServerOptions& options) {
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
    PrintError(server.status().message());
    return kExitFatal;
  }
  const std::string host =
      options.host.find(':') == std::string::npos ? options.host : "[" + options.host + "]";
  PrintNote(fmt::format("serving on http://{}:{} (POST /v1/score, GET /healthz; {} scoring "
                        "threads); SIGTERM stops it",
                        host, (*server)->port(), (*server)->threads()));

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
  CLI::App* cmd = app.add_subcommand(
      "serve", "Score records over HTTP: POST /v1/score {\"rules\", \"records\": [{sample..., "
               "\"response\"}, ...]} answers {\"verdicts\": [...]}, each the line `score` "
               "writes; GET /healthz. Stateless; SIGTERM finishes the requests in flight");
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
  cmd->callback([opt, exit_code]() { *exit_code = RunServe(*opt); });
}

}  // namespace structtest::cli
