#include "pkg/framework/runtime/parallelize.h"

#include <sched.h>

#include <algorithm>
#include <cmath>

namespace stowage::framework {
namespace {

// CPUs this process may run on (taskset, cpuset), at least 1.
int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

WorkerPool::WorkerPool(int parallelism) : parallelism_(std::max(1, parallelism)) {
  // Upstream's 16 goroutines share GOMAXPROCS threads; 16 OS threads on fewer CPUs would only
  // add context switches, so run at most one thread per CPU. The chunk size still follows
  // parallelism, as upstream's.
  const int threads = std::min(parallelism_, UsableCpus());
  for (int i = 1; i < threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::Work(Job& job) {
  for (;;) {
    size_t start = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (start >= job.n) return;
    size_t end = std::min(job.n, start + job.chunk);
    for (size_t i = start; i < end; ++i) {
      if (*job.stop && (*job.stop)()) {
        job.next.store(job.n, std::memory_order_relaxed);
        return;
      }
      (*job.fn)(i);
    }
  }
}

void WorkerPool::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    Job* job;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return shutdown_ || (job_ != nullptr && epoch_ != seen); });
      if (shutdown_) return;
      seen = epoch_;
      job = job_;
      ++busy_;
    }
    Work(*job);
    {
      std::lock_guard<std::mutex> l(mu_);
      if (--busy_ == 0) done_cv_.notify_all();
    }
  }
}

void WorkerPool::Until(size_t n, const std::function<void(size_t)>& fn,
                       const std::function<bool()>& stop) {
  if (n == 0) return;
  std::lock_guard<std::mutex> serial(call_mu_);
  Job job;
  job.n = n;
  job.fn = &fn;
  job.stop = &stop;
  auto root = static_cast<size_t>(std::sqrt(static_cast<double>(n)));
  job.chunk = std::max<size_t>(1, std::min(root, n / static_cast<size_t>(parallelism_) + 1));
  // Small inputs are not worth waking threads for.
  if (threads_.empty() || n <= job.chunk) {
    Work(job);
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    job_ = &job;
    ++epoch_;
  }
  cv_.notify_all();
  Work(job);
  std::unique_lock<std::mutex> l(mu_);
  // Workers that woke for this epoch may still be running; wait for them before job dies.
  done_cv_.wait(l, [&] { return busy_ == 0; });
  job_ = nullptr;
}

}  // namespace stowage::framework
