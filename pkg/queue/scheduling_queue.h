// SchedulingQueue: the pods waiting to be scheduled (upstream PriorityQueue).
//
//   activeQ        ordered by the QueueSort plugin; Pop takes its head (or, when it is empty,
//                  the head of backoffQ even if still backing off: PopFromBackoffQ).
//   backoffQ       pods that failed and wait out their backoff: initial << (attempts-1), capped
//                  at max, the expiry aligned to whole seconds; flushed to activeQ every second.
//   unschedulable  pods rejected by plugins, waiting for a cluster event that one of those
//                  plugins' queueing hints says may help; flushed after 5 minutes regardless
//                  (counted from the last attempt or the last flush, whichever is later).
//                  Pods held back by a PreEnqueue plugin ("gated") wait here too.
//
// Events that arrive while a pod is being scheduled ("in flight") are recorded and replayed
// against its rejecting plugins when it comes back, so no event is missed. As upstream, one log
// holds the popped pods and the events in arrival order; a pod replays what follows its entry,
// and events older than the oldest in-flight pod are dropped, so the log stays as long as the
// events of one scheduling-plus-binding time, however many pods are in flight. Error failures back
// off separately from rejections (consecutive_errors_count). Thread-safe; Pop blocks.
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

#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pkg/common/clock.h"
#include "pkg/common/mutex.h"
#include "pkg/common/thread_annotations.h"
#include "pkg/framework/runtime/runtime.h"

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace stowage::queue {

using QueuedPodInfoPtr = std::shared_ptr<framework::QueuedPodInfo>;

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
  // A failed attempt: rejected (unschedulable_plugins non-empty) or an error.
  void AddUnschedulableIfNotPresent(QueuedPodInfoPtr pod, bool error);
  // A cluster event: re-evaluates unschedulable pods whose rejectors registered for it.
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const framework::EventObject& old_obj,
                                     const framework::EventObject& new_obj);

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
  // Every pod waiting in activeQ, backoffQ or unschedulable (gated included), and upstream's
  // summary of the three counts ("activeQ:1; backoffQ:0; unschedulableEntities:2"), for the
  // cache debugger.
  std::pair<std::vector<api::PodPtr>, std::string> PendingPods() const;
  bool IsInUnschedulable(const api::Pod& pod) const;

 private:
  struct ActiveLess {
    const SchedulingQueue* q;
    bool operator()(const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) const;
  };
  struct BackoffLess {
    const SchedulingQueue* q;
    bool operator()(const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) const;
  };
  // An entry of the in-flight log: a popped pod (pod set), or an event for every pod popped
  // before it (or only for the pod with UID only_uid).
  struct LogEntry {
    bool pod = false;
    std::string only_uid;
    framework::ClusterEvent event;
    framework::EventObject old_obj, new_obj;
    prometheus::Gauge* gauge = nullptr;  // inflight_events{event}, decremented when dropped
  };
  using Log = std::list<LogEntry>;

  static std::string Key(const api::Pod& pod);
  framework::Framework* ProfileFor(const api::Pod& pod) const;
  MonoTime BackoffExpiry(const framework::QueuedPodInfo& p) const;
  bool IsBackingOff(const framework::QueuedPodInfo& p) const REQUIRES(mu_);
  // Runs PreEnqueue and puts the pod in activeQ, or in unschedulable as gated; event labels the
  // move in queue_incoming_pods_total. Returns the queue the pod went to, for the logs.
  std::string_view MoveToActive(QueuedPodInfoPtr p, std::string_view event) REQUIRES(mu_);
  // Runs PreEnqueue on a pod taken out of every set: false when a plugin holds it, which then
  // waits in unschedulable as gated.
  bool PassPreEnqueue(QueuedPodInfoPtr& p, const std::string& key, std::string_view event)
      REQUIRES(mu_);
  void RemoveEverywhere(const std::string& key) REQUIRES(mu_);
  void PutUnschedulable(const std::string& key, QueuedPodInfoPtr p, std::string_view event)
      REQUIRES(mu_);
  void EraseUnschedulable(const std::string& key) REQUIRES(mu_);
  // pending_pods from the sizes of the sets.
  void SyncPendingGauges() REQUIRES(mu_);
  // unschedulable_pods{plugin,profile} += delta for each plugin that rejected (or gates) p.
  void CountRejectors(const framework::QueuedPodInfo& p, int delta) const;
  // Stops in-flight tracking of a pod (its PodPopped count goes down) and drops the events no
  // in-flight pod needs any more.
  void EndInFlight(const std::string& uid) REQUIRES(mu_);
  // Records an event for the in-flight pods (all, or only the one with UID *only), counted once
  // in inflight_events.
  void RecordInFlight(const framework::ClusterEvent& event, const framework::EventObject& old_obj,
                      const framework::EventObject& new_obj, const std::string* only) REQUIRES(mu_);
  // Whether any plugin of any profile registered for event (wildcards always count).
  bool IsEventOfInterest(const framework::ClusterEvent& event) const;
  // Whether event may make p schedulable, per its rejecting (or gating) plugins' hints.
  bool WorthRequeuing(const framework::QueuedPodInfo& p, const framework::ClusterEvent& event,
                      const framework::EventObject& old_obj,
                      const framework::EventObject& new_obj) const;
  // Puts a pod an event (or its failure) made worth retrying in activeQ or backoffQ, or back in
  // unschedulable if PreEnqueue holds it; returns which, for the logs.
  std::string_view Requeue(QueuedPodInfoPtr p, std::string_view event) REQUIRES(mu_);
  // Records or clears the pod's nomination from its status.nominatedNodeName, or records
  // override_node when given.
  void UpdateNomination(const framework::PodInfoPtr& pod, const std::string& override_node = "")
      REQUIRES(mu_);
  void RemoveNomination(const std::string& uid) REQUIRES(mu_);

  const std::map<std::string, framework::Framework*> profiles_;
  framework::Framework* sort_profile_;
  const QueueOptions options_;
  Clock& clock_;
  // plugin name -> the events it registered (from every profile).
  std::multimap<std::string, framework::ClusterEventWithHint> events_;

  mutable Mutex mu_;
  CondVar cv_;
  std::set<QueuedPodInfoPtr, ActiveLess> active_ GUARDED_BY(mu_);
  std::set<QueuedPodInfoPtr, BackoffLess> backoff_ GUARDED_BY(mu_);
  std::unordered_map<std::string, QueuedPodInfoPtr> unschedulable_ GUARDED_BY(mu_);
  std::unordered_map<std::string, QueuedPodInfoPtr> index_ GUARDED_BY(mu_);  // active+backoff
  Log in_flight_log_ GUARDED_BY(mu_);
  std::unordered_map<std::string, Log::iterator> in_flight_ GUARDED_BY(mu_);  // uid -> its entry
  std::unordered_map<std::string, std::vector<framework::PodInfoPtr>> nominated_ GUARDED_BY(mu_);
  std::unordered_map<std::string, std::string> nominated_node_of_ GUARDED_BY(mu_);  // uid -> node
  bool closed_ GUARDED_BY(mu_) = false;
  size_t gated_ GUARDED_BY(mu_) = 0;  // entries of unschedulable_ held back by PreEnqueue
  std::unordered_set<std::string> flushed_ GUARDED_BY(mu_);  // UIDs moved by the leftover flush
  std::jthread timer_;
};

}  // namespace stowage::queue
