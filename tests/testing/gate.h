// Gate: holds the threads of a test (a fake API server's answer, a plugin) until the test
// opens it, and says how many wait, so a test can create a backlog and release it.
#pragma once

#include <condition_variable>
#include <mutex>

namespace stowage::testing {

// Threads calling Wait block until Open; Open is final. Thread-safe.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> l(mu_);
    ++waiting_;
    cv_.wait(l, [&] { return open_; });
    --waiting_;
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // How many threads are blocked in Wait.
  int waiting() {
    std::lock_guard<std::mutex> l(mu_);
    return waiting_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int waiting_ = 0;
};

}  // namespace stowage::testing
