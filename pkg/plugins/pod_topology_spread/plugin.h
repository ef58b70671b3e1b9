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
// PreFilter and PreScore take their per-node counts from a SpreadMemo kept across cycles when
// they are given the snapshot's node list, and compute them from scratch otherwise.
//
// Thread-safety: PreFilter and PreScore run on the scheduling cycle's thread only (they update
// the memo); Filter, Score and the queueing hints read only immutable members and are safe to
// call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/plugins/pod_topology_spread/common.h"
#include "pkg/plugins/pod_topology_spread/default_selector.h"
#include "pkg/plugins/pod_topology_spread/spread_memo.h"
#include "pkg/plugins/pod_topology_spread/state.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugins/helper/pre_filter_with_extensions.h"
#include "stowage/plugins/helper/score_with_normalize.h"

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

  // Makes PreFilter and PreScore compute from scratch every cycle, for tests that compare the
  // memo's results with a recomputation.
  void DisableMemoForTest() { use_memo_ = false; }
  // How often the memo recomputed every node: tests check that pod changes do not make it.
  int64_t MemoFullRescansForTest() const { return memo_.full_rescans_for_test(); }
  size_t MemoColumnsForTest() const { return memo_.columns_for_test(); }
  size_t MemoSumsForTest() const { return memo_.sums_for_test(); }
  size_t MemoInclusionsForTest() const { return memo_.inclusions_for_test(); }

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
  // Adds delta to the counts of the node's domains for `updated`, a pod added or removed; false
  // when the counts can no longer be read (see PreFilterState::CountOf).
  bool UpdateWithPod(PreFilterState& s, const api::Pod& updated, const api::Pod& preemptor,
                     const api::Node* node, int delta) const;

  // PreFilter's counts per constraint and domain over nodes, computed on every node.
  void CountFromScratch(const api::Pod& pod, const std::vector<Constraint>& constraints,
                        const helper::RequiredNodeAffinity& required,
                        const std::vector<const framework::NodeInfo*>& nodes,
                        std::vector<DomainCounts>& counts) const;
  // PreScore's ignored nodes and counts per domain, computed on every node.
  void ScoreCountsFromScratch(const api::Pod& pod,
                              const std::vector<const framework::NodeInfo*>& feasible,
                              bool require_all, const helper::RequiredNodeAffinity& required,
                              PreScoreState& s) const;
  // PreFilter's counts per constraint and domain, from memo_ (the cycle's nodes are the
  // snapshot's list).
  void CountForFilter(const api::Pod& pod, const std::vector<Constraint>& constraints,
                      const helper::RequiredNodeAffinity& required, PreFilterState& s);
  // PreScore's ignored nodes and counts per domain, from memo_; false when a feasible node is
  // not in the snapshot's list (the caller then computes from scratch).
  bool CountForScore(const api::Pod& pod, const std::vector<const framework::NodeInfo*>& feasible,
                     bool require_all, const helper::RequiredNodeAffinity& required,
                     PreScoreState& s);
  // Syncs memo_ and points scratch_ at the columns of the constraints, with the inclusion
  // verdicts per node when the pod's node affinity or tolerations matter.
  void AcquireColumns(const api::Pod& pod, const std::vector<Constraint>& constraints,
                      const helper::RequiredNodeAffinity& required);

  framework::Handle& handle_;
  const bool enable_comparison_operators_;
  const bool enable_resize_deferral_;
  const std::vector<api::TopologySpreadConstraint> default_constraints_;
  const bool system_defaulted_;
  const std::optional<WorkloadListers> listers_;

  bool use_memo_ = true;
  SpreadMemo memo_;
  // The memo paths' buffers, kept so that a cycle does not allocate.
  struct MemoScratch {
    std::vector<const SpreadMemo::KeyColumn*> keys;      // by constraint
    std::vector<const SpreadMemo::CountColumn*> counts;  // by constraint
    // By constraint, the nodes its inclusion policies admit; null when they admit every node.
    std::vector<const SpreadMemo::InclusionColumn*> included;
    std::vector<size_t> offsets;     // by constraint, into sums
    std::vector<int64_t> sums;       // by constraint and domain slot
    std::vector<int32_t> empty_ids;  // by constraint, the id of value ""
  } scratch_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::FilterPlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::PreScorePlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::PreFilterExtensions, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::ScorePlugin, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::ScoreExtensions, PodTopologySpread>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, PodTopologySpread>);

// True if nodes is the lister's List() itself (not a copy or a subset): the memo describes it.
bool IsSnapshotList(const framework::NodeInfoLister& lister,
                    const std::vector<const framework::NodeInfo*>& nodes);

// The plugin factory (registered through framework::WithArgs). With defaultingType System the
// system defaults replace args.defaultConstraints; when any default applies, the workload
// listers are taken from the handle here, so their informers start with the others.
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::PodTopologySpreadArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::pod_topology_spread
