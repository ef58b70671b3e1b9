// NodeCountsMemo: topology counts summed over the snapshot's nodes, kept across scheduling cycles
// for the queries pods repeat (pods of one template share their terms and labels, so they ask
// the same question of every node). A query is named by a key that must capture everything its
// per-node computation reads besides the node; each node's contribution is remembered with the
// NodeInfo generation it was computed from, so a cycle recomputes only the nodes the snapshot's
// change log names and moves the sums by their old and new contributions. It recomputes every
// node when the log does not reach back, the node list changed, or the key is new.
//
// It also keeps, for every node and every topology key of a query, the count of the node's pair
// (NodeCounts), moved with the sums: a pair's change is added to the nodes of its domain, which
// are linked per pair, and a node is moved between domains when its labels change. Views share it
// as they share the sums, so it is copied before a change only while a view holds it.
//
// Bounded: the least recently used key is dropped past capacity. Used by one scheduling thread
// (PreFilter, PreScore); only a full recomputation runs on the worker pool, each worker writing
// its own nodes' slots. The views it returns stay valid and unchanged after later calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/counts_view.h"
#include "pkg/plugins/inter_pod_affinity/topology_counts.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::inter_pod_affinity {

class NodeCountsMemo {
 public:
  // One node's records for the query; reads only the node and what the query's key names.
  using Compute = std::function<void(const framework::NodeInfo&, TopologyCounts::NodeRecords&)>;

  explicit NodeCountsMemo(size_t capacity = 16) : capacity_(capacity) {}

  // The query's counts over snapshot.List(), brought up to date with the snapshot.
  CountsView Counts(std::string_view key, const framework::NodeInfoLister& snapshot,
                    framework::Parallelizer& pool, const Compute& compute);
  // The same counts computed from scratch over nodes, remembering nothing.
  static CountsView FromScratch(const std::vector<const framework::NodeInfo*>& nodes,
                                framework::Parallelizer& pool, const Compute& compute);

  // How many times a query's counts were computed over every node (tests, diagnostics).
  int64_t full_computations() const { return full_computations_; }

 private:
  struct Contribution {
    uint32_t pair = 0;  // index in Entry::current
    int64_t count = 0;
  };
  // One node's contributions; the first inline since terms mostly share one topology key.
  struct Slot {
    int64_t generation = -1;  // of the NodeInfo they were computed from
    uint32_t size = 0;
    Contribution first;
    std::vector<Contribution> rest;
  };
  struct Entry {
    std::string key;
    uint64_t last_used = 0;
    int64_t generation = 0;  // the snapshot's generation when last brought up to date
    int64_t list_version = -1;
    std::vector<Slot> slots;  // by position in the snapshot's List()
    TopologyCounts current;   // the sums now; Intern/AddToPair only
    // What views share: current as it was at some update, and current minus base since.
    std::shared_ptr<const TopologyCounts> base;
    TopologyCounts changes;
    // Per node position i and key index k (in current.keys(), those below resolved_keys):
    std::shared_ptr<NodeCounts> node_counts;  // counts[k * n + i]
    std::vector<uint32_t> node_pair;          // [k * n + i]: node i's pair for key k, or kNone
    std::vector<uint32_t> next;               // [k * n + i]: next node of the same pair, or kNone
    std::vector<uint32_t> head;               // [pair]: its first node, or kNone
    size_t resolved_keys = 0;
  };
  static constexpr uint32_t kNone = UINT32_MAX;

  Entry& Find(std::string_view key);
  void Recompute(Entry& e, const framework::NodeInfoLister& snapshot, framework::Parallelizer& pool,
                 const Compute& compute);
  // Replaces node i's contributions with records, moving the sums.
  void Replace(Entry& e, Slot& slot, const TopologyCounts::NodeRecords& records);
  void Add(Entry& e, uint32_t pair, int64_t delta);
  // Resolves every node's pair for the keys from resolved_keys on.
  void ResolveKeys(Entry& e, const std::vector<const framework::NodeInfo*>& nodes);
  // Points node i at its pair for each resolved key again (its labels may have changed).
  void Reresolve(Entry& e, const framework::NodeInfo& node, size_t i);
  void Link(Entry& e, size_t k, size_t i, uint32_t pair);
  void Unlink(Entry& e, size_t k, size_t i);
  // The node counts, copied first when a view shares them.
  NodeCounts& MutableNodeCounts(Entry& e);

  size_t capacity_;
  std::vector<std::unique_ptr<Entry>> entries_;
  uint64_t clock_ = 0;
  std::shared_ptr<const NodePositions> positions_;  // of the list the entries were computed on
  int64_t positions_version_ = -1;
  std::vector<const framework::NodeInfo*> changed_;  // reused, so a cycle does not allocate
  int64_t full_computations_ = 0;
};

}  // namespace stowage::plugins::inter_pod_affinity
