// Helpers shared by the file loaders of src/sources: whole-file reads with a size
// limit, strict UTF-8 validation, and the "FILE:LINE: problem" error shape. Internal
// to src/sources.
#ifndef STRUCTTEST_SOURCES_LOAD_UTIL_H_
#define STRUCTTEST_SOURCES_LOAD_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "structtest/status.h"

namespace structtest::internal {

// Reads all of `path`. Errors: IoError "PATH: reason"; InvalidArgument when the file
// is larger than max_bytes.
StatusOr<std::string> ReadWholeFile(const std::string& path, size_t max_bytes);

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points
// above U+10FFFF). Otherwise *bad_offset is the byte offset of the first bad sequence.
bool IsValidUtf8(std::string_view s, size_t* bad_offset);

// Checks a text value read from a file: valid UTF-8 and no NUL character. `what`
// names the value in the message ("field 'text'", "column 'text'"); `line` is the
// line the value starts on, and the reported line accounts for newlines inside it.
// Error: InvalidArgument "FILE:LINE: WHAT is not valid UTF-8 (byte 0xNN)" or
// "FILE:LINE: WHAT contains a NUL character".
Status CheckText(std::string_view value, std::string_view file, int64_t line,
                 std::string_view what);

// "\r\n" -> "\n", then Python's str.strip().
std::string NormalizeText(std::string_view s);

// Removes a leading UTF-8 byte order mark.
std::string_view StripBom(std::string_view s);

}  // namespace structtest::internal

#endif  // STRUCTTEST_SOURCES_LOAD_UTIL_H_
