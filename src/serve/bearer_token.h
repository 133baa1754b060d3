// The shared secret of `structtest serve`: reading it from a file its owner alone may
// open, checking one given by other means, and matching a request's Authorization
// header against it. No function here puts the token, or any part of it, in a message:
// errors name the file, its mode or what is wrong with the token, never its bytes.
#ifndef STRUCTTEST_SERVE_BEARER_TOKEN_H_
#define STRUCTTEST_SERVE_BEARER_TOKEN_H_

#include <string>
#include <string_view>

#include "structtest/status.h"

namespace structtest {

// The token in the file at `path` (CleanToken of its text). Refused, naming `path`: a
// file that cannot be opened or is not a regular file; one that users other than its
// owner may read or write (mode & 077: the message names the mode and says `chmod
// 600`); one over 4 KiB; an empty one.
StatusOr<std::string> ReadTokenFile(const std::string& path);

// `text` without the blanks around it (a file's trailing newline), when what is left
// can be sent in an Authorization header as it is: 1 to 4096 visible ASCII characters
// (0x21-0x7e), no space or control character. `where` starts the error message
// ("token file /x", "token").
StatusOr<std::string> CleanToken(std::string_view text, std::string_view where);

// Whether `authorization`, the value of a request's Authorization header (nullptr when
// it has none), is "Bearer <token>" (the scheme in any case, spaces around the token
// ignored). The time taken depends on the header's length, never on how much of the
// token it gets right. REQUIRES: !token.empty().
bool BearerMatches(const char* authorization, std::string_view token);

}  // namespace structtest

#endif  // STRUCTTEST_SERVE_BEARER_TOKEN_H_
