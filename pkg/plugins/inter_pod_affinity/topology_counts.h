// TopologyCounts: an integer per topology pair (topology key, label value), the shape of
// upstream's topologyToMatchedTermCount and of its scoreMap.
//
// Kept as one open-addressing hash table of pairs whose values live in a single byte arena
// (offsets, not pointers), so Build costs a hash per record instead of a sort of string records
// and a string per value, Filter and Score look a node's labels up without allocating, and a
// clone is a plain copy. A pair dropped by Update stays in the table with a zero count and is
// ignored. Not thread-safe for writes; concurrent const reads are safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/types.h"

namespace stowage::plugins::inter_pod_affinity {

class TopologyCounts {
 public:
  // One matched pair; the views must stay valid until Build returns.
  struct Record {
    std::string_view key;
    std::string_view value;
    int64_t count = 0;
    size_t value_hash = 0;  // of value, computed where the record is made (in parallel)
  };

  // The records of one node, added up by key since a node has one value per key. The first
  // key is kept inline: terms mostly share one topology key, so most nodes never allocate.
  class NodeRecords {
   public:
    // Adds count to the node's record for key, whose value on this node is value.
    void Add(std::string_view key, std::string_view value, int64_t count);
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    const Record& operator[](size_t i) const { return i == 0 ? first_ : rest_[i - 1]; }

   private:
    Record first_;
    std::vector<Record> rest_;
    size_t size_ = 0;
  };

  // The sum of the records of each pair over every node (upstream's mergeWithList into an
  // empty map).
  static TopologyCounts Build(const std::vector<NodeRecords>& nodes);

  // The count of (key, value); 0 when absent.
  int64_t Get(std::string_view key, std::string_view value) const;
  // Adds delta to the node's pair for key when the node has that label, and drops the pair when
  // it reaches zero (upstream's update).
  void Update(const api::StringMap& node_labels, std::string_view key, int64_t delta);
  // Adds delta to (key, value), keeping a pair that reaches zero (upstream's map +=).
  void Add(std::string_view key, std::string_view value, int64_t delta);
  // The hash Record::value_hash holds.
  static size_t HashValue(std::string_view value);
  // The count of (key, value) where value hashes to value_hash (Record::value_hash).
  int64_t Get(std::string_view key, std::string_view value, size_t value_hash) const;
  // Whether some label of the node names a pair with a count above zero.
  bool AnyPositive(const api::StringMap& node_labels) const;
  // The sum over keys of the node's value for each key it has (Score).
  int64_t Sum(const api::StringMap& node_labels) const;

  // The number of pairs.
  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // Pair handles, for NodeCountsMemo's per-node contributions: a pair's index stays valid for
  // the table's life, since pairs are never removed. Intern makes the pair (not live) if absent;
  // AddToPair keeps a pair live exactly while its count is not zero (a table
  // is either built with Intern/AddToPair or with the other writers, never both).
  uint32_t Intern(std::string_view key, std::string_view value, size_t value_hash);
  void AddToPair(uint32_t pair, int64_t delta);
  std::string_view PairKey(uint32_t pair) const { return keys_[pairs_[pair].key]; }
  std::string_view PairValue(uint32_t pair) const { return Value(pairs_[pair]); }
  uint32_t PairKeyIndex(uint32_t pair) const { return pairs_[pair].key; }  // in keys()
  int64_t PairCount(uint32_t pair) const { return pairs_[pair].count; }
  // Every pair ever made, live or not (a dropped pair has count 0), as fn(key, value, count).
  template <typename Fn>
  void ForEachPair(Fn&& fn) const {
    for (const Pair& p : pairs_) fn(std::string_view(keys_[p.key]), Value(p), p.count);
  }
  size_t pair_count() const { return pairs_.size(); }
  // The distinct topology keys of the pairs.
  const std::vector<std::string>& keys() const { return keys_; }
  // Makes room for pairs without rehashing.
  void Reserve(size_t pairs);

  // The same pairs with the same counts, whatever the order they were added in.
  friend bool operator==(const TopologyCounts& a, const TopologyCounts& b);

 private:
  struct Pair {
    size_t hash;
    uint32_t offset;  // of the value in arena_
    uint32_t length;
    uint32_t key;  // index in keys_
    bool live;
    int64_t count;
  };
  static constexpr uint32_t kNoKey = UINT32_MAX;

  uint32_t KeyIndex(std::string_view key) const;
  uint32_t AddKey(std::string_view key);
  std::string_view Value(const Pair& p) const { return {arena_.data() + p.offset, p.length}; }
  // The pair of (key, value) whose value hashes to hash, live or not; nullptr when absent.
  const Pair* Find(uint32_t key, std::string_view value, size_t hash) const;
  Pair* FindOrInsert(uint32_t key, std::string_view value, size_t hash);
  void Add(std::string_view key, std::string_view value, size_t value_hash, int64_t delta);

  std::vector<std::string> keys_;  // the distinct topology keys, a handful
  std::string arena_;
  std::vector<Pair> pairs_;
  std::vector<uint32_t> slots_;  // index in pairs_ plus one, 0 for empty; a power of two long
  size_t live_ = 0;
};

}  // namespace stowage::plugins::inter_pod_affinity
