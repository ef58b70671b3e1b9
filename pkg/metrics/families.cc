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
FamilyDesc Gauge(std::string name, Stability s, std::vector<std::string> labels, std::string help) {
  return {"scheduler_" + name, std::move(help), Type::kGauge, s, std::move(labels), {}};
}
FamilyDesc Histogram(std::string name, Stability s, std::vector<std::string> labels,
                     std::vector<double> buckets, std::string help) {
  return {"scheduler_" + name, std::move(help),   Type::kHistogram, s,
          std::move(labels),   std::move(buckets)};
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
  return Histogram("scheduling_algorithm_duration_seconds", kBeta, {},
                   ExponentialBuckets(0.001, 2, 15), "Scheduling algorithm latency in seconds");
}
FamilyDesc PreemptionVictims() {
  return Histogram("preemption_victims", kStable, {}, ExponentialBuckets(1, 2, 7),
                   "Number of selected preemption victims for preemption initiated by a single "
                   "pod");
}
FamilyDesc PreemptionAttempts() {
  return Counter("preemption_attempts_total", kStable, {},
                 "Total preemption attempts in the cluster till now");
}
FamilyDesc PendingPods() {
  return Gauge("pending_pods", kStable, {"queue"},
               "Number of pending pods, by the queue type. 'active' means number of pods in "
               "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means "
               "number of pods in unschedulableEntities that the scheduler attempted to "
               "schedule and failed; 'gated' is the number of unschedulable pods that the "
               "scheduler never attempted to schedule because they are gated; 'incomplete' "
               "means number of pods in incompletePodGroupPods; 'pending' means number of pods "
               "in pendingPodGroupPods.");
}
FamilyDesc QueuedEntities() {
  return Gauge("queued_entities", kAlpha, {"queue", "type"},
               "Number of queued scheduling entities ('pod' or 'podgroup'; 'pod' stands for "
               "individual pods that are not members of any podgroup) by the queue type. "
               "'active' means number of entities in activeQ; 'backoff' means number of "
               "entities in backoffQ; 'unschedulable' means number of entities in "
               "unschedulableEntities that the scheduler attempted to schedule and failed; "
               "'gated' is the number of unschedulable entities that the scheduler never "
               "attempted to schedule because they are gated.");
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
FamilyDesc BatchRescoreAttempts() {
  return Counter("batch_rescore_attempts_total", kAlpha, {"profile"},
                 "Counts of rescore attempts during opportunistic batching.");
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
                 "unschedulableEntities due to timeout. This metric helps detect potential "
                 "queueing hint misconfigurations or event handling issues.");
}
FamilyDesc PreQueueingHintEvaluations() {
  return Counter("pre_queueing_hint_evaluations_total", kAlpha, {"plugin", "result"},
                 "Number of PreQueueingHint evaluations, labeled by plugin and result (all_pods "
                 "or narrowed).");
}
FamilyDesc FrameworkExtensionPointDuration() {
  return Histogram("framework_extension_point_duration_seconds", kStable,
                   {"extension_point", "status", "profile"}, ExponentialBuckets(0.0001, 2, 12),
                   "Latency for running all plugins of a specific extension point.");
}
FamilyDesc PluginExecutionDuration() {
  return Histogram("plugin_execution_duration_seconds", kBeta,
                   {"plugin", "extension_point", "status"}, ExponentialBuckets(0.00001, 1.5, 20),
                   "Duration for running a plugin at a specific extension point.");
}
FamilyDesc QueueingHintExecutionDuration() {
  return Histogram("queueing_hint_execution_duration_seconds", kAlpha, {"plugin", "event", "hint"},
                   ExponentialBuckets(0.00001, 1.5, 20),
                   "Duration for running a queueing hint function of a plugin.");
}
FamilyDesc QueueIncomingPods() {
  return Counter("queue_incoming_pods_total", kStable, {"queue", "event"},
                 "Number of pods added to scheduling queues by event and queue type.");
}
FamilyDesc QueueIncomingEntities() {
  return Counter("queue_incoming_entities_total", kAlpha, {"queue", "event", "type"},
                 "Number of scheduling entities added to scheduling queues by event, queue type, "
                 "and entity type. Entity types are either 'pod' (for individual pods that are "
                 "not members of any podgroup) or 'podgroup'.");
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
  FamilyDesc d = Histogram("preemption_goroutines_duration_seconds", kAlpha, {"result"},
                           ExponentialBuckets(0.01, 2, 20),
                           "Duration in seconds for running goroutines for the preemption.");
  d.deprecated_version = "1.37.0";
  return d;
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
  // dynamic-resource-allocation's family, shared with kube-controller-manager since 1.37.
  return {"dynamic_resource_allocation_resourceclaim_creates_total",
          "Number of ResourceClaims creation requests, categorized by creation status, admin "
          "access, and owning API group and kind (either Pod or scheduling.k8s.io/PodGroup)",
          Type::kCounter,
          kAlpha,
          {"status", "admin_access", "owner_api_group", "owner_api_kind"},
          {}};
}
FamilyDesc DraBindingConditionsAllocations() {
  return Counter("dra_bindingconditions_allocations_total", kAlpha, {"profile", "driver", "status"},
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
  return Histogram("store_schedule_results_duration_seconds", kAlpha, {"profile"},
                   ExponentialBuckets(0.00001, 2, 12), "Latency for storing scheduling results.");
}
FamilyDesc BatchRescoreDuration() {
  return Histogram("batch_rescore_duration_seconds", kAlpha, {"profile"},
                   ExponentialBuckets(0.00001, 2, 12),
                   "Latency for rescoring a node during opportunistic batching.");
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
                   "Pod group scheduling attempt latency in seconds");
}
FamilyDesc PodGroupSchedulingAlgorithmDuration() {
  return Histogram("podgroup_scheduling_algorithm_duration_seconds", kAlpha, {},
                   ExponentialBuckets(0.001, 2, 15),
                   "Pod group scheduling algorithm latency in seconds");
}
FamilyDesc WorkloadPreemptionAttempts() {
  return Counter("workload_preemption_attempts_total", kAlpha, {"result"},
                 "Total preemption attempts initiated by workload (including pod groups) in the "
                 "cluster till now.");
}
FamilyDesc WorkloadPreemptionVictims() {
  return Histogram("workload_preemption_victims", kAlpha, {}, ExponentialBuckets(1, 2, 11),
                   "Number of pod preemption victims caused by workload preemption.");
}
FamilyDesc PreemptionWorkloadDisruptions() {
  return Histogram("preemption_workload_disruptions", kAlpha, {"preemptor"},
                   ExponentialBuckets(1, 2, 11),
                   "Number of workload preemption units being preempted. A single preemption "
                   "unit can be all pods in a pod group (in case of DisruptionMode=all), or a "
                   "single pod (in case of DisruptionMode=single).");
}
FamilyDesc PreemptionEvaluationDuration() {
  return Histogram("preemption_evaluation_duration_seconds", kAlpha, {"preemptor", "result"},
                   ExponentialBuckets(0.001, 2, 16),
                   "Duration in seconds for identifying the target preemption victims.");
}
FamilyDesc PreemptionExecutionDuration() {
  return Histogram("preemption_execution_duration_seconds", kAlpha, {"preemptor", "result"},
                   ExponentialBuckets(0.001, 2, 16),
                   "Duration in seconds for preempting the target preemption victims. With async "
                   "preemption enabled, preemption execution does not block the scheduling of "
                   "other pods.");
}
FamilyDesc PreemptionPdbViolations() {
  return Counter("preemption_pdb_violations_total", kAlpha, {"preemptor"},
                 "Total number of pod disruption budget violations caused by preemption.");
}
FamilyDesc GeneratedPlacements() {
  return Counter("generated_placements_total", kAlpha, {"profile"},
                 "Number of candidate placements generated when scheduling pod groups.");
}
FamilyDesc PlacementEvaluations() {
  return Counter("placement_evaluations_total", kAlpha, {"result", "profile"},
                 "Number of candidate placements evaluated when scheduling pod groups, by "
                 "result. 'feasible' means the pod group fit into the placement, while "
                 "'infeasible' means it did not.");
}
FamilyDesc PlacementEvaluationDuration() {
  return Histogram("placement_evaluation_duration_seconds", kAlpha, {"result", "profile"},
                   ExponentialBuckets(0.001, 2, 15),
                   "Latency in seconds of evaluating a single candidate placement when "
                   "scheduling pod groups, by result. 'feasible' means the pod group fit into "
                   "the placement, while 'infeasible' means it did not.");
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
          Type::kGauge,
          kStable,
          {"namespace", "pod", "node", "scheduler", "priority", "resource", "unit"},
          {}};
}
FamilyDesc PodResourceLimit() {
  return {"kube_pod_resource_limit",
          "Resources limit for workloads on the cluster, broken down by pod. This shows the "
          "resource usage the scheduler and kubelet expect per pod for resources along with the "
          "unit for the resource if any.",
          Type::kGauge,
          kStable,
          {"namespace", "pod", "node", "scheduler", "priority", "resource", "unit"},
          {}};
}

}  // namespace stowage::metrics::families
