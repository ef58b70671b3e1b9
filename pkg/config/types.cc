#include "pkg/config/types.h"

#include <algorithm>

namespace stowage::config {
namespace {

// The api structs carry no comparison operators; these compare every field the config holds.
// Declared first so the optional<T> overload can find them all.
bool Equal(const api::NodeAffinity& a, const api::NodeAffinity& b);
bool Equal(const api::LabelSelector& a, const api::LabelSelector& b);
bool Equal(const api::NodeSelector& a, const api::NodeSelector& b);
bool Equal(const api::LabelSelectorRequirement& a, const api::LabelSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool Equal(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool Equal(const api::LabelSelector& a, const api::LabelSelector& b) {
  return a.match_labels == b.match_labels &&
         std::equal(a.match_expressions.begin(), a.match_expressions.end(),
                    b.match_expressions.begin(), b.match_expressions.end(),
                    [](const auto& x, const auto& y) { return Equal(x, y); });
}
bool Equal(const api::NodeSelectorTerm& a, const api::NodeSelectorTerm& b) {
  auto eq = [](const auto& x, const auto& y) { return Equal(x, y); };
  return std::equal(a.match_expressions.begin(), a.match_expressions.end(),
                    b.match_expressions.begin(), b.match_expressions.end(), eq) &&
         std::equal(a.match_fields.begin(), a.match_fields.end(), b.match_fields.begin(),
                    b.match_fields.end(), eq);
}
bool Equal(const api::NodeSelector& a, const api::NodeSelector& b) {
  return std::equal(a.terms.begin(), a.terms.end(), b.terms.begin(), b.terms.end(),
                    [](const auto& x, const auto& y) { return Equal(x, y); });
}
bool Equal(const api::PreferredSchedulingTerm& a, const api::PreferredSchedulingTerm& b) {
  return a.weight == b.weight && Equal(a.preference, b.preference);
}
template <typename T>
bool Equal(const std::optional<T>& a, const std::optional<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || Equal(*a, *b);
}
bool Equal(const api::NodeAffinity& a, const api::NodeAffinity& b) {
  return Equal(a.required, b.required) &&
         std::equal(a.preferred.begin(), a.preferred.end(), b.preferred.begin(),
                    b.preferred.end(), [](const auto& x, const auto& y) { return Equal(x, y); });
}
bool Equal(const api::TopologySpreadConstraint& a, const api::TopologySpreadConstraint& b) {
  return a.max_skew == b.max_skew && a.topology_key == b.topology_key &&
         a.when_unsatisfiable == b.when_unsatisfiable &&
         Equal(a.label_selector, b.label_selector) && a.min_domains == b.min_domains &&
         a.node_affinity_policy == b.node_affinity_policy &&
         a.node_taints_policy == b.node_taints_policy && a.match_label_keys == b.match_label_keys;
}

template <typename T>
constexpr std::string_view KindOf();
template <> constexpr std::string_view KindOf<DefaultPreemptionArgs>() { return "DefaultPreemptionArgs"; }
template <> constexpr std::string_view KindOf<InterPodAffinityArgs>() { return "InterPodAffinityArgs"; }
template <> constexpr std::string_view KindOf<NodeResourcesFitArgs>() { return "NodeResourcesFitArgs"; }
template <> constexpr std::string_view KindOf<PodTopologySpreadArgs>() { return "PodTopologySpreadArgs"; }
template <> constexpr std::string_view KindOf<NodeResourcesBalancedAllocationArgs>() {
  return "NodeResourcesBalancedAllocationArgs";
}
template <> constexpr std::string_view KindOf<VolumeBindingArgs>() { return "VolumeBindingArgs"; }
template <> constexpr std::string_view KindOf<NodeAffinityArgs>() { return "NodeAffinityArgs"; }
template <> constexpr std::string_view KindOf<DynamicResourcesArgs>() { return "DynamicResourcesArgs"; }
template <> constexpr std::string_view KindOf<std::monostate>() { return ""; }
template <> constexpr std::string_view KindOf<RawArgs>() { return ""; }

// Every typed alternative, so NewArgsForPlugin can find the one whose kind matches.
template <typename... T>
std::optional<PluginArgs> NewByKind(std::string_view kind) {
  std::optional<PluginArgs> out;
  ((KindOf<T>() == kind ? (void)out.emplace(T{}) : (void)0), ...);
  return out;
}

}  // namespace

bool operator==(const PodTopologySpreadArgs& a, const PodTopologySpreadArgs& b) {
  return a.defaulting_type == b.defaulting_type &&
         std::equal(a.default_constraints.begin(), a.default_constraints.end(),
                    b.default_constraints.begin(), b.default_constraints.end(),
                    [](const auto& x, const auto& y) { return Equal(x, y); });
}

bool operator==(const NodeAffinityArgs& a, const NodeAffinityArgs& b) {
  return Equal(a.added_affinity, b.added_affinity);
}

std::string_view ExtensionPointName(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::kPreEnqueue: return "preEnqueue";
    case ExtensionPoint::kQueueSort: return "queueSort";
    case ExtensionPoint::kPreFilter: return "preFilter";
    case ExtensionPoint::kFilter: return "filter";
    case ExtensionPoint::kPostFilter: return "postFilter";
    case ExtensionPoint::kPreScore: return "preScore";
    case ExtensionPoint::kScore: return "score";
    case ExtensionPoint::kReserve: return "reserve";
    case ExtensionPoint::kPermit: return "permit";
    case ExtensionPoint::kPreBind: return "preBind";
    case ExtensionPoint::kBind: return "bind";
    case ExtensionPoint::kPostBind: return "postBind";
    case ExtensionPoint::kPlacementGenerate: return "placementGenerate";
    case ExtensionPoint::kPlacementScore: return "placementScore";
    case ExtensionPoint::kPodGroupPostFilter: return "podGroupPostFilter";
  }
  return "";
}

std::string_view ExtensionPointInterfaceName(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::kPreEnqueue: return "PreEnqueuePlugin";
    case ExtensionPoint::kQueueSort: return "QueueSortPlugin";
    case ExtensionPoint::kPreFilter: return "PreFilterPlugin";
    case ExtensionPoint::kFilter: return "FilterPlugin";
    case ExtensionPoint::kPostFilter: return "PostFilterPlugin";
    case ExtensionPoint::kPreScore: return "PreScorePlugin";
    case ExtensionPoint::kScore: return "ScorePlugin";
    case ExtensionPoint::kReserve: return "ReservePlugin";
    case ExtensionPoint::kPermit: return "PermitPlugin";
    case ExtensionPoint::kPreBind: return "PreBindPlugin";
    case ExtensionPoint::kBind: return "BindPlugin";
    case ExtensionPoint::kPostBind: return "PostBindPlugin";
    case ExtensionPoint::kPlacementGenerate: return "PlacementGeneratePlugin";
    case ExtensionPoint::kPlacementScore: return "PlacementScorePlugin";
    case ExtensionPoint::kPodGroupPostFilter: return "PodGroupPostFilterPlugin";
  }
  return "";
}

PluginSet& Plugins::Set(ExtensionPoint point) {
  return const_cast<PluginSet&>(static_cast<const Plugins*>(this)->Set(point));
}

const PluginSet& Plugins::Set(ExtensionPoint point) const {
  switch (point) {
    case ExtensionPoint::kPreEnqueue: return pre_enqueue;
    case ExtensionPoint::kQueueSort: return queue_sort;
    case ExtensionPoint::kPreFilter: return pre_filter;
    case ExtensionPoint::kFilter: return filter;
    case ExtensionPoint::kPostFilter: return post_filter;
    case ExtensionPoint::kPreScore: return pre_score;
    case ExtensionPoint::kScore: return score;
    case ExtensionPoint::kReserve: return reserve;
    case ExtensionPoint::kPermit: return permit;
    case ExtensionPoint::kPreBind: return pre_bind;
    case ExtensionPoint::kBind: return bind;
    case ExtensionPoint::kPostBind: return post_bind;
    case ExtensionPoint::kPlacementGenerate: return placement_generate;
    case ExtensionPoint::kPlacementScore: return placement_score;
    case ExtensionPoint::kPodGroupPostFilter: return pod_group_post_filter;
  }
  return multi_point;  // unreachable
}

std::string_view ArgsKind(const PluginArgs& args) {
  return std::visit([](const auto& a) { return KindOf<std::decay_t<decltype(a)>>(); }, args);
}

std::optional<PluginArgs> NewArgsForPlugin(std::string_view plugin_name) {
  const std::string kind = std::string(plugin_name) + "Args";
  return NewByKind<DefaultPreemptionArgs, InterPodAffinityArgs, NodeResourcesFitArgs,
                   PodTopologySpreadArgs, NodeResourcesBalancedAllocationArgs, VolumeBindingArgs,
                   NodeAffinityArgs, DynamicResourcesArgs>(kind);
}

}  // namespace stowage::config
