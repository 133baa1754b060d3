// client_bench URL CONCURRENCY TOTAL: the ceilings under `structtest run` against an
// HTTP server (bench/http_bench.sh starts nginx for it). It POSTs TOTAL chat requests,
// CONCURRENCY in flight, twice: with a bare libcurl multi loop (reused handles, one
// header list, nothing parsed: what libcurl itself can do on this machine) and with
// structtest's own CurlModelClient (request JSON built, reply parsed, nothing stored
// or scored). Prints one line per loop: "NAME: N req/s". A fourth argument runs one
// loop only (for profiling).
#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/http/curl_client.h"

namespace {

using Clock = std::chrono::steady_clock;

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

double BareLibcurl(const std::string& url, int concurrency, int total, const std::string& body) {
  CURLM* multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(concurrency));
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Expect:");
  std::vector<CURL*> idle;
  auto start_one = [&] {
    CURL* e;
    if (!idle.empty()) {
      e = idle.back();
      idle.pop_back();
    } else {
      e = curl_easy_init();
      curl_easy_setopt(e, CURLOPT_URL, url.c_str());
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
      curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
      curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, Discard);
      curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    }
    curl_multi_add_handle(multi, e);
  };
  int started = 0, done = 0, failed = 0;
  const Clock::time_point t0 = Clock::now();
  for (; started < concurrency && started < total; ++started) start_one();
  while (done < total) {
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      ++done;
      if (msg->data.result != CURLE_OK) ++failed;
      curl_multi_remove_handle(multi, msg->easy_handle);
      idle.push_back(msg->easy_handle);
      if (started < total) {
        start_one();
        ++started;
      }
    }
    curl_multi_poll(multi, nullptr, 0, 100, nullptr);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (CURL* e : idle) curl_easy_cleanup(e);
  curl_multi_cleanup(multi);
  curl_slist_free_all(headers);
  if (failed > 0) std::fprintf(stderr, "client_bench: libcurl: %d requests failed\n", failed);
  return total / seconds;
}

double StructtestClient(const std::string& base_url, int concurrency, int total,
                        const std::string& prompt) {
  structtest::HttpClientOptions options;
  options.provider = structtest::Provider::kOpenAi;
  options.base_url = base_url;
  options.max_in_flight = static_cast<size_t>(concurrency);
  auto client = structtest::NewCurlModelClient(options);
  if (!client.ok()) {
    std::fprintf(stderr, "client_bench: %s\n", client.status().message().c_str());
    std::exit(2);
  }
  int started = 0, done = 0, failed = 0;
  std::vector<structtest::ModelResult> results;
  const Clock::time_point t0 = Clock::now();
  while (done < total) {
    while (started < total && (*client)->CanStartMore()) {
      structtest::ModelRequest req;
      req.id = static_cast<uint64_t>(started++);
      req.model = "bench";
      req.messages = {{"user", prompt}};
      if (!(*client)->Start(std::move(req)).ok()) std::exit(2);
    }
    results.clear();
    (*client)->WaitForAny(&results, std::chrono::milliseconds(100));
    for (const auto& r : results) failed += !r.ok();
    done += static_cast<int>(results.size());
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (failed > 0) std::fprintf(stderr, "client_bench: CurlModelClient: %d requests failed\n", failed);
  return total / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: client_bench BASE_URL CONCURRENCY TOTAL [libcurl|client]\n"
                         "  e.g. client_bench http://127.0.0.1:8080/v1 64 50000\n");
    return 2;
  }
  const std::string only = argc == 5 ? argv[4] : "";
  const std::string base = argv[1];
  const int concurrency = std::atoi(argv[2]);
  const int total = std::atoi(argv[3]);
  if (concurrency < 1 || total < 1) {
    std::fprintf(stderr, "client_bench: CONCURRENCY and TOTAL must be positive\n");
    return 2;
  }
  const std::string prompt(1200, 'x');
  const std::string body = R"({"model":"bench","messages":[{"role":"user","content":")" + prompt + "\"}]}";
  curl_global_init(CURL_GLOBAL_DEFAULT);
  if (only != "client") {
    std::printf("libcurl: %.1f req/s\n",
                BareLibcurl(base + "/chat/completions", concurrency, total, body));
  }
  if (only != "libcurl") {
    std::printf("CurlModelClient: %.1f req/s\n", StructtestClient(base, concurrency, total, prompt));
  }
  return 0;
}
