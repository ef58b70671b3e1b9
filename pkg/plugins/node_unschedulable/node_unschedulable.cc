#include "pkg/plugins/node_unschedulable/node_unschedulable.h"

#include <string>

#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/taint.h"

namespace stowage::plugins::node_unschedulable {

using framework::QueueingHint;

bool ToleratesUnschedulable(const api::Pod& pod) {
  static const api::Taint* const kTaint =
      new api::Taint{std::string(kTaintNodeUnschedulable), "", "NoSchedule"};
  return helper::TolerationsTolerateTaint(pod.spec.tolerations, *kTaint);
}

framework::Status NodeUnschedulable::PreFilter(
    framework::CycleState& /*state*/, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& /*nodes*/,
    framework::PreFilterResult& /*result*/) {
  if (helper::IsDeferredResize(enable_resize_preemption_, *pod)) return framework::Status::Skip();
  return {};
}

framework::Status NodeUnschedulable::Filter(const framework::CycleState& /*state*/,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& node) {
  if (helper::IsDeferredResize(enable_resize_preemption_, *pod)) return {};
  if (node.node() == nullptr) return framework::Status::Error("node not found");
  if (!node.node()->spec.unschedulable || ToleratesUnschedulable(*pod)) return {};
  return framework::Status::Unresolvable(std::string(kErrReasonUnschedulable));
}

std::vector<framework::ClusterEventWithHint> NodeUnschedulable::EventsToRegister() const {
  return {
      {{framework::EventResource::kNode, framework::kAdd | framework::kUpdateNodeTaint},
       IsSchedulableAfterNodeChange},
      {{framework::EventResource::kTargetPod, framework::kUpdatePodToleration},
       IsSchedulableAfterPodTolerationChange},
  };
}

QueueingHint IsSchedulableAfterNodeChange(const api::Pod& /*pod*/,
                                          const framework::EventObject& old_obj,
                                          const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  bool now_schedulable = !objs.new_obj->spec.unschedulable;
  bool was_unschedulable = objs.old_obj == nullptr || objs.old_obj->spec.unschedulable;
  // An added node counts as "was unschedulable": it was not in the cluster before.
  return now_schedulable && was_unschedulable ? QueueingHint::kQueue : QueueingHint::kSkip;
}

QueueingHint IsSchedulableAfterPodTolerationChange(const api::Pod& pod,
                                                   const framework::EventObject& old_obj,
                                                   const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  if (objs.new_obj->metadata.uid != pod.metadata.uid) return QueueingHint::kSkip;
  // Tolerations can only be added, and a pod that already tolerated the taint would not have
  // been rejected here, so the new object alone decides.
  return ToleratesUnschedulable(*objs.new_obj) ? QueueingHint::kQueue : QueueingHint::kSkip;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeUnschedulable>(
      features.in_place_pod_vertical_scaling_scheduler_preemption));
}

}  // namespace stowage::plugins::node_unschedulable
