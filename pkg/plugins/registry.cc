#include "pkg/plugins/registry.h"

#include "pkg/plugins/default_binder/default_binder.h"
#include "pkg/plugins/default_preemption/default_preemption.h"
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "pkg/plugins/image_locality/image_locality.h"
#include "pkg/plugins/inter_pod_affinity/plugin.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/node_affinity/node_affinity.h"
#include "pkg/plugins/node_declared_features/node_declared_features.h"
#include "pkg/plugins/node_name/node_name.h"
#include "pkg/plugins/node_ports/node_ports.h"
#include "pkg/plugins/node_resources/balanced_allocation.h"
#include "pkg/plugins/node_resources/fit.h"
#include "pkg/plugins/node_unschedulable/node_unschedulable.h"
#include "pkg/plugins/node_volume_limits/node_volume_limits.h"
#include "pkg/plugins/pod_topology_spread/plugin.h"
#include "pkg/plugins/queue_sort/queue_sort.h"
#include "pkg/plugins/scheduling_gates/scheduling_gates.h"
#include "pkg/plugins/taint_toleration/taint_toleration.h"
#include "pkg/plugins/volume_binding/volume_binding.h"
#include "pkg/plugins/volume_restrictions/volume_restrictions.h"
#include "pkg/plugins/volume_zone/volume_zone.h"
#include "stowage/common/assert.h"

namespace stowage::plugins {

framework::Registry NewInTreeRegistry() {
  framework::Registry r;
  const std::pair<std::string_view, framework::PluginFactory> entries[] = {
      {names::kPrioritySort, queue_sort::New},
      {names::kSchedulingGates, scheduling_gates::New},
      {names::kNodeUnschedulable, node_unschedulable::New},
      {names::kNodeName, node_name::New},
      {names::kTaintToleration, taint_toleration::New},
      {names::kNodeAffinity, framework::WithArgs<config::NodeAffinityArgs>(node_affinity::New)},
      {names::kNodePorts, node_ports::New},
      {names::kNodeResourcesFit,
       framework::WithArgs<config::NodeResourcesFitArgs>(node_resources::NewFit)},
      {names::kNodeResourcesBalancedAllocation,
       framework::WithArgs<config::NodeResourcesBalancedAllocationArgs>(
           node_resources::NewBalancedAllocation)},
      {names::kPodTopologySpread,
       framework::WithArgs<config::PodTopologySpreadArgs>(pod_topology_spread::New)},
      {names::kInterPodAffinity,
       framework::WithArgs<config::InterPodAffinityArgs>(inter_pod_affinity::New)},
      {names::kVolumeBinding, framework::WithArgs<config::VolumeBindingArgs>(volume_binding::New)},
      {names::kVolumeRestrictions, volume_restrictions::New},
      {names::kVolumeZone, volume_zone::New},
      {names::kNodeVolumeLimits, node_volume_limits::New},
      {names::kImageLocality, image_locality::New},
      {names::kNodeDeclaredFeatures, node_declared_features::New},
      {names::kDynamicResources,
       framework::WithArgs<config::DynamicResourcesArgs>(dynamic_resources::New)},
      {names::kDefaultPreemption,
       framework::WithArgs<config::DefaultPreemptionArgs>(default_preemption::New)},
      {names::kDefaultBinder, default_binder::New},
  };
  for (const auto& [name, factory] : entries) {
    RELEASE_ASSERT(r.Register(std::string(name), factory).ok(), "duplicate in-tree plugin");
  }
  return r;
}

const std::vector<std::string_view>& NotYetImplemented() {
  static const auto* list = new std::vector<std::string_view>{
      names::kGangScheduling,
      // Added to the default profile only by gates that are off by default in 1.37.
      names::kDeferredPodScheduling,
      names::kTopologyPlacementGenerator,
      names::kPodGroupPodsCount,
  };
  return *list;
}

}  // namespace stowage::plugins
