// SchedulingQueue: the pods waiting to be scheduled (upstream's PriorityQueue), composed of
// upstream's parts, each in its own file:
//
//   ActiveQueue        activeQ, ordered by the QueueSort plugin; Pop takes its head (or, when it
//                      is empty, the head of backoffQ even if still backing off:
//                      PopFromBackoffQ). It also keeps the in-flight log (below).
//   BackoffQueue       pods that failed and wait out their backoff: initial << (attempts-1),
//                      capped at max, the expiry aligned to whole seconds; flushed to activeQ
//                      every second.
//   UnschedulablePods  pods rejected by plugins, waiting for a cluster event that one of those
//                      plugins' queueing hints (QueueingHints) says may help; flushed after 5
//                      minutes regardless (counted from the last attempt or the last flush,
//                      whichever is later). Pods held back by a PreEnqueue plugin ("gated") wait
//                      here too. An event every registered plugin narrows (EventNarrowing) is
//                      put only to the pods indexed under its keys.
//   Nominator          the pods nominated to nodes.
//
// Events that arrive while a pod is being scheduled ("in flight") are recorded and replayed
// against its rejecting plugins when it comes back, so no event is missed. As upstream, one log
// holds the popped pods and the events in arrival order; a pod replays what follows its entry,
// and events older than the oldest in-flight pod are dropped, so the log stays as long as the
// events of one scheduling-plus-binding time, however many pods are in flight. Error failures back
// off separately from rejections (consecutive_errors_count).
//
// Thread-safety: thread-safe; Pop blocks. One mutex, mu_, guards every part: the parts have no
// lock of their own and call out only to plugins (QueueSort, PreEnqueue, queueing hints) and the
// clock, which must not call back into the queue, so there is one lock and no lock order.
// QueueingHints and the profiles are fixed at construction and read without it.
//
// Metrics (upstream's names and label values): pending_pods{queue} follows the four sets after
// every change; queue_incoming_pods_total{queue,event} counts each arrival with the event that
// caused it ("UnscheduledPodAdd", "ScheduleAttemptFailure", "BackoffComplete", "NodeAdd",
// "TargetPodUpdatePodLabel"...: the event's Label());
// unschedulable_pods{plugin,profile} counts the pods a plugin rejected, from the failure until
// the pod is popped again or deleted; inflight_events{event} counts the events retained for pods
// being scheduled ("PodPopped" for the pods themselves); queueing_hint_execution_duration_seconds
// times every hint call.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/framework/runtime/runtime.h"
#include "pkg/queue/active_queue.h"
#include "pkg/queue/backoff_queue.h"
#include "pkg/queue/nominator.h"
#include "pkg/queue/queued_pod.h"
#include "pkg/queue/queueing_hints.h"
#include "pkg/queue/unschedulable_pods.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::queue {

struct QueueOptions {
  Duration initial_backoff = std::chrono::seconds(1);
  Duration max_backoff = std::chrono::seconds(10);
  Duration max_in_unschedulable = std::chrono::minutes(5);
  // Extenders are configured: a pod they rejected (framework::kExtenderName among its
  // unschedulable plugins) is moved by any event, as upstream's default enqueue extension.
  bool extenders = false;
};

class SchedulingQueue {
 public:
  // profiles: scheduler name -> framework (PreEnqueue, hints); the first one's QueueSort orders
  // activeQ, as all profiles must share it.
  SchedulingQueue(std::map<std::string, framework::Framework*> profiles, QueueOptions options,
                  Clock& clock = RealClock());
  ~SchedulingQueue();

  // A new unscheduled pod.
  void Add(api::PodPtr pod);
  void Update(const api::PodPtr& old_pod, api::PodPtr new_pod);
  void Delete(const api::Pod& pod);
  // Blocks until a pod is available or Close(); nullptr after Close.
  QueuedPodInfoPtr Pop();
  // The pod's scheduling cycle is over (failed, or its binding cycle passed Permit).
  void Done(const api::Pod& pod);
  // A failed attempt: rejected (unschedulable_plugins non-empty) or an error. Ends the pod's
  // cycle (Done) even when the pod is queued already and p is dropped.
  void AddUnschedulableIfNotPresent(QueuedPodInfoPtr pod, bool error);
  // Upstream's PreEnqueueCheck: which unschedulable pods an event may move at all.
  using PreEnqueueCheck = std::function<bool(const api::Pod&)>;
  // A cluster event: re-evaluates unschedulable pods whose rejectors registered for it, only
  // those pre_check (when set) accepts.
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const framework::EventObject& old_obj,
                                     const framework::EventObject& new_obj,
                                     const PreEnqueueCheck& pre_check = nullptr);

  // The actions on resource that some profile's plugin (or an extender) registered for, 0 when
  // none: the scheduler watches the kinds only plugins read when this is not 0, as upstream
  // builds its informer handlers from the registered events.
  uint32_t RegisteredActions(framework::EventResource resource) const;

  // Moves backed-off pods to activeQ and leftovers out of unschedulable (normally driven by
  // the queue's own timer thread; exposed for tests with a FakeClock).
  void FlushBackoffQCompleted();
  void FlushUnschedulablePodsLeftover();
  void Run();    // starts the flush timers
  void Close();  // wakes Pop callers and stops the timers

  // The nominator: pods whose status.nominatedNodeName names a node are expected to land there,
  // so lower- or equal-priority pods must leave room for them. A copy of node -> nominated pods,
  // for one scheduling cycle (cheap when nothing is nominated).
  std::unordered_map<std::string, std::vector<framework::PodInfoPtr>> NominatedPods() const;
  // Forgets the nomination of a pod (it was assumed on a node, or deleted).
  void DeleteNominatedPodIfExists(const api::Pod& pod);
  // The pods nominated to node now.
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) const;
  // Records the nomination a scheduling attempt decided (upstream's AddNominatedPod) before the
  // status patch that carries it is seen: Override names the node ("" clears it), Noop keeps
  // the one pod's status names. A bound pod is never nominated.
  void AddNominatedPod(const framework::PodInfoPtr& pod,
                       const framework::NominatingInfo& nominating);
  // Moves the pod from unschedulable (gated or not) or backoffQ to activeQ through PreEnqueue
  // again (upstream's Activate); a pod being scheduled or unknown is left alone.
  void Activate(const api::Pod& pod);

  // Whether the pod was last moved out of unschedulable by the 5-minute flush rather than by an
  // event (pod_scheduled_after_flush_total); cleared when it fails again or is deleted.
  bool WasFlushedFromUnschedulable(const api::Pod& pod) const;

  // Counts for metrics and tests.
  size_t ActiveSize() const;
  size_t BackoffSize() const;
  size_t UnschedulableSize() const;
  // Pop has nothing to hand out (activeQ is empty, and backoffQ holds no rejected pod it would
  // pop early) and no popped pod is still in its scheduling cycle: nothing runs until an event,
  // a backoff expiry or a flush moves a pod (`stowage simulate` advances time then).
  bool Idle() const;
  // Every pod waiting in activeQ, backoffQ or unschedulable (gated included), and upstream's
  // summary of the three counts ("activeQ:1; backoffQ:0; unschedulableEntities:2"), for the
  // cache debugger.
  std::pair<std::vector<api::PodPtr>, std::string> PendingPods() const;
  bool IsInUnschedulable(const api::Pod& pod) const;

  // Where the queue holds a pod and why, for explain.
  struct PodState {
    std::string where;  // "active", "backoff", "unschedulable", "gated" or "scheduling"
    int attempts = 0;
    double seconds_queued = 0;          // since it last entered the queue (0 while scheduling)
    double seconds_until_retry = 0;     // backoff only
    std::set<std::string> rejected_by;  // the plugins that rejected its last attempt
    std::string gated_by;               // the PreEnqueue plugin holding it
  };
  // nullopt when the queue does not hold the pod (bound, deleted, not this scheduler's).
  std::optional<PodState> StateOf(const api::Pod& pod) const;

  // What each part holds, so tests can check that deleted pods leave nothing behind.
  struct Sizes {
    size_t active = 0, backoff = 0, unschedulable = 0;
    size_t flushed = 0;  // pods the leftover flush moved, remembered until they fail or go
    size_t in_flight_pods = 0, in_flight_events = 0;
    size_t nominated = 0;
    bool operator==(const Sizes&) const = default;
  };
  Sizes SizesForTest() const;

 private:
  framework::Framework* ProfileFor(const api::Pod& pod) const;
  // Runs PreEnqueue and puts the pod in activeQ, or in unschedulable as gated; event labels the
  // move in queue_incoming_pods_total. Returns the queue the pod went to, for the logs.
  std::string_view MoveToActive(QueuedPodInfoPtr p, std::string_view event) REQUIRES(mu_);
  // Runs PreEnqueue on a pod taken out of every set: false when a plugin holds it, which then
  // waits in unschedulable as gated.
  bool PassPreEnqueue(QueuedPodInfoPtr& p, const std::string& key, std::string_view event)
      REQUIRES(mu_);
  void RemoveEverywhere(const std::string& key) REQUIRES(mu_);
  // pending_pods from the sizes of the sets.
  void SyncPendingGauges() REQUIRES(mu_);
  // Puts a pod an event (or its failure) made worth retrying in activeQ or backoffQ, or back in
  // unschedulable if PreEnqueue holds it; returns which, for the logs.
  std::string_view Requeue(QueuedPodInfoPtr p, std::string_view event) REQUIRES(mu_);

  const std::map<std::string, framework::Framework*> profiles_;
  const QueueOptions options_;
  Clock& clock_;
  const QueueingHints hints_;  // fixed at construction, so read without mu_

  mutable Mutex mu_;
  CondVar cv_;
  ActiveQueue active_ GUARDED_BY(mu_);
  BackoffQueue backoff_ GUARDED_BY(mu_);
  UnschedulablePods unschedulable_ GUARDED_BY(mu_);
  Nominator nominator_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
  std::jthread timer_;
};

}  // namespace stowage::queue
