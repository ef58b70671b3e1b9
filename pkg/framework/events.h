// Cluster events and queueing hints: how a plugin tells the queue which changes in the cluster
// may make a pod it rejected schedulable (upstream EnqueueExtensions / QueueingHintFn).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "pkg/api/types.h"

namespace stowage::framework {

// What changed; the bits are upstream's ActionType bits, in the same order.
enum ActionType : uint32_t {
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,  // includes spec.unschedulable
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  kUpdateNodeDeclaredFeature = 1u << 7,
  kUpdatePodLabel = 1u << 8,
  kUpdatePodScaleDown = 1u << 9,
  kUpdatePodToleration = 1u << 10,
  kUpdatePodSchedulingGatesEliminated = 1u << 11,
  kUpdatePodGeneratedResourceClaim = 1u << 12,
  kUpdate = ((1u << 13) - 1) & ~(kAdd | kDelete),
  kAll = (1u << 13) - 1,
};

// What kind of object changed. kAssignedPod and kUnschedulablePod refine kPod for labels.
enum class EventResource : uint8_t {
  kPod,
  kAssignedPod,
  kUnschedulablePod,
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  kCSIDriver,
  kWildCard,
};

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  uint32_t action = kAll;
  std::string label;  // e.g. "NodeAdd", for metrics and logs

  // True if this (registered) event covers the observed event.
  bool Matches(const ClusterEvent& observed) const;
  bool IsWildCard() const { return resource == EventResource::kWildCard && action == kAll; }
};

// The objects of an event: a pod, a node, or nothing (wildcard events).
using EventObject = std::variant<std::monostate, api::PodPtr, api::NodePtr>;

enum class QueueingHint : uint8_t { kSkip, kQueue };

// Says whether an event may make pod schedulable. Errors count as Queue.
using QueueingHintFn = std::function<QueueingHint(const api::Pod& pod, const EventObject& old_obj,
                                                  const EventObject& new_obj)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;  // empty: always Queue
};

}  // namespace stowage::framework
