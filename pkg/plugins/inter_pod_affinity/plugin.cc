#include "pkg/plugins/inter_pod_affinity/plugin.h"

#include <algorithm>
#include <utility>

#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::inter_pod_affinity {
namespace {

// Stands for upstream's nil labels.Set where a namespace selector is matched without labels.
const api::StringMap& NoLabels() {
  static const api::StringMap* empty = new api::StringMap();
  return *empty;
}

}  // namespace

const framework::PodAffinityTerms& IncomingPod::Terms() const {
  static const framework::PodAffinityTerms* empty = new framework::PodAffinityTerms();
  return terms ? *terms : *empty;
}

const api::StringMap& IncomingPod::NamespaceLabels() const {
  return ns ? ns->metadata.labels : NoLabels();
}

bool MatchesAll(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(), [&pod](const framework::AffinityTerm& t) {
    return t.Matches(pod, NoLabels());
  });
}

bool MatchesAny(const std::vector<framework::AffinityTerm>& terms, const api::Pod& pod) {
  return std::any_of(terms.begin(), terms.end(), [&pod](const framework::AffinityTerm& t) {
    return t.Matches(pod, NoLabels());
  });
}

InterPodAffinity::InterPodAffinity(const config::InterPodAffinityArgs& args,
                                   framework::Handle& handle, const framework::Features& features)
    : hard_pod_affinity_weight_(args.hard_pod_affinity_weight.value_or(1)),
      ignore_preferred_terms_of_existing_pods_(args.ignore_preferred_terms_of_existing_pods),
      skip_resize_deferred_(features.in_place_pod_vertical_scaling_scheduler_preemption),
      parallelizer_(handle.parallelizer()),
      snapshot_(handle.SnapshotSharedLister()),
      namespaces_(handle.namespaces()),
      namespace_resolver_(namespaces_),
      rejected_by_affinity_(
          framework::Status::Unresolvable(std::string(kErrReasonAffinityRulesNotMatch))
              .WithPlugin(kName)),
      rejected_by_anti_affinity_(
          framework::Status::Unschedulable(std::string(kErrReasonAntiAffinityRulesNotMatch))
              .WithPlugin(kName)),
      rejected_by_existing_(
          framework::Status::Unschedulable(std::string(kErrReasonExistingAntiAffinityRulesNotMatch))
              .WithPlugin(kName)) {}

std::shared_ptr<const IncomingPod> InterPodAffinity::Incoming(const framework::PodInfo& pod) {
  auto incoming = std::make_shared<IncomingPod>();
  incoming->pod = pod.pod;
  incoming->ns = namespaces_.Get("", pod->metadata.namespace_);
  incoming->terms = namespace_resolver_.Resolve(pod.affinity_terms);
  return incoming;
}

std::vector<framework::ClusterEventWithHint> InterPodAffinity::EventsToRegister() const {
  using framework::EventResource;
  auto pod_hint = [this](const api::Pod& pod, const framework::EventObject& old_obj,
                         const framework::EventObject& new_obj) {
    return IsSchedulableAfterAssignedPodChange(pod, old_obj, new_obj);
  };
  auto node_hint = [this](const api::Pod& pod, const framework::EventObject& old_obj,
                          const framework::EventObject& new_obj) {
    return IsSchedulableAfterNodeChange(pod, old_obj, new_obj);
  };
  // The pod's own new labels may satisfy its affinity as the first pod of its group.
  auto target_hint = [](const api::Pod&, const framework::EventObject&,
                        const framework::EventObject&) { return framework::QueueingHint::kQueue; };
  return {
      {{EventResource::kAssignedPod,
        framework::kAdd | framework::kUpdatePodLabel | framework::kDelete},
       pod_hint},
      {{EventResource::kTargetPod, framework::kUpdatePodLabel}, target_hint},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel}, node_hint},
  };
}

framework::QueueingHint InterPodAffinity::IsSchedulableAfterAssignedPodChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  using framework::QueueingHint;
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs)) return QueueingHint::kQueue;
  auto unscheduled = [](const api::Pod* p) {
    return p != nullptr && p->spec.node_name.empty() && p->status.nominated_node_name.empty();
  };
  if (unscheduled(objs.new_obj) || unscheduled(objs.old_obj)) return QueueingHint::kSkip;

  const framework::PodAffinityTerms terms = framework::CompileAffinityTerms(pod);
  if (!terms.parse_error.empty()) return QueueingHint::kQueue;
  if (objs.new_obj != nullptr && objs.old_obj != nullptr) {
    if (!MatchesAll(terms.required_affinity, *objs.old_obj) &&
        MatchesAll(terms.required_affinity, *objs.new_obj)) {
      return QueueingHint::kQueue;
    }
    if (MatchesAny(terms.required_anti_affinity, *objs.old_obj) &&
        !MatchesAny(terms.required_anti_affinity, *objs.new_obj)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  if (objs.new_obj != nullptr) {
    return MatchesAll(terms.required_affinity, *objs.new_obj) ? QueueingHint::kQueue
                                                              : QueueingHint::kSkip;
  }
  if (objs.old_obj == nullptr) return QueueingHint::kSkip;
  // A deletion: it may lift the pod's anti-affinity, or the deleted pod's against the pod.
  if (MatchesAny(terms.required_anti_affinity, *objs.old_obj)) return QueueingHint::kQueue;
  const framework::PodAffinityTerms deleted = framework::CompileAffinityTerms(*objs.old_obj);
  if (!deleted.parse_error.empty()) return QueueingHint::kQueue;
  return MatchesAny(deleted.required_anti_affinity, pod) ? QueueingHint::kQueue
                                                         : QueueingHint::kSkip;
}

framework::QueueingHint InterPodAffinity::IsSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  using framework::QueueingHint;
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  const framework::PodAffinityTerms terms = framework::CompileAffinityTerms(pod);
  if (!terms.parse_error.empty()) return QueueingHint::kQueue;
  const api::StringMap& now = objs.new_obj->metadata.labels;
  for (const framework::AffinityTerm& t : terms.required_affinity) {
    const std::string* after = now.Get(t.topology_key);
    if (objs.old_obj == nullptr) {
      if (after != nullptr) return QueueingHint::kQueue;
      continue;
    }
    const std::string* before = objs.old_obj->metadata.labels.Get(t.topology_key);
    if (after != nullptr && (before == nullptr || *before != *after)) return QueueingHint::kQueue;
  }
  for (const framework::AffinityTerm& t : terms.required_anti_affinity) {
    if (objs.old_obj == nullptr) return QueueingHint::kQueue;
    const std::string* before = objs.old_obj->metadata.labels.Get(t.topology_key);
    const std::string* after = now.Get(t.topology_key);
    if (before != nullptr && (after == nullptr || *before != *after)) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const config::InterPodAffinityArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<InterPodAffinity>(args, handle, features));
}

}  // namespace stowage::plugins::inter_pod_affinity
