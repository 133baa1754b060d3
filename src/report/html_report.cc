#include "report/html_report.h"

#include <sys/stat.h>
#include <zlib.h>

#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "report/compare.h"
#include "report/html_assets.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "store/run_store.h"

namespace structtest {

namespace {

// Paragraphs shorter than this stay inline: an index would save little.
constexpr size_t kMinChunk = 120;

// Interns the long paragraphs of every text of the report.
class Chunks {
 public:
  // A text as [paragraph...]: strings, or indexes into chunks().
  nlohmann::json Split(std::string_view text) {
    nlohmann::json parts = nlohmann::json::array();
    size_t start = 0;
    while (true) {
      const size_t end = text.find("\n\n", start);
      const std::string_view para =
          text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
      if (para.size() >= kMinChunk) {
        auto [it, added] = index_.try_emplace(std::string(para), chunks_.size());
        if (added) chunks_.push_back(it->first);
        parts.push_back(it->second);
      } else {
        parts.push_back(std::string(para));
      }
      if (end == std::string_view::npos) break;
      start = end + 2;
    }
    return parts;
  }
  nlohmann::json TakeChunks() { return nlohmann::json(std::move(chunks_)); }

 private:
  std::unordered_map<std::string, size_t> index_;  // lookups only; order is chunks_'
  std::vector<std::string> chunks_;
};

std::string_view RowStatus(const RunRow& row) {
  if (!row.response) return "unasked";
  if (!row.response->ok) return "error";
  if (!row.verdict || !row.verdict->error.empty()) return "unscored";
  return row.verdict->pass ? "pass" : "fail";
}

std::string RowReason(const RunRow& row) {
  if (!row.response) return "";
  if (!row.response->ok) return row.response->error;
  if (!row.verdict) return "no verdict under this rule set yet";
  if (!row.verdict->error.empty()) return row.verdict->error;
  return row.verdict->reason;
}

// When run.db was last written, as UTC ISO 8601 ("" when it cannot be read).
std::string LastWritten(const std::string& dir) {
  struct stat st;
  if (::stat((dir + "/" + std::string(RunStore::kFileName)).c_str(), &st) != 0) return "";
  std::tm tm;
  gmtime_r(&st.st_mtime, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

StatusOr<std::string> Gzip(std::string_view in) {
  z_stream z{};
  // 15 + 16: a gzip header, which DecompressionStream("gzip") reads.
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("html report: zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::Internal("html report: zlib: deflate did not finish");
  return out;
}

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A script's text, safe inside <script>...</script>.
std::string ScriptText(std::string_view js) {
  std::string out(js);
  for (size_t at = 0; (at = out.find("</script", at)) != std::string::npos; at += 2) {
    out.replace(at, 2, "<\\/");
  }
  return out;
}

}  // namespace

StatusOr<nlohmann::json> HtmlReportData(const std::vector<std::string>& run_dirs,
                                        RuleSet rules) {
  Chunks chunks;
  nlohmann::json samples = nlohmann::json::array();
  // (id, SampleFingerprint) -> index: the pairing of compare.h, without holding every
  // sample's text as a key.
  std::map<std::pair<std::string, uint64_t>, size_t> sample_index;
  nlohmann::json runs = nlohmann::json::array();
  for (const std::string& dir : run_dirs) {
    ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, RunStore::OpenReadOnly(dir));
    nlohmann::json rows = nlohmann::json::array();
    ASSIGN_OR_RETURN(Tally tally, TallyRun(*store, rules, [&](const RunRow& row) {
      // The same sample as compare.h's pairing: the target does not count (the first
      // run's is shown).
      auto [it, added] = sample_index.try_emplace(
          std::make_pair(row.sample.id, SampleFingerprint(row.sample)), samples.size());
      if (added) {
        nlohmann::json messages = nlohmann::json::array();
        for (const Message& m : row.sample.messages) {
          messages.push_back({m.role, chunks.Split(m.content)});
        }
        samples.push_back({{"id", row.sample.id},
                           {"domain", row.sample.domain},
                           {"subtask", row.sample.subtask},
                           {"params", row.sample.params},
                           {"messages", std::move(messages)},
                           {"target", row.sample.target}});
      }
      const StoredResponse none;
      const StoredResponse& r = row.response ? *row.response : none;
      rows.push_back({it->second, RowStatus(row), chunks.Split(r.ok ? r.text : ""),
                      chunks.Split(r.reasoning), RowReason(row), r.finish, r.input_tokens,
                      r.output_tokens, r.reasoning_tokens, r.latency_ms});
    }));
    ASSIGN_OR_RETURN(RunCounts counts, store->Counts());
    ASSIGN_OR_RETURN(std::optional<nlohmann::json> manifest, store->Manifest());
    // The figures exactly as report.json has them.
    nlohmann::json report = RenderJsonReport(tally, rules);
    report["manifest"] = manifest.value_or(nlohmann::json());
    report["samples"] = counts.samples;
    report["answered"] = counts.answered;
    report["errored"] = counts.errored;
    report["truncated"] = counts.truncated;
    runs.push_back({{"dir", dir},
                    {"date", LastWritten(dir)},
                    {"report", std::move(report)},
                    {"rows", std::move(rows)}});
  }
  // Every run as the baseline in turn, so the reader can choose.
  nlohmann::json compare = nlohmann::json::array();
  if (run_dirs.size() >= 2) {
    for (size_t base = 0; base < run_dirs.size(); ++base) {
      std::vector<std::string> dirs = {run_dirs[base]};
      for (size_t i = 0; i < run_dirs.size(); ++i) {
        if (i != base) dirs.push_back(run_dirs[i]);
      }
      CompareOptions options;
      options.rules = rules;
      auto result = CompareRuns(dirs, options);
      nlohmann::json entry = {{"baseline", base}};
      if (result.ok()) {
        entry["result"] = RenderCompareJson(*result, rules, false);
      } else {
        entry["error"] = result.status().message();
      }
      compare.push_back(std::move(entry));
    }
  }
  return nlohmann::json{{"rules", RuleSetName(rules)},
                        {"chart_libraries", internal::ChartLibraryVersions()},
                        {"chunks", chunks.TakeChunks()},
                        {"samples", std::move(samples)},
                        {"runs", std::move(runs)},
                        {"compare", std::move(compare)},
                        {"paper",
                         {{"table1", internal::PaperTable1Csv()},
                          {"table2", internal::PaperTable2Csv()},
                          {"table3", internal::PaperTable3Csv()}}}};
}

StatusOr<std::string> RenderHtmlReport(const nlohmann::json& data) {
  ASSIGN_OR_RETURN(std::string packed,
                   Gzip(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  const std::map<std::string_view, std::string> fill = {
      {"{{style}}", std::string(internal::HtmlStyle())},
      {"{{libraries}}", ScriptText(internal::VegaJs()) + "\n</script>\n<script>" +
                            ScriptText(internal::VegaLiteJs()) + "\n</script>\n<script>" +
                            ScriptText(internal::VegaEmbedJs())},
      {"{{data}}", Base64(packed)},
      {"{{script}}", ScriptText(internal::HtmlScript())},
  };
  // Placeholders are looked for in the template only, never in what fills them.
  const std::string_view tmpl = internal::HtmlTemplate();
  std::string out;
  size_t at = 0;
  while (true) {
    const size_t open = tmpl.find("{{", at);
    if (open == std::string_view::npos) break;
    const size_t close = tmpl.find("}}", open);
    const auto it = close == std::string_view::npos
                        ? fill.end()
                        : fill.find(tmpl.substr(open, close + 2 - open));
    if (it == fill.end()) {
      out.append(tmpl.substr(at, open + 2 - at));
      at = open + 2;
      continue;
    }
    out.append(tmpl.substr(at, open - at));
    out.append(it->second);
    at = close + 2;
  }
  out.append(tmpl.substr(at));
  return out;
}

StatusOr<std::string> RenderHtmlReport(const std::vector<std::string>& run_dirs,
                                       RuleSet rules) {
  ASSIGN_OR_RETURN(nlohmann::json data, HtmlReportData(run_dirs, rules));
  return RenderHtmlReport(data);
}

}  // namespace structtest
