// Executor: carries out a chosen preemption (upstream preemption.Executor for single pods). Each
// victim waiting at Permit is rejected in memory, and each still in PreBind cancelled in memory;
// every other victim gets the DisruptionTarget condition (reason PreemptionByScheduler) and is
// deleted; each gets a Preempted event naming the preemptor. Pods of lower priority nominated to
// the node lose their nomination, since the preemptor takes the room they were promised.
//
// Asynchronous (SchedulerAsyncPreemption, on by default): the API calls run off the scheduling
// thread (Handle::RunAsync) while the preemptor is recorded as preempting, so PreEnqueue holds it
// until they are done, or until its last victim is seen terminating. The nominator already
// reserves the node for it meanwhile. Thread-safe.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "pkg/plugins/default_preemption/candidates.h"
#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/status.h"

namespace stowage::plugins::default_preemption {

class Executor {
 public:
  Executor(framework::Handle& handle, bool async) : handle_(handle), async_(async) {}

  // Preempts the candidate's victims for preemptor. Synchronous: the first failure, as an
  // Error status. Asynchronous: Success at once; failures are logged and re-activate the pod.
  framework::Status Actuate(const Candidate& candidate, const api::PodPtr& preemptor);

  // Whether the pod's asynchronous preemption is still under way: recorded as preempting, and
  // its last victim not yet seen terminating (or gone).
  bool IsPodRunningPreemption(const std::string& uid) const;

 private:
  struct PendingVictim {
    std::string namespace_;
    std::string name;
  };
  // One victim: rejected at Permit or cancelled in PreBind (*in_memory set), or condition then
  // delete; then the Preempted event.
  stowage::Status PreemptPod(const std::string& node, const api::Pod& preemptor,
                             const api::Pod& victim, bool* in_memory = nullptr);
  // Clears the nomination of the pods nominated to node with a lower priority than priority.
  stowage::Status ClearLowerPriorityNominations(const std::string& node, int32_t priority);

  framework::Handle& handle_;
  const bool async_;
  mutable Mutex mu_;
  std::unordered_set<std::string> preempting_ GUARDED_BY(mu_);  // preemptor UIDs
  std::unordered_map<std::string, PendingVictim> last_victim_ GUARDED_BY(mu_);
};

// The DisruptionTarget condition upstream's executor adds to a victim before deleting it.
api::Condition DisruptionTargetCondition(const api::Pod& victim, const std::string& scheduler_name,
                                         const std::string& now);

}  // namespace stowage::plugins::default_preemption
