// TopologyCounts: an integer per topology pair (topology key, label value), the shape of
// upstream's topologyToMatchedTermCount and of its scoreMap.
//
// Kept as a few keys (one per topology key of the terms), each with its values sorted, so Filter
// and Score look a node's labels up without allocating and a clone is a plain copy. Not
// thread-safe for writes; concurrent const reads are safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"

namespace stowage::plugins::inter_pod_affinity {

class TopologyCounts {
 public:
  // One matched pair; the views must stay valid until Build returns.
  struct Record {
    std::string_view key;
    std::string_view value;
    int64_t count = 0;
  };

  // The sum of the records of each pair (upstream's mergeWithList into an empty map).
  static TopologyCounts Build(std::vector<Record>& records);

  // The count of (key, value); 0 when absent.
  int64_t Get(std::string_view key, std::string_view value) const;
  // Adds delta to the node's pair for key when the node has that label, and drops the pair when
  // it reaches zero (upstream's update).
  void Update(const api::StringMap& node_labels, std::string_view key, int64_t delta);
  // Adds delta to (key, value), keeping a pair that reaches zero (upstream's map +=).
  void Add(std::string_view key, std::string_view value, int64_t delta);
  // Whether some label of the node names a pair with a count above zero.
  bool AnyPositive(const api::StringMap& node_labels) const;
  // The sum over keys of the node's value for each key it has (Score).
  int64_t Sum(const api::StringMap& node_labels) const;

  // The number of pairs, and of distinct keys.
  size_t size() const;
  bool empty() const { return keys_.empty(); }
  size_t key_count() const { return keys_.size(); }

  friend bool operator==(const TopologyCounts&, const TopologyCounts&) = default;

 private:
  struct Key {
    std::string key;
    std::vector<std::pair<std::string, int64_t>> values;  // sorted by value
    friend bool operator==(const Key&, const Key&) = default;
  };
  const Key* FindKey(std::string_view key) const;
  static const int64_t* FindValue(const Key& k, std::string_view value);

  std::vector<Key> keys_;  // sorted by key
};

}  // namespace stowage::plugins::inter_pod_affinity
