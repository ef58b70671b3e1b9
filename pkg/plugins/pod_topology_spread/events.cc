// EventsToRegister and the queueing hints (upstream 1.37 plugin.go).
#include <string>
#include <utility>

#include "pkg/plugins/pod_topology_spread/plugin.h"
#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::pod_topology_spread {
namespace {

using framework::QueueingHint;

bool SameTolerations(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].op != b[i].op || a[i].value != b[i].value ||
        a[i].effect != b[i].effect || a[i].toleration_seconds != b[i].toleration_seconds) {
      return false;
    }
  }
  return true;
}

// A pod counts towards the target's spreading only once bound (or nominated) in its namespace.
bool InvolvedInSpreading(const api::Pod& incoming, const api::Pod& target) {
  if (incoming.spec.node_name.empty() && incoming.status.nominated_node_name.empty()) return false;
  return incoming.metadata.namespace_ == target.metadata.namespace_;
}

// Queue when the label change flips some constraint's verdict on the pod.
QueueingHint AfterPodLabelChange(const api::Pod& old_pod, const api::Pod& new_pod,
                                 const std::vector<Constraint>& constraints) {
  if (old_pod.metadata.labels == new_pod.metadata.labels) return QueueingHint::kSkip;
  for (const Constraint& c : constraints) {
    if (c.selector.Matches(old_pod.metadata.labels) !=
        c.selector.Matches(new_pod.metadata.labels)) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kSkip;
}

bool TopologyValuesChanged(const api::StringMap& old_labels, const api::StringMap& new_labels,
                           const std::vector<Constraint>& constraints) {
  for (const Constraint& c : constraints) {
    const std::string* before = old_labels.Get(c.topology_key);
    const std::string* after = new_labels.Get(c.topology_key);
    // A missing label reads as "", as in a Go map.
    if ((before ? *before : std::string()) != (after ? *after : std::string())) return true;
  }
  return false;
}

}  // namespace

std::vector<framework::ClusterEventWithHint> PodTopologySpread::EventsToRegister() const {
  using framework::EventResource;
  auto hint = [this](auto method) {
    return [this, method](const api::Pod& pod, const framework::EventObject& old_obj,
                          const framework::EventObject& new_obj) {
      return (this->*method)(pod, old_obj, new_obj);
    };
  };
  return {
      // A bound pod added, deleted or relabelled changes the counts of its domain.
      {{EventResource::kAssignedPod,
        framework::kAdd | framework::kUpdatePodLabel | framework::kDelete},
       hint(&PodTopologySpread::IsSchedulableAfterAssignedPodChange)},
      // The pod's own labels change what it self-matches; new tolerations change the domains
      // of constraints honouring taints.
      {{EventResource::kTargetPod, framework::kUpdatePodToleration | framework::kUpdatePodLabel},
       hint(&PodTopologySpread::IsSchedulableAfterTargetPodChange)},
      // Nodes bring, take or move domains.
      {{EventResource::kNode, framework::kAdd | framework::kDelete | framework::kUpdateNodeLabel |
                                  framework::kUpdateNodeTaint},
       hint(&PodTopologySpread::IsSchedulableAfterNodeChange)},
  };
}

QueueingHint PodTopologySpread::IsSchedulableAfterAssignedPodChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  if ((objs.new_obj != nullptr && !InvolvedInSpreading(*objs.new_obj, pod)) ||
      (objs.old_obj != nullptr && !InvolvedInSpreading(*objs.old_obj, pod))) {
    return QueueingHint::kSkip;
  }
  StatusOr<std::vector<Constraint>> constraints = GetConstraints(pod, kDoNotSchedule);
  if (!constraints.ok()) return QueueingHint::kQueue;
  if (objs.new_obj != nullptr && objs.old_obj != nullptr) {
    return AfterPodLabelChange(*objs.old_obj, *objs.new_obj, *constraints);
  }
  const api::Pod* changed = objs.new_obj != nullptr ? objs.new_obj : objs.old_obj;
  if (changed == nullptr) return QueueingHint::kQueue;
  return AnySelectorMatches(*constraints, changed->metadata.labels) ? QueueingHint::kQueue
                                                                    : QueueingHint::kSkip;
}

QueueingHint PodTopologySpread::IsSchedulableAfterTargetPodChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.old_obj == nullptr || objs.new_obj == nullptr) {
    return QueueingHint::kQueue;
  }
  StatusOr<std::vector<Constraint>> constraints = GetConstraints(pod, kDoNotSchedule);
  if (!constraints.ok()) return QueueingHint::kQueue;
  if (!SameTolerations(objs.old_obj->spec.tolerations, objs.new_obj->spec.tolerations)) {
    for (const Constraint& c : *constraints) {
      if (c.honor_node_taints) return QueueingHint::kQueue;
    }
  }
  return AfterPodLabelChange(*objs.old_obj, *objs.new_obj, *constraints);
}

QueueingHint PodTopologySpread::IsSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  StatusOr<std::vector<Constraint>> constraints = GetConstraints(pod, kDoNotSchedule);
  if (!constraints.ok()) return QueueingHint::kQueue;
  const bool old_matching = objs.old_obj != nullptr &&
                            NodeHasAllTopologyKeys(objs.old_obj->metadata.labels, *constraints);
  const bool new_matching = objs.new_obj != nullptr &&
                            NodeHasAllTopologyKeys(objs.new_obj->metadata.labels, *constraints);
  if (objs.old_obj != nullptr && objs.new_obj != nullptr) {
    if (old_matching != new_matching) return QueueingHint::kQueue;
    if (new_matching && (TopologyValuesChanged(objs.old_obj->metadata.labels,
                                               objs.new_obj->metadata.labels, *constraints) ||
                         objs.old_obj->spec.taints != objs.new_obj->spec.taints)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  // An added node that has every key, or a deleted one that had.
  return (objs.new_obj != nullptr ? new_matching : old_matching) ? QueueingHint::kQueue
                                                                 : QueueingHint::kSkip;
}

}  // namespace stowage::plugins::pod_topology_spread
