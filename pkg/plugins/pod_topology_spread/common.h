// The pieces of PodTopologySpread that filtering, scoring and the queueing hints share: a pod's
// constraints compiled for one whenUnsatisfiable action (upstream podtopologyspread/common.go),
// the node inclusion policies and the per-node count of matching pods. Pure functions over
// immutable inputs; safe to call from many threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"
#include "stowage/framework/types.h"
#include "stowage/plugins/helper/node_affinity_matchers.h"

namespace stowage::plugins::pod_topology_spread {

inline constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
inline constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";

// One TopologySpreadConstraint with its selector compiled and its optional fields resolved.
struct Constraint {
  int32_t max_skew = 0;
  std::string topology_key;
  api::Selector selector = api::Selector::Nothing();
  int32_t min_domains = 1;          // minDomains, 1 when unset
  bool honor_node_affinity = true;  // nodeAffinityPolicy, Honor when unset
  bool honor_node_taints = false;   // nodeTaintsPolicy, Ignore when unset
};

// The constraints among `constraints` whose whenUnsatisfiable is `action`, compiled. The values
// of the pod's labels named by matchLabelKeys are ANDed into the selector (a null selector stays
// null, matching nothing). An invalid selector is an error.
StatusOr<std::vector<Constraint>> CompileConstraints(
    std::span<const api::TopologySpreadConstraint> constraints, const api::StringMap& pod_labels,
    std::string_view action);

// True if the node has a label for every constraint's topology key.
bool NodeHasAllTopologyKeys(const api::StringMap& node_labels,
                            std::span<const Constraint> constraints);

// Sets values[i] to the node's value of constraints[i]'s topology key, for every constraint, and
// returns true; returns false as soon as a key is missing (the remaining values are unset). One
// pass gives both the domain membership and the domains, so callers look each key up once.
bool LookUpTopologyValues(const api::StringMap& node_labels,
                          std::span<const Constraint> constraints, const std::string** values);

// True if any constraint's selector matches the labels.
bool AnySelectorMatches(std::span<const Constraint> constraints, const api::StringMap& labels);

// Whether a node counts towards a constraint's domains for the pod: it passes the pod's required
// node affinity when the constraint honours it, and has no untolerated NoSchedule/NoExecute taint
// when it honours taints. Parse errors in the pod's node affinity count as no match.
bool MatchesInclusionPolicies(const Constraint& c, const api::Pod& pod, const api::Node& node,
                              const helper::RequiredNodeAffinity& required,
                              bool enable_comparison_operators);
// The same for a pod with these tolerations (the memo keeps them, not the pod).
bool MatchesInclusionPolicies(bool honor_node_affinity, bool honor_node_taints,
                              const std::vector<api::Toleration>& tolerations,
                              const api::Node& node, const helper::RequiredNodeAffinity& required,
                              bool enable_comparison_operators);

// The pods among `pods` in namespace ns, not terminating, whose labels the selector matches. An
// empty selector counts nothing, as upstream's countPodsMatchSelector.
int CountMatchingPods(const std::vector<framework::PodInfoPtr>& pods, const api::Selector& selector,
                      std::string_view ns);

}  // namespace stowage::plugins::pod_topology_spread
