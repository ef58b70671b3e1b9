// PreFilter's and PreScore's counts per domain from the SpreadMemo: its per-domain sums (over
// the nodes the inclusion policies admit) when a domain's nodes are those that hold its value,
// else one pass over its per-node integer columns; either way no label lookups or pod matching
// on every node. The results equal the from-scratch passes in
// filtering.cc and scoring.cc, which run when the memo cannot serve.
#include <algorithm>
#include <string>

#include "pkg/plugins/pod_topology_spread/plugin.h"

namespace stowage::plugins::pod_topology_spread {
namespace {

// True when constraint c counts every node with its keys, whatever the node's labels and taints.
bool IncludesEveryNode(const Constraint& c, const helper::RequiredNodeAffinity& required) {
  return (!c.honor_node_affinity || required.MatchesAll()) && !c.honor_node_taints;
}

// True when no node with a Node object lacks any of the keys: a node then has all of them exactly
// when it has one, and a sum per key is the sum over the nodes that have all.
bool EveryNodeHasEveryKey(const std::vector<const SpreadMemo::KeyColumn*>& keys) {
  return std::all_of(keys.begin(), keys.end(),
                     [](const SpreadMemo::KeyColumn* key) { return key->absent == 0; });
}

}  // namespace

void PodTopologySpread::AcquireColumns(const api::Pod& pod, const std::vector<Constraint>& cs,
                                       const helper::RequiredNodeAffinity& required) {
  memo_.Sync(handle_.SnapshotSharedLister());
  framework::Parallelizer& pool = handle_.parallelizer();
  MemoScratch& m = scratch_;
  m.keys.clear();
  m.counts.clear();
  m.included.clear();
  for (const Constraint& c : cs) {
    m.keys.push_back(&memo_.Key(c.topology_key, pool));
    m.counts.push_back(&memo_.Counts(pod.metadata.namespace_, c.selector, pool));
    // Where the pod's node affinity or tolerations decide, the memo keeps which nodes count.
    m.included.push_back(
        IncludesEveryNode(c, required)
            ? nullptr
            : &memo_.Inclusion(c, pod, required, enable_comparison_operators_, pool));
  }
}

void PodTopologySpread::CountForFilter(const api::Pod& pod, const std::vector<Constraint>& cs,
                                       const helper::RequiredNodeAffinity& required,
                                       PreFilterState& s) {
  AcquireColumns(pod, cs, required);
  MemoScratch& m = scratch_;
  const size_t k = cs.size();
  s.view = MemoView{&memo_, memo_.epoch(), m.keys};
  s.counts_in_view = true;
  s.domains.assign(k, 0);
  if (k == 1 || EveryNodeHasEveryKey(m.keys)) {
    // The memo's sums are the counts: a domain's sum counts, like the pass below, the admitted
    // nodes that hold its value (with one key, or when every node has every key, a node has all
    // keys when it has this one), and the memo keeps the domains and the two with the fewest
    // pods in step.
    s.sums.resize(k);
    for (size_t i = 0; i < k; ++i) {
      const SpreadMemo::SumColumn& sum = memo_.Sums(*m.keys[i], *m.counts[i], m.included[i]);
      s.sums[i] = &sum;
      s.domains[i] = sum.held;
      for (int j = 0; j < 2 && sum.min_ids[j] >= 0; ++j) {
        const auto id = static_cast<size_t>(sum.min_ids[j]);
        s.critical_paths[i].paths[j] = {m.keys[i]->values[id], static_cast<int>(sum.Sum(id))};
      }
    }
    return;
  }
  // Per constraint, a run of sums indexed by value id; -1 while no node of the value counts.
  m.offsets.resize(k + 1);
  m.offsets[0] = 0;
  for (size_t i = 0; i < k; ++i) m.offsets[i + 1] = m.offsets[i] + m.keys[i]->values.size();
  m.sums.assign(m.offsets[k], -1);
  const size_t nodes = memo_.nodes().size();
  for (size_t n = 0; n < nodes; ++n) {
    bool has_all = true;
    for (size_t i = 0; i < k && has_all; ++i) has_all = m.keys[i]->at[n] >= 0;
    if (!has_all) continue;
    for (size_t i = 0; i < k; ++i) {
      if (m.included[i] != nullptr && !m.included[i]->at[n]) continue;
      int64_t& sum = m.sums[m.offsets[i] + static_cast<size_t>(m.keys[i]->at[n])];
      sum = std::max<int64_t>(sum, 0) + m.counts[i]->at[n];
    }
  }
  s.by_id.resize(k);
  for (size_t i = 0; i < k; ++i) {
    s.by_id[i].assign(m.keys[i]->values.size(), -1);
    CriticalPaths& paths = s.critical_paths[i];
    for (size_t id = 0; id < m.keys[i]->values.size(); ++id) {
      const int64_t sum = m.sums[m.offsets[i] + id];
      if (sum < 0) continue;
      s.by_id[i][id] = static_cast<int>(sum);
      ++s.domains[i];
      // Every value comes once, so Update can only change the paths when it beats one of them.
      if (sum < paths.paths[1].match_num)
        paths.Update(m.keys[i]->values[id], static_cast<int>(sum));
    }
  }
}

bool PodTopologySpread::CountForScore(const api::Pod& pod,
                                      const std::vector<const framework::NodeInfo*>& feasible,
                                      bool require_all,
                                      const helper::RequiredNodeAffinity& required,
                                      PreScoreState& s) {
  const std::vector<Constraint>& cs = s.constraints;
  AcquireColumns(pod, cs, required);
  MemoScratch& m = scratch_;
  const size_t k = cs.size();
  // Hostname counts are taken per node in Score, from the count column.
  auto counted = [&](size_t i) { return cs[i].topology_key != kLabelHostname; };
  // Slot 0 of a constraint is the domain "" (a node without the key, or with an empty value, as
  // a Go map read gives); slot id + 1 is value id.
  m.offsets.resize(k + 1);
  m.offsets[0] = 0;
  m.empty_ids.resize(k);
  for (size_t i = 0; i < k; ++i) {
    m.offsets[i + 1] = m.offsets[i] + (counted(i) ? m.keys[i]->values.size() + 1 : 0);
    auto it = m.keys[i]->ids.find(std::string_view());
    m.empty_ids[i] = it == m.keys[i]->ids.end() ? -1 : it->second;
  }
  auto slot = [&](size_t i, size_t n) -> size_t {
    const int32_t id = m.keys[i]->at[n];
    return m.offsets[i] + (id < 0 || id == m.empty_ids[i] ? 0 : static_cast<size_t>(id) + 1);
  };
  auto has_all = [&](size_t n) {
    for (size_t i = 0; i < k; ++i) {
      if (m.keys[i]->at[n] < 0) return false;
    }
    return true;
  };
  // The domains of the feasible nodes; only their pods are counted.
  m.sums.assign(m.offsets[k], -1);
  for (const framework::NodeInfo* info : feasible) {
    const int32_t pos = memo_.Position(info);
    if (pos < 0) return false;
    const size_t n = static_cast<size_t>(pos);
    if (require_all && !has_all(n)) {
      s.ignored_nodes.insert(info->node()->metadata.name);
      continue;
    }
    for (size_t i = 0; i < k; ++i) {
      if (counted(i)) m.sums[slot(i, n)] = 0;
    }
  }
  if (!require_all || k == 1 || EveryNodeHasEveryKey(m.keys)) {
    // The memo's sums, slot by slot: the domain "" gathers the nodes whose value is empty and,
    // unless every key is required, those without the key.
    for (size_t i = 0; i < k; ++i) {
      if (!counted(i)) continue;
      const SpreadMemo::SumColumn& sum = memo_.Sums(*m.keys[i], *m.counts[i], m.included[i]);
      int64_t* sums = m.sums.data() + m.offsets[i];
      if (sums[0] >= 0) {
        sums[0] += (m.empty_ids[i] >= 0 ? sum.Sum(static_cast<size_t>(m.empty_ids[i])) : 0) +
                   (require_all ? 0 : sum.missing);
      }
      for (size_t id = 0; id < m.keys[i]->values.size(); ++id) {
        if (sums[id + 1] >= 0 && static_cast<int32_t>(id) != m.empty_ids[i]) {
          sums[id + 1] += sum.Sum(id);
        }
      }
    }
  } else {
    bool any_counted = false;
    for (size_t i = 0; i < k; ++i) any_counted = any_counted || counted(i);
    const size_t nodes = any_counted ? memo_.nodes().size() : 0;
    for (size_t n = 0; n < nodes; ++n) {
      if (memo_.nodes()[n]->node() == nullptr || (require_all && !has_all(n))) continue;
      for (size_t i = 0; i < k; ++i) {
        if (!counted(i) || (m.included[i] != nullptr && !m.included[i]->at[n])) continue;
        int64_t& sum = m.sums[slot(i, n)];
        if (sum >= 0) sum += m.counts[i]->at[n];
      }
    }
  }
  s.view = MemoView{&memo_, memo_.epoch(), m.keys};
  s.node_counts = m.counts;
  s.empty_ids = m.empty_ids;
  s.by_slot.resize(k);
  for (size_t i = 0; i < k; ++i) {
    if (!counted(i)) continue;
    s.by_slot[i].assign(m.sums.begin() + static_cast<std::ptrdiff_t>(m.offsets[i]),
                        m.sums.begin() + static_cast<std::ptrdiff_t>(m.offsets[i + 1]));
    for (size_t x = 0; x < s.by_slot[i].size(); ++x) {
      const int64_t sum = s.by_slot[i][x];
      if (sum < 0) continue;
      static const std::string kEmpty;
      s.counts[i][x == 0 ? kEmpty : m.keys[i]->values[x - 1]] += sum;
    }
  }
  return true;
}

}  // namespace stowage::plugins::pod_topology_spread
