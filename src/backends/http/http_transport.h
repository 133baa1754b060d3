// libcurl's HttpTransport (backends/batch_api.h): one blocking exchange at a time, for
// the few calls of a batch API (submit, poll, download), with the transport settings
// of the online client (timeouts, CA file, HTTP version, user agent) and no limit on a
// body but memory, as a batch's results file may hold hundreds of MB.
#ifndef STRUCTTEST_BACKENDS_HTTP_HTTP_TRANSPORT_H_
#define STRUCTTEST_BACKENDS_HTTP_HTTP_TRANSPORT_H_

#include <memory>

#include "backends/batch_api.h"
#include "backends/http/curl_client.h"

namespace structtest {

// Uses options' connect_timeout, total_timeout, ca_file, http_version and user_agent,
// and scrubs api_key and the values of options.headers from error messages. Errors:
// libcurl could not be loaded.
StatusOr<std::unique_ptr<HttpTransport>> NewCurlHttpTransport(const HttpClientOptions& options);

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_HTTP_HTTP_TRANSPORT_H_
