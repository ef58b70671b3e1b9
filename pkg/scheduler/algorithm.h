// Algorithm: the search half of a scheduling cycle (upstream schedule_one.go schedulePod,
// findNodesThatFitPod, prioritizeNodes, selectHost), separated from the queue, the cache and the
// API so it can be run and measured on a synthetic snapshot (bench/cycle).
//
// One Algorithm serves the single scheduling thread: it keeps the rotating start index and the
// per-cycle scratch buffers, reused so a cycle does not allocate them again. Not thread-safe;
// Filter and Score fan out over the Parallelizer inside one call.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/common/random.h"
#include "pkg/framework/runtime/runtime.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/extender.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"

namespace stowage::scheduler {

struct Explanation;  // explain.h

struct ScheduleResult {
  std::string host;
  int evaluated = 0;
  int feasible = 0;
};

// A failed search: per-node statuses, or a PreFilter rejection applying to all nodes.
struct FitError {
  int num_all_nodes = 0;
  framework::NodeToStatus node_statuses;
  std::string pre_filter_msg;
  std::set<std::string> unschedulable_plugins;
  // Set when PostFilter ran (upstream's Diagnosis.PostFilterMsg and the nomination its result
  // asks for, which failure handling applies).
  std::string post_filter_msg;
  // Cleared unless PostFilter says otherwise (upstream's clearNominatedNode).
  framework::NominatingInfo nominating_info{framework::NominatingInfo::Mode::kOverride, ""};
};

// Pods nominated to each node (node name -> pods), as the queue's nominator reports them.
using NominatedPods = std::unordered_map<std::string, std::vector<framework::PodInfoPtr>>;

// Filters with the pods nominated to the node of equal or higher priority counted on it first,
// then without them: the pod must fit both ways (upstream's RunFilterPluginsWithNominatedPods).
// Thread-safe as RunFilterPlugins is.
framework::Status FilterWithNominatedPods(framework::Framework& fw,
                                          const framework::CycleState& state,
                                          const framework::PodInfo& pod,
                                          const framework::NodeInfo& node,
                                          const NominatedPods& nominated);

// The PluginsRunner PostFilter plugins get in one cycle: the pod's framework and the nominated
// pods the cycle's search saw.
class CyclePluginsRunner final : public framework::PluginsRunner {
 public:
  CyclePluginsRunner(framework::Framework& fw, const NominatedPods& nominated)
      : fw_(fw), nominated_(nominated) {}
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState& state, const api::Pod& pod,
                                                const framework::PodInfo& to_add,
                                                const framework::NodeInfo& node) override {
    return fw_.RunPreFilterExtensionAddPod(state, pod, to_add, node);
  }
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState& state,
                                                   const api::Pod& pod,
                                                   const framework::PodInfo& to_remove,
                                                   const framework::NodeInfo& node) override {
    return fw_.RunPreFilterExtensionRemovePod(state, pod, to_remove, node);
  }
  framework::Status RunFilterPluginsWithNominatedPods(const framework::CycleState& state,
                                                      const framework::PodInfo& pod,
                                                      const framework::NodeInfo& node) override {
    return FilterWithNominatedPods(fw_, state, pod, node, nominated_);
  }

 private:
  framework::Framework& fw_;
  const NominatedPods& nominated_;
};

class Algorithm {
 public:
  // percentage_of_nodes_to_score is the global setting; a profile's own value wins. extenders
  // (which must outlive the Algorithm) filter after the Filter plugins and score beside Score.
  Algorithm(const framework::NodeInfoLister& snapshot, framework::Parallelizer& pool,
            std::optional<int32_t> percentage_of_nodes_to_score,
            std::vector<framework::Extender*> extenders = {});

  // Finds a host for pod on the snapshot as it is now. On a rejection fills fit and returns
  // the rejecting status (with no nodes at all, "no nodes available to schedule pods" and fit
  // stays empty: upstream's ErrNoNodesAvailable); an internal error returns an Error status.
  framework::Status SchedulePod(framework::Framework& fw, framework::CycleState& state,
                                const framework::PodInfo& pod, const NominatedPods& nominated,
                                ScheduleResult& result, FitError& fit);

  // The search of SchedulePod over every node, kept whole for explain (explain.h): no sampling,
  // the start index left as it is, nothing reserved or written. An error status ends it early,
  // in out.error.
  void Explain(framework::Framework& fw, framework::CycleState& state,
               const framework::PodInfo& pod, const NominatedPods& nominated, Explanation& out);

  // For explain, a pod that fits nowhere: PostFilter run as a dry run (preemption_dry_run.h),
  // with the message the scheduler would write.
  void ExplainPreemption(framework::Framework& fw, framework::CycleState& state,
                         const framework::PodInfo& pod, const NominatedPods& nominated,
                         const FitError& fit, const std::string& pre_filter_msg, Explanation& out);

  // How many feasible nodes are enough before scoring (adaptive percentageOfNodesToScore).
  size_t NumFeasibleNodesToFind(const framework::Framework& fw, size_t all) const;

 private:
  framework::Status FindNodesThatFit(framework::Framework& fw, framework::CycleState& state,
                                     const framework::PodInfo& pod, const NominatedPods& nominated,
                                     FitError& fit);
  // Upstream's findNodesThatPassExtenders over feasible_: each interested filter extender in
  // turn narrows it; rejected nodes join fit with the extender's reasons.
  framework::Status FilterWithExtenders(const api::Pod& pod, FitError* fit);
  // Adds the interested extenders' scaled scores to scores_ (upstream's prioritizeNodes part
  // for extenders: one thread per extender; a failed call adds nothing).
  void PrioritizeWithExtenders(const api::Pod& pod);
  const std::string& SelectHost();

  const framework::NodeInfoLister& snapshot_;
  framework::Parallelizer& pool_;
  const std::optional<int32_t> percentage_of_nodes_to_score_;
  const std::vector<framework::Extender*> extenders_;
  const bool extenders_filter_or_score_;  // upstream's hasExtenderFilters || extender scoring
  size_t next_start_node_index_ = 0;
  std::mt19937_64 rng_{RandomSeed()};
  // Scratch reused across cycles.
  std::vector<const framework::NodeInfo*> candidates_;
  std::vector<const framework::NodeInfo*> feasible_;
  std::vector<framework::Status> statuses_;
  // Per node of the search, what Filter said: not asked yet, rejected, or passed.
  enum : uint8_t { kUnvisited, kFailed, kPassed };
  std::vector<uint8_t> outcome_;
  // The positions of the rejected nodes, in the order they were rejected (only the first
  // failed_count of a search are its own): their statuses are gathered from these rather than
  // by a walk of every node, 100,000 steps per pod at 100,000 nodes however few were looked at.
  std::vector<uint32_t> failed_;
  // The nodes the last search rejected, kept or not in its FitError (result.evaluated).
  size_t rejected_ = 0;
  std::vector<int64_t> scores_;
};

}  // namespace stowage::scheduler
