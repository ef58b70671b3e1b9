// NodeResourcesFit's queueing hints (upstream fit.go isSchedulableAfterPodEvent,
// isSchedulableAfterNodeChange, haveAnyRequestedResourcesIncreased).
#include <algorithm>
#include <memory>
#include <string>

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

bool IsFit(const api::Pod& pod, const api::Node& node, const std::vector<std::string>& dra_backed) {
  framework::NodeInfo info;
  // A non-owning pointer: info does not outlive this call.
  info.SetNode(api::NodePtr(api::NodePtr(), &node));
  return Fits(pod, info, dra_backed).empty();
}

// Whether pod requests resource (a non-zero request).
bool Requests(const api::Pod& pod, std::string_view resource) {
  return framework::ComputePodRequests(pod).Scalar(resource) != 0;
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
       [this](const api::Pod& pod, const framework::EventObject& o,
              const framework::EventObject& n) {
         return IsSchedulableAfterNodeChange(pod, o, n, classes_);
       }},
      // A class may come to provide an extended resource the pod asks for (DRAExtendedResource).
      {{EventResource::kDeviceClass, framework::kAdd | framework::kUpdate},
       IsSchedulableAfterDeviceClassEvent},
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
                                          const framework::EventObject& new_obj,
                                          const framework::Lister<api::DeviceClass>& classes) {
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  const std::vector<std::string> dra_backed =
      DraBackedResources(framework::ComputePodRequests(pod), classes);
  // The pod does not fit the node even when it is empty: the change cannot help.
  if (objs.new_obj == nullptr || !IsFit(pod, *objs.new_obj, dra_backed)) {
    return QueueingHint::kSkip;
  }
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;  // a new node that fits
  return HaveAnyRequestedResourcesIncreased(pod, *objs.old_obj, *objs.new_obj, dra_backed)
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
}

bool HaveAnyRequestedResourcesIncreased(const api::Pod& pod, const api::Node& original,
                                        const api::Node& modified,
                                        const std::vector<std::string>& dra_backed) {
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
    if (quantity == 0) continue;
    if (after.Scalar(name) > before.Scalar(name)) return true;
    if (after.Scalar(name) <= 0 && std::binary_search(dra_backed.begin(), dra_backed.end(), name)) {
      return true;
    }
  }
  return false;
}

QueueingHint IsSchedulableAfterDeviceClassEvent(const api::Pod& pod,
                                                const framework::EventObject& old_obj,
                                                const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::DeviceClass> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  const api::DeviceClass& modified = *objs.new_obj;
  if (objs.old_obj != nullptr) {
    if (objs.old_obj->extended_resource_name.value_or("") ==
        modified.extended_resource_name.value_or("")) {
      return QueueingHint::kSkip;
    }
  } else if (Requests(pod, std::string(api::kDeviceClassResourcePrefix) + modified.metadata.name)) {
    // Only an added class brings a new implicit name: a class's name never changes.
    return QueueingHint::kQueue;
  }
  if (modified.extended_resource_name && Requests(pod, *modified.extended_resource_name)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

}  // namespace stowage::plugins::node_resources
