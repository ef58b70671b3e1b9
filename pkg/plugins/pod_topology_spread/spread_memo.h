// SpreadMemo: the per-node results PodTopologySpread keeps from one scheduling cycle to the next,
// so a cycle redoes only the nodes the snapshot copied since the last one.
//
// Nodes are addressed by their position in the snapshot's List(). For a few topology keys the
// memo holds each node's value as a small integer (a KeyColumn), and for a few (namespace,
// selector) queries each node's count of matching pods (a CountColumn); pods of one template ask
// the same keys and queries every cycle. Sync() reads the snapshot's change log and recomputes
// only the changed nodes' entries; when the log cannot say (too old, or the node list changed)
// it drops every column, and the next Key()/Counts() recomputes them over every node. For a
// (key, query) pair it can also keep the counts summed per value (a SumColumn), which Sync keeps
// in step node by node, so a cycle reads each domain's count without a pass over every node. For
// a constraint whose inclusion policies exclude nodes it keeps which nodes count (an
// InclusionColumn), so a cycle does not match every node's labels and taints again.
// Columns are bounded by a least-recently-used cap.
//
// Thread-safety: none. Sync, Key and Counts run on the scheduling cycle's thread (their parallel
// loops write disjoint per-node slots); what they return is read-only until the next Sync.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/plugins/pod_topology_spread/common.h"
#include "stowage/api/labels.h"
#include "stowage/common/string_map.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"
#include "stowage/plugins/helper/node_affinity_matchers.h"

namespace stowage::plugins::pod_topology_spread {

class SpreadMemo {
 public:
  // One topology key: at[position] indexes values, or is -1 where the node lacks the key.
  struct KeyColumn {
    std::string key;
    std::vector<std::string> values;  // append-only until the next full rescan
    StringMap<int32_t> ids;
    std::vector<int32_t> at;
    int64_t absent = 0;  // nodes with a Node object that lack the key
    uint64_t used = 0;
  };
  // One query: at[position] is the node's count of pods in ns, not terminating, that the selector
  // matches (CountMatchingPods).
  struct CountColumn {
    std::string id;  // namespace and selector, canonical
    std::string ns;
    api::Selector selector = api::Selector::Nothing();
    std::vector<int32_t> at;
    uint64_t used = 0;
  };

  struct InclusionColumn;
  // One (key, query) pair: the query's counts summed over the nodes holding each value, of the
  // nodes an inclusion column admits when it has one.
  struct SumColumn {
    const KeyColumn* key = nullptr;
    const CountColumn* counts = nullptr;
    const InclusionColumn* included = nullptr;  // null: every node counts
    std::vector<int64_t> by_value;  // by value id; shorter when the last values have no node
    std::vector<int32_t> nodes;     // by value id, how many nodes hold the value
    int64_t missing = 0;  // over the (admitted) nodes with a Node object that lack the key
    size_t held = 0;      // how many values some node holds: the domains
    // Ids of two held values with the fewest pods, min_ids[0] the fewest (-1 where fewer values
    // are held), which PreFilter's critical paths start from. Kept through Sync while a change
    // cannot displace them; otherwise recomputed by Sums() (min_stale).
    int32_t min_ids[2] = {-1, -1};
    bool min_stale = true;
    uint64_t used = 0;
    int64_t Sum(size_t id) const { return id < by_value.size() ? by_value[id] : 0; }
    bool Held(size_t id) const { return id < nodes.size() && nodes[id] > 0; }
  };

  // Which nodes count for a constraint under its nodeAffinityPolicy and nodeTaintsPolicy, for
  // pods with one nodeSelector, required node affinity and set of tolerations (the inputs, kept
  // only where a policy honours them): at[position] is 1 when the node counts.
  struct InclusionColumn {
    bool honor_affinity = false;
    bool honor_taints = false;
    bool comparison_operators = false;
    api::StringMap node_selector;
    std::optional<api::NodeSelector> required;
    std::vector<api::Toleration> tolerations;
    helper::RequiredNodeAffinity matcher;
    std::vector<uint8_t> at;
    uint64_t used = 0;
    // Whether these are the inputs of constraint c for pod.
    bool Matches(const Constraint& c, const api::Pod& pod, bool comparison_operators) const;
  };

  static constexpr size_t kMaxKeys = 8;
  static constexpr size_t kMaxQueries = 16;
  static constexpr size_t kMaxSums = 32;
  static constexpr size_t kMaxInclusions = 8;

  // Brings every column to the lister's current snapshot.
  void Sync(const framework::NodeInfoLister& lister);
  // The nodes the columns describe, by position: the lister's List() as of the last Sync.
  const std::vector<const framework::NodeInfo*>& nodes() const { return nodes_; }
  // The node's position, or -1 if it is not in the synced list.
  int32_t Position(const framework::NodeInfo* info) const;
  // The column of key or of (ns, selector), computed over every node when not held yet. The
  // reference stays valid until the next Sync.
  const KeyColumn& Key(std::string_view key, framework::Parallelizer& pool);
  const CountColumn& Counts(std::string_view ns, const api::Selector& selector,
                            framework::Parallelizer& pool);
  // The inclusion column of constraint c for pod (whose required node affinity is required),
  // computed over every node when not held yet; valid until the next Sync.
  const InclusionColumn& Inclusion(const Constraint& c, const api::Pod& pod,
                                   const helper::RequiredNodeAffinity& required,
                                   bool comparison_operators, framework::Parallelizer& pool);
  // The sums of a pair of columns this memo returned this cycle, over the nodes included admits
  // (every node when null); valid until the next Sync.
  const SumColumn& Sums(const KeyColumn& key, const CountColumn& counts,
                        const InclusionColumn* included = nullptr);

  // Changes whenever an existing column's entries change (a Sync that found changes, or a column
  // reused for another key or query): a state that kept column pointers may read them only
  // while the epoch it saw is current.
  uint64_t epoch() const { return epoch_; }

  // Full rescans since construction, for tests that check the change log is used.
  int64_t full_rescans_for_test() const { return full_rescans_; }
  size_t columns_for_test() const { return keys_.size() + queries_.size(); }
  size_t inclusions_for_test() const { return inclusions_.size(); }
  size_t sums_for_test() const { return sums_.size(); }

 private:
  void Reset(const framework::NodeInfoLister& lister);
  void Refresh(size_t position);
  // Adds (sign 1) or takes away (sign -1) the node's share of a sum column.
  void Contribute(SumColumn& column, size_t position, int sign) const;
  // Keeps column.min_ids after value id's sum changed by delta, or marks them stale.
  static void FollowMinimum(SumColumn& column, int32_t id, int64_t delta);
  // Recomputes column.min_ids from every value, in id order.
  static void FindMinimum(SumColumn& column);
  // Puts held value id among column.min_ids if it has fewer pods than one of them.
  static void Admit(SumColumn& column, int32_t id);
  // Drops the sum columns that read column (about to be reused or rebuilt).
  void DropSums(const void* column);
  size_t Bucket(const framework::NodeInfo* info) const;
  static int32_t Intern(KeyColumn& column, const std::string* value);
  // Where a new column goes: a free slot, the least recently used one, or a new one when every
  // column is in use this cycle.
  template <typename Column>
  Column& Slot(std::vector<std::unique_ptr<Column>>& columns, size_t cap);

  const framework::NodeInfoLister* lister_ = nullptr;
  int64_t list_version_ = -1;
  int64_t generation_ = -1;
  uint64_t tick_ = 0;
  uint64_t epoch_ = 0;
  int64_t full_rescans_ = 0;
  std::vector<const framework::NodeInfo*> nodes_;
  std::vector<int64_t> node_generation_;  // by position, the generation the columns reflect
  std::vector<uint8_t> has_node_;         // by position, whether the NodeInfo has its Node
  // Open addressing over the nodes' addresses (power-of-two size, at most half full), for a
  // node whose list_position() this list does not confirm (listers that set none).
  std::vector<std::pair<const framework::NodeInfo*, int32_t>> position_;
  std::vector<std::unique_ptr<KeyColumn>> keys_;
  std::vector<std::unique_ptr<CountColumn>> queries_;
  std::vector<std::unique_ptr<SumColumn>> sums_;
  std::vector<std::unique_ptr<InclusionColumn>> inclusions_;
  std::vector<const framework::NodeInfo*> changed_;  // scratch for ChangedSince
  std::vector<const std::string*> lookups_;          // scratch for building a key column
};

}  // namespace stowage::plugins::pod_topology_spread
