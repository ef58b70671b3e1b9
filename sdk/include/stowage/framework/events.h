// Cluster events and queueing hints: how a plugin tells the queue which changes in the cluster
// may make a pod it rejected schedulable (upstream EnqueueExtensions / QueueingHintFn).
//
// How plugins declare events (1.37): pod events name the pod's role rather than "Pod":
//   kAssignedPod     a pod bound to a node was added, changed or deleted;
//   kUnscheduledPod  another unscheduled pod changed;
//   kTargetPod       the rejected pod itself changed (its own update).
// kPod still covers all three, as upstream, but in-tree plugins register the specific ones. An
// observed update is classified into the specific actions (kUpdatePodLabel, ...); one that is
// none of them is the general kUpdate, which only a registration covering all of kUpdate matches.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stowage/api/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

// What changed; the bits are upstream's ActionType bits, in the same order (Matches compares
// them as numbers, as upstream does).
enum ActionType : uint32_t {
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,  // includes spec.unschedulable
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  kUpdateNodeDeclaredFeature = 1u << 7,
  kUpdateNodePreemptionPolicy = 1u << 8,
  kUpdatePodLabel = 1u << 9,
  kUpdatePodScaleDown = 1u << 10,
  kUpdatePodScaleUp = 1u << 11,
  kUpdatePodToleration = 1u << 12,
  kUpdatePodSchedulingGatesEliminated = 1u << 13,
  kUpdatePodGeneratedResourceClaim = 1u << 14,
  kAll = (1u << 15) - 1,
  kUpdate = kAll & ~(kAdd | kDelete),
};

// What kind of object changed (upstream EventResource).
enum class EventResource : uint8_t {
  kPod,
  kAssignedPod,
  kUnscheduledPod,
  kTargetPod,
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  kCSIDriver,
  kWildCard,
  // Appended after kWildCard so plugin libraries built before them keep their values.
  kCSIStorageCapacity,
  kVolumeAttachment,
  kResourceClaim,
  kResourceSlice,
  kDeviceClass,
};

// Upstream's spelling: "Pod", "AssignedPod", "storage.k8s.io/CSINode", "*".
std::string_view ResourceName(EventResource r);
// "Add", "UpdateNodeTaint", "Update", "All"; "" for any other combination of bits, as upstream.
std::string_view ActionName(uint32_t action);

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  uint32_t action = kAll;
  // Replaces the label (e.g. "UnschedulableTimeout"); must point to static storage.
  std::string_view custom_label = {};

  // Resource name + action name unless custom: "NodeAdd", "TargetPodUpdatePodLabel". The event
  // label of scheduler_queue_incoming_pods_total and the other event-labelled metrics.
  std::string Label() const;
  // True if this (registered) event covers the observed one: same resource (Pod covers its
  // three roles), and the observed action is one of, or more specific than, the registered.
  bool Matches(const ClusterEvent& observed) const;
  bool IsWildCard() const { return resource == EventResource::kWildCard && action == kAll; }
};

// Upstream's named events.
inline constexpr ClusterEvent kEventAssignedPodAdd{EventResource::kAssignedPod, kAdd};
inline constexpr ClusterEvent kEventAssignedPodUpdate{EventResource::kAssignedPod, kUpdate};
inline constexpr ClusterEvent kEventAssignedPodDelete{EventResource::kAssignedPod, kDelete};
inline constexpr ClusterEvent kEventUnscheduledPodAdd{EventResource::kUnscheduledPod, kAdd};
inline constexpr ClusterEvent kEventUnscheduledPodUpdate{EventResource::kUnscheduledPod, kUpdate};
inline constexpr ClusterEvent kEventUnscheduledPodDelete{EventResource::kUnscheduledPod, kDelete};
inline constexpr ClusterEvent kEventNodeAdd{EventResource::kNode, kAdd};
inline constexpr ClusterEvent kEventNodeDelete{EventResource::kNode, kDelete};
inline constexpr ClusterEvent kEventUnschedulableTimeout{EventResource::kWildCard, kAll,
                                                         "UnschedulableTimeout"};

// The events of a pod update, one per scheduling-relevant change, in upstream's order (labels,
// scale down, scale up, gates removed, tolerations, generated claims); the general kUpdate when
// none applies. The resource is kAssignedPod for a bound pod, else kTargetPod when the update is
// the rejected pod's own (is_target_pod), else kUnscheduledPod (PodSchedulingPropertiesChange).
std::vector<ClusterEvent> PodSchedulingPropertiesChange(const api::Pod& new_pod,
                                                        const api::Pod& old_pod,
                                                        bool is_target_pod);
// The events of a node update, one per scheduling-relevant change, in upstream's order
// (NodeSchedulingPropertiesChange); empty when nothing the scheduler reads changed.
std::vector<ClusterEvent> NodeSchedulingPropertiesChange(const api::Node& new_node,
                                                         const api::Node& old_node);

// The objects of an event: a pod, a node, a storage or resource.k8s.io object, or nothing
// (wildcard events).
using EventObject = std::variant<
    std::monostate, api::PodPtr, api::NodePtr, std::shared_ptr<const api::PersistentVolume>,
    std::shared_ptr<const api::PersistentVolumeClaim>, std::shared_ptr<const api::StorageClass>,
    std::shared_ptr<const api::CSINode>, std::shared_ptr<const api::CSIDriver>,
    std::shared_ptr<const api::CSIStorageCapacity>, std::shared_ptr<const api::VolumeAttachment>,
    std::shared_ptr<const api::ResourceClaim>, std::shared_ptr<const api::ResourceSlice>,
    std::shared_ptr<const api::DeviceClass>>;

enum class QueueingHint : uint8_t { kSkip, kQueue };

// Says whether an event may make pod schedulable. Errors count as Queue.
using QueueingHintFn = std::function<QueueingHint(const api::Pod& pod, const EventObject& old_obj,
                                                  const EventObject& new_obj)>;

// Narrows an event to the waiting pods it may concern, so that a change to one object asks only
// the pods waiting for that object instead of every waiting pod (the part upstream's
// PreQueueingHintFn plays). Keys are the plugin's own strings, "namespace/name" by custom.
// pod_keys adds to out the keys of the objects of the event's kind that pod waits for;
// event_keys adds the keys of the objects the event changed and returns true, or returns false
// when the event may concern any pod. A waiting pod that shares no key with an event must be one
// the hint would skip. The queue narrows an event only when every plugin registered for it
// narrows, so a plugin without it is asked about every pod, as before.
struct EventNarrowing {
  std::function<void(const api::Pod& pod, std::vector<std::string>& out)> pod_keys;
  std::function<bool(const EventObject& old_obj, const EventObject& new_obj,
                     std::vector<std::string>& out)>
      event_keys;
};

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;       // empty: always Queue
  EventNarrowing narrowing;  // optional: both functions or neither
};

}  // namespace stowage::framework

#pragma GCC visibility pop
