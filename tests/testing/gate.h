// Gate: holds the threads of a test (a fake API server's answer, a plugin) until the test
// opens it, and says how many wait, so a test can create a backlog and release it.
#pragma once

#include "stowage/common/mutex.h"

namespace stowage::testing {

// Threads calling Wait block until Open; Open is final. Thread-safe.
class Gate {
 public:
  void Wait() {
    MutexLock l(mu_);
    ++waiting_;
    while (!open_) cv_.Wait(mu_);
    --waiting_;
  }
  void Open() {
    MutexLock l(mu_);
    open_ = true;
    cv_.SignalAll();
  }
  // How many threads are blocked in Wait.
  int waiting() {
    MutexLock l(mu_);
    return waiting_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool open_ GUARDED_BY(mu_) = false;
  int waiting_ GUARDED_BY(mu_) = 0;
};

}  // namespace stowage::testing
