// serve_bench: `structtest serve` under load. It starts the binary on an ephemeral
// port, opens C keep-alive connections (default 64), each sending requests of R
// records (default 32) back to back, and prints requests/s, records/s and latency
// percentiles, per mix of records: the dev conformance corpus's answers (recorded
// model output, ../shared) without the code subtasks, then with them (their checks
// run python3). Each mix is served in variants: plain HTTP without a token; with one
// (--token-file; every request carries "Authorization: Bearer ..."); and with the
// token over HTTPS (a self-signed certificate openssl makes; skipped, saying so, without
// openssl). --rounds N serves each variant N times, in an order that alternates
// (A B C, C B A, ...) so that a machine getting busier or quieter favours none, and ends
// with each variant's median records/s against the first's. A warm-up (python3 workers
// started, connections and TLS sessions opened) is not measured. --endpoints chooses what
// is posted: /v1/score's bodies ("score"), and OpenRLHF's ("get_reward": the same records
// as OpenRLHF posts them to its remote reward, each a query (a ChatML prompt, the response
// and <|im_end|>), its prompt and the sample as the label's JSON text; OpenRLHF 3c3be62
// posts one query a request: --records 1); both score under --rules.
//
//   build/bench/serve_bench [--binary build/structtest] [--connections 64]
//       [--records 32] [--seconds 10] [--threads N (the server's; default its own)]
//       [--variants plain,token,tls] [--mix both|non-code|all] [--rounds 1]
//       [--endpoints score,get_reward] [--rules paper|strict]
//
// Client and server share the machine: on 2 cores the figures are the pair's.
// Exit status: 0, or 1 when a reply was not 200 or ../shared is absent.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/corpus.h"
#include "core/rng.h"
#include "testing/serve_testing.h"

namespace structtest::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string binary = "build/structtest";
  int connections = 64;
  int records = 32;
  double seconds = 10;
  std::string threads;  // empty: the server's default
  std::string variants = "plain,token,tls";
  std::string mix = "both";
  int rounds = 1;
  std::string endpoints = "score";
  std::string rules = "paper";
};

// `text` split at commas.
std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    parts.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return parts;
}

// The bodies of `endpoint` ("score" or "get_reward"), `per_body` records each, under
// `rules` (/get_reward takes them in its URL).
std::vector<std::string> Bodies(const std::string& endpoint, const std::vector<std::string>& records,
                                size_t per_body, const std::string& rules) {
  std::vector<std::string> bodies;
  for (size_t at = 0; at + per_body <= records.size() && bodies.size() < 512; at += per_body) {
    if (endpoint == "score") {
      std::string body = fmt::format(R"({{"rules":"{}","records":[)", rules);
      for (size_t i = 0; i < per_body; ++i) body += (i > 0 ? "," : "") + records[at + i];
      bodies.push_back(body + "]}");
      continue;
    }
    nlohmann::json query = nlohmann::json::array(), prompts = nlohmann::json::array(),
                   labels = nlohmann::json::array();
    for (size_t i = 0; i < per_body; ++i) {
      nlohmann::json sample = nlohmann::json::parse(records[at + i]);
      const std::string response = sample.value("response", "");
      sample.erase("response");
      sample.erase("reasoning");
      std::string prompt;
      if (sample.contains("messages") && sample["messages"].is_array()) {
        for (const auto& m : sample["messages"]) {
          prompt += fmt::format("<|im_start|>{}\n{}<|im_end|>\n", m.value("role", ""),
                                m.value("content", ""));
        }
      } else {
        prompt = fmt::format("<|im_start|>user\n{}<|im_end|>\n", sample.value("id", ""));
      }
      prompt += "<|im_start|>assistant\n";
      query.push_back(prompt + response + "<|im_end|>");
      prompts.push_back(prompt);
      labels.push_back(sample.dump());
    }
    bodies.push_back(
        nlohmann::json{{"query", query}, {"prompts", prompts}, {"labels", labels}}.dump());
  }
  return bodies;
}

// What a server is started with and its clients send.
struct Variant {
  std::string name;
  bool token = false;
  bool tls = false;
};

// The secrets of the variants, in a temporary folder removed with this object: a
// made-up token of a usual length (32 random bytes, hex) in a file its owner alone may
// read, and a self-signed certificate for 127.0.0.1 with its key (when openssl is
// installed).
class BenchSecrets {
 public:
  BenchSecrets() {
    char dir[] = "/tmp/serve_bench.XXXXXX";
    if (mkdtemp(dir) != nullptr) dir_ = dir;
    Rng rng(11);
    for (int i = 0; i < 64; ++i) token_ += "0123456789abcdef"[rng.UniformInt(0, 15)];
    std::ofstream(token_file()) << token_ << "\n";
    chmod(token_file().c_str(), 0600);
    const std::string make_cert = fmt::format(
        "command -v openssl >/dev/null && openssl req -x509 -newkey rsa:2048 -nodes -days 1 "
        "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout '{}' -out '{}' "
        ">/dev/null 2>&1",
        key(), cert());
    has_cert_ = std::system(make_cert.c_str()) == 0;
  }
  ~BenchSecrets() {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  BenchSecrets(const BenchSecrets&) = delete;
  BenchSecrets& operator=(const BenchSecrets&) = delete;
  const std::string& token() const { return token_; }
  std::string token_file() const { return dir_ + "/token"; }
  std::string cert() const { return dir_ + "/cert.pem"; }
  std::string key() const { return dir_ + "/key.pem"; }
  bool has_cert() const { return has_cert_; }

 private:
  std::string dir_, token_;
  bool has_cert_ = false;
};

// Up to `per_file` records of every dev file (every model), shuffled.
std::vector<std::string> DevRecords(bool with_code, size_t per_file) {
  std::vector<std::string> records;
  const fs::path dev = fs::path(SharedDir()) / "conformance" / "dev";
  std::vector<fs::path> files;
  for (const auto& model : fs::directory_iterator(dev)) {
    if (!model.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(model.path())) files.push_back(file.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file);
    size_t n = 0;
    for (std::string line; n < per_file && std::getline(in, line); ++n) {
      if (!with_code && line.find(R"("domain": "code")") != std::string::npos) break;
      records.push_back(line);
    }
  }
  Rng rng(7);
  rng.Shuffle(&records);
  return records;
}

// CPU seconds (user and system) process `pid` has used so far; 0 when unknown.
double CpuSeconds(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t end_of_name = stat.rfind(')');
  if (end_of_name == std::string::npos) return 0;
  std::istringstream fields(stat.substr(end_of_name + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // After the name: state (3rd field) ... utime (14th), stime (15th).
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct Result {
  double requests_per_second = 0;
  double server_cpu_ms_per_request = 0;  // the server's CPU time over the requests answered
  double records_per_second = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  size_t errors = 0;
  std::string first_error;
};

Result Measure(const Options& opt, int port, pid_t server, const std::string& path,
               const std::vector<std::string>& bodies, const std::string& token,
               const std::string& ca_file) {
  std::atomic<bool> measuring{false}, done{false};
  std::vector<std::vector<double>> latencies(opt.connections);
  std::vector<size_t> errors(opt.connections);
  std::vector<std::string> first_error(opt.connections);
  std::vector<std::thread> threads;
  for (int c = 0; c < opt.connections; ++c) {
    threads.emplace_back([&, c] {
      ServeClient client("127.0.0.1", port);
      if (!token.empty()) client.AddHeader("Authorization: Bearer " + token);
      if (!ca_file.empty()) {
        if (Status tls = client.UseTls(ca_file); !tls.ok()) {
          ++errors[c];
          first_error[c] = tls.message();
          return;
        }
      }
      for (size_t i = static_cast<size_t>(c); !done; i += static_cast<size_t>(opt.connections)) {
        const bool counted = measuring;
        const auto start = Clock::now();
        auto reply = client.Post(path, bodies[i % bodies.size()]);
        const double ms =
            std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (!reply.ok() || reply->status != 200) {
          if (errors[c]++ == 0) {
            first_error[c] = reply.ok() ? fmt::format("{}: {}", reply->status, reply->body)
                                        : reply.status().message();
          }
        } else if (counted && measuring) {
          latencies[c].push_back(ms);
        }
      }
    });
  }
  // Warm-up: python3 workers start, connections open.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double cpu_start = CpuSeconds(server);
  measuring = true;
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.seconds));
  measuring = false;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = CpuSeconds(server) - cpu_start;
  done = true;
  for (std::thread& t : threads) t.join();

  Result r;
  std::vector<double> all;
  for (int c = 0; c < opt.connections; ++c) {
    all.insert(all.end(), latencies[c].begin(), latencies[c].end());
    r.errors += errors[c];
    if (r.first_error.empty()) r.first_error = first_error[c];
  }
  std::sort(all.begin(), all.end());
  const auto at = [&](double q) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, static_cast<size_t>(q * all.size()))];
  };
  r.requests_per_second = static_cast<double>(all.size()) / elapsed;
  r.records_per_second = r.requests_per_second * opt.records;
  if (!all.empty()) r.server_cpu_ms_per_request = 1000 * cpu / static_cast<double>(all.size());
  r.p50_ms = at(0.50);
  r.p90_ms = at(0.90);
  r.p99_ms = at(0.99);
  r.max_ms = all.empty() ? 0.0 : all.back();
  return r;
}

int Main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--binary") {
      opt.binary = value;
    } else if (flag == "--connections") {
      opt.connections = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--records") {
      opt.records = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--seconds") {
      opt.seconds = std::max(0.1, std::atof(value.c_str()));
    } else if (flag == "--threads") {
      opt.threads = value;
    } else if (flag == "--variants") {
      opt.variants = value;
    } else if (flag == "--rounds") {
      opt.rounds = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--mix" && (value == "both" || value == "non-code" || value == "all")) {
      opt.mix = value;
    } else if (flag == "--endpoints") {
      opt.endpoints = value;
    } else if (flag == "--rules" && (value == "paper" || value == "strict")) {
      opt.rules = value;
    } else {
      std::fprintf(stderr, "serve_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (!fs::is_directory(fs::path(SharedDir()) / "conformance" / "dev")) {
    std::fprintf(stderr, "serve_bench: %s/conformance/dev not found\n", SharedDir().c_str());
    return 1;
  }
  std::vector<std::string> args;
  if (!opt.threads.empty()) args = {"--threads", opt.threads};
  const BenchSecrets secrets;
  std::vector<Variant> variants;
  for (size_t at = 0; at <= opt.variants.size();) {
    size_t end = opt.variants.find(',', at);
    if (end == std::string::npos) end = opt.variants.size();
    const std::string name = opt.variants.substr(at, end - at);
    at = end + 1;
    if (name == "plain") {
      variants.push_back({name, false, false});
    } else if (name == "token") {
      variants.push_back({name, true, false});
    } else if (name == "tls") {
      if (secrets.has_cert()) {
        variants.push_back({name, true, true});
      } else {
        std::fprintf(stderr, "serve_bench: no certificate (openssl is not installed): the "
                             "tls variant is skipped\n");
      }
    } else {
      std::fprintf(stderr, "serve_bench: --variants: unknown variant '%s' (plain, token, "
                           "tls)\n", name.c_str());
      return 2;
    }
  }
  if (variants.empty()) return 2;
  std::vector<bool> mixes;
  if (opt.mix != "all") mixes.push_back(false);
  if (opt.mix != "non-code") mixes.push_back(true);
  for (const std::string& endpoint : SplitCommas(opt.endpoints)) {
    if (endpoint != "score" && endpoint != "get_reward") {
      std::fprintf(stderr, "serve_bench: --endpoints: unknown endpoint '%s' (score, get_reward)\n",
                   endpoint.c_str());
      return 2;
    }
  }
  std::printf("%-10s %-9s %-7s %5s %8s %10s %10s %8s %8s %8s %8s %11s %6s\n", "endpoint", "mix",
              "variant", "conns", "recs/req", "requests/s", "records/s", "p50 ms", "p90 ms", "p99 ms",
              "max ms", "cpu ms/req", "errors");
  int status = 0;
  for (const std::string& endpoint : SplitCommas(opt.endpoints)) {
    const std::string path =
        endpoint == "score" ? "/v1/score" : fmt::format("/get_reward?rules={}", opt.rules);
    for (const bool with_code : mixes) {
      const std::vector<std::string> records = DevRecords(with_code, 200);
      const std::vector<std::string> bodies =
          Bodies(endpoint, records, static_cast<size_t>(opt.records), opt.rules);
      std::vector<std::vector<double>> rates(variants.size()), cpu(variants.size());
      for (int round = 0; round < opt.rounds; ++round) {
        for (size_t k = 0; k < variants.size(); ++k) {
          const size_t v = round % 2 == 0 ? k : variants.size() - 1 - k;
          const Variant& variant = variants[v];
          std::vector<std::string> server_args = args;
          if (variant.token) {
            server_args.insert(server_args.end(), {"--token-file", secrets.token_file()});
          }
          if (variant.tls) {
            server_args.insert(server_args.end(),
                               {"--tls-cert", secrets.cert(), "--tls-key", secrets.key()});
          }
          ServeProcess server(opt.binary, server_args);
          if (server.port() == 0) {
            std::fprintf(stderr, "serve_bench: the server did not start:\n%s",
                         server.err().c_str());
            return 1;
          }
          const Result r = Measure(opt, server.port(), server.pid(), path, bodies,
                                   variant.token ? secrets.token() : "",
                                   variant.tls ? secrets.cert() : "");
          rates[v].push_back(r.records_per_second);
          cpu[v].push_back(r.server_cpu_ms_per_request);
          std::printf("%-10s %-9s %-7s %5d %8d %10.1f %10.0f %8.1f %8.1f %8.1f %8.1f %11.3f %6zu\n",
                      endpoint.c_str(), with_code ? "all" : "non-code", variant.name.c_str(), opt.connections,
                      opt.records, r.requests_per_second, r.records_per_second, r.p50_ms,
                      r.p90_ms, r.p99_ms, r.max_ms, r.server_cpu_ms_per_request, r.errors);
          std::fflush(stdout);
          if (r.errors > 0) {
            std::fprintf(stderr, "serve_bench: %zu replies were not 200; the first: %s\n",
                         r.errors, r.first_error.substr(0, 300).c_str());
            status = 1;
          }
          server.Signal(SIGTERM);
          server.Wait();
        }
      }
      if (opt.rounds > 1 || variants.size() > 1) {
        const auto median = [](std::vector<double> x) {
          std::sort(x.begin(), x.end());
          return x.size() % 2 == 1 ? x[x.size() / 2] : (x[x.size() / 2 - 1] + x[x.size() / 2]) / 2;
        };
        // Each variant's median against the first's: records/s, and the server's CPU time
        // a request (which the other load of a shared machine disturbs less).
        for (const auto* figures : {&rates, &cpu}) {
          const double base = median((*figures)[0]);
          std::printf("%-10s %-9s median %s of %d round(s):", endpoint.c_str(),
                      with_code ? "all" : "non-code",
                      figures == &rates ? "records/s" : "server cpu ms/request", opt.rounds);
          for (size_t v = 0; v < variants.size(); ++v) {
            const double m = median((*figures)[v]);
            std::printf(" %s %.*f (%+.1f%%)%s", variants[v].name.c_str(), figures == &rates ? 0 : 3,
                        m, base > 0 ? 100 * (m / base - 1) : 0.0,
                        v + 1 < variants.size() ? "," : "");
          }
          std::printf("\n");
        }
        std::fflush(stdout);
      }
    }
  }
  return status;
}

}  // namespace
}  // namespace structtest::bench

int main(int argc, char** argv) { return structtest::bench::Main(argc, argv); }
