// TaintToleration (upstream plugins/tainttoleration): keeps pods off nodes whose taints they do
// not tolerate, and prefers nodes with fewer untolerated PreferNoSchedule taints.
//
//  * PreFilter does nothing for ordinary pods; it returns Skip (and Filter passes) for a
//    deferred resize (helper/resize.h).
//  * Filter: the first NoSchedule or NoExecute taint none of the pod's tolerations covers
//    rejects the node as UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)".
//  * PreScore keeps the tolerations whose effect is empty or PreferNoSchedule; Score counts the
//    node's PreferNoSchedule taints those do not tolerate; NormalizeScore maps the counts to
//    [0, 100] reversed, so the node with the fewest gets 100 (all 100 when every count is 0).
//
// Toleration matching is helper::ToleratesTaint; Gt/Lt match only with the
// TaintTolerationComparisonOperators gate, off by default in 1.37. Thread-safe: Filter and Score
// only read their arguments and the PreScore state.
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
#include "stowage/plugins/helper/score_with_normalize.h"
#include "stowage/plugins/helper/taint.h"

namespace stowage::plugins::taint_toleration {

inline constexpr std::string_view kName = "TaintToleration";
inline constexpr std::string_view kErrReasonUntolerated = "node(s) had untolerated taint(s)";
// The CycleState key of the PreScore state.
inline constexpr std::string_view kPreScoreStateKey = "PreScoreTaintToleration";

class TaintToleration final : public framework::PreFilterPlugin,
                              public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public helper::ScoreWithNormalize,
                              public framework::EnqueueExtensions {
 public:
  explicit TaintToleration(
      bool enable_comparison_operators = helper::kDefaultEnableComparisonOperators,
      bool enable_resize_preemption = helper::kDefaultEnableResizePreemption)
      : enable_comparison_operators_(enable_comparison_operators),
        enable_resize_preemption_(enable_resize_preemption) {}

  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;
  // Node/Add|UpdateNodeTaint (IsSchedulableAfterNodeChange) and TargetPod/UpdatePodToleration
  // (IsSchedulableAfterPodTolerationChange).
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  bool enable_comparison_operators_;
  bool enable_resize_preemption_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, TaintToleration>);
static_assert(std::is_base_of_v<framework::FilterPlugin, TaintToleration>);
static_assert(std::is_base_of_v<framework::PreScorePlugin, TaintToleration>);
static_assert(std::is_base_of_v<framework::ScorePlugin, TaintToleration>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, TaintToleration>);

// Queue when the node's NoSchedule/NoExecute taints were not all tolerated before (or the node
// is new) and now are.
framework::QueueingHint IsSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj,
    bool enable_comparison_operators = helper::kDefaultEnableComparisonOperators);

// Queue when the updated pod is the rejected pod itself: it gained a toleration.
framework::QueueingHint IsSchedulableAfterPodTolerationChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::taint_toleration
