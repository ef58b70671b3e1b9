#include "stowage/plugin_config/args.h"

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
         std::equal(a.preferred.begin(), a.preferred.end(), b.preferred.begin(), b.preferred.end(),
                    [](const auto& x, const auto& y) { return Equal(x, y); });
}
bool Equal(const api::TopologySpreadConstraint& a, const api::TopologySpreadConstraint& b) {
  return a.max_skew == b.max_skew && a.topology_key == b.topology_key &&
         a.when_unsatisfiable == b.when_unsatisfiable &&
         Equal(a.label_selector, b.label_selector) && a.min_domains == b.min_domains &&
         a.node_affinity_policy == b.node_affinity_policy &&
         a.node_taints_policy == b.node_taints_policy && a.match_label_keys == b.match_label_keys;
}

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
