// The feature gates that change KubeSchedulerConfiguration defaults or validation, or a
// plugin's behaviour (every plugin factory receives them, as upstream's plugins get
// feature.Features).
//
// Upstream reads these from the process-wide feature gate; here they are passed explicitly so
// defaulting, validation and plugins stay pure functions of their inputs. A default-constructed
// Features holds the kube-scheduler 1.37 defaults (pkg/features/kube_features.go at v1.37.2).
// Each field is named after its gate in snake_case.
#pragma once

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::config {

struct Features {
  // GA and locked on in 1.37: appends NodeDeclaredFeatures to the default MultiPoint list.
  bool node_declared_features = true;
  // Alpha, off: inserts DeferredPodScheduling before NodeResourcesFit.
  bool in_place_pod_vertical_scaling_scheduler_preemption = false;
  // GA and locked on: inserts DynamicResources (weight 2) before DefaultPreemption.
  bool dynamic_resource_allocation = true;
  // Beta, off: appends GangScheduling (1.36 keyed this on the removed GangScheduling gate).
  bool generic_workload = false;
  // Alpha, off: appends TopologyPlacementGenerator and PodGroupPodsCount (weight 1).
  bool topology_aware_workload_scheduling = false;
  // Beta, on in 1.37: VolumeBindingArgs.shape is defaulted and allowed only when on.
  bool storage_capacity_scoring = true;
  // Beta, on: DynamicResourcesArgs.filterTimeout is defaulted (10s) and allowed only when on.
  bool dra_scheduler_filter_timeout = true;
  // Beta, on, and GA locked on: DynamicResourcesArgs.bindingTimeout is defaulted (10m) and
  // allowed only when both are on.
  bool dra_device_binding_conditions = true;
  bool dra_resource_claim_device_status = true;
  // Beta, on: DefaultPreemption makes its API calls off the scheduling thread and holds the
  // preemptor at PreEnqueue until they are done.
  bool scheduler_async_preemption = true;
  // Alpha, off: TaintToleration's Gt and Lt operators compare integer values.
  bool taint_toleration_comparison_operators = false;
  // Beta, on in 1.37: NodeVolumeLimits rejects a node whose CSINode lacks a driver whose
  // CSIDriver sets preventPodSchedulingIfMissing.
  bool volume_limit_scaling = true;
};

}  // namespace stowage::config

#pragma GCC visibility pop
