// Prepared code programs kept out of memory, so that a suite of any --size holds only
// an index of them: the programs are written to a temporary file that is unlinked as
// soon as it is made (nothing is left behind, however the process ends; the space is
// freed when the store closes) and read back one at a time when a sample needs one.
// Memory: 16 bytes per program (its offset, and a running count of test inputs for
// simulate_execute).
#ifndef STRUCTTEST_SOURCES_PROGRAM_STORE_H_
#define STRUCTTEST_SOURCES_PROGRAM_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sources/program.h"
#include "structtest/status.h"

namespace structtest {

class ProgramStore {
 public:
  // An empty store on a new temporary file in $TMPDIR (default /tmp), already
  // unlinked. Errors: the file cannot be made.
  static StatusOr<std::unique_ptr<ProgramStore>> Create();
  ~ProgramStore();
  ProgramStore(const ProgramStore&) = delete;
  ProgramStore& operator=(const ProgramStore&) = delete;

  // Appends `program` as program size(), written at once. Errors: the write failed
  // (a full disk). Not thread-safe: no other call may run at the same time.
  Status Append(const Program& program);

  size_t size() const { return offsets_.size(); }
  bool empty() const { return offsets_.empty(); }

  // Program `i`, read back from the file. REQUIRES: i < size(). Errors: the read
  // failed. Thread-safe with other Get calls.
  StatusOr<Program> Get(size_t i) const;

  // The (program, test input) pairs of simulate_execute: every program's test_count()
  // in order. Pair `k` is test `second` of program `first`. REQUIRES: k < test_pairs().
  size_t test_pairs() const { return test_ends_.empty() ? 0 : test_ends_.back(); }
  std::pair<size_t, size_t> TestPair(size_t k) const;

 private:
  ProgramStore(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}

  const int fd_;
  const std::string dir_;  // where the file was made, for messages
  uint64_t end_ = 0;       // bytes written
  std::vector<uint64_t> offsets_;
  std::vector<uint64_t> test_ends_;  // [i]: the tests of programs 0 to i
};

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_PROGRAM_STORE_H_
