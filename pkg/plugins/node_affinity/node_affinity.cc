#include "pkg/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/node_affinity_matchers.h"
#include "stowage/plugins/helper/normalize_score.h"

namespace stowage::plugins::node_affinity {
namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeAffinity";
constexpr std::string_view kPreScoreStateKey = "PreScoreNodeAffinity";
constexpr std::string_view kNodeNameField = "metadata.name";

// The pod's compiled required constraints; shared, not copied, by clones (it never changes).
// memo: the memo's column for the pod's inputs, when it keeps one.
struct PreFilterState final : framework::StateData {
  std::shared_ptr<const RequiredNodeAffinity> required;
  MatchMemo::Ref memo;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// The pod's compiled preferred terms, or null when it has none.
struct PreScoreState final : framework::StateData {
  std::shared_ptr<const PreferredSchedulingTerms> preferred;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// The pod's preferred terms compiled; null when it has none.
StatusOr<std::shared_ptr<const PreferredSchedulingTerms>> PodPreferred(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity || affinity->node_affinity->preferred.empty()) {
    return std::shared_ptr<const PreferredSchedulingTerms>();
  }
  StatusOr<PreferredSchedulingTerms> terms =
      PreferredSchedulingTerms::Compile(affinity->node_affinity->preferred);
  if (!terms.ok()) return terms.status();
  return std::make_shared<const PreferredSchedulingTerms>(std::move(terms).value());
}

// The node names the required terms pin the pod to: nullopt when some term does not name nodes
// (then every node may match, the terms being ORed).
std::optional<std::set<std::string>> PinnedNodeNames(const api::NodeSelector& required) {
  std::optional<std::set<std::string>> names;
  for (const api::NodeSelectorTerm& term : required.terms) {
    std::optional<std::set<std::string>> term_names;
    for (const api::NodeSelectorRequirement& r : term.match_fields) {
      if (r.key != kNodeNameField || r.op != "In") continue;
      std::set<std::string> values(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(values);
        continue;
      }
      // Requirements within a term are ANDed.
      std::set<std::string> both;
      std::set_intersection(term_names->begin(), term_names->end(), values.begin(), values.end(),
                            std::inserter(both, both.end()));
      term_names = std::move(both);
    }
    if (!term_names) return std::nullopt;
    if (!names) names.emplace();
    names->insert(term_names->begin(), term_names->end());
  }
  return names;
}

}  // namespace

NodeAffinity::NodeAffinity(std::optional<api::NodeSelectorMatcher> added_required,
                           std::optional<PreferredSchedulingTerms> added_preferred,
                           const framework::Handle* handle)
    : added_required_(std::move(added_required)),
      added_preferred_(std::move(added_preferred)),
      handle_(handle) {}

framework::Status NodeAffinity::PreFilter(framework::CycleState& state,
                                          const framework::PodInfo& pod,
                                          const std::vector<const framework::NodeInfo*>& /*nodes*/,
                                          framework::PreFilterResult& result) {
  const api::NodeSelector* required = helper::RequiredNodeSelector(*pod);
  if (required == nullptr && !added_required_ && pod->spec.node_selector.empty()) {
    return framework::Status::Skip();
  }
  auto s = std::make_unique<PreFilterState>();
  s->required = std::make_shared<const RequiredNodeAffinity>(RequiredNodeAffinity::FromPod(*pod));
  std::optional<std::set<std::string>> names;
  if (required != nullptr && !required->terms.empty()) names = PinnedNodeNames(*required);
  // A pod pinned to named nodes looks at those alone, and a DaemonSet's pods each name another
  // node: a column would never be read again.
  if (handle_ != nullptr && !names && !s->required->MatchesAll()) {
    s->memo = memo_.Select(handle_->SnapshotSharedLister(), *pod, required);
  }
  state.Write(kPreFilterStateKey, std::move(s));
  if (!names) return {};
  // Every term names nodes, and their lists have nothing in common within some term each.
  if (names->empty()) return framework::Status::Unresolvable(std::string(kErrReasonConflict));
  result.node_names = std::move(names);
  return {};
}

framework::Status NodeAffinity::Filter(const framework::CycleState& state,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  if (added_required_ && !added_required_->Matches(*node)) {
    return framework::Status::Unresolvable(std::string(kErrReasonEnforced));
  }
  bool matched;
  if (const auto* s = state.Read<PreFilterState>(kPreFilterStateKey)) {
    matched = MatchMemo::Matches(s->memo, node_info, *s->required);
  } else {
    // PreFilter did not run (disabled): compile here. Parse errors are ignored, as upstream.
    matched = RequiredNodeAffinity::FromPod(*pod).Match(*node).matched;
  }
  if (!matched) {
    // One status shared by every node this rejects: copies share its data, and with the plugin
    // already named the framework's WithPlugin changes nothing, so a rejection allocates nothing.
    // Never destroyed, so no worker thread can copy it during exit.
    static const framework::Status* const kRejected = [] {
      auto* s = new framework::Status(framework::Status::Unresolvable(std::string(kErrReasonPod)));
      s->WithPlugin(kName);
      return s;
    }();
    return *kRejected;
  }
  return {};
}

framework::Status NodeAffinity::PreScore(framework::CycleState& state,
                                         const framework::PodInfo& pod,
                                         const std::vector<const framework::NodeInfo*>& /*nodes*/) {
  StatusOr<std::shared_ptr<const PreferredSchedulingTerms>> preferred = PodPreferred(*pod);
  if (!preferred.ok()) return framework::Status::Error(std::string(preferred.status().message()));
  if (*preferred == nullptr && !added_preferred_) return framework::Status::Skip();
  auto s = std::make_unique<PreScoreState>();
  s->preferred = std::move(preferred).value();
  state.Write(kPreScoreStateKey, std::move(s));
  return {};
}

framework::Status NodeAffinity::Score(const framework::CycleState& state,
                                      const framework::PodInfo& pod,
                                      const framework::NodeInfo& node_info, int64_t& score) {
  score = 0;
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  int64_t count = added_preferred_ ? added_preferred_->Score(*node) : 0;
  if (const auto* s = state.Read<PreScoreState>(kPreScoreStateKey)) {
    if (s->preferred) count += s->preferred->Score(*node);
  } else {
    // PreScore did not run (disabled): compile here.
    StatusOr<std::shared_ptr<const PreferredSchedulingTerms>> preferred = PodPreferred(*pod);
    if (!preferred.ok()) {
      return framework::Status::Error(std::string(preferred.status().message()));
    }
    if (*preferred) count += (*preferred)->Score(*node);
  }
  score = count;
  return {};
}

framework::Status NodeAffinity::NormalizeScore(const framework::CycleState& /*state*/,
                                               const framework::PodInfo& /*pod*/,
                                               framework::NodeScoreList& scores) {
  return helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false, scores);
}

std::vector<framework::ClusterEventWithHint> NodeAffinity::EventsToRegister() const {
  // With queueing hints on, an Add or a label change is all that can make a node match.
  return {{{framework::EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel},
           [this](const api::Pod& pod, const framework::EventObject& old_obj,
                  const framework::EventObject& new_obj) {
             return IsSchedulableAfterNodeChange(pod, old_obj, new_obj);
           }}};
}

framework::QueueingHint NodeAffinity::IsSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  using framework::QueueingHint;
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  if (objs.new_obj == nullptr) return QueueingHint::kSkip;
  if (added_required_ && !added_required_->Matches(*objs.new_obj)) return QueueingHint::kSkip;

  const RequiredNodeAffinity required = RequiredNodeAffinity::FromPod(pod);
  const MatchResult now = required.Match(*objs.new_obj);
  if (now.parse_error) return QueueingHint::kQueue;
  if (!now.matched) return QueueingHint::kSkip;
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;  // a new node that matches
  // An update matters only when it turns a non-matching node into a matching one.
  const MatchResult before = required.Match(*objs.old_obj);
  if (before.parse_error) return QueueingHint::kQueue;
  return before.matched ? QueueingHint::kSkip : QueueingHint::kQueue;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const config::NodeAffinityArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& /*features*/) {
  std::optional<api::NodeSelectorMatcher> added_required;
  std::optional<PreferredSchedulingTerms> added_preferred;
  if (args.added_affinity) {
    const api::NodeAffinity& added = *args.added_affinity;
    if (added.required) {
      api::NodeSelectorMatcher matcher = api::NodeSelectorMatcher::Compile(*added.required);
      if (!matcher.error().ok()) {
        return InvalidArgumentError(
            "parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: " +
            std::string(matcher.error().message()));
      }
      added_required = std::move(matcher);
    }
    if (!added.preferred.empty()) {
      StatusOr<PreferredSchedulingTerms> terms = PreferredSchedulingTerms::Compile(added.preferred);
      if (!terms.ok()) {
        return InvalidArgumentError(
            "parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: " +
            std::string(terms.status().message()));
      }
      added_preferred = std::move(terms).value();
    }
  }
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeAffinity>(
      std::move(added_required), std::move(added_preferred), &handle));
}

}  // namespace stowage::plugins::node_affinity
