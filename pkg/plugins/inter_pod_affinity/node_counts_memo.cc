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
  } else {
    for (const framework::NodeInfo* node : changed_) {
      const int64_t i = IndexOf(snapshot, node);
      if (i < 0 || e.slots[i].generation == node->generation()) continue;  // seen already
      TopologyCounts::NodeRecords records;
      compute(*node, records);
      Replace(e, e.slots[i], records);
      e.slots[i].generation = node->generation();
    }
  }
  e.generation = snapshot.generation();
  if (e.base == nullptr || e.changes.pair_count() > MaxChanges(e.current)) {
    e.base = std::make_shared<const TopologyCounts>(e.current);
    e.changes = TopologyCounts();
  }
  return CountsView(e.base, e.changes, e.current.size());
}

void NodeCountsMemo::Recompute(Entry& e, const framework::NodeInfoLister& snapshot,
                               framework::Parallelizer& pool, const Compute& compute) {
  ++full_computations_;
  const auto& nodes = snapshot.List();
  std::vector<TopologyCounts::NodeRecords> records(nodes.size());
  pool.Until(nodes.size(), [&](size_t i) { compute(*nodes[i], records[i]); });
  e.current = TopologyCounts();
  e.base = nullptr;
  e.changes = TopologyCounts();
  size_t total = 0;
  for (const auto& r : records) total += r.size();
  e.current.Reserve(total);
  e.slots.assign(nodes.size(), Slot());
  for (size_t i = 0; i < nodes.size(); ++i) {
    Replace(e, e.slots[i], records[i]);
    e.slots[i].generation = nodes[i]->generation();
  }
  e.list_version = snapshot.list_version();
}

void NodeCountsMemo::Add(Entry& e, uint32_t pair, int64_t delta) {
  e.current.AddToPair(pair, delta);
  // The base is made after a recomputation, so only later moves are changes.
  if (e.base != nullptr) e.changes.Add(e.current.PairKey(pair), e.current.PairValue(pair), delta);
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

int64_t NodeCountsMemo::IndexOf(const framework::NodeInfoLister& snapshot,
                                const framework::NodeInfo* node) {
  const auto& nodes = snapshot.List();
  if (index_version_ != snapshot.list_version() || index_.size() != nodes.size()) {
    index_.clear();
    index_.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) index_.emplace(nodes[i], static_cast<uint32_t>(i));
    index_version_ = snapshot.list_version();
  }
  auto it = index_.find(node);
  return it == index_.end() ? -1 : static_cast<int64_t>(it->second);
}

}  // namespace stowage::plugins::inter_pod_affinity
