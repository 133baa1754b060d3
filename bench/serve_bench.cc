// serve_bench: `structtest serve` under load. It starts the binary on an ephemeral
// port, opens C keep-alive connections (default 64), each sending requests of R
// records (default 32) back to back, and prints requests/s, records/s and latency
// percentiles, per mix of records: the dev conformance corpus's answers (recorded
// model output, ../shared) without the code subtasks, then with them (their checks
// run python3). A warm-up (python3 workers started) is not measured.
//
//   build/bench/serve_bench [--binary build/structtest] [--connections 64]
//       [--records 32] [--seconds 10] [--threads N (the server's; default its own)]
//
// Client and server share the machine: on 2 cores the figures are the pair's.
// Exit status: 0, or 1 when a reply was not 200 or ../shared is absent.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/corpus.h"
#include "core/rng.h"
#include "serve/serve_testing.h"

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

struct Result {
  double requests_per_second = 0;
  double records_per_second = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  size_t errors = 0;
  std::string first_error;
};

Result Measure(const Options& opt, int port, const std::vector<std::string>& bodies) {
  std::atomic<bool> measuring{false}, done{false};
  std::vector<std::vector<double>> latencies(opt.connections);
  std::vector<size_t> errors(opt.connections);
  std::vector<std::string> first_error(opt.connections);
  std::vector<std::thread> threads;
  for (int c = 0; c < opt.connections; ++c) {
    threads.emplace_back([&, c] {
      ServeClient client("127.0.0.1", port);
      for (size_t i = static_cast<size_t>(c); !done; i += static_cast<size_t>(opt.connections)) {
        const bool counted = measuring;
        const auto start = Clock::now();
        auto reply = client.Post("/v1/score", bodies[i % bodies.size()]);
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
  measuring = true;
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.seconds));
  measuring = false;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
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
  std::printf("%-9s %5s %8s %10s %10s %8s %8s %8s %8s %6s\n", "mix", "conns", "recs/req",
              "requests/s", "records/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors");
  int status = 0;
  for (const bool with_code : {false, true}) {
    const std::vector<std::string> records = DevRecords(with_code, 200);
    std::vector<std::string> bodies;
    const size_t per_body = static_cast<size_t>(opt.records);
    for (size_t at = 0; at + per_body <= records.size() && bodies.size() < 512; at += per_body) {
      std::string body = R"({"rules":"paper","records":[)";
      for (int i = 0; i < opt.records; ++i) body += (i > 0 ? "," : "") + records[at + i];
      bodies.push_back(body + "]}");
    }
    ServeProcess server(opt.binary, args);
    if (server.port() == 0) {
      std::fprintf(stderr, "serve_bench: the server did not start:\n%s", server.err().c_str());
      return 1;
    }
    const Result r = Measure(opt, server.port(), bodies);
    std::printf("%-9s %5d %8d %10.1f %10.0f %8.1f %8.1f %8.1f %8.1f %6zu\n",
                with_code ? "all" : "non-code", opt.connections, opt.records,
                r.requests_per_second, r.records_per_second, r.p50_ms, r.p90_ms, r.p99_ms,
                r.max_ms, r.errors);
    std::fflush(stdout);
    if (r.errors > 0) {
      std::fprintf(stderr, "serve_bench: %zu replies were not 200; the first: %s\n", r.errors,
                   r.first_error.substr(0, 300).c_str());
      status = 1;
    }
    server.Signal(SIGTERM);
    server.Wait();
  }
  return status;
}

}  // namespace
}  // namespace structtest::bench

int main(int argc, char** argv) { return structtest::bench::Main(argc, argv); }
