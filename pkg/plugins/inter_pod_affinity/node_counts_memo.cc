#include "pkg/plugins/inter_pod_affinity/node_counts_memo.h"

#include <utility>

namespace stowage::plugins::inter_pod_affinity {
namespace {

// Past this many changed pairs a new base is cheaper than copying the changes into every view.
size_t MaxChanges(const TopologyCounts& current) { return 64 + current.pair_count() / 32; }

}  // namespace

CountsView NodeCountsMemo::FromScratch(const std::vector<const framework::NodeInfo*>& nodes,
                                       framework::Parallelizer& pool, const Compute& compute) {
  std::vector<TopologyCounts::NodeRecords> records(nodes.size());
  pool.Until(nodes.size(), [&](size_t i) { compute(*nodes[i], records[i]); });
  auto counts = std::make_shared<TopologyCounts>();
  size_t total = 0;
  for (const auto& r : records) total += r.size();
  counts->Reserve(total);
  for (const auto& r : records) {
    for (size_t j = 0; j < r.size(); ++j) {
      counts->AddToPair(counts->Intern(r[j].key, r[j].value, r[j].value_hash), r[j].count);
    }
  }
  const size_t live = counts->size();
  return CountsView(std::move(counts), TopologyCounts(), live);
}

NodeCountsMemo::Entry& NodeCountsMemo::Find(std::string_view key) {
  ++clock_;
  Entry* oldest = nullptr;
  for (const auto& e : entries_) {
    if (e->key == key) {
      e->last_used = clock_;
      return *e;
    }
    if (oldest == nullptr || e->last_used < oldest->last_used) oldest = e.get();
  }
  if (entries_.size() < capacity_ || oldest == nullptr) {
    entries_.push_back(std::make_unique<Entry>());
    oldest = entries_.back().get();
  }
  *oldest = Entry();
  oldest->key = key;
  oldest->last_used = clock_;
  return *oldest;
}

CountsView NodeCountsMemo::Counts(std::string_view key, const framework::NodeInfoLister& snapshot,
                                  framework::Parallelizer& pool, const Compute& compute) {
  Entry& e = Find(key);
  const auto& nodes = snapshot.List();
  changed_.clear();
  if (e.list_version != snapshot.list_version() || e.slots.size() != nodes.size() ||
      !snapshot.ChangedSince(e.generation, changed_)) {
    Recompute(e, snapshot, pool, compute);
  } else if (!changed_.empty()) {
    MutableNodeCounts(e);
    for (const framework::NodeInfo* node : changed_) {
      const int64_t i = positions_->Find(node);
      if (i < 0 || e.slots[i].generation == node->generation()) continue;  // seen already
      Reresolve(e, *node, static_cast<size_t>(i));
      TopologyCounts::NodeRecords records;
      compute(*node, records);
      Replace(e, e.slots[i], records);
      e.slots[i].generation = node->generation();
    }
    if (e.resolved_keys < e.current.keys().size()) ResolveKeys(e, nodes);
  }
  e.generation = snapshot.generation();
  if (e.base == nullptr || e.changes.pair_count() > MaxChanges(e.current)) {
    e.base = std::make_shared<const TopologyCounts>(e.current);
    e.changes = TopologyCounts();
  }
  return CountsView(e.base, e.changes, e.current.size(), e.node_counts);
}

void NodeCountsMemo::Recompute(Entry& e, const framework::NodeInfoLister& snapshot,
                               framework::Parallelizer& pool, const Compute& compute) {
  ++full_computations_;
  const auto& nodes = snapshot.List();
  // A lister without a change log (generation 0) may hold other nodes at the same addresses.
  if (positions_ == nullptr || positions_version_ != snapshot.list_version() ||
      positions_->size() != nodes.size() || snapshot.generation() == 0) {
    positions_ = std::make_shared<const NodePositions>(nodes);
    positions_version_ = snapshot.list_version();
  }
  std::vector<TopologyCounts::NodeRecords> records(nodes.size());
  pool.Until(nodes.size(), [&](size_t i) { compute(*nodes[i], records[i]); });
  std::string key = std::move(e.key);
  const uint64_t last_used = e.last_used;
  e = Entry();
  e.key = std::move(key);
  e.last_used = last_used;
  size_t total = 0;
  for (const auto& r : records) total += r.size();
  e.current.Reserve(total);
  e.slots.assign(nodes.size(), Slot());
  for (size_t i = 0; i < nodes.size(); ++i) {
    Replace(e, e.slots[i], records[i]);
    e.slots[i].generation = nodes[i]->generation();
  }
  e.list_version = snapshot.list_version();
  e.node_counts = std::make_shared<NodeCounts>();
  e.node_counts->positions = positions_;
  ResolveKeys(e, nodes);
}

void NodeCountsMemo::Add(Entry& e, uint32_t pair, int64_t delta) {
  e.current.AddToPair(pair, delta);
  // The base is made after a recomputation, so only later moves are changes.
  if (e.base != nullptr) e.changes.Add(e.current.PairKey(pair), e.current.PairValue(pair), delta);
  const size_t k = e.current.PairKeyIndex(pair);
  if (k >= e.resolved_keys || pair >= e.head.size()) return;
  // Every node of the pair's domain sees the change.
  const size_t n = e.slots.size();
  std::vector<int64_t>& counts = e.node_counts->counts;
  for (uint32_t i = e.head[pair]; i != kNone; i = e.next[k * n + i]) counts[k * n + i] += delta;
}

void NodeCountsMemo::Replace(Entry& e, Slot& slot, const TopologyCounts::NodeRecords& records) {
  for (uint32_t j = 0; j < slot.size; ++j) {
    const Contribution& c = j == 0 ? slot.first : slot.rest[j - 1];
    Add(e, c.pair, -c.count);
  }
  slot.size = 0;
  slot.rest.clear();
  for (size_t j = 0; j < records.size(); ++j) {
    const TopologyCounts::Record& r = records[j];
    const Contribution c{e.current.Intern(r.key, r.value, r.value_hash), r.count};
    Add(e, c.pair, c.count);
    if (slot.size == 0) {
      slot.first = c;
    } else {
      slot.rest.push_back(c);
    }
    ++slot.size;
  }
}

NodeCounts& NodeCountsMemo::MutableNodeCounts(Entry& e) {
  if (e.node_counts.use_count() > 1) e.node_counts = std::make_shared<NodeCounts>(*e.node_counts);
  return *e.node_counts;
}

void NodeCountsMemo::Link(Entry& e, size_t k, size_t i, uint32_t pair) {
  const size_t n = e.slots.size();
  e.node_pair[k * n + i] = pair;
  if (pair == kNone) {
    e.node_counts->counts[k * n + i] = NodeCounts::kNoLabel;
    return;
  }
  if (pair >= e.head.size()) e.head.resize(e.current.pair_count(), kNone);
  e.next[k * n + i] = e.head[pair];
  e.head[pair] = static_cast<uint32_t>(i);
  e.node_counts->counts[k * n + i] = e.current.PairCount(pair);
}

void NodeCountsMemo::Unlink(Entry& e, size_t k, size_t i) {
  const size_t n = e.slots.size();
  const uint32_t pair = e.node_pair[k * n + i];
  if (pair == kNone) return;
  // Only a node whose labels changed moves, so walking its domain's list is rare.
  uint32_t* link = &e.head[pair];
  while (*link != i) link = &e.next[k * n + *link];
  *link = e.next[k * n + i];
  e.node_pair[k * n + i] = kNone;
}

void NodeCountsMemo::ResolveKeys(Entry& e, const std::vector<const framework::NodeInfo*>& nodes) {
  const size_t n = nodes.size();
  NodeCounts& nc = MutableNodeCounts(e);
  while (e.resolved_keys < e.current.keys().size()) {
    const size_t k = e.resolved_keys;
    const std::string key = e.current.keys()[k];  // a copy: interning may grow keys()
    nc.keys.push_back(key);
    e.node_pair.resize((k + 1) * n, kNone);
    e.next.resize((k + 1) * n, kNone);
    nc.counts.resize((k + 1) * n, NodeCounts::kNoLabel);
    for (size_t i = 0; i < n; ++i) {
      const api::Node* node = nodes[i]->node();
      const std::string* value = node ? node->metadata.labels.Get(key) : nullptr;
      if (value == nullptr) continue;
      Link(e, k, i, e.current.Intern(key, *value, TopologyCounts::HashValue(*value)));
    }
    ++e.resolved_keys;
  }
}

void NodeCountsMemo::Reresolve(Entry& e, const framework::NodeInfo& info, size_t i) {
  const size_t n = e.slots.size();
  const api::Node* node = info.node();
  for (size_t k = 0; k < e.resolved_keys; ++k) {
    const std::string& key = e.current.keys()[k];
    const std::string* value = node ? node->metadata.labels.Get(key) : nullptr;
    const uint32_t pair =
        value ? e.current.Intern(key, *value, TopologyCounts::HashValue(*value)) : kNone;
    if (pair == e.node_pair[k * n + i]) continue;
    Unlink(e, k, i);
    Link(e, k, i, pair);
  }
}

}  // namespace stowage::plugins::inter_pod_affinity
