// The table of commands.h's FlagOf, FlagNames and WithFlagNames: each library field a
// message may name, with the flag that sets it.
#include <cassert>
#include <string>
#include <string_view>

#include "cli/commands.h"

namespace structtest::cli {

namespace {

struct FieldFlag {
  std::string_view field;  // as the library writes it, without the backticks
  std::string_view flag;   // as a message shows it
  std::string_view names;  // as CLI11 takes it (the flag and its short form); "": flag
};

// Every field a library message may name, with its flag. A field set by a flag's value
// ("--no-cache" sets use_cache to false) is written as the library writes it:
// `transport.use_cache=false`.
constexpr FieldFlag kFieldFlags[] = {
    // RunSuiteOptions
    {"model", "--model", ""},
    {"samples", "--samples", ""},
    {"out", "--out", ""},
    {"repeats", "--repeats", ""},
    {"dry_run", "--dry-run", ""},
    {"quiet", "--quiet", "--quiet,-q"},
    // RequestSettings
    {"request.max_tokens", "--max-tokens", ""},
    {"request.temperature", "--temperature", ""},
    {"request.no_temperature", "--temperature none", "--temperature"},
    {"request.system", "--system", ""},
    {"request.top_p", "--top-p", ""},
    {"request.stop", "--stop", ""},
    {"request.sampling_seed", "--sampling-seed", ""},
    {"request.reasoning_effort", "--reasoning-effort", ""},
    {"request.thinking_budget", "--thinking-budget", ""},
    {"request.extra_body", "--extra-body", ""},
    {"request.headers", "--header", ""},
    // Transport
    {"transport.base_urls", "--base-url", ""},
    {"transport.endpoints_file", "--endpoints", ""},
    {"transport.concurrency", "--concurrency", "--concurrency,-j"},
    {"transport.max_concurrency", "--max-j", ""},
    {"transport.retries", "--retries", ""},
    {"transport.timeout_seconds", "--timeout", ""},
    {"transport.max_rps", "--max-rps", ""},
    {"transport.ca_cert", "--ca-cert", ""},
    {"transport.http11", "--http1.1", ""},
    {"transport.use_cache=false", "--no-cache", ""},
    {"transport.cache", "--cache", ""},
    // Budget
    {"budget.price_in", "--price-in", ""},
    {"budget.price_out", "--price-out", ""},
    {"budget.prices", "--prices", ""},
    {"budget.max_cost", "--max-cost", ""},
    {"budget.max_tokens_total", "--max-tokens-total", ""},
    // BatchSettings
    {"batch.api", "--batch", ""},
    {"batch.poll_seconds", "--batch-poll", ""},
    {"batch.size", "--batch-size", ""},
    {"batch.retry_online", "--batch-retry-online", ""},
    {"batch.offline", "--offline", ""},
    // ScoringSettings (scoring.* in RunSuiteOptions and RescoreOptions)
    {"rules", "--rules", ""},
    {"nltk_data", "--nltk-data", ""},
    {"python", "--python", ""},
    {"score_jobs", "--score-jobs", "--score-jobs,-J"},
    // GenerateOptions (suite.* in RunSuiteOptions)
    {"suite", "--suite", ""},
    {"seed", "--seed", ""},
    {"size", "--size", ""},
    {"tasks", "--tasks", ""},
    {"limit", "--limit", ""},
    {"rules_per_sample", "--rules-per-sample", ""},
    {"difficulty", "--difficulty", ""},
    {"split", "--split", ""},
    {"documents", "--documents", ""},
    {"mbpp", "--mbpp", ""},
    {"apps", "--apps", ""},
    {"gsm8k", "--gsm8k", ""},
    {"shard", "--shard", ""},  // shard_index and shard_count, as I/N
};


const FieldFlag* Find(std::string_view field) {
  for (const FieldFlag& f : kFieldFlags) {
    if (f.field == field) return &f;
  }
  return nullptr;
}

// The characters of a field name: the path (a.b), its words, and `=value`.
bool IsFieldChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '=';
}

}  // namespace

std::string_view FlagOf(std::string_view field) {
  const FieldFlag* f = Find(field);
  assert(f != nullptr && "a field the flag table does not have");
  return f == nullptr ? field : f->flag;
}

std::string FlagNames(std::string_view field) {
  const FieldFlag* f = Find(field);
  assert(f != nullptr && "a field the flag table does not have");
  if (f == nullptr) return std::string(field);
  return std::string(f->names.empty() ? f->flag : f->names);
}

std::string WithFlagNames(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    if (message[i] == '`') {
      size_t end = i + 1;
      while (end < message.size() && IsFieldChar(message[end])) ++end;
      if (end < message.size() && message[end] == '`' && end > i + 1) {
        if (const FieldFlag* f = Find(message.substr(i + 1, end - i - 1))) {
          out += f->flag;
          i = end + 1;
          continue;
        }
      }
    }
    out += message[i++];
  }
  return out;
}

}  // namespace structtest::cli
