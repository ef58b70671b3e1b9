#include "pkg/plugins/pod_topology_spread/spread_memo.h"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "pkg/plugins/pod_topology_spread/common.h"
#include "stowage/plugins/helper/node_affinity_matchers.h"

namespace stowage::plugins::pod_topology_spread {
namespace {

uint8_t Includes(const SpreadMemo::InclusionColumn& column, const api::Node* node) {
  return node != nullptr &&
         MatchesInclusionPolicies(column.honor_affinity, column.honor_taints, column.tolerations,
                                  *node, column.matcher, column.comparison_operators);
}

}  // namespace

bool SpreadMemo::InclusionColumn::Matches(const Constraint& c, const api::Pod& pod,
                                          bool cmp) const {
  if (honor_affinity != c.honor_node_affinity || honor_taints != c.honor_node_taints ||
      comparison_operators != cmp) {
    return false;
  }
  if (honor_affinity) {
    const api::NodeSelector* terms = helper::RequiredNodeSelector(pod);
    if (node_selector != pod.spec.node_selector || required.has_value() != (terms != nullptr) ||
        (terms != nullptr && *required != *terms)) {
      return false;
    }
  }
  return !honor_taints || tolerations == pod.spec.tolerations;
}

void SpreadMemo::Sync(const framework::NodeInfoLister& lister) {
  ++tick_;
  const std::vector<const framework::NodeInfo*>& list = lister.List();
  changed_.clear();
  if (&lister != lister_ || lister.list_version() != list_version_ ||
      list.size() != nodes_.size() || !lister.ChangedSince(generation_, changed_) ||
      // Past this many changes recomputing columns in parallel over every node is cheaper.
      changed_.size() > std::max<size_t>(64, nodes_.size() / 8)) {
    Reset(lister);
    return;
  }
  for (const framework::NodeInfo* info : changed_) {
    const int32_t pos = Position(info);
    if (pos < 0) {  // the log and the list disagree: trust neither
      Reset(lister);
      return;
    }
    if (node_generation_[pos] == info->generation()) continue;  // logged twice
    node_generation_[pos] = info->generation();
    ++epoch_;
    Refresh(static_cast<size_t>(pos));
  }
  generation_ = lister.generation();
}

void SpreadMemo::Reset(const framework::NodeInfoLister& lister) {
  ++full_rescans_;
  ++epoch_;
  lister_ = &lister;
  list_version_ = lister.list_version();
  generation_ = lister.generation();
  nodes_ = lister.List();
  node_generation_.resize(nodes_.size());
  has_node_.resize(nodes_.size());
  size_t buckets = 16;
  while (buckets < 2 * nodes_.size()) buckets *= 2;
  position_.assign(buckets, {nullptr, -1});
  for (size_t i = 0; i < nodes_.size(); ++i) {
    node_generation_[i] = nodes_[i]->generation();
    has_node_[i] = nodes_[i]->node() != nullptr;
    size_t b = Bucket(nodes_[i]);
    while (position_[b].first != nullptr) b = (b + 1) & (buckets - 1);
    position_[b] = {nodes_[i], static_cast<int32_t>(i)};
  }
  sums_.clear();
  keys_.clear();
  queries_.clear();
  inclusions_.clear();
}

size_t SpreadMemo::Bucket(const framework::NodeInfo* info) const {
  // Fibonacci hashing of the address; its low bits are alignment.
  const uint64_t h =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(info)) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h >> 32) & (position_.size() - 1);
}

int32_t SpreadMemo::Position(const framework::NodeInfo* info) const {
  // The snapshot's own record first: it reads the node and one slot of the list, where the
  // table's probe is a cache miss of its own at every node.
  if (const int32_t p = info->list_position();
      p >= 0 && static_cast<size_t>(p) < nodes_.size() && nodes_[static_cast<size_t>(p)] == info) {
    return p;
  }
  if (position_.empty()) return -1;
  for (size_t b = Bucket(info);; b = (b + 1) & (position_.size() - 1)) {
    if (position_[b].first == info) return position_[b].second;
    if (position_[b].first == nullptr) return -1;
  }
}

void SpreadMemo::Refresh(size_t pos) {
  const framework::NodeInfo* info = nodes_[pos];
  const api::Node* node = info->node();
  for (const auto& sum : sums_) Contribute(*sum, pos, -1);
  for (const auto& column : keys_) {
    if (has_node_[pos] && column->at[pos] < 0) --column->absent;
  }
  has_node_[pos] = node != nullptr;
  for (const auto& column : keys_) {
    column->at[pos] =
        Intern(*column, node != nullptr ? node->metadata.labels.Get(column->key) : nullptr);
    if (has_node_[pos] && column->at[pos] < 0) ++column->absent;
  }
  for (const auto& column : queries_) {
    column->at[pos] = CountMatchingPods(info->pods(), column->selector, column->ns);
  }
  for (const auto& column : inclusions_) column->at[pos] = Includes(*column, node);
  for (const auto& sum : sums_) Contribute(*sum, pos, 1);
}

void SpreadMemo::Contribute(SumColumn& column, size_t pos, int sign) const {
  if (column.included != nullptr && !column.included->at[pos]) return;
  const int32_t id = column.key->at[pos];
  const int64_t count = column.counts->at[pos];
  if (id < 0) {
    if (has_node_[pos]) column.missing += sign * count;
    return;
  }
  const size_t i = static_cast<size_t>(id);
  if (i >= column.by_value.size()) {
    column.by_value.resize(i + 1, 0);
    column.nodes.resize(i + 1, 0);
  }
  const bool was_held = column.nodes[i] > 0;
  column.by_value[i] += sign * count;
  column.nodes[i] += sign;
  const bool is_held = column.nodes[i] > 0;
  if (was_held != is_held) column.held = is_held ? column.held + 1 : column.held - 1;
  if (!column.min_stale) FollowMinimum(column, id, sign * count);
}

void SpreadMemo::Admit(SumColumn& column, int32_t id) {
  int32_t* m = column.min_ids;
  const int64_t v = column.by_value[static_cast<size_t>(id)];
  // Strictly fewer, as CriticalPaths::Update: of equal values the one admitted first stays.
  if (m[0] < 0 || v < column.by_value[static_cast<size_t>(m[0])]) {
    m[1] = m[0];
    m[0] = id;
  } else if (m[1] < 0 || v < column.by_value[static_cast<size_t>(m[1])]) {
    m[1] = id;
  }
}

void SpreadMemo::FollowMinimum(SumColumn& column, int32_t id, int64_t delta) {
  int32_t* m = column.min_ids;
  if (id == m[0] || id == m[1]) {
    // One of the two that gained pods or lost its last node may no longer be among the fewest;
    // which value replaces it takes a pass over every value.
    if (delta > 0 || !column.Held(static_cast<size_t>(id))) {
      column.min_stale = true;
    } else if (m[1] >= 0 && column.by_value[static_cast<size_t>(m[0])] >
                                column.by_value[static_cast<size_t>(m[1])]) {
      std::swap(m[0], m[1]);
    }
    return;
  }
  // Any other value had at least as many pods as both; it displaces one only by now having fewer.
  if (column.Held(static_cast<size_t>(id))) Admit(column, id);
}

void SpreadMemo::FindMinimum(SumColumn& column) {
  column.min_ids[0] = column.min_ids[1] = -1;
  for (size_t id = 0; id < column.nodes.size(); ++id) {
    if (column.nodes[id] > 0) Admit(column, static_cast<int32_t>(id));
  }
  column.min_stale = false;
}

void SpreadMemo::DropSums(const void* column) {
  std::erase_if(sums_, [column](const std::unique_ptr<SumColumn>& s) {
    return static_cast<const void*>(s->key) == column ||
           static_cast<const void*>(s->counts) == column ||
           static_cast<const void*>(s->included) == column;
  });
}

int32_t SpreadMemo::Intern(KeyColumn& column, const std::string* value) {
  if (value == nullptr) return -1;
  auto [it, added] = column.ids.try_emplace(*value, static_cast<int32_t>(column.values.size()));
  if (added) column.values.push_back(*value);
  return it->second;
}

template <typename Column>
Column& SpreadMemo::Slot(std::vector<std::unique_ptr<Column>>& columns, size_t cap) {
  if (columns.size() < cap) return *columns.emplace_back(std::make_unique<Column>());
  auto oldest = std::min_element(columns.begin(), columns.end(),
                                 [](const auto& a, const auto& b) { return a->used < b->used; });
  // Columns used this cycle may be referenced by the caller: never reuse them.
  if ((*oldest)->used == tick_) return *columns.emplace_back(std::make_unique<Column>());
  ++epoch_;
  if constexpr (!std::is_same_v<Column, SumColumn>) DropSums(oldest->get());
  **oldest = Column();
  return **oldest;
}

const SpreadMemo::KeyColumn& SpreadMemo::Key(std::string_view key, framework::Parallelizer& pool) {
  for (const auto& column : keys_) {
    if (column->key == key) {
      column->used = tick_;
      return *column;
    }
  }
  KeyColumn& column = Slot(keys_, kMaxKeys);
  column.key = std::string(key);
  column.used = tick_;
  column.at.resize(nodes_.size());
  // Label lookups in parallel; interning, which appends, afterwards on this thread.
  lookups_.assign(nodes_.size(), nullptr);
  pool.Until(nodes_.size(), [&](size_t n) {
    if (const api::Node* node = nodes_[n]->node()) lookups_[n] = node->metadata.labels.Get(key);
  });
  for (size_t n = 0; n < nodes_.size(); ++n) {
    column.at[n] = Intern(column, lookups_[n]);
    if (has_node_[n] && column.at[n] < 0) ++column.absent;
  }
  return column;
}

const SpreadMemo::CountColumn& SpreadMemo::Counts(std::string_view ns,
                                                  const api::Selector& selector,
                                                  framework::Parallelizer& pool) {
  std::string id;
  id.reserve(ns.size() + 64);
  id.append(ns).push_back('\0');
  // Nothing and Everything both print empty; both count nothing, so they may share a column.
  id.append(selector.String());
  for (const auto& column : queries_) {
    if (column->id == id) {
      column->used = tick_;
      return *column;
    }
  }
  CountColumn& column = Slot(queries_, kMaxQueries);
  column.id = std::move(id);
  column.ns = std::string(ns);
  column.selector = selector;
  column.used = tick_;
  column.at.resize(nodes_.size());
  pool.Until(nodes_.size(), [&](size_t n) {
    column.at[n] = CountMatchingPods(nodes_[n]->pods(), column.selector, column.ns);
  });
  return column;
}

const SpreadMemo::InclusionColumn& SpreadMemo::Inclusion(
    const Constraint& c, const api::Pod& pod, const helper::RequiredNodeAffinity& required,
    bool comparison_operators, framework::Parallelizer& pool) {
  for (const auto& column : inclusions_) {
    if (column->Matches(c, pod, comparison_operators)) {
      column->used = tick_;
      return *column;
    }
  }
  InclusionColumn& column = Slot(inclusions_, kMaxInclusions);
  column.honor_affinity = c.honor_node_affinity;
  column.honor_taints = c.honor_node_taints;
  column.comparison_operators = comparison_operators;
  if (column.honor_affinity) {
    column.node_selector = pod.spec.node_selector;
    if (const api::NodeSelector* terms = helper::RequiredNodeSelector(pod))
      column.required = *terms;
  }
  if (column.honor_taints) column.tolerations = pod.spec.tolerations;
  column.matcher = required;
  column.used = tick_;
  column.at.resize(nodes_.size());
  pool.Until(nodes_.size(), [&](size_t n) { column.at[n] = Includes(column, nodes_[n]->node()); });
  return column;
}

const SpreadMemo::SumColumn& SpreadMemo::Sums(const KeyColumn& key, const CountColumn& counts,
                                              const InclusionColumn* included) {
  for (const auto& column : sums_) {
    if (column->key == &key && column->counts == &counts && column->included == included) {
      column->used = tick_;
      if (column->min_stale) FindMinimum(*column);
      return *column;
    }
  }
  SumColumn& column = Slot(sums_, kMaxSums);
  column.key = &key;
  column.counts = &counts;
  column.included = included;
  column.used = tick_;
  column.by_value.assign(key.values.size(), 0);
  column.nodes.assign(key.values.size(), 0);
  for (size_t n = 0; n < nodes_.size(); ++n) Contribute(column, n, 1);
  FindMinimum(column);
  return column;
}

}  // namespace stowage::plugins::pod_topology_spread
