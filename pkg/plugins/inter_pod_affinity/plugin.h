// InterPodAffinity: the pod's required and preferred pod affinity and anti-affinity, and the
// symmetric required anti-affinity of pods already running (upstream
// plugins/interpodaffinity, without the alpha InterPodAffinityHostnameFastPath).
//
// PreFilter resolves the incoming pod's namespaceSelectors into namespaces (Namespace lister;
// kept until a namespace changes) and counts, per topology pair, the existing pods whose required
// anti-affinity matches the incoming pod (visiting only nodes with such pods), the pods matching
// all of its required affinity terms and those matching each of its anti-affinity terms; Skip when
// all three are empty and the pod has no required terms. AddPod/RemovePod update the counts. Filter
// checks, in upstream's order, affinity (UnschedulableAndUnresolvable; the first pod of a group may
// go where none matches yet if it matches its own terms), anti-affinity, then the existing pods'
// anti-affinity (both Unschedulable). PreScore sums, per topology pair, the weights of the
// preferred terms both ways and hardPodAffinityWeight for existing pods' required affinity
// terms the pod matches (Skip when nothing matched, or when ignorePreferredTermsOfExistingPods is
// set and the pod has no preferred terms); Score adds the pairs of the node; NormalizeScore
// scales from [min, max] to [0, 100].
//
// The per-node passes of PreFilter and PreScore go through a NodeCountsMemo, so a cycle redoes
// only the nodes that changed since a pod asked the same question. PreFilter and PreScore update
// the memo and run on the one scheduling thread; Filter and Score only read the cycle's state and
// are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/namespace_resolver.h"
#include "pkg/plugins/inter_pod_affinity/node_counts_memo.h"
#include "pkg/plugins/inter_pod_affinity/state.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugin_config/args.h"
#include "stowage/plugins/helper/pre_filter_with_extensions.h"
#include "stowage/plugins/helper/score_with_normalize.h"

namespace stowage::plugins::inter_pod_affinity {

inline constexpr std::string_view kName = "InterPodAffinity";
inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch =
    "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";

class InterPodAffinity final : public helper::PreFilterWithExtensions,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public helper::ScoreWithNormalize,
                               public framework::EnqueueExtensions {
 public:
  InterPodAffinity(const config::InterPodAffinityArgs& args, framework::Handle& handle,
                   const framework::Features& features);

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

  // AssignedPod Add|UpdatePodLabel|Delete, TargetPod UpdatePodLabel, Node Add|UpdateNodeLabel.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // How many times a query was computed over every node (the rest were brought up to date).
  int64_t FullComputationsForTest() const { return memo_.full_computations(); }

  // Queue when a bound (or nominated) pod now matches all the pod's affinity terms, stopped
  // matching one of its anti-affinity terms, or was deleted while matching one, or the deleted
  // pod's own anti-affinity matched the pod.
  framework::QueueingHint IsSchedulableAfterAssignedPodChange(
      const api::Pod& pod, const framework::EventObject& old_obj,
      const framework::EventObject& new_obj) const;
  // Queue when a node gains or changes a topology key of the pod's affinity terms, or is added
  // or loses or changes a topology key of its anti-affinity terms.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObject& old_obj,
                                                       const framework::EventObject& new_obj) const;

 private:
  // The pod's terms with namespaceSelectors resolved and its namespace, for this cycle.
  std::shared_ptr<const IncomingPod> Incoming(const framework::PodInfo& pod);
  // The existing pods' anti-affinity counts, over the nodes that have such pods.
  CountsView ExistingAntiAffinityCounts(const IncomingPod& incoming);
  // The incoming pod's affinity and anti-affinity counts over all nodes.
  void IncomingCounts(const IncomingPod& incoming,
                      const std::vector<const framework::NodeInfo*>& nodes, PreFilterState& state);
  static void UpdateWithPod(PreFilterState& state, const framework::PodInfo& pod,
                            const framework::NodeInfo& node, int64_t multiplier);

  int32_t hard_pod_affinity_weight_;
  bool ignore_preferred_terms_of_existing_pods_;
  bool skip_resize_deferred_;  // InPlacePodVerticalScalingSchedulerPreemption
  framework::Parallelizer& parallelizer_;
  const framework::NodeInfoLister& snapshot_;
  const framework::Lister<api::Namespace>& namespaces_;
  NamespaceResolver namespace_resolver_;  // the pod's terms with namespaceSelectors resolved
  NodeCountsMemo memo_;                   // PreFilter's and PreScore's queries
  std::string key_;  // the query key being built, reused so a cycle does not allocate
  // Filter's rejections, named after the plugin as the framework names them, shared by copies.
  const framework::Status rejected_by_affinity_;
  const framework::Status rejected_by_anti_affinity_;
  const framework::Status rejected_by_existing_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, InterPodAffinity>);
static_assert(std::is_base_of_v<framework::FilterPlugin, InterPodAffinity>);
static_assert(std::is_base_of_v<framework::PreScorePlugin, InterPodAffinity>);
static_assert(std::is_base_of_v<framework::ScorePlugin, InterPodAffinity>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, InterPodAffinity>);

// The plugin factory (registered through framework::WithArgs); asks the handle for the
// Namespace lister, so the scheduler watches namespaces.
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::InterPodAffinityArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::inter_pod_affinity
