// VolumeRestrictions (upstream plugins/volumerestrictions): volumes that only one pod, or one
// node, may use at a time.
//
// Disk conflicts: a pod's GCE PD, AWS EBS, ISCSI or RBD volume conflicts with the same disk on a
// pod already on the node (unless both mount it read-only; EBS always conflicts), and the node
// is Unschedulable with "node(s) had no available disk". ReadWriteOncePod: a claim with that
// access mode that some pod in the snapshot already uses makes every node Unschedulable with
// upstream's message until that pod goes; preemption removes such users through the PreFilter
// extensions. A missing claim is UnschedulableAndUnresolvable with the API's not-found message.
// Thread-safe.
#pragma once

#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::volume_restrictions {

inline constexpr std::string_view kName = "VolumeRestrictions";
inline constexpr std::string_view kStateKey = "PreFilterVolumeRestrictions";
inline constexpr std::string_view kErrReasonDiskConflict = "node(s) had no available disk";
inline constexpr std::string_view kErrReasonReadWriteOncePodConflict =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

class VolumeRestrictions final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  // skip_resize_deferred: the InPlacePodVerticalScalingSchedulerPreemption gate.
  VolumeRestrictions(framework::Handle& handle, bool skip_resize_deferred);
  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* Extensions() override { return this; }
  framework::Status AddPod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) override;
  framework::Status RemovePod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // Upstream's events and hints: an assigned pod deleted that held one of the pod's disks or
  // claims, a Node added, one of the pod's claims added.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  const framework::Lister<api::PersistentVolumeClaim>& claims_;
  const bool skip_resize_deferred_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, VolumeRestrictions>);
static_assert(std::is_base_of_v<framework::FilterPlugin, VolumeRestrictions>);

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::volume_restrictions
