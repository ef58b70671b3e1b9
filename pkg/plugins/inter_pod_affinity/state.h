// The cycle state of InterPodAffinity: what PreFilter computes for Filter (and AddPod/RemovePod
// update) and what PreScore computes for Score. Exposed so tests can compare an incrementally
// updated state with one recomputed from scratch.
#pragma once

#include <memory>
#include <string_view>

#include "pkg/plugins/inter_pod_affinity/counts_view.h"
#include "stowage/api/types.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::inter_pod_affinity {

inline constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
inline constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

// What the cycle knows about the incoming pod: its terms with each namespaceSelector resolved
// into namespaces (the PodInfo's own terms when none needed it) and its namespace's labels.
// Immutable once built, so clones of the state share it.
struct IncomingPod {
  api::PodPtr pod;
  std::shared_ptr<const framework::PodAffinityTerms> terms;  // null: no terms
  std::shared_ptr<const api::Namespace> ns;                  // null: unknown namespace

  const framework::PodAffinityTerms& Terms() const;
  // The labels of the pod's namespace; empty when the namespace is unknown, as upstream.
  const api::StringMap& NamespaceLabels() const;
};

struct PreFilterState final : framework::StateData {
  // Pairs where existing pods' required anti-affinity terms match the incoming pod.
  CountsView existing_anti_affinity_counts;
  // Pairs where existing pods match all of the incoming pod's required affinity terms (each
  // such pod counts once per term), and where they match each required anti-affinity term.
  CountsView affinity_counts;
  CountsView anti_affinity_counts;
  std::shared_ptr<const IncomingPod> incoming;
  // Whether the incoming pod matches all of its own required affinity terms (the first pod of
  // a group may then go where no pod matches yet).
  bool matches_own_affinity = false;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

struct PreScoreState final : framework::StateData {
  CountsView topology_score;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// Whether pod matches every term; false for no terms (upstream podMatchesAllAffinityTerms).
// Namespace selectors are matched against no labels, as upstream passes nil.
bool MatchesAll(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod);
// Whether pod matches some term, namespace selectors against no labels.
bool MatchesAny(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod);

}  // namespace stowage::plugins::inter_pod_affinity
