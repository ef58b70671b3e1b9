// StatusWriter: sends the PodScheduled patches of failed attempts (pod_status.h) on workers of
// its own, apart from the binding workers, so a burst of failures never takes the room that
// bindings need and never holds up the scheduling loop.
//
// Patches are kept per pod, as upstream's API dispatcher keeps calls per object: a newer patch
// for a pod whose patch is still queued replaces it (both are computed from the informer's pod,
// so the newer one says all the pod needs), and a pod's patches never run concurrently or out of
// order. The queue therefore holds at most one patch per pod and never blocks Submit. Failures
// are logged (a pod deleted meanwhile is not a failure).
//
// Thread-safe. Shutdown (or the destructor) lets the patches being sent finish, drops the
// queued ones (the next attempt or scheduler writes them again) and joins the workers.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/rest_client.h"
#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::scheduler {

class StatusWriter {
 public:
  // workers is at least 1.
  StatusWriter(client::RestClient& client, int workers);
  ~StatusWriter() { Shutdown(); }
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  // Queues patch for pod's status (replacing a queued, unsent one for the same pod).
  void Submit(api::PodPtr pod, std::string patch);
  // Waits until no patch of pod is queued or being sent, at most timeout. Upstream writes a
  // failed attempt's status before its next cycle, so the binding of a pod retried at once
  // (a preemptor whose victims left quickly) waits for it: a nomination or PodScheduled=False
  // patch sent after the binding would be refused, or would mark a bound pod unscheduled.
  void WaitForPod(const api::Pod& pod, std::chrono::milliseconds timeout);
  // Sends patch now, on the caller's thread, after the pod's queued or in-flight patch (waited
  // for at most timeout), as upstream writes a binding cycle's nomination: queued behind a burst
  // of other pods' failure patches it would make the binding wait, or arrive after it and be
  // refused. Logs a failure as the workers do.
  Status SendNow(const api::PodPtr& pod, const std::string& patch,
                 std::chrono::milliseconds timeout);
  // Waits until nothing is queued or being sent, at most timeout; the number of pods whose
  // patch is still queued or being sent (0: drained).
  size_t Drain(std::chrono::milliseconds timeout);
  // Idempotent.
  void Shutdown();

 private:
  struct Pending {
    api::PodPtr pod;
    std::string patch;
  };
  void Work();

  client::RestClient& client_;
  Mutex mu_;
  CondVar cv_;  // a pod ready to send; a patch finished; closed
  // Invariant: a key is in ready_ iff it is in pending_ and not in sending_.
  std::map<std::string, Pending> pending_ GUARDED_BY(mu_);  // by pod UID: the newest unsent
  std::deque<std::string> ready_ GUARDED_BY(mu_);           // oldest first
  std::set<std::string> sending_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace stowage::scheduler
