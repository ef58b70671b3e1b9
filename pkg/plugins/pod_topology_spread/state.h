// The cycle state PodTopologySpread passes between extension points: PreFilterState (PreFilter
// to Filter, updated by AddPod/RemovePod) and PreScoreState (PreScore to Score and
// NormalizeScore). Public so tests can compare states; nothing else reads them.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pkg/common/string_map.h"
#include "pkg/framework/cycle_state.h"
#include "pkg/plugins/pod_topology_spread/common.h"

namespace stowage::plugins::pod_topology_spread {

inline constexpr std::string_view kPreFilterStateKey = "PreFilterPodTopologySpread";
inline constexpr std::string_view kPreScoreStateKey = "PreScorePodTopologySpread";

// The two domains with the fewest matching pods seen so far. paths[0] always holds the minimum;
// paths[1] is at least paths[0] but not necessarily the second minimum. Two suffice because
// preemption only ever removes pods from one node of a cloned state.
struct CriticalPaths {
  struct Path {
    std::string value;
    int match_num = INT32_MAX;
  };
  Path paths[2];
  // Records that domain `value` now has `num` matching pods.
  void Update(const std::string& value, int num);
};

// Matching pods per topology value, for one constraint.
using DomainCounts = stowage::StringMap<int>;

struct PreFilterState final : framework::StateData {
  // Shared by clones: constraints never change during a cycle.
  std::shared_ptr<const std::vector<Constraint>> constraints;
  std::vector<CriticalPaths> critical_paths;  // by constraint
  std::vector<DomainCounts> counts;           // by constraint
  // By constraint, 1 when the selector matches the pod's own labels: Filter adds it to every
  // node's count, so it is worked out once, here, rather than per node.
  std::vector<uint8_t> self_match;
  // The global minimum of constraint i, 0 while it has fewer domains than minDomains.
  int MinMatchNum(size_t i) const;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

struct PreScoreState final : framework::StateData {
  std::vector<Constraint> constraints;
  // Feasible nodes missing a required topology key: scored 0.
  std::unordered_set<std::string, stowage::StringHash, std::equal_to<>> ignored_nodes;
  // Whether the node is among ignored_nodes; the set is usually empty, and then the node's name
  // is not hashed.
  bool Ignored(std::string_view node) const {
    return !ignored_nodes.empty() && ignored_nodes.contains(node);
  }
  // Matching pods per topology value of the feasible nodes, by constraint (empty for hostname,
  // whose counts Score takes from the node itself).
  std::vector<stowage::StringMap<int64_t>> counts;
  // ln(number of domains + 2), by constraint, so small topologies are not watered down.
  std::vector<double> weights;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace stowage::plugins::pod_topology_spread
