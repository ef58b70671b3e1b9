// DynamicResources (upstream plugins/dynamicresources), as a guard until the structured allocator
// lands: a pod with spec.resourceClaims is rejected at PreFilter as UnschedulableAndUnresolvable
// with kGuardReason, because binding it without allocating its claims would leave it waiting
// forever for a kubelet that cannot prepare them. Pods without claims are skipped. A pod asking
// for an extended resource that a DeviceClass provides needs no guard: NodeResourcesFit already
// rejects every node that does not advertise that resource.
//
// PostFilter keeps upstream's answer: Unschedulable (preemption goes on) when PreFilter ran, and
// the error "not found" when an earlier PreFilter plugin rejected the pod as unresolvable, so
// DynamicResources' PreFilter never wrote its state; upstream's message then ends in " not found"
// instead of preemption's verdict, and stowage's does too. Thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::dynamic_resources {

inline constexpr std::string_view kName = "DynamicResources";
inline constexpr std::string_view kGuardReason =
    "pod uses ResourceClaims, which stowage cannot allocate yet (dynamic resource allocation is "
    "not implemented)";

inline constexpr std::string_view kStateKey = "DynamicResources";

class DynamicResources final : public framework::PreFilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& filtered,
                               framework::PluginsRunner& runner,
                               framework::NominatingInfo& result) override;
  // None: no cluster change makes a guarded pod schedulable, so it waits for the periodic
  // flush of unschedulable pods rather than for every event (a plugin without this interface
  // would be woken by all of them).
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return {}; }
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, DynamicResources>);
static_assert(std::is_base_of_v<framework::PostFilterPlugin, DynamicResources>);

// Takes DynamicResourcesArgs (its timeouts are for the allocator, not used yet).
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::dynamic_resources
