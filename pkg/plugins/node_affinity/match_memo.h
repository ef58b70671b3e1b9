// MatchMemo: whether each node matches a pod's nodeSelector and required node affinity, kept
// across cycles for pods that ask the same (a Deployment's replicas), so that Filter reads one
// word of a node it has seen instead of looking its labels up: the lookups' cache misses were a
// fifth of a cycle for such pods at 5000 nodes.
//
// Entries fill lazily: Filter matches a node the first time it looks at it and stores the result
// beside the node's generation, and later cycles reuse it while the generation is the same (any
// change to the node or its pods gives it a new one). So a column never costs a pass over every
// node, and a pod whose inputs no other pod shares costs little more than matching. A column
// belongs to one lister's list (nodes by list_position()); a new list version empties every
// column. At most kMaxColumns sets of inputs are kept, the least recently used replaced.
//
// Thread-safety: Select runs on the scheduling cycle's thread (PreFilter), never beside Filter;
// Matches runs on Filter's worker threads at once, each entry an atomic word.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"
#include "stowage/plugins/helper/node_affinity_matchers.h"

namespace stowage::plugins::node_affinity {

class MatchMemo {
 public:
  static constexpr size_t kMaxColumns = 4;

  // One set of inputs over the list: at[position] is (generation << 1) | matched, or -1.
  struct Column {
    api::StringMap node_selector;
    std::optional<api::NodeSelector> required;
    std::unique_ptr<std::atomic<int64_t>[]> at;
    size_t size = 0;
    uint64_t stamp = 0;  // changes whenever the column is emptied or given other inputs
    uint64_t used = 0;
  };

  // What a cycle keeps to read the memo from Filter: valid while the column's stamp is the one
  // seen here.
  struct Ref {
    Column* column = nullptr;
    uint64_t stamp = 0;
    const std::vector<const framework::NodeInfo*>* list = nullptr;
  };

  // The column of pod's inputs (its nodeSelector and required, the pod's required node affinity
  // or null) over lister's List(), made empty when not held.
  Ref Select(const framework::NodeInfoLister& lister, const api::Pod& pod,
             const api::NodeSelector* required);

  // Whether node matches required (the pod's compiled inputs): from the column when it holds the
  // node's current entry, else matched now and, for a node of the list, stored.
  static bool Matches(const Ref& ref, const framework::NodeInfo& node,
                      const helper::RequiredNodeAffinity& required);

  // Entries that hold a node's result, over every column: tests check that Filter fills them.
  size_t filled_for_test() const;
  size_t columns_for_test() const { return columns_.size(); }

 private:
  void Empty(Column& column);

  const framework::NodeInfoLister* lister_ = nullptr;
  int64_t list_version_ = -1;
  size_t list_size_ = 0;
  uint64_t tick_ = 0;
  uint64_t stamps_ = 0;
  std::vector<std::unique_ptr<Column>> columns_;
};

}  // namespace stowage::plugins::node_affinity
