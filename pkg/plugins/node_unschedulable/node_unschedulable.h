// NodeUnschedulable: filters out nodes with spec.unschedulable (cordoned nodes), unless the pod
// tolerates the node.kubernetes.io/unschedulable:NoSchedule taint (upstream
// plugins/nodeunschedulable). The rejection is UnschedulableAndUnresolvable, "node(s) were
// unschedulable": preemption cannot uncordon a node. PreFilter does nothing for ordinary pods;
// it returns Skip (and Filter passes) for a deferred resize (helper/resize.h). Stateless and
// thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugins/helper/resize.h"

namespace stowage::plugins::node_unschedulable {

inline constexpr std::string_view kName = "NodeUnschedulable";
inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";
// The taint the node lifecycle controller mirrors spec.unschedulable into.
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

class NodeUnschedulable final : public framework::PreFilterPlugin,
                                public framework::FilterPlugin,
                                public framework::EnqueueExtensions {
 public:
  explicit NodeUnschedulable(bool enable_resize_preemption = helper::kDefaultEnableResizePreemption)
      : enable_resize_preemption_(enable_resize_preemption) {}

  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // Node/Add|UpdateNodeTaint (IsSchedulableAfterNodeChange) and TargetPod/UpdatePodToleration
  // (IsSchedulableAfterPodTolerationChange).
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  bool enable_resize_preemption_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, NodeUnschedulable>);
static_assert(std::is_base_of_v<framework::FilterPlugin, NodeUnschedulable>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, NodeUnschedulable>);

// True if the pod's tolerations cover the unschedulable:NoSchedule taint.
bool ToleratesUnschedulable(const api::Pod& pod);

// Queue when a schedulable node is added, or a node turns from unschedulable to schedulable.
framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                     const framework::EventObject& old_obj,
                                                     const framework::EventObject& new_obj);
// Queue when the rejected pod itself now tolerates the unschedulable taint.
framework::QueueingHint IsSchedulableAfterPodTolerationChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::node_unschedulable
