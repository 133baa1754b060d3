#include "sources/program_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace structtest {

namespace {

// A record is every field of Program in order: strings as a 64-bit little-endian
// length and the bytes, string lists as a count and the strings.
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutString(std::string* out, std::string_view s) {
  PutU64(out, s.size());
  out->append(s);
}

void PutStrings(std::string* out, const std::vector<std::string>& list) {
  PutU64(out, list.size());
  for (const std::string& s : list) PutString(out, s);
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool U64(uint64_t* v) {
    if (data_.size() < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= uint64_t{static_cast<unsigned char>(data_[i])} << (8 * i);
    data_.remove_prefix(8);
    return true;
  }
  bool String(std::string* s) {
    uint64_t n;
    if (!U64(&n) || n > data_.size()) return false;
    s->assign(data_.substr(0, n));
    data_.remove_prefix(n);
    return true;
  }
  bool Strings(std::vector<std::string>* list) {
    uint64_t n;
    if (!U64(&n) || n > data_.size() / 8) return false;
    list->resize(n);
    for (std::string& s : *list) {
      if (!String(&s)) return false;
    }
    return true;
  }
  bool done() const { return data_.empty(); }

 private:
  std::string_view data_;
};

std::string Encode(const Program& p) {
  std::string out;
  out.reserve(128 + p.source.size() * 3);
  PutString(&out, p.id);
  PutString(&out, p.task_id);
  PutString(&out, p.source);
  PutString(&out, p.fn_name);
  PutStrings(&out, p.inputs);
  PutStrings(&out, p.outputs);
  PutString(&out, p.exact_outputs);
  PutU64(&out, p.test_inputs);
  PutStrings(&out, p.var_mapping);
  PutString(&out, p.printed_source);
  PutString(&out, p.renamed_source);
  return out;
}

bool Decode(std::string_view data, Program* p) {
  Reader r(data);
  uint64_t test_inputs = 0;
  const bool ok = r.String(&p->id) && r.String(&p->task_id) && r.String(&p->source) &&
                  r.String(&p->fn_name) && r.Strings(&p->inputs) && r.Strings(&p->outputs) &&
                  r.String(&p->exact_outputs) && r.U64(&test_inputs) && r.Strings(&p->var_mapping) &&
                  r.String(&p->printed_source) && r.String(&p->renamed_source) && r.done();
  p->test_inputs = static_cast<size_t>(test_inputs);
  return ok;
}

}  // namespace

StatusOr<std::unique_ptr<ProgramStore>> ProgramStore::Create() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string path = dir + "/structtest-programs-XXXXXX";
  // Close-on-exec: the python workers started later must not inherit it.
  const int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    return Status::IoError(fmt::format("{}: cannot make a temporary file for the code programs: {}",
                                       dir, std::strerror(errno)));
  }
  unlink(path.c_str());
  return std::unique_ptr<ProgramStore>(new ProgramStore(fd, std::move(dir)));
}

ProgramStore::~ProgramStore() { close(fd_); }

Status ProgramStore::Append(const Program& program) {
  const std::string record = Encode(program);
  for (size_t done = 0; done < record.size();) {
    const ssize_t n = pwrite(fd_, record.data() + done, record.size() - done,
                             static_cast<off_t>(end_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IoError(fmt::format("{}: cannot write the code programs' temporary file: {}",
                                         dir_, n < 0 ? std::strerror(errno) : "no space"));
    }
    done += static_cast<size_t>(n);
  }
  offsets_.push_back(end_);
  end_ += record.size();
  test_ends_.push_back(test_pairs() + program.test_count());
  return Status::Ok();
}

StatusOr<Program> ProgramStore::Get(size_t i) const {
  assert(i < size());
  const uint64_t begin = offsets_[i];
  const uint64_t end = i + 1 < offsets_.size() ? offsets_[i + 1] : end_;
  std::string data(end - begin, '\0');
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = pread(fd_, data.data() + done, data.size() - done,
                            static_cast<off_t>(begin + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IoError(fmt::format("{}: cannot read the code programs' temporary file: {}",
                                         dir_, n < 0 ? std::strerror(errno) : "it is shorter"));
    }
    done += static_cast<size_t>(n);
  }
  Program p;
  if (!Decode(data, &p)) {
    return Status::IoError(
        fmt::format("{}: program {} in the code programs' temporary file is damaged", dir_, i));
  }
  return p;
}

std::pair<size_t, size_t> ProgramStore::TestPair(size_t k) const {
  assert(k < test_pairs());
  const size_t i = static_cast<size_t>(
      std::upper_bound(test_ends_.begin(), test_ends_.end(), uint64_t{k}) - test_ends_.begin());
  return {i, k - (i == 0 ? 0 : static_cast<size_t>(test_ends_[i - 1]))};
}

}  // namespace structtest
