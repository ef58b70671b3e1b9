// The scheduling cycle (one pod: filter, score, assume, reserve, permit), the binding cycle
// (pre-bind, bind, post-bind) and failure handling, as upstream's schedule_one.go.
#include <algorithm>
#include <map>
#include <vector>

#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"
#include "pkg/metrics/profile_metrics.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
double SecondsSince(MonoTime start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

std::string FitErrorMessage(int num_all_nodes, const framework::NodeToStatus& statuses,
                            const std::string& pre_filter_msg, const std::string& post_filter_msg) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_msg.empty()) {
    msg += " " + pre_filter_msg + ".";
  } else {
    std::map<std::string, int> histogram;
    for (const auto& [node, s] : statuses) {
      for (const auto& r : s.reasons()) histogram[r]++;
    }
    // Upstream sorts the "<count> <reason>" strings, so counts order first (as text).
    std::vector<std::string> counted;
    counted.reserve(histogram.size());
    for (const auto& [reason, count] : histogram) {
      counted.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(counted.begin(), counted.end());
    std::string joined;
    for (const auto& c : counted) {
      if (!joined.empty()) joined += ", ";
      joined += c;
    }
    if (!joined.empty()) msg += " " + joined + ".";
  }
  if (!post_filter_msg.empty()) msg += " " + post_filter_msg;
  return msg;
}

void Scheduler::ScheduleOne() {
  queue::QueuedPodInfoPtr qpod = queue_->Pop();
  if (!qpod) return;
  const api::Pod& pod = qpod->pod();
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
  if (auto us = cache_.UpdateSnapshot(snapshot_); !us.ok()) {
    s = Status::Error(std::string(us.message()));
  } else {
    s = algorithm_.SchedulePod(*fw, *state, *qpod->pod_info, queue_->NominatedPods(), result, fit);
    metrics::SchedulingAlgorithmDuration().Observe(SecondsSince(start));
    fw->FlushMetrics();
  }
  if (!s.IsSuccess()) {
    // With no nodes at all upstream reports its ErrNoNodesAvailable, not a FitError: the bare
    // message, and a retry after the error backoff since no plugin rejected the pod.
    const bool fit_error = s.IsRejected() && fit.num_all_nodes > 0;
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
    (void)cache_.ForgetPod(*bound);
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
    (void)cache_.ForgetPod(*bound);
    FitError one;
    one.num_all_nodes = 1;
    one.node_statuses.emplace_back(result.host, permit);
    HandleFailure(fw, std::move(qpod), permit, permit.IsRejected() ? &one : nullptr, start);
    return;
  }
  VLOG(4, "attempting to bind pod {} to node {} ({} evaluated, {} feasible)",
       api::NamespacedName(pod.metadata), result.host, result.evaluated, result.feasible);
  SubmitBinding(
      [this, fw, st = state.release(), qpod, assumed, host = result.host, wait, start]() mutable {
        BindingCycle(fw, std::unique_ptr<CycleState>(st), std::move(qpod), std::move(assumed),
                     std::move(host), wait, start);
      },
      permit.IsWait());
}

void Scheduler::BindingCycle(framework::Framework* fw, std::unique_ptr<CycleState> state,
                             queue::QueuedPodInfoPtr qpod, framework::PodInfoPtr assumed,
                             std::string host, std::chrono::milliseconds permit_wait,
                             MonoTime start) {
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
  if (permit_wait.count() > 0) s = fw->WaitOnPermit(pod);
  queue_->Done(pod);
  if (s.IsSuccess()) s = fw->RunPreBindPlugins(*state, pod, host);
  if (s.IsSuccess()) s = fw->RunBindPlugins(*state, pod, host);
  if (s.IsSuccess()) {
    (void)cache_.FinishBinding(pod);
    fw->metrics().ObserveAttempt(metrics::Result::kScheduled, SecondsSince(start));
    metrics::ObservePodScheduled(qpod->attempts, SecondsSince(qpod->initial_attempt_timestamp));
    if (flushed) metrics::PodScheduledAfterFlush().Increment();
    VLOG(2, "Successfully bound pod to node pod=\"{}\" node=\"{}\"", api::NamespacedName(pod.metadata), host);
    events_->Record(pod, fw->scheduler_name(), "Normal", "Scheduled", "Binding",
                    "Successfully assigned " + api::NamespacedName(pod.metadata) + " to " + host);
    fw->RunPostBindPlugins(*state, pod, host);
    return;
  }
  fw->RunReservePluginsUnreserve(*state, pod, host);
  (void)cache_.ForgetPod(pod);
  queue_->MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, assumed->pod, {});
  // From the binding cycle on, failures are errors (backoff), never "unschedulable".
  HandleFailure(fw, std::move(qpod), s.IsRejected() ? s : Status::Error(s.Message()), nullptr,
                start);
}

void Scheduler::HandleFailure(framework::Framework* fw, queue::QueuedPodInfoPtr qpod,
                              const Status& status, const FitError* fit, MonoTime start) {
  const api::Pod& pod = qpod->pod();
  bool rejected = fit != nullptr;
  // As upstream, a rejection counts as "unschedulable" and anything else as "error".
  fw->metrics().ObserveAttempt(
      status.IsRejected() ? metrics::Result::kUnschedulable : metrics::Result::kError,
      SecondsSince(start));
  std::string msg = rejected ? FitErrorMessage(fit->num_all_nodes, fit->node_statuses,
                                               fit->pre_filter_msg, "")
                             : status.Message();
  if (rejected) {
    qpod->unschedulable_plugins = fit->unschedulable_plugins;
    qpod->unschedulable_plugins.erase("");
  }
  std::string key = api::NamespacedName(pod.metadata);
  VLOG(2, "unable to schedule pod {}: {}", key, msg);
  // Requeue only if the pod still exists and is still unbound.
  auto current = informers_.For<api::Pod>(
      informer::Filter{.field_selector = "status.phase!=Succeeded,status.phase!=Failed"})
                     .store().Get(key);
  if (current && current->spec.node_name.empty() &&
      current->metadata.uid == pod.metadata.uid) {
    queue_->AddUnschedulableIfNotPresent(std::move(qpod), !rejected);
  } else {
    queue_->Done(pod);
  }
  events_->Record(pod, fw->scheduler_name(), "Warning", "FailedScheduling", "Scheduling", msg);
  api::Condition cond{"PodScheduled", "False",
                      status.IsRejected() ? "Unschedulable" : "SchedulerError", msg,
                      api::FormatTime(RealClock().WallNow())};
  // Skip the write when the pod already carries exactly this condition.
  if (current) {
    for (const auto& c : current->status.conditions) {
      if (c.type == cond.type && c.status == cond.status && c.reason == cond.reason &&
          c.message == cond.message) {
        return;
      }
    }
  }
  std::string ns = pod.metadata.namespace_, name = pod.metadata.name;
  SubmitBinding([this, ns, name, cond] {
    auto s = client::PatchPodStatus(client_, ns, name, api::EncodePodStatusPatch(cond, std::nullopt));
    if (!s.ok() && !client::IsNotFound(s)) LOG_WARN("updating the status of pod {}/{}: {}", ns, name, s.ToString());
  });
}

}  // namespace stowage::scheduler
