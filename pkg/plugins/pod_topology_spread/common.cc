#include "pkg/plugins/pod_topology_spread/common.h"

#include <utility>

#include "stowage/plugins/helper/taint.h"

namespace stowage::plugins::pod_topology_spread {

StatusOr<std::vector<Constraint>> CompileConstraints(
    std::span<const api::TopologySpreadConstraint> constraints, const api::StringMap& pod_labels,
    std::string_view action) {
  std::vector<Constraint> out;
  for (const api::TopologySpreadConstraint& c : constraints) {
    if (c.when_unsatisfiable != action) continue;
    const api::LabelSelector* selector = c.label_selector ? &*c.label_selector : nullptr;
    // matchLabelKeys adds key=value requirements; a null selector keeps matching nothing.
    api::LabelSelector merged;
    if (selector != nullptr && !c.match_label_keys.empty()) {
      merged = *selector;
      for (const std::string& key : c.match_label_keys) {
        if (const std::string* value = pod_labels.Get(key)) {
          merged.match_expressions.push_back({key, "In", {*value}});
        }
      }
      selector = &merged;
    }
    StatusOr<api::Selector> compiled = api::Selector::FromLabelSelector(selector);
    if (!compiled.ok()) return compiled.status();
    Constraint& tsc = out.emplace_back();
    tsc.max_skew = c.max_skew;
    tsc.topology_key = c.topology_key;
    tsc.selector = std::move(compiled).value();
    tsc.min_domains = c.min_domains.value_or(1);
    if (c.node_affinity_policy) tsc.honor_node_affinity = *c.node_affinity_policy == "Honor";
    if (c.node_taints_policy) tsc.honor_node_taints = *c.node_taints_policy == "Honor";
  }
  return out;
}

bool NodeHasAllTopologyKeys(const api::StringMap& node_labels,
                            std::span<const Constraint> constraints) {
  for (const Constraint& c : constraints) {
    if (!node_labels.Has(c.topology_key)) return false;
  }
  return true;
}

bool LookUpTopologyValues(const api::StringMap& node_labels,
                          std::span<const Constraint> constraints, const std::string** values) {
  for (size_t i = 0; i < constraints.size(); ++i) {
    values[i] = node_labels.Get(constraints[i].topology_key);
    if (values[i] == nullptr) return false;
  }
  return true;
}

bool AnySelectorMatches(std::span<const Constraint> constraints, const api::StringMap& labels) {
  for (const Constraint& c : constraints) {
    if (c.selector.Matches(labels)) return true;
  }
  return false;
}

bool MatchesInclusionPolicies(const Constraint& c, const api::Pod& pod, const api::Node& node,
                              const helper::RequiredNodeAffinity& required,
                              bool enable_comparison_operators) {
  return MatchesInclusionPolicies(c.honor_node_affinity, c.honor_node_taints, pod.spec.tolerations,
                                  node, required, enable_comparison_operators);
}

bool MatchesInclusionPolicies(bool honor_node_affinity, bool honor_node_taints,
                              const std::vector<api::Toleration>& tolerations,
                              const api::Node& node, const helper::RequiredNodeAffinity& required,
                              bool enable_comparison_operators) {
  if (honor_node_affinity && !required.Match(node).matched) return false;
  if (honor_node_taints && helper::FindMatchingUntoleratedTaint(
                               node.spec.taints, tolerations, helper::IsDoNotScheduleTaint,
                               enable_comparison_operators) != nullptr) {
    return false;
  }
  return true;
}

int CountMatchingPods(const std::vector<framework::PodInfoPtr>& pods, const api::Selector& selector,
                      std::string_view ns) {
  if (selector.Empty()) return 0;
  int count = 0;
  for (const framework::PodInfoPtr& p : pods) {
    const api::ObjectMeta& meta = p->pod->metadata;
    // The namespace sits at the front of the pod, so pods of other namespaces are passed over
    // without reading the rest. Terminating pods are about to leave the domain (kubernetes#87621).
    if (meta.namespace_ != ns || meta.deletion_timestamp) continue;
    if (selector.Matches(meta.labels)) ++count;
  }
  return count;
}

}  // namespace stowage::plugins::pod_topology_spread
