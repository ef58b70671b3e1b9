#include "pkg/scheduler/binding_pool.h"

#include <algorithm>

#include "stowage/common/mutex.h"

namespace stowage::scheduler {

BindingPool::BindingPool(int workers, size_t max_queued, size_t max_prebind,
                         std::chrono::milliseconds prebind_idle)
    : max_queued_(std::max<size_t>(1, max_queued)),
      max_prebind_(std::max<size_t>(1, max_prebind)),
      prebind_idle_(prebind_idle) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { Work(); });
}

void BindingPool::Work() {
  for (;;) {
    std::function<void()> task;
    {
      MutexLock l(mu_);
      while (!closed_ && tasks_.empty()) work_cv_.Wait(mu_);
      // Closed: the queue is still run to its end, so no assumed pod is left behind.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    room_cv_.SignalAll();
    task();
    task = nullptr;  // the pod and its cycle state go before the task counts as done
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
  work_cv_.Signal();
}

void BindingPool::FinishWaiting(bool prebind) {
  --running_;
  if (prebind) --prebind_threads_;
  changed_cv_.SignalAll();
  if (prebind) room_cv_.SignalAll();
}

void BindingPool::SubmitWaiting(std::function<void()> task, bool prebind) {
  {
    MutexLock l(mu_);
    ++running_;
    if (prebind) {
      ++prebind_threads_;
      if (idle_prebind_ > 0) {
        // Counted off here, not by the thread, so a second cycle never waits behind the first.
        --idle_prebind_;
        handed_.push_back(std::move(task));
        handed_cv_.Signal();
        return;
      }
    }
    ++waiting_threads_;
  }
  // Detached: Shutdown waits for waiting_threads_ to reach zero instead of joining.
  if (prebind) {
    std::thread([this, task = std::move(task)]() mutable {
      PreBindWork(std::move(task));
    }).detach();
    return;
  }
  std::thread([this, task = std::move(task)] {
    task();
    MutexLock l(mu_);
    FinishWaiting(/*prebind=*/false);
    --waiting_threads_;
  }).detach();
}

void BindingPool::PreBindWork(std::function<void()> task) {
  for (;;) {
    task();
    task = nullptr;
    MutexLock l(mu_);
    FinishWaiting(/*prebind=*/true);
    ++idle_prebind_;
    const auto deadline = std::chrono::steady_clock::now() + prebind_idle_;
    while (handed_.empty() && !closed_ && handed_cv_.WaitUntil(mu_, deadline)) {
    }
    if (handed_.empty()) {
      // Timed out or closed with nothing handed: this thread is still counted idle.
      --idle_prebind_;
      --waiting_threads_;
      changed_cv_.SignalAll();
      return;
    }
    // A cycle handed to another idle thread may be taken here; the counts come out the same.
    task = std::move(handed_.front());
    handed_.pop_front();
  }
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

size_t BindingPool::ThreadsForTest() const {
  MutexLock l(mu_);
  return waiting_threads_;
}

void BindingPool::Shutdown(const std::function<void()>& release_waiters) {
  {
    MutexLock l(mu_);
    closed_ = true;
  }
  work_cv_.SignalAll();
  handed_cv_.SignalAll();
  room_cv_.SignalAll();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  if (release_waiters) release_waiters();
  MutexLock l(mu_);
  while (waiting_threads_ != 0) changed_cv_.Wait(mu_);
}

}  // namespace stowage::scheduler
