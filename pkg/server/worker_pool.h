// WorkerPool: runs request handlers off the I/O thread, on up to max_threads threads that are
// started on demand (a pool nobody uses costs no thread).
//
// Thread-safe. Tasks run in submission order as threads free up. Stop() drops queued tasks and
// waits up to a grace period for running ones; a thread still inside a task after that (a handler
// blocked on the network) is detached, not killed: it finishes on its own and exits, touching only
// state it shares by shared_ptr. Handlers must therefore own what they use (as the server does).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::server {

class WorkerPool {
 public:
  WorkerPool(std::string name, size_t max_threads);
  ~WorkerPool();  // Stop(0) if not yet stopped
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues task; false (task dropped) after Stop().
  bool Submit(std::function<void()> task);

  // Stops accepting tasks, drops queued ones, and waits up to grace for running ones. Only the
  // first call does anything.
  void Stop(Duration grace);

  // Threads started so far and tasks running now, for tests.
  size_t ThreadCountForTest() const;
  size_t BusyCountForTest() const;

 private:
  struct State {
    Mutex mu;
    CondVar cv;       // work arrived or stopping
    CondVar idle_cv;  // a task finished
    std::deque<std::function<void()>> queue GUARDED_BY(mu);
    size_t idle GUARDED_BY(mu) = 0;
    size_t busy GUARDED_BY(mu) = 0;
    bool stopping GUARDED_BY(mu) = false;
  };
  static void Loop(std::shared_ptr<State> state);

  const std::string name_;
  const size_t max_threads_;
  std::shared_ptr<State> state_;
  mutable Mutex threads_mu_;
  std::vector<std::thread> threads_ GUARDED_BY(threads_mu_);
};

}  // namespace stowage::server
