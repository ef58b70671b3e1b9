// SignalWatcher: turns SIGTERM/SIGINT into a stop request, and runs the cache debugger on SIGUSR2
// as kube-scheduler does. The signals are blocked in every thread (the mask is set before any
// thread starts) and taken synchronously by a thread of its own.
//
// Thread-safety: construct it on the main thread before any other thread starts; token() and
// OnDebugSignal may then be called from any thread.
#pragma once

#include <signal.h>

#include <functional>
#include <stop_token>
#include <thread>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::app {

class SignalWatcher {
 public:
  SignalWatcher();
  // Requested on SIGTERM or SIGINT.
  std::stop_token token() const { return stop_.get_token(); }
  // What SIGUSR2 runs from now on.
  void OnDebugSignal(std::function<void()> debug);

 private:
  sigset_t sigs_;
  std::stop_source stop_;
  std::thread thread_;
  Mutex mu_;
  std::function<void()> on_debug_ GUARDED_BY(mu_);
};

}  // namespace stowage::app
