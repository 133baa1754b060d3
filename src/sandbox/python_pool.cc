#include "sandbox/python_pool.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "core/status_macros.h"

extern char** environ;

namespace structtest {

namespace {

namespace fs = std::filesystem;

constexpr int kProtocol = 2;
constexpr size_t kStderrTail = 4096;
constexpr size_t kMaxResponseBytes = size_t{64} << 20;
constexpr std::string_view kScriptName = "structtest_worker.py";
// Runs the worker script as `python3 script` would (the same sys.argv and sys.path[0]),
// but imported as a module: Python then reads its bytecode from __pycache__ (made by the
// build, see src/sandbox/CMakeLists.txt) instead of compiling it in every worker.
constexpr char kWorkerBoot[] =
    "import os, sys, importlib.util\n"
    "sys.argv = sys.argv[1:]\n"
    "sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))\n"
    "spec = importlib.util.spec_from_file_location('structtest_worker', sys.argv[0])\n"
    "worker = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(worker)\n"
    "worker.main()\n";

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string ErrnoText(int err) { return std::strerror(err); }

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// nlohmann::json throws on malformed text and on type mismatches: parse without
// exceptions, read fields through these helpers.
std::string StringField(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool BoolField(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string DumpLine(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  s.push_back('\n');
  return s;
}

// The environment of a worker: nothing of ours that could change how Python behaves,
// fixed hash seed and UTF-8, one BLAS thread (jobs are forked).
std::vector<std::string> WorkerEnvironment() {
  std::vector<std::string> env = {
      "LANG=C.UTF-8",          "LC_ALL=C.UTF-8",         "PYTHONUTF8=1",
      "PYTHONHASHSEED=0",      "PYTHONDONTWRITEBYTECODE=1", "OPENBLAS_NUM_THREADS=1",
      "OMP_NUM_THREADS=1",     "MKL_NUM_THREADS=1",
  };
  for (const char* name : {"PATH", "HOME", "TMPDIR", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    if (const char* v = std::getenv(name)) env.push_back(fmt::format("{}={}", name, v));
  }
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "PYENV", 5) == 0) env.push_back(*e);  // pyenv shims need them
  }
  return env;
}

}  // namespace

bool SourceAnalysis::HasName(std::string_view name) const {
  return std::binary_search(names.begin(), names.end(), name);
}

std::string PythonInfo::Describe() const {
  std::string s = fmt::format("python {} ({})", version, executable.empty() ? python : executable);
  s += !numpy.empty()                            ? fmt::format(", numpy {}", numpy)
       : numpy_error.empty() && numpy_installed ? ", numpy installed (not tried)"
                                                : ", no numpy";
  s += fmt::format("; jobs: network {}, {} PID namespace, {}, as {}", network,
                   pid_namespace ? "own" : "shared",
                   mount_namespace ? "read-only file system with a private tmpfs"
                                   : "private temp dir (file system not read-only)",
                   user);
  return s;
}

StatusOr<std::string> FindWorkerScript(const PythonOptions& options) {
  std::vector<std::string> tried;
  auto usable = [&](const fs::path& p) {
    std::error_code ec;
    tried.push_back(p.string());
    return fs::is_regular_file(p, ec);
  };
  if (!options.worker_script.empty()) {
    if (usable(options.worker_script)) return options.worker_script;
    return Status::NotFound(fmt::format("python worker script {} not found", options.worker_script));
  }
  if (const std::string env = Getenv("STRUCTTEST_WORKER"); !env.empty()) {
    if (usable(env)) return env;
    return Status::NotFound(
        fmt::format("python worker script {} (from STRUCTTEST_WORKER) not found", env));
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = exe.parent_path();
    if (usable(dir / kScriptName)) return (dir / kScriptName).string();
    const fs::path share = dir.parent_path() / "share" / "structtest" / kScriptName;
    if (usable(share)) return share.string();
    // Test and benchmark binaries sit in subfolders of the build tree.
    for (fs::path up = dir.parent_path(); up != dir.root_path() && up.has_relative_path() &&
                                          std::distance(dir.begin(), dir.end()) -
                                                  std::distance(up.begin(), up.end()) <= 3;
         up = up.parent_path()) {
      if (fs::exists(up / "CMakeCache.txt") && usable(up / kScriptName)) {
        return (up / kScriptName).string();
      }
    }
  }
  // A program linked with an installed libstructtest.so, which sits in PREFIX/lib or
  // PREFIX/lib/<multiarch>: PREFIX/share/structtest.
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&FindWorkerScript), &self) != 0 &&
      self.dli_fname != nullptr) {
    const fs::path lib = fs::absolute(self.dli_fname, ec).parent_path();
    if (!ec && lib != exe.parent_path()) {
      for (const fs::path& prefix : {lib.parent_path(), lib.parent_path().parent_path()}) {
        const fs::path script = prefix / "share" / "structtest" / kScriptName;
        if (usable(script)) return script.string();
      }
    }
  }
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return Status::NotFound(fmt::format(
      "python worker script {} not found (looked at: {}); set STRUCTTEST_WORKER",
      kScriptName, list.empty() ? "nowhere: /proc/self/exe unreadable" : list));
}

// ---- one worker process ----------------------------------------------------------------

class PythonPool::Worker {
 public:
  ~Worker() { Stop(); }

  // Spawns `python -s -c kWorkerBoot script` and waits for its hello.
  Status Start(const std::string& python, const std::string& script, double timeout) {
    python_ = python;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      return Status::Internal("socketpair: " + ErrnoText(errno));
    }
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
      const int err = errno;
      close(sv[0]);
      close(sv[1]);
      return Status::Internal("pipe: " + ErrnoText(err));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
    posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETPGROUP);
    const std::vector<std::string> env = WorkerEnvironment();
    std::vector<char*> envp;
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    std::vector<char*> argv = {const_cast<char*>(python.c_str()), const_cast<char*>("-s"),
                               const_cast<char*>("-c"), const_cast<char*>(kWorkerBoot),
                               const_cast<char*>(script.c_str())};
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, python.c_str(), &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(sv[1]);
    close(ep[1]);
    fd_ = sv[0];
    err_fd_ = ep[0];
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
    fcntl(err_fd_, F_SETFL, fcntl(err_fd_, F_GETFL) | O_NONBLOCK);
    if (rc != 0) {
      pid_ = -1;
      return Status::Unavailable(fmt::format("cannot run {}: {}", python, ErrnoText(rc)));
    }
    auto hello = ReadLine(Now() + timeout);
    if (!hello.ok()) {
      return Status::Unavailable(
          fmt::format("{} {} did not start: {}", python, script, hello.status().message()));
    }
    const nlohmann::json& h = *hello;
    if (StringField(h, "hello") != "structtest-worker") {
      return Status::Unavailable(fmt::format("{} {}: unexpected first line from the worker",
                                             python, script));
    }
    if (!h.contains("protocol") || !h["protocol"].is_number_integer() ||
        h["protocol"].get<int>() != kProtocol) {
      return Status::Unavailable(fmt::format(
          "{}: protocol mismatch (the script is from another structtest version)", script));
    }
    info_.python = python;
    info_.executable = StringField(h, "executable");
    info_.version = StringField(h, "python");
    info_.numpy_installed = BoolField(h, "numpy_installed");
    if (auto it = h.find("sandbox"); it != h.end() && it->is_object()) {
      info_.network = StringField(*it, "network");
      info_.user = StringField(*it, "user");
      info_.pid_namespace = BoolField(*it, "pid_namespace");
      info_.mount_namespace = BoolField(*it, "mount_namespace");
      info_.user_namespace = BoolField(*it, "user_namespace");
    }
    return Status::Ok();
  }

  // Sends one request and reads its answer. Any failure leaves the worker unusable.
  StatusOr<nlohmann::json> Call(nlohmann::json request, double timeout) {
    const int64_t id = ++next_id_;
    request["id"] = id;
    const double deadline = Now() + timeout;
    RETURN_IF_ERROR(WriteAll(DumpLine(request), deadline));
    ASSIGN_OR_RETURN(nlohmann::json reply, ReadLine(deadline));
    if (!reply.is_object() || !reply.contains("id") || !reply["id"].is_number_integer() ||
        reply["id"].get<int64_t>() != id) {
      return Status::Internal("python worker answered out of turn");
    }
    if (auto it = reply.find("error"); it != reply.end() && it->is_string()) {
      return Status::Internal("python worker: " + it->get<std::string>());
    }
    return reply;
  }

  void Stop() {
    if (fd_ >= 0) close(fd_);  // EOF: the worker leaves its loop and exits
    fd_ = -1;
    if (pid_ > 0) {
      int status;
      bool gone = false;
      for (int i = 0; i < 50 && !gone; ++i) {
        gone = waitpid(pid_, &status, WNOHANG) == pid_;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(i < 10 ? 1 : 10));
      }
      if (!gone) {
        kill(pid_, SIGKILL);
        killpg(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
      pid_ = -1;
    }
    if (err_fd_ >= 0) close(err_fd_);
    err_fd_ = -1;
  }

  void Kill() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      killpg(pid_, SIGKILL);
    }
    Stop();
  }

  const PythonInfo& info() const { return info_; }
  int pid() const { return pid_; }

 private:
  std::string StderrTail() {
    DrainStderr();
    std::string_view t = err_tail_;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.remove_suffix(1);
    if (t.empty()) return "";
    const size_t nl = t.rfind('\n', t.size() > 600 ? t.size() - 600 : 0);
    return fmt::format(" (its stderr ends: {})", nl == std::string_view::npos ? t : t.substr(nl + 1));
  }

  void DrainStderr() {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(err_fd_, buf, sizeof buf);
      if (n <= 0) break;
      err_tail_.append(buf, static_cast<size_t>(n));
      if (err_tail_.size() > 2 * kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
    }
  }

  std::string DeathNote() {
    if (pid_ <= 0) return "";
    int status;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return "";
    pid_ = -1;
    if (WIFSIGNALED(status)) return fmt::format(", killed by signal {}", WTERMSIG(status));
    return fmt::format(", exit status {}", WEXITSTATUS(status));
  }

  Status WriteAll(std::string_view data, double deadline) {
    while (!data.empty()) {
      const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        RETURN_IF_ERROR(Wait(POLLOUT, deadline));
        continue;
      }
      return Status::Unavailable(fmt::format("python worker stopped reading ({}){}{}",
                                             ErrnoText(errno), DeathNote(), StderrTail()));
    }
    return Status::Ok();
  }

  Status Wait(short events, double deadline) {
    for (;;) {
      const double left = deadline - Now();
      if (left <= 0) {
        return Status::Unavailable(fmt::format("python worker did not answer in time{}",
                                               StderrTail()));
      }
      pollfd p[2] = {{fd_, events, 0}, {err_fd_, POLLIN, 0}};
      const int n = poll(p, 2, static_cast<int>(std::min(left * 1000 + 1, 1e9)));
      if (n < 0 && errno != EINTR) return Status::Internal("poll: " + ErrnoText(errno));
      if (n <= 0) continue;
      if (p[1].revents != 0) DrainStderr();
      if (p[0].revents != 0) return Status::Ok();
    }
  }

  StatusOr<nlohmann::json> ReadLine(double deadline) {
    for (;;) {
      if (const size_t nl = rbuf_.find('\n'); nl != std::string::npos) {
        nlohmann::json j = nlohmann::json::parse(rbuf_.begin(), rbuf_.begin() + nl, nullptr,
                                                 /*allow_exceptions=*/false);
        rbuf_.erase(0, nl + 1);
        if (j.is_discarded()) return Status::Internal("python worker sent malformed JSON");
        return j;
      }
      if (rbuf_.size() > kMaxResponseBytes) {
        return Status::Internal("python worker sent an over-long line");
      }
      RETURN_IF_ERROR(Wait(POLLIN, deadline));
      char buf[1 << 16];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        rbuf_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      // EOF: give the process a moment so that its exit status can be reported.
      for (int i = 0; i < 20 && pid_ > 0; ++i) {
        int status;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          DrainStderr();
          return Status::Unavailable(fmt::format(
              "python worker exited ({}){}",
              WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                  : fmt::format("exit status {}", WEXITSTATUS(status)),
              StderrTail()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      return Status::Unavailable("python worker closed its output" + StderrTail());
    }
  }

  std::string python_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int err_fd_ = -1;
  std::string rbuf_;
  std::string err_tail_;
  int64_t next_id_ = 0;
  PythonInfo info_;
};

// ---- the pool -------------------------------------------------------------------------

PythonPool::PythonPool(PythonOptions options) : options_(std::move(options)) {}

PythonPool::~PythonPool() = default;

StatusOr<std::unique_ptr<PythonPool::Worker>> PythonPool::StartWorker() {
  // REQUIRES: resolved_script_ set; called without mu_ held.
  std::string python, script;
  {
    MutexLock lock(&mu_);
    python = resolved_python_;
    script = resolved_script_;
  }
  auto w = std::make_unique<Worker>();
  RETURN_IF_ERROR(w->Start(python, script, options_.analysis_timeout_seconds));
  return w;
}

StatusOr<PythonPool::Worker*> PythonPool::Acquire() {
  MutexLock lock(&mu_);
  for (;;) {
    if (start_error_) return *start_error_;
    if (!idle_.empty()) {
      Worker* w = idle_.back().release();
      idle_.pop_back();
      return w;
    }
    if (!resolving_ && live_workers_ < std::max(1, options_.max_workers)) break;
    idle_cv_.Wait(&mu_);
  }
  ++live_workers_;
  const bool first = resolved_script_.empty();
  if (first) resolving_ = true;
  lock.Unlock();

  auto fail = [&](Status s) -> Status {
    MutexLock l(&mu_);
    --live_workers_;
    if (first) {
      start_error_ = s;
      resolving_ = false;
    }
    idle_cv_.SignalAll();
    return s;
  };
  if (first) {
    // Choose the script and the interpreter once; every later worker uses the same.
    auto script = FindWorkerScript(options_);
    if (!script.ok()) return fail(script.status());
    std::vector<std::string> candidates;
    bool explicit_choice = true;
    if (!options_.python.empty()) {
      candidates = {options_.python};
    } else if (std::string env = Getenv("STRUCTTEST_PYTHON"); !env.empty()) {
      candidates = {env};
    } else {
      candidates = {"/usr/bin/python3", "python3"};
      explicit_choice = false;
    }
    std::unique_ptr<Worker> chosen;
    std::string chosen_python;
    std::vector<std::string> problems;
    for (const std::string& python : candidates) {
      auto w = std::make_unique<Worker>();
      Status s = w->Start(python, *script, options_.analysis_timeout_seconds);
      if (!s.ok()) {
        problems.push_back(s.message());
        continue;
      }
      const bool has_numpy = w->info().numpy_installed;
      if (!chosen || (has_numpy && !chosen->info().numpy_installed)) {
        chosen = std::move(w);
        chosen_python = python;
      }
      if (has_numpy || explicit_choice) break;
    }
    if (!chosen) {
      std::string list;
      for (const auto& p : problems) list += (list.empty() ? "" : "; ") + p;
      if (explicit_choice) {
        // The interpreter was named: say what is wrong with that one, not where else to
        // name one. A path that does not exist is the commonest case.
        const std::string& named = candidates.front();
        const char* source = options_.python.empty() ? "STRUCTTEST_PYTHON" : "python";
        std::error_code ec;
        if (named.find('/') != std::string::npos && !std::filesystem::exists(named, ec)) {
          return fail(Status::Unavailable(
              fmt::format("{} {}: no such file (the code subtasks need a python3 interpreter)",
                          source, named)));
        }
        return fail(Status::Unavailable(
            fmt::format("{} {}: could not be started as python3 ({})", source, named, list)));
      }
      return fail(Status::Unavailable(fmt::format(
          "code subtasks need python3 and none could be started ({}); install python3 "
          "or point STRUCTTEST_PYTHON at one",
          list)));
    }
    MutexLock l(&mu_);
    resolved_script_ = *script;
    resolved_python_ = chosen_python;
    info_ = chosen->info();
    resolving_ = false;
    idle_cv_.SignalAll();
    return chosen.release();
  }
  auto w = StartWorker();
  if (!w.ok()) return fail(w.status());
  return w->release();
}

void PythonPool::Release(Worker* worker, bool healthy) {
  std::unique_ptr<Worker> w(worker);
  if (!healthy) w->Kill();
  MutexLock lock(&mu_);
  if (healthy) {
    idle_.push_back(std::move(w));
  } else {
    --live_workers_;
  }
  idle_cv_.Signal();
}

StatusOr<nlohmann::json> PythonPool::Call(const nlohmann::json& request, double timeout) {
  // A worker that died (killed from outside, out of memory) is replaced once.
  Status last;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSIGN_OR_RETURN(Worker * w, Acquire());
    auto reply = w->Call(request, timeout);
    if (reply.ok()) {
      Release(w, true);
      return reply;
    }
    last = reply.status();
    const bool timed_out = last.message().find("did not answer in time") != std::string::npos;
    Release(w, false);
    if (timed_out || last.code() == StatusCode::kInternal) break;
  }
  return last;
}

StatusOr<const SourceAnalysis*> PythonPool::Analyze(std::string_view source) {
  MutexLock lock(&cache_mu_);
  for (;;) {
    if (auto it = analyses_.find(source); it != analyses_.end()) return it->second.get();
    if (analyzing_.find(source) == analyzing_.end()) break;
    computed_cv_.Wait(&cache_mu_);
  }
  analyzing_.emplace(std::string(source), true);
  lock.Unlock();
  auto analysis = AnalyzeUncached(source);
  lock.Lock();
  analyzing_.erase(analyzing_.find(source));
  computed_cv_.SignalAll();
  // A failure is this caller's; a thread that waited asks again itself.
  if (!analysis.ok()) return analysis.status();
  auto [it, inserted] = analyses_.emplace(
      std::string(source), std::make_unique<SourceAnalysis>(std::move(analysis).value()));
  return it->second.get();
}

StatusOr<SourceAnalysis> PythonPool::AnalyzeUncached(std::string_view source) {
  nlohmann::json req = {{"op", "analyze"}, {"source", std::string(source)}};
  ASSIGN_OR_RETURN(nlohmann::json reply, Call(req, options_.analysis_timeout_seconds));
  {
    MutexLock lock(&mu_);
    ++analysis_requests_;
  }
  SourceAnalysis a;
  a.parses = BoolField(reply, "parses");
  a.error = StringField(reply, "syntax_error");
  auto names = [](const nlohmann::json& j, std::vector<std::string>* out) {
    if (auto it = j.find("names"); it != j.end() && it->is_array()) {
      for (const auto& n : *it) {
        if (n.is_string()) out->push_back(n.get<std::string>());
      }
    }
    std::sort(out->begin(), out->end());
  };
  names(reply, &a.names);
  if (auto it = reply.find("lines"); it != reply.end() && it->is_array()) {
    for (const auto& l : *it) {
      LineAnalysis la;
      if (l.is_object()) {
        la.has_equals = true;
        la.parses = BoolField(l, "parses");
        names(l, &la.names);
      }
      a.lines.push_back(std::move(la));
    }
  } else if (a.parses) {
    return Status::Internal("python worker: analysis without lines");
  }
  return a;
}

StatusOr<nlohmann::json> PythonPool::RunJob(nlohmann::json request, double wall_seconds) {
  request["wall_seconds"] = wall_seconds;
  // The worker enforces wall_seconds itself; this margin covers its set-up and
  // clean-up, and a worker that stops answering.
  ASSIGN_OR_RETURN(nlohmann::json reply, Call(request, wall_seconds + 45));
  MutexLock lock(&mu_);
  ++jobs_run_;
  return reply;
}

StatusOr<const std::string*> PythonPool::Memo(
    std::string_view key, const std::function<StatusOr<std::string>()>& compute) {
  MutexLock lock(&cache_mu_);
  for (;;) {
    if (auto it = memo_.find(key); it != memo_.end()) return it->second.get();
    if (memoizing_.find(key) == memoizing_.end()) break;
    computed_cv_.Wait(&cache_mu_);
  }
  memoizing_.emplace(std::string(key), true);
  lock.Unlock();
  auto value = compute();
  lock.Lock();
  memoizing_.erase(memoizing_.find(key));
  computed_cv_.SignalAll();
  if (!value.ok()) return value.status();
  auto [it, inserted] =
      memo_.emplace(std::string(key), std::make_unique<std::string>(std::move(value).value()));
  return it->second.get();
}

StatusOr<PythonInfo> PythonPool::Info() {
  {
    MutexLock lock(&mu_);
    if (info_ && numpy_tried_) return *info_;
  }
  // One caller tries numpy; the others wait for its answer.
  MutexLock trying(&numpy_mu_);
  {
    MutexLock lock(&mu_);
    if (info_ && numpy_tried_) return *info_;
  }
  ASSIGN_OR_RETURN(nlohmann::json numpy,
                   Call({{"op", "numpy"}}, options_.analysis_timeout_seconds));
  MutexLock lock(&mu_);
  info_->numpy = StringField(numpy, "numpy");
  info_->numpy_error = StringField(numpy, "numpy_error");
  if (info_->numpy.empty() && info_->numpy_error.empty()) {
    info_->numpy_error = "the worker did not say";
  }
  numpy_tried_ = true;
  return *info_;
}

int64_t PythonPool::analysis_requests() const {
  MutexLock lock(&mu_);
  return analysis_requests_;
}

std::vector<int> PythonPool::IdleWorkerPids() const {
  MutexLock lock(&mu_);
  std::vector<int> pids;
  for (const auto& w : idle_) pids.push_back(w->pid());
  return pids;
}

int64_t PythonPool::jobs_run() const {
  MutexLock lock(&mu_);
  return jobs_run_;
}

}  // namespace structtest
