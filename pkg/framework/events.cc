#include "stowage/framework/events.h"

#include <algorithm>
#include <map>

#include "stowage/framework/types.h"

namespace stowage::framework {

namespace {

// Whether two pods' resourceClaimStatuses name the same claims, in any order (upstream's
// resourceclaim.PodStatusEqual).
bool SameClaimStatuses(std::vector<api::PodResourceClaimStatus> a,
                       std::vector<api::PodResourceClaimStatus> b) {
  if (a.size() != b.size()) return false;
  auto by_name = [](const auto& x, const auto& y) { return x.name < y.name; };
  std::sort(a.begin(), a.end(), by_name);
  std::sort(b.begin(), b.end(), by_name);
  return a == b;
}

}  // namespace

std::string_view ResourceName(EventResource r) {
  switch (r) {
    case EventResource::kPod: return "Pod";
    case EventResource::kAssignedPod: return "AssignedPod";
    case EventResource::kUnscheduledPod: return "UnscheduledPod";
    case EventResource::kTargetPod: return "TargetPod";
    case EventResource::kNode: return "Node";
    case EventResource::kPersistentVolume: return "PersistentVolume";
    case EventResource::kPersistentVolumeClaim: return "PersistentVolumeClaim";
    case EventResource::kStorageClass: return "storage.k8s.io/StorageClass";
    case EventResource::kCSINode: return "storage.k8s.io/CSINode";
    case EventResource::kCSIDriver: return "storage.k8s.io/CSIDriver";
    case EventResource::kCSIStorageCapacity: return "storage.k8s.io/CSIStorageCapacity";
    case EventResource::kVolumeAttachment: return "storage.k8s.io/VolumeAttachment";
    case EventResource::kResourceClaim: return "resource.k8s.io/ResourceClaim";
    case EventResource::kResourceSlice: return "resource.k8s.io/ResourceSlice";
    case EventResource::kDeviceClass: return "resource.k8s.io/DeviceClass";
    case EventResource::kWildCard: return "*";
  }
  return "";
}

std::string_view ActionName(uint32_t action) {
  switch (action) {
    case kAdd: return "Add";
    case kDelete: return "Delete";
    case kUpdateNodeAllocatable: return "UpdateNodeAllocatable";
    case kUpdateNodeLabel: return "UpdateNodeLabel";
    case kUpdateNodeTaint: return "UpdateNodeTaint";
    case kUpdateNodeCondition: return "UpdateNodeCondition";
    case kUpdateNodeAnnotation: return "UpdateNodeAnnotation";
    case kUpdateNodeDeclaredFeature: return "UpdateNodeDeclaredFeature";
    case kUpdateNodePreemptionPolicy: return "UpdateNodePreemptionPolicy";
    case kUpdatePodLabel: return "UpdatePodLabel";
    case kUpdatePodScaleDown: return "UpdatePodScaleDown";
    case kUpdatePodScaleUp: return "UpdatePodScaleUp";
    case kUpdatePodToleration: return "UpdatePodToleration";
    case kUpdatePodSchedulingGatesEliminated: return "UpdatePodSchedulingGatesEliminated";
    case kUpdatePodGeneratedResourceClaim: return "UpdatePodGeneratedResourceClaim";
    case kAll: return "All";
    case kUpdate: return "Update";
    default: return "";
  }
}

std::string ClusterEvent::Label() const {
  if (!custom_label.empty()) return std::string(custom_label);
  std::string label(ResourceName(resource));
  label += ActionName(action);
  return label;
}

bool ClusterEvent::Matches(const ClusterEvent& observed) const {
  if (IsWildCard()) return true;
  bool same_resource =
      resource == observed.resource || resource == EventResource::kWildCard ||
      (resource == EventResource::kPod && (observed.resource == EventResource::kAssignedPod ||
                                           observed.resource == EventResource::kUnscheduledPod ||
                                           observed.resource == EventResource::kTargetPod));
  // The numeric comparison is upstream's: an observed general Update (all update bits) only
  // reaches a registration of Update or more, never one of a specific update action.
  return same_resource && (action & observed.action) != 0 && observed.action <= action;
}

namespace {

// Whether any resource the pod requests went down from before to after (or went away).
bool ScaledDown(const Resource& before, const Resource& after) {
  if (before.milli_cpu > after.milli_cpu || before.memory > after.memory ||
      before.ephemeral_storage > after.ephemeral_storage) {
    return true;
  }
  for (const auto& [name, quantity] : before.scalar) {
    if (quantity > after.Scalar(name)) return true;
  }
  return false;
}

std::map<std::string, std::string> ConditionStatuses(const api::Node& node) {
  std::map<std::string, std::string> out;
  for (const auto& c : node.status.conditions) out[c.type] = c.status;
  return out;
}

}  // namespace

std::vector<ClusterEvent> PodSchedulingPropertiesChange(const api::Pod& new_pod,
                                                        const api::Pod& old_pod,
                                                        bool is_target_pod) {
  EventResource r = !new_pod.spec.node_name.empty() ? EventResource::kAssignedPod
                    : is_target_pod                 ? EventResource::kTargetPod
                                                    : EventResource::kUnscheduledPod;
  std::vector<ClusterEvent> events;
  auto add = [&](uint32_t action) { events.push_back({r, action}); };
  if (!(new_pod.metadata.labels == old_pod.metadata.labels)) add(kUpdatePodLabel);
  const Resource before = ComputePodRequests(old_pod), after = ComputePodRequests(new_pod);
  if (ScaledDown(before, after)) add(kUpdatePodScaleDown);
  if (ScaledDown(after, before)) add(kUpdatePodScaleUp);
  if (new_pod.spec.scheduling_gates.empty() && !old_pod.spec.scheduling_gates.empty()) {
    add(kUpdatePodSchedulingGatesEliminated);
  }
  // Tolerations can only be added, so a change of count is a change.
  if (new_pod.spec.tolerations.size() != old_pod.spec.tolerations.size()) {
    add(kUpdatePodToleration);
  }
  if (!SameClaimStatuses(new_pod.status.resource_claim_statuses,
                         old_pod.status.resource_claim_statuses)) {
    add(kUpdatePodGeneratedResourceClaim);
  }
  if (events.empty()) add(kUpdate);
  return events;
}

std::vector<ClusterEvent> NodeSchedulingPropertiesChange(const api::Node& n, const api::Node& o) {
  std::vector<ClusterEvent> events;
  auto add = [&](uint32_t action) { events.push_back({EventResource::kNode, action}); };
  // Only a node becoming schedulable can help a pod.
  if (o.spec.unschedulable != n.spec.unschedulable && !n.spec.unschedulable) {
    add(kUpdateNodeTaint);
  }
  if (!(o.status.allocatable == n.status.allocatable)) add(kUpdateNodeAllocatable);
  if (!(o.metadata.labels == n.metadata.labels)) add(kUpdateNodeLabel);
  if (!(o.spec.taints == n.spec.taints)) add(kUpdateNodeTaint);
  if (ConditionStatuses(o) != ConditionStatuses(n)) add(kUpdateNodeCondition);
  if (!(o.metadata.annotations == n.metadata.annotations)) add(kUpdateNodeAnnotation);
  if (o.status.declared_features != n.status.declared_features) add(kUpdateNodeDeclaredFeature);
  return events;
}

}  // namespace stowage::framework
