// libcurl, loaded when the first HTTP client is made rather than when structtest
// starts: the commands that send no request (score, report, export, ...) then start
// without it and the 35 libraries it needs, which took 10 ms of every start. The
// functions are libcurl's own, called through the table.
#ifndef STRUCTTEST_BACKENDS_HTTP_CURL_LIBRARY_H_
#define STRUCTTEST_BACKENDS_HTTP_CURL_LIBRARY_H_

#include <curl/curl.h>

#include "structtest/status.h"

namespace structtest {

struct CurlLibrary {
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_setopt) multi_setopt;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_socket_action) multi_socket_action;
  decltype(&curl_multi_info_read) multi_info_read;
  decltype(&curl_multi_cleanup) multi_cleanup;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
  decltype(&curl_getdate) getdate;
};

// Loads libcurl (once; curl_global_init included) and returns its functions. Errors
// name the library and what the loader said, with the package that provides it.
StatusOr<const CurlLibrary*> LoadCurl();

// The loaded library. REQUIRES: LoadCurl() succeeded.
const CurlLibrary& Curl();

}  // namespace structtest

#endif  // STRUCTTEST_BACKENDS_HTTP_CURL_LIBRARY_H_
