// Helpers for tests of concurrent code: Eventually polls for an effect another thread will
// produce, without asserting how long it takes; Gate holds threads until the test opens it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace stowage::testing {

// Polls cond every millisecond until it holds; false after 20 s, so a hung test fails instead
// of hanging.
inline bool Eventually(const std::function<bool()>& cond) {
  for (int i = 0; i < 20000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return cond();
}

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
