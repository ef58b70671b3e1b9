// CountsView: the topology counts one cycle's state reads (PreFilterState, PreScoreState), as an
// immutable base shared with NodeCountsMemo and other cycles' states, plus this state's own
// changes: the pairs the memo changed since it built the base, then AddPod/RemovePod's updates.
// A pair's count is the sum of the two, and a pair whose sum is zero is absent (upstream drops
// it in update; in PreScore's sums a zero pair scores as no pair, so Skip decides the same).
//
// Sharing the base is what lets a cycle skip copying thousands of pairs: the memo never changes
// a base once handed out, it makes a new one. Clones copy only the changes. Not thread-safe for
// writes; concurrent const reads are safe (Filter, Score).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/topology_counts.h"
#include "stowage/api/types.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::inter_pod_affinity {

// The position of each node in the snapshot's List() of one list version: the node's own
// list_position() when this list confirms it, else a flat table keyed by NodeInfo address (a
// probe or two in one array) for listers that set no positions. Immutable.
class NodePositions {
 public:
  explicit NodePositions(const std::vector<const framework::NodeInfo*>& nodes);
  // node's position, or -1 when it is not in the list.
  int64_t Find(const framework::NodeInfo* node) const;
  size_t size() const { return size_; }

 private:
  struct Slot {
    const framework::NodeInfo* node = nullptr;
    uint32_t position = 0;
  };
  std::vector<const framework::NodeInfo*> nodes_;  // the list, to confirm a node's own position
  std::vector<Slot> slots_;                        // a power of two long, at most half full
  size_t size_ = 0;
};

// Per node, for each topology key of a view, the count of the node's pair: what Filter and Score
// read instead of looking each node's labels up and hashing its values. Immutable once shared.
struct NodeCounts {
  static constexpr int64_t kNoLabel = std::numeric_limits<int64_t>::min();
  std::shared_ptr<const NodePositions> positions;
  std::vector<std::string> keys;
  std::vector<int64_t> counts;  // [k * n + i]: node i's count for keys[k], or kNoLabel
};

// A node Filter or Score is looking at, with its position once a view has found it, so the
// views of one state (sharing the memo's positions) look it up once.
struct NodeRef {
  explicit NodeRef(const framework::NodeInfo& n) : node(n) {}
  const framework::NodeInfo& node;
  const NodePositions* positions = nullptr;
  int64_t position = -1;
};

class CountsView {
 public:
  CountsView() = default;
  // base plus changes, where live is the number of pairs whose sum is not zero; nodes, when
  // given, holds every node's count for every key of base and changes.
  CountsView(std::shared_ptr<const TopologyCounts> base, TopologyCounts changes, size_t live,
             std::shared_ptr<const NodeCounts> nodes = nullptr)
      : base_(std::move(base)),
        changes_(std::move(changes)),
        live_(live),
        nodes_(std::move(nodes)) {}

  // The count of the node's pair for key; nullopt when the node has no such label.
  std::optional<int64_t> CountAt(std::string_view key, NodeRef& node) const;
  // AnyPositive and Sum of the node's labels, read from the per-node counts when they apply.
  bool AnyPositive(NodeRef& node) const;
  int64_t Sum(NodeRef& node) const;
  // The same for a node looked up on its own.
  std::optional<int64_t> CountAt(std::string_view key, const framework::NodeInfo& node) const {
    NodeRef ref(node);
    return CountAt(key, ref);
  }
  bool AnyPositive(const framework::NodeInfo& node) const {
    NodeRef ref(node);
    return AnyPositive(ref);
  }
  int64_t Sum(const framework::NodeInfo& node) const {
    NodeRef ref(node);
    return Sum(ref);
  }

  // The count of (key, value); 0 when absent.
  int64_t Get(std::string_view key, std::string_view value) const;
  // Adds delta to the node's pair for key when the node has that label (upstream's update).
  void Update(const api::StringMap& node_labels, std::string_view key, int64_t delta);
  // Whether some label of the node names a pair with a count above zero.
  bool AnyPositive(const api::StringMap& node_labels) const;
  // The sum over keys of the node's count for each key it has (Score).
  int64_t Sum(const api::StringMap& node_labels) const;

  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // The same pairs with the same counts.
  friend bool operator==(const CountsView& a, const CountsView& b);

 private:
  // Calls fn(key) for every distinct key of the base and the changes.
  template <typename Fn>
  void ForEachKey(Fn&& fn) const;

  // The node's position in nodes_, or -1 when the per-node counts do not apply (none, an
  // unknown node, or AddPod/RemovePod changed this view since).
  int64_t Position(NodeRef& node) const;

  std::shared_ptr<const TopologyCounts> base_;  // null: no pairs
  TopologyCounts changes_;                      // added to base_'s counts; zero pairs kept
  size_t live_ = 0;
  std::shared_ptr<const NodeCounts> nodes_;
  bool updated_ = false;  // by Update
};

}  // namespace stowage::plugins::inter_pod_affinity
