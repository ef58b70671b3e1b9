// VolumeBinding (upstream plugins/volumebinding), in part: the checks that keep a pod whose
// PersistentVolumeClaims stowage cannot serve from being bound.
//
// PreFilter rejects, as UnschedulableAndUnresolvable with upstream's words, a pod whose claim is
// missing, lost, terminating, not owned (generic ephemeral volumes) or unbound with immediate
// binding; Filter rejects nodes that a bound claim's PersistentVolume does not allow by its node
// affinity, or all nodes when that volume does not exist. What upstream does next (binding
// unbound WaitForFirstConsumer claims: static matching, provisioning, capacity scoring, Reserve
// and PreBind) is not implemented yet, so such a pod is rejected at PreFilter with kGuardReason
// rather than bound to a node where its volume would never appear. Thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::volume_binding {

inline constexpr std::string_view kName = "VolumeBinding";
inline constexpr std::string_view kStateKey = "PreFilterVolumeBinding";
// Upstream's reasons (binder.go, volume_binding.go).
inline constexpr std::string_view kErrUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";
inline constexpr std::string_view kErrReasonNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
// stowage's own: the claim must be bound on a node the scheduler chooses, which it cannot do yet.
inline constexpr std::string_view kGuardReason =
    "pod has unbound PersistentVolumeClaims of a WaitForFirstConsumer StorageClass, which "
    "stowage cannot bind or provision yet";

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::EnqueueExtensions {
 public:
  explicit VolumeBinding(framework::Handle& handle);
  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // Upstream's StorageClass, PVC and PV Add/Update and Node Add/UpdateNodeLabel events, without
  // hints yet (always Queue). CSINode, CSIDriver and CSIStorageCapacity come with the binder.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  const framework::Lister<api::PersistentVolume>& volumes_;
  const framework::Lister<api::PersistentVolumeClaim>& claims_;
  const framework::Lister<api::StorageClass>& classes_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, VolumeBinding>);
static_assert(std::is_base_of_v<framework::FilterPlugin, VolumeBinding>);

// Takes VolumeBindingArgs (bindTimeoutSeconds and shape are for the binder, not used yet).
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::volume_binding
