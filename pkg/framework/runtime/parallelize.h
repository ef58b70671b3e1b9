// WorkerPool: the Parallelizer behind Filter and Score. A fixed set of threads, created once
// (parallelism, but no more than the usable CPUs), that split [0, n) into chunks (upstream's chunk
// size: max(1, min(sqrt(n), n/parallelism + 1))) and take them from a shared counter; the calling
// thread works too. One Until() runs at a time per pool (the scheduling cycle is sequential); calls
// from several threads are serialised.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/handle.h"

namespace stowage::framework {

class WorkerPool : public Parallelizer {
 public:
  explicit WorkerPool(int parallelism);
  ~WorkerPool() override;

  void Until(size_t n, const std::function<void(size_t)>& fn,
             const std::function<bool()>& stop = {}) override;
  int parallelism() const override { return parallelism_; }

 private:
  struct Job {
    size_t n = 0;
    size_t chunk = 1;
    const std::function<void(size_t)>* fn = nullptr;
    const std::function<bool()>* stop = nullptr;
    std::atomic<size_t> next{0};
  };
  void Work(Job& job);
  void WorkerLoop();

  const int parallelism_;
  Mutex call_mu_;  // one Until at a time
  Mutex mu_;
  CondVar cv_;
  CondVar done_cv_;
  Job* job_ GUARDED_BY(mu_) = nullptr;
  uint64_t epoch_ GUARDED_BY(mu_) = 0;
  int busy_ GUARDED_BY(mu_) = 0;
  bool shutdown_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace stowage::framework
