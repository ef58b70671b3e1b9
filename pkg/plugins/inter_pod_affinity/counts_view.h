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
#include <memory>
#include <string_view>

#include "pkg/api/types.h"
#include "pkg/plugins/inter_pod_affinity/topology_counts.h"

namespace stowage::plugins::inter_pod_affinity {

class CountsView {
 public:
  CountsView() = default;
  // base plus changes, where live is the number of pairs whose sum is not zero.
  CountsView(std::shared_ptr<const TopologyCounts> base, TopologyCounts changes, size_t live)
      : base_(std::move(base)), changes_(std::move(changes)), live_(live) {}

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

  std::shared_ptr<const TopologyCounts> base_;  // null: no pairs
  TopologyCounts changes_;                      // added to base_'s counts; zero pairs kept
  size_t live_ = 0;
};

}  // namespace stowage::plugins::inter_pod_affinity
