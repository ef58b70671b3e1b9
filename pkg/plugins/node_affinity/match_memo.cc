#include "pkg/plugins/node_affinity/match_memo.h"

namespace stowage::plugins::node_affinity {
namespace {

constexpr int64_t kUnknown = -1;

bool SameInputs(const MatchMemo::Column& column, const api::Pod& pod,
                const api::NodeSelector* required) {
  return column.node_selector == pod.spec.node_selector &&
         column.required.has_value() == (required != nullptr) &&
         (required == nullptr || *column.required == *required);
}

}  // namespace

void MatchMemo::Empty(Column& column) {
  if (column.size != list_size_) {
    column.at = std::make_unique<std::atomic<int64_t>[]>(list_size_);
    column.size = list_size_;
  }
  for (size_t i = 0; i < column.size; ++i) column.at[i].store(kUnknown, std::memory_order_relaxed);
  column.stamp = ++stamps_;
}

MatchMemo::Ref MatchMemo::Select(const framework::NodeInfoLister& lister, const api::Pod& pod,
                                 const api::NodeSelector* required) {
  ++tick_;
  const std::vector<const framework::NodeInfo*>& list = lister.List();
  if (&lister != lister_ || lister.list_version() != list_version_ || list.size() != list_size_) {
    // Positions now name other nodes: every entry is stale.
    lister_ = &lister;
    list_version_ = lister.list_version();
    list_size_ = list.size();
    for (auto& column : columns_) Empty(*column);
  }
  Column* found = nullptr;
  for (auto& column : columns_) {
    if (SameInputs(*column, pod, required)) {
      found = column.get();
      break;
    }
  }
  if (found == nullptr) {
    if (columns_.size() < kMaxColumns) {
      columns_.push_back(std::make_unique<Column>());
      found = columns_.back().get();
    } else {
      found = columns_.front().get();
      for (auto& column : columns_) {
        if (column->used < found->used) found = column.get();
      }
    }
    found->node_selector = pod.spec.node_selector;
    found->required = required ? std::optional<api::NodeSelector>(*required) : std::nullopt;
    Empty(*found);
  }
  found->used = tick_;
  return Ref{found, found->stamp, &list};
}

bool MatchMemo::Matches(const Ref& ref, const framework::NodeInfo& node,
                        const helper::RequiredNodeAffinity& required) {
  const int32_t p = node.list_position();
  // Only a node of the column's list has an entry: a copy (nominated pods counted on it, a
  // preemption's dry run) is matched afresh.
  if (ref.column == nullptr || ref.column->stamp != ref.stamp || p < 0 ||
      static_cast<size_t>(p) >= ref.column->size || (*ref.list)[static_cast<size_t>(p)] != &node) {
    return required.Match(*node.node()).matched;
  }
  std::atomic<int64_t>& entry = ref.column->at[static_cast<size_t>(p)];
  const int64_t seen = entry.load(std::memory_order_relaxed);
  if (seen != kUnknown && (seen >> 1) == node.generation()) return (seen & 1) != 0;
  const bool matched = required.Match(*node.node()).matched;
  entry.store((node.generation() << 1) | (matched ? 1 : 0), std::memory_order_relaxed);
  return matched;
}

size_t MatchMemo::filled_for_test() const {
  size_t n = 0;
  for (const auto& column : columns_) {
    for (size_t i = 0; i < column->size; ++i) {
      n += column->at[i].load(std::memory_order_relaxed) != kUnknown;
    }
  }
  return n;
}

}  // namespace stowage::plugins::node_affinity
