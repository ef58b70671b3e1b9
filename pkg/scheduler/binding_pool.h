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
// most max_prebind of them run at once: WaitForRoom blocks at that many too. PreBind threads
// stay a while after their cycle and take the next one handed to them, since a pod per thread
// made the clone and the stack's faults a tenth of a DRA backlog's CPU. Without the bound
// a fast loop started a PreBind for every pod of a backlog at once, and a thousand concurrent
// requests slowed every one of them to seconds; Permit waits stay unbounded, since a pod group's
// other members must still be scheduled to release them. Each queued cycle wakes one thread:
// a broadcast woke all sixteen workers for every pod bound.
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
  // workers, max_queued and max_prebind are at least 1. A PreBind thread with nothing handed to
  // it for prebind_idle ends.
  BindingPool(int workers, size_t max_queued, size_t max_prebind = 128,
              std::chrono::milliseconds prebind_idle = std::chrono::seconds(10));
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
  // Threads started for SubmitWaiting that have not ended, idle PreBind threads among them.
  size_t ThreadsForTest() const;
  // Closes the queue, lets the workers finish what it holds and joins them, calls
  // release_waiters (which must make every SubmitWaiting task return soon) and waits for those
  // threads. Idempotent.
  void Shutdown(const std::function<void()>& release_waiters);

 private:
  void Work();
  // Runs task, then each PreBind cycle handed to it, until none comes for prebind_idle_.
  void PreBindWork(std::function<void()> task);
  // After a SubmitWaiting task: counts it done and wakes whoever waits for that.
  void FinishWaiting(bool prebind) REQUIRES(mu_);

  const size_t max_queued_;
  const size_t max_prebind_;
  const std::chrono::milliseconds prebind_idle_;
  mutable Mutex mu_;
  CondVar work_cv_;     // a task queued for the workers; closed
  CondVar handed_cv_;   // a PreBind cycle handed to an idle PreBind thread; closed
  CondVar changed_cv_;  // a task finished; a waiting thread ended
  CondVarAny room_cv_;  // a queued task was taken by a worker; a PreBind ended; closed
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  std::deque<std::function<void()>> handed_ GUARDED_BY(mu_);  // PreBind cycles not yet taken
  size_t running_ GUARDED_BY(mu_) = 0;                        // on workers or on waiting threads
  size_t waiting_threads_ GUARDED_BY(mu_) = 0;  // started by SubmitWaiting and not ended
  size_t idle_prebind_ GUARDED_BY(mu_) = 0;     // PreBind threads waiting and not yet handed one
  size_t prebind_threads_ GUARDED_BY(mu_) = 0;  // PreBind cycles running or handed
  bool closed_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace stowage::scheduler
