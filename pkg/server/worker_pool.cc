// Grow-on-demand thread pool with a bounded, detaching stop.
#include "pkg/server/worker_pool.h"

#include "pkg/common/logging.h"

namespace stowage::server {

WorkerPool::WorkerPool(std::string name, size_t max_threads)
    : name_(std::move(name)),
      max_threads_(max_threads == 0 ? 1 : max_threads),
      state_(std::make_shared<State>()) {}

WorkerPool::~WorkerPool() { Stop(Duration::zero()); }

bool WorkerPool::Submit(std::function<void()> task) {
  bool start_thread = false;
  {
    std::lock_guard<std::mutex> l(state_->mu);
    if (state_->stopping) return false;
    state_->queue.push_back(std::move(task));
    // A new thread only when no idle one will pick the task up.
    if (state_->idle < state_->queue.size()) {
      std::lock_guard<std::mutex> tl(threads_mu_);
      start_thread = threads_.size() < max_threads_;
      if (start_thread) threads_.emplace_back(Loop, state_);
    }
    if (!start_thread) state_->cv.notify_one();
  }
  return true;
}

void WorkerPool::Loop(std::shared_ptr<State> state) {
  std::unique_lock<std::mutex> l(state->mu);
  while (true) {
    ++state->idle;
    state->cv.wait(l, [&] { return state->stopping || !state->queue.empty(); });
    --state->idle;
    if (state->stopping) return;
    std::function<void()> task = std::move(state->queue.front());
    state->queue.pop_front();
    ++state->busy;
    l.unlock();
    task();
    task = nullptr;  // release what the task captured before reporting it done
    l.lock();
    --state->busy;
    state->idle_cv.notify_all();
  }
}

void WorkerPool::Stop(Duration grace) {
  std::deque<std::function<void()>> dropped;
  bool finished;
  {
    std::unique_lock<std::mutex> l(state_->mu);
    if (state_->stopping) return;  // already stopped (e.g. Stop, then the destructor)
    state_->stopping = true;
    dropped.swap(state_->queue);
    state_->cv.notify_all();
    finished = state_->idle_cv.wait_for(l, grace, [&] { return state_->busy == 0; });
  }
  dropped.clear();  // outside the lock: destroying tasks may run arbitrary destructors
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(threads_mu_);
    threads.swap(threads_);
  }
  if (!finished) {
    LOG_WARN("{} handler pool: some handlers are still running after the shutdown grace period; "
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
  std::lock_guard<std::mutex> l(threads_mu_);
  return threads_.size();
}

size_t WorkerPool::BusyCountForTest() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->busy;
}

}  // namespace stowage::server
