#include "pkg/metrics/families.h"

namespace stowage::metrics::families {
namespace {

constexpr Stability kAlpha = Stability::kAlpha;
constexpr Stability kBeta = Stability::kBeta;
constexpr Stability kStable = Stability::kStable;

FamilyDesc Counter(std::string name, Stability s, std::vector<std::string> labels,
                   std::string help) {
  return {"scheduler_" + name, std::move(help), Type::kCounter, s, std::move(labels), {}};
}
FamilyDesc Gauge(std::string name, Stability s, std::vector<std::string> labels,
                 std::string help) {
  return {"scheduler_" + name, std::move(help), Type::kGauge, s, std::move(labels), {}};
}
FamilyDesc Histogram(std::string name, Stability s, std::vector<std::string> labels,
                     std::vector<double> buckets, std::string help) {
  return {"scheduler_" + name, std::move(help), Type::kHistogram, s, std::move(labels),
          std::move(buckets)};
}

}  // namespace

FamilyDesc ScheduleAttempts() {
  return Counter("schedule_attempts_total", kStable, {"result", "profile"},
                 "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod "
                 "could not be scheduled, while 'error' means an internal scheduler problem.");
}
FamilyDesc EventHandlingDuration() {
  return Histogram("event_handling_duration_seconds", kAlpha, {"event"},
                   ExponentialBuckets(0.0001, 2, 12), "Event handling latency in seconds.");
}
FamilyDesc SchedulingAttemptDuration() {
  return Histogram("scheduling_attempt_duration_seconds", kStable, {"result", "profile"},
                   ExponentialBuckets(0.001, 2, 15),
                   "Scheduling attempt latency in seconds (scheduling algorithm + binding)");
}
FamilyDesc SchedulingAlgorithmDuration() {
  return Histogram("scheduling_algorithm_duration_seconds", kAlpha, {},
                   ExponentialBuckets(0.001, 2, 15), "Scheduling algorithm latency in seconds");
}
FamilyDesc PreemptionVictims() {
  return Histogram("preemption_victims", kStable, {}, ExponentialBuckets(1, 2, 7),
                   "Number of selected preemption victims");
}
FamilyDesc PreemptionAttempts() {
  return Counter("preemption_attempts_total", kStable, {},
                 "Total preemption attempts in the cluster till now");
}
FamilyDesc PendingPods() {
  return Gauge("pending_pods", kStable, {"queue"},
               "Number of pending pods, by the queue type. 'active' means number of pods in "
               "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means "
               "number of pods in unschedulablePods that the scheduler attempted to schedule "
               "and failed; 'gated' is the number of unschedulable pods that the scheduler "
               "never attempted to schedule because they are gated.");
}
FamilyDesc InflightEvents() {
  return Gauge("inflight_events", kAlpha, {"event"},
               "Number of events currently tracked in the scheduling queue.");
}
FamilyDesc Goroutines() {
  return Gauge("goroutines", kBeta, {"operation"},
               "Number of running goroutines split by the work they do such as binding.");
}
FamilyDesc BatchAttempts() {
  return Counter("batch_attempts_total", kAlpha, {"profile", "result"},
                 "Counts of results when we attempt to use batching.");
}
FamilyDesc BatchCacheFlushed() {
  return Counter("batch_cache_flushed_total", kAlpha, {"profile", "reason"},
                 "Counts of cache flushes by reason.");
}
FamilyDesc PodSchedulingSliDuration() {
  return Histogram("pod_scheduling_sli_duration_seconds", kBeta, {"attempts"},
                   ExponentialBuckets(0.01, 2, 20),
                   "E2e latency for a pod being scheduled, from the time the pod enters the "
                   "scheduling queue and might involve multiple scheduling attempts.");
}
FamilyDesc PodSchedulingAttempts() {
  return Histogram("pod_scheduling_attempts", kStable, {}, ExponentialBuckets(1, 2, 5),
                   "Number of attempts to successfully schedule a pod.");
}
FamilyDesc PodScheduledAfterFlush() {
  return Counter("pod_scheduled_after_flush_total", kAlpha, {},
                 "Number of pods that were successfully scheduled after being flushed from "
                 "unschedulablePods due to timeout. This metric helps detect potential queueing "
                 "hint misconfigurations or event handling issues.");
}
FamilyDesc FrameworkExtensionPointDuration() {
  return Histogram("framework_extension_point_duration_seconds", kStable,
                   {"extension_point", "status", "profile"}, ExponentialBuckets(0.0001, 2, 12),
                   "Latency for running all plugins of a specific extension point.");
}
FamilyDesc PluginExecutionDuration() {
  return Histogram("plugin_execution_duration_seconds", kAlpha,
                   {"plugin", "extension_point", "status"}, ExponentialBuckets(0.00001, 1.5, 20),
                   "Duration for running a plugin at a specific extension point.");
}
FamilyDesc QueueingHintExecutionDuration() {
  return Histogram("queueing_hint_execution_duration_seconds", kAlpha,
                   {"plugin", "event", "hint"}, ExponentialBuckets(0.00001, 1.5, 20),
                   "Duration for running a queueing hint function of a plugin.");
}
FamilyDesc QueueIncomingPods() {
  return Counter("queue_incoming_pods_total", kStable, {"queue", "event"},
                 "Number of pods added to scheduling queues by event and queue type.");
}
FamilyDesc PermitWaitDuration() {
  return Histogram("permit_wait_duration_seconds", kBeta, {"result"},
                   ExponentialBuckets(0.001, 2, 15), "Duration of waiting on permit.");
}
FamilyDesc CacheSize() {
  return Gauge("cache_size", kAlpha, {"type"},
               "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.");
}
FamilyDesc UnschedulablePods() {
  return Gauge("unschedulable_pods", kBeta, {"plugin", "profile"},
               "The number of unschedulable pods broken down by plugin name. A pod will "
               "increment the gauge for all plugins that caused it to not schedule and so this "
               "metric have meaning only when broken down by plugin.");
}
FamilyDesc PluginEvaluation() {
  return Counter("plugin_evaluation_total", kBeta, {"plugin", "extension_point", "profile"},
                 "Number of attempts to schedule pods by each plugin and the extension point "
                 "(available only in PreFilter, Filter, PreScore, and Score).");
}
FamilyDesc PreemptionGoroutinesDuration() {
  return Histogram("preemption_goroutines_duration_seconds", kAlpha, {"result"},
                   ExponentialBuckets(0.01, 2, 20),
                   "Duration in seconds for running goroutines for the preemption.");
}
FamilyDesc PreemptionGoroutinesExecution() {
  return Counter("preemption_goroutines_execution_total", kAlpha, {"result"},
                 "Number of preemption goroutines executed.");
}
FamilyDesc AsyncApiCallExecution() {
  return Counter("async_api_call_execution_total", kAlpha, {"call_type", "result"},
                 "Total number of API calls executed by the async dispatcher.");
}
FamilyDesc AsyncApiCallExecutionDuration() {
  return Histogram("async_api_call_execution_duration_seconds", kAlpha, {"call_type", "result"},
                   ExponentialBuckets(0.001, 2, 15),
                   "Duration in seconds for executing API call in the async dispatcher.");
}
FamilyDesc PendingAsyncApiCalls() {
  return Gauge("pending_async_api_calls", kAlpha, {"call_type"},
               "Number of API calls currently pending in the async queue.");
}
FamilyDesc ResourceClaimCreates() {
  return Counter("resourceclaim_creates_total", kAlpha, {"status"},
                 "Number of ResourceClaims creation requests within scheduler");
}
FamilyDesc DraBindingConditionsAllocations() {
  return Counter("dra_bindingconditions_allocations_total", kAlpha,
                 {"profile", "driver", "status"},
                 "Number of allocations using devices with BindingConditions, counted per driver "
                 "per scheduling attempt");
}
FamilyDesc DraBindingConditionsWaitDuration() {
  return Histogram("dra_bindingconditions_wait_duration_seconds", kAlpha,
                   {"profile", "driver", "status"}, ExponentialBuckets(0.1, 2, 14),
                   "Time in seconds spent waiting for BindingConditions to be satisfied during "
                   "PreBind.");
}
FamilyDesc GetNodeHintDuration() {
  return Histogram("get_node_hint_duration_seconds", kAlpha, {"hinted", "profile"},
                   ExponentialBuckets(0.00001, 2, 12), "Latency for getting a node hint.");
}
FamilyDesc StoreScheduleResultsDuration() {
  // Upstream's HELP text really is this truncated sentence.
  return Histogram("store_schedule_results_duration_seconds", kAlpha, {"profile"},
                   ExponentialBuckets(0.00001, 2, 12), "Latency for getting a no.");
}
FamilyDesc PodGroupScheduleAttempts() {
  return Counter("podgroup_schedule_attempts_total", kAlpha, {"result", "profile"},
                 "Number of attempts to schedule pod group, by the result. 'unschedulable' "
                 "means a pod group could not be scheduled, while 'error' means an internal "
                 "scheduler problem.");
}
FamilyDesc PodGroupSchedulingAttemptDuration() {
  return Histogram("podgroup_scheduling_attempt_duration_seconds", kAlpha, {"result", "profile"},
                   ExponentialBuckets(0.001, 2, 15),
                   "Pod group scheduling attempt latency in seconds (scheduling algorithm + "
                   "binding)");
}
FamilyDesc PodGroupSchedulingAlgorithmDuration() {
  return Histogram("podgroup_scheduling_algorithm_duration_seconds", kAlpha, {},
                   ExponentialBuckets(0.001, 2, 15),
                   "Pod group scheduling algorithm latency in seconds");
}
FamilyDesc VolumeBinderCacheRequests() {
  return Counter("volume_binder_cache_requests_total", kAlpha, {"operation"},
                 "Total number for request volume binding cache");
}
FamilyDesc VolumeSchedulingStageError() {
  return Counter("volume_scheduling_stage_error_total", kAlpha, {"operation"},
                 "Volume scheduling stage error count");
}

FamilyDesc PodResourceRequest() {
  return {"kube_pod_resource_request",
          "Resources requested by workloads on the cluster, broken down by pod. This shows the "
          "resource usage the scheduler and kubelet expect per pod for resources along with the "
          "unit for the resource if any.",
          Type::kGauge, kStable,
          {"namespace", "pod", "node", "scheduler", "priority", "resource", "unit"}, {}};
}
FamilyDesc PodResourceLimit() {
  return {"kube_pod_resource_limit",
          "Resources limit for workloads on the cluster, broken down by pod. This shows the "
          "resource usage the scheduler and kubelet expect per pod for resources along with the "
          "unit for the resource if any.",
          Type::kGauge, kStable,
          {"namespace", "pod", "node", "scheduler", "priority", "resource", "unit"}, {}};
}

}  // namespace stowage::metrics::families
