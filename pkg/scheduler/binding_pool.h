// BindingPool: the threads that run binding cycles (PreBind, Bind, PostBind: API calls) while
// the scheduling loop goes on with the next pod, as upstream's per-pod binding goroutines.
//
// Submit queues a cycle for one of a fixed number of workers. The queue is bounded by the
// scheduling loop itself: it calls WaitForRoom before each cycle, which blocks while
// max_queued cycles wait for a worker, so the loop never runs far ahead of what the API server
// can bind (pods wait in the scheduling queue, where later events still reach them, rather than
// assumed in a backlog). A pod held at Permit waits on a thread of its own (SubmitWaiting), so
// waiting pods take neither a worker nor room in the queue. A cycle whose PreBind has work
// (claims, volumes) also gets a thread of its own, since it may wait for a controller, but at
// most max_prebind of them run at once: WaitForRoom blocks at that many too. Without the bound
// a fast loop started a PreBind for every pod of a backlog at once, and a thousand concurrent
// requests slowed every one of them to seconds; Permit waits stay unbounded, since a pod group's
// other members must still be scheduled to release them.
//
// Thread-safe. Shutdown (or the destructor) runs every queued cycle, joins the workers, lets
// the caller release pods held at Permit and waits for their threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <stop_token>
#include <thread>
#include <vector>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::scheduler {

class BindingPool {
 public:
  // workers, max_queued and max_prebind are at least 1.
  BindingPool(int workers, size_t max_queued, size_t max_prebind = 128);
  ~BindingPool() { Shutdown({}); }
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  // Queues task for a worker. Never blocks: room is waited for before the cycle that makes it.
  void Submit(std::function<void()> task);
  // Runs task on a thread of its own at once: a pod waiting at Permit, or (prebind) a cycle
  // whose PreBind has work, which counts towards max_prebind.
  void SubmitWaiting(std::function<void()> task, bool prebind = false);
  // Blocks while max_queued tasks wait for a worker or max_prebind PreBind threads run, until
  // stop is requested or the pool shuts down.
  void WaitForRoom(std::stop_token stop);
  // Waits until nothing is queued or running, at most timeout; the number of tasks still queued
  // or running (0: drained).
  size_t Drain(std::chrono::milliseconds timeout);
  // Closes the queue, lets the workers finish what it holds and joins them, calls
  // release_waiters (which must make every SubmitWaiting task return soon) and waits for those
  // threads. Idempotent.
  void Shutdown(const std::function<void()>& release_waiters);

 private:
  void Work();

  const size_t max_queued_;
  const size_t max_prebind_;
  Mutex mu_;
  CondVar changed_cv_;  // work queued; a task finished; closed
  CondVarAny room_cv_;  // a queued task was taken by a worker; closed
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  size_t running_ GUARDED_BY(mu_) = 0;  // on workers or on waiting threads
  size_t waiting_threads_ GUARDED_BY(mu_) = 0;
  size_t prebind_threads_ GUARDED_BY(mu_) = 0;  // of waiting_threads_
  bool closed_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace stowage::scheduler
