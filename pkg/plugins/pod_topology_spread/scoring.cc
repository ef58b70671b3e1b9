// PreScore, Score and NormalizeScore: the ScheduleAnyway constraints and the system defaults.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "pkg/plugins/pod_topology_spread/plugin.h"

namespace stowage::plugins::pod_topology_spread {
namespace {

// Marks ignored nodes between the two passes of NormalizeScore (real scores are never negative).
constexpr int64_t kInvalidScore = -1;

// The topology value a node counts under: "" when it lacks the key, as a Go map read gives
// (possible only with the system defaults, which do not require every key).
const std::string& ValueOf(const api::Node& node, const std::string& key) {
  static const std::string kEmpty;
  const std::string* value = node.metadata.labels.Get(key);
  return value != nullptr ? *value : kEmpty;
}

framework::Status MissingPreScoreState() {
  return framework::Status::Error(
      "error reading \"PreScorePodTopologySpread\" from cycleState: not found");
}

}  // namespace

framework::Status PodTopologySpread::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<const framework::NodeInfo*>& nodes) {
  const api::Pod& pod = *pod_info;
  const std::vector<const framework::NodeInfo*>& all = handle_.SnapshotSharedLister().List();
  if (all.empty()) return framework::Status::Skip();
  StatusOr<std::vector<Constraint>> compiled = GetConstraints(pod, kScheduleAnyway);
  if (!compiled.ok()) {
    return framework::Status::Error("calculating preScoreState: " +
                                    std::string(compiled.status().message()));
  }
  if (compiled->empty()) return framework::Status::Skip();

  auto s = std::make_unique<PreScoreState>();
  s->constraints = std::move(compiled).value();
  const std::vector<Constraint>& constraints = s->constraints;
  const size_t k = constraints.size();
  // Only the pod's own constraints (or configured defaults) need every key on a node: a node
  // without a zone label still gets hostname spreading from the system defaults.
  const bool require_all = !pod.spec.topology_spread_constraints.empty() || !system_defaulted_;

  s->counts.resize(k);
  const auto required = helper::RequiredNodeAffinity::FromPod(pod);
  if (!use_memo_ || !CountForScore(pod, nodes, require_all, required, *s)) {
    s->ignored_nodes.clear();
    s->counts.assign(k, {});
    ScoreCountsFromScratch(pod, nodes, require_all, required, *s);
  }
  s->weights.resize(k);
  for (size_t i = 0; i < k; ++i) {
    const size_t size = constraints[i].topology_key == kLabelHostname
                            ? nodes.size() - s->ignored_nodes.size()
                            : s->counts[i].size();
    s->weights[i] = std::log(static_cast<double>(size + 2));
  }
  state.Write(kPreScoreStateKey, std::move(s));
  return {};
}

void PodTopologySpread::ScoreCountsFromScratch(const api::Pod& pod,
                                               const std::vector<const framework::NodeInfo*>& nodes,
                                               bool require_all,
                                               const helper::RequiredNodeAffinity& required,
                                               PreScoreState& state) const {
  const std::vector<const framework::NodeInfo*>& all = handle_.SnapshotSharedLister().List();
  PreScoreState* s = &state;
  const std::vector<Constraint>& constraints = s->constraints;
  const size_t k = constraints.size();
  // The domains of the feasible nodes; only their pods are counted below.
  for (const framework::NodeInfo* info : nodes) {
    const api::Node& node = *info->node();
    if (require_all && !NodeHasAllTopologyKeys(node.metadata.labels, constraints)) {
      s->ignored_nodes.insert(node.metadata.name);
      continue;
    }
    for (size_t i = 0; i < k; ++i) {
      // Hostname counts are taken per node in Score.
      if (constraints[i].topology_key == kLabelHostname) continue;
      s->counts[i].try_emplace(ValueOf(node, constraints[i].topology_key), 0);
    }
  }

  // The constraints counted over all nodes: hostname counts are taken per node in Score, so a
  // pod whose only constraints are on hostname needs no pass over the cluster here.
  std::vector<size_t> counted;
  for (size_t i = 0; i < k; ++i) {
    if (constraints[i].topology_key != kLabelHostname) counted.push_back(i);
  }
  if (counted.empty()) return;
  // Per node and counted constraint, its domain's counter (nullptr: not counted) and its
  // matching pods, filled in parallel and summed afterwards. The counters' map is only read in
  // the parallel pass: domains without a feasible node do not matter.
  const size_t m = counted.size();
  std::vector<int64_t*> slots(all.size() * m, nullptr);
  std::vector<int> per_node(all.size() * m, 0);
  handle_.parallelizer().Until(all.size(), [&](size_t n) {
    const api::Node* node = all[n]->node();
    if (node == nullptr) return;
    if (require_all && !NodeHasAllTopologyKeys(node->metadata.labels, constraints)) return;
    for (size_t j = 0; j < m; ++j) {
      const size_t i = counted[j];
      const Constraint& c = constraints[i];
      if (!MatchesInclusionPolicies(c, pod, *node, required, enable_comparison_operators_)) {
        continue;
      }
      auto it = s->counts[i].find(ValueOf(*node, c.topology_key));
      if (it == s->counts[i].end()) continue;
      slots[n * m + j] = &it->second;
      per_node[n * m + j] = CountMatchingPods(all[n]->pods(), c.selector, pod.metadata.namespace_);
    }
  });
  for (size_t x = 0; x < slots.size(); ++x) {
    if (slots[x] != nullptr) *slots[x] += per_node[x];
  }
}

framework::Status PodTopologySpread::Score(const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node_info, int64_t& score) {
  score = 0;
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return MissingPreScoreState();
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  if (s->Ignored(node->metadata.name)) return {};

  // Each constraint credits the node with the matching pods of its domain, weighted.
  const int32_t pos = s->view.Position(node_info);
  double sum = 0;
  for (size_t i = 0; i < s->constraints.size(); ++i) {
    const Constraint& c = s->constraints[i];
    int64_t count = 0;
    if (pos >= 0) {  // by the memo's value id and per-node count, without label lookups
      const size_t n = static_cast<size_t>(pos);
      const int32_t id = s->view.keys[i]->at[n];
      if (id < 0) continue;
      if (c.topology_key == kLabelHostname) {
        count = s->node_counts[i]->at[n];
      } else {
        const size_t slot = id == s->empty_ids[i] ? 0 : static_cast<size_t>(id) + 1;
        count = std::max<int64_t>(s->by_slot[i][slot], 0);
      }
    } else {
      const std::string* value = node->metadata.labels.Get(c.topology_key);
      if (value == nullptr) continue;
      if (c.topology_key == kLabelHostname) {
        count = CountMatchingPods(node_info.pods(), c.selector, pod->metadata.namespace_);
      } else if (auto it = s->counts[i].find(*value); it != s->counts[i].end()) {
        count = it->second;
      }
    }
    // maxSkew - 1 waters down the differences between domains, tolerating that much skew.
    sum += static_cast<double>(count) * s->weights[i] + static_cast<double>(c.max_skew - 1);
  }
  score = static_cast<int64_t>(std::round(sum));
  return {};
}

framework::Status PodTopologySpread::NormalizeScore(const framework::CycleState& state,
                                                    const framework::PodInfo& /*pod*/,
                                                    framework::NodeScoreList& scores) {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return MissingPreScoreState();
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (framework::NodeScore& ns : scores) {
    if (s->Ignored(ns.name)) {
      ns.score = kInvalidScore;
      continue;
    }
    min_score = std::min(min_score, ns.score);
    max_score = std::max(max_score, ns.score);
  }
  // Fewer matching pods is better: the emptiest domain scores highest.
  for (framework::NodeScore& ns : scores) {
    if (ns.score == kInvalidScore) {
      ns.score = 0;
    } else if (max_score == 0) {
      ns.score = framework::kMaxNodeScore;
    } else {
      ns.score = framework::kMaxNodeScore * (max_score + min_score - ns.score) / max_score;
    }
  }
  return {};
}

}  // namespace stowage::plugins::pod_topology_spread
