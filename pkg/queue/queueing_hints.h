// QueueingHints: the cluster events each plugin registered (EventsToRegister, over every
// profile) with their queueing hints, and the decision they make together: whether an event may
// make a rejected pod schedulable (upstream's queueingHintMap and isPodWorthRequeuing).
//
// Metrics: queueing_hint_execution_duration_seconds times every hint call.
//
// Thread-safety: fixed at construction and read-only after, so it is safe from any thread
// without a lock. The hints are plugin code: SchedulingQueue calls WorthRequeuing with its mutex
// held, so a hint must not call back into the queue.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pkg/framework/runtime/runtime.h"
#include "stowage/framework/events.h"

namespace stowage::queue {

class QueueingHints {
 public:
  // extenders: a pod an extender rejected (framework::kExtenderName among its unschedulable
  // plugins) is moved by any event, as upstream's default enqueue extension.
  QueueingHints(const std::map<std::string, framework::Framework*>& profiles, bool extenders);

  // The actions on resource that some plugin (or an extender) registered for, 0 when none.
  uint32_t RegisteredActions(framework::EventResource resource) const;
  // Whether any plugin registered for event (wildcards always count).
  bool IsEventOfInterest(const framework::ClusterEvent& event) const;
  // Whether event may make p schedulable, per its rejecting (or gating) and pending plugins'
  // hints: a wildcard event or a pod no plugin rejected always may; a plugin registered for the
  // event without a hint function says Queue, as upstream's default hint.
  bool WorthRequeuing(const framework::QueuedPodInfo& p, const framework::ClusterEvent& event,
                      const framework::EventObject& old_obj,
                      const framework::EventObject& new_obj) const;

  // Narrowing (framework::EventNarrowing). Whether any registration narrows its events.
  bool Narrows() const { return !narrowing_.empty(); }
  // Adds the keys pod waits for under every narrowing registration, each tagged with its
  // registration so that two plugins' keys never meet.
  void PodKeys(const api::Pod& pod, std::vector<std::string>& out) const;
  // Adds the tagged keys of the objects event changed and returns true when every registration
  // for it narrows; false when any may concern every pod (a wildcard event, a registration
  // without narrowing, or one whose event_keys says so), and then out means nothing.
  bool EventKeys(const framework::ClusterEvent& event, const framework::EventObject& old_obj,
                 const framework::EventObject& new_obj, std::vector<std::string>& out) const;

 private:
  // plugin name -> the events it registered.
  std::multimap<std::string, framework::ClusterEventWithHint> events_;
  // The registrations that narrow, in events_ (whose nodes do not move); a key's tag is the
  // registration's position here.
  std::vector<const framework::ClusterEventWithHint*> narrowing_;
};

}  // namespace stowage::queue
