#include "backends/http/curl_library.h"

#include <dlfcn.h>

#include <cassert>
#include <mutex>
#include <string>
#include <type_traits>

#include <fmt/format.h>

namespace structtest {
namespace {

// The soname of the libcurl this build is compiled against (Debian's libcurl4).
constexpr const char* kSoname = "libcurl.so.4";

CurlLibrary g_library;
const CurlLibrary* g_loaded = nullptr;

Status Load() {
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(fmt::format(
        "cannot load {} to send requests: {} (install the libcurl4 package)", kSoname,
        why != nullptr ? why : "unknown error"));
  }
  std::string missing;
  const auto get = [&](auto* fn, const char* name) {
    void* p = dlsym(handle, name);
    if (p == nullptr) missing += missing.empty() ? name : std::string(", ") + name;
    *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(p);
  };
  CurlLibrary& c = g_library;
  get(&c.global_init, "curl_global_init");
  get(&c.easy_init, "curl_easy_init");
  get(&c.easy_setopt, "curl_easy_setopt");
  get(&c.easy_getinfo, "curl_easy_getinfo");
  get(&c.easy_cleanup, "curl_easy_cleanup");
  get(&c.easy_perform, "curl_easy_perform");
  get(&c.easy_strerror, "curl_easy_strerror");
  get(&c.multi_init, "curl_multi_init");
  get(&c.multi_setopt, "curl_multi_setopt");
  get(&c.multi_add_handle, "curl_multi_add_handle");
  get(&c.multi_remove_handle, "curl_multi_remove_handle");
  get(&c.multi_socket_action, "curl_multi_socket_action");
  get(&c.multi_info_read, "curl_multi_info_read");
  get(&c.multi_cleanup, "curl_multi_cleanup");
  get(&c.slist_append, "curl_slist_append");
  get(&c.slist_free_all, "curl_slist_free_all");
  get(&c.getdate, "curl_getdate");
  if (!missing.empty()) {
    return Status::Unavailable(
        fmt::format("{} lacks functions structtest needs: {}", kSoname, missing));
  }
  if (c.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return Status::Internal("curl_global_init failed");
  }
  g_loaded = &g_library;
  return Status::Ok();
}

}  // namespace

StatusOr<const CurlLibrary*> LoadCurl() {
  static std::once_flag once;
  static Status loaded;
  std::call_once(once, [] { loaded = Load(); });
  if (!loaded.ok()) return loaded;
  return g_loaded;
}

const CurlLibrary& Curl() {
  assert(g_loaded != nullptr && "Curl() before LoadCurl()");
  return *g_loaded;
}

}  // namespace structtest
