// Eventually: polls a condition for tests that wait on another thread. The timeout only turns a
// hang into a failure; tests never assert on how long something took.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace stowage::testing {

// True as soon as cond holds; false if it still does not after timeout. Conditions that ask the
// apiserver poll at a longer interval, so a waiting test does not load the shared cluster.
inline bool Eventually(const std::function<bool()>& cond,
                       std::chrono::milliseconds timeout = std::chrono::seconds(20),
                       std::chrono::milliseconds interval = std::chrono::milliseconds(1)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!cond()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
  return true;
}

}  // namespace stowage::testing
