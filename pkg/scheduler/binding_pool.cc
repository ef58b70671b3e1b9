#include "pkg/scheduler/binding_pool.h"

#include <algorithm>

#include "stowage/common/mutex.h"

namespace stowage::scheduler {

BindingPool::BindingPool(int workers, size_t max_queued, size_t max_prebind)
    : max_queued_(std::max<size_t>(1, max_queued)), max_prebind_(std::max<size_t>(1, max_prebind)) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { Work(); });
}

void BindingPool::Work() {
  for (;;) {
    std::function<void()> task;
    {
      MutexLock l(mu_);
      while (!closed_ && tasks_.empty()) changed_cv_.Wait(mu_);
      // Closed: the queue is still run to its end, so no assumed pod is left behind.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    room_cv_.SignalAll();
    task();
    MutexLock l(mu_);
    --running_;
    changed_cv_.SignalAll();
  }
}

void BindingPool::Submit(std::function<void()> task) {
  {
    MutexLock l(mu_);
    tasks_.push_back(std::move(task));
  }
  changed_cv_.SignalAll();
}

void BindingPool::SubmitWaiting(std::function<void()> task, bool prebind) {
  {
    MutexLock l(mu_);
    ++running_;
    ++waiting_threads_;
    if (prebind) ++prebind_threads_;
  }
  // Detached: Shutdown waits for waiting_threads_ to reach zero instead of joining.
  std::thread([this, prebind, task = std::move(task)] {
    task();
    {
      MutexLock l(mu_);
      --running_;
      --waiting_threads_;
      if (prebind) --prebind_threads_;
    }
    changed_cv_.SignalAll();
    if (prebind) room_cv_.SignalAll();
  }).detach();
}

void BindingPool::WaitForRoom(std::stop_token stop) {
  MutexLock l(mu_);
  while (!closed_ && (tasks_.size() >= max_queued_ || prebind_threads_ >= max_prebind_) &&
         !stop.stop_requested()) {
    room_cv_.Wait(mu_, stop);
  }
}

size_t BindingPool::Drain(std::chrono::milliseconds timeout) {
  MutexLock l(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(tasks_.empty() && running_ == 0) && changed_cv_.WaitUntil(mu_, deadline)) {
  }
  return tasks_.size() + running_;
}

void BindingPool::Shutdown(const std::function<void()>& release_waiters) {
  {
    MutexLock l(mu_);
    closed_ = true;
  }
  changed_cv_.SignalAll();
  room_cv_.SignalAll();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  if (release_waiters) release_waiters();
  MutexLock l(mu_);
  while (waiting_threads_ != 0) changed_cv_.Wait(mu_);
}

}  // namespace stowage::scheduler
