#include "pkg/plugins/default_preemption/executor.h"

#include <chrono>
#include <utility>
#include <vector>

#include "pkg/common/logging.h"
#include "stowage/api/pod_condition.h"
#include "stowage/api/time_format.h"
#include "stowage/common/clock.h"
#include "stowage/framework/interface.h"

namespace stowage::plugins::default_preemption {

namespace {
constexpr std::string_view kPluginName = "DefaultPreemption";

std::string Now() { return api::FormatTime(RealClock().WallNow()); }
}  // namespace

api::Condition DisruptionTargetCondition(const api::Pod& victim, const std::string& scheduler_name,
                                         const std::string& now) {
  api::Condition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  c.message = scheduler_name + ": preempting to accommodate a higher priority pod";
  c.last_transition_time = now;
  c.observed_generation = victim.metadata.generation;
  return c;
}

stowage::Status Executor::PreemptPod(const std::string& node, const api::Pod& preemptor,
                                     const api::Pod& victim, bool* in_memory) {
  const std::string who = api::NamespacedName(victim.metadata);
  std::string message = "Preempted by pod " + preemptor.metadata.uid + " on node " + node;
  bool freed = false;
  if (auto waiting = handle_.GetWaitingPod(victim.metadata.uid)) {
    // Not bound yet: rejecting it at Permit frees the room without an API call.
    waiting->Reject(kPluginName, "preempted");
    freed = true;
  } else if (auto pre_bind = handle_.GetPodInPreBind(victim.metadata.uid)) {
    // Still in PreBind: its binding cycle fails before Bind. Past PreBind, it is deleted.
    freed = pre_bind->CancelPod("preempted by " + std::string(kPluginName));
    if (freed) {
      VLOG(2,
           "Preemptor rejected a pod in preBind preemptor=\"{}\" podInPreBind=\"{}\" node=\"{}\"",
           api::NamespacedName(preemptor.metadata), who, node);
    }
  }
  if (in_memory) *in_memory = freed;
  if (freed) {
    message += " (in kube-scheduler memory).";
  } else {
    api::PodStatus status = victim.status;
    if (api::UpdatePodCondition(
            status, DisruptionTargetCondition(victim, preemptor.spec.scheduler_name, Now()))) {
      stowage::Status s = handle_.pod_writer().PatchPodStatus(victim, status);
      if (s.code() == StatusCode::kNotFound) return OkStatus();  // already gone
      if (!s.ok()) {
        LOG_ERROR(
            "Could not add DisruptionTarget condition due to preemption preemptor=\"{}\" "
            "victim=\"{}\" err=\"{}\"",
            api::NamespacedName(preemptor.metadata), who, s.message());
        return s;
      }
    }
    stowage::Status s = handle_.pod_writer().DeletePod(victim);
    if (s.code() == StatusCode::kNotFound) return OkStatus();
    if (!s.ok()) {
      LOG_ERROR("Tried to preempted pod pod=\"{}\" preemptor=\"{}\" err=\"{}\"", who,
                api::NamespacedName(preemptor.metadata), s.message());
      return s;
    }
    VLOG(2, "Preemptor Pod preempted victim Pod preemptor=\"{}\" victim=\"{}\" node=\"{}\"",
         api::NamespacedName(preemptor.metadata), who, node);
  }
  // The preemptor is the event's related object, as upstream's Eventf(victim, preemptor, ...).
  handle_.RecordEvent(victim, preemptor.spec.scheduler_name, "Normal", "Preempted", "Preempting",
                      std::move(message), &preemptor);
  return OkStatus();
}

stowage::Status Executor::ClearLowerPriorityNominations(const std::string& node, int32_t priority) {
  stowage::Status first;
  for (const auto& p : handle_.NominatedPodsForNode(node)) {
    const api::Pod& pod = *p->pod;
    if (PodPriority(pod) >= priority || pod.status.nominated_node_name.empty()) continue;
    api::PodStatus status = pod.status;
    status.nominated_node_name.clear();
    stowage::Status s = handle_.pod_writer().PatchPodStatus(pod, status);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

framework::Status Executor::Actuate(const Candidate& candidate, const api::PodPtr& preemptor) {
  handle_.preemption_metrics().Victims(static_cast<int>(candidate.victims.pods.size()));
  const int32_t priority = PodPriority(*preemptor);
  if (!async_) {
    for (const auto& v : candidate.victims.pods) {
      if (v->pod->metadata.deletion_timestamp) continue;  // already going
      if (auto s = PreemptPod(candidate.node, *preemptor, *v->pod); !s.ok()) {
        return framework::Status::Error(std::string(s.message()));
      }
    }
    if (auto s = ClearLowerPriorityNominations(candidate.node, priority); !s.ok()) {
      LOG_ERROR("Cannot clear 'NominatedNodeName' field err=\"{}\"", s.message());
    }
    return {};
  }
  std::vector<api::PodPtr> victims;
  for (const auto& v : candidate.victims.pods) {
    if (!v->pod->metadata.deletion_timestamp) victims.push_back(v->pod);
  }
  if (victims.empty()) return {};
  const std::string uid = preemptor->metadata.uid;
  {
    MutexLock l(mu_);
    preempting_.insert(uid);
  }
  handle_.RunAsync(
      [this, victims = std::move(victims), preemptor, node = candidate.node, uid, priority] {
        const auto start = std::chrono::steady_clock::now();
        bool ok = true;
        if (auto s = ClearLowerPriorityNominations(node, priority); !s.ok()) {
          LOG_ERROR(
              "Cannot clear 'NominatedNodeName' field from lower priority pods on the same "
              "target node node=\"{}\" err=\"{}\"",
              node, s.message());
          ok = false;
        }
        // The last victim goes last and alone: once it is seen terminating, the preemptor may try
        // again even if this thread has not finished.
        for (size_t i = 0; ok && i + 1 < victims.size(); ++i) {
          ok = PreemptPod(node, *preemptor, *victims[i]).ok();
        }
        bool last_in_memory = false;
        if (ok) {
          const api::Pod& last = *victims.back();
          {
            MutexLock l(mu_);
            last_victim_[uid] = {last.metadata.namespace_, last.metadata.name};
          }
          ok = PreemptPod(node, *preemptor, last, &last_in_memory).ok();
        }
        {
          MutexLock l(mu_);
          preempting_.erase(uid);
          last_victim_.erase(uid);
        }
        handle_.preemption_metrics().Goroutine(
            ok, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        VLOG(2, "Async Preemption finished completely preemptor=\"{}\" node=\"{}\" result=\"{}\"",
             api::NamespacedName(preemptor->metadata), node, ok ? "success" : "error");
        // No deletion event will come for a victim freed in memory, nor after a failure.
        if (!ok || last_in_memory) handle_.Activate(*preemptor);
      });
  return {};
}

bool Executor::IsPodRunningPreemption(const std::string& uid) const {
  MutexLock l(mu_);
  if (!preempting_.count(uid)) return false;
  auto it = last_victim_.find(uid);
  if (it == last_victim_.end()) return true;
  auto victim = handle_.pods().Get(it->second.namespace_, it->second.name);
  return victim != nullptr && !victim->metadata.deletion_timestamp;
}

}  // namespace stowage::plugins::default_preemption
