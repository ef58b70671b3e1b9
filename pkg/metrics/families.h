// The descriptors of the scheduler's families, one function per family, in the order of
// upstream's pkg/scheduler/metrics/metrics.go at 1.37 (then the volume binder's pair): name,
// HELP as upstream writes it, type, stability, label names in upstream's order, buckets.
// metrics.cc registers from these, and tests compare them with upstream's exposition.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>

#include "pkg/metrics/registry.h"

namespace stowage::metrics::families {

FamilyDesc ScheduleAttempts();
FamilyDesc EventHandlingDuration();
FamilyDesc SchedulingAttemptDuration();
FamilyDesc SchedulingAlgorithmDuration();
FamilyDesc PreemptionVictims();
FamilyDesc PreemptionAttempts();
FamilyDesc PendingPods();
FamilyDesc QueuedEntities();
FamilyDesc InflightEvents();
FamilyDesc Goroutines();
FamilyDesc BatchAttempts();
FamilyDesc BatchCacheFlushed();
FamilyDesc BatchRescoreAttempts();
FamilyDesc PodSchedulingSliDuration();
FamilyDesc PodSchedulingAttempts();
FamilyDesc PodScheduledAfterFlush();
FamilyDesc PreQueueingHintEvaluations();
FamilyDesc FrameworkExtensionPointDuration();
FamilyDesc PluginExecutionDuration();
FamilyDesc QueueingHintExecutionDuration();
FamilyDesc QueueIncomingPods();
FamilyDesc QueueIncomingEntities();
FamilyDesc PermitWaitDuration();
FamilyDesc CacheSize();
FamilyDesc UnschedulablePods();
FamilyDesc PluginEvaluation();
FamilyDesc PreemptionGoroutinesDuration();
FamilyDesc PreemptionGoroutinesExecution();
FamilyDesc AsyncApiCallExecution();
FamilyDesc AsyncApiCallExecutionDuration();
FamilyDesc PendingAsyncApiCalls();
FamilyDesc ResourceClaimCreates();
FamilyDesc DraBindingConditionsAllocations();
FamilyDesc DraBindingConditionsWaitDuration();
FamilyDesc GetNodeHintDuration();
FamilyDesc StoreScheduleResultsDuration();
FamilyDesc BatchRescoreDuration();
FamilyDesc PodGroupScheduleAttempts();
FamilyDesc PodGroupSchedulingAttemptDuration();
FamilyDesc PodGroupSchedulingAlgorithmDuration();
FamilyDesc WorkloadPreemptionAttempts();
FamilyDesc WorkloadPreemptionVictims();
FamilyDesc PreemptionWorkloadDisruptions();
FamilyDesc PreemptionEvaluationDuration();
FamilyDesc PreemptionExecutionDuration();
FamilyDesc PreemptionPdbViolations();
FamilyDesc GeneratedPlacements();
FamilyDesc PlacementEvaluations();
FamilyDesc PlacementEvaluationDuration();
FamilyDesc VolumeBinderCacheRequests();
FamilyDesc VolumeSchedulingStageError();

// /metrics/resources (upstream pkg/scheduler/metrics/resources): described here so every
// upstream name and HELP lives in this package; pkg/scheduler renders them.
FamilyDesc PodResourceRequest();
FamilyDesc PodResourceLimit();

// The registered families whose series profile_metrics.h resolves per profile and plugin
// (registers the scheduler's families if needed).
struct PerProfile {
  prometheus::Family<prometheus::Counter>* schedule_attempts;
  prometheus::Family<prometheus::Histogram>* attempt_duration;
  prometheus::Family<prometheus::Histogram>* extension_point_duration;
  prometheus::Family<prometheus::Histogram>* plugin_execution_duration;
  prometheus::Family<prometheus::Counter>* plugin_evaluation;
};
const PerProfile& PerProfileFamilies();

}  // namespace stowage::metrics::families
