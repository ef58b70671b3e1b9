#include "pkg/scheduler/binding_pool.h"

#include <algorithm>

namespace stowage::scheduler {

BindingPool::BindingPool(int workers, size_t max_queued)
    : max_queued_(std::max<size_t>(1, max_queued)) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { Work(); });
}

void BindingPool::Work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      changed_cv_.wait(l, [&] { return closed_ || !tasks_.empty(); });
      // Closed: the queue is still run to its end, so no assumed pod is left behind.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    room_cv_.notify_all();
    task();
    std::lock_guard<std::mutex> l(mu_);
    --running_;
    changed_cv_.notify_all();
  }
}

void BindingPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    tasks_.push_back(std::move(task));
  }
  changed_cv_.notify_all();
}

void BindingPool::SubmitWaiting(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++running_;
    ++waiting_threads_;
  }
  // Detached: Shutdown waits for waiting_threads_ to reach zero instead of joining.
  std::thread([this, task = std::move(task)] {
    task();
    std::lock_guard<std::mutex> l(mu_);
    --running_;
    --waiting_threads_;
    changed_cv_.notify_all();
  }).detach();
}

void BindingPool::WaitForRoom(std::stop_token stop) {
  std::unique_lock<std::mutex> l(mu_);
  room_cv_.wait(l, stop, [&] { return closed_ || tasks_.size() < max_queued_; });
}

size_t BindingPool::Drain(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  changed_cv_.wait_for(l, timeout, [&] { return tasks_.empty() && running_ == 0; });
  return tasks_.size() + running_;
}

void BindingPool::Shutdown(const std::function<void()>& release_waiters) {
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
  }
  changed_cv_.notify_all();
  room_cv_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  if (release_waiters) release_waiters();
  std::unique_lock<std::mutex> l(mu_);
  changed_cv_.wait(l, [&] { return waiting_threads_ == 0; });
}

}  // namespace stowage::scheduler
