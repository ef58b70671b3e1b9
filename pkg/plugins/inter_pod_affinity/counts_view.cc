#include "pkg/plugins/inter_pod_affinity/counts_view.h"

#include <algorithm>
#include <string>

namespace stowage::plugins::inter_pod_affinity {
namespace {

size_t PointerHash(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) >> 4) * 0x9e3779b97f4a7c15ULL;
}

}  // namespace

NodePositions::NodePositions(const std::vector<const framework::NodeInfo*>& nodes)
    : nodes_(nodes), size_(nodes.size()) {
  size_t want = 8;
  while (want < 2 * nodes.size()) want *= 2;
  slots_.resize(want);
  const size_t mask = want - 1;
  for (size_t i = 0; i < nodes.size(); ++i) {
    size_t s = (PointerHash(nodes[i]) >> 20) & mask;
    while (slots_[s].node != nullptr) s = (s + 1) & mask;
    slots_[s] = {nodes[i], static_cast<uint32_t>(i)};
  }
}

int64_t NodePositions::Find(const framework::NodeInfo* node) const {
  // The snapshot's own record first (one read of the list), the probe when it is not this list's.
  if (const int32_t p = node->list_position();
      p >= 0 && static_cast<size_t>(p) < nodes_.size() && nodes_[static_cast<size_t>(p)] == node) {
    return p;
  }
  const size_t mask = slots_.size() - 1;
  for (size_t s = (PointerHash(node) >> 20) & mask; slots_[s].node != nullptr; s = (s + 1) & mask) {
    if (slots_[s].node == node) return slots_[s].position;
  }
  return -1;
}

int64_t CountsView::Position(NodeRef& node) const {
  if (nodes_ == nullptr || updated_) return -1;
  const NodePositions* positions = nodes_->positions.get();
  if (node.positions != positions) {
    node.positions = positions;
    node.position = positions->Find(&node.node);
  }
  return node.position;
}

std::optional<int64_t> CountsView::CountAt(std::string_view key, NodeRef& ref) const {
  const framework::NodeInfo& node = ref.node;
  if (const int64_t i = Position(ref); i >= 0) {
    const size_t n = nodes_->positions->size();
    for (size_t k = 0; k < nodes_->keys.size(); ++k) {
      if (nodes_->keys[k] != key) continue;
      const int64_t c = nodes_->counts[k * n + static_cast<size_t>(i)];
      if (c == NodeCounts::kNoLabel) return std::nullopt;
      return c;
    }
  }
  // A key without pairs, or no per-node counts: read the label.
  if (node.node() == nullptr) return std::nullopt;
  const std::string* value = node.node()->metadata.labels.Get(key);
  if (value == nullptr) return std::nullopt;
  return Get(key, *value);
}

bool CountsView::AnyPositive(NodeRef& ref) const {
  if (live_ == 0) return false;
  const framework::NodeInfo& node = ref.node;
  if (const int64_t i = Position(ref); i >= 0) {
    const size_t n = nodes_->positions->size();
    for (size_t k = 0; k < nodes_->keys.size(); ++k) {
      if (nodes_->counts[k * n + static_cast<size_t>(i)] > 0) return true;
    }
    return false;
  }
  return node.node() != nullptr && AnyPositive(node.node()->metadata.labels);
}

int64_t CountsView::Sum(NodeRef& ref) const {
  if (live_ == 0) return 0;
  const framework::NodeInfo& node = ref.node;
  if (const int64_t i = Position(ref); i >= 0) {
    const size_t n = nodes_->positions->size();
    int64_t sum = 0;
    for (size_t k = 0; k < nodes_->keys.size(); ++k) {
      const int64_t c = nodes_->counts[k * n + static_cast<size_t>(i)];
      if (c != NodeCounts::kNoLabel) sum += c;
    }
    return sum;
  }
  return node.node() != nullptr ? Sum(node.node()->metadata.labels) : 0;
}

template <typename Fn>
void CountsView::ForEachKey(Fn&& fn) const {
  if (base_) {
    for (const std::string& k : base_->keys()) fn(std::string_view(k));
  }
  for (const std::string& k : changes_.keys()) {
    if (base_ && std::find(base_->keys().begin(), base_->keys().end(), k) != base_->keys().end()) {
      continue;
    }
    fn(std::string_view(k));
  }
}

int64_t CountsView::Get(std::string_view key, std::string_view value) const {
  if (live_ == 0) return 0;
  const size_t hash = TopologyCounts::HashValue(value);
  int64_t n = base_ ? base_->Get(key, value, hash) : 0;
  if (changes_.pair_count() != 0) n += changes_.Get(key, value, hash);
  return n;
}

void CountsView::Update(const api::StringMap& node_labels, std::string_view key, int64_t delta) {
  const std::string* value = node_labels.Get(key);
  if (value == nullptr || delta == 0) return;
  updated_ = true;
  const int64_t before = Get(key, *value);
  changes_.Add(key, *value, delta);
  const int64_t after = before + delta;
  if (before == 0 && after != 0) ++live_;
  if (before != 0 && after == 0) --live_;
}

bool CountsView::AnyPositive(const api::StringMap& node_labels) const {
  if (live_ == 0) return false;
  bool any = false;
  ForEachKey([&](std::string_view k) {
    if (any) return;
    const std::string* value = node_labels.Get(k);
    if (value != nullptr && Get(k, *value) > 0) any = true;
  });
  return any;
}

int64_t CountsView::Sum(const api::StringMap& node_labels) const {
  if (live_ == 0) return 0;
  int64_t sum = 0;
  ForEachKey([&](std::string_view k) {
    if (const std::string* value = node_labels.Get(k)) sum += Get(k, *value);
  });
  return sum;
}

bool operator==(const CountsView& a, const CountsView& b) {
  if (a.live_ != b.live_) return false;
  // Every pair of a with a non-zero sum has the same sum in b; with equal live counts, b then
  // has no other pair.
  bool same = true;
  auto check = [&](std::string_view key, std::string_view value, int64_t) {
    if (!same) return;
    const int64_t n = a.Get(key, value);
    if (n != 0 && b.Get(key, value) != n) same = false;
  };
  if (a.base_) a.base_->ForEachPair(check);
  a.changes_.ForEachPair(check);
  return same;
}

}  // namespace stowage::plugins::inter_pod_affinity
