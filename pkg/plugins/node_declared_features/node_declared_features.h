// NodeDeclaredFeatures (upstream plugins/nodedeclaredfeatures, Beta and on by default in 1.36):
// a pod that needs a node-level feature fits only nodes that list it in status.declaredFeatures.
//
// The features a pod needs are inferred from its spec with component-helpers'
// nodedeclaredfeatures registry, kept here as a list sorted by name; a feature whose max version
// is older than the scheduler's version is no longer required. In 1.36 two features can be
// required at scheduling time:
//   * RestartAllContainersOnContainerExits: a container or init container has a
//     restartPolicyRules entry with action RestartAllContainers;
//   * UserNamespacesHostNetworkSupport: spec.hostNetwork with spec.hostUsers == false.
// The other registered features (ExtendWebSocketsToKubelet, InPlacePodLevelResourcesVertical-
// Scaling, InPlacePodVerticalScalingInitContainers) matter only for updates.
//
// PreFilter stores the required set, or returns Skip when it is empty. Filter rejects a node
// missing any of them as UnschedulableAndUnresolvable with upstream v1.36.3's reason
// "node(s) didn't match Pod's required features". Node features unknown to the registry are
// ignored. Thread-safe: the registry is immutable after construction.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::node_declared_features {

inline constexpr std::string_view kName = "NodeDeclaredFeatures";
inline constexpr std::string_view kErrReasonUnsatisfied =
    "node(s) didn't match Pod's required features";
// The CycleState key of the PreFilter state.
inline constexpr std::string_view kPreFilterStateKey = "PreFilterNodeDeclaredFeatures";

// A semantic version (major.minor.patch).
struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  friend auto operator<=>(const Version&, const Version&) = default;
};
// The kube-scheduler version stowage stands in for, used to retire features past MaxVersion.
inline constexpr Version kSchedulerVersion{1, 36, 3};

// One entry of the feature registry.
struct Feature {
  std::string name;
  // True if a pod with this spec needs the feature to be scheduled.
  std::function<bool(const api::PodSpec&)> infer_for_scheduling;
  // Past this version the feature is assumed everywhere and no longer required.
  std::optional<Version> max_version;
};

// The 1.36 registry (component-helpers v0.36.3 features.AllFeatures).
std::vector<Feature> DefaultFeatures();

// A set of features as bits indexed by their position in the name-sorted registry.
using FeatureSet = uint64_t;

class NodeDeclaredFeatures final : public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions {
 public:
  // registry is sorted by name here; it may hold at most 64 features. A missing version makes
  // inference fail, as upstream's nil target version does. With enabled false (the feature
  // gate off) the plugin does nothing and registers no events.
  explicit NodeDeclaredFeatures(std::vector<Feature> registry = DefaultFeatures(),
                                std::optional<Version> version = kSchedulerVersion,
                                bool enabled = true);

  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // Node/Add|UpdateNodeDeclaredFeature (IsSchedulableAfterNodeChange) and TargetPod/Update
  // (IsSchedulableAfterPodUpdate).
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // The features the pod needs; an error when no version is set.
  StatusOr<FeatureSet> InferForPodScheduling(const api::PodSpec& spec) const;
  // The registered features among names (the node's status.declaredFeatures).
  FeatureSet MapNodeFeatures(const std::vector<std::string>& names) const;
  // The names of the features in set, in registry order.
  std::vector<std::string> FeatureNames(FeatureSet set) const;
  // Writes the PreFilter state directly, for tests of Filter.
  static void WriteStateForTest(framework::CycleState& state, FeatureSet required);

  // Queue when the node is new or its declared features changed.
  static framework::QueueingHint IsSchedulableAfterNodeChange(
      const api::Pod& pod, const framework::EventObject& old_obj,
      const framework::EventObject& new_obj);
  // Queue when the rejected pod itself was updated and its required features changed.
  framework::QueueingHint IsSchedulableAfterPodUpdate(const api::Pod& pod,
                                                      const framework::EventObject& old_obj,
                                                      const framework::EventObject& new_obj) const;

 private:
  std::shared_ptr<const std::vector<Feature>> registry_;  // shared with registered hints
  std::optional<Version> version_;
  bool enabled_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, NodeDeclaredFeatures>);
static_assert(std::is_base_of_v<framework::FilterPlugin, NodeDeclaredFeatures>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, NodeDeclaredFeatures>);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::node_declared_features
