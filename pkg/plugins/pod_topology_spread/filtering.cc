// PreFilter, its AddPod/RemovePod extensions and Filter: the DoNotSchedule constraints.
#include <algorithm>
#include <string>
#include <utility>

#include "pkg/plugins/pod_topology_spread/plugin.h"
#include "stowage/plugins/helper/resize.h"

namespace stowage::plugins::pod_topology_spread {
namespace {

// Cannot happen while a cycle's state is used within that cycle, as the scheduler does: the
// memo only changes at the next cycle's PreFilter or PreScore.
constexpr std::string_view kErrCountsGone =
    "PodTopologySpread: the spread counts of this cycle are no longer available";

// Adds delta to the count of domain value, creating it if absent; returns the new count.
int AddToDomain(DomainCounts& counts, const std::string& value, int delta) {
  auto it = counts.find(value);
  if (it == counts.end()) it = counts.emplace(value, 0).first;
  return it->second += delta;
}

}  // namespace

bool IsSnapshotList(const framework::NodeInfoLister& lister,
                    const std::vector<const framework::NodeInfo*>& nodes) {
  const std::vector<const framework::NodeInfo*>& list = lister.List();
  return nodes.data() == list.data() && nodes.size() == list.size();
}

void PodTopologySpread::CountFromScratch(const api::Pod& pod,
                                         const std::vector<Constraint>& constraints,
                                         const helper::RequiredNodeAffinity& required,
                                         const std::vector<const framework::NodeInfo*>& nodes,
                                         std::vector<DomainCounts>& counts) const {
  const size_t k = constraints.size();
  // Per node and constraint, the node's topology value (looked up once, here) and its matching
  // pods, or -1 where the node is not a domain member; filled in parallel, summed per domain
  // afterwards.
  std::vector<const std::string*> values(nodes.size() * k, nullptr);
  std::vector<int> per_node(nodes.size() * k, -1);
  handle_.parallelizer().Until(nodes.size(), [&](size_t n) {
    const api::Node* node = nodes[n]->node();
    if (node == nullptr) return;
    const std::string** node_values = &values[n * k];
    if (!LookUpTopologyValues(node->metadata.labels, constraints, node_values)) return;
    for (size_t i = 0; i < k; ++i) {
      if (!MatchesInclusionPolicies(constraints[i], pod, *node, required,
                                    enable_comparison_operators_)) {
        continue;
      }
      per_node[n * k + i] =
          CountMatchingPods(nodes[n]->pods(), constraints[i].selector, pod.metadata.namespace_);
    }
  });
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t i = 0; i < k; ++i) {
      const int count = per_node[n * k + i];
      if (count >= 0) AddToDomain(counts[i], *values[n * k + i], count);
    }
  }
}

void CriticalPaths::Update(const std::string& value, int num) {
  int i = -1;
  if (value == paths[0].value) {
    i = 0;
  } else if (value == paths[1].value) {
    i = 1;
  }
  if (i >= 0) {
    paths[i].match_num = num;
    if (paths[0].match_num > paths[1].match_num) std::swap(paths[0], paths[1]);
  } else if (num < paths[0].match_num) {
    paths[1] = std::move(paths[0]);
    paths[0] = {value, num};
  } else if (num < paths[1].match_num) {
    paths[1] = {value, num};
  }
}

int PreFilterState::MinMatchNum(size_t i) const {
  // Fewer eligible domains than minDomains: the global minimum counts as 0.
  const size_t n = counts_in_view ? domains[i] : counts[i].size();
  if (n < static_cast<size_t>((*constraints)[i].min_domains)) return 0;
  return critical_paths[i].paths[0].match_num;
}

bool PreFilterState::CountOf(size_t i, const std::string& value, int& count) const {
  count = 0;
  if (!counts_in_view) {
    const auto it = counts[i].find(value);
    if (it != counts[i].end()) count = it->second;
    return true;
  }
  if (view.memo == nullptr || view.memo->epoch() != view.epoch) return false;
  const auto id = view.keys[i]->ids.find(value);
  if (id != view.keys[i]->ids.end()) count = CountById(i, static_cast<size_t>(id->second));
  return true;
}

bool PreFilterState::MaterializeCounts() {
  if (!counts_in_view) return true;
  if (view.memo == nullptr || view.memo->epoch() != view.epoch) return false;
  for (size_t i = 0; i < counts.size(); ++i) {
    counts[i].clear();
    const std::vector<std::string>& values = view.keys[i]->values;
    for (size_t id = 0; id < values.size(); ++id) {
      const bool domain =
          sums.empty() ? id < by_id[i].size() && by_id[i][id] >= 0 : sums[i]->Held(id);
      if (domain) counts[i].emplace(values[id], CountById(i, id));
    }
  }
  counts_in_view = false;
  return true;
}

DomainCounts PreFilterState::CountsForTest(size_t i) const {
  PreFilterState copy = *this;
  if (!copy.MaterializeCounts()) return {};
  return copy.counts[i];
}

framework::Status PodTopologySpread::PreFilter(framework::CycleState& state,
                                               const framework::PodInfo& pod_info,
                                               const std::vector<const framework::NodeInfo*>& nodes,
                                               framework::PreFilterResult& /*result*/) {
  const api::Pod& pod = *pod_info;
  if (helper::IsDeferredResize(enable_resize_deferral_, pod)) return framework::Status::Skip();
  StatusOr<std::vector<Constraint>> compiled = GetConstraints(pod, kDoNotSchedule);
  if (!compiled.ok()) {
    return framework::Status::Error("get constraints from pod: " +
                                    std::string(compiled.status().message()));
  }
  if (compiled->empty()) return framework::Status::Skip();

  auto s = std::make_unique<PreFilterState>();
  s->constraints = std::make_shared<const std::vector<Constraint>>(std::move(compiled).value());
  const std::vector<Constraint>& constraints = *s->constraints;
  const size_t k = constraints.size();

  s->counts.resize(k);
  s->critical_paths.resize(k);
  s->self_match.resize(k);
  for (size_t i = 0; i < k; ++i) {
    s->self_match[i] = constraints[i].selector.Matches(pod.metadata.labels) ? 1 : 0;
  }
  const auto required = helper::RequiredNodeAffinity::FromPod(pod);
  if (use_memo_ && IsSnapshotList(handle_.SnapshotSharedLister(), nodes)) {
    CountForFilter(pod, constraints, required, *s);
  } else {
    CountFromScratch(pod, constraints, required, nodes, s->counts);
  }
  for (size_t i = 0; i < k; ++i) {
    for (const auto& [value, num] : s->counts[i]) s->critical_paths[i].Update(value, num);
  }
  state.Write(kPreFilterStateKey, std::move(s));
  return {};
}

bool PodTopologySpread::UpdateWithPod(PreFilterState& s, const api::Pod& updated,
                                      const api::Pod& preemptor, const api::Node* node,
                                      int delta) const {
  if (node == nullptr || updated.metadata.namespace_ != preemptor.metadata.namespace_) return true;
  const std::vector<Constraint>& constraints = *s.constraints;
  if (!NodeHasAllTopologyKeys(node->metadata.labels, constraints)) return true;
  if (!s.MaterializeCounts()) return false;
  const auto required = helper::RequiredNodeAffinity::FromPod(preemptor);
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    if (!c.selector.Matches(updated.metadata.labels)) continue;
    if (!MatchesInclusionPolicies(c, preemptor, *node, required, enable_comparison_operators_)) {
      continue;
    }
    const std::string& value = *node->metadata.labels.Get(c.topology_key);
    const int count = AddToDomain(s.counts[i], value, delta);
    s.critical_paths[i].Update(value, count);
    // Keep the copy by value id equal, or stop using it (its columns are gone after a Sync; the
    // memo's sums are not this state's to change).
    if (s.view.memo == nullptr) continue;
    if (!s.sums.empty() || s.view.memo->epoch() != s.view.epoch) {
      s.view.memo = nullptr;
      continue;
    }
    const SpreadMemo::KeyColumn& column = *s.view.keys[i];
    auto id = column.ids.find(value);
    if (id == column.ids.end() || static_cast<size_t>(id->second) >= s.by_id[i].size()) {
      s.view.memo = nullptr;
    } else {
      s.by_id[i][static_cast<size_t>(id->second)] = count;
    }
  }
  return true;
}

framework::Status PodTopologySpread::AddPod(framework::CycleState& state,
                                            const api::Pod& pod_to_schedule,
                                            const framework::PodInfo& pod_to_add,
                                            const framework::NodeInfo& node) {
  return UpdateState(state, pod_to_schedule, pod_to_add, node, 1);
}

framework::Status PodTopologySpread::RemovePod(framework::CycleState& state,
                                               const api::Pod& pod_to_schedule,
                                               const framework::PodInfo& pod_to_remove,
                                               const framework::NodeInfo& node) {
  return UpdateState(state, pod_to_schedule, pod_to_remove, node, -1);
}

framework::Status PodTopologySpread::UpdateState(framework::CycleState& state,
                                                 const api::Pod& pod_to_schedule,
                                                 const framework::PodInfo& pod,
                                                 const framework::NodeInfo& node, int delta) {
  auto* s = state.ReadMutable<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return framework::Status::Error(
        "reading \"PreFilterPodTopologySpread\" from cycleState: "
        "not found");
  }
  if (!UpdateWithPod(*s, *pod, pod_to_schedule, node.node(), delta)) {
    return framework::Status::Error(std::string(kErrCountsGone));
  }
  return {};
}

framework::Status PodTopologySpread::Filter(const framework::CycleState& state,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& node_info) {
  if (helper::IsDeferredResize(enable_resize_deferral_, *pod)) return {};
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return framework::Status::Error(
        "reading \"PreFilterPodTopologySpread\" from cycleState: "
        "not found");
  }
  const std::vector<Constraint>& constraints = *s->constraints;
  const int32_t pos = s->view.Position(node_info);
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    int match_num = 0;
    if (pos >= 0) {  // the memo's value id, instead of a label lookup and a hash
      const int32_t id = s->view.keys[i]->at[static_cast<size_t>(pos)];
      if (id < 0) return framework::Status::Unresolvable(std::string(kErrReasonNodeLabelNotMatch));
      match_num = s->CountById(i, static_cast<size_t>(id));
    } else {
      const std::string* value = node->metadata.labels.Get(c.topology_key);
      if (value == nullptr) {
        return framework::Status::Unresolvable(std::string(kErrReasonNodeLabelNotMatch));
      }
      if (!s->CountOf(i, *value, match_num)) {
        return framework::Status::Error(std::string(kErrCountsGone));
      }
    }
    // existing matches + self-match (0 or 1) - global minimum must not exceed maxSkew.
    if (match_num + s->self_match[i] - s->MinMatchNum(i) > c.max_skew) {
      return framework::Status::Unschedulable(std::string(kErrReasonConstraintsNotMatch));
    }
  }
  return {};
}

}  // namespace stowage::plugins::pod_topology_spread
