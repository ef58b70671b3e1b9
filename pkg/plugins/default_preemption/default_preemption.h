// DefaultPreemption: when no node fits a pod, evicts pods of lower priority from one node so
// that it fits there next time (upstream plugins/defaultpreemption with preemption.Evaluator).
//
// PostFilter: a pod that may preempt (not preemptionPolicy Never; no lower-priority victim of
// an earlier preemption still terminating on its nominated node) tries the nodes the Filters
// found Unschedulable (not Unresolvable), from a random offset, dry-running victim selection on
// each (victims.h) until minCandidateNodesPercentage / minCandidateNodesAbsolute candidates are
// found (candidates.h); the best candidate's victims are preempted (executor.h) and the node is
// returned as the pod's nomination. The status message starts "preemption: ", as upstream's.
//
// PreEnqueue holds a pod whose asynchronous preemption is still under way ("waiting for the
// preemption for this pod to be finished"); a deleted assigned pod re-evaluates it (the hint
// itself says Skip, leaving the decision to the pod's other rejecting plugins, as upstream).
//
// PostFilter runs on the scheduling thread only; PreEnqueue on the queue's callers. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/common/random.h"
#include "pkg/plugins/default_preemption/executor.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::default_preemption {

inline constexpr std::string_view kName = "DefaultPreemption";

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::PreEnqueuePlugin,
                                public framework::EnqueueExtensions {
 public:
  DefaultPreemption(const config::DefaultPreemptionArgs& args, framework::Handle& handle,
                    bool async);

  std::string_view Name() const override { return kName; }
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& filtered,
                               framework::PluginsRunner& runner,
                               framework::NominatingInfo& result) override;
  framework::Status PreEnqueue(const api::Pod& pod) override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // Whether pod may preempt at all; the reason when not (upstream PodEligibleToPreemptOthers).
  // nominated_status is the Filter status of the pod's nominated node.
  bool PodEligibleToPreemptOthers(const api::Pod& pod, const framework::Status& nominated_status,
                                  std::string& reason) const;

  // Replaces the random offset of the candidate search (tests): called with the number of
  // potential nodes, returns the index to start from.
  void SetOffsetForTest(std::function<size_t(size_t)> offset) { offset_ = std::move(offset); }

 private:
  // The preemption itself, without the "preemption: " prefix (upstream Evaluator.Preempt).
  framework::Status Preempt(framework::CycleState& state, const framework::PodInfo& pod,
                            const framework::NodeToStatus& filtered,
                            framework::PluginsRunner& runner, framework::NominatingInfo& result);

  framework::Handle& handle_;
  // Asked for in the constructor so the scheduler lists and watches PDBs from the start.
  const framework::Lister<api::PodDisruptionBudget>& pdbs_;
  const int32_t min_candidate_nodes_percentage_;
  const int32_t min_candidate_nodes_absolute_;
  const bool async_;
  Executor executor_;
  std::mt19937_64 rng_{RandomSeed()};  // scheduling thread only
  std::function<size_t(size_t)> offset_;
};
static_assert(std::is_base_of_v<framework::PostFilterPlugin, DefaultPreemption>);
static_assert(std::is_base_of_v<framework::PreEnqueuePlugin, DefaultPreemption>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, DefaultPreemption>);

// Args arrive defaulted and validated.
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::DefaultPreemptionArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::default_preemption
