#include "pkg/plugins/default_preemption/default_preemption.h"

#include <string>

#include "pkg/common/logging.h"
#include "pkg/framework/preemption_dry_run.h"
#include "pkg/plugins/default_preemption/candidates.h"
#include "pkg/plugins/default_preemption/extenders.h"
#include "pkg/plugins/default_preemption/pdb.h"

namespace stowage::plugins::default_preemption {

using framework::Code;
using framework::NominatingInfo;
using framework::Status;

namespace {

// Upstream's PodTerminatingByPreemption: being deleted, with the condition preemption sets.
bool TerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletion_timestamp) return false;
  for (const auto& c : pod.status.conditions) {
    if (c.type == "DisruptionTarget") {
      return c.status == "True" && c.reason == "PreemptionByScheduler";
    }
  }
  return false;
}

// The status the Filter phase gave node; absent nodes count as UnschedulableAndUnresolvable,
// as upstream's NodeToStatus default.
Status StatusOf(const framework::NodeToStatus& filtered, const std::string& node) {
  for (const auto& [name, s] : filtered) {
    if (name == node) return s;
  }
  return Status(Code::kUnschedulableAndUnresolvable);
}

NominatingInfo ClearNomination() { return {NominatingInfo::Mode::kOverride, ""}; }

}  // namespace

DefaultPreemption::DefaultPreemption(const config::DefaultPreemptionArgs& args,
                                     framework::Handle& handle, bool async)
    : handle_(handle),
      pdbs_(handle.pod_disruption_budgets()),
      min_candidate_nodes_percentage_(args.min_candidate_nodes_percentage.value_or(10)),
      min_candidate_nodes_absolute_(args.min_candidate_nodes_absolute.value_or(100)),
      async_(async),
      executor_(handle, async) {}

bool DefaultPreemption::PodEligibleToPreemptOthers(const api::Pod& pod,
                                                   const Status& nominated_status,
                                                   std::string& reason) const {
  if (pod.spec.preemption_policy == "Never") {
    reason = "not eligible due to preemptionPolicy=Never.";
    return false;
  }
  const std::string& nominated = pod.status.nominated_node_name;
  if (nominated.empty()) return true;
  // A nominated node the Filters now rule out for good deserves a new preemption elsewhere.
  if (nominated_status.code() == Code::kUnschedulableAndUnresolvable) return true;
  if (const framework::NodeInfo* node = handle_.SnapshotSharedLister().Get(nominated)) {
    const int32_t priority = PodPriority(pod);
    for (const auto& p : node->pods()) {
      if (PodPriority(*p->pod) < priority && TerminatingByPreemption(*p->pod)) {
        reason = "not eligible due to a terminating pod on the nominated node.";
        return false;
      }
    }
  }
  return true;
}

Status DefaultPreemption::PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                     const framework::NodeToStatus& filtered,
                                     framework::PluginsRunner& runner, NominatingInfo& result) {
  Status s = Preempt(state, pod, filtered, runner, result);
  handle_.preemption_metrics().Attempt();
  const std::string msg = s.Message();
  if (msg.empty()) return s;
  return Status(s.code(), "preemption: " + msg);
}

Status DefaultPreemption::Preempt(framework::CycleState& state, const framework::PodInfo& pod_info,
                                  const framework::NodeToStatus& filtered,
                                  framework::PluginsRunner& runner, NominatingInfo& result) {
  // As upstream, the preemptor as the informer holds it now (its nomination may have changed).
  framework::PodInfoPtr latest;
  const framework::PodInfo* preemptor = &pod_info;
  if (auto now = handle_.pods().Get(pod_info->metadata.namespace_, pod_info->metadata.name);
      now && now->metadata.uid == pod_info->metadata.uid && now != pod_info.pod) {
    latest = framework::NewPodInfo(now);
    preemptor = latest.get();
  }
  const api::Pod& pod = *preemptor->pod;
  std::string reason;
  if (!PodEligibleToPreemptOthers(pod, StatusOf(filtered, pod.status.nominated_node_name),
                                  reason)) {
    VLOG(5, "Pod is not eligible for preemption pod=\"{}\" reason=\"{}\"",
         api::NamespacedName(pod.metadata), reason);
    return Status::Unschedulable(std::move(reason));
  }
  const auto& all = handle_.SnapshotSharedLister().List();
  if (all.empty()) return Status::Error("no nodes available");
  // Only nodes a victim's eviction could help: those the Filters found Unschedulable.
  std::vector<const framework::NodeInfo*> potential;
  for (const auto* n : all) {
    if (StatusOf(filtered, n->name()).code() == Code::kUnschedulable) potential.push_back(n);
  }
  DryRunResult dry;
  if (!potential.empty()) {
    const auto n = static_cast<int32_t>(potential.size());
    const size_t offset = offset_ ? offset_(potential.size()) % potential.size()
                                  : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
    const int32_t want =
        NumCandidates(n, min_candidate_nodes_percentage_, min_candidate_nodes_absolute_);
    std::vector<CompiledPdb> pdbs = CompilePdbs(pdbs_.List());
    dry = DryRunPreemption(handle_.parallelizer(), runner, state, *preemptor, potential, pdbs,
                           offset, static_cast<size_t>(want));
    if (!dry.error.IsSuccess() && dry.candidates.empty()) return Status::Error(dry.error.Message());
  } else {
    VLOG(3, "Preemption will not help schedule pod on any node pod=\"{}\"",
         api::NamespacedName(pod.metadata));
  }
  if (dry.candidates.empty()) {
    VLOG(2, "No preemption candidate is found; preemption is not helpful for scheduling pod=\"{}\"",
         api::NamespacedName(pod.metadata));
    // Nodes the dry run did not try are those preemption cannot help.
    framework::NodeToStatus statuses = std::move(dry.statuses);
    const size_t tried = statuses.size();
    for (const auto* n : all) {
      bool seen = false;
      for (size_t i = 0; i < tried && !seen; ++i) seen = statuses[i].first == n->name();
      if (!seen) {
        statuses.emplace_back(n->name(),
                              Status::Unresolvable("Preemption is not helpful for scheduling"));
      }
    }
    result = ClearNomination();
    return Status::Unschedulable(
        framework::FitErrorMessage(static_cast<int>(all.size()), statuses, "", ""));
  }
  // The extenders with a preempt verb may drop candidates or victims (upstream's callExtenders).
  if (Status es =
          CallExtenders(handle_.extenders(), pod, handle_.SnapshotSharedLister(), dry.candidates);
      !es.IsSuccess()) {
    return es;
  }
  const Candidate* best = SelectCandidate(dry.candidates);
  if (best == nullptr || best->node.empty()) {
    return Status::Unschedulable("no candidate node for preemption");
  }
  VLOG(2, "the target node for the preemption is determined node=\"{}\" pod=\"{}\"", best->node,
       api::NamespacedName(pod.metadata));
  const std::string found = "found a potential placement for pod on node " + best->node +
                            ", preempting " + std::to_string(best->victims.pods.size()) +
                            " victims";
  if (auto* explain =
          state.ReadMutable<framework::PreemptionDryRun>(framework::kPreemptionDryRunKey)) {
    // `stowage explain`: what would be evicted, with nothing evicted and no one nominated.
    for (const Candidate& c : dry.candidates) {
      auto& out = explain->candidates.emplace_back();
      out.node = c.node;
      out.pdb_violations = c.victims.num_pdb_violations;
      for (const auto& v : c.victims.pods)
        out.victims.push_back(api::NamespacedName(v->pod->metadata));
    }
    explain->chosen = best->node;
    return Status(Code::kSuccess, found);
  }
  if (Status s = executor_.Actuate(*best, preemptor->pod); !s.IsSuccess()) return s;
  result = {NominatingInfo::Mode::kOverride, best->node};
  return Status(Code::kSuccess, found);
}

Status DefaultPreemption::PreEnqueue(const api::Pod& pod) {
  if (!async_) return {};
  if (executor_.IsPodRunningPreemption(pod.metadata.uid)) {
    return Status::Unresolvable("waiting for the preemption for this pod to be finished");
  }
  return {};
}

std::vector<framework::ClusterEventWithHint> DefaultPreemption::EventsToRegister() const {
  if (!async_) return {};
  return {{framework::kEventAssignedPodDelete,
           [](const api::Pod&, const framework::EventObject&, const framework::EventObject&) {
             return framework::QueueingHint::kSkip;
           }}};
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const config::DefaultPreemptionArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DefaultPreemption>(args, handle, features.scheduler_async_preemption));
}

}  // namespace stowage::plugins::default_preemption
