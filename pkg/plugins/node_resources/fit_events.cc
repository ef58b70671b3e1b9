// NodeResourcesFit's queueing hints (upstream fit.go isSchedulableAfterPodEvent,
// isSchedulableAfterNodeChange, haveAnyRequestedResourcesIncreased).
#include <memory>

#include "pkg/plugins/node_resources/fit.h"
#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::node_resources {
namespace {

using framework::QueueingHint;

// Whether modified_pod's update may free resources target needs (InPlacePodVerticalScaling is
// GA). Requests come from the pod spec: stowage does not decode the resize status.
bool IsSchedulableAfterPodScaleDown(const api::Pod& target, const api::Pod& original,
                                    const api::Pod& modified) {
  if (modified.metadata.uid == target.metadata.uid) return true;
  // An update of a pod that is not bound to a node frees nothing.
  if (modified.spec.node_name.empty()) return false;
  const framework::Resource before = framework::ComputePodRequests(original);
  const framework::Resource after = framework::ComputePodRequests(modified);
  const framework::Resource wanted = framework::ComputePodRequests(target);
  if (wanted.milli_cpu != 0 && before.milli_cpu > after.milli_cpu) return true;
  if (wanted.memory != 0 && before.memory > after.memory) return true;
  if (wanted.ephemeral_storage != 0 && before.ephemeral_storage > after.ephemeral_storage) {
    return true;
  }
  for (const auto& [name, quantity] : wanted.scalar) {
    if (quantity != 0 && before.Scalar(name) > after.Scalar(name)) return true;
  }
  return false;
}

bool IsFit(const api::Pod& pod, const api::Node& node) {
  framework::NodeInfo info;
  // A non-owning pointer: info does not outlive this call.
  info.SetNode(api::NodePtr(api::NodePtr(), &node));
  return Fits(pod, info).empty();
}

}  // namespace

std::vector<framework::ClusterEventWithHint> Fit::EventsToRegister() const {
  // One hint serves the three pod events: a deletion frees what a bound pod held, another
  // pod's scale-down may free what this pod asks for, and the pod's own scale-down always helps
  // (InPlacePodVerticalScaling is GA).
  using framework::EventResource;
  return {
      {{EventResource::kAssignedPod, framework::kDelete}, IsSchedulableAfterPodEvent},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeAllocatable},
       IsSchedulableAfterNodeChange},
      {{EventResource::kAssignedPod, framework::kUpdatePodScaleDown}, IsSchedulableAfterPodEvent},
      {{EventResource::kTargetPod, framework::kUpdatePodScaleDown}, IsSchedulableAfterPodEvent},
  };
}

QueueingHint IsSchedulableAfterPodEvent(const api::Pod& pod, const framework::EventObject& old_obj,
                                        const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  if (objs.new_obj == nullptr) {
    // A deletion. Only a pod that held (or was about to hold) node resources frees any.
    if (objs.old_obj == nullptr) return QueueingHint::kQueue;
    const api::Pod& deleted = *objs.old_obj;
    if (deleted.spec.node_name.empty() && deleted.status.nominated_node_name.empty()) {
      return QueueingHint::kSkip;
    }
    return QueueingHint::kQueue;
  }
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;
  return IsSchedulableAfterPodScaleDown(pod, *objs.old_obj, *objs.new_obj) ? QueueingHint::kQueue
                                                                           : QueueingHint::kSkip;
}

QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                          const framework::EventObject& old_obj,
                                          const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  // The pod does not fit the node even when it is empty: the change cannot help.
  if (objs.new_obj == nullptr || !IsFit(pod, *objs.new_obj)) return QueueingHint::kSkip;
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;  // a new node that fits
  return HaveAnyRequestedResourcesIncreased(pod, *objs.old_obj, *objs.new_obj)
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
}

bool HaveAnyRequestedResourcesIncreased(const api::Pod& pod, const api::Node& original,
                                        const api::Node& modified) {
  const framework::Resource request = framework::ComputePodRequests(pod);
  const framework::Resource before = framework::Resource::FromList(original.status.allocatable);
  const framework::Resource after = framework::Resource::FromList(modified.status.allocatable);
  if (after.allowed_pod_number > before.allowed_pod_number) return true;
  if ((request.milli_cpu > 0 && after.milli_cpu > before.milli_cpu) ||
      (request.memory > 0 && after.memory > before.memory) ||
      (request.ephemeral_storage > 0 && after.ephemeral_storage > before.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity != 0 && after.Scalar(name) > before.Scalar(name)) return true;
  }
  return false;
}

}  // namespace stowage::plugins::node_resources
