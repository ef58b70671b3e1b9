// Mutex, SharedMutex, their scoped locks and condition variables: std::mutex and friends with
// the clang thread-safety annotations of stowage/common/thread_annotations.h, so that GUARDED_BY
// and REQUIRES are checked by the clang build. Every lock in the tree is one of these.
//
// Each type holds exactly its std counterpart and every member is an inline forward, so there is
// no cost over the std types. Thread-safety: the usual one for locks; CondVar's waits must be
// called with the mutex held and return with it held.
//
// Waiting: the analysis cannot see into a predicate lambda, so callers write the loop themselves
// where the guarded state is in view:
//   MutexLock l(mu_);
//   while (queue_.empty() && !closed_) cv_.Wait(mu_);
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <utility>

#include "stowage/common/thread_annotations.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage {

class CondVar;
class CondVarAny;

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Tells the analysis the lock is held where it cannot prove it (a callback run under the lock).
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

  // BasicLockable spelling, for code that needs a standard lockable (std::scoped_lock).
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// A reader/writer lock: Lock for writers, ReaderLock for readers.
class CAPABILITY("mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void ReaderLock() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void ReaderUnlock() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex (or a SharedMutex exclusively) for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(&mu) { mu.Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  // Lets go for a while (a callback that must run unlocked); Lock again before the scope ends.
  void Unlock() RELEASE() { mu_->Unlock(); }
  void Lock() ACQUIRE() { mu_->Lock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

class SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex& mu) ACQUIRE(mu) : mu_(&mu) { mu.Lock(); }
  ~WriterMutexLock() RELEASE() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* mu_;
};

class SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(&mu) { mu.ReaderLock(); }
  ~ReaderMutexLock() RELEASE() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* mu_;
};

// std::condition_variable over a Mutex. Wakeups may be spurious: callers loop on their condition.
class CondVar {
 public:
  void Wait(Mutex& mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> l(mu.mu_, std::adopt_lock);
    cv_.wait(l);
    l.release();  // the caller's MutexLock still owns the lock
  }
  // Returns false once the deadline has passed.
  template <class ClockT, class Dur>
  bool WaitUntil(Mutex& mu, std::chrono::time_point<ClockT, Dur> deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> l(mu.mu_, std::adopt_lock);
    bool woke = cv_.wait_until(l, deadline) == std::cv_status::no_timeout;
    l.release();
    return woke;
  }
  template <class Rep, class Period>
  bool WaitFor(Mutex& mu, std::chrono::duration<Rep, Period> d) REQUIRES(mu) {
    return WaitUntil(mu, std::chrono::steady_clock::now() + d);
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// A condition variable whose waits also end when a std::stop_token is requested (it costs an
// internal lock more than CondVar, so use it only where a wait must be interruptible).
class CondVarAny {
 public:
  // One wait: returns on a notification, a spurious wakeup or a stop request.
  void Wait(Mutex& mu, std::stop_token stop) REQUIRES(mu) {
    cv_.wait(mu, std::move(stop), OnceFalse());
  }
  // As Wait, and returns false once the deadline has passed.
  template <class ClockT, class Dur>
  bool WaitUntil(Mutex& mu, std::stop_token stop, std::chrono::time_point<ClockT, Dur> deadline)
      REQUIRES(mu) {
    cv_.wait_until(mu, std::move(stop), deadline, OnceFalse());
    return ClockT::now() < deadline;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  // A predicate false on its first call only, so the standard wait blocks once and returns on
  // the first wakeup; the caller re-checks its own condition with the lock in view.
  struct OnceFalse {
    bool called = false;
    bool operator()() { return std::exchange(called, true); }
  };
  std::condition_variable_any cv_;
};

}  // namespace stowage

#pragma GCC visibility pop
