// Whole files: reading one into memory, and writing one so that a crash leaves the old
// one or the new one, never a part.
#ifndef STRUCTTEST_CORE_FILE_UTIL_H_
#define STRUCTTEST_CORE_FILE_UTIL_H_

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

#include "structtest/status.h"

namespace structtest {

// Writes `contents` to PATH.tmp and renames it over `path`. Errors are IoError naming
// `path` (the file asked for, not its temporary sibling) and the system's reason; the
// temporary file is removed.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// The bytes of the file at `path`. Errors say why without naming the file, for the
// caller to say which file it was and what for: one that cannot be opened is NotFound
// (no such file) or IoError, with the system's reason ("Permission denied"); a read
// that fails is IoError "read error: REASON" (a directory: "read error: Is a
// directory"); a file of more than `max_bytes` is InvalidArgument "file is larger than
// N bytes".
StatusOr<std::string> ReadFileToString(const std::string& path,
                                       size_t max_bytes = std::numeric_limits<size_t>::max());

}  // namespace structtest

#endif  // STRUCTTEST_CORE_FILE_UTIL_H_
