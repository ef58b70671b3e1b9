#include "pkg/plugins/inter_pod_affinity/topology_counts.h"

#include <functional>

namespace stowage::plugins::inter_pod_affinity {
namespace {

size_t ValueHash(std::string_view value) { return std::hash<std::string_view>()(value); }

// Mixes the key's index into the value's hash, so one table holds the pairs of every key.
size_t PairHash(uint32_t key, size_t value_hash) {
  return value_hash + size_t{key} * 0x9e3779b97f4a7c15ULL;
}
size_t PairHash(uint32_t key, std::string_view value) { return PairHash(key, ValueHash(value)); }

}  // namespace

size_t TopologyCounts::HashValue(std::string_view value) { return ValueHash(value); }

TopologyCounts TopologyCounts::Build(const std::vector<NodeRecords>& nodes) {
  TopologyCounts out;
  size_t total = 0;
  for (const NodeRecords& n : nodes) total += n.size();
  if (total == 0) return out;
  // The records bound the pairs, so the table never grows while building.
  out.Reserve(total);
  for (const NodeRecords& n : nodes) {
    for (size_t i = 0; i < n.size(); ++i)
      out.Add(n[i].key, n[i].value, n[i].value_hash, n[i].count);
  }
  return out;
}

void TopologyCounts::NodeRecords::Add(std::string_view key, std::string_view value, int64_t count) {
  for (size_t i = 0; i < size_; ++i) {
    Record& r = i == 0 ? first_ : rest_[i - 1];
    if (r.key == key) {
      r.count += count;
      return;
    }
  }
  if (size_ == 0) {
    first_ = {key, value, count, ValueHash(value)};
  } else {
    rest_.push_back({key, value, count, ValueHash(value)});
  }
  ++size_;
}

uint32_t TopologyCounts::KeyIndex(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return static_cast<uint32_t>(i);
  }
  return kNoKey;
}

uint32_t TopologyCounts::AddKey(std::string_view key) {
  uint32_t i = KeyIndex(key);
  if (i != kNoKey) return i;
  keys_.emplace_back(key);
  return static_cast<uint32_t>(keys_.size() - 1);
}

void TopologyCounts::Reserve(size_t pairs) {
  size_t want = 8;
  while (want < 2 * pairs) want *= 2;  // load factor at most a half
  if (want <= slots_.size()) return;
  slots_.assign(want, 0);
  const size_t mask = want - 1;
  for (size_t i = 0; i < pairs_.size(); ++i) {
    size_t s = pairs_[i].hash & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = static_cast<uint32_t>(i + 1);
  }
  pairs_.reserve(pairs);
}

const TopologyCounts::Pair* TopologyCounts::Find(uint32_t key, std::string_view value,
                                                 size_t hash) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash & mask; slots_[s] != 0; s = (s + 1) & mask) {
    const Pair& p = pairs_[slots_[s] - 1];
    if (p.hash == hash && p.key == key && Value(p) == value) return &p;
  }
  return nullptr;
}

TopologyCounts::Pair* TopologyCounts::FindOrInsert(uint32_t key, std::string_view value,
                                                   size_t hash) {
  if (const Pair* p = Find(key, value, hash)) return const_cast<Pair*>(p);
  Reserve(pairs_.size() + 1);
  const size_t mask = slots_.size() - 1;
  size_t s = hash & mask;
  while (slots_[s] != 0) s = (s + 1) & mask;
  pairs_.push_back({hash, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(value.size()),
                    key, false, 0});
  arena_.append(value);
  slots_[s] = static_cast<uint32_t>(pairs_.size());
  return &pairs_.back();
}

int64_t TopologyCounts::Get(std::string_view key, std::string_view value) const {
  const uint32_t k = KeyIndex(key);
  if (k == kNoKey) return 0;
  const Pair* p = Find(k, value, PairHash(k, value));
  return p ? p->count : 0;
}

int64_t TopologyCounts::Get(std::string_view key, std::string_view value, size_t value_hash) const {
  const uint32_t k = KeyIndex(key);
  if (k == kNoKey) return 0;
  const Pair* p = Find(k, value, PairHash(k, value_hash));
  return p ? p->count : 0;
}

uint32_t TopologyCounts::Intern(std::string_view key, std::string_view value, size_t value_hash) {
  const uint32_t k = AddKey(key);
  const Pair* p = FindOrInsert(k, value, PairHash(k, value_hash));
  return static_cast<uint32_t>(p - pairs_.data());
}

void TopologyCounts::AddToPair(uint32_t pair, int64_t delta) {
  Pair& p = pairs_[pair];
  const bool was = p.count != 0;
  p.count += delta;
  const bool is = p.count != 0;
  p.live = is;
  if (is && !was) ++live_;
  if (was && !is) --live_;
}

void TopologyCounts::Add(std::string_view key, std::string_view value, int64_t delta) {
  Add(key, value, ValueHash(value), delta);
}

void TopologyCounts::Add(std::string_view key, std::string_view value, size_t value_hash,
                         int64_t delta) {
  const uint32_t k = AddKey(key);
  Pair* p = FindOrInsert(k, value, PairHash(k, value_hash));
  if (!p->live) {
    p->live = true;
    ++live_;
  }
  p->count += delta;
}

void TopologyCounts::Update(const api::StringMap& node_labels, std::string_view key,
                            int64_t delta) {
  const std::string* value = node_labels.Get(key);
  if (value == nullptr) return;
  const uint32_t k = AddKey(key);
  Pair* p = FindOrInsert(k, *value, PairHash(k, *value));
  if (!p->live) {
    p->live = true;
    ++live_;
  }
  p->count += delta;
  if (p->count != 0) return;
  p->live = false;
  --live_;
}

bool TopologyCounts::AnyPositive(const api::StringMap& node_labels) const {
  // Equivalent to visiting every node label, but there are far fewer keys than labels.
  for (uint32_t k = 0; k < keys_.size(); ++k) {
    const std::string* value = node_labels.Get(keys_[k]);
    if (value == nullptr) continue;
    const Pair* p = Find(k, *value, PairHash(k, *value));
    if (p && p->count > 0) return true;
  }
  return false;
}

int64_t TopologyCounts::Sum(const api::StringMap& node_labels) const {
  int64_t sum = 0;
  for (uint32_t k = 0; k < keys_.size(); ++k) {
    const std::string* value = node_labels.Get(keys_[k]);
    if (value == nullptr) continue;
    if (const Pair* p = Find(k, *value, PairHash(k, *value))) sum += p->count;
  }
  return sum;
}

bool operator==(const TopologyCounts& a, const TopologyCounts& b) {
  if (a.live_ != b.live_) return false;
  for (const TopologyCounts::Pair& p : a.pairs_) {
    if (!p.live) continue;
    const uint32_t k = b.KeyIndex(a.keys_[p.key]);
    if (k == TopologyCounts::kNoKey) return false;
    const std::string_view value = a.Value(p);
    const TopologyCounts::Pair* q = b.Find(k, value, PairHash(k, value));
    if (q == nullptr || !q->live || q->count != p.count) return false;
  }
  return true;
}

}  // namespace stowage::plugins::inter_pod_affinity
