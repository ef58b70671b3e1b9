// NodeAffinity: the pod's nodeSelector and node affinity, plus the scheduler-enforced
// addedAffinity of NodeAffinityArgs (upstream plugins/nodeaffinity/node_affinity.go).
//
// PreFilter returns Skip when there is nothing to check (no nodeSelector, no required node
// affinity, no addedAffinity); otherwise it compiles the required constraints once into the
// cycle state and, when every required term names nodes through matchFields metadata.name In,
// narrows the cycle to those nodes (the union over terms of the intersection within a term;
// an empty union is UnschedulableAndUnresolvable "pod affinity terms conflict"). Filter rejects
// a node failing addedAffinity's required selector or the pod's own constraints, both
// UnschedulableAndUnresolvable. PreScore compiles the preferred terms (Skip when neither the pod
// nor addedAffinity has any); Score sums the weights of matching terms of both; NormalizeScore
// scales to [0, 100]. Filter reads which nodes match from a MatchMemo kept across cycles when
// the plugin has a handle (match_memo.h); its decisions are the same.
//
// Thread-safety: PreFilter runs on the scheduling cycle's thread only (it selects the memo's
// column); Filter, Score and the queueing hint are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/plugins/node_affinity/match_memo.h"
#include "stowage/api/labels.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugins/helper/node_affinity_matchers.h"
#include "stowage/plugins/helper/score_with_normalize.h"

namespace stowage::plugins::node_affinity {

using helper::MatchResult;
using helper::PreferredSchedulingTerms;
using helper::RequiredNodeAffinity;

inline constexpr std::string_view kName = "NodeAffinity";
inline constexpr std::string_view kErrReasonPod =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonEnforced =
    "node(s) didn't match scheduler-enforced node affinity";
inline constexpr std::string_view kErrReasonConflict = "pod affinity terms conflict";

class NodeAffinity final : public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public helper::ScoreWithNormalize,
                           public framework::EnqueueExtensions {
 public:
  // added_required: addedAffinity's requiredDuringSchedulingIgnoredDuringExecution, compiled
  // strictly (no invalid terms); added_preferred: its preferred terms.
  // handle: the snapshot the memo follows; null keeps no memo.
  NodeAffinity(std::optional<api::NodeSelectorMatcher> added_required,
               std::optional<PreferredSchedulingTerms> added_preferred,
               const framework::Handle* handle = nullptr);

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
  // Node/Add|UpdateNodeLabel with IsSchedulableAfterNodeChange.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // Queue when the added or updated node passes addedAffinity and now matches the pod's
  // required affinity, which (for an update) it did not before. A parse error in the pod's
  // terms queues, as upstream's erroring hint does.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObject& old_obj,
                                                       const framework::EventObject& new_obj) const;

  const MatchMemo& memo_for_test() const { return memo_; }

 private:
  std::optional<api::NodeSelectorMatcher> added_required_;
  std::optional<PreferredSchedulingTerms> added_preferred_;
  const framework::Handle* handle_;
  MatchMemo memo_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, NodeAffinity>);
static_assert(std::is_base_of_v<framework::FilterPlugin, NodeAffinity>);
static_assert(std::is_base_of_v<framework::PreScorePlugin, NodeAffinity>);
static_assert(std::is_base_of_v<framework::ScorePlugin, NodeAffinity>);
static_assert(std::is_base_of_v<framework::ScoreExtensions, NodeAffinity>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, NodeAffinity>);

// The plugin factory (registered through framework::WithArgs): an addedAffinity that does not
// compile fails, as upstream's constructor does.
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::NodeAffinityArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::node_affinity
