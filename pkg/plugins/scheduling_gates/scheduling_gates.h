// SchedulingGates: keeps pods that still carry spec.schedulingGates out of the active queue
// (upstream plugins/schedulinggates). PreEnqueue rejects a gated pod as
// UnschedulableAndUnresolvable "waiting for scheduling gates: [g1 g2]"; the pod is retried when
// an update removes its last gate (TargetPod/UpdatePodSchedulingGatesEliminated). Gates can only be
// removed, never added, after creation. Stateless and thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::scheduling_gates {

inline constexpr std::string_view kName = "SchedulingGates";

class SchedulingGates final : public framework::PreEnqueuePlugin,
                              public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }
  framework::Status PreEnqueue(const api::Pod& pod) override;
  // TargetPod/UpdatePodSchedulingGatesEliminated with IsSchedulableAfterGatesEliminated.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
};
static_assert(std::is_base_of_v<framework::PreEnqueuePlugin, SchedulingGates>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, SchedulingGates>);

// Queue only when the updated pod is the gated pod itself (matched by UID).
framework::QueueingHint IsSchedulableAfterGatesEliminated(const api::Pod& pod,
                                                          const framework::EventObject& old_obj,
                                                          const framework::EventObject& new_obj);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::scheduling_gates
