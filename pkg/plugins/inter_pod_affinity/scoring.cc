// PreScore, Score and NormalizeScore (upstream scoring.go).
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/plugin.h"
#include "pkg/plugins/inter_pod_affinity/query_key.h"

namespace stowage::plugins::inter_pod_affinity {
namespace {

bool HasPreferredTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a) return false;
  return (a->pod_affinity && !a->pod_affinity->preferred.empty()) ||
         (a->pod_anti_affinity && !a->pod_anti_affinity->preferred.empty());
}

// The score contributions of one node by topology key (its value is the node's label).
class NodeScores {
 public:
  NodeScores(const api::StringMap& labels, TopologyCounts::NodeRecords& out)
      : labels_(labels), out_(out) {}

  // Adds weight when pod matches term and the node has the term's topology key.
  void Process(const framework::AffinityTerm& term, int64_t weight, const api::Pod& pod,
               const api::StringMap& ns_labels) {
    if (!term.Matches(pod, ns_labels)) return;
    const std::string* value = labels_.Get(term.topology_key);
    if (value == nullptr) return;
    out_.Add(term.topology_key, *value, weight);
  }

 private:
  const api::StringMap& labels_;
  TopologyCounts::NodeRecords& out_;
};

framework::Status MissingState() {
  return framework::Status::Error("failed to read \"" + std::string(kPreScoreStateKey) +
                                  "\" from cycleState: not found");
}

}  // namespace

framework::Status InterPodAffinity::PreScore(
    framework::CycleState& cycle_state, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& /*nodes*/) {
  const bool has_constraints = HasPreferredTerms(*pod);
  if (ignore_preferred_terms_of_existing_pods_ && !has_constraints) {
    return framework::Status::Skip();
  }
  // Without preferred terms of its own, only existing pods with affinity can score the pod.
  const std::vector<const framework::NodeInfo*>& nodes =
      has_constraints ? snapshot_.List() : snapshot_.HavePodsWithAffinityList();
  if (!pod.affinity().parse_error.empty()) {
    return framework::Status::Error("failed to parse pod: " + pod.affinity().parse_error);
  }
  // No node to visit: nothing can match, as upstream's Skip after visiting none.
  if (nodes.empty()) return framework::Status::Skip();
  // PreFilter has resolved the same namespaces this cycle, unless it skipped.
  std::shared_ptr<const IncomingPod> incoming;
  if (const auto* s = cycle_state.Read<PreFilterState>(kPreFilterStateKey)) {
    incoming = s->incoming;
  } else {
    incoming = Incoming(pod);
  }
  const framework::PodAffinityTerms& terms = incoming->Terms();
  const api::StringMap& ns_labels = incoming->NamespaceLabels();
  const api::StringMap no_labels;
  const int64_t hard_weight = hard_pod_affinity_weight_;

  // Besides the node, the sums read the pod's preferred terms and, for the existing pods'
  // terms, the pod's namespace, labels and namespace labels.
  key_.assign(1, 'S');
  key_.push_back(has_constraints ? '1' : '0');
  AppendToKey(key_, terms.preferred_affinity);
  AppendToKey(key_, terms.preferred_anti_affinity);
  AppendToKey(key_, *pod, ns_labels);
  CountsView scores = memo_.Counts(
      key_, snapshot_, parallelizer_,
      [&](const framework::NodeInfo& node_info, TopologyCounts::NodeRecords& out) {
        const api::Node* node = node_info.node();
        if (node == nullptr || node->metadata.labels.empty()) return;
        NodeScores scores(node->metadata.labels, out);
        const auto& pods = has_constraints ? node_info.pods() : node_info.pods_with_affinity();
        for (const framework::PodInfoPtr& existing : pods) {
          for (const auto& t : terms.preferred_affinity) {
            scores.Process(t.term, t.weight, **existing, no_labels);
          }
          for (const auto& t : terms.preferred_anti_affinity) {
            scores.Process(t.term, -int64_t{t.weight}, **existing, no_labels);
          }
          const framework::PodAffinityTerms& theirs = existing->affinity();
          if (hard_weight > 0) {
            for (const auto& t : theirs.required_affinity) {
              scores.Process(t, hard_weight, *pod, ns_labels);
            }
          }
          for (const auto& t : theirs.preferred_affinity) {
            scores.Process(t.term, t.weight, *pod, ns_labels);
          }
          for (const auto& t : theirs.preferred_anti_affinity) {
            scores.Process(t.term, -int64_t{t.weight}, *pod, ns_labels);
          }
        }
      });
  // No term matched anywhere: every node would score the same.
  if (scores.empty()) return framework::Status::Skip();
  auto state = std::make_unique<PreScoreState>();
  state->topology_score = std::move(scores);
  cycle_state.Write(kPreScoreStateKey, std::move(state));
  return {};
}

framework::Status InterPodAffinity::Score(const framework::CycleState& cycle_state,
                                          const framework::PodInfo& /*pod*/,
                                          const framework::NodeInfo& node_info, int64_t& score) {
  score = 0;
  const auto* state = cycle_state.Read<PreScoreState>(kPreScoreStateKey);
  if (state == nullptr) return MissingState();
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  score = state->topology_score.Sum(node_info);
  return {};
}

framework::Status InterPodAffinity::NormalizeScore(const framework::CycleState& cycle_state,
                                                   const framework::PodInfo& /*pod*/,
                                                   framework::NodeScoreList& scores) {
  const auto* state = cycle_state.Read<PreScoreState>(kPreScoreStateKey);
  if (state == nullptr) return MissingState();
  if (state->topology_score.empty()) return {};
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = std::numeric_limits<int64_t>::min();
  for (const framework::NodeScore& s : scores) {
    min_score = std::min(min_score, s.score);
    max_score = std::max(max_score, s.score);
  }
  const int64_t diff = max_score - min_score;
  for (framework::NodeScore& s : scores) {
    double scaled = 0;
    if (diff > 0) {
      scaled = static_cast<double>(framework::kMaxNodeScore) *
               (static_cast<double>(s.score - min_score) / static_cast<double>(diff));
    }
    s.score = static_cast<int64_t>(scaled);
  }
  return {};
}

}  // namespace stowage::plugins::inter_pod_affinity
