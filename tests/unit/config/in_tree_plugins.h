// Test helper: which extension points each in-tree plugin implements in kube-scheduler 1.37
// (the extension-point methods of the plugins under pkg/scheduler/framework/plugins at v1.37.2).
// The real table belongs to the framework registry; config only takes it as a callback.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "pkg/config/types.h"

namespace stowage::config::testing {

inline bool InTreeImplements(std::string_view plugin, ExtensionPoint point) {
  using E = ExtensionPoint;
  static const auto* const kTable = new std::map<std::string, std::set<E>, std::less<>>{
      {"PrioritySort", {E::kQueueSort}},
      {"SchedulingGates", {E::kPreEnqueue}},
      {"NodeUnschedulable", {E::kPreFilter, E::kFilter}},
      {"NodeName", {E::kPreFilter, E::kFilter}},
      {"TaintToleration", {E::kPreFilter, E::kFilter, E::kPreScore, E::kScore}},
      {"NodeAffinity", {E::kPreFilter, E::kFilter, E::kPreScore, E::kScore}},
      {"NodePorts", {E::kPreFilter, E::kFilter}},
      {"NodeResourcesFit",
       {E::kPreFilter, E::kFilter, E::kPreScore, E::kScore, E::kPlacementScore}},
      {"NodeResourcesBalancedAllocation", {E::kPreScore, E::kScore}},
      {"VolumeRestrictions", {E::kPreFilter, E::kFilter}},
      {"NodeVolumeLimits", {E::kPreFilter, E::kFilter}},
      {"VolumeBinding",
       {E::kPreFilter, E::kFilter, E::kReserve, E::kPreBind, E::kPreScore, E::kScore}},
      {"VolumeZone", {E::kPreFilter, E::kFilter}},
      {"PodTopologySpread", {E::kPreFilter, E::kFilter, E::kPreScore, E::kScore}},
      {"InterPodAffinity", {E::kPreFilter, E::kFilter, E::kPreScore, E::kScore}},
      {"DefaultPreemption", {E::kPostFilter, E::kPreEnqueue, E::kPodGroupPostFilter}},
      {"DefaultBinder", {E::kBind}},
      {"ImageLocality", {E::kScore}},
      {"DynamicResources",
       {E::kPreEnqueue, E::kPreFilter, E::kFilter, E::kPostFilter, E::kScore, E::kReserve,
        E::kPreBind, E::kPodGroupPostFilter}},
      {"DeferredPodScheduling", {E::kPreFilter, E::kFilter, E::kPermit}},
      {"GangScheduling", {E::kPreEnqueue, E::kPermit}},
      {"NodeDeclaredFeatures", {E::kPreFilter, E::kFilter}},
      {"TopologyPlacementGenerator", {E::kPlacementGenerate}},
      {"PodGroupPodsCount", {E::kPlacementScore}},
  };
  auto it = kTable->find(plugin);
  return it != kTable->end() && it->second.count(point) != 0;
}

inline bool InTreeExists(std::string_view plugin) {
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (InTreeImplements(plugin, p)) return true;
  }
  return false;
}

}  // namespace stowage::config::testing
