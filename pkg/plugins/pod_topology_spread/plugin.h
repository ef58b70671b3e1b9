// PodTopologySpread: spreads pods over topology domains (zones, hosts, ...) as their
// topologySpreadConstraints ask (upstream plugins/podtopologyspread).
//
// PreFilter compiles the pod's DoNotSchedule constraints and counts, per constraint and domain,
// the existing pods its selector matches (in the pod's namespace, on nodes with every topology
// key that pass the constraint's nodeAffinityPolicy/nodeTaintsPolicy), keeping the smallest
// counts; Skip when there is no such constraint. AddPod/RemovePod update the counts for nominated
// pods and preemption. Filter rejects a node without a topology key (UnschedulableAndUnresolvable
// kErrReasonNodeLabelNotMatch) or where count + self-match - global minimum > maxSkew
// (Unschedulable kErrReasonConstraintsNotMatch); the minimum is 0 while there are fewer domains
// than minDomains.
//
// PreScore does the same for ScheduleAnyway constraints over all nodes; Score is
// Σ round(count × ln(domains + 2) + maxSkew − 1) and NormalizeScore maps it to
// 100 × (max + min − score) / max, nodes missing a key scoring 0.
//
// A pod without constraints of its own gets the default constraints (defaultingType System:
// hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway) with the selector DefaultSelector
// derives from the Services and controllers selecting it; none when nothing selects it.
//
// The plugin is immutable after construction; Filter and Score are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/common/status.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/framework/registry.h"
#include "pkg/plugins/helper/pre_filter_with_extensions.h"
#include "pkg/plugins/helper/score_with_normalize.h"
#include "pkg/plugins/pod_topology_spread/common.h"
#include "pkg/plugins/pod_topology_spread/default_selector.h"
#include "pkg/plugins/pod_topology_spread/state.h"

namespace stowage::plugins::pod_topology_spread {

inline constexpr std::string_view kName = "PodTopologySpread";
inline constexpr std::string_view kErrReasonConstraintsNotMatch =
    "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// Hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway (defaultingType System).
const std::vector<api::TopologySpreadConstraint>& SystemDefaultConstraints();

class PodTopologySpread final : public helper::PreFilterWithExtensions,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public helper::ScoreWithNormalize,
                                public framework::EnqueueExtensions {
 public:
  // listers: where DefaultSelector reads; required when default_constraints is not empty.
  PodTopologySpread(framework::Handle& handle, const framework::Features& features,
                    std::vector<api::TopologySpreadConstraint> default_constraints,
                    bool system_defaulted, std::optional<WorkloadListers> listers);

  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status AddPod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) override;
  framework::Status RemovePod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;

  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;

  // AssignedPod/Add|UpdatePodLabel|Delete, TargetPod/UpdatePodToleration|UpdatePodLabel and
  // Node/Add|Delete|UpdateNodeLabel|UpdateNodeTaint, each with its hint below.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Queue when a bound pod in the pod's namespace that the pod's DoNotSchedule constraints
  // select is added or deleted, or changes labels so that some selector's verdict changes.
  framework::QueueingHint IsSchedulableAfterAssignedPodChange(
      const api::Pod& pod, const framework::EventObject& old_obj,
      const framework::EventObject& new_obj) const;
  // Queue when the pod's own tolerations change and a constraint honours taints, or its labels
  // change some selector's verdict.
  framework::QueueingHint IsSchedulableAfterTargetPodChange(
      const api::Pod& pod, const framework::EventObject& old_obj,
      const framework::EventObject& new_obj) const;
  // Queue when a node with every topology key is added or deleted, gains or loses one, or
  // changes a key's value or its taints.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObject& old_obj,
                                                       const framework::EventObject& new_obj) const;

  // The pod's constraints of the given action, or the default ones when it has none.
  StatusOr<std::vector<Constraint>> GetConstraints(const api::Pod& pod,
                                                   std::string_view action) const;

 private:
  StatusOr<std::vector<Constraint>> BuildDefaultConstraints(const api::Pod& pod,
                                                            std::string_view action) const;
  // AddPod (delta 1) and RemovePod (delta -1): the PreFilter state's counts for pod on node.
  framework::Status UpdateState(framework::CycleState& state, const api::Pod& pod_to_schedule,
                                const framework::PodInfo& pod, const framework::NodeInfo& node,
                                int delta);
  // Adds delta to the counts of the node's domains for `updated`, a pod added or removed.
  void UpdateWithPod(PreFilterState& s, const api::Pod& updated, const api::Pod& preemptor,
                     const api::Node* node, int delta) const;

  framework::Handle& handle_;
  const bool enable_comparison_operators_;
  const bool enable_resize_deferral_;
  const std::vector<api::TopologySpreadConstraint> default_constraints_;
  const bool system_defaulted_;
  const std::optional<WorkloadListers> listers_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::FilterPlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::PreScorePlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::PreFilterExtensions, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::ScorePlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::ScoreExtensions, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, PodTopologySpread>);

// The plugin factory (registered through framework::WithArgs). With defaultingType System the
// system defaults replace args.defaultConstraints; when any default applies, the workload
// listers are taken from the handle here, so their informers start with the others.
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::PodTopologySpreadArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::pod_topology_spread
