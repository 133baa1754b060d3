// Writing a whole file so that a crash leaves the old one or the new one, never a part.
#ifndef STRUCTTEST_CORE_FILE_UTIL_H_
#define STRUCTTEST_CORE_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "structtest/status.h"

namespace structtest {

// Writes `contents` to PATH.tmp and renames it over `path`. Errors are IoError naming
// `path` (the file asked for, not its temporary sibling) and the system's reason; the
// temporary file is removed.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace structtest

#endif  // STRUCTTEST_CORE_FILE_UTIL_H_
