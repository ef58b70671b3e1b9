// What the filter plugins do for a bound pod whose in-place resize the kubelet deferred: with
// the InPlacePodVerticalScalingSchedulerPreemption gate (alpha, off in 1.37) such a pod comes
// back to the scheduler only to make room on its own node, so the plugins that judge whether a
// pod may land on a node (NodeUnschedulable, TaintToleration) skip it. Pure and thread-safe.
#pragma once

#include "stowage/api/types.h"
#include "stowage/framework/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// The default of the InPlacePodVerticalScalingSchedulerPreemption feature gate in 1.37.
inline constexpr bool kDefaultEnableResizePreemption = false;

// True when the gate is on and the pod's resize is deferred: the node already runs the pod.
inline bool IsDeferredResize(bool enable_resize_preemption, const api::Pod& pod) {
  return enable_resize_preemption && framework::IsPodResizeDeferred(pod);
}

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
