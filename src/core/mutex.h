// A mutex, its scoped lock and a condition variable that clang's -Wthread-safety
// understands (std::mutex in libstdc++ carries no annotations), with the annotation
// macros: a member declared GUARDED_BY(mu_) read or written without mu_ held is a
// compile-time warning under clang, and nothing under other compilers.
#ifndef STRUCTTEST_CORE_MUTEX_H_
#define STRUCTTEST_CORE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define STRUCTTEST_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define STRUCTTEST_THREAD_ANNOTATION_(x)
#endif

#define CAPABILITY(x) STRUCTTEST_THREAD_ANNOTATION_(capability(x))
#define SCOPED_CAPABILITY STRUCTTEST_THREAD_ANNOTATION_(scoped_lockable)
#define GUARDED_BY(x) STRUCTTEST_THREAD_ANNOTATION_(guarded_by(x))
#define REQUIRES(...) STRUCTTEST_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) STRUCTTEST_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define RELEASE(...) STRUCTTEST_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define EXCLUDES(...) STRUCTTEST_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS STRUCTTEST_THREAD_ANNOTATION_(no_thread_safety_analysis)

namespace structtest {

class CondVar;

class CAPABILITY("mutex") Mutex {
 public:
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for its scope; Unlock() and Lock() let go of it and take it again inside.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mu_->Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() {
    mu_->Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  Mutex* const mu_;
  bool held_ = true;
};

// Wait() lets go of `mu` while it waits and holds it again when it returns, which may be
// spurious: callers wait in a loop on their condition, which the analysis then checks
// is read under the mutex.
class CondVar {
 public:
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // False once `deadline` has passed.
  bool WaitUntil(Mutex* mu, std::chrono::steady_clock::time_point deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace structtest

#endif  // STRUCTTEST_CORE_MUTEX_H_
