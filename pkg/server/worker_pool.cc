// Grow-on-demand thread pool with a bounded, detaching stop.
#include "pkg/server/worker_pool.h"

#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"

namespace stowage::server {

WorkerPool::WorkerPool(std::string name, size_t max_threads)
    : name_(std::move(name)),
      max_threads_(max_threads == 0 ? 1 : max_threads),
      state_(std::make_shared<State>()) {}

WorkerPool::~WorkerPool() { Stop(Duration::zero()); }

bool WorkerPool::Submit(std::function<void()> task) {
  bool start_thread = false;
  {
    MutexLock l(state_->mu);
    if (state_->stopping) return false;
    state_->queue.push_back(std::move(task));
    // A new thread only when no idle one will pick the task up.
    if (state_->idle < state_->queue.size()) {
      MutexLock tl(threads_mu_);
      start_thread = threads_.size() < max_threads_;
      if (start_thread) threads_.emplace_back(Loop, state_);
    }
    if (!start_thread) state_->cv.Signal();
  }
  return true;
}

void WorkerPool::Loop(std::shared_ptr<State> state) {
  MutexLock l(state->mu);
  while (true) {
    ++state->idle;
    while (!state->stopping && state->queue.empty()) state->cv.Wait(state->mu);
    --state->idle;
    if (state->stopping) return;
    std::function<void()> task = std::move(state->queue.front());
    state->queue.pop_front();
    ++state->busy;
    state->mu.Unlock();
    task();
    task = nullptr;  // release what the task captured before reporting it done
    state->mu.Lock();
    --state->busy;
    state->idle_cv.SignalAll();
  }
}

void WorkerPool::Stop(Duration grace) {
  std::deque<std::function<void()>> dropped;
  bool finished;
  {
    MutexLock l(state_->mu);
    if (state_->stopping) return;  // already stopped (e.g. Stop, then the destructor)
    state_->stopping = true;
    dropped.swap(state_->queue);
    state_->cv.SignalAll();
    const MonoTime deadline = std::chrono::steady_clock::now() + grace;
    while (state_->busy != 0 && state_->idle_cv.WaitUntil(state_->mu, deadline)) {
    }
    finished = state_->busy == 0;
  }
  dropped.clear();  // outside the lock: destroying tasks may run arbitrary destructors
  std::vector<std::thread> threads;
  {
    MutexLock l(threads_mu_);
    threads.swap(threads_);
  }
  if (!finished) {
    LOG_WARN(
        "{} handler pool: some handlers are still running after the shutdown grace period; "
        "leaving them to finish in the background",
        name_);
  }
  for (auto& t : threads) {
    if (finished) {
      t.join();
    } else {
      t.detach();
    }
  }
}

size_t WorkerPool::ThreadCountForTest() const {
  MutexLock l(threads_mu_);
  return threads_.size();
}

size_t WorkerPool::BusyCountForTest() const {
  MutexLock l(state_->mu);
  return state_->busy;
}

}  // namespace stowage::server
