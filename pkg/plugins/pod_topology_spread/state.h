// The cycle state PodTopologySpread passes between extension points: PreFilterState (PreFilter
// to Filter, updated by AddPod/RemovePod) and PreScoreState (PreScore to Score and
// NormalizeScore). Public so tests can compare states; nothing else reads them.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pkg/plugins/pod_topology_spread/common.h"
#include "pkg/plugins/pod_topology_spread/spread_memo.h"
#include "stowage/common/string_map.h"
#include "stowage/framework/cycle_state.h"

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

// The plugin's SpreadMemo as a cycle's PreFilter or PreScore saw it, so that Filter and Score
// find a node's domain by its position instead of by label. Usable only while the memo's epoch
// is the one recorded (within the cycle) and for nodes of the snapshot (not the copies
// preemption and nominated pods make): otherwise callers go by label.
struct MemoView {
  const SpreadMemo* memo = nullptr;
  uint64_t epoch = 0;
  std::vector<const SpreadMemo::KeyColumn*> keys;  // by constraint
  // The node's position in the memo, or -1 when the view cannot serve it.
  int32_t Position(const framework::NodeInfo& node) const {
    if (memo == nullptr || memo->epoch() != epoch) return -1;
    return memo->Position(&node);
  }
};

struct PreFilterState final : framework::StateData {
  // Shared by clones: constraints never change during a cycle.
  std::shared_ptr<const std::vector<Constraint>> constraints;
  std::vector<CriticalPaths> critical_paths;  // by constraint
  // By constraint; left empty while counts_in_view.
  std::vector<DomainCounts> counts;
  // True while the counts live only in by_id or sums (PreFilter used the memo): a hostname
  // constraint has a domain per node, and a map of thousands of strings built and freed every
  // cycle cost more than the rest of the plugin, while only preemption and nominated pods read
  // counts by value.
  bool counts_in_view = false;
  std::vector<size_t> domains;  // by constraint, while counts_in_view: how many domains count
  // By constraint, 1 when the selector matches the pod's own labels: Filter adds it to every
  // node's count, so it is worked out once, here, rather than per node.
  std::vector<uint8_t> self_match;
  // When PreFilter used the memo: by constraint, counts[i] indexed by the memo's value id (-1:
  // not a domain), kept equal to counts by AddPod/RemovePod. Where the memo's sum columns are the
  // counts (one constraint, or every node has every key), by_id stays empty and sums holds them:
  // a hostname constraint's thousands of domains are then neither copied nor scanned per cycle.
  MemoView view;
  std::vector<std::vector<int>> by_id;
  std::vector<const SpreadMemo::SumColumn*> sums;
  // Constraint i's count of the memo's value id (0 when no node holds it), while the view serves.
  int CountById(size_t i, size_t id) const {
    if (!sums.empty()) return static_cast<int>(sums[i]->Sum(id));
    return id < by_id[i].size() ? std::max(by_id[i][id], 0) : 0;
  }
  // The global minimum of constraint i, 0 while it has fewer domains than minDomains.
  int MinMatchNum(size_t i) const;
  // The count of domain value for constraint i (0 when it has none); false when the counts are
  // in the view and the memo has changed since, so they cannot be read.
  bool CountOf(size_t i, const std::string& value, int& count) const;
  // Builds counts from by_id or sums (see counts_in_view); false when the memo has changed since.
  bool MaterializeCounts();
  // Constraint i's counts by value, however they are held (tests compare them).
  DomainCounts CountsForTest(size_t i) const;
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
  // When PreScore used the memo: by constraint, the counted domains' sums by value id + 1 (slot
  // 0: the value ""), and the per-node counts of hostname constraints.
  MemoView view;
  std::vector<std::vector<int64_t>> by_slot;
  std::vector<int32_t> empty_ids;  // by constraint, the id of the value "", or -1
  std::vector<const SpreadMemo::CountColumn*> node_counts;
  // ln(number of domains + 2), by constraint, so small topologies are not watered down.
  std::vector<double> weights;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace stowage::plugins::pod_topology_spread
