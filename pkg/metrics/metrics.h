// The scheduler's metric families (upstream pkg/scheduler/metrics, the volume binder's pair),
// registered in Registry::Global() under upstream kube-scheduler 1.37's names, types, HELP,
// stability, labels and buckets, plus the accessors the scheduler, framework, queue and cache
// use to update them.
//
// Families stowage registers but never feeds, because it lacks the feature: batch_* (no
// opportunistic batching), pre_queueing_hint_evaluations_total (no PreQueueingHint), the DRA,
// volume binder and async API call families, and the pod group ones (GenericWorkload). Since
// stowage queues single pods only, each pod is an entity of type "pod" and queued_entities and
// queue_incoming_entities_total are derived at scrape time from pending_pods and
// queue_incoming_pods_total (stowage counts a pod only when it enters a queue it was not in,
// which is when upstream counts the entity).
//
// Register() registers the families once per process, as upstream's metrics.Register(), with
// the gate-conditional ones following the feature gates given (1.36 defaults otherwise); a
// family whose gate is off still accepts updates but is not served. Accessors register with
// defaults if Register() was not called first.
//
// Cost: the accessors for per-pod and per-event paths (queue moves, event handlers, results)
// look the series up in a ChildCache (a short mutex, no allocation once the series exists);
// callers on the per-node or per-plugin path hold references or use profile_metrics.h. Label
// values are upstream's exact strings. Thread-safe.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "pkg/metrics/child_cache.h"
#include "pkg/metrics/registry.h"
#include "stowage/plugin_config/extension_point.h"

namespace stowage::metrics {

// The gates that decide which optional families upstream registers; defaults are 1.37's.
struct FeatureGates {
  bool scheduler_async_preemption = true;           // Beta, on
  bool scheduler_async_api_calls = false;           // Beta, off
  bool dra_extended_resource = true;                // GA, locked
  bool generic_workload = false;                    // Beta, off
  bool topology_aware_workload_scheduling = false;  // Alpha, off
  bool dra_device_binding_conditions = true;        // Beta, on
};

// Registers the scheduler's families; the first call decides, later ones are ignored.
void Register(const FeatureGates& gates = {});

// The descriptors of every scheduler family (registered or not), in upstream's order: for
// tests and documentation.
std::vector<FamilyDesc> SchedulerFamilyDescs();

// --- label values ---------------------------------------------------------------------------

// schedule_attempts_total / scheduling_attempt_duration_seconds "result".
enum class Result : uint8_t { kScheduled, kUnschedulable, kError };
std::string_view ResultName(Result r);  // "scheduled", "unschedulable", "error"

// "extension_point" values: the framework's extension points, labelled with upstream's strings.
using framework::ExtensionPoint;
using framework::kNumExtensionPoints;
constexpr std::string_view ExtensionPointName(ExtensionPoint p) {
  return framework::Info(p).metric_label;
}

// "status" values: framework Code names, indexed by the numeric value of framework::Code
// (upstream's order: Success, Error, Unschedulable, UnschedulableAndUnresolvable, Wait, Skip,
// Pending). Out-of-range codes read "Unknown".
inline constexpr size_t kNumCodes = 7;
std::string_view CodeName(uint8_t code);

// pending_pods / queue_incoming_pods_total "queue" ("gated" is pending_pods only).
enum class Queue : uint8_t { kActive, kBackoff, kUnschedulable, kGated };
std::string_view QueueName(Queue q);

// queueing_hint_execution_duration_seconds "hint".
enum class HintResult : uint8_t { kQueue, kQueueSkip, kError };
std::string_view HintResultName(HintResult h);  // "Queue", "QueueSkip", "Error"

// cache_size "type".
enum class CacheType : uint8_t { kAssumedPods, kPods, kNodes };

// Operation label of goroutines for binding cycles.
inline constexpr std::string_view kBindingOperation = "binding";

// --- accessors --------------------------------------------------------------------------------

// scheduling_algorithm_duration_seconds.
prometheus::Histogram& SchedulingAlgorithmDuration();
// event_handling_duration_seconds{event}, e.g. "NodeAdd", "AssignedPodDelete".
prometheus::Histogram& EventHandlingDuration(std::string_view event);
// pending_pods{queue}.
prometheus::Gauge& PendingPods(Queue q);
// queue_incoming_pods_total{queue,event}.
prometheus::Counter& QueueIncomingPods(Queue q, std::string_view event);
// inflight_events{event} ("PodPopped" for pods being scheduled).
prometheus::Gauge& InflightEvents(std::string_view event);
// queueing_hint_execution_duration_seconds{plugin,event,hint}.
void ObserveQueueingHint(std::string_view plugin, std::string_view event, HintResult hint,
                         double seconds);
// unschedulable_pods{plugin,profile}.
prometheus::Gauge& UnschedulablePods(std::string_view plugin, std::string_view profile);
// goroutines{operation}.
prometheus::Gauge& Goroutines(std::string_view operation);
// permit_wait_duration_seconds{result}, result being a Code name.
prometheus::Histogram& PermitWaitDuration(uint8_t code);
// cache_size{type}.
prometheus::Gauge& CacheSize(CacheType t);
// A pod bound after `attempts` scheduling attempts, `sli_seconds` after it first entered
// activeQ: pod_scheduling_attempts and pod_scheduling_sli_duration_seconds{attempts} ("1".."14",
// "15+").
void ObservePodScheduled(int attempts, double sli_seconds);
// pod_scheduled_after_flush_total.
prometheus::Counter& PodScheduledAfterFlush();
// preemption_attempts_total, preemption_victims, and the async preemption pair.
prometheus::Counter& PreemptionAttempts();
prometheus::Histogram& PreemptionVictims();
void ObservePreemptionGoroutine(bool success, double seconds);
// volume_scheduling_stage_error_total{operation}: predicate, assume or bind.
prometheus::Counter& VolumeSchedulingStageError(std::string_view operation);
// dynamic_resource_allocation_resourceclaim_creates_total, for the claims the scheduler creates
// for pods' extended resources.
prometheus::Counter& ResourceClaimCreates(bool success);
// scheduler_dra_bindingconditions_wait_duration_seconds{profile,driver,status} when wait_seconds
// is set (one device of a claim PreBind waited for), else
// scheduler_dra_bindingconditions_allocations_total (one device with binding conditions).
void ObserveDraBindingConditions(std::string_view profile, std::string_view driver,
                                 std::string_view status, std::optional<double> wait_seconds);

}  // namespace stowage::metrics
