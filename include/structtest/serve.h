// The scoring service of `structtest serve`, for a program that serves it itself:
// POST /v1/score {"rules", "records": [{sample..., "response"}, ...]} is answered
// {"rules", "verdicts": [...]} (each the line `structtest score` writes, per-rule checks
// included); the reward servers of RL trainers are answered as the trainers call them:
// OpenRLHF's (--reward.remote_url .../get_reward) and slime's (--rm-url .../slime/reward),
// the structtest sample as each prompt's label; GET /healthz. A request that names no rule
// set is scored under strict (kServeDefaultRules), and every reply of a scoring endpoint
// names its rules (the header Structtest-Rules, and a "rules" member of a JSON object). Stateless, so that it scales out behind a load balancer;
// bounded in body size, records in flight, connections and time per request. With a
// token, only callers that send it are served (401 otherwise); with a certificate and
// key, over HTTPS.
#ifndef STRUCTTEST_SERVE_H_
#define STRUCTTEST_SERVE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "structtest/sample.h"
#include "structtest/status.h"

namespace structtest {

// The rule set of every endpoint when a request names none.
inline constexpr RuleSet kServeDefaultRules = RuleSet::kStrict;

struct ScoringServerOptions {
  std::string host = "127.0.0.1";  // an address or a name getaddrinfo resolves
  int port = 0;                    // 0: any free port (port() says which)
  // Threads (and python3 workers) scoring records over all requests, 1 to 1024; 0: one
  // per core.
  int threads = 0;
  size_t max_body = 16 << 20;      // bytes of a request body; more is answered 413
  // Records admitted and not yet scored, over all requests: a request waits for room
  // until its timeout; one holding more is answered 413.
  size_t max_in_flight = 4096;
  unsigned max_connections = 128;  // open at once; one more is closed at once
  double timeout_seconds = 30;     // reading a request and scoring it; then 503
  std::string nltk_data;           // the Punkt model's folder; "": $NLTK_DATA's, else built in
  std::string python;              // python3 for the code subtasks; "": as `score` finds it
  // Who may call: with a token, every request but GET /healthz must carry
  // "Authorization: Bearer <token>" (401 otherwise, whatever was wrong). Set at most one
  // of the two: `token_file`, read at start, refused when users other than its owner
  // may read or write it or when it is empty; or `token` itself. Blanks around the
  // token are dropped; it is then 1 to 4096 visible ASCII characters. Default: none.
  std::string token_file;
  std::string token;
  // Without a token, a host that is not loopback (127.0.0.0/8, ::1) is refused unless
  // this is set: for a network known to be closed.
  bool allow_unauthenticated = false;
  // PEM files of the certificate (chain) and its private key (no passphrase): both
  // set, HTTPS; both empty, HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Tokens removed from the end of a trainer's response (as many as are there) before it
  // is scored: a response decoded with its special tokens ends with its end-of-turn
  // token. Empty strings are ignored.
  std::vector<std::string> end_tokens = {
      "<|im_end|>",       // ChatML: Qwen, many others
      "<|endoftext|>",    // Qwen base, GPT-2, Phi
      "<|eot_id|>",       // Llama 3
      "<|eom_id|>",       // Llama 3.1 tool calls
      "<|end_of_text|>",  // Llama 3 base
      "</s>",             // Llama 2, Mistral
      "<end_of_turn>",    // Gemma
      "<eos>",            // Gemma
      "<|end|>",          // Phi-3
      "<|return|>",       // gpt-oss
      "<｜end▁of▁sentence｜>",  // DeepSeek
  };
};

class ScoringServer {
 public:
  // Starts serving on its own threads. Errors: options out of range (each named), the
  // address does not resolve or cannot be bound, a token file or TLS file that cannot
  // be read or is refused (named, its content never shown), a host that is not loopback
  // without a token (see allow_unauthenticated).
  static StatusOr<std::unique_ptr<ScoringServer>> Start(const ScoringServerOptions& options);
  ~ScoringServer();  // Stop()
  ScoringServer(const ScoringServer&) = delete;
  ScoringServer& operator=(const ScoringServer&) = delete;

  int port() const;
  int threads() const;  // scoring threads
  bool https() const;   // serving over TLS
  bool authenticated() const;  // requests need the token
  bool loopback() const;       // bound to a loopback address: only this machine reaches it
  // Stops accepting connections and finishes the requests begun (each within its
  // timeout). Idempotent.
  void Stop();

 private:
  struct State;
  explicit ScoringServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace structtest

#endif  // STRUCTTEST_SERVE_H_
