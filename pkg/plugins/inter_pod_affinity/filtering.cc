// PreFilter, its AddPod/RemovePod extensions and Filter (upstream filtering.go, without the
// alpha hostname fast path).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/plugin.h"
#include "pkg/plugins/inter_pod_affinity/query_key.h"
#include "stowage/plugins/helper/resize.h"

namespace stowage::plugins::inter_pod_affinity {
namespace {

// Adds count to the node's pair for key, if the node has that label.
void RecordMatch(const api::StringMap& labels, const std::string& key, int64_t count,
                 TopologyCounts::NodeRecords& out) {
  if (const std::string* value = labels.Get(key)) out.Add(key, *value, count);
}

framework::Status MissingState() {
  return framework::Status::Error("error reading \"" + std::string(kPreFilterStateKey) +
                                  "\" from cycleState: not found");
}

}  // namespace

CountsView InterPodAffinity::ExistingAntiAffinityCounts(const IncomingPod& incoming) {
  const api::StringMap& ns_labels = incoming.NamespaceLabels();
  // The existing pods' terms are matched against the pod's namespace, labels and namespace
  // labels, so those name the query.
  key_.assign(1, 'E');
  AppendToKey(key_, *incoming.pod, ns_labels);
  return memo_.Counts(
      key_, snapshot_, parallelizer_,
      [&](const framework::NodeInfo& node, TopologyCounts::NodeRecords& out) {
        if (node.node() == nullptr) return;
        const api::StringMap& labels = node.node()->metadata.labels;
        for (const framework::PodInfoPtr& existing : node.pods_with_required_anti_affinity()) {
          for (const framework::AffinityTerm& t : existing->affinity().required_anti_affinity) {
            if (t.Matches(*incoming.pod, ns_labels)) {
              RecordMatch(labels, t.topology_key, 1, out);
            }
          }
        }
      });
}

void InterPodAffinity::IncomingCounts(const IncomingPod& incoming,
                                      const std::vector<const framework::NodeInfo*>& nodes,
                                      PreFilterState& state) {
  const auto& affinity = incoming.Terms().required_affinity;
  const auto& anti = incoming.Terms().required_anti_affinity;
  // The framework passes the snapshot's list; any other list is counted from scratch.
  const bool whole_snapshot = &nodes == &snapshot_.List();
  auto counts = [&](char kind, const std::vector<framework::AffinityTerm>& terms,
                    const NodeCountsMemo::Compute& compute) {
    if (!whole_snapshot) return NodeCountsMemo::FromScratch(nodes, parallelizer_, compute);
    // Existing pods are matched against the terms alone (namespace selectors already resolved).
    key_.assign(1, kind);
    AppendToKey(key_, terms);
    return memo_.Counts(key_, snapshot_, parallelizer_, compute);
  };
  const api::StringMap no_labels;
  if (!anti.empty()) {
    // A term's pair is looked up once per node, however many of its pods match.
    state.anti_affinity_counts =
        counts('N', anti, [&](const framework::NodeInfo& node, TopologyCounts::NodeRecords& out) {
          if (node.node() == nullptr || node.pods().empty()) return;
          for (const framework::AffinityTerm& t : anti) {
            int64_t n = 0;
            for (const framework::PodInfoPtr& existing : node.pods()) {
              if (t.Matches(**existing, no_labels)) ++n;
            }
            if (n > 0) RecordMatch(node.node()->metadata.labels, t.topology_key, n, out);
          }
        });
  }
  if (!affinity.empty()) {
    // Each pod matching all the terms counts once per term.
    state.affinity_counts = counts(
        'A', affinity, [&](const framework::NodeInfo& node, TopologyCounts::NodeRecords& out) {
          if (node.node() == nullptr || node.pods().empty()) return;
          int64_t matches_all = 0;
          for (const framework::PodInfoPtr& existing : node.pods()) {
            if (MatchesAll(affinity, **existing)) ++matches_all;
          }
          if (matches_all == 0) return;
          for (const framework::AffinityTerm& t : affinity) {
            RecordMatch(node.node()->metadata.labels, t.topology_key, matches_all, out);
          }
        });
  }
}

framework::Status InterPodAffinity::PreFilter(framework::CycleState& cycle_state,
                                              const framework::PodInfo& pod,
                                              const std::vector<const framework::NodeInfo*>& nodes,
                                              framework::PreFilterResult& /*result*/) {
  if (helper::IsDeferredResize(skip_resize_deferred_, *pod)) return framework::Status::Skip();
  if (!pod.affinity().parse_error.empty()) {
    return framework::Status::Unresolvable("parsing pod: " + pod.affinity().parse_error);
  }
  // The common case, no terms on either side, costs no allocation.
  if (pod.affinity_terms == nullptr && snapshot_.HavePodsWithRequiredAntiAffinityList().empty()) {
    return framework::Status::Skip();
  }
  auto state = std::make_unique<PreFilterState>();
  state->incoming = Incoming(pod);
  const framework::PodAffinityTerms& terms = state->incoming->Terms();
  state->existing_anti_affinity_counts = ExistingAntiAffinityCounts(*state->incoming);
  IncomingCounts(*state->incoming, nodes, *state);
  state->matches_own_affinity = MatchesAll(terms.required_affinity, *pod);

  if (state->existing_anti_affinity_counts.empty() && terms.required_affinity.empty() &&
      terms.required_anti_affinity.empty()) {
    return framework::Status::Skip();
  }
  cycle_state.Write(kPreFilterStateKey, std::move(state));
  return {};
}

void InterPodAffinity::UpdateWithPod(PreFilterState& state, const framework::PodInfo& pod,
                                     const framework::NodeInfo& node_info, int64_t multiplier) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return;
  const api::StringMap& labels = node->metadata.labels;
  const IncomingPod& incoming = *state.incoming;
  for (const framework::AffinityTerm& t : pod.affinity().required_anti_affinity) {
    if (t.Matches(*incoming.pod, incoming.NamespaceLabels())) {
      state.existing_anti_affinity_counts.Update(labels, t.topology_key, multiplier);
    }
  }
  const framework::PodAffinityTerms& terms = incoming.Terms();
  if (MatchesAll(terms.required_affinity, *pod)) {
    for (const framework::AffinityTerm& t : terms.required_affinity) {
      state.affinity_counts.Update(labels, t.topology_key, multiplier);
    }
  }
  for (const framework::AffinityTerm& t : terms.required_anti_affinity) {
    if (t.Matches(*pod, api::StringMap())) {
      state.anti_affinity_counts.Update(labels, t.topology_key, multiplier);
    }
  }
}

framework::Status InterPodAffinity::AddPod(framework::CycleState& cycle_state,
                                           const api::Pod& /*pod_to_schedule*/,
                                           const framework::PodInfo& pod_to_add,
                                           const framework::NodeInfo& node) {
  auto* state = cycle_state.ReadMutable<PreFilterState>(kPreFilterStateKey);
  if (state == nullptr) return MissingState();
  UpdateWithPod(*state, pod_to_add, node, 1);
  return {};
}

framework::Status InterPodAffinity::RemovePod(framework::CycleState& cycle_state,
                                              const api::Pod& /*pod_to_schedule*/,
                                              const framework::PodInfo& pod_to_remove,
                                              const framework::NodeInfo& node) {
  auto* state = cycle_state.ReadMutable<PreFilterState>(kPreFilterStateKey);
  if (state == nullptr) return MissingState();
  UpdateWithPod(*state, pod_to_remove, node, -1);
  return {};
}

namespace {

// The node has every affinity topology key, and pods matching the terms in each of its domains;
// or no pod anywhere matches and the pod matches its own terms (the first of its group).
bool SatisfiesAffinity(const PreFilterState& state, NodeRef& node) {
  const auto& terms = state.incoming->Terms().required_affinity;
  bool pods_exist = true;
  for (const framework::AffinityTerm& t : terms) {
    const std::optional<int64_t> n = state.affinity_counts.CountAt(t.topology_key, node);
    if (!n) return false;
    if (*n <= 0) pods_exist = false;
  }
  return pods_exist || (state.affinity_counts.empty() && state.matches_own_affinity);
}

// No domain of the node holds a pod that matches one of the pod's anti-affinity terms.
bool SatisfiesAntiAffinity(const PreFilterState& state, NodeRef& node) {
  if (state.anti_affinity_counts.empty()) return true;
  for (const framework::AffinityTerm& t : state.incoming->Terms().required_anti_affinity) {
    const std::optional<int64_t> n = state.anti_affinity_counts.CountAt(t.topology_key, node);
    if (n && *n > 0) return false;
  }
  return true;
}

}  // namespace

framework::Status InterPodAffinity::Filter(const framework::CycleState& cycle_state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node_info) {
  if (helper::IsDeferredResize(skip_resize_deferred_, *pod)) return {};
  const auto* state = cycle_state.Read<PreFilterState>(kPreFilterStateKey);
  if (state == nullptr) return MissingState();
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  NodeRef ref(node_info);
  // Copies of statuses built once: a rejected node costs no allocation.
  if (!SatisfiesAffinity(*state, ref)) return rejected_by_affinity_;
  if (!SatisfiesAntiAffinity(*state, ref)) return rejected_by_anti_affinity_;
  if (state->existing_anti_affinity_counts.AnyPositive(ref)) return rejected_by_existing_;
  return {};
}

}  // namespace stowage::plugins::inter_pod_affinity
