// The scheduling cycle (one pod: filter, score, assume, reserve, permit), the binding cycle
// (pre-bind, bind, post-bind) and failure handling, as upstream's schedule_one.go.
#include <algorithm>
#include <map>
#include <vector>

#include "pkg/api/encode.h"
#include "pkg/client/resources.h"
#include "pkg/common/error_list.h"
#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"
#include "pkg/metrics/profile_metrics.h"
#include "pkg/scheduler/pod_status.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
// How long a binding waits for its pod's pending status patch (StatusWriter::WaitForPod).
constexpr std::chrono::milliseconds kStatusBeforeBindWait{2000};

double SecondsSince(MonoTime start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

void Scheduler::ScheduleOne() {
  queue::QueuedPodInfoPtr qpod = queue_->Pop();
  if (!qpod) return;
  MutexLock cycle_lock(cycle_mu_);  // Explain waits for the cycle's end
  // Held apart from qpod, which failure handling hands back to the queue.
  const api::PodPtr pod_ptr = qpod->pod_info->pod;
  const api::Pod& pod = *pod_ptr;
  framework::Framework* fw = ProfileFor(pod);
  if (fw == nullptr) {
    queue_->Done(pod);
    return;
  }
  VLOG(3, "Attempting to schedule pod pod=\"{}\"", api::NamespacedName(pod.metadata));
  if (pod.metadata.deletion_timestamp) {
    events_->Record(pod, fw->scheduler_name(), "Warning", "FailedScheduling", "Scheduling",
                    "skip schedule deleting pod: " + api::NamespacedName(pod.metadata));
    queue_->Done(pod);
    return;
  }
  if (cache_.IsAssumedPod(pod)) {
    queue_->Done(pod);
    return;
  }
  const MonoTime start = std::chrono::steady_clock::now();
  auto state = std::make_unique<CycleState>();
  if (metrics::SampleCycleForPluginMetrics()) framework::SetRecordPluginMetrics(*state, true);
  ScheduleResult result;
  FitError fit;
  Status s;
  // The nominations this cycle respects; PostFilter's dry runs see the same ones.
  const NominatedPods nominated = queue_->NominatedPods();
  if (auto us = cache_.UpdateSnapshot(snapshot_); !us.ok()) {
    CacheError("UpdateSnapshot", nullptr, us);
    s = Status::Error(std::string(us.message()));
  } else {
    s = algorithm_.SchedulePod(*fw, *state, *qpod->pod_info, nominated, result, fit);
    metrics::SchedulingAlgorithmDuration().Observe(SecondsSince(start));
    fw->FlushMetrics();
  }
  if (!s.IsSuccess()) {
    // With no nodes at all upstream reports its ErrNoNodesAvailable, not a FitError: the bare
    // message, and a retry after the error backoff since no plugin rejected the pod.
    const bool fit_error = s.IsRejected() && fit.num_all_nodes > 0;
    // As upstream, PostFilter (preemption) runs after a FitError, so the pod may fit next time.
    if (fit_error && fw->HasPostFilterPlugins()) {
      CyclePluginsRunner runner(*fw, nominated);
      Status pf = fw->RunPostFilterPlugins(*state, *qpod->pod_info, fit.node_statuses, runner,
                                           fit.nominating_info);
      fit.post_filter_msg = pf.Message();
      if (pf.code() == framework::Code::kError) {
        LOG_ERROR("Status after running PostFilter plugins for pod {}: {}",
                  api::NamespacedName(pod.metadata), fit.post_filter_msg);
      }
    }
    HandleFailure(fw, std::move(qpod), s, fit_error ? &fit : nullptr, start);
    return;
  }
  // Assume: the next cycle must already see the pod on its node.
  auto bound = std::make_shared<api::Pod>(pod);
  bound->spec.node_name = result.host;
  framework::PodInfoPtr assumed = framework::NewPodInfo(bound);
  if (auto as = cache_.AssumePod(assumed); !as.ok()) {
    HandleFailure(fw, std::move(qpod), Status::Error(std::string(as.message())), nullptr, start);
    return;
  }
  queue_->DeleteNominatedPodIfExists(pod);
  if (Status rs = fw->RunReservePluginsReserve(*state, *bound, result.host); !rs.IsSuccess()) {
    fw->RunReservePluginsUnreserve(*state, *bound, result.host);
    CacheError("ForgetPod", *bound, cache_.ForgetPod(*bound));
    FitError one;
    one.num_all_nodes = 1;
    one.node_statuses.emplace_back(result.host, rs);
    one.unschedulable_plugins.insert(rs.plugin());
    HandleFailure(fw, std::move(qpod), rs, rs.IsRejected() ? &one : nullptr, start);
    return;
  }
  std::chrono::milliseconds wait{0};
  Status permit = fw->RunPermitPlugins(*state, *bound, result.host, wait);
  if (!permit.IsSuccess() && !permit.IsWait()) {
    fw->RunReservePluginsUnreserve(*state, *bound, result.host);
    CacheError("ForgetPod", *bound, cache_.ForgetPod(*bound));
    FitError one;
    one.num_all_nodes = 1;
    one.node_statuses.emplace_back(result.host, permit);
    // The rejecting plugin decides which events requeue the pod, as upstream's AddPluginStatus.
    one.unschedulable_plugins.insert(permit.plugin());
    HandleFailure(fw, std::move(qpod), permit, permit.IsRejected() ? &one : nullptr, start);
    return;
  }
  VLOG(4, "attempting to bind pod {} to node {} ({} evaluated, {} feasible)",
       api::NamespacedName(pod.metadata), result.host, result.evaluated, result.feasible);
  // Asked here, before the cycle is handed over, so that a PreBind that will wait (for volumes
  // to be bound) gets a thread of its own rather than a binding worker.
  Status preflight = fw->HasPreBindPlugins() ? fw->RunPreBindPreFlights(*state, *bound, result.host)
                                             : Status::Skip();
  const bool own_thread = permit.IsWait() || preflight.IsSuccess();
  auto cycle = [this, fw, st = state.release(), qpod, assumed, host = result.host, wait,
                preflight = std::move(preflight), start]() mutable {
    BindingCycle(fw, std::unique_ptr<CycleState>(st), std::move(qpod), std::move(assumed),
                 std::move(host), wait, std::move(preflight), start);
  };
  // A pod held at Permit waits on a thread of its own (upstream's goroutine), never a worker;
  // so does a PreBind with work, counted towards max_prebind_bindings.
  if (own_thread) {
    binding_.SubmitWaiting(std::move(cycle), /*prebind=*/!permit.IsWait());
  } else {
    binding_.Submit(std::move(cycle));
  }
}

void Scheduler::BindingCycle(framework::Framework* fw, std::unique_ptr<CycleState> state,
                             queue::QueuedPodInfoPtr qpod, framework::PodInfoPtr assumed,
                             std::string host, std::chrono::milliseconds permit_wait,
                             Status preflight, MonoTime start) {
  static prometheus::Gauge& binding_goroutines = metrics::Goroutines(metrics::kBindingOperation);
  binding_goroutines.Increment();
  struct Done {
    prometheus::Gauge& g;
    ~Done() { g.Decrement(); }
  } done{binding_goroutines};
  const api::Pod& pod = *assumed->pod;
  // Read before binding: once the binding is observed, the queue forgets the pod.
  const bool flushed = queue_->WasFlushedFromUnschedulable(pod);
  Status s;
  // A Permit rejection (or timeout) while waiting is still a FitError on the chosen node, as
  // upstream's bindingCycle builds it; later failures are errors.
  FitError permit_fit;
  if (!preflight.IsSuccess() && !preflight.IsSkip()) {
    s = std::move(preflight);
  } else if (preflight.IsSuccess() || permit_wait.count() > 0) {
    // Permit's wait or PreBind's work may take long: tell others (the cluster autoscaler) where
    // the pod is going, as upstream does with NominatedNodeNameForExpectation (beta, on).
    api::PodStatus nominated = pod.status;
    nominated.nominated_node_name = host;
    std::string patch = api::EncodePodStatusPatch(pod.status, nominated);
    // Sent from this thread (a binding cycle with PreBind work or a Permit wait has one of its
    // own), as upstream's binding cycle does, not behind other pods' queued patches.
    if (patch != "{}") (void)status_writer_.SendNow(assumed->pod, patch, kStatusBeforeBindWait);
  }
  if (s.IsSuccess() && permit_wait.count() > 0) {
    s = fw->WaitOnPermit(pod);
    if (s.IsRejected()) {
      permit_fit.num_all_nodes = 1;
      permit_fit.node_statuses.emplace_back(host, s);
      permit_fit.unschedulable_plugins.insert(s.plugin());
    }
  }
  queue_->Done(pod);
  // A victim of a preemption may be cancelled in memory while PreBind runs (pods_in_pre_bind.h).
  std::shared_ptr<PodInPreBindImpl> in_pre_bind;
  if (s.IsSuccess() && fw->HasPreBindPlugins()) {
    in_pre_bind = pods_in_pre_bind_.Add(pod.metadata.uid);
  }
  if (s.IsSuccess()) s = fw->RunPreBindPlugins(*state, pod, host);
  if (in_pre_bind) {
    std::string cause;
    if (s.IsSuccess() && !in_pre_bind->MarkPrebound(cause)) s = Status::Error(cause);
    pods_in_pre_bind_.Remove(pod.metadata.uid);
  }
  if (s.IsSuccess()) {
    // The pod's last failure's status patch (its nomination) goes first, as upstream writes it
    // before the next cycle; bounded, so a hanging patch delays this binding only.
    status_writer_.WaitForPod(pod, kStatusBeforeBindWait);
    s = Bind(*fw, *state, pod, host);
  }
  if (s.IsSuccess()) {
    CacheError("FinishBinding", pod, cache_.FinishBinding(pod));
    fw->metrics().ObserveAttempt(metrics::Result::kScheduled, SecondsSince(start));
    metrics::ObservePodScheduled(qpod->attempts, SecondsSince(qpod->initial_attempt_timestamp));
    if (flushed) metrics::PodScheduledAfterFlush().Increment();
    VLOG(2, "Successfully bound pod to node pod=\"{}\" node=\"{}\"",
         api::NamespacedName(pod.metadata), host);
    events_->Record(pod, fw->scheduler_name(), "Normal", "Scheduled", "Binding",
                    "Successfully assigned " + api::NamespacedName(pod.metadata) + " to " + host);
    fw->RunPostBindPlugins(*state, pod, host);
    return;
  }
  fw->RunReservePluginsUnreserve(*state, pod, host);
  CacheError("ForgetPod", pod, cache_.ForgetPod(pod));
  queue_->MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, assumed->pod, {});
  // From the binding cycle on, failures are errors (backoff), never "unschedulable".
  HandleFailure(fw, std::move(qpod), s.IsRejected() ? s : Status::Error(s.Message()),
                permit_fit.num_all_nodes > 0 ? &permit_fit : nullptr, start);
}

Status Scheduler::Bind(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                       const std::string& host) {
  for (const auto& e : options_.extenders) {
    if (!e->IsBinder() || !e->IsInterested(pod)) continue;
    // The extender binds through the API itself, so the lease check of the pod writer is made
    // here.
    if (options_.may_bind && !options_.may_bind()) {
      return Status::Error("not binding: this scheduler's lease may have expired");
    }
    stowage::Status s = e->Bind(pod, host);
    if (!s.ok() && e->IsIgnorable()) {
      LOG_INFO(
          "Skipping extender in bind as it returned error and has ignorable flag set "
          "extender=\"{}\" err=\"{}\"",
          e->Name(), s.message());
      continue;
    }
    return s.ok() ? Status() : Status::Error(std::string(s.message()));
  }
  return fw.RunBindPlugins(state, pod, host);
}

void Scheduler::HandleFailure(framework::Framework* fw, queue::QueuedPodInfoPtr qpod,
                              const Status& status, const FitError* fit, MonoTime start) {
  // Held here: once qpod is back in the queue, the informer's thread may replace or drop the
  // queue's pod at any moment (an update, a delete).
  api::PodPtr pod = qpod->pod_info->pod;
  bool rejected = fit != nullptr;
  // As upstream, a rejection counts as "unschedulable" and anything else as "error".
  fw->metrics().ObserveAttempt(
      status.IsRejected() ? metrics::Result::kUnschedulable : metrics::Result::kError,
      SecondsSince(start));
  std::string msg = rejected ? FitErrorMessage(fit->num_all_nodes, fit->node_statuses,
                                               fit->pre_filter_msg, fit->post_filter_msg)
                             : status.Message();
  if (rejected) {
    qpod->unschedulable_plugins = fit->unschedulable_plugins;
    qpod->unschedulable_plugins.erase("");
  }
  std::string key = api::NamespacedName(pod->metadata);
  VLOG(2, "unable to schedule pod {}: {}", key, msg);
  // As upstream, requeue only a pod that still exists unbound, and requeue it (and write about
  // it) as the informer holds it now, since it may have changed while it was being scheduled.
  auto current = pods_.store().Get(key);
  if (current && current->spec.node_name.empty()) {
    if (current->metadata.uid != pod->metadata.uid) {
      VLOG(2,
           "Pod was recreated while handling scheduling failure. Skip requeueing and status "
           "updates. pod=\"{}\" oldUID=\"{}\" newUID=\"{}\"",
           key, pod->metadata.uid, current->metadata.uid);
      queue_->Done(*pod);
      return;
    }
    pod = current;
    qpod->pod_info = framework::NewPodInfo(current);
    queue_->AddUnschedulableIfNotPresent(std::move(qpod), !rejected);
    if (options_.after_failure_requeue_for_test) options_.after_failure_requeue_for_test();
  } else {
    queue_->Done(*pod);
  }
  // As upstream: PostFilter's nomination (Noop keeps the pod's own), or cleared on every other
  // failure path. The nominator learns it now, before the patch comes back through the
  // informer, so the next cycles already leave the room to the pod.
  const framework::NominatingInfo nominating =
      fit != nullptr ? fit->nominating_info
                     : framework::NominatingInfo{framework::NominatingInfo::Mode::kOverride, ""};
  std::optional<std::string> nominated;
  if (nominating.mode == framework::NominatingInfo::Mode::kOverride) {
    nominated = nominating.node_name;
  }
  if (current && current->spec.node_name.empty() && current->metadata.uid == pod->metadata.uid) {
    queue_->AddNominatedPod(framework::NewPodInfo(pod), nominating);
  } else {
    queue_->DeleteNominatedPodIfExists(*pod);
  }
  events_->Record(*pod, fw->scheduler_name(), "Warning", "FailedScheduling", "Scheduling", msg);
  std::optional<std::string> patch =
      PodScheduledFailurePatch(*pod, status.IsRejected() ? "Unschedulable" : "SchedulerError", msg,
                               nominated, api::FormatTime(RealClock().WallNow()));
  if (!patch) return;
  // On a writer of its own: patches must not take the room bindings need (status_writer.h).
  status_writer_.Submit(std::move(pod), std::move(*patch));
}

}  // namespace stowage::scheduler
