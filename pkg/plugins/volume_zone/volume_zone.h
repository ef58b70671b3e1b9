// VolumeZone (upstream plugins/volumezone): a pod whose bound PersistentVolumes carry zone or
// region labels fits only nodes in those zones and regions.
//
// PreFilter collects the topology labels (topology.kubernetes.io/{zone,region} and their
// failure-domain.beta forms; a value may list several zones joined by "__") of the volumes of
// the pod's bound claims, skipping claims that wait for their first consumer; a missing claim,
// volume or class is UnschedulableAndUnresolvable with the API's not-found message. Filter
// rejects a node that has some topology label but not the volume's value under the same key
// (or its GA form), with "node(s) had no available volume zone"; a node with no topology label
// at all fits. Thread-safe.
#pragma once

#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::volume_zone {

inline constexpr std::string_view kName = "VolumeZone";
inline constexpr std::string_view kStateKey = "PreFilterVolumeZone";
inline constexpr std::string_view kErrReasonConflict = "node(s) had no available volume zone";

class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  // skip_resize_deferred: the InPlacePodVerticalScalingSchedulerPreemption gate.
  VolumeZone(framework::Handle& handle, bool skip_resize_deferred);
  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // Upstream's events and hints: a WaitForFirstConsumer StorageClass added, a Node added or
  // relabelled, one of the pod's claims added or updated, a PV added or its topology relabelled.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  const framework::Lister<api::PersistentVolume>& volumes_;
  const framework::Lister<api::PersistentVolumeClaim>& claims_;
  const framework::Lister<api::StorageClass>& classes_;
  const bool skip_resize_deferred_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, VolumeZone>);
static_assert(std::is_base_of_v<framework::FilterPlugin, VolumeZone>);

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::volume_zone
