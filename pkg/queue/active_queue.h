// ActiveQueue: the pods ready to be scheduled, in QueueOrder, and the log of the pods being
// scheduled ("in flight") with the cluster events seen meanwhile (upstream's activeQueue, which
// keeps inFlightPods and inFlightEvents beside its heap).
//
// The log holds the popped pods and the events in arrival order. A pod that fails replays the
// events after its own entry; events older than the oldest in-flight pod are dropped, so the log
// stays as long as the events of one scheduling-plus-binding time, however many pods are in
// flight. An event is kept only while some pod is in flight.
//
// Metrics: queue_incoming_pods_total{queue="active"} counts each Add with its event;
// inflight_events{event} counts the retained events ("PodPopped" for the pods themselves).
//
// Thread-safety: none of its own. SchedulingQueue holds it GUARDED_BY its one mutex and calls it
// only with that mutex held; it takes no lock and calls out only to the QueueSort plugin, so it
// adds no lock order. Invariants: a key is queued at most once; the order of queued pods is not
// changed in place (Update takes a pod out and puts it back).
#pragma once

#include <functional>
#include <list>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pkg/queue/indexed_pods.h"
#include "pkg/queue/queued_pod.h"
#include "stowage/framework/events.h"

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace stowage::queue {

class ActiveQueue {
 public:
  // An event recorded while pods were in flight: for every pod popped before it, or only for the
  // pod with UID only_uid when that is set (the pod's own update).
  struct InFlightEvent {
    std::string only_uid;
    framework::ClusterEvent event;
    framework::EventObject old_obj, new_obj;
  };

  explicit ActiveQueue(const framework::QueueSortPlugin& sort);

  // Queues p, whose key must not be queued here, counting it with event.
  void Add(QueuedPodInfoPtr p, std::string_view event);
  // The pod queued under key, or nullptr.
  QueuedPodInfoPtr Get(const std::string& key) const;
  bool Has(const std::string& key) const { return pods_.Has(key); }
  // Takes the pod under key out and returns it; nullptr when none is queued.
  QueuedPodInfoPtr Delete(const std::string& key);
  // Replaces the pod info of the pod queued under key, keeping the order right; false when none.
  bool Update(const std::string& key, framework::PodInfoPtr pod_info);
  // Takes the head out. Must not be empty.
  QueuedPodInfoPtr Pop();
  bool empty() const { return pods_.pods().empty(); }
  size_t size() const { return pods_.pods().size(); }
  // Calls fn on every queued pod, in order.
  void ForEach(const std::function<void(const QueuedPodInfoPtr&)>& fn) const;

  // The in-flight log.
  bool IsInFlight(const std::string& uid) const { return in_flight_.count(uid) > 0; }
  bool AnyInFlight() const { return !in_flight_.empty(); }
  size_t InFlightPods() const { return in_flight_.size(); }
  size_t InFlightEvents() const { return log_.size() - in_flight_.size(); }
  // Starts tracking a popped pod, unless it is tracked already.
  void AddInFlight(const std::string& uid);
  // Stops tracking a pod (its scheduling cycle is over) and drops the events no in-flight pod
  // needs any more.
  void DoneInFlight(const std::string& uid);
  // Records an event for the pods in flight (all, or only the one with UID *only); nothing when
  // none is in flight.
  void AddEventIfAnyInFlight(const framework::ClusterEvent& event,
                             const framework::EventObject& old_obj,
                             const framework::EventObject& new_obj,
                             const std::string* only = nullptr);
  // Whether pred holds for an event recorded for the pod with uid since it was popped, tried in
  // arrival order up to the first that holds; false when the pod is not in flight.
  bool AnyEventSince(const std::string& uid,
                     const std::function<bool(const InFlightEvent&)>& pred) const;

 private:
  struct LogEntry {
    bool pod = false;  // a popped pod's own entry, rather than an event
    InFlightEvent event;
    prometheus::Gauge* gauge = nullptr;  // inflight_events{event}, decremented when dropped
  };
  using Log = std::list<LogEntry>;

  IndexedPods<QueueOrder> pods_;
  Log log_;
  std::unordered_map<std::string, Log::iterator> in_flight_;  // uid -> its entry in log_
};

}  // namespace stowage::queue
