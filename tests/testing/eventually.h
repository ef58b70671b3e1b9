// Eventually: polls a condition that another thread will make true, so a test waits for an
// asynchronous effect without asserting how long it takes.
#pragma once

#include <chrono>
#include <functional>
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

}  // namespace stowage::testing
