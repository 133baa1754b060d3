#include "report/html_report.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <isa-l/igzip_lib.h>

#include "core/mutex.h"
#include "core/status_macros.h"
#include "core/hash.h"
#include "core/jsonl.h"
#include "report/compare.h"
#include "report/cost.h"
#include "report/html_assets.h"
#include "report/run_report.h"
#include "report/tally.h"
#include "store/run_store.h"
#include "tasks/math/family.h"
#include "tasks/math/formats.h"

namespace structtest {

namespace {

// Paragraphs shorter than this stay inline: an index would save little.
constexpr size_t kMinChunk = 120;
// ISA-L's igzip level 3 (of 0-3). On 60 MB of a run's prompts it wrote a gzip stream
// 3% smaller than zlib's level 3 did, in 0.29 s against 0.99 s (level 2: 0.21 s,
// 6% larger than zlib's): deflate was over half of writing a page, and the page of a
// run is written while its requests are under way.
constexpr int kLevel = 3;
constexpr size_t kLevelBuffer = ISAL_DEF_LVL3_DEFAULT;  // the working memory level 3 wants
// Bytes of JSON text collected before they go through the compressor.
constexpr size_t kSinkBuffer = 1 << 16;

void AppendBase64(std::string_view in, std::string* appended) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string& out = *appended;
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
}

// Where the report's JSON text goes: into a gzip stream whose bytes go to `emit` as they
// come (the page), or kept as text (HtmlReportData, `emit` null). The text is never held
// whole when compressed: memory is a few buffers. Compressing, a thread of the sink's
// own deflates the full buffers while the caller writes the next. `emit` is called on
// that thread until Finish() has joined it, then on the caller's for the stream's end;
// never after Finish() or the destructor returns.
class Sink {
 public:
  using Emit = std::function<Status(std::string_view)>;
  explicit Sink(Emit emit) : compress_(emit != nullptr), emit_(std::move(emit)) {}
  ~Sink() {
    if (worker_.joinable()) {  // Finish() was not reached: drop what is queued
      {
        MutexLock lock(&mu_);
        full_.clear();
        closing_ = true;
      }
      ready_.SignalAll();
      worker_.join();
    }
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  std::string& buffer() { return buffer_; }
  Status MaybeFlush() { return buffer_.size() >= kSinkBuffer ? Hand() : Status::Ok(); }
  // The JSON text (not compressing); compressing, the last bytes go to `emit`.
  StatusOr<std::string> Finish() {
    if (!compress_) return std::move(buffer_);
    RETURN_IF_ERROR(Hand());
    {
      MutexLock lock(&mu_);
      closing_ = true;
    }
    ready_.SignalAll();
    if (worker_.joinable()) worker_.join();
    {
      MutexLock lock(&mu_);
      RETURN_IF_ERROR(failed_);
    }
    Start();
    RETURN_IF_ERROR(Deflate(std::string(), /*last=*/true));
    return std::string();
  }

 private:
  // Buffers waiting for the compressor, at most.
  static constexpr size_t kQueued = 4;

  // Gives the buffer to the compressor thread (started on first use) and starts an
  // empty one; waits while the compressor is kQueued buffers behind.
  Status Hand() {
    if (!compress_ || buffer_.empty()) return Status::Ok();
    if (!worker_.joinable()) {
      Start();
      worker_ = std::thread([this] { Compress(); });
    }
    MutexLock lock(&mu_);
    while (full_.size() >= kQueued && failed_.ok()) done_.Wait(&mu_);
    RETURN_IF_ERROR(failed_);
    std::string next;
    if (!spare_.empty()) {
      next = std::move(spare_.back());
      spare_.pop_back();
    }
    full_.push_back(std::move(buffer_));
    buffer_ = std::move(next);
    buffer_.clear();
    lock.Unlock();
    ready_.Signal();
    return Status::Ok();
  }

  void Start() {
    if (!level_buffer_.empty()) return;  // started
    isal_deflate_init(&z_);
    z_.gzip_flag = IGZIP_GZIP;  // a gzip header, which DecompressionStream("gzip") reads
    z_.level = kLevel;
    level_buffer_.resize(kLevelBuffer);
    z_.level_buf = level_buffer_.data();
    z_.level_buf_size = static_cast<uint32_t>(level_buffer_.size());
  }

  // The compressor thread: deflates the full buffers in order until closed.
  void Compress() {
    MutexLock lock(&mu_);
    for (;;) {
      while (full_.empty() && !closing_) ready_.Wait(&mu_);
      if (full_.empty()) return;
      std::string text = std::move(full_.front());
      full_.pop_front();
      lock.Unlock();
      Status s = Deflate(text, /*last=*/false);
      lock.Lock();
      spare_.push_back(std::move(text));
      if (!s.ok()) {
        failed_ = std::move(s);
        full_.clear();
        done_.SignalAll();
        return;
      }
      done_.SignalAll();
    }
  }

  // Compresses `text`, the stream's last when `last`, and emits what comes out.
  Status Deflate(const std::string& text, bool last) {
    z_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(text.data()));
    z_.avail_in = static_cast<uint32_t>(text.size());
    z_.end_of_stream = last ? 1 : 0;
    z_.flush = NO_FLUSH;
    char chunk[1 << 16];
    do {
      z_.next_out = reinterpret_cast<uint8_t*>(chunk);
      z_.avail_out = sizeof chunk;
      if (const int rc = isal_deflate(&z_); rc != COMP_OK) {
        return Status::Internal(fmt::format("html report: isa-l: isal_deflate failed ({})", rc));
      }
      if (z_.avail_out < sizeof chunk) {
        RETURN_IF_ERROR(emit_(std::string_view(chunk, sizeof chunk - z_.avail_out)));
      }
    } while (z_.avail_in > 0 || z_.avail_out == 0 ||
             (last && z_.internal_state.state != ZSTATE_END));
    return Status::Ok();
  }

  bool compress_;
  Emit emit_;
  isal_zstream z_{};
  std::vector<uint8_t> level_buffer_;  // the level's working memory; empty until Start()
  std::string buffer_;
  std::thread worker_;
  Mutex mu_;
  CondVar ready_;  // a buffer to compress, or closing
  CondVar done_;   // a buffer compressed, or the compressor failed
  std::deque<std::string> full_ GUARDED_BY(mu_);
  std::vector<std::string> spare_ GUARDED_BY(mu_);
  bool closing_ GUARDED_BY(mu_) = false;
  Status failed_ GUARDED_BY(mu_);
};

// Base64 of a byte stream given in pieces, to `emit`.
class Base64Stream {
 public:
  explicit Base64Stream(Sink::Emit emit) : emit_(std::move(emit)) {}
  Status Add(std::string_view in) {
    pending_.append(in);
    const size_t whole = pending_.size() / 3 * 3;
    std::string out;
    AppendBase64(std::string_view(pending_).substr(0, whole), &out);
    pending_.erase(0, whole);
    return emit_(out);
  }
  Status Finish() {
    std::string out;
    AppendBase64(pending_, &out);
    pending_.clear();
    return emit_(out);
  }

 private:
  Sink::Emit emit_;
  std::string pending_;
};

// The prompts' long paragraphs, each stored once. Their text waits in an unlinked
// temporary file until the chunks are written, so that memory holds only a hash and a
// length per paragraph, however many documents the runs summarize. Two paragraphs are
// the same when their lengths and 96 bits of their XXH3-128 hashes agree: a false
// match among n paragraphs has a chance of about n^2 / 2^97 (1e-17 for a million),
// and no paragraph is read back to compare.
class ChunkStore {
 public:
  // Written and read with pwrite/pread on the descriptor only: no stdio buffering.
  ChunkStore() : file_(std::tmpfile()), open_error_(file_ == nullptr ? errno : 0) {}
  ~ChunkStore() {
    if (file_ != nullptr) std::fclose(file_);
  }
  ChunkStore(const ChunkStore&) = delete;
  ChunkStore& operator=(const ChunkStore&) = delete;

  // The index of `para`, added when `add` and new; nullopt when absent and not added.
  StatusOr<std::optional<size_t>> Find(std::string_view para, bool add) {
    if (para.size() > UINT32_MAX) return std::optional<size_t>();  // written out in full
    const Hash128 hash = FastHash128(para);
    const auto size = static_cast<uint32_t>(para.size());
    Slot* slot = Lookup(hash, size);
    if (slot->index != 0) return std::optional<size_t>(slot->index - 1);
    if (!add) return std::optional<size_t>();
    pending_.append(para);
    sizes_.push_back(size);
    end_ += para.size();
    *slot = Slot{hash.low, static_cast<uint32_t>(hash.high), static_cast<uint32_t>(sizes_.size())};
    if (sizes_.size() * 4 > slots_.size() * 3) Grow();  // a slot per chunk
    if (pending_.size() >= kBlock) RETURN_IF_ERROR(WritePending());
    return std::optional<size_t>(sizes_.size() - 1);
  }
  size_t size() const { return sizes_.size(); }
  // The chunks' texts, each once, in order: 0, 1, ... (the file read a block at a time).
  StatusOr<std::string> Next() {
    const uint64_t offset = next_offset_;
    const uint64_t size = sizes_[next_++];
    next_offset_ += size;
    const uint64_t written = end_ - pending_.size();  // a chunk is wholly on one side
    if (offset >= written) return std::string(pending_, offset - written, size);
    if (offset < read_at_ || offset + size > read_at_ + read_.size()) {
      read_.resize(std::min<uint64_t>(std::max<uint64_t>(kBlock, size), written - offset));
      read_at_ = offset;
      if (::pread(::fileno(file_), read_.data(), read_.size(), static_cast<off_t>(offset)) !=
          static_cast<ssize_t>(read_.size())) {
        read_.clear();
        return Status::IoError(fmt::format("html report: temporary file: {}", std::strerror(errno)));
      }
    }
    return std::string(read_, offset - read_at_, size);
  }

 private:
  // New paragraphs wait in memory and go to the file this many bytes at a time.
  static constexpr size_t kBlock = size_t{1} << 20;

  Status WritePending() {
    if (file_ == nullptr) {
      return Status::IoError(
          fmt::format("html report: no temporary file: {}", std::strerror(open_error_)));
    }
    if (::pwrite(::fileno(file_), pending_.data(), pending_.size(),
                 static_cast<off_t>(end_ - pending_.size())) != static_cast<ssize_t>(pending_.size())) {
      return Status::IoError(fmt::format("html report: temporary file: {}", std::strerror(errno)));
    }
    pending_.clear();
    return Status::Ok();
  }

  // The index: open addressing over 16-byte slots, 96 bits of a paragraph's hash with
  // its chunk number (+1; 0 is a free slot), the chunk's length compared in sizes_.
  // A paragraph costs about 35 bytes of memory, where a node-based map and a vector of
  // offsets took 80: the page's memory grows that little with the documents of a run.
  struct Slot {
    uint64_t low = 0;
    uint32_t high = 0;  // of the hash's high half
    uint32_t index = 0;
  };
  static_assert(sizeof(Slot) == 16);

  // The slot holding (hash, size), or the free slot where it would go.
  Slot* Lookup(const Hash128& hash, uint32_t size) {
    const size_t mask = slots_.size() - 1;
    const auto high = static_cast<uint32_t>(hash.high);
    for (size_t i = hash.low & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.index == 0) return &s;
      if (s.low == hash.low && s.high == high && sizes_[s.index - 1] == size) return &s;
    }
  }
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.index == 0) continue;
      size_t i = s.low & mask;
      while (slots_[i].index != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::FILE* file_;
  int open_error_;  // errno of tmpfile(), when it failed
  uint64_t end_ = 0;  // of the chunks, written or pending
  std::string pending_;
  std::string read_;  // the file's bytes from read_at_
  uint64_t read_at_ = 0;
  std::vector<uint32_t> sizes_;  // of the chunks, in order
  size_t next_ = 0;              // the chunk Next() reads, at next_offset_
  uint64_t next_offset_ = 0;
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
};

// Writes the report's JSON into a Sink, interning the long paragraphs of the prompts.
// The first I/O error of the chunk store is kept and reported by Flush.
class Writer {
 public:
  explicit Writer(Sink* sink) : sink_(sink), out_(&sink->buffer()) {}

  void Raw(std::string_view text) { out_->append(text); }
  void String(std::string_view s) {
    if (!AppendJsonString(s, out_)) {
      *out_ += nlohmann::json(std::string(s)).dump(-1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace);
    }
  }
  void Json(const nlohmann::json& j) { AppendJson(j, out_); }
  void Int(int64_t v) { *out_ += std::to_string(v); }
  // A text as [paragraph...]: strings, or indexes into the chunks. Prompt paragraphs
  // (`intern`) are added to the chunks; answers only refer to chunks already there (an
  // answer repeating the prompt), so the chunks hold the prompts' distinct paragraphs,
  // never the answers.
  void Text(std::string_view text, bool intern) {
    Raw("[");
    size_t start = 0;
    for (bool first = true;; first = false) {
      const size_t end = text.find("\n\n", start);
      const std::string_view para =
          text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
      if (!first) Raw(",");
      std::optional<size_t> index;
      if (para.size() >= kMinChunk && status_.ok()) {
        auto found = chunks_.Find(para, intern);
        if (found.ok()) {
          index = *found;
        } else {
          status_ = found.status();
        }
      }
      if (index) {
        Int(static_cast<int64_t>(*index));
      } else {
        String(para);
      }
      if (end == std::string_view::npos) break;
      start = end + 2;
    }
    Raw("]");
  }
  Status Chunks() {
    Raw("[");
    for (size_t i = 0; i < chunks_.size(); ++i) {
      if (i > 0) Raw(",");
      ASSIGN_OR_RETURN(std::string text, chunks_.Next());
      String(text);
      RETURN_IF_ERROR(Flush());
    }
    Raw("]");
    return Status::Ok();
  }
  Status Flush() {
    RETURN_IF_ERROR(status_);
    return sink_->MaybeFlush();
  }

 private:
  Sink* sink_;
  std::string* out_;
  ChunkStore chunks_;
  Status status_;
};

// The target as a person reads it: [[field, text]], "answer" first, then the other
// fields in key order. A string is its own text (cut at blank lines as Writer::Text
// does, so an answer the target repeats costs nothing more); another value is its JSON
// ("12" for total_tags). A target that is not an object is one field named "".
void WriteTarget(const nlohmann::json& target, Writer* w) {
  const auto field = [w](std::string_view name, const nlohmann::json& value) {
    w->Raw("[");
    w->String(name);
    w->Raw(",");
    w->Text(value.is_string() ? value.get_ref<const std::string&>() : value.dump(), /*intern=*/false);
    w->Raw("]");
  };
  w->Raw("[");
  if (!target.is_object()) {
    if (!target.is_null()) field("", target);
    w->Raw("]");
    return;
  }
  bool first = true;
  if (const auto answer = target.find("answer"); answer != target.end()) {
    field("answer", *answer);
    first = false;
  }
  for (const auto& [name, value] : target.items()) {
    if (name == "answer") continue;
    if (!first) w->Raw(",");
    field(name, value);
    first = false;
  }
  w->Raw("]");
}

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

// Parameters the plots and the params filter read off a sample beyond its params: for
// math, the answer phrase and step style its format name stands for, and the steps of
// its target as the checker counts them (the paper's reasoning steps). {} for others.
nlohmann::json DerivedParams(const Sample& sample) {
  nlohmann::json out = nlohmann::json::object();
  if (sample.domain != "math") return out;
  const auto name = sample.params.find("math_format_name");
  if (name == sample.params.end() || !name->is_string()) return out;
  const math_internal::MathFormat* f = math_internal::ParseFormatName(name->get<std::string>());
  if (f == nullptr) return out;
  out["answer_phrase"] = std::string(f->phrase.text);
  if (!f->hard) return out;
  out["step_style"] = std::string(math_internal::kStyleNames[static_cast<int>(f->style)]);
  const auto answer = sample.target.find("answer");
  if (answer != sample.target.end() && answer->is_string()) {
    if (const auto steps = MathHardStepCount(name->get<std::string>(), answer->get<std::string>())) {
      out["target_steps"] = *steps;
    }
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

namespace {

// The report's data (see HtmlReportData) written into `sink`. The runs are read twice
// from their stores, once for the samples and once for the rows, so that neither is
// ever held whole.
Status WriteReportData(const std::vector<std::string>& run_dirs, RuleSet rules,
                       const std::vector<std::optional<Price>>& prices, Sink* sink,
                       const PageHooks& hooks = {}) {
  if (!prices.empty() && prices.size() != run_dirs.size()) {
    return Status::InvalidArgument(fmt::format("html report: {} prices for {} runs",
                                               prices.size(), run_dirs.size()));
  }
  Writer w(sink);
  w.Raw("{\"rules\":");
  w.String(RuleSetName(rules));
  w.Raw(",\"chart_libraries\":");
  w.Json(internal::ChartLibraryVersions());
  // (id, SampleFingerprint) -> index: the pairing of compare.h, without holding every
  // sample's text as a key. One run needs no pairing: its rows are its samples, in the
  // same order both times, and the page's memory stays flat in the run's size.
  const bool one_run = run_dirs.size() == 1;
  std::map<std::pair<std::string, uint64_t>, size_t> sample_index;
  size_t samples_written = 0;
  std::vector<std::unique_ptr<RunStore>> stores;
  w.Raw(",\"samples\":[");
  for (const std::string& dir : run_dirs) {
    ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store, RunStore::OpenReadOnly(dir));
    RETURN_IF_ERROR(store->ForEachSample([&](const Sample& sample) {
      // The same sample as compare.h's pairing: the target does not count (the first
      // run's is shown).
      if (!one_run &&
          !sample_index
               .try_emplace(std::make_pair(sample.id, SampleFingerprint(sample)),
                            samples_written)
               .second) {
        return Status::Ok();
      }
      if (samples_written++ > 0) w.Raw(",");
      w.Raw("{\"id\":");
      w.String(sample.id);
      w.Raw(",\"domain\":");
      w.String(sample.domain);
      w.Raw(",\"subtask\":");
      w.String(sample.subtask);
      w.Raw(",\"params\":");
      w.Json(sample.params);
      w.Raw(",\"derived\":");
      w.Json(DerivedParams(sample));
      w.Raw(",\"messages\":[");
      for (size_t i = 0; i < sample.messages.size(); ++i) {
        w.Raw(i > 0 ? ",[" : "[");
        w.String(sample.messages[i].role);
        w.Raw(",");
        w.Text(sample.messages[i].content, /*intern=*/true);
        w.Raw("]");
      }
      w.Raw("],\"target\":");
      WriteTarget(sample.target, &w);
      w.Raw("}");
      return w.Flush();
    }));
    stores.push_back(std::move(store));
  }
  w.Raw("],\"chunks\":");
  RETURN_IF_ERROR(w.Chunks());
  if (hooks.before_rows) RETURN_IF_ERROR(hooks.before_rows());
  w.Raw(",\"runs\":[");
  for (size_t k = 0; k < run_dirs.size(); ++k) {
    RunStore& store = *stores[k];
    w.Raw(k > 0 ? ",{\"dir\":" : "{\"dir\":");
    w.String(run_dirs[k]);
    w.Raw(",\"date\":");
    w.String(LastWritten(run_dirs[k]));
    w.Raw(",\"rows\":[");
    int64_t row_number = 0;
    int64_t sample_number = -1;  // of one run: its samples in order, each with its repeats
    const bool repeated = store.repeats() > 1;
    Status written;
    ASSIGN_OR_RETURN(Tally tally, TallyRun(store, rules, [&](const RunRow& row) {
      if (!written.ok()) return;
      if (row.repeat == 0) ++sample_number;
      int64_t sample = sample_number;
      if (!one_run) {
        const auto it =
            sample_index.find(std::make_pair(row.sample.id, SampleFingerprint(row.sample)));
        sample = it == sample_index.end() ? -1 : static_cast<int64_t>(it->second);
      }
      const StoredResponse none;
      const StoredResponse& r = row.response ? *row.response : none;
      w.Raw(row_number++ > 0 ? ",[" : "[");
      w.Int(sample);
      w.Raw(",");
      w.String(RowStatus(row));
      w.Raw(",");
      w.Text(r.ok ? r.text : "", /*intern=*/false);
      w.Raw(",");
      w.Text(r.reasoning, /*intern=*/false);
      w.Raw(",");
      w.String(RowReason(row));
      w.Raw(",");
      w.String(r.finish);
      for (int64_t v : {r.input_tokens, r.output_tokens, r.reasoning_tokens, r.latency_ms}) {
        w.Raw(",");
        w.Int(v);
      }
      if (repeated) {
        w.Raw(",");
        w.Int(row.repeat);
      }
      w.Raw("]");
      written = w.Flush();
      // One run's rows need no prompt: its samples were written in this order above.
    }, one_run ? RunStore::RowRead::kNoPrompt : RunStore::RowRead::kWhole));
    RETURN_IF_ERROR(written);
    ASSIGN_OR_RETURN(std::optional<RunManifest> manifest, store.Manifest());
    std::optional<Price> price;
    if (!prices.empty()) {
      price = prices[k];
    } else {
      ASSIGN_OR_RETURN(price, RecordedPrice(run_dirs[k], manifest));
    }
    // The figures as report.json has them (with the usage, at the run's price, always).
    ASSIGN_OR_RETURN(const nlohmann::json report,
                     RunReportJson(store, tally, rules, std::optional<std::optional<Price>>(price)));
    w.Raw("],\"builtin\":");
    // A built-in responder's run is not placed among the paper's models.
    const std::string_view builtin = manifest ? manifest->BuiltinResponder() : "";
    w.Json(builtin.empty() ? nlohmann::json() : nlohmann::json(std::string(builtin)));
    w.Raw(",\"report\":");
    w.Json(report);
    w.Raw("}");
    if (hooks.tallied) hooks.tallied(k, std::move(tally));
  }
  stores.clear();
  // Every run as the baseline in turn, so the reader can choose.
  nlohmann::json compare = nlohmann::json::array();
  if (run_dirs.size() >= 2) {
    CompareOptions options;
    options.rules = rules;
    // Each run read once for all the pairs (a 10-run report of 139k samples: see
    // bench/html_report_bench.sh).
    const std::vector<StatusOr<std::vector<Comparison>>> every =
        CompareEveryBaseline(run_dirs, options);
    for (size_t base = 0; base < run_dirs.size(); ++base) {
      const StatusOr<std::vector<Comparison>>& result = every[base];
      nlohmann::json entry = {{"baseline", base}};
      if (result.ok()) {
        entry["result"] = RenderCompareJson(*result, rules, false);
      } else {
        entry["error"] = result.status().message();
      }
      compare.push_back(std::move(entry));
    }
  }
  w.Raw("],\"compare\":");
  w.Json(compare);
  w.Raw(",\"paper\":");
  w.Json({{"table1", internal::PaperTable1Csv()},
          {"table2", internal::PaperTable2Csv()},
          {"table3", internal::PaperTable3Csv()}});
  w.Raw("}");
  return Status::Ok();
}

}  // namespace

StatusOr<nlohmann::json> HtmlReportData(const std::vector<std::string>& run_dirs,
                                        RuleSet rules,
                                        const std::vector<std::optional<Price>>& prices) {
  Sink sink(nullptr);
  RETURN_IF_ERROR(WriteReportData(run_dirs, rules, prices, &sink));
  ASSIGN_OR_RETURN(std::string text, sink.Finish());
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status::Internal("html report: the data written is not JSON");
  return parsed;
}

namespace {

// The page, in pieces to `emit`: the template with its placeholders filled, the data
// compressed and base64-encoded as it is written.
Status EmitPage(const std::vector<std::string>& run_dirs, RuleSet rules,
                const std::vector<std::optional<Price>>& prices, const Sink::Emit& emit,
                const PageHooks& hooks = {}) {
  // Placeholders are looked for in the template only, never in what fills them.
  const std::string_view tmpl = internal::HtmlTemplate();
  size_t at = 0;
  while (true) {
    const size_t open = tmpl.find("{{", at);
    if (open == std::string_view::npos) break;
    const size_t close = tmpl.find("}}", open);
    const std::string_view name =
        close == std::string_view::npos ? "" : tmpl.substr(open, close + 2 - open);
    if (name != "{{style}}" && name != "{{libraries}}" && name != "{{data}}" &&
        name != "{{script}}") {
      RETURN_IF_ERROR(emit(tmpl.substr(at, open + 2 - at)));
      at = open + 2;
      continue;
    }
    RETURN_IF_ERROR(emit(tmpl.substr(at, open - at)));
    if (name == "{{style}}") {
      RETURN_IF_ERROR(emit(internal::HtmlStyle()));
    } else if (name == "{{libraries}}") {
      RETURN_IF_ERROR(emit(ScriptText(internal::VegaJs()) + "\n</script>\n<script>" +
                           ScriptText(internal::VegaLiteJs()) + "\n</script>\n<script>" +
                           ScriptText(internal::VegaEmbedJs())));
    } else if (name == "{{data}}") {
      Base64Stream base64(emit);
      Sink sink([&base64](std::string_view bytes) { return base64.Add(bytes); });
      RETURN_IF_ERROR(WriteReportData(run_dirs, rules, prices, &sink, hooks));
      RETURN_IF_ERROR(sink.Finish().status());
      RETURN_IF_ERROR(base64.Finish());
    } else {
      RETURN_IF_ERROR(emit(ScriptText(internal::HtmlScript())));
    }
    at = close + 2;
  }
  return emit(tmpl.substr(at));
}

}  // namespace

StatusOr<std::string> RenderHtmlReport(const std::vector<std::string>& run_dirs,
                                       RuleSet rules,
                                       const std::vector<std::optional<Price>>& prices) {
  std::string out;
  RETURN_IF_ERROR(EmitPage(run_dirs, rules, prices, [&out](std::string_view piece) {
    out.append(piece);
    return Status::Ok();
  }));
  return out;
}

namespace {

// Removes PATH.PID.tmp files whose process is gone (killed while it wrote the page: a
// run writes its page during its whole request loop). Those of live processes stay.
void RemoveStaleTemporaries(const std::string& path) {
  const std::filesystem::path page(path);
  const std::string prefix = page.filename().string() + ".";
  const std::filesystem::path dir =
      page.parent_path().empty() ? std::filesystem::path(".") : page.parent_path();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() + 4 || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - 4, 4, ".tmp") != 0) {
      continue;
    }
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    // EPERM: the process lives, as another user.
    if (pid == getpid() || pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove(entry.path(), ec);
  }
}

}  // namespace

Status WriteHtmlReport(const std::vector<std::string>& run_dirs, RuleSet rules,
                       const std::string& path,
                       const std::vector<std::optional<Price>>& prices,
                       const PageHooks& hooks) {
  RemoveStaleTemporaries(path);
  // Named after the process: `report --format html` may write a run's page while the
  // run itself writes it.
  const std::string tmp = fmt::format("{}.{}.tmp", path, getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Status::IoError(fmt::format("{}: {}", tmp, std::strerror(errno)));
  Status written = EmitPage(run_dirs, rules, prices, [f, &tmp](std::string_view piece) {
    if (std::fwrite(piece.data(), 1, piece.size(), f) != piece.size()) {
      return Status::IoError(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
    }
    return Status::Ok();
  }, hooks);
  if (std::fclose(f) != 0 && written.ok()) {
    written = Status::IoError(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
  }
  if (written.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    written = Status::IoError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  }
  if (!written.ok()) std::remove(tmp.c_str());
  return written;
}

}  // namespace structtest
